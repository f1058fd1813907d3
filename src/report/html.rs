//! The HTML report: `DIR/index.html`, one self-contained page with every flow and step.

use super::model::{Report, Step};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn steps(out: &mut String, steps: &[Step], depth: usize) {
    for s in steps {
        let class = match (s.outcome.as_str(), s.conclusion.as_str()) {
            ("passed", _) if s.flaky => "flaky",
            ("passed", _) => "passed",
            ("skipped", _) => "skipped",
            ("failed", "passed") => "tolerated",
            _ => "failed",
        };
        let error = s.error.as_ref().map_or_else(String::new, |e| {
            format!(
                "<div class=\"error\">{}: {}<br><small>{}</small></div>",
                esc(&e.kind),
                esc(&e.message),
                esc(e.location.as_deref().unwrap_or_default())
            )
        });
        out.push_str(&format!(
            "<tr class=\"{class}\"><td style=\"padding-left:{}em\">{}</td><td>{}</td><td>{class}</td><td>{}</td><td>{} ms</td><td>{error}</td></tr>\n",
            0.5 + f64::from(u32::try_from(depth).unwrap_or(u32::MAX)) * 1.5,
            esc(&s.name),
            esc(&s.action),
            s.attempts,
            s.duration_ms
        ));
        self::steps(out, &s.steps, depth + 1);
    }
}

/// The page.
pub(crate) fn report(r: &Report) -> String {
    let mut out = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>runner report {run}</title>\n<style>\nbody{{font-family:system-ui,sans-serif;margin:2em}} table{{border-collapse:collapse;width:100%;margin-bottom:2em}}\ntd,th{{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}}\n.failed{{background:#fde8e8}} .flaky{{background:#fff6d6}} .tolerated{{background:#fff0e0}} .skipped{{color:#888}}\n.error{{color:#a00;font-family:monospace;white-space:pre-wrap}} h2 small{{font-weight:normal;color:#666}}\n</style></head><body>\n<h1>runner report</h1>\n<p>run {run}: {passed} of {total} flows passed in {secs:.2} s</p>\n",
        run = esc(&r.run_id),
        passed = r.summary.passed,
        total = r.summary.total,
        secs = r.duration().as_secs_f64()
    );
    for f in &r.flows {
        out.push_str(&format!(
            "<h2>{} <small>{} — {} in {} ms{}</small></h2>\n",
            esc(&f.name),
            esc(&f.file),
            esc(&f.status),
            f.duration_ms,
            if f.flaky { ", flaky" } else { "" }
        ));
        if let Some(e) = &f.error {
            out.push_str(&format!(
                "<div class=\"error\">{}: {}</div>\n",
                esc(&e.kind),
                esc(&e.message)
            ));
        }
        out.push_str("<table><tr><th>step</th><th>action</th><th>outcome</th><th>attempts</th><th>time</th><th>error</th></tr>\n");
        steps(&mut out, &f.steps, 0);
        out.push_str("</table>\n");
    }
    out.push_str("</body></html>\n");
    out
}
