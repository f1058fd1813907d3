//! A corpus of wrong selectors and wrong templates, written the way Playwright and Jinja2 habits
//! suggest: each is refused by `runner validate` with a message that says what to write instead,
//! never accepted to do something else at run time. (The mistakes only a page can reveal —
//! ambiguous selectors, an action on the wrong kind of element — are in
//! `browser::actions_resolve_one_element_of_the_right_kind_or_fail`.)

use serde_json::Value;

use crate::common::{output, runner, write};

/// (steps of the flow, what the diagnostic must say)
const CASES: &[(&str, &str)] = &[
    // Selectors: a bare string is CSS.
    (
        "- fill: { target: \"text=Email\", value: x }",
        "`text=` is Playwright's syntax; write { text: \"Email\" }",
    ),
    (
        "- click: \"iframe >> #card\"",
        "`>>` chains are Playwright's syntax",
    ),
    (
        "- click: \"button:has-text('Go')\"",
        "`:has-text` is Playwright's syntax",
    ),
    ("- click: \"//button[@id='go']\"", "XPath is not supported"),
    ("- click: \"xpath=//a\"", "XPath is not supported"),
    ("- click: \"css=#go\"", "drop the `css=` prefix: `#go`"),
    ("- click: \"id=login\"", "write `#login`"),
    (
        "- click: \"role=button[name='Go']\"",
        "write { role: button, text: \"Go\" }",
    ),
    (
        "- click: \"data-testid=submit\"",
        "write `[data-testid=\"submit\"]`",
    ),
    ("- click: \"a[href\"", "unclosed `[`"),
    ("- click: \"p:not(.x\"", "unclosed `(`"),
    (
        "- click: \"div >\"",
        "a combinator with nothing on one side",
    ),
    ("- click: \"input[value='a]\"", "unclosed quote"),
    (
        "- click: \"li:visible\"",
        "`:visible` is Playwright's syntax",
    ),
    ("- click: \"li:nth-match(2)\"", "{ css: \"…\", nth: N }"),
    (
        "- click: { ref: e1, nth: 0 }",
        "a ref names one element: `nth` does not apply to it",
    ),
    (
        "- expect: { visible: \"text=Welcome\" }",
        "`text=` is Playwright's syntax",
    ),
    ("- wait: { for: \"#a >> #b\" }", "`>>` chains"),
    // A selector's `frame` is CSS too, checked as element CSS is (attack 31, G7): before, these
    // passed validate and failed at run time with the browser's SyntaxError.
    (
        "- expect: { hidden: { text: x, frame: \"iframe[\" } }",
        "unclosed `[` in CSS `iframe[` `frame` is the CSS of one iframe",
    ),
    (
        "- expect: { hidden: { text: x, frame: \"iframe:visible\" } }",
        "`:visible` is Playwright's syntax; write a selector without `:visible` (actions wait for visible elements) `frame` is the CSS of one iframe",
    ),
    (
        "- click: { text: x, frame: \"body >> iframe\" }",
        "`>>` chains are Playwright's syntax",
    ),
    (
        "- click: [\"#a\", { css: \"#b\", frame: \"iframe:text('x')\" }]",
        "`:text` is Playwright's syntax",
    ),
    (
        "- frame: \"iframe:visible\"\n  click: \"#pay\"",
        "`frame` is the CSS of one iframe",
    ),
    (
        "- click: [\"#ok\", \"text=OK\"]",
        "`text=` is Playwright's syntax",
    ),
    // Templates.
    ("- log: \"{{ vars.name | uper }}\"", "unknown filter `uper`"),
    (
        "- if: \"vars.name is definedd\"\n  log: x",
        "unknown test `definedd`",
    ),
    (
        "- id: run\n  exec: [\"true\"]\n- log: \"{{ steps.run.stdot }}\"",
        "did you mean `stdout`?",
    ),
    (
        "- id: s\n  set: { a: 1 }\n- log: \"{{ steps.s.x }}\"",
        "step `s` has no outputs",
    ),
    (
        "- open: \"{{ web_server.url }}/\"",
        "this flow has no `web_server:`",
    ),
    ("- log: \"{{ vars.nme }}\"", "did you mean `name`?"),
    ("- log: \"{{ secrets.TOKN }}\"", "unknown secret `TOKN`"),
    (
        "- log: \"{{ steps.later.stdout }}\"\n- id: later\n  exec: [\"true\"]",
        "step `later` has not run yet",
    ),
    ("- log: \"{{ stepz.x }}\"", "did you mean `steps`?"),
    ("- if: \"vars.name = 'x'\"\n  log: x", "did you mean `==`?"),
    ("- log: \"{{ vars.name }\"", "template syntax error"),
    (
        "- run_flow: \"{{ vars.name }}.yaml\"",
        "`run_flow` takes no templates: `{{ vars.name }}.yaml` would be used as written",
    ),
    (
        "- frame: \"{{ vars.name }}\"\n  click: \"#pay\"",
        "`frame` takes no templates",
    ),
    ("- exec: [\"true\"]\n  timeout: 30", "did you mean `30s`?"),
    ("- exec: [\"true\"]\n  retries: 3", "did you mean `retry`?"),
    ("- wait: 10", "did you mean `10s`?"),
    // A URL glob's host as the browser requests it (review 28, #4).
    (
        "- route: { url: \"https://café.example/api/*\", body: x }",
        "requests its punycode form",
    ),
    (
        "- expect: { request: { url: \"http://bücher.example/**\", count: 0 } }",
        "requests its punycode form",
    ),
    (
        "- expect: { that: \"{{ steps.nope.exit_code == 0 }}\" }",
        "unknown step id `nope`",
    ),
];

#[test]
fn wrong_selectors_and_templates_are_refused_with_the_fix() {
    assert!(CASES.len() >= 30, "the corpus has {} cases", CASES.len());
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (steps, _)) in CASES.iter().enumerate() {
        let steps: String = steps.lines().map(|l| format!("  {l}\n")).collect();
        let name = format!("case-{i:02}.yaml");
        write(
            d.path(),
            &name,
            &format!("name: case {i}\nvars:\n  name: demo\nsecrets: [TOKEN]\nsteps:\n{steps}"),
        );
        files.push(name);
    }
    let mut c = runner(d.path());
    c.args(["validate", "--format", "json"]).args(&files);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    let diags: Vec<Value> = serde_json::from_str(&stdout).expect("a JSON list");
    let mut missing = Vec::new();
    for (i, (steps, want)) in CASES.iter().enumerate() {
        let file = format!("case-{i:02}.yaml");
        let said: Vec<String> = diags
            .iter()
            .filter(|d| d["file"] == file.as_str())
            .map(|d| {
                format!(
                    "{} {}",
                    d["message"].as_str().unwrap_or(""),
                    d["help"].as_str().unwrap_or("")
                )
            })
            .collect();
        if !said.iter().any(|s| s.contains(want)) {
            missing.push(format!("{file} ({steps}): wanted `{want}`, got {said:?}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
