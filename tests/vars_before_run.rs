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

/// D2: runner.toml gives `N` the number 5, `a.yaml` declares `N: false`, `b.yaml` reads `N`
/// without declaring it (so runner.toml's number is its type). `--var N=true` was refused for
/// `b.yaml` alone, but with `a.yaml` loaded beside it the check looked at a.yaml's boolean only
/// and `b.yaml` ran with the text `"true"` without a word. Each flow's type is checked now: the
/// run is refused either way, naming the var, where it comes from and the type, not the value.
#[test]
fn an_override_is_checked_against_the_type_each_flow_gets() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "runner.toml", "[vars]\nN = 5\n");
    write(
        d.path(),
        "a.yaml",
        "name: a\nvars: { N: false }\nsteps:\n  - log: \"a: {{ vars.N }}\"\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: b\nsteps:\n  - log: \"b: string {{ vars.N is string }}\"\n",
    );
    for args in [
        vec!["b.yaml", "--var", "N=true"],
        vec!["a.yaml", "b.yaml", "--var", "N=true"],
    ] {
        let ran = flow_run(d.path()).args(&args).run();
        let all = format!("{}{}", ran.stdout, ran.stderr);
        assert_eq!(ran.code, 2, "{args:?}: {all}");
        assert!(
            ran.stderr
                .contains("--var N: the value given is not a number")
                && ran.stderr.contains("runner.toml's `[vars]`"),
            "{args:?}: {all}"
        );
        assert!(!all.contains("b: string true"), "{args:?}: {all}");
        assert!(ran.report.is_null(), "{args:?}: nothing runs");
    }
    // A flow that declares `N` itself takes its own type, whatever runner.toml says.
    flow_run(d.path())
        .args(["a.yaml", "--var", "N=true"])
        .passes();
}

/// D3: a var read undeclared only into a text (`"build {{ vars.BUILD }}"`, a URL, a command)
/// is the same text whatever its type: `--var BUILD=123` is not refused there (it was, exit 2).
/// Where the type matters (a condition, a comparison, a template that is one expression and
/// keeps its value's type) the read is still refused. A sub-flow reading a var its caller
/// passes through `run_flow.vars` declares it (validate asks so): not refused either.
#[test]
fn an_undeclared_read_into_a_text_is_not_refused() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "text.yaml",
        "name: text\nsteps:\n  - log: \"build {{ vars.BUILD }} of {{- vars['APP'] }}\"\n  - exec: \"echo built-{{ vars.BUILD }}\"\n",
    );
    let ran = flow_run(d.path())
        .args(["text.yaml", "--var", "BUILD=123", "--var", "APP=true"])
        .run();
    let all = format!("{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.code, 0, "{all}");
    assert!(all.contains("build 123 oftrue"), "{all}");
    assert!(all.contains("built-123"), "{all}");
    for (flow, text) in [
        ("cond.yaml", "  - log: x\n    if: \"{{ vars.BUILD }}\"\n"),
        ("cmp.yaml", "  - log: \"big {{ vars.BUILD > 100 }}\"\n"),
        ("one.yaml", "  - log: \"{{ vars.BUILD }}\"\n"),
        (
            "block.yaml",
            "  - log: \"{% if vars.BUILD %}y{% endif %}\"\n",
        ),
    ] {
        write(d.path(), flow, &format!("name: {flow}\nsteps:\n{text}"));
        let ran = flow_run(d.path()).args([flow, "--var", "BUILD=123"]).run();
        assert_eq!(ran.code, 2, "{flow}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr
                .contains(&format!("`BUILD` reaches {flow} undeclared")),
            "{flow}: {}",
            ran.stderr
        );
    }
    write(
        d.path(),
        "_n.yaml",
        "name: n\nvars: { N: 1 }\nsteps:\n  - expect: { that: \"{{ vars.N == 3 }}\" }\n",
    );
    write(
        d.path(),
        "caller.yaml",
        "name: caller\nsteps:\n  - run_flow: { path: _n.yaml, vars: { N: 3 } }\n",
    );
    flow_run(d.path())
        .args(["caller.yaml", "--var", "N=3"])
        .passes();
}

/// D4: a var read through a method of `vars` (`vars.get('K')`, `vars.get('K', 1)`) is a read
/// of `K`, and `vars.items()` one of any var: the "not used by any flow" warning said `K` was
/// not used, and the undeclared read of a boolean was not refused (`vars.get('SKIP')` got the
/// text `"false"`, which is true: the check it guards was skipped).
#[test]
fn a_read_through_a_method_of_vars_is_a_read() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "get.yaml",
        "name: get\nsteps:\n  - log: \"{{ vars.get('LIMIT') }} and {{ vars.get(\\\"MAX\\\", 1) }}\"\n",
    );
    write(
        d.path(),
        "items.yaml",
        "name: items\nsteps:\n  - log: \"{% for k, v in vars.items() %}{{ k }} {% endfor %}\"\n",
    );
    for (flow, var) in [
        ("get.yaml", "LIMIT=x"),
        ("get.yaml", "MAX=x"),
        ("items.yaml", "ANY=x"),
    ] {
        let ran = flow_run(d.path()).args([flow, "--var", var]).run();
        assert_eq!(ran.code, 0, "{flow} {var}: {}", ran.stderr);
        assert!(
            !ran.stderr.contains("is not used"),
            "{flow} {var}: {}",
            ran.stderr
        );
    }
    write(
        d.path(),
        "skip.yaml",
        "name: skip\nsteps:\n  - expect: { that: \"{{ false }}\" }\n    if: \"{{ not vars.get('SKIP', false) }}\"\n",
    );
    let ran = flow_run(d.path())
        .args(["skip.yaml", "--var", "SKIP=false"])
        .run();
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("`SKIP` reaches skip.yaml undeclared")
            && ran.stderr.contains("skip.yaml:4:"),
        "{}",
        ran.stderr
    );
}

/// Attack 26 (C17): `vars | attr('SKIP')`, `vars['SK' ~ 'IP']` and a walk of `vars.items()` read
/// an undeclared `--var SKIP=false` as the text `"false"` (so `not` of it skipped the check: a
/// pass), where `vars.SKIP` was refused. A read of `vars` that does not name the var (a
/// computed key, the whole map) where the type matters is refused beside any undeclared
/// override that reads as a boolean or a number; `attr('SKIP')` names `SKIP`.
#[test]
fn a_read_of_vars_that_names_no_var_is_refused_beside_an_undeclared_typed_override() {
    let d = tempfile::tempdir().unwrap();
    let reads = [
        ("attr", "not (vars | attr('SKIP'))"),
        ("key", "not vars['SK' ~ 'IP']"),
        (
            "items",
            "not (vars.items() | selectattr('0','eq','SKIP') | map(attribute='1') | first)",
        ),
    ];
    for (name, read) in reads {
        write(
            d.path(),
            &format!("{name}.yaml"),
            &format!(
                "name: {name}\nsteps:\n  - expect: {{ that: \"{{{{ false }}}}\" }}\n    if: \"{{{{ {read} }}}}\"\n"
            ),
        );
        let flow = format!("{name}.yaml");
        let ran = flow_run(d.path())
            .args([flow.as_str(), "--var", "SKIP=false"])
            .run();
        assert_eq!(ran.code, 2, "{name}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr
                .contains(&format!("`SKIP` reaches {flow} undeclared"))
                && ran.stderr.contains(&format!("{flow}:4:")),
            "{name}: {}",
            ran.stderr
        );
        assert!(ran.report.is_null(), "{name}: nothing runs");
        // Declared, it is the boolean: the check it guards runs, and fails.
        let declared = format!(
            "vars: {{ SKIP: false }}\n{}",
            std::fs::read_to_string(d.path().join(&flow)).unwrap()
        );
        write(d.path(), &flow, &declared);
        let ran = flow_run(d.path())
            .args([flow.as_str(), "--var", "SKIP=false"])
            .run();
        assert_eq!(ran.code, 1, "{name}: {}{}", ran.stdout, ran.stderr);
        // A text that reads as neither stays allowed.
        let ran = flow_run(d.path())
            .args([flow.as_str(), "--var", "OTHER=ann"])
            .run();
        assert_ne!(ran.code, 2, "{name}: {}", ran.stderr);
    }
    // `attr` of one name reads that var, not any: an override of another is not refused.
    let ran = flow_run(d.path())
        .args(["attr.yaml", "--var", "LIMIT=3"])
        .run();
    assert!(!ran.stderr.contains("`LIMIT` reaches"), "{}", ran.stderr);
}

/// A case of [`diagnostics_show_no_cdp_token_nor_a_declared_secret_in_runner_toml`]: what it
/// is, its files, the arguments of `run` and `validate`, what they say.
type Case<'a> = (&'a str, Vec<(&'a str, String)>, Vec<&'a str>, &'a str);

/// B10 (thirteenth attack): the source lines a diagnostic quotes showed a remote browser's token
/// (`cdp` in a flow's `browser:` and in runner.toml) and a declared secret's value written in
/// runner.toml raw, in `run` and `validate`: a diagnostic about a nearby line, or one that
/// quotes the value. Each is masked now, the token as `token=***`.
#[test]
fn diagnostics_show_no_cdp_token_nor_a_declared_secret_in_runner_toml() {
    const TOKEN: &str = "Zq81-Tk77-Pw55-Lm09";
    let cdp = format!("wss://chrome.browserless.io/?token={TOKEN}");
    let flow = "name: diag\nsecrets: [TOK]\nsteps:\n  - exec: [echo, hi]\n";
    let cases: Vec<Case> = vec![
        (
            "a flow's cdp",
            vec![(
                "c.yaml",
                format!(
                    "name: c\nbrowser:\n  cdp: \"{cdp}\"\n  timeout: 15\nsteps:\n  - exec: [echo, hi]\n"
                ),
            )],
            vec!["c.yaml"],
            "token=***",
        ),
        (
            "runner.toml's cdp",
            vec![
                ("f.yaml", flow.to_string()),
                (
                    "runner.toml",
                    format!("[browser]\ncdp = \"{cdp}\"\ntimeot = \"15s\"\n"),
                ),
            ],
            vec!["f.yaml"],
            "token=***",
        ),
        (
            "a secret on runner.toml's line",
            vec![
                ("f.yaml", flow.to_string()),
                ("runner.toml", format!("[vars]\nX = \"{SECRET}\" junk\n")),
            ],
            vec!["f.yaml"],
            "runner.toml",
        ),
        (
            "a secret runner.toml's message quotes",
            vec![
                ("f.yaml", flow.to_string()),
                (
                    "runner.toml",
                    format!("[vars]\nX = \"ok\"\n[browser]\ntimeout = \"{SECRET}\"\n"),
                ),
            ],
            vec!["f.yaml"],
            "invalid duration",
        ),
        (
            "runner.toml's flows, which do not load",
            vec![
                ("f.yaml", flow.to_string()),
                (
                    "runner.toml",
                    format!("flows = [\"f.yaml\"]\n[vars]\nX = \"{SECRET}\" junk\n"),
                ),
            ],
            vec![],
            "runner.toml",
        ),
    ];
    for (what, files, args, want) in cases {
        let d = tempfile::tempdir().unwrap();
        for (name, text) in &files {
            write(d.path(), name, text);
        }
        let ran = flow_run(d.path()).args(&args).env("TOK", SECRET).run();
        let mut c = runner(d.path());
        c.arg("validate").args(&args).env("TOK", SECRET);
        let (code, out, err) = crate::common::output(c);
        for (cmd, code, all) in [
            ("run", ran.code, format!("{}{}", ran.stdout, ran.stderr)),
            ("validate", code, format!("{out}{err}")),
        ] {
            assert_eq!(code, 2, "{what}, {cmd}: {all}");
            assert!(all.contains(want), "{what}, {cmd}: {all}");
            assert!(
                !shows_secret(&all)
                    && !["Zq81", "Tk77", "Pw55", "Lm09"]
                        .iter()
                        .any(|p| all.contains(p)),
                "{what}, {cmd} shows a secret:\n{all}"
            );
        }
    }
}
