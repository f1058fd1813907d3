//! Filters and functions of minijinja and minijinja-contrib as Jinja2 users write them: what
//! `validate` accepts, `run` does, giving what Jinja2 gives — a positional `truncate(5)` that
//! failed every run, and keyword arguments (`pluralize(plural=..)`, `joiner(sep=..)`,
//! `batch(2, fill_with=..)`) that were rendered as a map where the argument should be are the
//! gaps closed here.

use crate::common::{Ran, flow_run, step, validate, write};

/// (template, what Jinja2 renders it as).
const CASES: [(&str, &str); 21] = [
    ("{{ 'Hello World' | truncate(5) }}", "He..."),
    ("{{ 'Hello World' | truncate(length=5) }}", "He..."),
    (
        "{{ 'Hello World' | truncate(9, true, '...', 0) }}",
        "Hello ...",
    ),
    ("{{ 'Hello World' | truncate(9, false, '!', 0) }}", "Hello!"),
    ("{{ 'Hello World' | truncate(5, end='!') }}", "Hell!"),
    (
        "{{ 'Hello World' | truncate(5, killwords=true, leeway=0) }}",
        "He...",
    ),
    ("{{ 'Hello World' | truncate(20) }}", "Hello World"),
    ("{{ 1500 | filesizeformat }}", "1.5 kB"),
    ("{{ 1500 | filesizeformat(true) }}", "1.5 KiB"),
    ("{{ 1500 | filesizeformat(binary=true) }}", "1.5 KiB"),
    (
        "{{ 2 | pluralize('y', 'ies') }} {{ 1 | pluralize('y', 'ies') }}",
        "ies y",
    ),
    (
        "{{ 2 | pluralize(plural='es') }}{{ 1 | pluralize(plural='es') }}.",
        "es.",
    ),
    ("{{ 1 | pluralize(singular='um', plural='a') }}", "um"),
    ("{{ 2 | pluralize('um', plural='a') }}", "a"),
    (
        "{{ [1, 2, 3, 4, 5] | batch(2, fill_with='x') | list | tojson }}",
        "[[1,2],[3,4],[5,\"x\"]]",
    ),
    (
        "{{ [1, 2, 3, 4, 5] | batch(linecount=2) | list | tojson }}",
        "[[1,2],[3,4],[5]]",
    ),
    (
        "{{ [1, 2, 3, 4, 5] | slice(2, fill_with=0) | list | tojson }}",
        "[[1,2,3],[4,5,0]]",
    ),
    (
        "{{ [1, 2, 3, 4, 5] | slice(2, 'x') | list | tojson }}",
        "[[1,2,3],[4,5,\"x\"]]",
    ),
    (
        "{% set j = joiner(sep='-') %}{% for x in [1, 2] %}{{ j() }}{{ x }}{% endfor %}",
        "1-2",
    ),
    (
        "{% set c = cycler('odd', 'even') %}{% for x in [1, 2, 3] %}{{ c.next() }} {% endfor %}",
        "odd even odd ",
    ),
    (
        "{% set c = cycler(['odd', 'even']) %}{% for x in [1, 2, 3] %}{{ c.next() }} {% endfor %}",
        "odd even odd ",
    ),
];

#[test]
fn contrib_filters_take_jinja2_s_positional_and_keyword_arguments() {
    let d = tempfile::tempdir().unwrap();
    let steps: String = CASES
        .iter()
        .enumerate()
        .map(|(i, (t, _))| {
            let t = serde_json::to_string(t).unwrap();
            format!("  - id: c{i}\n    exec: [printf, \"%s\", {t}]\n    continue_on_error: true\n")
        })
        .collect();
    write(
        d.path(),
        "f.yaml",
        &format!("name: filters\nsteps:\n{steps}"),
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 0, "{out}");
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let wrong: Vec<String> = CASES
        .iter()
        .enumerate()
        .filter_map(|(i, (t, want))| {
            let s = step(&report, &format!("c{i}"));
            let got = &s["outputs"]["stdout"];
            (s["outcome"] != "passed" || got != want)
                .then(|| format!("{t}: want {want:?}, got {got} ({})", s["error"]["message"]))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// What Jinja2 refuses, runner refuses, saying why (not rendering a map, not a bare "too many
/// arguments").
#[test]
fn contrib_filters_refuse_arguments_jinja2_refuses() {
    let cases = [
        (
            "{{ 'Hello World' | truncate(5, length=6) }}",
            "`truncate` got `length` twice",
        ),
        (
            "{{ 'Hello World' | truncate(5, true, '...', 0, 1) }}",
            "`truncate` takes at most 4 arguments (length, killwords, end, leeway), got 5",
        ),
        (
            "{{ 'Hello World' | truncate(lenght=5) }}",
            "`truncate` has no argument `lenght`",
        ),
        (
            "{{ 2 | pluralize('y', 'ies', plural='es') }}",
            "`pluralize` got `plural` twice",
        ),
        (
            "{{ 2 | pluralize(many='ies') }}",
            "`pluralize` has no argument `many`",
        ),
        (
            "{{ [1, 2] | batch(fill_with='x') | list | tojson }}",
            "`batch` needs `linecount`",
        ),
        (
            "{% set j = joiner(', ', sep='-') %}{{ j() }}",
            "`joiner` got `sep` twice",
        ),
    ];
    let d = tempfile::tempdir().unwrap();
    let steps: String = cases
        .iter()
        .enumerate()
        .map(|(i, (t, _))| {
            let t = serde_json::to_string(t).unwrap();
            format!("  - id: c{i}\n    exec: [printf, \"%s\", {t}]\n    continue_on_error: true\n")
        })
        .collect();
    write(
        d.path(),
        "f.yaml",
        &format!("name: filters\nsteps:\n{steps}"),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    for (i, (t, says)) in cases.iter().enumerate() {
        let s = step(&report, &format!("c{i}"));
        assert_eq!(s["outcome"], "failed", "{t}: {s}");
        let message = s["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{t}: {message}");
    }
}
