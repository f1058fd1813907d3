//! The browser steps, one file per family, dispatched from one `match` (`dispatch`). The top
//! layer of `browser/`: built on `page` and `driver`.

pub(crate) mod dispatch;
pub(crate) mod download;
pub(crate) mod expect;
pub(crate) mod files;
mod keyboard;
mod matcher;
mod navigation;
mod network;
mod pointer;
mod reads;
mod tabs;
