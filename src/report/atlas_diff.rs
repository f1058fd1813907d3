//! `atlas diff`'s text: like `git diff --stat`, what changed and a last line that counts it —
//! states changed (`~`, with what differs in each), added (`+`), removed (`-`); edges broken
//! (`!`), new (`+`), removed (`-`); then the states that are the same with other data (`=`, not
//! a difference). Names come from the atlases: each is shown on one line, without terminal
//! escapes, control characters or bidirectional controls (`shown::one_line`, as `atlas show`
//! and the console show names), and the whole text is cleaned once more.

use crate::atlas::{AtlasDiff, BrokenWhy, EdgeRef, RemovedWhy};
use crate::step::shown::{clean, one_line};

/// `n noun` with the noun's plural when it is not 1 (`1 edge`, `3 states`).
fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The counts of `(n, word)` that are not 0, the first with the noun: `3 states changed, 1
/// added`; empty when all are 0.
fn counts(noun: &str, parts: &[(usize, &str)]) -> String {
    let shown: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .enumerate()
        .map(|(i, (n, word))| {
            if i == 0 {
                format!("{} {word}", count(*n, noun))
            } else {
                format!("{n} {word}")
            }
        })
        .collect();
    shown.join(", ")
}

/// The diff as text.
pub(crate) fn atlas_diff_text(d: &AtlasDiff) -> String {
    let s = &d.summary;
    let mut out = String::new();
    if !d.differ {
        out.push_str(&format!(
            "no differences: {}, {}\n",
            count(s.states_unchanged, "state"),
            count(s.edges_unchanged, "edge")
        ));
        drifted(&mut out, d);
        return clean(&out);
    }
    states(&mut out, d);
    edges(&mut out, d);
    drifted(&mut out, d);
    let last = [
        counts(
            "state",
            &[
                (s.states_changed, "changed"),
                (s.states_added, "added"),
                (s.states_removed, "removed"),
            ],
        ),
        counts(
            "edge",
            &[
                (s.edges_broken, "broken"),
                (s.edges_new, "new"),
                (s.edges_removed, "removed"),
            ],
        ),
    ];
    let last: Vec<&String> = last.iter().filter(|p| !p.is_empty()).collect();
    out.push_str(&format!(
        "\n{}\n",
        last.iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    ));
    clean(&out)
}

fn states(out: &mut String, d: &AtlasDiff) {
    let s = &d.summary;
    out.push_str(&format!(
        "states: {} changed, {} added, {} removed, {} unchanged\n",
        s.states_changed, s.states_added, s.states_removed, s.states_unchanged
    ));
    for c in &d.states.changed {
        out.push_str(&format!(
            "~ {} ({} -> {})\n",
            one_line(&c.a.label),
            one_line(&c.a.id),
            one_line(&c.b.id)
        ));
        if c.diff.moved() {
            out.push_str(&format!(
                "    url: {} -> {}\n",
                one_line(&c.diff.expected.route),
                one_line(&c.diff.found.route)
            ));
        }
        if c.a.title != c.b.title {
            out.push_str(&format!("    title: {:?} -> {:?}\n", c.a.title, c.b.title));
        }
        for l in c.diff.element_lines() {
            out.push_str(&format!("    {}\n", one_line(&l)));
        }
    }
    for a in &d.states.added {
        out.push_str(&format!("+ {} ({})\n", one_line(&a.label), one_line(&a.id)));
    }
    for r in &d.states.removed {
        out.push_str(&format!("- {} ({})\n", one_line(&r.label), one_line(&r.id)));
    }
}

/// `source --[action]--> target`.
fn edge(e: &EdgeRef) -> String {
    format!(
        "{} --[{}]--> {}",
        one_line(&e.source.label),
        one_line(&e.action),
        one_line(&e.target.label)
    )
}

fn edges(out: &mut String, d: &AtlasDiff) {
    let s = &d.summary;
    out.push_str(&format!(
        "\nedges: {} broken, {} new, {} removed, {} unchanged\n",
        s.edges_broken, s.edges_new, s.edges_removed, s.edges_unchanged
    ));
    for b in &d.edges.broken {
        let why = match (&b.reason, &b.now) {
            (BrokenWhy::Retargeted, Some(now)) => format!("now leads to {}", one_line(&now.label)),
            _ => "gone, both states are still there".to_string(),
        };
        out.push_str(&format!("! {}: {why}\n", edge(&b.edge)));
    }
    for n in &d.edges.new {
        out.push_str(&format!("+ {}\n", edge(n)));
    }
    for r in &d.edges.removed {
        let why = match r.reason {
            RemovedWhy::SourceRemoved => "its source is removed",
            RemovedWhy::TargetRemoved => "its target is removed",
        };
        out.push_str(&format!("- {}: {why}\n", edge(&r.edge)));
    }
}

fn drifted(out: &mut String, d: &AtlasDiff) {
    if d.states.drifted.is_empty() {
        return;
    }
    out.push_str("\nthe same states, other data (not a difference):\n");
    for x in &d.states.drifted {
        let mut parts = Vec::new();
        if x.a.title != x.b.title {
            parts.push(format!("title {:?} -> {:?}", x.a.title, x.b.title));
        }
        if x.diff.drifted() {
            parts.push(format!("data drift: {}", one_line(&x.diff.drift_summary())));
        }
        out.push_str(&format!(
            "= {}: {}\n",
            one_line(&x.a.label),
            parts.join("; ")
        ));
    }
}
