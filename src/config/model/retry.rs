//! `defaults:` and `retry:`: the timeout and retry policy of a step, set per step or for the
//! whole flow.

use serde::Deserialize;

/// `defaults:`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepDefaults {
    pub(crate) timeout: Option<String>,
    pub(crate) retry: Option<Retry>,
}

/// `retry:` — a number of attempts or the full form.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Retry {
    Attempts(u32),
    Full(RetryPolicy),
}

/// The full form of `retry:`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetryPolicy {
    pub(crate) attempts: Option<u32>,
    pub(crate) delay: Option<String>,
    pub(crate) backoff: Option<f64>,
    pub(crate) max_delay: Option<String>,
    pub(crate) on: Option<Vec<ErrorKindName>>,
}

/// Error kinds `retry.on` can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorKindName {
    Timeout,
    NotFound,
    Assertion,
    CommandFailed,
    Any,
}
