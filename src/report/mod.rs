//! The only code that writes to the terminal: diagnostics, live progress (indicatif bars in a
//! terminal, plain lines in CI), summaries; and the report files (JSON, JUnit).

mod console;
pub mod diagnostics;
pub mod html;
pub mod json;
pub mod junit;
mod reporter;
mod status;

pub use console::Console;
pub use reporter::Reporter;
pub use status::Status;
