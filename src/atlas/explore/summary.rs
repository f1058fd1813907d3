//! What a crawl found: the size of the atlas it left, the todos it skipped, could not do or
//! judged meaningless, and what it dropped from the agent's answers.

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
    /// Items of the agent's answers runner could not use, each named with the reason
    /// (`<node>: page_analysis: frontier_tasks[3] (drag text=Add to cart): why`); the rest of
    /// each answer was used.
    pub(crate) dropped_answer_items: Vec<String>,
}
