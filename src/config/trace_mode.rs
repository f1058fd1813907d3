//! `--trace` / `trace =` of the project file: which flows keep a trace (a timeline of their
//! steps with a small screenshot after each browser step), as Playwright's `trace` option.

use serde::Deserialize;

/// Which flows keep a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TraceMode {
    /// Every flow.
    On,
    /// None: no trace is recorded (no screenshot is taken).
    Off,
    /// Recorded for every flow, kept for the flows that did not pass.
    #[default]
    RetainOnFailure,
}

impl TraceMode {
    /// The values, as written.
    pub(crate) const NAMES: [&'static str; 3] = ["on", "off", "retain-on-failure"];

    /// `on`, `off` or `retain-on-failure`.
    pub(crate) fn parse(s: &str) -> Result<TraceMode, String> {
        match s {
            "on" => Ok(TraceMode::On),
            "off" => Ok(TraceMode::Off),
            "retain-on-failure" => Ok(TraceMode::RetainOnFailure),
            _ => Err(format!(
                "`{s}` is not a trace mode: expected {}",
                TraceMode::NAMES.join(", ")
            )),
        }
    }

    /// Whether the steps are traced while the flow runs.
    pub(crate) fn records(self) -> bool {
        self != TraceMode::Off
    }

    /// Whether the trace of a flow that `passed` is kept.
    pub(crate) fn keeps(self, passed: bool) -> bool {
        match self {
            TraceMode::On => true,
            TraceMode::Off => false,
            TraceMode::RetainOnFailure => !passed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::TraceMode;

    #[test]
    fn modes_parse_and_keep() {
        assert_eq!(
            TraceMode::parse("retain-on-failure"),
            Ok(TraceMode::RetainOnFailure)
        );
        assert!(TraceMode::parse("always").unwrap_err().contains("on, off"));
        assert!(TraceMode::RetainOnFailure.keeps(false));
        assert!(!TraceMode::RetainOnFailure.keeps(true));
        assert!(TraceMode::On.keeps(true));
        assert!(!TraceMode::Off.records());
    }
}
