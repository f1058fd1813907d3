//! What `atlas diff` found, as its JSON output is (docs/atlas.md, "Comparing two atlases"):
//! every list is there, empty or not, sorted by label (then id), so the document is stable.

use serde::Serialize;

use super::matching::MatchedBy;
use crate::atlas::StateDiff;
use crate::atlas::fingerprint::Fingerprint;

/// The differences between atlas `a` and atlas `b`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AtlasDiff {
    /// The atlas directories, as given.
    pub(crate) a: String,
    pub(crate) b: String,
    /// How both atlases tell states apart.
    pub(crate) fingerprint: Fingerprint,
    /// Whether a state was added, removed or changed, or an edge broken, new or removed.
    pub(crate) differ: bool,
    pub(crate) summary: Summary,
    pub(crate) states: States,
    pub(crate) edges: Edges,
}

/// The counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Summary {
    pub(crate) states_added: usize,
    pub(crate) states_removed: usize,
    pub(crate) states_changed: usize,
    /// States of A with the same identity in B (those with other data too).
    pub(crate) states_unchanged: usize,
    pub(crate) edges_broken: usize,
    pub(crate) edges_new: usize,
    pub(crate) edges_removed: usize,
    pub(crate) edges_unchanged: usize,
}

/// A state of one of the atlases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct StateRef {
    pub(crate) id: String,
    /// Its name (title and route, see "Names of states"), in its own atlas.
    pub(crate) label: String,
    pub(crate) url: String,
    pub(crate) title: String,
}

/// A state as an edge names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct NodeRef {
    pub(crate) id: String,
    pub(crate) label: String,
}

/// The states.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct States {
    /// In B only.
    pub(crate) added: Vec<StateRef>,
    /// In A only.
    pub(crate) removed: Vec<StateRef>,
    /// Paired, another identity: what differs.
    pub(crate) changed: Vec<ChangedState>,
    /// The same identity, another title or other data: not a difference, said.
    pub(crate) drifted: Vec<DriftedState>,
}

/// A state of A and the state of B it became.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ChangedState {
    pub(crate) a: StateRef,
    pub(crate) b: StateRef,
    pub(crate) matched_by: MatchedBy,
    /// A's state as `expected`, B's as `found`.
    pub(crate) diff: StateDiff,
}

/// A state that is the same in both, with another title or other data.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DriftedState {
    pub(crate) a: StateRef,
    pub(crate) b: StateRef,
    pub(crate) diff: StateDiff,
}

/// The edges.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Edges {
    /// Edges of A whose two states are in B, which B lacks or which lead elsewhere there.
    pub(crate) broken: Vec<BrokenEdge>,
    /// Edges of B that A lacks (B's states).
    pub(crate) new: Vec<EdgeRef>,
    /// Edges of A gone with a state of theirs.
    pub(crate) removed: Vec<RemovedEdge>,
}

/// An edge: a state, an action, the state it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct EdgeRef {
    pub(crate) source: NodeRef,
    pub(crate) action: String,
    pub(crate) target: NodeRef,
}

/// Why an edge is broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BrokenWhy {
    /// B's state has no such action.
    Missing,
    /// In B the action leads to another state (`now`).
    Retargeted,
}

/// An edge of A (A's states) broken in B.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct BrokenEdge {
    #[serde(flatten)]
    pub(crate) edge: EdgeRef,
    pub(crate) reason: BrokenWhy,
    /// Where the action leads in B (`retargeted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) now: Option<NodeRef>,
}

/// Why an edge of A is not in B with its states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RemovedWhy {
    SourceRemoved,
    TargetRemoved,
}

/// An edge of A (A's states) gone with one of its states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct RemovedEdge {
    #[serde(flatten)]
    pub(crate) edge: EdgeRef,
    pub(crate) reason: RemovedWhy,
}
