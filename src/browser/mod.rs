//! The browser half of runner: the agent-browser adapter, sessions, selectors, the HTML
//! inspector, and the browser steps and assertions built on them.

pub mod adapter;
pub mod expect;
pub mod host;
pub mod inspect;
pub mod selector;
pub mod session;
pub mod steps;
