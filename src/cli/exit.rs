//! Exit codes (README, "Exit codes"): the one place where the way a command ended —
//! its [`Outcome`] or its [`CliError`] — becomes the process's exit code.

use super::error::CliError;
use crate::atlas::AtlasError;

/// Every flow passed (or the command did what it was asked).
const SUCCESS: i32 = 0;
/// A flow failed: a step error or an assertion; `atlas diff`: the atlases differ.
const FLOW_FAILED: i32 = 1;
/// Invalid input: config files, templates, command-line usage.
const INVALID_INPUT: i32 = 2;
/// The environment is missing something or broken (a tool not installed, a browser that cannot
/// launch, a step family not built yet).
const ENVIRONMENT: i32 = 3;
/// Interrupted by SIGINT or SIGTERM.
const INTERRUPTED: i32 = 130;

/// Every code runner exits with: what [`code`] can return (a unit test checks it against the
/// map, an integration test against README's table).
pub const ALL: [i32; 5] = [
    SUCCESS,
    FLOW_FAILED,
    INVALID_INPUT,
    ENVIRONMENT,
    INTERRUPTED,
];

/// How a command that did its work ended. (A command that could not do it ends with a
/// [`CliError`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Every flow passed, every check held, or the command printed what was asked.
    Passed,
    /// A flow failed; for the atlas commands, a node no longer arrives or a test failed.
    FlowsFailed,
    /// `atlas diff` found the two atlases differ (exit 1, as `diff` and `git diff
    /// --exit-code`).
    Differences,
    /// `validate` found problems (and printed them in the format asked for).
    ProblemsFound,
    /// Something the flows need is missing or broken: `doctor`'s failed checks, a flow that met
    /// an environment problem, a report that could not be written.
    EnvironmentBroken,
    /// A signal stopped the run; what ran is reported.
    Interrupted,
}

/// The exit code of a command that ended this way.
pub(crate) fn code(end: &Result<Outcome, CliError>) -> i32 {
    match end {
        Ok(Outcome::Passed) => SUCCESS,
        Ok(Outcome::FlowsFailed | Outcome::Differences) => FLOW_FAILED,
        Ok(Outcome::ProblemsFound)
        | Err(CliError::Arguments(_) | CliError::Usage(_) | CliError::Invalid { .. }) => {
            INVALID_INPUT
        }
        Ok(Outcome::EnvironmentBroken) | Err(CliError::Environment(_)) => ENVIRONMENT,
        Ok(Outcome::Interrupted) | Err(CliError::Interrupted(_)) => INTERRUPTED,
        Err(CliError::Atlas(e)) => match e {
            // Asked for a node that is not there, or an atlas that is not one: the input.
            AtlasError::NotFound(_)
            | AtlasError::Broken { .. }
            | AtlasError::Refused(_)
            | AtlasError::Unconfigured(_)
            | AtlasError::Exposed(_)
            | AtlasError::LinkExists { .. }
            | AtlasError::Fingerprint { .. }
            | AtlasError::Incomparable { .. } => INVALID_INPUT,
            AtlasError::Io { .. } | AtlasError::Browser { .. } => ENVIRONMENT,
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// One end of each kind. The `match` has no `_` arm, so a new outcome or error does not
    /// compile until it is listed here too, and so checked against `ALL`.
    fn every_end() -> Vec<Result<Outcome, CliError>> {
        let io = |m: &str| AtlasError::Io {
            path: "p".into(),
            message: m.into(),
        };
        let ends = vec![
            Ok(Outcome::Passed),
            Ok(Outcome::FlowsFailed),
            Ok(Outcome::ProblemsFound),
            Ok(Outcome::EnvironmentBroken),
            Ok(Outcome::Interrupted),
            Err(CliError::Arguments(clap::Error::new(
                clap::error::ErrorKind::UnknownArgument,
            ))),
            Err(CliError::Usage("u".into())),
            Err(CliError::invalid(Vec::new())),
            Err(CliError::Environment("e".into())),
            Err(CliError::Interrupted("i".into())),
            Err(CliError::Atlas(io("io"))),
            Err(CliError::Atlas(AtlasError::NotFound("n".into()))),
            Err(CliError::Atlas(AtlasError::Broken {
                path: "p".into(),
                message: "b".into(),
            })),
            Err(CliError::Atlas(AtlasError::LinkExists {
                from: "a".into(),
                action: "click".into(),
                existing: "b".into(),
                target: "c".into(),
            })),
            Err(CliError::Atlas(AtlasError::Refused(
                "f: step 1 (`exec`)".into(),
            ))),
            Err(CliError::Atlas(AtlasError::Unconfigured(
                "f: step 1 (`fill`)".into(),
            ))),
            Err(CliError::Atlas(AtlasError::Exposed(
                "f: step 1 (`open`)".into(),
            ))),
            Err(CliError::Atlas(AtlasError::Fingerprint {
                path: "p".into(),
                has: "text",
                wanted: "structure",
            })),
            Err(CliError::Atlas(AtlasError::Incomparable {
                a: "a".into(),
                b: "b".into(),
                a_mode: "structure",
                b_mode: "text",
            })),
            Err(CliError::Atlas(AtlasError::Browser {
                node: "n".into(),
                message: "the browser exited".into(),
            })),
            Ok(Outcome::Differences),
        ];
        for end in &ends {
            match end {
                Ok(
                    Outcome::Passed
                    | Outcome::FlowsFailed
                    | Outcome::Differences
                    | Outcome::ProblemsFound
                    | Outcome::EnvironmentBroken
                    | Outcome::Interrupted,
                )
                | Err(
                    CliError::Arguments(_)
                    | CliError::Usage(_)
                    | CliError::Invalid { .. }
                    | CliError::Environment(_)
                    | CliError::Interrupted(_)
                    | CliError::Atlas(
                        AtlasError::Io { .. }
                        | AtlasError::NotFound(_)
                        | AtlasError::Broken { .. }
                        | AtlasError::Refused(_)
                        | AtlasError::Unconfigured(_)
                        | AtlasError::Exposed(_)
                        | AtlasError::LinkExists { .. }
                        | AtlasError::Fingerprint { .. }
                        | AtlasError::Incomparable { .. }
                        | AtlasError::Browser { .. },
                    ),
                ) => {}
            }
        }
        ends
    }

    #[test]
    fn all_is_exactly_the_codes_the_map_gives() {
        let given: BTreeSet<i32> = every_end().iter().map(code).collect();
        assert_eq!(given, BTreeSet::from(ALL));
    }

    #[test]
    fn the_codes_do_not_move() {
        assert_eq!(ALL, [0, 1, 2, 3, 130]);
        assert_eq!(code(&Ok(Outcome::Passed)), 0);
        assert_eq!(code(&Ok(Outcome::FlowsFailed)), 1);
        assert_eq!(code(&Ok(Outcome::Differences)), 1);
        assert_eq!(code(&Err(CliError::Usage(String::new()))), 2);
        assert_eq!(code(&Ok(Outcome::EnvironmentBroken)), 3);
        // A replay's browser that failed is no verdict on the app.
        let browser = AtlasError::Browser {
            node: "n".into(),
            message: "the browser exited".into(),
        };
        assert_eq!(code(&Err(CliError::Atlas(browser))), 3);
        assert_eq!(code(&Err(CliError::Interrupted(String::new()))), 130);
    }
}
