//! What went wrong in a step, and where in the flow file.

use std::ops::Range;

use serde::Serialize;

use crate::source::SourceFile;

/// Error kinds; `retry.on` selects among the first four.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ErrorKind {
    Timeout,
    NotFound,
    Assertion,
    CommandFailed,
    /// A template failed to render (an undefined name at run time).
    Template,
    /// Something the machine lacks or the step family not built yet: exit code 3.
    Environment,
    /// Stopped by SIGINT/SIGTERM.
    Interrupted,
    /// A bug in runner (a flow's task panicked): never retried, exit code 3.
    Internal,
    /// An agent skill gave no valid answer (after one retry), or none is cached in a read-only
    /// cache.
    Skill,
}

impl ErrorKind {
    /// Every kind.
    pub(crate) const ALL: [ErrorKind; 9] = [
        ErrorKind::Timeout,
        ErrorKind::NotFound,
        ErrorKind::Assertion,
        ErrorKind::CommandFailed,
        ErrorKind::Template,
        ErrorKind::Environment,
        ErrorKind::Interrupted,
        ErrorKind::Internal,
        ErrorKind::Skill,
    ];

    /// The kind a report names `name` (see [`ErrorKind::as_str`]).
    pub(crate) fn named(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The name used in `retry.on` and reports.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Timeout => "timeout",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Assertion => "assertion",
            ErrorKind::CommandFailed => "command_failed",
            ErrorKind::Template => "template",
            ErrorKind::Environment => "environment",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Internal => "internal",
            ErrorKind::Skill => "skill",
        }
    }
}

/// A place in a flow file: the file and a byte span, so a failure can show its source line the
/// way `validate` does. Reports show it as `file:line:col`; a place inside a sub-flow is shown
/// after the `run_flow` steps that led to it: `suite.yaml:12:5 > _helper.yaml:4:5`.
#[derive(Debug, Clone)]
pub(crate) struct Location {
    pub(crate) file: SourceFile,
    pub(crate) span: Range<usize>,
    /// The `run_flow` steps that led here, outermost first.
    pub(crate) callers: Vec<Location>,
}

impl Location {
    /// A place with no callers.
    pub(crate) fn new(file: SourceFile, span: Range<usize>) -> Location {
        Location {
            file,
            span,
            callers: Vec::new(),
        }
    }

    /// The same place, reached through the `run_flow` step at `caller` (itself reached
    /// through its own callers).
    #[must_use]
    pub(crate) fn called_from(mut self, caller: &Location) -> Location {
        let mut chain = caller.callers.clone();
        chain.push(Location::new(caller.file.clone(), caller.span.clone()));
        chain.append(&mut self.callers);
        self.callers = chain;
        self
    }

    /// 1-based line and column of the start.
    pub(crate) fn line_col(&self) -> (usize, usize) {
        self.file.line_col(self.span.start)
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for caller in &self.callers {
            let (l, c) = caller.line_col();
            write!(f, "{}:{l}:{c} > ", caller.file.name())?;
        }
        let (l, c) = self.line_col();
        write!(f, "{}:{l}:{c}", self.file.name())
    }
}

impl Serialize for Location {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A step's failure: its kind, a message, and where in the flow file it comes from.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("{message}")]
pub(crate) struct StepError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    /// The step, or the template in it, that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) location: Option<Location>,
    /// What the step produced before it failed (a failed `exec`'s exit code and output): kept
    /// as the step's outputs, so later steps can read them.
    #[serde(skip)]
    pub(crate) outputs: Option<Box<serde_json::Value>>,
    /// The part of the step's action that failed (`text`, `not/visible`: a JSON pointer below
    /// the action's key), when the step knows it: the engine locates the error there.
    #[serde(skip)]
    pub(crate) part: Option<String>,
}

impl StepError {
    /// An error of `kind`.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> StepError {
        StepError {
            kind,
            message: message.into(),
            location: None,
            outputs: None,
            part: None,
        }
    }

    /// The same error, about part `part` of the step's action (`text`, `not/visible`).
    #[must_use]
    pub(crate) fn in_part(mut self, part: impl Into<String>) -> StepError {
        self.part = Some(part.into());
        self
    }

    /// The same error, with the outputs the step produced before it failed.
    #[must_use]
    pub(crate) fn with_outputs(mut self, outputs: serde_json::Value) -> StepError {
        self.outputs = Some(Box::new(outputs));
        self
    }

    /// The same error, located at `at` unless it already has a place.
    #[must_use]
    pub(crate) fn located(mut self, at: &Location) -> StepError {
        if self.location.is_none() {
            self.location = Some(at.clone());
        }
        self
    }
}
