//! What a crawl found: the size of the atlas it left, and the todos it skipped, could not do
//! or judged meaningless.

/// What a crawl found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct Summary {
    pub(crate) total_nodes: usize,
    pub(crate) total_edges: usize,
    pub(crate) max_depth_reached: usize,
    pub(crate) atlas_path: String,
    pub(crate) skipped_destructive: Vec<String>,
    /// Todos that could not be done (`<node>: <action>: <why>`): the element was gone, the
    /// path to the state no longer replays, ... They are not edges.
    pub(crate) failed_todos: Vec<String>,
    /// Actions the agent judged meaningless (`<node>: <action>`): no edge recorded.
    pub(crate) dropped_meaningless: Vec<String>,
}
