//! Exit codes (SPEC §2), documented in README.

/// Every flow passed.
pub const SUCCESS: i32 = 0;
/// A flow failed: a step error or an assertion.
pub const FLOW_FAILED: i32 = 1;
/// Invalid input: config files, templates, command-line usage.
pub const INVALID_INPUT: i32 = 2;
/// The environment is missing something or broken (a tool not installed, a browser that cannot
/// launch, a step family not built yet).
pub const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT or SIGTERM.
pub const INTERRUPTED: i32 = 130;
