//! Refs (`@e5`) act on the element their snapshot showed (issue 24: an `ok` must mean the
//! element got the event): a scoped snapshot's refs on the elements inside its scope, though
//! the page has others of the same role and name; after a re-render, a ref follows its like in
//! its place, or fails when it cannot tell which that is; a role's `nth` counts in document
//! order. Real agent-browser and Chromium on `tests/fixtures/refs/` (every control writes what
//! it reached into `#out`, so a step that reached the wrong one fails the check after it).

use serde_json::{Value, json};

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures` that opens `refs/<page>`, with `steps` appended (YAML,
/// indented by 2).
fn flow(page: &str, steps: &str) -> String {
    format!(
        "name: refs\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/refs/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// Runs `text` as a flow; what it did.
fn run(text: &str) -> Ran {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", text);
    flow_run(d.path()).arg("f.yaml").run()
}

/// The message of the step with `id`, which must have failed.
fn failure(report: &Value, id: &str) -> String {
    let s = step(report, id);
    assert_eq!(s["outcome"], "failed", "{id}: {s}");
    s["error"]["message"].as_str().unwrap_or("").to_string()
}

/// The refs a snapshot of `#b` shows on `scoped.html` (and no others: the first section's
/// controls are not in it).
fn refs_of_b() -> Value {
    json!({
        "e6": { "role": "heading", "name": "Second" },
        "e7": { "role": "button", "name": "Go" },
        "e8": { "role": "textbox", "name": "Name" },
        "e9": { "role": "checkbox", "name": "Agree" },
        "e10": { "role": "button", "name": "Go" },
    })
}

/// A snapshot scoped to the second of two sections with the same controls: its refs click,
/// fill, check and read the second section's, also after the section re-rendered (each ref
/// then follows its like in its place there), and a `within`-less role selector run in
/// between (a snapshot of the whole page) changes nothing.
#[test]
fn a_scoped_snapshots_refs_act_inside_its_scope() {
    let steps = r##"  - id: snap
    snapshot: { scope: "#b", interactive: true }
  - click: "@e7"
  - expect: { text: { target: "#out", equals: click b } }
  - click: "@e10"
  - expect: { text: { target: "#out", equals: click b2 } }
  - fill: { target: "@e8", value: Ada }
  - expect: { text: { target: "#out", equals: fill b=Ada } }
  - check: "@e9"
  - expect: { text: { target: "#out", equals: check b=true }, checked: "@e9" }
  - expect: { text: { target: "@e7", equals: Go B }, value: { target: "@e8", equals: Ada } }
  - eval: renew()
  - expect: { visible: { role: button, text: Renew } }
  - click: "@e10"
  - expect: { text: { target: "#out", equals: click b2 } }
  - fill: { target: "@e8", value: Bo }
  - expect: { text: { target: "#out", equals: fill b=Bo } }
  - uncheck: "@e9"
  - expect: { text: { target: "#out", equals: check b=false }, unchecked: "@e9" }
  - expect: { text: { target: "@e7", equals: Go B }, value: { target: "@e8", equals: Bo } }
  - click: "@e7"
  - expect: { text: { target: "#out", equals: click b } }
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("scoped.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(step(&report, "snap")["outputs"]["refs"], refs_of_b());
}

/// A ref of a whole-page snapshot whose element re-rendered follows its like in the same place
/// (the second button "Go" of the page stays the second), not the first of its role and name.
#[test]
fn a_ref_follows_its_like_in_its_place_after_a_re_render() {
    let steps = r##"  - snapshot: { interactive: true }
  - eval: renew()
  - expect: { visible: { role: button, text: Renew } }
  - click: "@e10"
  - expect: { text: { target: "#out", equals: click b2 } }
  - click: "@e7"
  - expect: { text: { target: "#out", equals: click b } }
  - click: "@e3"
  - expect: { text: { target: "#out", equals: click a } }
"##;
    let Ran { code, stderr, .. } = run(&flow("scoped.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// When a re-render leaves the scope with more elements of a ref's role and name than the
/// snapshot showed, the ref cannot tell which is its own: the action fails saying so and
/// reaches none of them. A ref whose scope is gone is hidden; one from before a navigation is
/// refused.
#[test]
fn a_scoped_ref_that_cannot_be_told_apart_fails_and_acts_on_nothing() {
    let steps = r##"  - snapshot: { scope: "#b", interactive: true }
  - eval: crowd()
  - id: crowded
    click: "@e10"
    timeout: 2s
    continue_on_error: true
  - expect: { text: { target: "#out", equals: crowded } }
  - eval: document.getElementById('b').remove()
  - id: gone
    expect: { hidden: "@e10" }
  - reload: true
  - id: stale
    click: "@e7"
    continue_on_error: true
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("scoped.html", steps));
    assert_eq!(code, 0, "{stderr}");
    let crowded = failure(&report, "crowded");
    assert!(
        crowded.contains("@e10 (button \"Go\")")
            && crowded.contains("3 elements of its role and name")
            && crowded.contains("take a new snapshot"),
        "{crowded}"
    );
    assert_eq!(step(&report, "gone")["outcome"], "passed");
    assert_eq!(
        failure(&report, "stale"),
        "ref e7 is from an earlier page; take a new snapshot"
    );
}

/// A snapshot scoped to an element inside an iframe (by the scope's `frame`, or the step's) is
/// refused saying why (agent-browser scopes snapshots in the main document only), rather than
/// failing on a selector the user never wrote or showing the page's own element of that id.
#[test]
fn a_snapshot_scoped_inside_an_iframe_is_refused_saying_why() {
    let steps = r##"  - id: scope_frame
    snapshot: { scope: { css: "#b", frame: "#inner" }, interactive: true }
    continue_on_error: true
  - id: step_frame
    frame: "#inner"
    snapshot: { scope: "#b" }
    continue_on_error: true
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("frame.html", steps));
    assert_eq!(code, 0, "{stderr}");
    for id in ["scope_frame", "step_frame"] {
        let m = failure(&report, id);
        assert!(
            m.starts_with("snapshot `scope` css `#b` in frame `#inner` is inside iframe `#inner`")
                && m.contains("main document only"),
            "{id}: {m}"
        );
    }
}

/// A role's `nth` counts its matches in document order (the order a snapshot shows them), not
/// in the order the browser numbered their refs.
#[test]
fn a_roles_nth_counts_in_document_order() {
    let steps = r##"  - click: { role: button, nth: 0 }
  - expect: { text: { target: "#out", equals: click a } }
  - click: { role: button, nth: -1 }
  - expect: { text: { target: "#out", equals: renewed } }
  - click: { role: button, text: Go, nth: 2 }
  - expect: { text: { target: "#out", equals: click b2 } }
"##;
    let Ran { code, stderr, .. } = run(&flow("scoped.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// Of elements that share one box, a ref names the one its snapshot's role and name say
/// (attack 31, G22: the last element with the box was taken, so `disabled` held on the enabled
/// button stacked over its disabled twin, `enabled` held on a styled switch whose checkbox is
/// disabled, and `inspect` showed the other element).
#[test]
fn a_ref_names_its_element_among_those_sharing_its_box() {
    let steps = r##"  - snapshot: {}
  - expect: { enabled: "@e1" }
  - expect: { disabled: "@e2" }
  - expect: { disabled: "@e3" }
  - { id: approve_disabled, expect: { disabled: "@e1" }, continue_on_error: true, timeout: 300ms }
  - { id: switch_enabled, expect: { enabled: "@e3" }, continue_on_error: true, timeout: 300ms }
  - id: approve
    inspect: { target: "@e1" }
"##;
    let Ran { report, stderr, .. } = run(&flow("stacked.html", steps));
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 8, "{stderr}");
    for s in all {
        let failing = matches!(
            s["id"].as_str(),
            Some("approve_disabled" | "switch_enabled")
        );
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
    let html = step(&report, "approve")["outputs"].to_string();
    assert!(
        html.contains("Approve") && !html.contains("Reject"),
        "{html}"
    );
}

/// Of twins that share one box and their role and name (two stacked "Save" buttons, one
/// disabled), a ref names the one at its place among the snapshot's elements of that role and
/// name, counted in the page's document order (review 28, #3: the last of the tied twins was
/// taken, so `enabled` failed on the enabled @e2, `disabled` held on it, and `inspect` showed its
/// disabled twin). Where the page's side cannot tell which twin is the ref's (a name it does not
/// read: CSS generated content), the step fails saying so, never guessing.
#[test]
fn a_ref_names_its_twin_by_its_place_or_says_it_cannot_tell() {
    let steps = r##"  - snapshot: {}
  - expect: { enabled: "@e2" }
  - expect: { disabled: "@e3" }
  - expect: { disabled: "@e4" }
  - expect: { enabled: "@e5" }
  - { id: e2_disabled, expect: { disabled: "@e2" }, continue_on_error: true, timeout: 300ms }
  - { id: e5_disabled, expect: { disabled: "@e5" }, continue_on_error: true, timeout: 300ms }
  - { id: e2, inspect: { target: "@e2" } }
  - { id: e4, inspect: { target: "@e4" } }
  - { id: print, expect: { enabled: "@e6" }, continue_on_error: true, timeout: 300ms }
  - { id: copy, expect: { disabled: "@e9" }, continue_on_error: true, timeout: 300ms }
"##;
    let Ran { report, stderr, .. } = run(&flow("twins.html", steps));
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 12, "{stderr}");
    let snap = all[1]["outputs"]["text"].as_str().unwrap_or("");
    for line in [
        "button \"Save\" [ref=e2]\n  - button \"Save\" [disabled, ref=e3]",
        "button \"Save\" [disabled, ref=e4]\n  - button \"Save\" [ref=e5]",
        "button \"Print\" [ref=e6]\n  - button \"Print\" [disabled, ref=e7]",
        "button \"Copy\" [disabled, ref=e9]",
    ] {
        assert!(
            snap.contains(line),
            "the refs are not the ones the test means: {snap}"
        );
    }
    for s in &all[..10] {
        let failing = matches!(s["id"].as_str(), Some("e2_disabled" | "e5_disabled"));
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
    let html = |id: &str| {
        step(&report, id)["outputs"]["html"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(html("e2"), "<button id=\"a\">Save</button>");
    assert_eq!(html("e4"), "<button id=\"c\" disabled=\"\">Save</button>");
    for (id, r) in [("print", "@e6"), ("copy", "@e9")] {
        let m = failure(&report, id);
        assert!(m.contains(r) && m.contains("cannot be told"), "{id}: {m}");
    }
}

/// A ref whose element is gone while another took its place (alpha's row removed, delta's
/// added: as many "Delete" buttons as the snapshot showed) names no element now: the click
/// fails saying so and deletes nothing (attack 32, finding 3: it clicked beta's Delete, the
/// one at alpha's place). Rows rendered anew with the same content (a re-render that replaces
/// the elements) are still followed, each to its own row.
#[test]
fn a_ref_whose_row_was_replaced_names_no_other_row() {
    let steps = r##"  - snapshot: { interactive: true }
  - eval: "window.swap('alpha', 'delta')"
  - expect: { text: { target: "#left", equals: "left: beta,gamma,delta" } }
  - id: stale
    click: "@e2"
    continue_on_error: true
    timeout: 1s
  - wait: 200ms
  - id: left
    expect: { text: { target: "#left", equals: "left: beta,gamma,delta" } }
    continue_on_error: true
  - snapshot: { interactive: true }   # now e3, e4, e5: beta's, gamma's and delta's Delete
  - eval: "window.remount()"
  - wait: 100ms
  - id: followed
    click: "@e4"
    continue_on_error: true
  - id: gamma_gone
    expect: { text: { target: "#left", equals: "left: beta,delta" } }
    continue_on_error: true
"##;
    let Ran { report, .. } = run(&flow("rows.html", steps));
    let e = failure(&report, "stale");
    assert!(
        e.contains("@e2") && e.contains("alpha") && e.contains("take a new snapshot"),
        "{e}"
    );
    for id in ["left", "followed", "gamma_gone"] {
        assert_eq!(step(&report, id)["outcome"], "passed", "{id}: {report}");
    }
}
