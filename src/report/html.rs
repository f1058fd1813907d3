//! The HTML report: `DIR/index.html` and `DIR/assets/` (the failure screenshots, copied), one
//! self-contained page a user opens after a failure: counts and time at the top; failed flows
//! first and open; per step its error with the source line, each retried attempt's own error,
//! the failure screenshot and the page's snapshot; output collapsed; a filter by status and by
//! text. No network: styles and script are inline. The files it shows are read as each flow's
//! [`Reads`] allow; one left out is said so on the page and in the page's notes.

use super::model::{Error, Flow, Report, Server, Step, place, shown_path as rel};
use super::reads::Reads;

mod taken;
mod trace;

pub(crate) use taken::{COPY_BUDGET, TEXT_BUDGET};

/// Text for the page: escaped, and as the console shows it (`shown::clean`): without escape
/// sequences, control characters but line breaks and tabs (a merged shard's names and paths may
/// hold a NUL or an escape sequence), and bidirectional overrides and isolates, which would
/// show a command's output, and the page around it, reordered.
pub(super) fn esc(s: &str) -> String {
    let s = crate::step::shown::clean(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A file the page shows, to be copied beside it: its path, read as `reads` allow, and its name
/// under `assets/`.
pub(crate) struct Asset {
    pub(crate) reads: Reads,
    pub(crate) from: String,
    pub(crate) name: String,
}

/// The page, the files to copy beside it, and what was left out of it, and why.
pub(crate) struct Page {
    pub(crate) html: String,
    pub(crate) assets: Vec<Asset>,
    pub(crate) notes: Vec<String>,
}

struct Writer {
    out: String,
    assets: Vec<Asset>,
    notes: Vec<String>,
    /// The reads of the flow being written.
    reads: Reads,
    /// The flow being written, for the notes.
    flow: String,
    /// The trace entries of the flow's steps not written yet, the next one last.
    trace: Vec<trace::Entry>,
    /// The flows written so far.
    flows: usize,
    /// The files taken into the page so far.
    taken: taken::Taken,
}

/// The line a `file:line:col` place points at, numbered (when `reads` allow the file; else no
/// line, and no note: the place itself is shown).
fn source_line(location: &str, reads: &Reads) -> Option<String> {
    let (file, line, _) = place(location)?;
    let text = reads.read_source(file).ok()?;
    let l = text.lines().nth(line.checked_sub(1)?)?;
    Some(format!("{line} │ {l}"))
}

impl Writer {
    fn error(&mut self, e: &Error, fallback_location: Option<&str>) {
        let place = e
            .location
            .as_deref()
            .or(fallback_location)
            .unwrap_or_default();
        self.out.push_str(&format!(
            "<div class=\"error\"><b>{}</b>: {}",
            esc(&e.kind),
            esc(&e.message)
        ));
        if !place.is_empty() {
            self.out
                .push_str(&format!("<div class=\"at\">at {}</div>", esc(&rel(place))));
            if let Some(src) = source_line(place, &self.reads) {
                self.out
                    .push_str(&format!("<pre class=\"src\">{}</pre>", esc(&src)));
            }
        }
        self.out.push_str("</div>");
    }

    /// A file of the report left out: said on the page and kept for the notes.
    fn left_out(&mut self, what: &str, path: &str, why: &str) {
        self.out.push_str(&format!(
            "<div class=\"left-out\">{what} left out: {}: {}</div>",
            esc(path),
            esc(why)
        ));
        // Debug-quoted: a shard's names may hold control characters, not for a terminal.
        self.notes.push(format!(
            "flow {:?}: {what} {path:?} left out of the report: {why}",
            self.flow
        ));
    }

    /// The failure screenshot (copied under `assets/`) and the page's snapshot: from the
    /// step's `failure_artifacts`, runner's record (never from its outputs, a flow's data).
    fn artifacts(&mut self, s: &Step) {
        let Some(arts) = &s.failure_artifacts else {
            return;
        };
        if let Some(png) = arts.screenshot.as_deref() {
            // Opened here to know whether it is shown; copied (opened again) with the page.
            match self.asset(&self.reads.clone(), png, "png") {
                Ok(name) => {
                    self.out.push_str(&format!(
                        "<img class=\"shot\" src=\"assets/{name}\" alt=\"the page when the step failed\">"
                    ));
                }
                Err(why) => self.left_out("screenshot", png, &why),
            }
        }
        if let Some(why) = arts.screenshot_left_out.as_deref() {
            self.out.push_str(&format!(
                "<div class=\"left-out\">screenshot left out: {}</div>",
                esc(why)
            ));
        }
        if let Some(txt) = arts.snapshot.as_deref() {
            match self.shown_text(txt) {
                Ok(pre) => self.out.push_str(&format!(
                    "<details><summary>page snapshot</summary>{pre}</details>"
                )),
                Err(why) => self.left_out("snapshot", txt, &why),
            }
        }
    }

    fn steps(&mut self, steps: &[Step], depth: usize) {
        for s in steps {
            let class = match (s.outcome.as_str(), s.conclusion.as_str()) {
                ("passed", _) if s.flaky => "flaky",
                ("passed", _) => "passed",
                ("skipped", _) => "skipped",
                ("failed", "passed") => "tolerated",
                _ => "failed",
            };
            let traced = self.next_trace();
            let click = traced
                .as_ref()
                .map(|t| format!(" data-trace=\"{}\"", t.id()))
                .unwrap_or_default();
            self.out.push_str(&format!(
                "<tr class=\"{class}\"{click}><td style=\"padding-left:{}em\">{}</td><td>{}</td><td>{class}</td><td>{}</td><td>{} ms</td><td>",
                0.5 + f64::from(u32::try_from(depth).unwrap_or(u32::MAX)) * 1.5,
                esc(&s.name),
                esc(&s.action),
                s.attempts,
                s.duration_ms
            ));
            if let Some(e) = &s.error {
                self.error(e, Some(&s.location));
            }
            // Each attempt of a retried step, with its own error.
            if s.attempts > 1 && !s.attempt_errors.is_empty() {
                self.out.push_str("<ol class=\"attempts\">");
                for (i, e) in s.attempt_errors.iter().enumerate() {
                    self.out.push_str(&format!(
                        "<li>attempt {} of {}: <b>{}</b>: {}</li>",
                        i + 1,
                        s.attempts,
                        esc(&e.kind),
                        esc(&e.message)
                    ));
                }
                if s.error.is_none() {
                    self.out
                        .push_str(&format!("<li>attempt {}: passed</li>", s.attempts));
                }
                self.out.push_str("</ol>");
            }
            self.artifacts(s);
            if let Some(text) = s.outputs.text("message") {
                self.out
                    .push_str(&format!("<div class=\"message\">{}</div>", esc(&text)));
            }
            for stream in ["stdout", "stderr"] {
                if let Some(text) = s.outputs.text(stream).filter(|t| !t.is_empty()) {
                    self.out.push_str(&format!(
                        "<details class=\"log\"><summary>{stream}</summary><pre>{}</pre></details>",
                        esc(&text)
                    ));
                }
            }
            self.out.push_str("</td></tr>\n");
            if let Some(t) = traced {
                self.trace_details(&t);
            }
            self.steps(&s.steps, depth + 1);
        }
    }

    /// A link to a server's log, copied under `assets/`.
    fn log(&mut self, path: &str, reads: &Reads) -> String {
        match self.asset(reads, path, "log") {
            Ok(name) => format!("<a href=\"assets/{name}\">web server log</a>"),
            Err(why) => {
                self.notes.push(format!(
                    "web server log {path:?} left out of the report: {why}"
                ));
                format!("web server log left out: {}: {}", esc(path), esc(&why))
            }
        }
    }

    /// What the page says of a server's log that was not kept (`why`), noted too.
    fn log_not_kept(&mut self, why: &str) -> String {
        // Debug-quoted: a shard's text may hold control characters, not for a terminal.
        self.notes.push(format!("web server log not kept: {why:?}"));
        format!("web server log not kept: {}", esc(why))
    }

    /// The run's servers: name, URL, start time, log, and why one was not there.
    fn servers(&mut self, servers: &[Server]) {
        if servers.is_empty() {
            return;
        }
        self.out.push_str("<table class=\"servers\"><tr><th>web server</th><th>url</th><th>start</th><th>log</th></tr>\n");
        for Server { info: s, reads } in servers {
            let log = match (&s.log, &s.log_not_kept) {
                (Some(l), _) => self.log(l, reads),
                (None, Some(why)) => self.log_not_kept(why),
                (None, None) => String::new(),
            };
            let note = if s.reused { " (reused)" } else { "" };
            self.out.push_str(&format!(
                "<tr><td>{}</td><td>{}{note}</td><td>{} ms</td><td>{log}</td></tr>\n",
                esc(&s.name),
                esc(&s.url),
                s.start_ms
            ));
            if let Some(e) = &s.error {
                self.out.push_str(&format!(
                    "<tr><td colspan=\"4\"><div class=\"error\">{}</div></td></tr>\n",
                    esc(e)
                ));
            }
        }
        self.out.push_str("</table>\n");
    }

    fn flow(&mut self, f: &Flow) {
        self.reads = f.reads.clone();
        self.flow.clone_from(&f.name);
        // Escaped although runner writes only its own words here: a merged shard is input.
        let status = esc(if f.status == "passed" && f.flaky {
            "flaky"
        } else {
            f.status.as_str()
        });
        let open = if f.status == "passed" { "" } else { " open" };
        self.out.push_str(&format!(
            "<details class=\"flow {status}\" data-status=\"{status}\"{open}><summary><span class=\"badge {status}\">{status}</span> <b>{}</b> <small>{} — {} ms</small></summary>\n",
            esc(&f.name),
            esc(&rel(&f.file)),
            f.duration_ms
        ));
        if let Some(e) = &f.error {
            self.error(e, None);
        }
        if let Some(d) = &f.state {
            let verdict = if d.restructured() {
                "the state changed"
            } else {
                "the state arrived; its data changed"
            };
            self.out
                .push_str(&state_table(d, verdict, "expected", "found"));
        }
        self.out
            .push_str(&format!("<p class=\"setup\">setup {} ms", f.setup_ms));
        if let Some(log) = &f.web_server_log {
            let link = self.log(log, &f.reads);
            self.out.push_str(&format!(" — {link}"));
        } else if let Some(why) = &f.web_server_log_not_kept {
            let said = self.log_not_kept(why);
            self.out.push_str(&format!(" — {said}"));
        }
        self.out.push_str("</p>\n");
        if let Some(note) = &f.downloads_not_kept {
            self.notes.push(format!("{}: {note:?}", f.name));
            self.out
                .push_str(&format!("<p class=\"left-out\">note: {}</p>\n", esc(note)));
        }
        if !f.retry_errors.is_empty() {
            self.out.push_str("<ol class=\"attempts\">");
            for (i, e) in f.retry_errors.iter().enumerate() {
                self.out.push_str(&format!(
                    "<li>run {} failed: <b>{}</b>: {}</li>",
                    i + 1,
                    esc(&e.kind),
                    esc(&e.message)
                ));
            }
            self.out.push_str("</ol>");
        }
        self.flows += 1;
        self.filmstrip(f, self.flows);
        self.out.push_str("<table><tr><th>step</th><th>action</th><th>outcome</th><th>attempts</th><th>time</th><th>details</th></tr>\n");
        self.steps(&f.steps, 0);
        self.out.push_str("</table></details>\n");
    }
}

/// A state's differences as a table, one side (`left`: the state expected, or atlas A's) beside
/// the other (`right`): the URL, the elements renamed, removed and added, and the data that
/// drifted; `heading` says what they amount to.
pub(super) fn state_table(
    d: &crate::atlas::StateDiff,
    heading: &str,
    left: &str,
    right: &str,
) -> String {
    let cell = |s: &str| format!("<td>{}</td>", esc(s));
    let place = |e: &crate::atlas::Element| {
        if e.place.is_empty() {
            String::new()
        } else {
            format!(" <small>in {}</small>", esc(&e.place))
        }
    };
    let mut rows = vec![format!(
        "<tr class=\"{}\"><td>url</td><td>{}<br><small>{}</small></td><td>{}<br><small>{}</small></td></tr>",
        if d.moved() { "changed" } else { "same" },
        esc(&d.expected.url),
        esc(&d.expected.route),
        esc(&d.found.url),
        esc(&d.found.route)
    )];
    for r in &d.renamed {
        rows.push(format!(
            "<tr class=\"changed\"><td>renamed</td><td>{}{}</td>{}</tr>",
            esc(&r.from.to_string()),
            place(&r.from),
            cell(&r.to.to_string())
        ));
    }
    for e in &d.removed {
        rows.push(format!(
            "<tr class=\"changed\"><td>removed</td><td>{}{}</td><td></td></tr>",
            esc(&e.to_string()),
            place(e)
        ));
    }
    for e in &d.added {
        rows.push(format!(
            "<tr class=\"changed\"><td>added</td><td></td><td>{}{}</td></tr>",
            esc(&e.to_string()),
            place(e)
        ));
    }
    for e in &d.moved {
        rows.push(format!(
            "<tr class=\"changed\"><td>moved</td><td>{}{}</td><td>{}{}</td></tr>",
            esc(&e.to_string()),
            place(e),
            esc(&e.to_string()),
            place(e)
        ));
    }
    let word = match d.fingerprint {
        crate::atlas::Fingerprint::Structure => "data drift",
        crate::atlas::Fingerprint::Text => "text",
    };
    for c in &d.drift {
        rows.push(format!(
            "<tr class=\"drift\"><td>{word}</td>{}{}</tr>",
            cell(c.expected.as_deref().unwrap_or("")),
            cell(c.found.as_deref().unwrap_or(""))
        ));
    }
    if d.drift_more > 0 {
        rows.push(format!(
            "<tr class=\"drift\"><td>{word}</td><td colspan=\"2\">and {} more</td></tr>",
            d.drift_more
        ));
    }
    format!(
        "<table class=\"state\"><tr><th>{}</th><th>{}</th><th>{}</th></tr>\n{}\n</table>\n",
        esc(heading),
        esc(left),
        esc(right),
        rows.join("\n")
    )
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}
header .counts span{display:inline-block;margin-right:1em}
.bar{margin:1em 0} .bar button{margin-right:.3em} .bar button.on{font-weight:bold} #q{margin-left:1em;padding:.2em}
details.flow{border:1px solid #ddd;border-radius:4px;margin:.5em 0;padding:.3em .6em}
details.flow>summary{cursor:pointer;padding:.2em 0} details.flow small{color:#666}
.badge{border-radius:3px;padding:0 .4em;font-size:.85em;color:#fff;background:#888}
.badge.passed{background:#2a7} .badge.failed,.badge.error,.badge.interrupted{background:#c33} .badge.flaky{background:#c90}
table{border-collapse:collapse;width:100%;margin:.5em 0}
td,th{border-bottom:1px solid #eee;padding:.3em .5em;text-align:left;vertical-align:top}
table.state tr.changed{background:#fde8e8} table.state tr.drift{background:#fff6d6}
tr.failed{background:#fde8e8} tr.flaky{background:#fff6d6} tr.tolerated{background:#fff0e0} tr.skipped{color:#888}
.error{color:#a00;font-family:monospace;white-space:pre-wrap} .at{color:#666} .left-out{color:#666;font-style:italic}
pre{background:#f6f6f6;padding:.4em;overflow:auto;max-height:30em} pre.src{color:#222}
img.shot{max-width:100%;border:1px solid #ccc;margin:.4em 0;display:block}
.filmstrip{display:flex;gap:.3em;overflow-x:auto;padding:.3em 0}
.filmstrip .frame{flex:none;border:2px solid #ddd;background:#fff;padding:2px;cursor:pointer;font-size:.75em;color:#555}
.filmstrip .frame img{display:block;height:60px} .filmstrip .frame.failed{border-color:#c33} .filmstrip .frame.sel{border-color:#36c}
.filmstrip .frame.later{border-style:dashed} p.later{color:#666;font-style:italic}
.filmstrip .nopic{display:block;height:60px;width:60px;line-height:60px} .filmstrip .run{flex:none;align-self:center;color:#a33;font-size:.85em}
tr[data-trace]{cursor:pointer} tr.trace-detail{background:#f3f6ff} tr.trace-detail img.shot{max-width:480px}
.console ul,.network ul{font-family:monospace;margin:.2em 0;padding-left:1.5em;white-space:pre-wrap}";

/// Shows the flows whose status the pressed button names (all by default) and whose text holds
/// the filter's words; a click on a traced step (or its frame in the filmstrip) shows its
/// trace's details row, and hides the flow's others. A text the page holds once (a snapshot
/// named again: [`taken`]) is copied into the place that refers to it as that place is shown.
const SCRIPT: &str = "const q=document.getElementById('q');let want='all';
function apply(){const t=q.value.toLowerCase();for(const f of document.querySelectorAll('details.flow')){
const s=f.dataset.status;const okS=want==='all'||s===want||(want==='failed'&&(s==='error'||s==='interrupted'));
f.hidden=!(okS&&f.textContent.toLowerCase().includes(t));}}
for(const b of document.querySelectorAll('.bar button')){b.onclick=()=>{want=b.dataset.want;
for(const o of document.querySelectorAll('.bar button'))o.classList.toggle('on',o===b);apply();};}
q.oninput=apply;
function fill(ps){for(const p of ps){const o=document.getElementById(p.dataset.same);
if(o&&!p.textContent)p.textContent=o.textContent;}}
document.addEventListener('toggle',e=>{if(e.target.open)fill(e.target.querySelectorAll(':scope>pre[data-same]'));},true);
function show(id){const d=document.getElementById(id);if(!d)return;const open=d.hidden;
for(const o of d.closest('table').querySelectorAll('tr.trace-detail'))o.hidden=true;d.hidden=!open;if(open)fill(d.querySelectorAll('pre[data-same]'));
for(const e of document.querySelectorAll('[data-trace]'))e.classList.toggle('sel',open&&e.dataset.trace===id);}
for(const e of document.querySelectorAll('[data-trace]'))e.addEventListener('click',ev=>{
if(ev.target.closest('summary,a,pre'))return;show(e.dataset.trace);});";

/// The page of a report.
pub(crate) fn report(r: &Report) -> Page {
    let s = &r.summary;
    let mut w = Writer {
        out: format!(
            "{head}<title>runner report {run}</title>\n<style>\n{STYLE}\n</style></head><body>\n<header><h1>runner report</h1>\n<p>run {run}: {passed} of {total} flows passed in {secs:.2} s</p>\n<p class=\"counts\"><span>{total} flows</span><span>{passed} passed</span><span>{failed} failed</span><span>{errors} errors</span><span>{flaky} flaky</span><span>{skipped} skipped</span>{interrupted}</p></header>\n<div class=\"bar\"><button data-want=\"all\" class=\"on\">all</button><button data-want=\"failed\">failed</button><button data-want=\"flaky\">flaky</button><button data-want=\"passed\">passed</button><input id=\"q\" type=\"search\" placeholder=\"filter by text\"></div>\n",
            head = super::ours::PAGE_HEAD,
            run = esc(&r.run_id),
            passed = s.passed,
            total = s.total,
            failed = s.failed,
            errors = s.errors,
            flaky = s.flaky,
            skipped = s.skipped,
            interrupted = match s.interrupted {
                0 => String::new(),
                n => format!("<span>{n} interrupted</span>"),
            },
            secs = r.duration().as_secs_f64()
        ),
        assets: Vec::new(),
        notes: Vec::new(),
        reads: Reads::Nothing,
        flow: String::new(),
        trace: Vec::new(),
        flows: 0,
        taken: taken::Taken::new(TEXT_BUDGET, COPY_BUDGET),
    };
    // Failed (and errors, interrupted) first, then flaky, then passed; run order within each.
    let rank = |f: &Flow| match (f.status.as_str(), f.flaky) {
        ("passed", false) => 2,
        ("passed", true) => 1,
        _ => 0,
    };
    w.servers(&r.web_servers);
    let mut flows: Vec<&Flow> = r.flows.iter().collect();
    flows.sort_by_key(|f| rank(f));
    for f in flows {
        w.flow(f);
    }
    w.out
        .push_str(&format!("<script>\n{SCRIPT}\n</script>\n</body></html>\n"));
    Page {
        html: w.out,
        assets: w.assets,
        notes: w.notes,
    }
}
