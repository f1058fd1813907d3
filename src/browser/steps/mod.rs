//! The browser steps, one file per family, dispatched from one `match` (`dispatch`). The top
//! layer of `browser/`: built on `page` and `driver`.

mod checks;
pub(crate) mod dispatch;
pub(crate) mod download;
mod events;
pub(crate) mod expect;
pub(crate) mod files;
mod history;
mod keyboard;
mod matcher;
mod navigation;
mod network;
mod pointer;
mod reads;
mod tabs;
