//! Selectors against Playwright's engine where attack 31 found them apart (G1, G2, G5, G13): a
//! selector's `frame` is found as element CSS is (inside open shadow roots, strict, and a frame
//! that is not there is an error, never "absent"); `:has()` looks inside open shadow roots; text
//! is read as the DOM has it, not as CSS `text-transform` shows it. The page is
//! `tests/fixtures/shadow/more.html`; each negative check below must FAIL (its content is on the
//! screen), each positive one pass.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, step, write};

/// Runs `checks` (id, step body) on the page, each allowed to fail, and asserts that exactly
/// those in `failing` failed; returns the report.
fn run(name: &str, checks: &[(&str, &str)], failing: &[&str]) -> Value {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::new();
    for (id, body) in checks {
        steps.push_str(&format!(
            "  - {{ id: {id}, {body}, continue_on_error: true, timeout: 600ms }}\n"
        ));
    }
    let flow = format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/more.html\"\n{steps}",
        fixture("shadow").display()
    );
    write(d.path(), "f.yaml", &flow);
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    for (id, _) in checks {
        let s = step(&report, id);
        let want = if failing.contains(id) {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{id}: {s}");
    }
    report
}

/// The error message of step `id`.
fn message(report: &Value, id: &str) -> String {
    step(report, id)["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// G1: an iframe inside a web component's open shadow root is found by a selector's `frame`
/// (by its id and through the host), so the negative checks on what it shows fail; before, each
/// passed ("not on the page") while the frame showed it. Acting there is agent-browser's, which
/// cannot enter such a frame: the action fails saying so.
#[test]
fn a_frame_inside_a_web_component_is_looked_in() {
    let checks: &[(&str, &str)] = &[
        (
            "visible_across",
            r#"expect: { visible: { text: "Frame in shadow", frame: "pay-frame iframe" } }"#,
        ),
        (
            "visible_id",
            r##"expect: { visible: { text: "Frame in shadow", frame: "#inner" } }"##,
        ),
        (
            "text_read",
            r##"expect: { text: { target: { css: ".fp", frame: "#inner" }, equals: "Frame in shadow" } }"##,
        ),
        (
            "role",
            r##"expect: { visible: { role: alert, frame: "#inner" } }"##,
        ),
        (
            "hidden",
            r##"expect: { hidden: { text: "Frame in shadow", frame: "#inner" } }"##,
        ),
        (
            "hidden_across",
            r#"expect: { hidden: { text: "Frame in shadow", frame: "pay-frame iframe" } }"#,
        ),
        (
            "hidden_role",
            r##"expect: { hidden: { role: alert, frame: "pay-frame iframe" } }"##,
        ),
        (
            "count0",
            r##"expect: { count: { target: { text: "Frame in shadow", frame: "#inner" }, equals: 0 } }"##,
        ),
        (
            "not_visible",
            r##"expect: { not: { visible: { text: "Frame in shadow", frame: "#inner" } } }"##,
        ),
        (
            "wait_hidden",
            r##"wait: { for: { text: "Frame in shadow", frame: "#inner" }, state: hidden }"##,
        ),
        // agent-browser (0.41) cannot switch into it: an action fails saying so.
        ("act", r##"click: { text: "FrameGo", frame: "#inner" }"##),
    ];
    let negatives = [
        "hidden",
        "hidden_across",
        "hidden_role",
        "count0",
        "not_visible",
        "wait_hidden",
        "act",
    ];
    let report = run("frame in shadow", checks, &negatives);
    let m = message(&report, "act");
    assert!(m.contains("cannot enter frame `#inner`"), "{m}");
}

/// G2: a frame that is not on the page is an error for every check (after the check's time, as
/// an iframe a widget inserts late is waited for), never "absent"; a frame CSS matching several
/// iframes is refused in strict mode, as element selectors and Playwright's frameLocator are.
#[test]
fn a_missing_or_ambiguous_frame_is_an_error() {
    let checks: &[(&str, &str)] = &[
        (
            "typo_hidden",
            r##"expect: { hidden: { text: "Card declined", frame: "#pya" } }"##,
        ),
        (
            "typo_count",
            r##"expect: { count: { target: { text: "Card declined", frame: "iframe#pya" }, equals: 0 } }"##,
        ),
        (
            "typo_role",
            r##"expect: { hidden: { role: alert, frame: "#pya" } }"##,
        ),
        (
            "typo_not",
            r##"expect: { not: { visible: { css: p, frame: "#pya" } } }"##,
        ),
        (
            "two_hidden",
            r#"expect: { hidden: { text: "Card declined", frame: "iframe" } }"#,
        ),
        (
            "two_click",
            r#"click: { text: "Buy stuff", frame: "iframe" }"#,
        ),
        (
            "not_a_frame",
            r##"expect: { hidden: { text: "Card declined", frame: "#checkout" } }"##,
        ),
        (
            "real_hidden",
            r##"expect: { hidden: { text: "Card declined", frame: "#pay" } }"##,
        ),
        (
            "real_visible",
            r##"expect: { visible: { text: "Card declined", frame: "iframe#pay" } }"##,
        ),
        (
            "by_title",
            r#"expect: { visible: { text: "Buy stuff", frame: "iframe[title=Ads]" } }"#,
        ),
        (
            "late",
            r#"eval: "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<iframe id=late srcdoc=\"<p>Late frame</p>\"></iframe>'), 200)""#,
        ),
        (
            "late_visible",
            r##"expect: { visible: { text: "Late frame", frame: "#late" } }"##,
        ),
    ];
    let failing = [
        "typo_hidden",
        "typo_count",
        "typo_role",
        "typo_not",
        "two_hidden",
        "two_click",
        "not_a_frame",
        "real_hidden",
    ];
    let report = run("missing frame", checks, &failing);
    for id in ["typo_hidden", "typo_role", "typo_not"] {
        let m = message(&report, id);
        assert!(m.contains("frame `#pya` is not on the page"), "{id}: {m}");
    }
    let m = message(&report, "typo_count");
    assert!(m.contains("frame `iframe#pya` is not on the page"), "{m}");
    for id in ["two_hidden", "two_click"] {
        let m = message(&report, id);
        assert!(
            m.contains("strict mode: frame `iframe` matches 3 elements"),
            "{id}: {m}"
        );
        assert!(m.contains("iframe#ads") && m.contains("iframe#pay"), "{m}");
    }
    let m = message(&report, "not_a_frame");
    assert!(m.contains("names form#checkout"), "{m}");
}

/// G5: `:has()` (and `:not(:has())`) sees what a web component inside the element shows in its
/// open shadow root, as Playwright's CSS engine evaluates `:has()` with its shadow-piercing
/// query; before, `hidden: "form:has(.error)"` passed while the error was shown.
#[test]
fn has_looks_inside_web_components() {
    let checks: &[(&str, &str)] = &[
        ("hidden", r#"expect: { hidden: "form:has(.error)" }"#),
        (
            "count0",
            r#"expect: { count: { target: "form:has(.error)", equals: 0 } }"#,
        ),
        (
            "which",
            r#"expect: { attribute: { target: "form:has(.error)", name: id, equals: checkout } }"#,
        ),
        (
            "has_child",
            r#"expect: { count: { target: "form:has(> card-error .error)", equals: 1 } }"#,
        ),
        (
            "clean",
            r#"expect: { attribute: { target: "form:not(:has(.error))", name: id, equals: clean } }"#,
        ),
        (
            "is_across",
            r#"expect: { count: { target: ":is(form .error)", equals: 1 } }"#,
        ),
        (
            "really_absent",
            r#"expect: { hidden: "form#clean:has(.error)" }"#,
        ),
    ];
    run("has across", checks, &["hidden", "count0"]);
}

/// G13: text is read as the DOM has it (Playwright's elementText), not as CSS `text-transform`
/// shows it: a button upper-cased by CSS is "Submit order" to `text`, exact text selectors and
/// the text checks, so the negative checks on it fail and the checks of its DOM text pass
/// (before: `hidden: { text: "Submit order", exact: true }` passed and `text: { equals }` failed
/// "got SUBMIT ORDER"). The rest of what innerText does is kept: hidden children add nothing,
/// `<br>` separates words. The page's own styles are left as they were (no sheet adopted).
#[test]
fn text_is_read_without_css_text_transform() {
    let checks: &[(&str, &str)] = &[
        (
            "equals",
            r##"expect: { text: { target: "#submit", equals: "Submit order" } }"##,
        ),
        (
            "shown_case",
            r##"expect: { text: { target: "#submit", equals: "SUBMIT ORDER" } }"##,
        ),
        (
            "exact_visible",
            r#"expect: { visible: { text: "Submit order", exact: true } }"#,
        ),
        (
            "exact_hidden",
            r#"expect: { hidden: { text: "Submit order", exact: true } }"#,
        ),
        (
            "exact_count0",
            r#"expect: { count: { target: { text: "Submit order", exact: true }, equals: 0 } }"#,
        ),
        (
            "css_has_text",
            r#"expect: { visible: { css: button, text: "Submit order", exact: true } }"#,
        ),
        ("click", r#"click: { text: "Submit order", exact: true }"#),
        (
            "clicked",
            r##"expect: { text: { target: "#out", equals: "submitted" } }"##,
        ),
        (
            "heading",
            r##"expect: { text: { target: "#heading", equals: "payment failed" } }"##,
        ),
        (
            "heading_not",
            r##"expect: { not: { text: { target: "#heading", equals: "payment failed" } } }"##,
        ),
        (
            "heading_hidden",
            r#"expect: { hidden: { text: "payment failed", exact: true } }"#,
        ),
        (
            "heading_shown_case",
            r#"expect: { hidden: { text: "Payment Failed", exact: true } }"#,
        ),
        (
            "shadow",
            r#"expect: { text: { target: "cased-label", equals: "Shadow label" } }"#,
        ),
        (
            "texts",
            r##"expect: { texts: { target: "#submit, #heading", equals: ["Submit order", "payment failed"] } }"##,
        ),
        (
            "mixed",
            r##"expect: { text: { target: "#mixed", equals: "Total: eur 12 Thanks" } }"##,
        ),
        // A hidden child's words (the same as a shown one's) do not shift the DOM's case.
        (
            "hidden_child",
            r##"expect: { text: { target: "#paynow", equals: "Pay now" } }"##,
        ),
        (
            "styles_kept",
            r#"eval: "[getComputedStyle(document.getElementById('submit')).textTransform, document.adoptedStyleSheets.length, document.querySelector('cased-label').shadowRoot.adoptedStyleSheets.length].join()""#,
        ),
    ];
    let failing = [
        "shown_case",
        "exact_hidden",
        "exact_count0",
        "heading_not",
        "heading_hidden",
    ];
    let report = run("cased text", checks, &failing);
    let m = message(&report, "shown_case");
    assert!(m.contains(r#"got "Submit order""#), "{m}");
    let kept = step(&report, "styles_kept");
    assert_eq!(kept["outputs"]["value"], "uppercase,0,0", "{kept}");
}
