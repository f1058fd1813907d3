//! How an atlas tells states apart by their structure, and what differs between two states:
//! the snapshot read as nodes, the route, the structure (data left out) and the diff.

mod diff;
mod excerpt;
mod lcs;
mod normalize;
mod route;
mod snapshot;
mod structure;

pub(crate) use diff::{Recorded, StateDiff, diff};
pub(crate) use lcs::hunks;
pub(crate) use normalize::{normalize_url, text_lines};
pub(crate) use route::{is_id, path_of, route};
pub(crate) use structure::{Element, data, structure};
