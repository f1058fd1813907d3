//! Retry policies: attempts, delay, backoff, max_delay, and which error kinds retry.

use std::time::Duration;

use crate::config::duration::parse_duration;
use crate::config::model::{ErrorKindName, Retry};
use crate::step::ErrorKind;

/// A resolved retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) attempts: u32,
    pub(crate) delay: Duration,
    pub(crate) backoff: f64,
    pub(crate) max_delay: Option<Duration>,
    pub(crate) on: Vec<ErrorKindName>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            attempts: 1,
            delay: Duration::ZERO,
            backoff: 1.0,
            max_delay: None,
            on: vec![ErrorKindName::Any],
        }
    }
}

impl Policy {
    /// The policy a step's `retry` (or the flow's default) describes; durations were validated.
    pub(crate) fn from_config(r: Option<&Retry>) -> Policy {
        match r {
            None => Policy::default(),
            Some(Retry::Attempts(n)) => Policy {
                attempts: (*n).max(1),
                ..Policy::default()
            },
            Some(Retry::Full(p)) => Policy {
                attempts: p.attempts.unwrap_or(1).max(1),
                delay: p
                    .delay
                    .as_deref()
                    .and_then(|d| parse_duration(d).ok())
                    .unwrap_or_default(),
                backoff: p.backoff.unwrap_or(1.0).max(1.0),
                max_delay: p.max_delay.as_deref().and_then(|d| parse_duration(d).ok()),
                on: p.on.clone().unwrap_or_else(|| vec![ErrorKindName::Any]),
            },
        }
    }

    /// Whether an error of `kind` is retried.
    pub(crate) fn retries(&self, kind: ErrorKind) -> bool {
        if matches!(
            kind,
            ErrorKind::Interrupted
                | ErrorKind::Environment
                | ErrorKind::Template
                | ErrorKind::Internal
        ) {
            return false;
        }
        self.on.iter().any(|k| match k {
            ErrorKindName::Any => true,
            ErrorKindName::Timeout => kind == ErrorKind::Timeout,
            ErrorKindName::NotFound => kind == ErrorKind::NotFound,
            ErrorKindName::Assertion => kind == ErrorKind::Assertion,
            ErrorKindName::CommandFailed => kind == ErrorKind::CommandFailed,
        })
    }

    /// The wait before attempt `next` (2-based: the first retry).
    pub(crate) fn delay_before(&self, next: u32) -> Duration {
        let factor = self
            .backoff
            .powi(i32::try_from(next.saturating_sub(2)).unwrap_or(i32::MAX));
        let d = self.delay.mul_f64(factor.min(1e6));
        match self.max_delay {
            Some(m) => d.min(m),
            None => d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::model::RetryPolicy;

    #[test]
    fn backoff_is_capped() {
        let p = Policy::from_config(Some(&Retry::Full(RetryPolicy {
            attempts: Some(5),
            delay: Some("100ms".into()),
            backoff: Some(2.0),
            max_delay: Some("300ms".into()),
            on: Some(vec![ErrorKindName::Timeout]),
        })));
        assert_eq!(p.delay_before(2), Duration::from_millis(100));
        assert_eq!(p.delay_before(3), Duration::from_millis(200));
        assert_eq!(p.delay_before(4), Duration::from_millis(300));
        assert!(p.retries(ErrorKind::Timeout));
        assert!(!p.retries(ErrorKind::Assertion));
    }
}
