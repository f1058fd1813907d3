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

impl Retry {
    /// Whether the waits between its attempts add up to more than `limit` (its durations
    /// parsed; one that does not parse waits nothing here: it is refused on its own).
    pub(crate) fn waits_past(&self, limit: std::time::Duration) -> bool {
        let Retry::Full(p) = self else { return false };
        let secs = |d: &Option<String>| {
            d.as_deref()
                .and_then(|d| crate::config::duration::parse_duration(d).ok())
                .map(|d| d.as_secs_f64())
        };
        let delay = secs(&p.delay).unwrap_or(0.0);
        let cap = secs(&p.max_delay).unwrap_or(f64::INFINITY);
        let backoff = p.backoff.unwrap_or(1.0).max(1.0);
        let limit = limit.as_secs_f64();
        let (mut wait, mut total) = (delay, 0.0);
        for _ in 1..p.attempts.unwrap_or(1) {
            total += wait.min(cap);
            if total > limit {
                return true;
            }
            wait *= backoff;
        }
        false
    }
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
