//! `atlas diff --html FILE`: the diff as one self-contained page — counts at the top, each
//! changed state with a table of A's side beside B's, the states added and removed, the edges
//! broken, new and removed, and the states with other data. No script and no network (a
//! Content-Security-Policy forbids both); every text from the atlases is escaped, so it opens
//! from `file://` as it is.

use super::html::{esc, state_table};
use crate::atlas::{AtlasDiff, BrokenWhy, EdgeRef, RemovedWhy, StateRef};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}
header .counts span{display:inline-block;margin-right:1em}
h2{margin-top:1.5em;border-bottom:1px solid #ddd}
details.state{border:1px solid #ddd;border-radius:4px;margin:.5em 0;padding:.3em .6em}
details.state>summary{cursor:pointer;padding:.2em 0} small{color:#666}
table{border-collapse:collapse;width:100%;margin:.5em 0}
td,th{border-bottom:1px solid #eee;padding:.3em .5em;text-align:left;vertical-align:top}
table.state tr.changed{background:#fde8e8} table.state tr.drift{background:#fff6d6}
tr.added,tr.new{background:#e6f6ea} tr.removed{background:#f3f3f3} tr.broken{background:#fde8e8}
.mark{font-family:monospace;font-weight:bold}";

/// The page.
pub(crate) fn atlas_diff_html(d: &AtlasDiff) -> String {
    let s = &d.summary;
    let mut out = format!(
        "{head}\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>atlas diff {a} → {b}</title>\n<style>\n{STYLE}\n</style></head><body>\n<header><h1>atlas diff</h1>\n<p>A: <code>{a}</code> → B: <code>{b}</code> (states told apart by {mode})</p>\n",
        head = super::ours::PAGE_HEAD,
        a = esc(&d.a),
        b = esc(&d.b),
        mode = d.fingerprint.as_str(),
    );
    if d.differ {
        out.push_str(&format!(
            "<p class=\"counts\"><b>states:</b> <span>{} changed</span><span>{} added</span><span>{} removed</span><span>{} unchanged</span></p>\n<p class=\"counts\"><b>edges:</b> <span>{} broken</span><span>{} new</span><span>{} removed</span><span>{} unchanged</span></p></header>\n",
            s.states_changed,
            s.states_added,
            s.states_removed,
            s.states_unchanged,
            s.edges_broken,
            s.edges_new,
            s.edges_removed,
            s.edges_unchanged
        ));
        states(&mut out, d);
        edges(&mut out, d);
    } else {
        out.push_str(&format!(
            "<p class=\"counts\">No differences: {} states, {} edges.</p></header>\n",
            s.states_unchanged, s.edges_unchanged
        ));
    }
    drifted(&mut out, d);
    out.push_str("</body></html>\n");
    out
}

/// A state as a row: its mark, its name, its id and URL.
fn state_row(class: &str, mark: &str, r: &StateRef) -> String {
    format!(
        "<tr class=\"{class}\"><td class=\"mark\">{mark}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
        esc(&r.label),
        esc(&r.id),
        esc(&r.url)
    )
}

fn states(out: &mut String, d: &AtlasDiff) {
    out.push_str("<h2>States</h2>\n");
    let (a, b) = (format!("A: {}", d.a), format!("B: {}", d.b));
    for c in &d.states.changed {
        let by = match c.matched_by {
            crate::atlas::MatchedBy::Path => "the same action leads to it",
            _ => "at the same route",
        };
        out.push_str(&format!(
            "<details class=\"state\" open><summary><span class=\"mark\">~</span> <b>{}</b> <small><code>{}</code> → <code>{}</code>, {by}</small></summary>\n",
            esc(&c.a.label),
            esc(&c.a.id),
            esc(&c.b.id)
        ));
        if c.a.title != c.b.title {
            out.push_str(&format!(
                "<p>title: {} → {}</p>\n",
                esc(&format!("{:?}", c.a.title)),
                esc(&format!("{:?}", c.b.title))
            ));
        }
        out.push_str(&state_table(&c.diff, "the state changed", &a, &b));
        out.push_str("</details>\n");
    }
    if d.states.added.is_empty() && d.states.removed.is_empty() {
        return;
    }
    out.push_str(
        "<table class=\"states\"><tr><th></th><th>state</th><th>id</th><th>url</th></tr>\n",
    );
    for r in &d.states.added {
        out.push_str(&state_row("added", "+", r));
    }
    for r in &d.states.removed {
        out.push_str(&state_row("removed", "-", r));
    }
    out.push_str("</table>\n");
}

/// An edge as a row: its mark, its source, action and target, and what became of it.
fn edge_row(class: &str, mark: &str, e: &EdgeRef, note: &str) -> String {
    format!(
        "<tr class=\"{class}\"><td class=\"mark\">{mark}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        esc(&e.source.label),
        esc(&e.action),
        esc(&e.target.label),
        esc(note)
    )
}

fn edges(out: &mut String, d: &AtlasDiff) {
    let e = &d.edges;
    out.push_str("<h2>Edges</h2>\n");
    if e.broken.is_empty() && e.new.is_empty() && e.removed.is_empty() {
        out.push_str("<p>Every edge of A is in B, and B has no other.</p>\n");
        return;
    }
    out.push_str("<table class=\"edges\"><tr><th></th><th>from</th><th>action</th><th>to</th><th></th></tr>\n");
    for b in &e.broken {
        let note = match (&b.reason, &b.now) {
            (BrokenWhy::Retargeted, Some(now)) => format!("broken: now leads to {}", now.label),
            _ => "broken: gone, both states are still there".to_string(),
        };
        out.push_str(&edge_row("broken", "!", &b.edge, &note));
    }
    for n in &e.new {
        out.push_str(&edge_row("new", "+", n, "new"));
    }
    for r in &e.removed {
        let note = match r.reason {
            RemovedWhy::SourceRemoved => "removed with its source",
            RemovedWhy::TargetRemoved => "removed with its target",
        };
        out.push_str(&edge_row("removed", "-", &r.edge, note));
    }
    out.push_str("</table>\n");
}

fn drifted(out: &mut String, d: &AtlasDiff) {
    if d.states.drifted.is_empty() {
        return;
    }
    out.push_str("<h2>The same states, other data</h2>\n<p>Not a difference: these states are the same in both atlases.</p>\n");
    let (a, b) = (format!("A: {}", d.a), format!("B: {}", d.b));
    for x in &d.states.drifted {
        out.push_str(&format!(
            "<details class=\"state\"><summary><span class=\"mark\">=</span> {}</summary>\n",
            esc(&x.a.label)
        ));
        if x.a.title != x.b.title {
            out.push_str(&format!(
                "<p>title: {} → {}</p>\n",
                esc(&format!("{:?}", x.a.title)),
                esc(&format!("{:?}", x.b.title))
            ));
        }
        out.push_str(&state_table(&x.diff, "other data", &a, &b));
        out.push_str("</details>\n");
    }
}
