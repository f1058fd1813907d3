//! A condition (`if`, `expect.that`) is one expression — bare, or one `{{ expression }}` — and
//! both are read alike. A template with text around or between its expressions renders to
//! text, which any reader of truthiness takes as true: `if: "{{ a }} and {{ b }}"` ran its step
//! whatever `a` and `b` were, while the same text as `that` failed (attack 29, A6, GitHub
//! Actions' `${{ a }} && ${{ b }}` trap). validate refuses it; and `that` no longer reads what
//! its template rendered as code again (`that: "{{ vars.s }}"` with `s: x` was false).

use crate::common::{Ran, flow_run, step, validate, write};

#[test]
fn a_condition_with_text_around_its_expression_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: c
vars: { a: 1, b: 2 }
steps:
  - { if: "{{ vars.a == 5 }} and {{ vars.b == 7 }}", exec: [sh, -c, "touch deployed"] }
  - { if: "{{ false }}{{ false }}", log: two }
  - { if: "x {{ false }}", log: text }
  - expect: { that: "{{ vars.a == 5 }} and {{ vars.b == 7 }}" }
  - expect: { that: "{{ vars.a }} == 1" }
  - { if: " {{ vars.a == 1 }} ", log: "one expression, spaces around" }
  - expect: { that: "{{ vars.a == 1 and vars.b == 2 }}" }
"#,
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    for line in 4..=8 {
        assert!(
            out.contains(&format!("f.yaml:{line}:")),
            "line {line} is named: {out}"
        );
    }
    assert!(
        !out.contains("f.yaml:9:") && !out.contains("f.yaml:10:"),
        "{out}"
    );
    assert_eq!(out.matches("not one expression").count(), 5, "{out}");
    assert!(
        out.contains("{{ vars.a == 5 and vars.b == 7 }}"),
        "the help shows the one expression: {out}"
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nothing was run"), "{stderr}");
    assert!(!d.path().join("deployed").exists(), "{stderr}");
}

/// Each condition, as `if` and as `that`: the step runs exactly when the check holds.
#[test]
fn if_and_that_read_a_condition_alike() {
    let conditions = [
        ("{{ vars.s }}", true),
        ("{{ vars.code }}", true),
        ("{{ vars.f }}", false),
        ("{{ vars.n }}", false),
        ("{{ vars.a == 1 }}", true),
        ("vars.a == 2", false),
        ("{{ 'no' }}", false),
        ("{{ [] }}", false),
    ];
    let mut steps = String::new();
    for (i, (c, _)) in conditions.iter().enumerate() {
        steps.push_str(&format!(
            "  - {{ id: if{i}, if: \"{c}\", log: ran }}\n  - {{ id: that{i}, expect: {{ that: \"{c}\" }}, continue_on_error: true }}\n"
        ));
    }
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: c\nvars: {{ a: 1, s: x, f: \"false\", n: 0, code: \"1 == 2\" }}\nsteps:\n{steps}"
        ),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    for (i, (c, holds)) in conditions.iter().enumerate() {
        let ran = step(&report, &format!("if{i}"))["outcome"].clone();
        let checked = step(&report, &format!("that{i}"))["outcome"].clone();
        let (want_ran, want_checked) = if *holds {
            ("passed", "passed")
        } else {
            ("skipped", "failed")
        };
        assert_eq!(ran, want_ran, "if: {c}\n{stderr}");
        assert_eq!(checked, want_checked, "that: {c}\n{stderr}");
    }
}
