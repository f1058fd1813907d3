//! Terminal settings and the one-shot outputs (diagnostics, plain text, summaries).

use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};

use crate::source::Diagnostic;
use crate::step::Masker;

/// How diagnostics are printed (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum DiagnosticFormat {
    /// miette-rendered, with source excerpts, to stderr.
    Human,
    /// A JSON array to stdout.
    Json,
    /// GitHub Actions `::error` annotations to stdout.
    Github,
}

/// How and where output goes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reporter {
    /// Live output (a terminal, not CI).
    pub(crate) interactive: bool,
    /// Colours allowed.
    pub(crate) color: bool,
    /// On GitHub Actions (`GITHUB_ACTIONS=true`), which reads a line of stdout or stderr that
    /// starts with `::` as a workflow command: only runner's own ([`Reporter::commands`]) may.
    pub(crate) github: bool,
}

impl Reporter {
    /// Settings from the environment: `CI`, `NO_COLOR`, whether stderr is a terminal.
    pub(crate) fn from_env() -> Reporter {
        let tty = std::io::stderr().is_terminal();
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Reporter {
            interactive: tty && !ci,
            // Colour in a terminal, never in CI logs (NO_COLOR also turns it off).
            color: tty && !no_color && !ci,
            github: std::env::var("GITHUB_ACTIONS").as_deref() == Ok("true"),
        }
    }

    /// Prints diagnostics in the chosen format (human and github to stderr, json to stdout),
    /// each as it may be shown ([`shown_text`]: the quoted source lines too).
    pub(crate) fn diagnostics(&self, diags: &[Diagnostic], format: DiagnosticFormat) {
        let shown: Vec<Diagnostic> = diags.iter().map(|d| d.shown(&shown_text)).collect();
        let diags = &shown[..];
        match format {
            DiagnosticFormat::Json => {
                let text = super::diagnostics::json(diags);
                self.out(&format!("{text}\n"));
            }
            DiagnosticFormat::Github => {
                let mut s = String::new();
                for d in diags {
                    s.push_str(&super::diagnostics::github(d));
                    s.push('\n');
                }
                self.commands(&s);
            }
            DiagnosticFormat::Human => {
                let mut s = String::new();
                for d in diags {
                    s.push_str(&super::diagnostics::human(d, self.color));
                }
                self.err(&s);
            }
        }
    }

    /// The last line of `validate`.
    pub(crate) fn validate_summary(&self, files: usize, problems: usize, format: DiagnosticFormat) {
        if format != DiagnosticFormat::Human {
            return;
        }
        let f = if files == 1 { "file" } else { "files" };
        if problems == 0 {
            self.err(&format!("ok: {files} {f} valid\n"));
        } else {
            let p = if problems == 1 { "problem" } else { "problems" };
            self.err(&format!("error: {problems} {p} in {files} {f}\n"));
        }
    }

    /// Writes to stdout, without escape sequences or control characters (line breaks and tabs
    /// stay: see `shown::clean`): what runner prints there is text from pages and atlases, never
    /// a colour of its own. A closed pipe is not an error worth reporting.
    pub(crate) fn out(&self, text: &str) {
        self.commands(&self.shown(&crate::step::shown::clean(text)));
    }

    /// Writes runner's own GitHub workflow commands (`::error ...`, each escaped on one line) to
    /// stdout, as they are.
    pub(crate) fn commands(&self, text: &str) {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(text.as_bytes());
        let _ = o.flush();
    }

    /// Writes to stderr.
    pub(crate) fn err(&self, text: &str) {
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(self.shown(text).as_bytes());
        let _ = e.flush();
    }

    /// `text` as it may be printed: on GitHub Actions, a `·` before each line that would read as
    /// a workflow command (`::stop-commands::TOKEN` in a command's output, shown in an error,
    /// would turn off the annotations after it).
    pub(crate) fn shown<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.github {
            defused(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// The first line of a run that takes settings from a project file: which one (a file
    /// found upward from the working directory is not always the one the user thinks of).
    pub(crate) fn project_file(&self, path: &std::path::Path) {
        self.err(&format!("using {}\n", path.display()));
    }

    /// A warning line (`warning: ...`): something suspicious that does not stop the run. Its
    /// text may quote a page or an atlas: it is printed as [`shown_text`] shows it.
    pub(crate) fn warn(&self, message: &str) {
        self.err(&format!("warning: {}\n", shown_text(message)));
    }

    /// An error line (`error: ...`), printed as [`shown_text`] shows it (as `warn`).
    pub(crate) fn error(&self, message: &str) {
        self.err(&format!("error: {}\n", shown_text(message)));
    }
}

/// What a reader given to [`known_secrets`] finds: secrets by name with their values, and
/// values that may be secrets (a remote browser's token in a `cdp` URL), masked as a run masks
/// them (from 4 characters: a URL's `v=1` is no secret to mask wherever a `1` is).
#[derive(Debug, Default)]
pub(crate) struct Known {
    pub(crate) named: Vec<(String, String)>,
    pub(crate) values: Vec<String>,
}

/// Where the secrets that a command's flows declare come from, read the first time a
/// diagnostic, error or warning is shown (most runs show none: their files are not read twice).
type Found = Box<dyn FnOnce() -> Known + Send>;

/// The [`Found`]s not read yet.
static PENDING: Mutex<Vec<Found>> = Mutex::new(Vec::new());

/// The secrets the flows of the command declare, with their values from the environment, and
/// the tokens of the remote browsers it names ([`known_secrets`]): every diagnostic, error and
/// warning line is masked with them.
fn secrets() -> &'static Masker {
    static KNOWN: OnceLock<Masker> = OnceLock::new();
    let m = KNOWN.get_or_init(Masker::default);
    // Read with the lock held: another thread about to show a text waits for the secrets.
    let mut pending = PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for known in pending.drain(..).map(|f| f()) {
        for (name, value) in known.named {
            if Masker::is_secret_value(&value) {
                m.add_named(&name, &value);
            }
        }
        m.add_derived(known.values);
    }
    m
}

/// Makes every diagnostic, error and warning shown from now on mask the secrets that `found`
/// gives (called once, when the first is shown).
pub(crate) fn known_secrets(found: impl FnOnce() -> Known + Send + 'static) {
    // (A poisoned lock: taken as it is; what it holds is a list of readers.)
    let mut p = PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    p.push(Box::new(found));
}

/// `text` as a diagnostic, error or warning shows it: the known secrets masked ([`known_secrets`])
/// and without escape sequences or control characters (line breaks and tabs stay), as the
/// console shows a step's output (`shown::clean`); masked again after, as a secret may have been
/// cut by an escape sequence.
pub(crate) fn shown_text(text: &str) -> String {
    let m = secrets();
    if m.is_empty() {
        return crate::step::shown::clean(text);
    }
    m.mask(&crate::step::shown::clean(&m.mask(text)))
}

/// `text` with a `·` before each line that starts with `::` once leading whitespace is taken off
/// (the runner of GitHub Actions trims it, and ends a line at a CR as at an LF).
fn defused(text: &str) -> Cow<'_, str> {
    let command = |line: &str| line.trim_start().starts_with("::");
    if !text.split(['\n', '\r']).any(command) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive(['\n', '\r']) {
        if command(line) {
            let body = line.trim_start();
            out.push_str(&line[..line.len() - body.len()]);
            out.push('·');
            out.push_str(body);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::defused;

    #[test]
    fn no_line_reads_as_a_workflow_command() {
        assert_eq!(defused("plain: a::b\n"), "plain: a::b\n");
        assert_eq!(
            defused("::stop-commands::t\n  ::error::x\r::warning::y\r\n\u{a0}::notice::z"),
            "·::stop-commands::t\n  ·::error::x\r·::warning::y\r\n\u{a0}·::notice::z"
        );
    }
}
