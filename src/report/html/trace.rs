//! A flow's trace on its report page: a filmstrip above its steps (a small picture of the page
//! after each browser step), and per step a details row, hidden until its step (or its frame in
//! the filmstrip) is clicked: its start and duration, the picture, its error, the console
//! messages and failed requests during it, its outputs, the page's snapshot at the failure. Read from the flow's `trace.json` as its reads allow; the
//! pictures are copied under `assets/` like the failure screenshots, and everything is in the
//! page: it works from `file://`.

use serde_json::Value;

use super::{Writer, esc};
use crate::report::model::{Flow, Step};

/// One step of a flow's trace, as the page shows it.
pub(super) struct Entry {
    /// The id of its details row.
    id: String,
    value: Value,
    /// Its picture, under `assets/`.
    picture: Option<String>,
    /// What it says of the run it is from: `run 1: ` for a flaky flow's failed run, whose
    /// trace the flow keeps (`--retries`), not the run its steps' rows tell of; else nothing.
    run: String,
}

impl Entry {
    /// The id of its details row.
    pub(super) fn id(&self) -> &str {
        &self.id
    }
}

impl Writer {
    /// Reads the trace of flow `f` (the `n`-th on the page) and writes its filmstrip; its
    /// entries are kept for the step rows, in their order.
    pub(super) fn filmstrip(&mut self, f: &Flow, n: usize) {
        self.trace.clear();
        let Some(path) = &f.trace else {
            return;
        };
        let trace: Value = match self.taken.trace(&self.reads, path, &f.name) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_default(),
            Err(why) => return self.left_out("trace", path, &why),
        };
        let Some(steps) = trace["steps"].as_array() else {
            return;
        };
        // An entry a step (each step, then the steps it holds), as a run writes it: one past the
        // flow's steps has no row to show it with.
        let rows = count(&f.steps);
        if steps.len() > rows {
            let why = format!("it has {} entries, for {rows} steps", steps.len());
            self.left_out("trace entries past the steps", path, &why);
        }
        let run = f
            .trace_attempt
            .map_or(String::new(), |k| format!("run {k}: "));
        let mut entries = Vec::new();
        for (i, s) in steps.iter().take(rows).enumerate() {
            let picture = s["picture"].as_str().and_then(|p| self.picture(p));
            entries.push(Entry {
                id: format!("trace-{n}-{i}"),
                value: s.clone(),
                picture,
                run: run.clone(),
            });
        }
        self.out.push_str("<div class=\"filmstrip\">");
        if let Some(k) = f.trace_attempt {
            self.out.push_str(&format!(
                "<span class=\"run\">the trace of run {k}, which failed (the flow passed on a later run)</span>"
            ));
        }
        for e in &entries {
            let mut class = e.value["outcome"].as_str().unwrap_or("passed").to_string();
            let later = e.value["picture_later"].as_str();
            if later.is_some() {
                class.push_str(" later");
            }
            let img = e.picture.as_ref().map_or_else(
                || "<span class=\"nopic\">no picture</span>".to_string(),
                |p| format!("<img src=\"assets/{p}\" alt=\"\">"),
            );
            let count = |k: &str| e.value[k].as_array().map_or(0, Vec::len);
            let mut title = format!("{}{}", e.run, e.value["name"].as_str().unwrap_or(""));
            if let Some(why) = later {
                title.push_str(&format!(" (picture {why})"));
            }
            for (n, what) in [
                (count("console"), "console"),
                (count("network"), "failed requests"),
            ] {
                if n > 0 {
                    title.push_str(&format!(" ({what}: {n})"));
                }
            }
            self.out.push_str(&format!(
                "<button class=\"frame {}\" data-trace=\"{}\" title=\"{}\">{img}<span>{} ms</span></button>",
                esc(&class),
                e.id,
                esc(&title),
                e.value["start_ms"].as_u64().unwrap_or(0)
            ));
        }
        self.out.push_str("</div>\n");
        self.trace = entries;
        self.trace.reverse();
    }

    /// A picture of the trace, to be copied under `assets/`: its name there, or `None` (said on
    /// the page) when the flow may not read it.
    fn picture(&mut self, path: &str) -> Option<String> {
        // The extension runner gave it: a picture is a JPEG, a failure screenshot a PNG.
        let jpeg = std::path::Path::new(path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jpg"));
        let ext = if jpeg { "jpg" } else { "png" };
        self.asset(&self.reads.clone(), path, ext)
            .inspect_err(|why| self.left_out("trace picture", path, why))
            .ok()
    }

    /// The next step's trace entry.
    pub(super) fn next_trace(&mut self) -> Option<Entry> {
        self.trace.pop()
    }

    /// The details row of a step's trace entry, hidden until its step is clicked.
    pub(super) fn trace_details(&mut self, e: &Entry) {
        let v = &e.value;
        self.out.push_str(&format!(
            "<tr class=\"trace-detail\" id=\"{}\" hidden><td colspan=\"6\"><p class=\"when\">{}started at {} ms, took {} ms: {}</p>",
            e.id,
            esc(&e.run),
            v["start_ms"].as_u64().unwrap_or(0),
            v["duration_ms"].as_u64().unwrap_or(0),
            esc(v["outcome"].as_str().unwrap_or(""))
        ));
        if let Some(p) = &e.picture {
            self.out.push_str(&format!(
                "<img class=\"shot\" src=\"assets/{p}\" alt=\"the page after the step\">"
            ));
            if let Some(why) = v["picture_later"].as_str() {
                self.out.push_str(&format!(
                    "<p class=\"later\">The picture was {}</p>",
                    esc(why)
                ));
            }
        }
        if let Some(err) = v["error"].as_object() {
            self.out.push_str(&format!(
                "<div class=\"error\"><b>{}</b>: {}</div>",
                esc(err.get("kind").and_then(Value::as_str).unwrap_or("")),
                esc(err.get("message").and_then(Value::as_str).unwrap_or(""))
            ));
        }
        if let Some(d) = v["dialog"].as_object() {
            self.out.push_str(&format!(
                "<div class=\"message\">dialog open: {}</div>",
                esc(&Value::Object(d.clone()).to_string())
            ));
        }
        self.logged(v);
        let outputs = &v["outputs"];
        if outputs.as_object().is_some_and(|o| !o.is_empty()) {
            let text = serde_json::to_string_pretty(outputs).unwrap_or_default();
            self.out.push_str(&format!(
                "<div class=\"outputs\">outputs<pre>{}</pre></div>",
                esc(&text)
            ));
        }
        if let Some(snap) = v["snapshot"].as_str() {
            match self.shown_text(snap) {
                Ok(pre) => self.out.push_str(&format!(
                    "<div class=\"snapshot\">page snapshot at the failure{pre}</div>"
                )),
                Err(why) => self.left_out("snapshot", snap, &why),
            }
        }
        self.out.push_str("</td></tr>\n");
    }

    /// A step's console messages and failed requests, as lists (the trace's texts are masked).
    fn logged(&mut self, v: &Value) {
        let console = v["console"].as_array().map_or(&[][..], Vec::as_slice);
        if !console.is_empty() {
            self.out.push_str("<div class=\"console\">console<ul>");
            for e in console {
                let line = match e["left_out"].as_str() {
                    Some(more) => esc(more),
                    None => format!(
                        "{}<b>{}</b> {}{}",
                        at(e),
                        esc(e["level"].as_str().unwrap_or("")),
                        esc(e["text"].as_str().unwrap_or("")),
                        e["url"]
                            .as_str()
                            .map(|u| format!(" <span class=\"at\">{}</span>", esc(u)))
                            .unwrap_or_default()
                    ),
                };
                self.out.push_str(&format!("<li>{line}</li>"));
            }
            self.out.push_str("</ul></div>");
        }
        let network = v["network"].as_array().map_or(&[][..], Vec::as_slice);
        if !network.is_empty() {
            self.out
                .push_str("<div class=\"network\">failed requests<ul>");
            for e in network {
                let why = match (e["status"].as_u64(), e["left_out"].as_str()) {
                    (_, Some(more)) => {
                        self.out.push_str(&format!("<li>{}</li>", esc(more)));
                        continue;
                    }
                    (Some(status), _) => {
                        format!("{status} {}", e["status_text"].as_str().unwrap_or(""))
                    }
                    (None, _) => e["error"].as_str().unwrap_or("failed").to_string(),
                };
                self.out.push_str(&format!(
                    "<li>{}<b>{}</b> {} {}</li>",
                    at(e),
                    esc(&why),
                    esc(e["method"].as_str().unwrap_or("")),
                    esc(e["url"].as_str().unwrap_or(""))
                ));
            }
            self.out.push_str("</ul></div>");
        }
    }
}

/// When a console message or failed request happened, from the flow's start.
fn at(e: &Value) -> String {
    e["at_ms"]
        .as_u64()
        .map(|ms| format!("<span class=\"at\">{ms} ms</span> "))
        .unwrap_or_default()
}

/// The steps of `steps`, and the steps they hold, in all.
fn count(steps: &[Step]) -> usize {
    steps.iter().map(|s| 1 + count(&s.steps)).sum()
}
