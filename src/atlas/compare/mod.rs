//! `atlas diff A B`: what changed between two atlases of one app — the states added, removed
//! and changed (matched by what identifies them, not by their ids), and the edges broken, new
//! and removed. `report` renders the result as text and as an HTML page; it is JSON as it is.

mod build;
mod matching;
mod model;
mod side;

pub(crate) use build::compare;
pub(crate) use matching::MatchedBy;
pub(crate) use model::{AtlasDiff, BrokenWhy, EdgeRef, RemovedWhy, StateRef};
