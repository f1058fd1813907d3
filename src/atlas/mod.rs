//! The atlas: an on-disk graph of browser states (nodes) linked by the actions between them
//! (edges), recorded by `link_state` steps, replayed, verified, exported and explored.

mod arrival;
mod checks;
mod compare;
mod explore;
mod export;
mod fingerprint;
mod identity;
mod label;
mod locator;
mod mount;
mod record;
mod replay;
mod secrets;
mod server;
mod settle;
mod status;
mod store;
mod testing;
mod verify;
mod view;

pub(crate) use compare::{AtlasDiff, BrokenWhy, EdgeRef, MatchedBy, RemovedWhy, StateRef, compare};
pub(crate) use explore::{ExploreAgent, Options as ExploreOptions, explore};
pub(crate) use export::{ExportFormat, export, file_stem};
pub(crate) use fingerprint::Fingerprint;
pub(crate) use identity::{Element, StateDiff};
pub(crate) use label::Labels;
pub(crate) use record::{RecordTarget, Trail, atlas_dir, record_state};
pub(crate) use replay::{Bounds, Driver, Replayed, Start, replay};
pub(crate) use secrets::{servers_masker, unset_secrets};
pub(crate) use server::{server_of, url_origin};
pub(crate) use status::{mark as mark_status, status};
pub(crate) use store::{
    Atlas, AtlasError, Reach, off_origin, referenced_secrets, refusal as atlas_refusal,
};
pub(crate) use testing::{Tested, test, test_ideas};
pub(crate) use verify::{Checks, verify_until};
pub(crate) use view::{GraphFormat, graph, path, show};
