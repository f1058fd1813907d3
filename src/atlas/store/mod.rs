//! The atlas on disk (docs/atlas.md, "On disk"):
//! `nodes/<id>/meta.json`, `screenshot.png`, `snapshot.txt`, `todos.json`,
//! `nodes/<id>/links/<action>` (a symlink to `../../<target>`: the edge) and
//! `edges/<source>/<action>/flow.yaml` (the steps from source to target, a flow that replays).
//! Writes are atomic (write, then rename) and serialized by a lock file, so two runs can share
//! an atlas. A broken or hand-edited atlas gives errors, never a panic.

mod check;
mod dir;
mod error;
mod files;
mod links;
mod nodes;
mod paths;
mod reach;
mod settings;
#[cfg(test)]
mod tests;

pub(crate) use dir::{Atlas, refusal};
pub(crate) use error::AtlasError;
pub(crate) use links::{EdgeLabel, Link};
pub(crate) use nodes::{Ensured, SHOWED_A_SECRET, State};
pub(crate) use reach::{Reach, off_origin, referenced_secrets};
