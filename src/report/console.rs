//! Live progress of a run: indicatif bars in a terminal, plain non-interleaved lines otherwise.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Reporter, Summary};
use crate::step::shown::{clean, one_line};
use crate::step::{FlowInfo, Listener};
use crate::step::{FlowResult, FlowStatus, Outcome, StepError, StepResult};

/// The run's terminal output.
pub(crate) struct Console {
    reporter: Reporter,
    /// Buffer each flow's lines and print them when it ends (several flows at once).
    buffered: bool,
    state: Mutex<State>,
    multi: Option<MultiProgress>,
}

#[derive(Default)]
struct State {
    buffers: HashMap<usize, String>,
    bars: HashMap<usize, ProgressBar>,
}

impl Console {
    /// Output for a run of `jobs` flows at a time.
    pub(crate) fn new(reporter: Reporter, jobs: usize) -> Console {
        let multi = reporter
            .interactive
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
        Console {
            reporter,
            buffered: jobs > 1,
            state: Mutex::new(State::default()),
            multi,
        }
    }

    fn mark(&self, ok: &str, plain: &str) -> String {
        if self.reporter.color {
            ok.to_string()
        } else {
            plain.to_string()
        }
    }

    fn line(&self, flow: &FlowInfo, text: String) {
        if let Some(m) = &self.multi {
            // Live bars of several flows: say whose line it is.
            let text = if self.buffered {
                text.lines()
                    .map(|l| format!("[{}] {}", one_line(&flow.name), l.trim_start()))
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                text
            };
            let _ = m.println(self.reporter.shown(&text));
            return;
        }
        // A flow's lines are held until it ends (`flush`); one said after (of its trace, which
        // is finished beside the flows after it) is printed at once.
        if self.buffered
            && let Ok(mut s) = self.state.lock()
            && let Some(b) = s.buffers.get_mut(&flow.index)
        {
            b.push_str(&text);
            b.push('\n');
        } else {
            self.reporter.err(&format!("{text}\n"));
        }
    }

    fn flush(&self, flow: &FlowInfo) {
        if let Ok(mut s) = self.state.lock()
            && let Some(b) = s.buffers.remove(&flow.index)
        {
            self.reporter.err(&b);
        }
    }

    /// The final summary line.
    pub(crate) fn summary(
        &self,
        results: &[FlowResult],
        sum: &Summary,
        artifacts: &std::path::Path,
    ) {
        // Errors (the environment, a server that did not start) are counted apart from
        // failures, as the reports count them.
        let errors = match sum.errors {
            0 => String::new(),
            1 => ", 1 error".to_string(),
            n => format!(", {n} errors"),
        };
        let mut s = format!(
            "\nflows: {} passed, {} failed{errors}, {} flaky, {} skipped",
            sum.passed, sum.failed, sum.flaky, sum.skipped
        );
        if sum.interrupted > 0 {
            s.push_str(&format!(", {} interrupted", sum.interrupted));
        }
        s.push_str(&format!(" ({})\n", secs(sum.elapsed)));
        let mut failed = false;
        for r in results.iter().filter(|r| r.status != FlowStatus::Passed) {
            failed = true;
            let step = r.steps.iter().find(|s| s.conclusion == Outcome::Failed);
            // The failing step, where it is (`file:line:col`), and why.
            let why = match (&r.error, step) {
                (Some(e), _) => match &e.location {
                    Some(loc) => format!(": at {loc}: {}", clean(&e.message)),
                    None => format!(": {}", clean(&e.message)),
                },
                (None, Some(st)) => format!(
                    ": step `{}` at {}{}",
                    one_line(&st.name),
                    st.error
                        .as_ref()
                        .and_then(|e| e.location.as_ref())
                        .unwrap_or(&st.location),
                    st.error
                        .as_ref()
                        .map_or_else(String::new, |e| format!(": {}", clean(&e.message)))
                ),
                (None, None) => String::new(),
            };
            s.push_str(&format!(
                "  {} {} ({}){why}\n",
                r.status.as_str(),
                one_line(&r.name),
                one_line(&r.file.display().to_string())
            ));
            if let Some(shot) = step
                .and_then(|st| st.failure_artifacts.as_ref()?.get("screenshot"))
                .and_then(serde_json::Value::as_str)
            {
                s.push_str(&format!("      screenshot: {shot}\n"));
            }
            if let Some(why) = step
                .and_then(|st| st.failure_artifacts.as_ref()?.get("screenshot_left_out"))
                .and_then(serde_json::Value::as_str)
            {
                s.push_str(&format!("      screenshot left out: {why}\n"));
            }
            if let Some(log) = &r.server_log {
                s.push_str(&format!("      web server log: {log}\n"));
            } else if let Some(why) = &r.server_log_not_kept {
                s.push_str(&format!("      web server log not kept: {}\n", clean(why)));
            }
        }
        if failed {
            s.push_str(&format!("artifacts: {}\n", artifacts.display()));
        }
        self.reporter.err(&s);
    }
}

fn secs(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{}ms", d.as_millis())
    } else {
        format!("{:.2}s", d.as_secs_f64())
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth + 1)
}

impl Listener for Console {
    fn flow_started(&self, flow: &FlowInfo) {
        if let Some(m) = &self.multi {
            let bar = m.add(ProgressBar::new(flow.steps as u64));
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {prefix} [{bar:20}] {pos}/{len} {wide_msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(one_line(&flow.name));
            bar.enable_steady_tick(Duration::from_millis(100));
            if let Ok(mut s) = self.state.lock() {
                s.bars.insert(flow.index, bar);
            }
            return;
        }
        if self.buffered
            && let Ok(mut s) = self.state.lock()
        {
            s.buffers.insert(flow.index, String::new());
        }
        let (name, file) = (one_line(&flow.name), one_line(&flow.file));
        self.line(flow, format!("▶ {name} ({file})"));
    }

    fn step_started(&self, flow: &FlowInfo, _depth: usize, name: &str) {
        if let Ok(s) = self.state.lock()
            && let Some(bar) = s.bars.get(&flow.index)
        {
            bar.set_message(one_line(name));
        }
    }

    fn group_started(&self, flow: &FlowInfo, depth: usize, name: &str) {
        // Live bars show the running step; the plain lines show the steps inside under it.
        if self.multi.is_none() {
            self.line(flow, format!("{}▸ {}", indent(depth), one_line(name)));
        }
    }

    fn attempt_failed(
        &self,
        flow: &FlowInfo,
        depth: usize,
        name: &str,
        attempt: u32,
        error: &StepError,
        retry_in: Option<Duration>,
    ) {
        if let Some(d) = retry_in {
            self.line(
                flow,
                format!(
                    "{}↻ {}: attempt {attempt} failed ({}): {}; retrying in {}",
                    indent(depth),
                    one_line(name),
                    error.kind.as_str(),
                    clean(&error.message),
                    secs(d)
                ),
            );
        }
    }

    fn step_finished(&self, flow: &FlowInfo, depth: usize, r: &StepResult) {
        if depth == 0
            && let Ok(s) = self.state.lock()
            && let Some(bar) = s.bars.get(&flow.index)
        {
            bar.inc(1);
        }
        if self.multi.is_some() && r.outcome != Outcome::Failed {
            return;
        }
        let pad = indent(depth);
        let (mark, note) = match (r.outcome, r.conclusion) {
            (Outcome::Passed, _) if r.flaky => (
                self.mark("✓", "ok"),
                format!(", flaky after {} attempts", r.attempts),
            ),
            (Outcome::Passed, _) => (self.mark("✓", "ok"), String::new()),
            (Outcome::Skipped, _) => (self.mark("-", "skip"), String::new()),
            (Outcome::Failed, Outcome::Passed) => {
                (self.mark("!", "FAIL"), ", continue_on_error".to_string())
            }
            (Outcome::Failed, _) => (self.mark("✗", "FAIL"), String::new()),
        };
        let attempts = if r.attempts > 1 && !r.flaky {
            format!(", {} attempts", r.attempts)
        } else {
            String::new()
        };
        let mut text = format!(
            "{pad}{mark} {} ({}{attempts}{note})",
            one_line(&r.name),
            secs(r.duration)
        );
        let inside = r
            .holds_steps()
            .then(|| crate::step::result::failed_among(&r.steps))
            .flatten();
        if let Some((names, leaf)) = inside {
            // The step inside that failed was shown with its error just above: say which it is.
            let at = leaf
                .error
                .as_ref()
                .and_then(|e| e.location.as_ref())
                .unwrap_or(&leaf.location);
            text.push_str(&format!(
                "\n{pad}    failed at {} ({at})",
                one_line(&names.join(" > "))
            ));
        } else if let Some(e) = &r.error {
            let msg = clean(&e.message).replace('\n', &format!("\n{pad}    "));
            text.push_str(&format!("\n{pad}    {}: {msg}", e.kind.as_str()));
            if let Some(loc) = &e.location {
                text.push_str(&format!("\n{pad}    at {loc}"));
                for line in super::diagnostics::excerpt(loc, self.reporter.color).lines() {
                    text.push_str(&format!("\n{pad}    {line}"));
                }
            }
        }
        self.line(flow, text);
    }

    fn message(&self, flow: &FlowInfo, depth: usize, text: &str) {
        let pad = indent(depth);
        let body: Vec<String> = clean(text).lines().map(|l| format!("{pad}│ {l}")).collect();
        self.line(flow, body.join("\n"));
    }

    fn flow_finished(&self, flow: &FlowInfo, r: &FlowResult) {
        let mark = if r.status == FlowStatus::Passed {
            self.mark("✓", "ok")
        } else {
            self.mark("✗", "FAIL")
        };
        let mut text = format!(
            "{mark} {} {} in {}",
            one_line(&r.name),
            r.status.as_str(),
            secs(r.duration)
        );
        if let Some(note) = &r.downloads_not_kept {
            text.push_str(&format!("\n  note: {}", clean(note)));
        }
        if let Some(e) = &r.error {
            let msg = clean(&e.message).replace('\n', "\n    ");
            text.push_str(&format!("\n  {}: {msg}", e.kind.as_str()));
            if let Some(loc) = &e.location {
                text.push_str(&format!("\n  at {loc}"));
                for line in super::diagnostics::excerpt(loc, self.reporter.color).lines() {
                    text.push_str(&format!("\n  {line}"));
                }
            }
        }
        if let Ok(mut s) = self.state.lock()
            && let Some(bar) = s.bars.remove(&flow.index)
        {
            bar.finish_and_clear();
        }
        self.line(flow, text);
        self.flush(flow);
    }
}
