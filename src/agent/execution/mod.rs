//! The execution service: starts an agent from a profile (new chat or follow-up), relays its
//! output as `[execution:{sessionId}] line`, keeps the whole log, resolves its session id, and
//! stops it (SIGTERM to its process group, then SIGKILL after a grace period) on a wall-clock
//! timeout, an idle timeout, a stop request or an interrupt.

mod output;
mod running;
mod session_ids;
mod start;
mod supervise;

pub(crate) use output::{MAX_LINE, Relay};
pub(crate) use start::{Launch, start};
pub(crate) use supervise::{Ended, Finished};
