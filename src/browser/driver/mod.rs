//! The lowest layer: talking to the browser. agent-browser's CLI and its daemon's socket
//! protocol, runner's own DevTools connection, the Chromium runner starts, a flow's agent-browser
//! session, its downloads and dialogs (and the watch on dialogs in its other tabs). Nothing here
//! knows about selectors or steps.

pub(crate) mod adapter;
pub(crate) mod cdp;
pub(crate) mod chromium;
pub(crate) mod command;
pub(crate) mod daemon;
pub(crate) mod dialog;
pub(crate) mod dialog_watch;
pub(crate) mod downloads;
pub(crate) mod new_tabs;
pub(crate) mod pictures;
pub(crate) mod recorder;
pub(crate) mod ref_table;
pub(crate) mod reply;
pub(crate) mod request_log;
pub(crate) mod script;
pub(crate) mod session;
pub(crate) mod url_glob;
