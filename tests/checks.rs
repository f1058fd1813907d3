//! Web-first checks and selectors on pages that behave like real apps (issue 24): a check right
//! after a navigating action waits for the new page, `{ css, text }` means the CSS matches with
//! that text, names are whitespace-normalised, and `inspect` reads every match.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};

/// A flow file serving the fixture site (its `facets.html` is also docs/steps.md's example
/// page), with `steps` appended (YAML, indented by 2).
fn flow(name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n{steps}",
        fixture("site").display()
    )
}

/// Every message of the report (step errors, flow errors), for checks that none leaks runner's
/// internal handle.
fn messages(report: &Value) -> String {
    let mut out = String::new();
    for f in report["flows"].as_array().into_iter().flatten() {
        let steps = f["steps"].as_array().into_iter().flatten();
        for e in std::iter::once(&f["error"]).chain(steps.map(|s| &s["error"])) {
            if !e.is_null() {
                out.push_str(&format!("{e}\n"));
            }
        }
    }
    out
}

/// `press: Enter` in a GET search form whose answer takes 150-300 ms, then an `expect` about the
/// new page's heading: the check reads the old page, then meets the navigation, then the new
/// page, and holds. Before, it failed about 1 run in 10 after ~100 ms with `Element not found:
/// [data-runner-sel="…"]` (its handle on the old page's heading, gone with that page).
#[test]
fn a_check_right_after_a_navigating_press_waits_for_the_new_page() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "search.yaml",
        &format!(
            r#"name: slow search
web_server:
  command: ["python3", "{server}", "{port}"]
  url: "http://127.0.0.1:{port}/"
steps:
  - open: "{{{{ web_server.url }}}}"
  - fill: {{ target: "input[name=q]", value: books }}
  - press: {{ key: Enter, target: "input[name=q]" }}
  - expect: {{ text: {{ target: h1, contains: books }} }}
  - open: "{{{{ web_server.url }}}}"
  - fill: {{ target: "input[name=q]", value: novels }}
  - press: {{ key: Enter, target: "input[name=q]" }}
  - wait: {{ text: Results for novels }}
  - expect: {{ text: {{ target: h1, equals: Results for novels }} }}
"#,
            server = fixture("checks/slow_search.py").display()
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(["search.yaml", "--repeat-each", "100"])
        .run();
    let flows = report["flows"].as_array().expect("a report");
    let failed: Vec<&Value> = flows.iter().filter(|f| f["status"] != "passed").collect();
    assert!(
        failed.is_empty(),
        "{} of {} runs failed: {}",
        failed.len(),
        flows.len(),
        messages(&report)
    );
    assert_eq!(flows.len(), 100);
    assert_eq!(code, 0, "{stderr}");
}

/// A page that replaces its status element every few milliseconds (as a framework re-rendering
/// without reusing nodes): every check finds the element, then reads it after it was replaced.
/// Each is another round on the new element, never a failure. Before, a check failed with
/// `Element not found: [data-runner-sel="…"]` when the node it found was gone by the read.
#[test]
fn checks_of_an_element_replaced_between_find_and_read_are_retried() {
    let d = tempfile::tempdir().unwrap();
    let checks = (0..10)
        .map(|_| {
            "  - open: \"{{ web_server.url }}/rerender.html\"\n  - expect: { text: { target: \"#status\", equals: ready }, visible: \"#status\", attribute: { target: \"#status\", name: id, equals: status } }\n  - wait: { for: \"#status\" }\n"
        })
        .collect::<String>();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: re-render\nweb_server: {{ static: \"{}\" }}\nsteps:\n{checks}",
            fixture("checks").display()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{}", messages(&report));
}

/// `{ css, text }` is the CSS matches whose text contains `text` (Playwright's `locator(css, {
/// hasText })`), and the step's label shows both. Before, `text` was ignored: strict mode
/// failed naming only the CSS.
#[test]
fn css_with_text_means_the_css_matches_with_that_text() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "css and text",
            r##"
  - open: "{{ web_server.url }}/facets.html"
  - id: genre
    click: { css: ".suggested-facets a", text: genre }
  - expect: { text: { target: "#picked", equals: picked genre } }
  - click: { css: ".suggested-facets a", text: AUTH }
  - expect: { text: { target: "#picked", equals: picked author } }
  - id: none
    click: { css: ".suggested-facets a", text: title }
    timeout: 300ms
"##,
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    for s in &steps[..steps.len() - 1] {
        assert_eq!(s["outcome"], "passed", "{s}");
    }
    let label = step(&report, "genre")["name"].to_string();
    assert!(
        label.contains(".suggested-facets a") && label.contains("genre"),
        "{label}"
    );
    let miss = step(&report, "none")["error"]["message"].to_string();
    assert!(
        miss.contains(".suggested-facets a") && miss.contains("title"),
        "{miss}"
    );
    assert!(!messages(&report).contains("data-runner-sel"), "{report}");
}

/// Text and accessible names are whitespace-normalised as Playwright does: `price ▼` finds the
/// link whose name is `price&nbsp;▼`, by text, by role and name, and a text check reads it so.
#[test]
fn names_and_texts_are_whitespace_normalised() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "nbsp",
            r##"
  - open: "{{ web_server.url }}/facets.html"
  - click: { role: link, text: "price ▼" }
  - expect: { text: { target: "#picked", equals: "picked price ▼" } }
  - click: { role: link, text: "Price  ▼", exact: false }
  - click: { role: link, text: "price ▼", exact: true }
  - click: { text: "price\n▼", tag: a }
  - expect: { visible: { role: link, text: "price ▼" }, text: { target: { css: th, text: "price ▼" }, contains: "price ▼" } }
  - wait: { text: "picked price ▼" }
  - id: case
    click: { role: link, text: "PRICE ▼", exact: true }
    timeout: 300ms
"##,
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    for s in &steps[..steps.len() - 1] {
        assert_eq!(s["outcome"], "passed", "{s}");
    }
    // The suggestion reads like what the user wrote: it says why it did not match.
    let miss = step(&report, "case")["error"]["message"].to_string();
    assert!(
        miss.contains("text: price ▼ } (differs in case, and `exact: true` compares case)"),
        "{miss}"
    );
    assert!(!messages(&report).contains("data-runner-sel"), "{report}");
}

/// `inspect` reads every match of its selector (reads are not strict), with the count. Before,
/// it read the first of seven.
#[test]
fn inspect_reads_every_match_with_the_count() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            "inspect all",
            r##"
  - open: "{{ web_server.url }}/facets.html"
  - id: rows
    inspect: { target: "#rows li", format: text }
  - id: links
    inspect: { target: { css: ".suggested-facets a", text: E } }
"##,
        ),
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let rows = &step(&report, "rows")["outputs"];
    assert_eq!(rows["count"], 7, "{rows}");
    assert_eq!(rows["elements"].as_array().map(Vec::len), Some(7), "{rows}");
    assert_eq!(rows["text"], "one\ntwo\nthree\nfour\nfive\nsix\nseven");
    let links = &step(&report, "links")["outputs"];
    assert_eq!(links["count"], 2, "{links}");
    assert_eq!(links["text"], "year\ngenre", "{links}");
}

/// Every combination of selector keys has a meaning or is refused by `validate`, on its line.
#[test]
fn selector_keys_without_a_meaning_are_refused_on_their_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: meaningless selectors
steps:
  - click: { css: a, role: link }
  - click: { ref: e5, text: Save }
  - click: { css: a, tag: li }
  - click: { role: button, exact: true }
  - click: { role: button, tag: button }
  - click: { css: a, text: Save, exact: true }
  - click: { text: " ", tag: button }
  - click: { css: button, text: "\u00a0" }
  - click: { css: button, text: "{{ vars.who }}" }
  - expect: { hidden: { role: buton } }
  - expect: { hidden: { role: Dialog, text: Sure } }
vars: { who: "" }
"#,
    );
    let mut c = runner(d.path());
    c.args(["validate", "f.yaml"]);
    let (code, stdout, stderr) = output(c);
    let all = format!("{stdout}{stderr}");
    assert_eq!(code, 2, "{all}");
    // A role no element has (a typo) would make `hidden` hold on any page (attack 30, F4).
    assert!(
        all.contains("f.yaml:12") && all.contains("did you mean `button`"),
        "{all}"
    );
    assert!(!all.contains("f.yaml:13"), "{all}");
    // An empty text (whitespace only) is in every element's: it would match anything.
    for line in (3..=7).chain(9..=10) {
        assert!(
            all.contains(&format!("f.yaml:{line}")),
            "line {line}: {all}"
        );
    }
    assert!(
        !all.contains("f.yaml:8") && !all.contains("f.yaml:11"),
        "{all}"
    );
    // A text that renders empty is refused when the step runs, never a click on anything.
    write(
        d.path(),
        "g.yaml",
        r#"name: empty rendered text
vars: { who: "" }
steps:
  - eval: "document.body.innerHTML = '<button onclick=\"window.hit = 1\">Go</button>'"
  - id: empty
    click: { css: button, text: "{{ vars.who }}" }
    continue_on_error: true
  - id: hit
    eval: "window.hit === undefined"
"#,
    );
    let Ran { report, .. } = flow_run(d.path()).arg("g.yaml").run();
    let e = step(&report, "empty")["error"]["message"].to_string();
    assert!(e.contains("the text is empty"), "{report}");
    assert_eq!(step(&report, "hit")["outputs"]["value"], true, "{report}");
}

/// A status line that is on the screen the whole time, replaced by a new element every 2 ms:
/// `hidden`, `not: { visible }` and `wait: { state: hidden }` must never hold. agent-browser's
/// `is visible` answers false for a handle whose element was replaced a moment ago; that
/// answer is a re-check, not "hidden" (it passed all three).
#[test]
fn a_replaced_element_that_stays_visible_is_never_taken_for_hidden() {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::from("  - open: \"{{ web_server.url }}/rerender.html\"\n");
    for (id, step) in [
        ("hidden", "expect: { hidden: \"#status\" }"),
        ("not_visible", "expect: { not: { visible: \"#status\" } }"),
        ("wait_hidden", "wait: { for: \"#status\", state: hidden }"),
    ] {
        steps.push_str(&format!(
            "  - id: {id}\n    {step}\n    timeout: 1500ms\n    continue_on_error: true\n"
        ));
    }
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: always visible\nweb_server: {{ static: \"{}\" }}\nsteps:\n{steps}",
            fixture("checks").display()
        ),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    for id in ["hidden", "not_visible", "wait_hidden"] {
        assert_eq!(step(&report, id)["outcome"], "failed", "{id}: {report}");
    }
    assert!(!messages(&report).contains("data-runner-sel"), "{report}");
}

/// Attack 28, E5: `expect: { request: { url: "" } }` is refused by `validate`, but a `url` that
/// rendered to nothing (an empty var) matched every request: `count: 2` held on the page and its
/// fetch. A template that renders to nothing where the literal must not be empty fails its
/// step, naming the field; the same check with a url passes, and a matcher that takes `""`
/// written out (`text equals`; not `contains`, which every text holds: attack 31, G9) takes it
/// rendered.
#[test]
fn a_url_that_renders_to_nothing_is_refused_as_written_out() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<!doctype html><title>t</title><h1 id=g>Hello</h1><script>fetch('/x')</script>",
    )
    .unwrap();
    write(
        d.path(),
        "f.yaml",
        r##"name: empty
web_server: { static: ./site }
vars: { e: "", x: "/x" }
defaults: { timeout: 2s }
steps:
  - open: "{{ web_server.url }}/index.html"
  - continue_on_error: true
    expect: { request: { url: "{{ vars.e }}", count: 2 } }
  - continue_on_error: true
    expect: { request: { url: "{{ vars.e }}" } }
  - expect: { request: { url: "**{{ vars.x }}", count: 1 } }
  - expect: { not: { text: { target: "#g", equals: "{{ vars.e }}" } } }
  - continue_on_error: true
    wait: { url: "{{ vars.e }}" }
  - continue_on_error: true
    wait: { text: "{{ vars.e }}" }
"##,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    // A `wait` for an empty url or text held at once on any page (attack 30, F5).
    for (i, field) in [
        (1, "expect/request/url"),
        (2, "expect/request/url"),
        (5, "wait/url"),
        (6, "wait/text"),
    ] {
        assert_eq!(steps[i]["outcome"], "failed", "{i}: {report:#}");
        let message = steps[i]["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("`{field}` rendered to nothing")),
            "{i}: {message}"
        );
    }
    for i in [3, 4] {
        assert_eq!(steps[i]["outcome"], "passed", "{i}: {report:#}");
    }
    // Written out, `validate` refuses them.
    write(
        d.path(),
        "g.yaml",
        "name: empty waits
steps:
  - wait: { url: \"\" }
  - wait: { text: \"\" }
",
    );
    let mut c = runner(d.path());
    c.args(["validate", "g.yaml"]);
    let (code, out, err) = output(c);
    let out = format!("{out}{err}");
    assert_eq!(code, 2, "{out}");
    for (line, field) in [(3, "url"), (4, "text")] {
        assert!(
            out.contains(&format!("g.yaml:{line}:"))
                && out.contains(&format!("`{field}` must not be empty")),
            "{out}"
        );
    }
}

/// A `wait: { text }` of only whitespace (or a template that renders to it: a command that
/// printed a newline) held at once on any page, as `""` did before c01d13f: the page's text is
/// compared whitespace-normalised, so a blank text is in every page's (review 26, F5). It is
/// refused as the empty one is, written out at its line and rendered naming the field, as are the
/// other fields that must hold more than whitespace (`js`).
#[test]
fn a_text_of_only_whitespace_is_refused_as_the_empty_one() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), "<!doctype html><p>hello world</p>").unwrap();
    write(
        d.path(),
        "f.yaml",
        r##"name: blank
web_server: { static: ./site }
vars: { sp: " ", nl: "\n", zw: "\u200b ", bom: "\ufeff " }
defaults: { timeout: 2s }
steps:
  - open: "{{ web_server.url }}/index.html"
  - continue_on_error: true
    wait: { text: "{{ vars.sp }}" }
  - continue_on_error: true
    wait: { text: "{{ vars.nl }}" }
  - continue_on_error: true
    wait: { text: "{{ vars.zw }}" }
  - continue_on_error: true
    expect: { js: "{{ vars.sp }}" }
  - wait: { text: "hello {{ vars.sp }}world" }
  - continue_on_error: true
    wait: { text: "{{ vars.bom }}" }
"##,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    for (i, field) in [
        (1, "wait/text"),
        (2, "wait/text"),
        (3, "wait/text"),
        (4, "expect/js"),
        // A byte-order mark is whitespace to the page's comparison (review 27, F5).
        (6, "wait/text"),
    ] {
        assert_eq!(steps[i]["outcome"], "failed", "{i}: {report:#}");
        let message = steps[i]["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains(&format!("`{field}` rendered to only whitespace")),
            "{i}: {message}"
        );
    }
    assert_eq!(steps[5]["outcome"], "passed", "{report:#}");
    write(
        d.path(),
        "g.yaml",
        "name: blank waits
steps:
  - wait: { text: \" \" }
  - wait: { text: \"\\t\\n\" }
  - wait: { text: \"\\u200b\" }
  - wait: { text: \" a \" }
",
    );
    let mut c = runner(d.path());
    c.args(["validate", "g.yaml"]);
    let (code, out, err) = output(c);
    let out = format!("{out}{err}");
    assert_eq!(code, 2, "{out}");
    for line in [3, 4, 5] {
        assert!(out.contains(&format!("g.yaml:{line}:")), "{line}: {out}");
    }
    assert!(!out.contains("g.yaml:6:"), "{out}");
    assert!(out.contains("`text` must not be blank"), "{out}");
}

/// An `expect` whose later round is cut by the step's end (the page's main thread busy for
/// seconds, as a heavy render or a slow machine makes it) failed as `timeout: ... the browser
/// was still answering its `eval`` instead of saying what it last saw: the same check was an
/// assertion or a timeout by how a round fell against the deadline (a CI flake of
/// `dialogs::an_expect_dialog_is_not_met_by_a_dialog_of_an_earlier_step`). The step's verdict is
/// now the last whole round's, as Playwright reports what it last received.
#[test]
fn an_expect_cut_by_its_timeout_says_what_it_last_saw() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: busy\nsteps:\n  - open: \"data:text/html,<p id=r>here</p><script>setTimeout(() => { const t = Date.now(); while (Date.now() - t < 6000) {} }, 400)</script>\"\n  - expect:\n      text: { target: \"#r\", equals: elsewhere }\n    timeout: 2s\n",
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let error = &report["flows"][0]["steps"][1]["error"];
    assert_eq!(error["kind"], "assertion", "{error:#}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .contains("to equal \"elsewhere\", got \"here\""),
        "{error:#}"
    );
}

/// Attack 30, F1: `enabled`/`disabled` read `aria-disabled` (on the element or an ancestor) as
/// docs/steps.md's table and Playwright's toBeEnabled do — the rule actions use. Before, they
/// read native `:disabled` only: `enabled` held on a button disabled with `aria-disabled`, and
/// `disabled` failed on it.
#[test]
fn enabled_and_disabled_read_aria_disabled() {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::from("  - open: \"{{ web_server.url }}/aria-disabled.html\"\n");
    let cases = [
        ("sold_disabled", "disabled: \"#sold\"", true),
        ("inside_disabled", "disabled: \"#inside\"", true),
        ("native_disabled", "disabled: \"#native\"", true),
        (
            "role_disabled",
            "disabled: { role: button, text: Sold out }",
            true,
        ),
        ("buy_enabled", "enabled: \"#buy\"", true),
        ("undone_enabled", "enabled: \"#undone\"", true),
        ("sold_enabled", "enabled: \"#sold\"", false),
        ("inside_enabled", "enabled: \"#inside\"", false),
        (
            "role_enabled",
            "enabled: { role: button, text: Sold out }",
            false,
        ),
        ("not_disabled", "not: { disabled: \"#sold\" }", false),
        ("buy_disabled", "disabled: \"#buy\"", false),
    ];
    for (id, check, _) in cases {
        steps.push_str(&format!(
            "  - id: {id}\n    expect: {{ {check} }}\n    timeout: 500ms\n    continue_on_error: true\n"
        ));
    }
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: aria-disabled\nweb_server: {{ static: \"{}\" }}\nsteps:\n{steps}",
            fixture("checks").display()
        ),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    for (id, _, passes) in cases {
        let want = if passes { "passed" } else { "failed" };
        assert_eq!(
            step(&report, id)["outcome"],
            want,
            "{id}: {}",
            step(&report, id)
        );
    }
    assert!(
        step(&report, "sold_enabled")["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("to be enabled, but it is not")),
        "{report}"
    );
}
