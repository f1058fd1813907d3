//! A `role` selector finds every element of that role the browser's accessibility tree shows,
//! as Playwright's `getByRole` does: not only the roles agent-browser's snapshot gives a ref to
//! (attack 30, F4: `hidden: { role: dialog }` held on a page showing the dialog). Each check
//! that the element is gone fails while it is shown and holds once it is hidden or removed
//! (`tests/fixtures/roles/index.html`, its "Close all" button), and the positive forms pass.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow serving `tests/fixtures` that opens `page`, with `steps` appended (YAML, indented by
/// 2).
fn flow(name: &str, page: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/{page}\"\n{steps}",
        fixture("").display()
    )
}

/// Checks that hold only once the page shows none of the elements, by role: (id, check).
const GONE: [(&str, &str); 23] = [
    (
        "dialog",
        "expect: { hidden: { role: dialog, text: Confirm delete } }",
    ),
    (
        "native_dialog",
        "expect: { hidden: { role: dialog, text: Native open } }",
    ),
    ("alertdialog", "expect: { hidden: { role: alertdialog } }"),
    ("alert", "expect: { hidden: { role: alert } }"),
    (
        "alert_named",
        "expect: { hidden: { role: alert, text: Payment declined } }",
    ),
    ("status", "expect: { hidden: { role: status } }"),
    ("tooltip", "expect: { hidden: { role: tooltip } }"),
    ("progressbar", "expect: { hidden: { role: progressbar } }"),
    ("img", "expect: { hidden: { role: img, text: Logo } }"),
    ("image", "expect: { hidden: { role: image, text: Logo } }"),
    ("table", "expect: { hidden: { role: table } }"),
    ("row", "expect: { hidden: { role: row, text: Ada } }"),
    ("list", "expect: { hidden: { role: list } }"),
    (
        "listitem",
        "expect: { hidden: { role: listitem, text: buy milk } }",
    ),
    ("article", "expect: { hidden: { role: article } }"),
    ("paragraph", "expect: { hidden: { role: paragraph } }"),
    ("log", "expect: { hidden: { role: log } }"),
    ("banner", "expect: { hidden: { role: banner } }"),
    (
        "not_visible",
        "expect: { not: { visible: { role: alert, text: Payment declined } } }",
    ),
    (
        "count_zero",
        "expect: { count: { target: { role: listitem }, equals: 0 } }",
    ),
    (
        "count_dialogs_zero",
        "expect: { count: { target: { role: dialog }, equals: 0 } }",
    ),
    (
        "wait_hidden",
        "wait: { for: { role: dialog, text: Confirm delete }, state: hidden }",
    ),
    (
        "within_dialog",
        "expect: { hidden: { role: button, text: Delete forever, within: { role: dialog, text: Confirm delete } } }",
    ),
];

/// The `GONE` checks as steps with ids `<prefix>_<id>`, each allowed to fail, in 300 ms.
fn gone_steps(prefix: &str) -> String {
    GONE.iter()
        .map(|(id, check)| {
            format!(
                "  - {{ id: {prefix}_{id}, {check}, continue_on_error: true, timeout: 300ms }}\n"
            )
        })
        .collect()
}

/// Every role, implicit (`<li>`, `<dialog open>`, `<img alt>`, `<table>`, `<p>`) or written
/// (`role=alert`): while shown, each check that it is gone fails (it is there, and visible); the
/// positive forms pass (named by the accessible name, or a nameless one by its text), `count`
/// counts, `within: { role: dialog }` looks inside the dialog; an element hidden from the tree
/// (`display: none`, `aria-hidden`, a closed `<dialog>`) is not counted. Once "Close all"
/// hides or removes them, every such check holds but one inside the gone dialog (`within`),
/// which fails saying the `within` matches nothing.
#[test]
fn every_role_is_found_while_shown_and_gone_once_hidden() {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::from(
        r##"  - expect:
      visible: { role: dialog, text: Confirm delete }
      count: { target: { role: listitem }, equals: 2 }
      text: { target: { role: alert }, equals: Payment declined }
  - expect: { visible: { role: img, text: logo } }
  - expect: { visible: { role: dialog, text: Native open dialog, exact: true } }
  - expect: { count: { target: { role: dialog }, equals: 2 } }
  - expect: { count: { target: { role: dialog, text: Closed dialog }, equals: 0 } }
  - expect: { hidden: { role: dialog, text: Display none } }
  - expect: { hidden: { role: dialog, text: Aria hidden } }
  - expect: { texts: { target: { role: listitem }, equals: [buy milk, feed the cat] } }
  - wait: { for: { role: status }, state: visible }
  - click: { role: button, text: Delete forever, within: { role: dialog, text: Confirm delete } }
  - expect: { text: { target: "#out", equals: deleted } }
"##,
    );
    steps.push_str(&gone_steps("shown"));
    steps.push_str("  - click: { role: button, text: Close all }\n");
    steps.push_str("  - expect: { text: { target: \"#out\", equals: closed } }\n");
    steps.push_str(&gone_steps("closed"));
    write(
        d.path(),
        "f.yaml",
        &flow("roles", "roles/index.html", &steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    for s in all {
        let id = s["id"].as_str().unwrap_or_default();
        // Once the dialog is gone, a `within` it is an error, never "hidden" (attack 32, F5):
        // the dialog's own `hidden` (`closed_wait_hidden`) is what holds.
        let want = if id.starts_with("shown_") || id == "closed_within_dialog" {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{s}");
    }
    let e = step(&report, "closed_within_dialog")["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("the `within` dialog \"Confirm delete\" matches nothing on the page"),
        "{e}"
    );
    for (id, _) in GONE {
        let message = step(&report, &format!("shown_{id}"))["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            !message.contains("not on the page"),
            "shown_{id}: {message}"
        );
    }
}

/// An element of opacity 0 is visible (Playwright's rule) whichever selector finds it: by CSS,
/// by text and by role alike, never hidden by one and visible by another.
#[test]
fn one_element_is_visible_or_hidden_by_every_selector_alike() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect:
      visible: "#opa"
  - expect: { visible: { text: Opacity zero } }
  - expect: { visible: { role: button, text: Opacity zero } }
  - { id: by_role, expect: { hidden: { role: button, text: Opacity zero } }, continue_on_error: true, timeout: 300ms }
  - { id: by_css, expect: { hidden: "#opa" }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("opacity", "roles/index.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    for s in all {
        let failing = matches!(s["id"].as_str(), Some("by_role" | "by_css"));
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
}

/// The React TodoMVC: "no todo items left" by role `listitem` fails while one is there (with
/// the footer's filter links, also list items), and holds once it is deleted.
#[test]
fn todo_items_are_counted_by_role() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - fill: { target: { placeholder: What needs to be done? }, value: buy milk }
  - press: { key: Enter, target: { placeholder: What needs to be done? } }
  - expect: { count: { target: { role: listitem, within: .todo-list }, equals: 1 } }
  - { id: one_left, expect: { count: { target: { role: listitem }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
  - { id: still_there, expect: { hidden: { role: listitem, text: buy milk } }, continue_on_error: true, timeout: 300ms }
  - click: { css: .destroy, within: { role: listitem, text: buy milk } }
  - expect: { count: { target: { role: listitem }, equals: 0 } }
  - expect: { hidden: { role: listitem, text: buy milk } }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("todo", "todomvc-react/index.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all: &Vec<Value> = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    for s in all {
        let failing = matches!(s["id"].as_str(), Some("one_left" | "still_there"));
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
}

/// The accessibility tree crosses open shadow roots (a web component's dialog): a check that
/// the dialog is gone fails while it shows, the button inside it is clicked (by role, and by
/// role `within` the dialog), and the check holds once the dialog is removed.
#[test]
fn a_role_inside_a_shadow_root_is_found_and_acted_on() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: { role: dialog, text: Shadow dialog } }
  - expect: { visible: { role: button, text: Delete in shadow, within: { role: dialog } } }
  - { id: shown, expect: { hidden: { role: dialog } }, continue_on_error: true, timeout: 300ms }
  - { id: shown_within, expect: { hidden: { role: button, within: { role: dialog } } }, continue_on_error: true, timeout: 300ms }
  - click: { role: button, text: Delete in shadow }
  - expect: { text: { target: "#out", equals: deleted }, hidden: { role: dialog } }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("shadow", "roles/shadow.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    for s in all {
        let failing = matches!(s["id"].as_str(), Some("shown" | "shown_within"));
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
}

/// Without runner's own session on the tab (`RUNNER_OWN_EVAL=off`) a role is looked up in the
/// snapshot's refs: a role with refs still works, and one the snapshot gives no ref to is an
/// error saying why, never "not on the page".
#[test]
fn a_role_the_snapshot_cannot_show_is_never_absent_without_the_tree() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: { role: button, text: Delete forever } }
  - click: { role: button, text: Close all }
  - expect: { hidden: { role: button, text: Delete forever } }
  - { id: unseen, expect: { hidden: { role: dialog } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("no tree", "roles/index.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path())
        .env("RUNNER_OWN_EVAL", "off")
        .arg("f.yaml")
        .run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    for s in all {
        let failing = s["id"] == "unseen";
        assert_eq!(
            s["outcome"],
            if failing { "failed" } else { "passed" },
            "{s}"
        );
    }
    let message = step(&report, "unseen")["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("gives no ref to this role, so whether it is on the page cannot be told"),
        "{message}"
    );
}

/// An element with `display: contents` has no box of its own: it is visible when one of its
/// child nodes is (a child element, or text, as a web component whose host is `display:
/// contents` shows slotted text), as Playwright's isVisible reads it, whichever selector finds
/// it (attack 31, G3: each such element was "hidden", so `hidden`, `not: visible` and
/// `wait: { state: hidden }` held while its text was on screen). One whose children show
/// nothing is hidden. A click by text on a button whose label is in a `display: contents` span
/// is the button's (review 27, F9: the span, without a box, was not clickable).
#[test]
fn an_element_with_display_contents_is_visible_by_what_it_shows() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: .wrap }
  - expect: { visible: .bare }
  - expect: { visible: x-toast }
  - expect: { visible: { text: Payment failed } }
  - expect: { visible: { role: status } }
  - expect: { visible: "[role=status]" }
  - expect: { hidden: .empty }
  - click: { text: Save draft }
  - expect: { text: { target: "#dcout", equals: saved } }
  - { id: wrap, expect: { hidden: .wrap }, continue_on_error: true, timeout: 300ms }
  - { id: bare, expect: { hidden: .bare }, continue_on_error: true, timeout: 300ms }
  - { id: toast, expect: { hidden: x-toast }, continue_on_error: true, timeout: 300ms }
  - { id: toast_text, expect: { hidden: { text: Payment failed } }, continue_on_error: true, timeout: 300ms }
  - { id: toast_not, expect: { not: { visible: { text: Payment failed } } }, continue_on_error: true, timeout: 300ms }
  - { id: toast_wait, wait: { for: { text: Payment failed }, state: hidden }, continue_on_error: true, timeout: 300ms }
  - { id: status_role, expect: { hidden: { role: status } }, continue_on_error: true, timeout: 300ms }
  - { id: status_css, expect: { hidden: "[role=status]" }, continue_on_error: true, timeout: 300ms }
  - { id: status_text, expect: { hidden: { text: Contents status } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("contents", "roles/contents.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 19, "{stderr}");
    for s in all {
        let want = if s["id"].is_string() {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{s}");
    }
}

/// While a modal dialog is open (`showModal()`), the browser's accessibility tree leaves out
/// everything outside it, and it always leaves out an `inert` subtree; Playwright's getByRole
/// finds those elements (attack 31, G11: `hidden`, `count: 0` and `not visible` by role held on
/// the page behind a cookie dialog). A role check whose answer could be short of them fails
/// saying why at its timeout; the dialog's own elements are found, counted and clicked as ever;
/// a check waits while the dialog closes (it is asked again until then, review 27 F1), and once
/// it is closed the page behind is checked by role again (only the `inert` section stays out).
#[test]
fn a_role_check_behind_a_modal_dialog_or_in_an_inert_part_cannot_pass_as_absent() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - { id: alert, expect: { hidden: { role: alert, text: Payment failed } }, continue_on_error: true, timeout: 300ms }
  - { id: alerts, expect: { count: { target: { role: alert }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
  - { id: heading, expect: { hidden: { role: heading, text: Checkout } }, continue_on_error: true, timeout: 300ms }
  - { id: link, expect: { not: { visible: { role: link, text: Home link } } }, continue_on_error: true, timeout: 300ms }
  - { id: gone, wait: { for: { role: alert }, state: hidden }, continue_on_error: true, timeout: 300ms }
  - { id: within, expect: { hidden: { css: p, within: { role: navigation } } }, continue_on_error: true, timeout: 300ms }
  - { id: nth, expect: { visible: { role: button, nth: 0 } }, continue_on_error: true, timeout: 300ms }
  - expect: { count: { target: { role: button, within: { role: dialog } }, equals: 3 } }
  - expect: { visible: { role: dialog } }
  - expect: { hidden: { role: button, text: Maybe later, within: { role: dialog } } }
  - click: { role: button, text: Soon }
  - expect: { visible: { role: alert, text: Payment failed } }
  - expect: { text: { target: "#out", equals: closed later } }
  - expect: { visible: { role: alert, text: Payment failed } }
  - expect: { count: { target: { role: link, within: nav }, equals: 1 } }
  - { id: after, expect: { hidden: { role: alert } }, continue_on_error: true, timeout: 300ms }
  - { id: inert, expect: { hidden: { role: heading, text: Order summary } }, continue_on_error: true, timeout: 300ms }
  - { id: inert_count, expect: { count: { target: { role: button, text: Edit order }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("modal", "roles/modal.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 19, "{stderr}");
    for s in all {
        let want = if s["id"].is_string() {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{s}");
    }
    for id in [
        "alert",
        "alerts",
        "heading",
        "gone",
        "inert",
        "inert_count",
        "nth",
    ] {
        let message = step(&report, id)["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            message.contains("cannot be told by role"),
            "{id}: {message}"
        );
    }
}

/// A modal dialog inside a web component's open shadow root makes the page behind it inert too
/// (review 27, F4: the check looked in the document's own tree only, and `hidden` by role of a
/// button on screen held).
#[test]
fn a_modal_dialog_in_a_shadow_root_keeps_role_checks_from_passing_as_absent() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: "#save" }
  - { id: save, expect: { hidden: { role: button, text: Save } }, continue_on_error: true, timeout: 300ms }
  - { id: alert, expect: { count: { target: { role: alert }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("modal in shadow", "roles/modal-shadow.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    for id in ["save", "alert"] {
        let message = step(&report, id)["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            message.contains("cannot be told by role"),
            "{id}: {message}\n{stderr}"
        );
    }
}

/// The text of a nameless role's element (an alert, a list item), a label's, and what a list
/// check reads of a ref are the DOM's, as a text look-up reads them (G13), not as CSS
/// `text-transform` shows them (review 28, #8: `hidden: { role: alert, text: "Payment
/// failed", exact: true }` held on an upper-cased alert that showed, and `count: 0` of a
/// capitalized list item). So is an accessible name matched `exact`: the browser's tree gives
/// "SUBMIT ORDER" to an upper-cased button, and `hidden` by its DOM name held while it showed.
/// Each step without an id passes; each with one fails.
#[test]
fn role_label_and_ref_texts_are_read_without_css_text_transform() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - expect: { visible: { role: alert, text: Payment failed, exact: true } }
  - expect: { visible: { role: alert, text: payment } }
  - expect: { hidden: { role: alert, text: PAYMENT FAILED, exact: true } }
  - expect: { count: { target: { role: listitem, text: first item, exact: true }, equals: 1 } }
  - expect: { visible: { label: Card number, exact: true } }
  - expect: { hidden: { label: CARD NUMBER, exact: true } }
  - expect: { visible: { label: card number } }
  - snapshot: {}
  - expect: { texts: { target: "@e2", equals: [Submit order] } }
  - expect: { visible: { role: button, text: Submit order, exact: true } }
  - expect: { hidden: { role: button, text: SUBMIT ORDER, exact: true } }
  - expect: { visible: { role: button, text: submit } }
  - expect: { visible: { role: textbox, text: Card number, exact: true } }
  - expect: { count: { target: { role: button, text: Submit order, exact: true }, equals: 1 } }
  - { id: alert_hidden, expect: { hidden: { role: alert, text: Payment failed, exact: true } }, continue_on_error: true, timeout: 300ms }
  - { id: alert_shown_case, expect: { visible: { role: alert, text: PAYMENT FAILED, exact: true } }, continue_on_error: true, timeout: 300ms }
  - { id: li_count0, expect: { count: { target: { role: listitem, text: first item, exact: true }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
  - { id: label_hidden, expect: { hidden: { label: Card number, exact: true } }, continue_on_error: true, timeout: 300ms }
  - { id: button_hidden, expect: { hidden: { role: button, text: Submit order, exact: true } }, continue_on_error: true, timeout: 300ms }
  - { id: button_count0, expect: { count: { target: { role: button, text: Submit order, exact: true }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
  - { id: textbox_hidden, expect: { hidden: { role: textbox, text: Card number, exact: true } }, continue_on_error: true, timeout: 300ms }
  - { id: ref_texts_shown_case, expect: { texts: { target: "@e2", equals: [SUBMIT ORDER] } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow("cased", "roles/cased.html", steps),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 23, "{stderr}");
    let snap = all[8]["outputs"]["text"].as_str().unwrap_or("");
    assert!(
        snap.contains("button \"SUBMIT ORDER\" [ref=e2]"),
        "the ref is not the one the test means: {snap}"
    );
    for s in all {
        let want = if s["id"].is_string() {
            "failed"
        } else {
            "passed"
        };
        assert_eq!(s["outcome"], want, "{s}");
    }
}

/// A modal dialog inside a web component's *closed* shadow root, and an `inert` part of the
/// page holding the frame a check looks in, make what the check looks for inert too, and the
/// browser's accessibility tree leaves it out (review 28, #2: no page script sees the closed
/// root's dialog, and the frame's check never looked at the page around the frame, so `hidden`
/// and `count: 0` by role held while the button was on screen). The same page in a frame of no
/// inert part is checked by role as ever.
#[test]
fn a_modal_dialog_in_a_closed_shadow_root_or_an_inert_frame_keeps_role_checks_from_passing() {
    let d = tempfile::tempdir().unwrap();
    let closed = r##"  - expect: { visible: "#save" }
  - { id: save, expect: { hidden: { role: button, text: Save } }, continue_on_error: true, timeout: 300ms }
  - { id: alert, expect: { count: { target: { role: alert }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
"##;
    let framed = r##"  - expect: { visible: { css: "#go", frame: "#f" } }
  - { id: pay, expect: { hidden: { role: button, text: Pay now, frame: "#f" } }, continue_on_error: true, timeout: 300ms }
  - { id: card, expect: { count: { target: { role: alert, frame: "#f" }, equals: 0 } }, continue_on_error: true, timeout: 300ms }
  - expect: { visible: { role: button, text: Pay now, frame: "#g" } }
  - expect: { count: { target: { role: alert, frame: "#g" }, equals: 1 } }
  - { id: shown, expect: { hidden: { role: button, text: Pay now, frame: "#g" } }, continue_on_error: true, timeout: 300ms }
"##;
    write(
        d.path(),
        "closed.yaml",
        &flow("closed", "roles/modal-closed.html", closed),
    );
    write(
        d.path(),
        "framed.yaml",
        &flow("framed", "roles/inert-frame.html", framed),
    );
    let Ran { report, stderr, .. } = flow_run(d.path())
        .args(["closed.yaml", "framed.yaml"])
        .run();
    let flows = report["flows"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(flows.len(), 2, "{stderr}");
    for f in flows {
        for s in f["steps"].as_array().unwrap() {
            let message = s["error"]["message"].as_str().unwrap_or_default();
            match s["id"].as_str() {
                // On screen, in no inert part: plainly not hidden.
                Some("shown") => assert!(
                    s["outcome"] == "failed" && !message.contains("cannot be told by role"),
                    "{s}"
                ),
                Some(id) => assert!(
                    s["outcome"] == "failed" && message.contains("cannot be told by role"),
                    "{id}: {s}\n{stderr}"
                ),
                None => assert_eq!(s["outcome"], "passed", "{s}"),
            }
        }
    }
}
