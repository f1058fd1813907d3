//! `runner explore URL`: breadth-first crawl of an app's states. At each new state its todo
//! list is made (persisted, so an interrupted crawl resumes); for each todo the browser is
//! teleported to the state (its path replayed in a fresh context, unless the browser's fresh
//! context has just run that path), the todo done, and the state reached recorded with the edge
//! to it. Destructive-looking actions are skipped unless allowed.
//!
//! Without an agent the todos are the state's links, buttons, tabs and menu items, and forms are
//! not filled. With one (`--agent`), the `page_analysis` skill gives each new state its todos
//! (by priority, with the values to fill), a summary and test ideas; the `trajectory_labeling`
//! skill names each edge and drops the actions that changed nothing meaningful.

mod agent;
mod crawl;
mod crawler;
mod destructive;
mod options;
mod summary;
mod task;
mod todos;

pub(crate) use crawl::explore;
pub(crate) use options::{ExploreAgent, Options};
