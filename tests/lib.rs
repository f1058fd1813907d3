//! End-to-end tests: the real `runner` binary against files under `tests/fixtures/`.

mod agents;
mod architecture;
mod atlas;
mod browser;
mod cli;
mod common;
mod golden;
mod model;
mod run;
