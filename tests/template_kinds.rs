//! What a template compares, and the kinds of the values it is given: an ordering comparison
//! between a number and a text (or none) is an error, not a check that always passes; a
//! `--var` or `.env` value takes the type of the var it overrides; a template that reads a
//! secret and fails quotes no value made of it; a value too large to hold is an error with its
//! place, not an abort; `${VAR}` in a `.env` file is read as dotenv reads it.

use crate::common::{flow_run, write};

/// `steps.count.stdout >= 1` on a stdout of `0`, a JSON text `"0"` compared with `> 0` and a
/// JSON `null` compared with `< 500`: each fails with a message naming both kinds (minijinja
/// ordered every number before every text and none, so each passed).
#[test]
fn an_ordering_comparison_of_a_number_with_a_text_or_none_fails() {
    let d = tempfile::tempdir().unwrap();
    for (name, expr) in [
        ("stdout", "steps.r.stdout >= 1"),
        ("json", "(steps.r.stdout | fromjson)['items'] > 0"),
        ("none", "(steps.r.stdout | fromjson).latency_ms < 500"),
    ] {
        let out = if name == "stdout" {
            "0"
        } else {
            r#"{\"items\": \"0\", \"latency_ms\": null}"#
        };
        write(
            d.path(),
            &format!("{name}.yaml"),
            &format!(
                "name: {name}\nsteps:\n  - id: r\n    exec: [\"sh\", \"-c\", \"echo '{out}'\"]\n  - if: \"{{{{ {expr} }}}}\"\n    log: taken\n  - expect: {{ that: \"{{{{ {expr} }}}}\" }}\n"
            ),
        );
        let ran = flow_run(d.path()).arg(format!("{name}.yaml")).run();
        assert_eq!(ran.code, 1, "{name}: {}{}", ran.stdout, ran.stderr);
        let want = if name == "none" {
            "cannot compare none (none) < 500 (number)"
        } else {
            "(text)"
        };
        assert!(ran.stderr.contains(want), "{name}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("cannot compare"),
            "{name}: {}",
            ran.stdout
        );
    }
    // Kinds that match still compare (`==` across kinds: `template_strict`).
    write(
        d.path(),
        "same.yaml",
        "name: same\nsteps:\n  - id: r\n    exec: [\"echo\", \"9\"]\n  - expect: { that: \"{{ (steps.r.stdout | int) > 1 and steps.r.stdout < 'a' and 'a' != 'b' and [1, 2] < [1, 3] }}\" }\n",
    );
    flow_run(d.path()).arg("same.yaml").passes();
}

/// `--var SKIP_CHECKS=false` and `SKIP_CHECKS=false` in a `.env` file override a flow's boolean
/// as the boolean false (the text `"false"` made `not vars.SKIP_CHECKS` false and skipped the
/// check); `--var MAX_MS=100` overrides a number as the number 100 (the text made `900 <=
/// vars.MAX_MS` pass); a value that does not read as the type is refused (exit 2).
/// A var declared a list or a map is overridden by a list or a map: a `--var` or `.env` text
/// reads as JSON (`["admin", "editor"]`); a text that is not one (`admin,editor`, whose
/// `length` would be 12 and `in` a substring test) is refused before the run, without the value.
#[test]
fn a_list_or_map_var_is_overridden_by_a_list_or_a_map_only() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "l.yaml",
        "name: l\nvars: { ROLES: [admin, viewer], LIMITS: { max: 5 } }\nsteps:\n  - expect: { that: \"{{ vars.ROLES | length == 2 and 'editor' in vars.ROLES and vars.LIMITS.max == 9 }}\" }\n",
    );
    flow_run(d.path())
        .args([
            "l.yaml",
            "--var",
            r#"ROLES=["admin", "editor"]"#,
            "--var",
            r#"LIMITS={"max": 9}"#,
        ])
        .passes();
    for (given, kind) in [("ROLES=admin,editor", "a list"), ("LIMITS=9", "a map")] {
        let ran = flow_run(d.path()).args(["l.yaml", "--var", given]).run();
        let name = given.split('=').next().unwrap();
        assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr
                .contains(&format!("--var {name}: the value given is not {kind}"))
                && !ran.stderr.contains(given.split('=').nth(1).unwrap()),
            "{}",
            ran.stderr
        );
    }
    // A var file's YAML text for a list is refused as well; its YAML list is taken.
    write(d.path(), "text.yaml", "ROLES: viewer\n");
    let ran = flow_run(d.path())
        .args(["l.yaml", "--var-file", "text.yaml"])
        .run();
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    write(
        d.path(),
        "list.yaml",
        "ROLES: [a, editor]\nLIMITS: { max: 9 }\n",
    );
    flow_run(d.path())
        .args(["l.yaml", "--var-file", "list.yaml"])
        .passes();
}

#[test]
fn a_var_given_to_runner_takes_the_type_of_the_var_it_overrides() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "g.yaml",
        "name: g\nvars: { SKIP_CHECKS: true, MAX_MS: 5000 }\nsteps:\n  - id: c\n    exec: [\"echo\", \"900\"]\n  - if: \"{{ not vars.SKIP_CHECKS }}\"\n    expect: { that: \"{{ (steps.c.stdout | int) <= vars.MAX_MS }}\" }\n",
    );
    write(d.path(), "ci.env", "SKIP_CHECKS=false\nMAX_MS=100\n");
    flow_run(d.path()).arg("g.yaml").passes();
    let by_file = flow_run(d.path())
        .args(["g.yaml", "--var-file", "ci.env"])
        .run();
    let by_flag = flow_run(d.path())
        .args([
            "g.yaml",
            "--var",
            "SKIP_CHECKS=false",
            "--var",
            "MAX_MS=100",
        ])
        .run();
    for ran in [by_file, by_flag] {
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr.contains("the right side `vars.MAX_MS` is 100"),
            "{}",
            ran.stdout
        );
    }
    let bad = flow_run(d.path())
        .args(["g.yaml", "--var", "SKIP_CHECKS=nope"])
        .run();
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr
            .contains("--var SKIP_CHECKS: the value given is not a boolean")
            && !bad.stderr.contains("nope"),
        "{}",
        bad.stderr
    );
    write(d.path(), "bad.env", "MAX_MS=fast\n");
    let bad = flow_run(d.path())
        .args(["g.yaml", "--var-file", "bad.env"])
        .run();
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr.contains("of the var file bad.env") && bad.stderr.contains("not a number"),
        "{}",
        bad.stderr
    );
}

/// A template that reads a secret and fails shows minijinja's kind of error and its place, but
/// not the values it quotes: `unable to calculate 9312345 ** 100` (made of the PIN) and the
/// name of a template made of the token were raw in every output.
#[test]
fn a_failed_template_that_reads_a_secret_quotes_no_value() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "e.yaml",
        "name: e\nsecrets: [PIN]\nsteps:\n  - exec: [\"echo\", \"{{ (secrets.PIN[1:] | int) ** 100 }}\"]\n",
    );
    write(
        d.path(),
        "i.yaml",
        "name: i\nsecrets: [T]\nsteps:\n  - exec: [\"echo\", \"{% include secrets.T[1:] %}\"]\n",
    );
    let ran = flow_run(d.path())
        .args(["e.yaml", "i.yaml"])
        .env("PIN", "99312345")
        .env("T", "Kestrel-Vault-9931-Zulu")
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let report = ran.report.to_string();
    for shown in [&ran.stdout, &ran.stderr, &report] {
        assert!(!shown.contains("9312345"), "{shown}");
        assert!(!shown.contains("estrel-Vault"), "{shown}");
    }
    assert!(
        ran.stderr.contains(
            "invalid operation: unable to calculate (values not shown: the template reads a secret)"
        ),
        "{}",
        ran.stdout
    );
    assert!(ran.stderr.contains("e.yaml:4:"), "{}", ran.stderr);
    // A var made of a secret is one the flow's masker holds: a template reading it quotes
    // none of what it made of it either (`9312346`, the slice plus one).
    write(
        d.path(),
        "v.yaml",
        "name: v\nsecrets: [PIN]\nvars: { x: \"{{ secrets.PIN[1:] }}\" }\nsteps:\n  - exec: [\"echo\", \"{{ ((vars.x | int) + 1) ** 100 }}\"]\n",
    );
    // And a check or a condition that fails so.
    write(
        d.path(),
        "w.yaml",
        "name: w\nsecrets: [PIN]\nvars: { x: \"{{ secrets.PIN[1:] }}\" }\nsteps:\n  - if: \"{{ ((vars.x | int) + 1) // 0 }}\"\n    log: never\n",
    );
    write(
        d.path(),
        "x.yaml",
        "name: x\nsecrets: [PIN]\nvars: { x: \"{{ secrets.PIN[1:] }}\" }\nsteps:\n  - expect: { that: \"{{ ((vars.x | int) + 1) ** 100 > 0 }}\" }\n",
    );
    let ran = flow_run(d.path())
        .args(["v.yaml", "w.yaml", "x.yaml"])
        .env("PIN", "99312345")
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let report = ran.report.to_string();
    for shown in [&ran.stdout, &ran.stderr, &report] {
        assert!(!shown.contains("9312346"), "{shown}");
    }
    for name in ["failed v ", "failed w ", "failed x "] {
        let line = ran
            .stderr
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no `{name}` in {}", ran.stderr));
        assert!(line.contains("values not shown"), "{line}");
    }
    // A template that reads no secret still shows its values.
    write(
        d.path(),
        "n.yaml",
        "name: n\nvars: { n: 7 }\nsteps:\n  - exec: [\"echo\", \"{{ vars.n // 0 }}\"]\n",
    );
    let ran = flow_run(d.path()).arg("n.yaml").run();
    assert!(ran.stderr.contains("7 // 0"), "{}", ran.stderr);
}

/// `[x] * 10**13` aborted runner (SIGABRT, no report) when its value was made JSON, and
/// `['ab'] * 1000000` took 275 MB: a value past the bounds is a template error at its place,
/// and the run reports it.
#[test]
fn a_value_too_large_is_an_error_not_an_abort() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "big.yaml",
        "name: big\nvars: { n: 10000000000000 }\nsteps:\n  - exec: [\"echo\", \"{{ 'a-b'.split('-') * vars.n }}\"]\n",
    );
    write(
        d.path(),
        "lit.yaml",
        "name: lit\nsteps:\n  - exec: [\"echo\", \"{{ ['x'] * 10000000000000 }}\"]\n",
    );
    write(
        d.path(),
        "long.yaml",
        "name: long\nsteps:\n  - exec: [\"echo\", \"x {{ ['ab'] * 1000000 }}\"]\n",
    );
    write(
        d.path(),
        "text.yaml",
        "name: text\nsteps:\n  - exec: [\"echo\", \"{{ 'ab' * 10000000 }}\"]\n",
    );
    // Made inside the expression, where no fuel is spent and no final value is looked at: a
    // text of literals minijinja works out when it compiles, a `list` of its characters, the
    // pieces of a `split` (2.4 GB and 61 s for the first before).
    write(
        d.path(),
        "folded.yaml",
        "name: folded\nsteps:\n  - exec: [\"echo\", \"{{ ('x' * 50000000) | list | map('upper') | list | length }}\"]\n",
    );
    write(
        d.path(),
        "chars.yaml",
        "name: chars\nvars: { n: 5000000 }\nsteps:\n  - exec: [\"echo\", \"{{ ('x' * vars.n) | list | length }}\"]\n",
    );
    write(
        d.path(),
        "split.yaml",
        "name: split\nvars: { n: 8000000 }\nsteps:\n  - exec: [\"echo\", \"{{ ('x-' * vars.n).split('-') | length }}\"]\n",
    );
    for f in [
        "big.yaml",
        "lit.yaml",
        "long.yaml",
        "text.yaml",
        "folded.yaml",
        "chars.yaml",
        "split.yaml",
    ] {
        let ran = flow_run(d.path())
            .arg(f)
            .run_within(std::time::Duration::from_secs(60));
        assert_eq!(ran.code, 1, "{f}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr.contains("the value is too large"),
            "{f}: {}",
            ran.stdout
        );
        assert_eq!(ran.report["flows"][0]["status"], "failed", "{f}");
    }
}

/// `${NAME}` in a `.env` file is expanded as python-dotenv and Compose expand it (unquoted and
/// in double quotes, from a name above in the file or the environment; kept in single quotes):
/// it reached the flow as `${NAME}`. One with no value is refused at its line. A key no flow
/// uses is warned about as the var file's, not as a `--var`.
#[test]
fn dollar_braces_in_a_dotenv_file_are_expanded_as_dotenv_does() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "h.yaml",
        "name: h\nvars: { A: '', B: '', C: '' }\nsteps:\n  - expect: { that: \"{{ vars.A == '${BASE_X}/single' and vars.B == '/srv/double' and vars.C == '/srv/double/bare' }}\" }\n",
    );
    write(
        d.path(),
        "v.env",
        "A='${BASE_X}/single'\nB=\"${BASE_X}/double\"\nC=${B}/bare\nE=1\n",
    );
    let ran = flow_run(d.path())
        .args(["h.yaml", "--var-file", "v.env"])
        .env("BASE_X", "/srv")
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("`E` of the var file v.env is not used by any flow"),
        "{}",
        ran.stderr
    );
    write(d.path(), "u.env", "A=x\nB=${NOT_SET_ANYWHERE_X}\n");
    let ran = flow_run(d.path())
        .args(["h.yaml", "--var-file", "u.env"])
        .run();
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("u.env:2:3")
            && ran.stderr.contains("`${NOT_SET_ANYWHERE_X}` has no value"),
        "{}",
        ran.stderr
    );
}

/// `min`, `max`, `sort` (with `attribute=` and `reverse=`) and `dictsort(by='value')` over
/// values that mix numbers with a text (or none) fail as `<` does: minijinja ordered every
/// number before every text and none, so `map(attribute='qty') | min >= 1` passed with a
/// `qty` of `"0"`. Over one kind they still order, with their arguments.
#[test]
fn a_filter_that_orders_numbers_with_a_text_or_none_fails() {
    let d = tempfile::tempdir().unwrap();
    let json = r#"{\"items\": [{\"qty\": 7}, {\"qty\": \"0\"}, {\"qty\": 3}], \"by\": {\"a\": 7, \"b\": \"0\"}, \"ok\": [{\"qty\": 7}, {\"qty\": 3}], \"latency\": null}"#;
    let flow = |expr: &str| {
        format!(
            "name: f\nsteps:\n  - id: r\n    exec: [\"sh\", \"-c\", \"echo '{json}'\"]\n  - expect: {{ that: \"{{{{ {expr} }}}}\" }}\n"
        )
    };
    let j = "(steps.r.stdout | fromjson)";
    for (name, expr, want) in [
        (
            "min",
            format!("({j}['items'] | map(attribute='qty') | min) >= 1"),
            "`min`: cannot compare 7 (number) with \"0\" (text)",
        ),
        (
            "max",
            format!("({j}['items'] | map(attribute='qty') | max) != 7"),
            "`max`: cannot compare",
        ),
        (
            "none",
            format!("([{j}.latency, 500] | max) == 500"),
            "`max`: cannot compare none (none) with 500 (number): check `is none` first",
        ),
        (
            "sort",
            format!("({j}['items'] | map(attribute='qty') | sort | first) >= 1"),
            "`sort`: cannot compare",
        ),
        (
            "attr",
            format!("({j}['items'] | sort(attribute='qty', reverse=true) | last).qty >= 1"),
            "`sort`: cannot compare",
        ),
        (
            "dict",
            format!("({j}['by'] | dictsort(by='value') | first)[1] >= 1"),
            "`dictsort`: cannot compare",
        ),
    ] {
        write(d.path(), &format!("{name}.yaml"), &flow(&expr));
        let ran = flow_run(d.path()).arg(format!("{name}.yaml")).run();
        assert_eq!(ran.code, 1, "{name}: {}{}", ran.stdout, ran.stderr);
        assert!(ran.stderr.contains(want), "{name}: {}", ran.stderr);
    }
    write(
        d.path(),
        "same.yaml",
        &flow(&format!(
            "({j}['ok'] | map(attribute='qty') | min) == 3 and ({j}['ok'] | map(attribute='qty') | max) == 7 and ({j}['ok'] | sort(attribute='qty', reverse=true) | first).qty == 7 and (['b', 'A', 'c'] | sort(case_sensitive=true) | first) == 'A' and (['b', 'A', 'c'] | sort | first) == 'A' and ({{'x': 2, 'y': 1}} | dictsort(by='value') | first)[0] == 'y' and ({{'x': 2, 'y': 1}} | dictsort(reverse=true) | first)[0] == 'y'"
        )),
    );
    flow_run(d.path()).arg("same.yaml").passes();
}

/// What still ordered across kinds: `groupby` (it sorts by its attribute), lists compared item
/// by item where the first items that differ are a number and a text (`[1, "a"] < [1, 2]` was
/// false, so `>=` passed; `sort` of such lists), and a comparison of literals minijinja works
/// out when it compiles (`{{ 1 < 'a' }}` rendered `true`: no guard ran). Each fails as `<`
/// does; lists whose first difference is of one kind still compare, as in Python.
#[test]
fn groupby_nested_lists_and_literal_comparisons_order_one_kind() {
    let d = tempfile::tempdir().unwrap();
    let json = r#"{\"items\": [{\"qty\": 7}, {\"qty\": \"0\"}, {\"qty\": 3}], \"pairs\": [[1, \"a\"], [1, 2]]}"#;
    let flow = |expr: &str| {
        format!(
            "name: f\nsteps:\n  - id: r\n    exec: [\"sh\", \"-c\", \"echo '{json}'\"]\n  - expect: {{ that: \"{{{{ {expr} }}}}\" }}\n"
        )
    };
    let j = "(steps.r.stdout | fromjson)";
    for (name, expr, want) in [
        (
            "groupby",
            format!("({j}['items'] | groupby('qty') | first).grouper >= 1"),
            "`groupby`: cannot compare 7 (number) with \"0\" (text)",
        ),
        (
            "groupby_attr",
            format!("({j}['items'] | groupby(attribute='qty') | last).grouper == '0'"),
            "`groupby`: cannot compare",
        ),
        (
            "pairs",
            format!("{j}['pairs'][0] >= {j}['pairs'][1]"),
            "cannot compare [1, \"a\"] (list) >= [1, 2] (list): their items \"a\" (text) and 2 (number)",
        ),
        (
            "sort_pairs",
            format!("({j}['pairs'] | sort | first)[1] >= 1"),
            "`sort`: cannot compare",
        ),
        (
            "max_pairs",
            format!("({j}['pairs'] | max)[1] == 'a'"),
            "`max`: cannot compare",
        ),
        (
            "literal",
            "1 < 'a'".to_string(),
            "cannot compare 1 (number) < \"a\" (text)",
        ),
        (
            "chain",
            "0 < 1 < 'a'".to_string(),
            "cannot compare 1 (number) < \"a\" (text)",
        ),
        (
            "not",
            "not ('5' <= 3)".to_string(),
            "cannot compare \"5\" (text) <= 3 (number)",
        ),
        (
            "literal_pairs",
            "[1, 'a'] > [1, 2]".to_string(),
            "cannot compare [1, \"a\"] (list) > [1, 2] (list)",
        ),
        (
            "literal_in_filter",
            "((2 > '10') | int) == 0".to_string(),
            "cannot compare 2 (number) > \"10\" (text)",
        ),
    ] {
        write(d.path(), &format!("{name}.yaml"), &flow(&expr));
        let ran = flow_run(d.path()).arg(format!("{name}.yaml")).run();
        assert_eq!(ran.code, 1, "{name}: {}{}", ran.stdout, ran.stderr);
        assert!(ran.stderr.contains(want), "{name}: {}", ran.stderr);
    }
    // An `if` of literals fails too, rather than taking a branch.
    write(
        d.path(),
        "if.yaml",
        "name: if\nsteps:\n  - if: \"{% if 5 > '3' %}true{% endif %}\"\n    log: taken\n",
    );
    let ran = flow_run(d.path()).arg("if.yaml").run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("cannot compare 5 (number) > \"3\" (text)"),
        "{}",
        ran.stderr
    );
    // One kind at the first difference orders, as Python does: `[1, 'a'] < [2, 'b']` is true
    // (1 < 2 decides); lists of one shape sort and group; literals of one kind compare.
    write(
        d.path(),
        "same.yaml",
        &flow(&format!(
            "{j}['pairs'][1] < [2, 'b'] and [1, 'a'] < [2, 'b'] and ([[2, 'x'], [1, 'y']] | sort | first)[1] == 'y' and ([[1, 'b'], [1, 'a']] | min)[1] == 'a' and ([{{'k': 2}}, {{'k': 1}}, {{'k': 2}}] | groupby('k') | last).list | length == 2 and 1 < 2 < 3 and 'a' < 'b' and not (2 < 1 < 'a') and ([1, 'a', 1, 'A'] | unique | list) == [1, 'a']"
        )),
    );
    flow_run(d.path()).arg("same.yaml").passes();
}

/// `run_flow.vars` gives a sub-flow's boolean or number var that type, as `--var` does:
/// `SKIP: "{{ env.SKIP_CHECKS }}"` with `SKIP_CHECKS=false` gave the sub-flow's `SKIP: false`
/// the text `"false"`, so `if: "{{ not vars.SKIP }}"` skipped its check. A text that does not
/// read as the type fails the run_flow step, at its place, without the value.
#[test]
fn a_var_given_to_a_sub_flow_takes_the_type_of_the_var_it_overrides() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "sub.yaml",
        "name: sub\nvars: { MAX_MS: 500, SKIP: false }\nsteps:\n  - id: c\n    exec: [\"echo\", \"300\"]\n  - expect: { that: \"{{ (steps.c.stdout | int) <= vars.MAX_MS }}\" }\n    if: \"{{ not vars.SKIP }}\"\n",
    );
    write(
        d.path(),
        "parent.yaml",
        "name: parent\nsteps:\n  - run_flow:\n      path: sub.yaml\n      vars: { SKIP: \"{{ env.SKIP_CHECKS }}\", MAX_MS: \"{{ env.MAX_MS }}\" }\n",
    );
    let run = |skip: &str, max: &str| {
        flow_run(d.path())
            .arg("parent.yaml")
            .env("SKIP_CHECKS", skip)
            .env("MAX_MS", max)
            .run()
    };
    let checked = run("false", "100");
    assert_eq!(checked.code, 1, "{}{}", checked.stdout, checked.stderr);
    assert!(
        checked
            .stderr
            .contains("the right side `vars.MAX_MS` is 100"),
        "{}",
        checked.stderr
    );
    let passed = run("false", "400");
    assert_eq!(passed.code, 0, "{}{}", passed.stdout, passed.stderr);
    let skipped = run("true", "100");
    assert_eq!(skipped.code, 0, "{}{}", skipped.stdout, skipped.stderr);
    // The value is not shown (it may be, or hold, a secret): the var, the type, the place.
    let bad = run("nope-Kestrel", "100");
    assert_eq!(bad.code, 1, "{}{}", bad.stdout, bad.stderr);
    assert!(
        bad.stderr
            .contains("run_flow's var `SKIP`: the value given is not a boolean")
            && bad.stderr.contains("parent.yaml:5"),
        "{}",
        bad.stderr
    );
    let all = format!("{}{}{}", bad.stdout, bad.stderr, bad.report);
    assert!(!all.contains("Kestrel"), "{all}");
}
