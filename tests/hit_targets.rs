//! A click lands where it says, as Playwright's (attack 32, findings 2, 4, 8 and 9): it is
//! judged once, before the press (the element stable, and it or a label that passes the click
//! on gets the event at its point), and never re-judged by what the press itself does — so a
//! press is never sent twice, a button with a "pressed" look takes it, a label's button is not
//! its radio, and a web component's slotted label is its button. Real React 18 and Vue 3
//! (`tests/fixtures/vendor/`).

use serde_json::{Value, json};

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures` that opens `frameworks/<page>`, with `steps` appended.
fn flow(page: &str, steps: &str) -> String {
    format!(
        "name: hits\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/frameworks/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// Runs `text` as a flow; what it did.
fn run(text: &str) -> Ran {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", text);
    flow_run(d.path()).arg("f.yaml").run()
}

/// The value of the `eval` step with `id`.
fn value(report: &Value, id: &str) -> Value {
    step(report, id)["outputs"]["value"].clone()
}

/// The message of the step with `id`, which must have failed.
fn failure(report: &Value, id: &str) -> String {
    let s = step(report, id);
    assert_eq!(s["outcome"], "failed", "{s}");
    s["error"]["message"].as_str().unwrap_or("").to_string()
}

/// A visually hidden radio whose label holds a button: the click at the radio's point would
/// land on the button, whose clicks never reach the radio (HTML's label activation skips
/// interactive content). The click fails naming the button, and nothing ran; it was `ok`
/// with the button's handler run and the radio not chosen. The label's text, and a label with
/// only text, still pass the click on: the radio is chosen.
#[test]
fn a_click_that_a_button_inside_the_radios_label_would_take_fails() {
    let steps = r##"  - id: pro
    click: "#plan-pro"
    timeout: 1s
    continue_on_error: true
  - id: after
    eval: "document.getElementById('state').textContent"
  - id: checked
    check: "#plan-pro"
    timeout: 1s
    continue_on_error: true
  - click: { text: pro plan }
  - id: by_text
    eval: "document.getElementById('state').textContent"
  - click: "#size-l"
  - id: sized
    eval: "document.getElementById('state').textContent"
"##;
    let Ran { report, .. } = run(&flow("vue-plans.html", steps));
    let message = failure(&report, "pro");
    assert!(
        message.contains("button.info") && message.contains("would receive the click"),
        "{message}"
    );
    assert_eq!(value(&report, "after"), "plan=basic info= size=s");
    // `check` is the same pointer action, as Playwright's: it fails the same way.
    assert!(
        failure(&report, "checked").contains("button.info"),
        "{}",
        failure(&report, "checked")
    );
    // The label's own text passes the click on: the radio is chosen, the button's handler
    // never ran.
    assert_eq!(value(&report, "by_text"), "plan=pro info= size=s");
    assert_eq!(value(&report, "sized"), "plan=pro info= size=l");
}

/// A button that reacts on pointerdown and grows its label: one click is one press (the app
/// counts 1 item and 1 click); the press was sent twice (2 items).
#[test]
fn a_button_that_changes_on_pointerdown_is_pressed_once() {
    let steps = r##"  - click: "#add"
  - id: cart
    eval: "document.getElementById('cart').textContent"
  - click: { role: button, text: "In cart: 1" }
  - id: again
    eval: "document.getElementById('cart').textContent"
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("react-press.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(value(&report, "cart"), "items=1 clicks=1");
    assert_eq!(value(&report, "again"), "items=2 clicks=2");
}

/// Buttons with a "pressed" look (`:active` moves or shrinks them, no transition) take the
/// click, once each; they failed "it is moving" every time.
#[test]
fn buttons_with_a_pressed_look_are_clicked() {
    let steps = r##"  - click: { role: button, text: Save }
  - click: "#send"
  - id: out
    eval: "document.getElementById('out').textContent"
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("react-press.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(value(&report, "out"), "idle saved sent");
}

/// A button that never stops moving is still refused before the press: the click fails "it
/// is moving", and its handler never ran.
#[test]
fn a_button_that_never_stops_moving_is_not_clicked() {
    let steps = r##"  - id: drift
    click: "#drift"
    timeout: 1s
    continue_on_error: true
  - id: out
    eval: "document.getElementById('out').textContent"
"##;
    let Ran { report, .. } = run(&flow("react-press.html", steps));
    let message = failure(&report, "drift");
    assert!(message.contains("it is moving"), "{message}");
    assert_eq!(value(&report, "out"), "idle");
}

/// A web component's shadow button around a slotted label: the label is inside the button in
/// the composed tree, so a click by role, by CSS into the shadow root, or on the host reaches
/// it; the first two failed "span.label would receive the click instead". runner's own hit
/// test now climbs the composed tree (a slotted node's parent is its slot), but agent-browser's
/// click refuses first with its own check ("it is covered by <span.label inside my-button#mb>"),
/// which walks the DOM tree: the click needs agent-browser fixed, or an input runner gives at
/// the point itself.
#[test]
#[ignore = "agent-browser's own covered check refuses a slotted label (see the doc)"]
fn a_web_components_button_with_a_slotted_label_is_clicked() {
    let steps = r##"  - click: { role: button, text: Save changes }
  - click: "my-button button"
  - click: "#mb"
  - id: out
    eval: "document.getElementById('out').textContent"
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("slotted.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(value(&report, "out"), json!("saved saved saved"));
}
