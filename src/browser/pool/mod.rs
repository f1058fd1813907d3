//! Browsers for flows: one browser per worker, a fresh context per flow (SPEC §7), the run's
//! browser resources, and the browser of one flow run. Built on `driver`; knows nothing of pages
//! or steps.

mod connect;
mod emulation;
pub(crate) mod flow_session;
pub(crate) mod host;
mod profiles;
pub(crate) mod worker;
