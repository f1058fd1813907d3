//! Exit codes (SPEC §2), documented in README.

/// Every flow passed.
pub(crate) const SUCCESS: i32 = 0;
/// A flow failed: a step error or an assertion.
pub(crate) const FLOW_FAILED: i32 = 1;
/// Invalid input: config files, templates, command-line usage.
pub(crate) const INVALID_INPUT: i32 = 2;
/// The environment is missing something or broken (a tool not installed, a browser that cannot
/// launch, a step family not built yet).
pub(crate) const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT or SIGTERM.
pub(crate) const INTERRUPTED: i32 = 130;
