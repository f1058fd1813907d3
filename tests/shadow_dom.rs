//! Selectors reach inside web components as Playwright's locators do (attack 30, F7 and F8):
//! CSS (descendant and child combinators across a shadow boundary included), `text`, `testid`,
//! `label`, `placeholder` and `title` look through OPEN shadow roots, two deep, and the actions
//! and reads work on what they find there; a CLOSED shadow root stays out (as in Playwright).
//! The `text` selector also finds SVG `<text>` and `<input type=submit|button>` by its value.
//! The page (`tests/fixtures/shadow`) defines real custom elements; each action writes what it
//! reached into `#out`, so a step that reached the wrong element fails the check after it.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, step, write};

/// Every step but those whose ids are given passed, and those failed.
fn passed_but(report: &Value, failing: &[&str]) {
    for s in report["flows"][0]["steps"].as_array().unwrap() {
        let expected = if failing.iter().any(|id| s["id"] == *id) {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], expected, "{s}");
    }
}

/// The negative checks of what a web component shows fail (the element is there and seen), as
/// Playwright's would; before, each passed ("absent") while the toast was on the screen.
#[test]
fn a_negative_check_fails_on_what_a_web_component_shows() {
    let d = tempfile::tempdir().unwrap();
    let checks: &[(&str, &str)] = &[
        ("css", r#"expect: { hidden: ".toast" }"#),
        ("css_across", r#"expect: { hidden: "pay-toast .toast" }"#),
        (
            "css_two_deep",
            r#"expect: { hidden: "pay-form section > pay-field input.card" }"#,
        ),
        (
            "text",
            r#"expect: { hidden: { text: "Payment declined" } }"#,
        ),
        ("testid", "expect: { hidden: { testid: toast } }"),
        ("label", r#"expect: { hidden: { label: "Card number" } }"#),
        (
            "placeholder",
            r#"expect: { hidden: { placeholder: "4242" } }"#,
        ),
        (
            "title",
            r#"expect: { hidden: { title: "Retry the payment" } }"#,
        ),
        (
            "count",
            r#"expect: { count: { target: ".toast", equals: 0 } }"#,
        ),
        (
            "not_visible",
            r#"expect: { not: { visible: { text: "Payment declined" } } }"#,
        ),
        ("wait_hidden", r#"wait: { for: ".toast", state: hidden }"#),
        (
            "svg_text",
            r#"expect: { hidden: { text: "Session timeout" } }"#,
        ),
        (
            "svg_tag",
            r#"expect: { hidden: { text: "Session timeout", tag: text } }"#,
        ),
        (
            "submit_value",
            r#"expect: { hidden: { text: "Place order" } }"#,
        ),
        (
            "button_value",
            r#"expect: { hidden: { text: "Cancel order", exact: true } }"#,
        ),
        (
            "role_within",
            r#"expect: { hidden: { role: button, text: "Try again", within: { css: pay-toast } } }"#,
        ),
        // A miss suggests what the components hold, where the selectors look.
        ("label_miss", r#"click: { label: "Card numbr" }"#),
        ("css_miss", r#"click: ".retyr""#),
    ];
    let mut steps = String::new();
    for (id, body) in checks {
        steps.push_str(&format!(
            "  - {{ id: {id}, {body}, continue_on_error: true, timeout: 400ms }}\n"
        ));
    }
    // A closed shadow root stays out, as in Playwright: what it holds is not found.
    steps.push_str("  - expect: { hidden: \".sealed\" }\n");
    steps.push_str("  - expect: { hidden: { text: \"Sealed text\" } }\n");
    write(d.path(), "f.yaml", &flow("negative", &steps));
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let ids: Vec<&str> = checks.iter().map(|(id, _)| *id).collect();
    passed_but(&report, &ids);
    let miss = step(&report, "label_miss")["error"]["message"].to_string();
    assert!(miss.contains(r#"{ label: \"Card number\" }"#), "{miss}");
    let miss = step(&report, "css_miss")["error"]["message"].to_string();
    assert!(miss.contains(r#"css: \".retry\""#), "{miss}");
    let text = step(&report, "text")["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Payment declined"), "{text}");
}

/// The positive forms pass and the actions act on the element inside the component (`#out`
/// says which one got it); before, each failed with "not on the page".
#[test]
fn actions_and_reads_reach_inside_web_components() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"
  - expect:
      visible: ".toast"
      count: { target: ".toast", equals: 1 }
      text: { target: "pay-toast > .toast", equals: "Payment declined" }
      attribute: { target: { testid: toast }, name: role, equals: alert }
  - expect: { visible: { text: "Payment declined" } }
  - expect: { visible: { text: "Session timeout", tag: text } }
  - wait: { text: "Payment declined" }
  - wait: { for: { testid: toast } }
  - click: ".retry"
  - expect: { text: { target: "#out", equals: "retried" } }
  - fill: { target: { label: "Card number" }, value: "4242" }
  - expect:
      text: { target: "#out", equals: "card=4242" }
      value: { target: "pay-form .card", equals: "4242" }
  - fill: { target: { placeholder: "4242" }, value: "5555" }
  - expect: { text: { target: "#out", equals: "card=5555" } }
  - check: { label: "Remember card" }
  - expect: { text: { target: "#out", equals: "save=true" }, checked: "input.save" }
  - click: { text: "Place order" }
  - expect: { text: { target: "#out", equals: "order" } }
  - click: { text: "Cancel order", exact: true }
  - expect: { text: { target: "#out", equals: "cancel" } }
  - click: { css: button, within: { css: "pay-toast" } }
  - expect: { text: { target: "#out", equals: "retried" } }
  - dblclick: ".retry"
  - expect: { text: { target: "#out", equals: "double" } }
  - hover: { text: info, tag: span }
  - expect: { text: { target: "#out", equals: "hover" } }
  - click: { role: button, text: "Try again", within: { css: pay-toast } }
  - expect: { text: { target: "#out", equals: "retried" } }
  - select: { target: "select.brand", value: Amex }
  - expect: { text: { target: "#out", equals: "brand=Amex" } }
  - type: { target: ".note", value: ab }
  - expect: { text: { target: "#out", equals: "note=ab" } }
  - press: { key: Enter, target: ".note" }
  - expect: { text: { target: "#out", equals: "enter" } }
  - upload: { target: "input.doc", files: [a.txt] }
  - expect: { text: { target: "#out", equals: "files=1" } }
  - expect:
      enabled: ".retry"
      visible: "pay-toast .toast + .retry"
      count: { target: "pay-toast :is(.toast, .retry)", equals: 2 }
  - expect: { count: { target: "body > pay-toast .toast, #out", equals: 2 } }
  - expect: { count: { target: "pay-toast [data-testid~=\"toast\"]", equals: 1 } }
"##;
    write(d.path(), "f.yaml", &flow("positive", steps));
    write(d.path(), "a.txt", "a file");
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    passed_but(&report, &[]);
}

/// A flow serving `tests/fixtures/shadow`, opening its page, with `steps` (YAML, indented by 2).
fn flow(name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{steps}",
        fixture("shadow").display()
    )
}

/// Attack 31 G12: a page that makes `document.querySelector` unchangeable (an anti-tamper
/// script's `Object.defineProperty(document, 'querySelector', { configurable: false })`). The
/// reads of an element inside a shadow root (visible, hidden, count, text) answer as on any page
/// (before, each failed with the browser's raw "Cannot redefine property: querySelector");
/// an action on one, which needs that property, fails saying what the page did.
#[test]
fn a_page_that_freezes_query_selector_still_has_its_shadow_roots_read() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/frozen.html",
        r#"<!doctype html><html><body><div id="out">none</div><x-toast></x-toast><script>
const orig = Document.prototype.querySelector;
Object.defineProperty(document, 'querySelector', { value: function (s) { return orig.call(this, s); }, writable: false, configurable: false });
customElements.define('x-toast', class extends HTMLElement { constructor() { super();
  const r = this.attachShadow({ mode: 'open' });
  r.innerHTML = '<p class="msg">Card declined</p><button class="retry">Retry</button>'; } });
</script></body></html>"#,
    );
    write(
        d.path(),
        "fz.yaml",
        r#"name: frozen
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/frozen.html"
  - { id: visible, expect: { visible: ".msg" } }
  - { id: hidden, expect: { hidden: { text: "Card declined" } }, continue_on_error: true, timeout: 500ms }
  - { id: count, expect: { count: { target: ".msg", equals: 1 } } }
  - { id: text, expect: { text: { target: ".msg", contains: "declined" } } }
  - { id: click, click: ".retry", continue_on_error: true, timeout: 1s }
"#,
    );
    let ran = flow_run(d.path()).arg("fz.yaml").run();
    passed_but(&ran.report, &["hidden", "click"]);
    let message = |id: &str| step(&ran.report, id)["error"]["message"].to_string();
    assert!(
        message("hidden").contains("but it is visible"),
        "{}",
        message("hidden")
    );
    let click = message("click");
    assert!(
        click.contains("made `document.querySelector` unchangeable"),
        "{click}"
    );
    assert!(!click.contains("Cannot redefine"), "{click}");
}

/// Attack 32, finding 1: a shadow host renders its shadow tree only; its light DOM children
/// show only where a `<slot>` assigns them (GitHub's `<relative-time>` keeps a fallback text
/// there and shows another). Each claim about the unslotted text fails (before, the host read
/// "in 30 days" and "Pending Paid", and these passed while the page showed "expired"); what
/// the shadow root shows, and slotted text (open and closed roots, named slots, a slot's
/// fallback content) reads as shown.
#[test]
fn text_a_web_component_does_not_slot_is_not_shown() {
    let d = tempfile::tempdir().unwrap();
    let wrong: &[(&str, &str)] = &[
        (
            "exp_text",
            r##"expect: { text: { target: "#exp", contains: "in 30 days" } }"##,
        ),
        (
            "exp_visible",
            r##"expect: { visible: { text: "in 30 days" } }"##,
        ),
        ("exp_wait", r##"wait: { text: "in 30 days" }"##),
        ("st_wait", r##"wait: { text: "Paid" }"##),
        (
            "st_text",
            r##"expect: { text: { target: "#st", contains: "Paid" } }"##,
        ),
        (
            "st_texts",
            r##"expect: { texts: { target: "order-status", equals: [Paid] } }"##,
        ),
        (
            "closed_text",
            r##"expect: { text: { target: "#cl", contains: "in 40 days" } }"##,
        ),
        (
            "closed_visible",
            r##"expect: { visible: { text: "in 40 days" } }"##,
        ),
        ("ghost_visible", r##"expect: { visible: "#ghost" }"##),
        (
            "ghost_text",
            r##"expect: { visible: { text: "Renews soon" } }"##,
        ),
        (
            "unnamed_visible",
            r##"expect: { visible: { text: "Unnamed text" } }"##,
        ),
        (
            "unnamed_text",
            r##"expect: { text: { target: "#nc", contains: "Unnamed" } }"##,
        ),
        (
            "fallback_text",
            r##"expect: { text: { target: "#fb2", contains: "Nobody" } }"##,
        ),
    ];
    let mut steps = String::new();
    for (id, body) in wrong {
        steps.push_str(&format!(
            "  - {{ id: {id}, {body}, continue_on_error: true, timeout: 400ms }}\n"
        ));
    }
    steps.push_str(
        r##"  - expect:
      text: { target: "#exp", equals: "expired" }
      visible: { text: "expired" }
  - expect: { hidden: { text: "in 30 days" } }
  - expect: { hidden: "#ghost" }
  - expect: { hidden: { text: "Unnamed text" } }
  - expect: { text: { target: "#st", equals: "Payment failed" } }
  - wait: { text: "Payment failed" }
  - expect: { texts: { target: "order-status", equals: [Payment failed] } }
  - expect: { text: { target: "#mb", equals: "Save changes" } }
  - expect: { visible: { text: "Save changes" } }
  - expect: { visible: { text: "Closed label" } }
  - expect: { text: { target: "#cb", equals: "Closed label" } }
  - expect: { text: { target: "#nc", equals: "Ada Lovelace" } }
  - expect: { visible: { text: "Ada Lovelace" } }
  - expect: { text: { target: "#fb", equals: "Nobody yet" } }
  - expect: { text: { target: "#fb2", equals: "Given name" } }
"##,
    );
    let page = "{{ web_server.url }}/slots.html";
    write(
        d.path(),
        "f.yaml",
        &flow("slots", &steps).replace("{{ web_server.url }}/index.html", page),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let ids: Vec<&str> = wrong.iter().map(|(id, _)| *id).collect();
    passed_but(&report, &ids);
}
