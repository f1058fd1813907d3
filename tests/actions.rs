//! Actions that are right on real apps (issue 24): pointer actions wait until their element is
//! stable and gets the event, and fail naming what would get it instead; fills that React 18
//! and Vue 3 (their real builds, `tests/fixtures/vendor/`) see; a fill the page refuses fails;
//! `check` and `fill` on a `<label>` act on its control.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};

/// A flow file serving `tests/fixtures` (the pages in `frameworks/` load the vendored builds
/// from `vendor/`) that opens `frameworks/<page>`, with `steps` appended (YAML, indented by 2).
fn flow(page: &str, steps: &str) -> String {
    format!(
        "name: actions\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/frameworks/{page}\"\n{steps}",
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

/// A button that moves within 50 ms after each click (a React re-render), clicked 100 times in
/// a row: the app gets every click, and none lands beside it.
#[test]
fn a_target_that_moves_after_each_click_gets_every_click() {
    let clicks = "  - click: \"#mover\"\n".repeat(100);
    let text = flow(
        "react-todo.html",
        &format!(
            "{clicks}  - id: hits\n    eval: \"[document.getElementById('hits').textContent, window.clicksOnBody]\"\n"
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&text);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(value(&report, "hits"), serde_json::json!(["100", 0]));
}

/// TodoMVC: a filter re-renders the list one row shorter and the footer moves up; the next
/// click finds the link where it is now.
#[test]
fn a_click_after_a_re_render_finds_the_link_where_it_is() {
    let steps = r##"  - click: { role: link, text: Active }
  - click: { role: link, text: Completed }
  - expect: { count: { target: ".todo-list li", equals: 1 } }
  - click: { role: link, text: All }
  - expect: { count: { target: ".todo-list li", equals: 3 } }
"##;
    let Ran { code, stderr, .. } = run(&flow("react-todo.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// A veil over the page that lifts after 700 ms: the click waits for it and succeeds.
#[test]
fn a_click_waits_for_a_veil_to_lift() {
    let steps = r##"  - eval: "startVeil()"
  - id: click
    click: "#under-veil"
    timeout: 5s
  - expect: { text: { target: "#out", equals: veiled clicked } }
"##;
    let Ran { code, stderr, .. } = run(&flow("actions.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// A click whose pointer opens a card over its own target fails naming the card, instead of
/// reporting ok while the card got the click.
#[test]
fn a_click_that_a_hover_card_would_take_fails_naming_the_card() {
    let steps = r##"  - id: click
    click: "#with-card"
    timeout: 1s
"##;
    let Ran { code, report, .. } = run(&flow("actions.html", steps));
    assert_ne!(code, 0);
    let message = failure(&report, "click");
    assert!(message.contains("div#card"), "{message}");
    assert!(message.contains("would receive the click"), "{message}");
}

/// A button that runs from the pointer: the click lands elsewhere, so the step fails instead of
/// reporting ok.
#[test]
fn a_click_that_lands_elsewhere_fails() {
    let steps = r##"  - id: click
    click: "#runaway"
    timeout: 1s
    continue_on_error: true
  - id: out
    eval: "document.getElementById('out').textContent"
"##;
    let Ran { report, .. } = run(&flow("actions.html", steps));
    let message = failure(&report, "click");
    assert!(message.contains("would receive the click"), "{message}");
    assert_eq!(value(&report, "out"), "");
}

/// `force: true` clicks without the checks, and says so.
#[test]
fn a_forced_click_skips_the_checks_and_says_so() {
    let steps = r##"  - id: click
    click: { target: "#with-card", force: true }
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("actions.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        step(&report, "click")["name"]
            .as_str()
            .unwrap_or("")
            .contains("forced"),
        "{report}"
    );
}

/// TodoMVC: a todo edited to "" is deleted on Enter; React sees the fill.
#[test]
fn a_react_fill_with_nothing_then_enter_deletes_the_todo() {
    let steps = r##"  - dblclick: { text: buy milk, tag: label }
  - fill: { target: "input.edit", value: "" }
  - press: { key: Enter, target: "input.edit" }
  - expect: { count: { target: ".todo-list li", equals: 2 } }
  - dblclick: { text: write code, tag: label }
  - fill: { target: "input.edit", value: "write tests" }
  - press: { key: Enter, target: "input.edit" }
  - expect: { text: { target: ".todo-list", contains: write tests } }
  - fill: { target: "input.new-todo", value: "feed cat" }
  - press: { key: Enter, target: "input.new-todo" }
  - expect: { count: { target: ".todo-list li", equals: 3 } }
"##;
    let Ran { code, stderr, .. } = run(&flow("react-todo.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// Vue 3's v-model sees fills of an input and a textarea, an empty one too.
#[test]
fn vue_v_model_sees_fills() {
    let steps = r##"  - fill: { target: "#name", value: Ada }
  - fill: { target: "#bio", value: "line one" }
  - fill: { target: "#nick", value: "" }
  - expect: { text: { target: "#echo", equals: "Ada|line one|" } }
"##;
    let Ran { code, stderr, .. } = run(&flow("vue-form.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// A field that refuses part of a fill (maxlength, a formatter) fails the step, saying what
/// the field holds.
#[test]
fn a_fill_the_page_refuses_fails_saying_what_the_field_holds() {
    let steps = r##"  - id: short
    fill: { target: "#short", value: abcdef }
    continue_on_error: true
  - id: upper
    fill: { target: "#upper", value: abc }
    continue_on_error: true
"##;
    let Ran { report, .. } = run(&flow("actions.html", steps));
    let short = failure(&report, "short");
    assert!(short.contains("`abc`"), "{short}");
    let upper = failure(&report, "upper");
    assert!(upper.contains("`ABC`"), "{upper}");
}

/// `fill` on a contenteditable replaces its text.
#[test]
fn a_fill_of_a_contenteditable_replaces_its_text() {
    let steps = r##"  - fill: { target: "#note", value: new note }
  - expect: { text: { target: "#note", equals: new note } }
"##;
    let Ran { code, stderr, .. } = run(&flow("actions.html", steps));
    assert_eq!(code, 0, "{stderr}");
}

/// `check` and `fill` on a `<label>` act on its control: the one it wraps, or its `for=`.
#[test]
fn check_and_fill_on_a_label_act_on_its_control() {
    let steps = r##"  - check: { text: I agree, tag: label }
  - expect: { checked: "#agree" }
  - uncheck: { text: I agree, tag: label }
  - fill: { target: { text: City, tag: label }, value: Paris }
  - expect: { value: { target: "#city", equals: Paris } }
  - id: agree
    eval: "document.getElementById('agree').checked"
"##;
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&flow("actions.html", steps));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(value(&report, "agree"), false);
}

/// `force` is a boolean of `{ target, force }` on the pointer actions only: anything else is
/// refused by `validate` (exit 2) at its line, with a suggestion for a misspelt key.
#[test]
fn force_is_validated() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "bad.yaml",
        "name: v\nsteps:\n  - click: { target: \"#x\", force: \"yes\" }\n  - focus: { target: \"#x\", force: true }\n  - hover: { target: \"#x\", forse: true }\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "bad.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.yaml:3:35: error: `force` must be a boolean"),
        "{stderr}"
    );
    assert!(
        stderr.contains("bad.yaml:4:28: error: unknown key `force` in `focus`"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `force`?"), "{stderr}");
}

/// A click that opens a dialog gets no verification (the dialog blocks it): the guard armed
/// before it must not stay on the page and stop a later event (it stopped the form's submit
/// click below, and the press reported ok with nothing sent).
#[test]
fn a_click_that_opens_a_dialog_leaves_no_guard_behind() {
    let steps = r##"  - eval: "document.body.innerHTML = '<button id=ask onclick=\"confirm(1)\">Ask</button><form onsubmit=\"event.preventDefault(); document.title = \\'sent\\'\"><button id=send>Send</button></form>'"
  - click: "#ask"
  - dialog: accept
  - press: { key: Enter, target: "#send" }
  - expect: { title: { equals: sent } }
    timeout: 2s
"##;
    let Ran { code, report, .. } = run(&flow("actions.html", steps));
    assert_eq!(code, 0, "{report}");
}

/// The same checks for an element found by role (a ref of the snapshot, which runner names to
/// its page scripts through an event agent-browser dispatches on it): a card that would take
/// the click, a button that runs from the pointer and a disabled button each fail saying why;
/// a veil that lifts is waited for.
#[test]
fn pointer_checks_hold_for_an_element_found_by_role() {
    let steps = r##"  - id: card
    click: { role: button, text: Has a card }
    timeout: 1s
    continue_on_error: true
  - id: runaway
    click: { role: button, text: Run away }
    timeout: 1s
    continue_on_error: true
  - eval: "document.body.insertAdjacentHTML('beforeend', '<button id=off disabled onclick=\"out(1)\">Switched off</button>')"
  - id: disabled
    click: { role: button, text: Switched off }
    timeout: 1s
    continue_on_error: true
  - id: out
    eval: "document.getElementById('out').textContent"
  - eval: "startVeil()"
  - click: { role: button, text: Under the veil }
    timeout: 5s
  - expect: { text: { target: "#out", equals: veiled clicked } }
"##;
    let Ran { report, .. } = run(&flow("actions.html", steps));
    let card = failure(&report, "card");
    assert!(card.contains("div#card"), "{card}");
    assert!(card.contains("would receive the click"), "{card}");
    let runaway = failure(&report, "runaway");
    assert!(runaway.contains("would receive the click"), "{runaway}");
    assert_eq!(value(&report, "out"), "");
    let disabled = failure(&report, "disabled");
    assert!(disabled.contains("it is disabled"), "{disabled}");
    let last = report["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(last["outcome"], "passed", "{report}");
}

/// `select` acts as Playwright's `selectOption`: an option that is disabled, or in a disabled
/// `<optgroup>`, is not chosen (the step waits for it, then fails saying which), an option is
/// named by its value or its label, and a choice the page's change handler puts back fails the
/// step, saying what the select holds. `type` reads the field back as `fill` does, and the
/// field must have grown by what it typed (a full field that already held the text fails).
#[test]
fn select_refuses_disabled_options_and_reads_the_choice_back() {
    let steps = r##"  - id: sold_out
    select: { target: "#size", value: "XL (sold out)" }
    timeout: 1s
    continue_on_error: true
  - id: kids
    select: { target: "#size", value: K4 }
    timeout: 1s
    continue_on_error: true
  - id: size
    eval: "document.getElementById('size').value"
  - select: { target: "#size", value: Large }
  - id: large
    eval: "document.getElementById('size').value"
  - id: gold
    select: { target: "#colour", value: gold }
    continue_on_error: true
  - id: typed
    type: { target: "#short", value: abcdef }
    continue_on_error: true
  - id: full
    type: { target: "#short", value: abc }
    continue_on_error: true
"##;
    let Ran { report, .. } = run(&flow("actions.html", steps));
    let sold_out = failure(&report, "sold_out");
    assert!(
        sold_out.contains("option `XL (sold out)` is disabled"),
        "{sold_out}"
    );
    let kids = failure(&report, "kids");
    assert!(kids.contains("option `K4` is disabled"), "{kids}");
    assert_eq!(value(&report, "size"), "M");
    assert_eq!(value(&report, "large"), "l");
    let gold = failure(&report, "gold");
    assert!(
        gold.contains("`gold`") && gold.contains("`black`"),
        "{gold}"
    );
    let typed = failure(&report, "typed");
    assert!(typed.contains("`abc`"), "{typed}");
    // The field, full, already held `abc`: typing it again took no key, and says so.
    let full = failure(&report, "full");
    assert!(
        full.contains("typed `abc`") && full.contains("made it `abc`"),
        "{full}"
    );
}

/// `type` into a contenteditable must make it grow by the text typed, as an input must (attack
/// 25 B4): an editor that refuses input (`beforeinput` cancelled) and already shows the text
/// passed with no key taken. An editor that takes the keys passes, holding them at the start.
#[test]
fn type_into_an_editor_that_refuses_input_fails_though_it_holds_the_text() {
    let steps = r##"  - id: busy
    type: { target: "#busy", value: deploy done }
    continue_on_error: true
  - type: { target: "#draft", value: "Re:" }
  - id: texts
    eval: "[document.getElementById('busy').textContent, document.getElementById('draft').textContent]"
"##;
    let Ran { report, .. } = run(&flow("reverts.html", steps));
    let busy = failure(&report, "busy");
    assert!(
        busy.contains("typed `deploy done`") && busy.contains("made it `Hi team, deploy done`"),
        "{busy}"
    );
    assert_eq!(
        value(&report, "texts"),
        serde_json::json!(["Hi team, deploy done", "Re:Hi team"])
    );
}

/// A `select` whose change loads another document (a language switch on every page) took the
/// choice: it passes, and the page is the one chosen (review of s21's read-back: it failed as
/// "the select is gone from the page after it"). A select the page removes in the same document
/// still cannot be read back and fails saying so.
#[test]
fn a_select_that_navigates_passes_and_one_removed_fails() {
    let steps = r##"  - select: { target: "#switch", value: de }
  - expect: { text: { target: h1, equals: de } }
  - id: vanish
    select: { target: "#vanish", value: b }
    continue_on_error: true
"##;
    let Ran { report, stderr, .. } = run(&flow("switch.html", steps));
    assert_eq!(step(&report, "vanish")["outcome"], "failed", "{stderr}");
    assert!(
        failure(&report, "vanish").contains("the select is gone from the page after it"),
        "{}",
        failure(&report, "vanish")
    );
    let steps: Vec<&str> = report["flows"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(steps, ["passed", "passed", "passed", "failed"], "{stderr}");
}

/// `select` chooses the first option whose value or label is the value, in the options' order,
/// as Playwright's `selectOption` does (`1` names the option labelled 1 before the one whose
/// value is 1; of a multiple select, an option takes every value it names), on React 18 (attack 31, G17: agent-browser's select
/// chose the option LABELLED "10" over an earlier option whose value is "10": the order went
/// out for another size, and the step was ok). React's state holds each choice.
#[test]
fn select_takes_the_first_option_a_value_names_on_react() {
    let steps = r##"  - select: { target: "#size", value: "10" }
  - expect: { text: { target: "#state", contains: size=10 } }
  - select: { target: "#size", value: US 8 }
  - expect: { text: { target: "#state", contains: size=10 } }
  - select: { target: "#qty", value: "1" }
  - expect: { text: { target: "#state", contains: qty=2 } }
  - select: { target: "#tags", value: [a, c] }
  - expect: { text: { target: "#state", contains: "tags=a,b" } }
  - id: values
    eval: "[...document.querySelectorAll('select')].map((s) => [...s.selectedOptions].map((o) => o.value).join('+'))"
"##;
    let Ran { report, stderr, .. } = run(&flow("react-select.html", steps));
    assert_eq!(
        value(&report, "values"),
        serde_json::json!(["10", "2", "a+b"]),
        "{stderr}"
    );
}
