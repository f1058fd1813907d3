//! What runner says about the vars given to it before a run: its errors show no declared
//! secret nor a file's control characters, an override is typed by the flow that reads it (one
//! that reads a boolean or a number it does not declare is refused), the "not used" warning
//! looks at what templates read, and a `.env` `${NAME}` cannot bring a template in.

use std::path::Path;

use crate::common::{flow_run, runner, write};

const SECRET: &str = "Kestrel-Vault-9931";

/// Whether `text` shows any piece of [`SECRET`].
fn shows_secret(text: &str) -> bool {
    ["estrel", "Vault", "9931"].iter().any(|p| text.contains(p))
}

/// A flow that declares the secret `T` and runs a sub-flow whose `PIN` is a number.
fn pin_flows(dir: &Path) {
    write(
        dir,
        "_pin.yaml",
        "name: pin sub\nvars: { PIN: 1234 }\nsteps:\n  - log: \"pin set\"\n",
    );
    write(
        dir,
        "q2.yaml",
        "name: pin q2\nsecrets: [T]\nsteps:\n  - run_flow: _pin.yaml\n",
    );
    write(dir, "ci.env", &format!("PIN={SECRET}\n"));
    write(dir, "exp.env", "PIN=${T}x\n");
    write(dir, "bad.env", &format!("x=\"{SECRET}\n"));
}

/// A3: the type error of an override (by `--var`, a var file, a `${T}` expansion) and a var
/// file's syntax error printed the value of the secret `T` raw; `validate` too.
#[test]
fn errors_before_a_run_show_no_declared_secret() {
    let d = tempfile::tempdir().unwrap();
    pin_flows(d.path());
    let var = format!("PIN={SECRET}");
    for args in [
        vec!["q2.yaml", "--var-file", "ci.env"],
        vec!["q2.yaml", "--var", &var],
        vec!["q2.yaml", "--var-file", "exp.env"],
        vec!["q2.yaml", "--var-file", "bad.env"],
    ] {
        let ran = flow_run(d.path()).args(&args).env("T", SECRET).run();
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        let all = format!("{}{}", ran.stdout, ran.stderr);
        assert!(!shows_secret(&all), "{args:?} shows the secret:\n{all}");
        assert!(all.contains("PIN") || all.contains("bad.env"), "{all}");
    }
    let mut c = runner(d.path());
    c.args(["validate", "q2.yaml", "bad.env"]).env("T", SECRET);
    let (code, out, err) = crate::common::output(c);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.env"), "{err}");
    assert!(!shows_secret(&format!("{out}{err}")), "{out}{err}");
}

/// Two flows: `a.yaml` declares `SKIP: false`; `b.yaml` reads `vars.SKIP` without declaring
/// it, and skips a failing check when it is false.
fn skip_flows(dir: &Path) {
    write(
        dir,
        "a.yaml",
        "name: a declares\nvars: { SKIP: false }\nsteps:\n  - log: \"a: SKIP={{ vars.SKIP }}\"\n",
    );
    write(
        dir,
        "b.yaml",
        "name: b reads\nsteps:\n  - log: \"b reads\"\n  - expect: { that: \"{{ false }}\" }\n    if: \"{{ not vars.SKIP }}\"\n",
    );
}

/// A2: `--var SKIP=false` was the boolean in b.yaml when a.yaml was loaded too, and the text
/// `"false"` (so the failing check was skipped: a pass) when b.yaml was run alone. Now b.yaml is
/// refused either way, at the line that reads it; a plain text stays allowed.
#[test]
fn an_undeclared_read_of_a_boolean_or_number_override_is_refused() {
    let d = tempfile::tempdir().unwrap();
    skip_flows(d.path());
    for args in [
        vec!["b.yaml", "--var", "SKIP=false"],
        vec!["a.yaml", "b.yaml", "--var", "SKIP=false"],
        vec!["b.yaml", "--var", "SKIP=3"],
    ] {
        let ran = flow_run(d.path()).args(&args).run();
        assert_eq!(ran.code, 2, "{args:?}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr.contains("`SKIP` reaches b.yaml undeclared"),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(ran.stderr.contains("b.yaml:5:"), "{args:?}: {}", ran.stderr);
        assert!(ran.report.is_null(), "{args:?}: nothing runs");
    }
    // A text that reads as neither is the text it is, whatever flows are loaded.
    let ran = flow_run(d.path())
        .args(["b.yaml", "--var", "SKIP=yes please"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The declaring flow alone takes its own type.
    flow_run(d.path())
        .args(["a.yaml", "--var", "SKIP=true"])
        .passes();
}

/// A2: the type is the reading flow's own: with `n.yaml` (which declares `N: 5`) loaded beside
/// it, `t.yaml`, which declares `N` a text, got `--var N=7` as the number 7 (the run's typing
/// was one for all flows).
#[test]
fn each_flow_types_an_override_by_its_own_declaration() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "n.yaml",
        "name: n\nvars: { N: 5 }\nsteps:\n  - log: \"n: number {{ vars.N is number }}\"\n",
    );
    write(
        d.path(),
        "t.yaml",
        "name: t\nvars: { N: \"five\" }\nsteps:\n  - log: \"t: string {{ vars.N is string }}\"\n",
    );
    let ran = flow_run(d.path())
        .args(["n.yaml", "t.yaml", "--var", "N=7"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert!(all.contains("n: number true"), "{all}");
    assert!(all.contains("t: string true"), "{all}");
}

/// A4: `--var BASE` when a sub-flow reads `vars.BASE_URL`, and `--var LIMIT` when only a
/// comment says `vars.LIMIT`, reach no flow: each is warned about (it was not: a substring).
#[test]
fn a_var_only_a_longer_name_or_a_comment_holds_is_not_used() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_api.yaml",
        "name: api check\nvars: { BASE_URL: \"http://127.0.0.1:1\" }\nsteps:\n  - log: \"checking {{ vars.BASE_URL }}\"\n",
    );
    write(
        d.path(),
        "prefix.yaml",
        "name: prefix\nsteps:\n  - run_flow: _api.yaml\n",
    );
    write(
        d.path(),
        "comment.yaml",
        "name: comment\n# LIMIT used to be read here as vars.LIMIT\nsteps:\n  - log: \"nothing reads it\"\n",
    );
    for (flow, var) in [
        ("prefix.yaml", "BASE=http://staging.example"),
        ("comment.yaml", "LIMIT=x"),
    ] {
        let ran = flow_run(d.path()).args([flow, "--var", var]).run();
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let name = var.split('=').next().unwrap_or_default();
        assert!(
            ran.stderr
                .contains(&format!("--var {name} is not used by any flow")),
            "{flow}: {}",
            ran.stderr
        );
    }
    // A var read, declared or not, by name or by subscript, is used: no warning.
    write(
        d.path(),
        "sub.yaml",
        "name: sub\nsteps:\n  - log: \"{{ vars['LIMIT'] }}\"\n",
    );
    for (flow, var) in [
        ("prefix.yaml", "BASE_URL=http://x"),
        ("sub.yaml", "LIMIT=x"),
    ] {
        let ran = flow_run(d.path()).args([flow, "--var", var]).run();
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(!ran.stderr.contains("is not used"), "{}", ran.stderr);
    }
}

/// A9: a `.env` `${EVIL}` whose value in the environment is a template brought `{{ 7*7 }}`
/// into the flow's var; it is refused as one written in the file is.
#[test]
fn an_expanded_template_in_a_var_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "inj.yaml",
        "name: inj\nvars: { X: \"default\" }\nsteps:\n  - log: \"X={{ vars.X }}\"\n",
    );
    write(d.path(), "inj.env", "X=${EVIL}\n");
    let ran = flow_run(d.path())
        .args(["inj.yaml", "--var-file", "inj.env"])
        .env("EVIL", "{{ 7*7 }}")
        .run();
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains("`X`"), "{}", ran.stderr);
    assert!(!ran.stdout.contains("X={{"), "{}", ran.stdout);
}

/// A10: a var file's or flow file's escape sequences (OSC title, clear screen, BEL, NUL) were
/// printed raw in the diagnostic that quotes its line.
#[test]
fn diagnostics_print_no_control_characters() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.yaml", "name: ok\nsteps:\n  - log: \"hi\"\n");
    write(d.path(), "esc.env", "A=\"x\u{1b}]0;PWNED\u{7}\u{1b}[2J y\n");
    write(d.path(), "nul.env", "A=\"x\u{0}y\n");
    write(
        d.path(),
        "esc.yaml",
        "name: e\nsteps:\n  - log: \"\u{1b}[2Jhi\n  - bogus: 1\n",
    );
    let raw = |t: &str| t.contains(['\u{1b}', '\u{7}', '\u{0}', '\u{9b}']);
    for env in ["esc.env", "nul.env"] {
        let ran = flow_run(d.path())
            .args(["ok.yaml", "--var-file", env])
            .run();
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(env), "{}", ran.stderr);
        assert!(!raw(&ran.stderr), "{env}: {:?}", ran.stderr);
    }
    let mut c = runner(d.path());
    c.args(["validate", "esc.yaml"]);
    let (code, out, err) = crate::common::output(c);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("esc.yaml"), "{err}");
    assert!(!raw(&format!("{out}{err}")), "{err:?}");
}
