//! The typed model of a flow, deserialized from the validated `Value`, one file per part of the
//! flow it models. The JSON Schema in `schemas/flow.schema.json` and these types describe the
//! same data; a test keeps them in step.

mod action;
mod agent;
mod aria_roles;
mod browser;
mod checks;
mod control;
mod element;
mod exec;
mod expect;
mod flow;
mod keyboard;
mod matrix;
mod page;
mod read;
mod request;
mod retry;
mod selector;
mod step;
mod suite;
mod value;

// Every type keeps its old path, `crate::config::model::X`, whichever file now holds it.
pub(crate) use action::*;
pub(crate) use agent::*;
pub(crate) use browser::*;
pub(crate) use checks::*;
pub(crate) use control::*;
pub(crate) use element::*;
pub(crate) use exec::*;
pub(crate) use expect::*;
pub(crate) use flow::*;
pub(crate) use keyboard::*;
pub(crate) use page::*;
pub(crate) use read::*;
pub(crate) use request::*;
pub(crate) use retry::*;
pub(crate) use selector::*;
pub(crate) use step::*;
pub(crate) use suite::*;
pub(crate) use value::*;
