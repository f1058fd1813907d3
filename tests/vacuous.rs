//! Checks that cannot fail are refused (attack 31, G9 and G20): a `contains: ""` (every text
//! contains the empty one), a `matches` whose regular expression matches any text (`""`,
//! `.*`, `a*`, `^|x`), and a CSS selector that ends in a pseudo-element (`::before`, which is
//! no element: `hidden` and `count: 0` on it always held). Written out, `validate` refuses them
//! at their line; rendered from a template (an empty var, an empty JSON field), the step fails
//! naming the field. `equals: ""`, `contains: " "` and `matches: "^$"` are real checks and stay.

use crate::common::{Ran, flow_run, output, runner, write};

fn validate(d: &std::path::Path, file: &str) -> (i32, String) {
    let mut c = runner(d);
    c.args(["validate", file]);
    let (code, out, err) = output(c);
    (code, format!("{out}{err}"))
}

#[test]
fn checks_of_nothing_written_out_are_refused_at_their_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r##"name: vacuous
steps:
  - open: "data:text/html,<p id=a class=x>hi</p><input id=i value=v>"
  - expect: { text: { target: "#a", contains: "" } }
  - expect: { text: { target: "#a", matches: "" } }
  - expect: { value: { target: "#i", matches: ".*" } }
  - expect: { title: { matches: "" } }
  - expect: { url: { contains: "" } }
  - expect: { attribute: { target: "#a", name: class, matches: "(?:)" } }
  - expect: { class: { target: "#a", matches: "a*" } }
  - expect: { not: { text: { target: "#a", matches: "^|x" } } }
  - expect: { texts: { target: "#a", contains: [""] } }
  - expect: { dialog: { message: { contains: "" } } }
  - request: { url: "http://127.0.0.1:9/", expect: { body: { matches: "x?" } } }
  - request: { url: "http://127.0.0.1:9/", expect: { body: { contains: "" } } }
  - request: { url: "http://127.0.0.1:9/", expect: { headers: { Content-Type: { contains: "" } } } }
"##,
    );
    let (code, out) = validate(d.path(), "f.yaml");
    assert_eq!(code, 2, "{out}");
    for line in 4..=16 {
        assert!(
            out.contains(&format!("f.yaml:{line}:")),
            "line {line}: {out}"
        );
    }
    assert!(out.contains("matches any text"), "{out}");
    write(
        d.path(),
        "g.yaml",
        r##"name: real checks
steps:
  - open: "data:text/html,<p id=a class=x>hi</p><input id=i value=v>"
  - expect: { text: { target: "#a", equals: "" } }
  - expect: { text: { target: "#a", contains: " " } }
  - expect: { value: { target: "#i", matches: "^$" } }
  - expect: { value: { target: "#i", matches: "^\\s*$" } }
  - expect: { class: { target: "#a", equals: "" } }
  - expect: { title: { matches: "^T" } }
  - request: { url: "http://127.0.0.1:9/", expect: { json: { "$.a": { contains: "" } } } }
"##,
    );
    let (code, out) = validate(d.path(), "g.yaml");
    assert_eq!(code, 0, "{out}");
}

#[test]
fn checks_of_nothing_rendered_from_templates_fail_naming_the_field() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(
        site.join("index.html"),
        "<!doctype html><title>T</title><p id=a class=x>hi</p><input id=i value=v>",
    )
    .unwrap();
    write(
        d.path(),
        "f.yaml",
        r##"name: rendered
web_server: { static: ./site }
vars: { e: "", any: ".*", sp: " ", no_tags: "^[^<>]*$", short: "(?s)^.{0,40}$" }
defaults: { timeout: 1s }
steps:
  - open: "{{ web_server.url }}/index.html"
  - continue_on_error: true
    expect: { text: { target: "#a", contains: "{{ vars.e }}" } }
  - continue_on_error: true
    expect: { value: { target: "#i", contains: "{{ vars.e }}" } }
  - continue_on_error: true
    expect: { title: { contains: "{{ vars.e }}" } }
  - continue_on_error: true
    expect: { texts: { target: "#a", contains: ["{{ vars.e }}"] } }
  - continue_on_error: true
    expect: { attribute: { target: "#a", name: class, contains: "{{ vars.e }}" } }
  - continue_on_error: true
    expect: { text: { target: "#a", matches: "{{ vars.e }}" } }
  - continue_on_error: true
    expect: { url: { matches: "{{ vars.any }}" } }
  - continue_on_error: true
    request: { url: "{{ web_server.url }}/index.html", expect: { body: { contains: "{{ vars.e }}" } } }
  - continue_on_error: true
    request: { url: "{{ web_server.url }}/index.html", expect: { body: { matches: "{{ vars.e }}" } } }
  - continue_on_error: true
    request: { url: "{{ web_server.url }}/index.html", expect: { headers: { Content-Type: { contains: "{{ vars.e }}" } } } }
  - expect: { text: { target: "#a", contains: "h{{ vars.e }}" } }
  - request: { url: "{{ web_server.url }}/index.html", expect: { body: { matches: "hi{{ vars.e }}" } } }
  - expect: { text: { target: "#a", matches: "{{ vars.no_tags }}" } }
  - expect: { title: { matches: "{{ vars.short }}" } }
  - request: { url: "{{ web_server.url }}/index.html", method: POST, json: { query: { matches: "{{ vars.any }}" } }, expect: { status: 405 } }
"##,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    for (i, field) in [
        (1, "expect/text/contains"),
        (2, "expect/value/contains"),
        (3, "expect/title/contains"),
        (4, "expect/texts/contains/0"),
        (5, "expect/attribute/contains"),
        (6, "expect/text/matches"),
        (7, "expect/url/matches"),
        (8, "body"),
        (9, "body"),
        (10, "Content-Type"),
    ] {
        assert_eq!(steps[i]["outcome"], "failed", "{i}: {report:#}");
        let message = steps[i]["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(field), "{i}: {message}");
    }
    // Real checks (no markup, a length bound: review 28, #6) and a request body's own
    // `matches` key (data, not a check: #7) pass.
    for i in 11..=15 {
        assert_eq!(steps[i]["outcome"], "passed", "{i}: {report:#}");
    }
}

#[test]
fn a_selector_of_a_pseudo_element_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "p.yaml",
        r##"name: pseudo elements
steps:
  - open: "data:text/html,<p class=msg>Error</p>"
  - expect: { hidden: ".msg::before" }
  - expect: { hidden: "x-toast::part(msg)" }
  - expect: { count: { target: ".msg::after", equals: 0 } }
  - expect: { hidden: "input::placeholder" }
  - expect: { hidden: "::slotted(span)" }
  - expect: { hidden: ".msg::first-line" }
  - expect: { hidden: { css: "p:after" } }
  - expect: { hidden: { text: "x", within: "form::before" } }
"##,
    );
    let (code, out) = validate(d.path(), "p.yaml");
    assert_eq!(code, 2, "{out}");
    for line in 4..=11 {
        assert!(
            out.contains(&format!("p.yaml:{line}:")),
            "line {line}: {out}"
        );
    }
    assert!(out.contains("pseudo-element"), "{out}");
    write(
        d.path(),
        "q.yaml",
        r##"name: colons that are fine
steps:
  - open: "data:text/html,<p class=msg>Error</p>"
  - expect: { hidden: "[title='a::before']" }
  - expect: { hidden: "[data-x=\"p::after\"]" }
  - expect: { hidden: ".msg:hover" }
  - expect: { hidden: "a\\:\\:b" }
  - expect: { hidden: "li:first-child" }
"##,
    );
    let (code, out) = validate(d.path(), "q.yaml");
    assert_eq!(code, 0, "{out}");
}
