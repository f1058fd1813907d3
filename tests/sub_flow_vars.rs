//! The run's vars (`--var`, `--var-file`, runner.toml's `[vars]`) reach every flow of the run,
//! sub-flows at any depth included, as they reach a top-level flow; a caller's `run_flow.vars`
//! entry wins over them for its call, and runner says so once per var and call site.

use std::path::Path;

use crate::common::{Ran, flow_run, write};

/// A sub-flow that checks `300 <= vars.MAX_MS` (its own `MAX_MS` is 500), one that reads a
/// `LIMIT` it does not declare (500 when none is given), and callers of each.
fn sub_flows(dir: &Path) {
    write(
        dir,
        "_sub.yaml",
        "name: sub check\nvars: { MAX_MS: 500 }\nsteps:\n  - id: c\n    exec: [\"echo\", \"300\"]\n  - expect: { that: \"{{ (steps.c.stdout | int) <= vars.MAX_MS }}\" }\n",
    );
    write(
        dir,
        "parent.yaml",
        "name: parent\nsteps:\n  - run_flow: _sub.yaml\n",
    );
    write(
        dir,
        "_open.yaml",
        "name: sub reads an undeclared var\nsteps:\n  - log: \"limit is {{ vars.LIMIT | default('unset') }}\"\n  - expect: { that: \"{{ 300 <= (vars.LIMIT | default(500)) }}\" }\n",
    );
    write(
        dir,
        "open.yaml",
        "name: open\nsteps:\n  - run_flow: _open.yaml\n",
    );
}

fn fails_against_100(ran: &Ran, what: &str) {
    assert_eq!(ran.code, 1, "{what}: {}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("is 100") || ran.stdout.contains("limit is 100"),
        "{what}: {}{}",
        ran.stdout,
        ran.stderr
    );
    assert!(
        !ran.stderr.contains("is not used by any flow"),
        "{what}: {}",
        ran.stderr
    );
}

/// `--var MAX_MS=100`, a var file's `MAX_MS=100` and runner.toml's `[vars]` reach the sub-flow
/// a flow runs: each run fails against 100 (the sub-flow checked against its own 500 and the
/// run passed, and no warning said the value was not used).
#[test]
fn the_runs_vars_reach_a_sub_flow() {
    let d = tempfile::tempdir().unwrap();
    sub_flows(d.path());
    flow_run(d.path()).arg("parent.yaml").passes();
    flow_run(d.path()).arg("open.yaml").passes();
    let (flow, var) = ("parent.yaml", "MAX_MS");
    let by_flag = flow_run(d.path())
        .args([flow, "--var", &format!("{var}=100")])
        .run();
    fails_against_100(&by_flag, &format!("{flow} --var {var}"));
    write(d.path(), "ci.env", &format!("{var}=100\n"));
    let by_file = flow_run(d.path())
        .args([flow, "--var-file", "ci.env"])
        .run();
    fails_against_100(&by_file, &format!("{flow} --var-file"));
    // A sub-flow that reads `LIMIT` without declaring it would get the text "100": refused,
    // at its read, by `--var` and by a var file alike.
    write(d.path(), "ci.env", "LIMIT=100\n");
    for given in [["--var", "LIMIT=100"], ["--var-file", "ci.env"]] {
        let ran = flow_run(d.path()).arg("open.yaml").args(given).run();
        assert_eq!(ran.code, 2, "{given:?}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr.contains("_open.yaml:3:")
                && ran.stderr.contains("`LIMIT` reaches _open.yaml undeclared"),
            "{given:?}: {}",
            ran.stderr
        );
    }
    // runner.toml's `[vars]` are vars every flow has, sub-flows too (a flow's own win, as at
    // the top level: `_sub.yaml`'s `MAX_MS: 500` stays).
    write(
        d.path(),
        "runner.toml",
        "[vars]\nLIMIT = 100\nMAX_MS = 100\n",
    );
    let project = flow_run(d.path()).arg("open.yaml").run();
    fails_against_100(&project, "open.yaml with runner.toml");
    flow_run(d.path()).arg("parent.yaml").passes();
}

/// An override of a boolean or a number a sub-flow declares takes its type: `--var
/// SKIP=false` is the boolean false in the sub-flow, `--var MAX_MS=100` the number; a text that
/// does not read as the type is refused before any flow runs, naming the sub-flow.
#[test]
fn an_override_takes_the_type_a_sub_flow_declares() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_g.yaml",
        "name: gate\nvars: { SKIP: true, MAX_MS: 5000 }\nsteps:\n  - id: c\n    exec: [\"echo\", \"900\"]\n  - if: \"{{ not vars.SKIP }}\"\n    expect: { that: \"{{ (steps.c.stdout | int) <= vars.MAX_MS }}\" }\n",
    );
    write(
        d.path(),
        "p.yaml",
        "name: p\nsteps:\n  - run_flow: _g.yaml\n",
    );
    flow_run(d.path()).arg("p.yaml").passes();
    let ran = flow_run(d.path())
        .args(["p.yaml", "--var", "SKIP=false", "--var", "MAX_MS=100"])
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("the right side `vars.MAX_MS` is 100"),
        "{}",
        ran.stderr
    );
    let bad = flow_run(d.path())
        .args(["p.yaml", "--var", "SKIP=nope"])
        .run();
    assert_eq!(bad.code, 2, "{}{}", bad.stdout, bad.stderr);
    // The value given is not shown (it may be a secret): the var, where it comes from, the type.
    assert!(
        bad.stderr
            .contains("--var SKIP: the value given is not a boolean")
            && bad.stderr.contains("_g.yaml")
            && !bad.stderr.contains("nope"),
        "{}",
        bad.stderr
    );
}

/// A caller's `run_flow.vars` entry is its argument: it wins over `--var` for that call (the
/// other call of the same sub-flow gets the override), and runner says so once per var and
/// call site, with the place of the entry and no value.
#[test]
fn a_callers_run_flow_var_wins_and_runner_says_so() {
    let d = tempfile::tempdir().unwrap();
    sub_flows(d.path());
    write(
        d.path(),
        "wins.yaml",
        "name: wins\nsteps:\n  - each:\n      in: [1, 2, 3]\n      steps:\n        - run_flow: { path: _sub.yaml, vars: { MAX_MS: 1000 } }\n",
    );
    let ran = flow_run(d.path())
        .args(["wins.yaml", "--var", "MAX_MS=123"])
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let warning = "--var MAX_MS is not applied to _sub.yaml at wins.yaml:6:";
    assert_eq!(ran.stderr.matches(warning).count(), 1, "{}", ran.stderr);
    let line = ran.stderr.lines().find(|l| l.contains(warning)).unwrap();
    assert!(!line.contains("123"), "{line}");
    // The same sub-flow called without the var gets the override, in the same run.
    write(
        d.path(),
        "both.yaml",
        "name: both\nsteps:\n  - run_flow: { path: _sub.yaml, vars: { MAX_MS: 1000 } }\n  - run_flow: _sub.yaml\n",
    );
    write(d.path(), "ci.env", "MAX_MS=100\n");
    let ran = flow_run(d.path())
        .args(["both.yaml", "--var-file", "ci.env"])
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("the right side `vars.MAX_MS` is 100"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains(
            "`MAX_MS` of the var file ci.env is not applied to _sub.yaml at both.yaml:3:"
        ),
        "{}",
        ran.stderr
    );
}

/// A sub-flow of a sub-flow gets the run's vars too, and its caller's entry wins there as well.
#[test]
fn the_runs_vars_reach_a_sub_flow_of_a_sub_flow() {
    let d = tempfile::tempdir().unwrap();
    sub_flows(d.path());
    write(
        d.path(),
        "_mid.yaml",
        "name: mid\nsteps:\n  - run_flow: _sub.yaml\n",
    );
    write(
        d.path(),
        "top.yaml",
        "name: top\nsteps:\n  - run_flow: _mid.yaml\n",
    );
    flow_run(d.path()).arg("top.yaml").passes();
    let ran = flow_run(d.path())
        .args(["top.yaml", "--var", "MAX_MS=100"])
        .run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("the right side `vars.MAX_MS` is 100"),
        "{}",
        ran.stderr
    );
    write(
        d.path(),
        "_mid.yaml",
        "name: mid\nsteps:\n  - log: mid\n  - run_flow: { path: _sub.yaml, vars: { MAX_MS: 1000 } }\n",
    );
    let ran = flow_run(d.path())
        .args(["top.yaml", "--var", "MAX_MS=100"])
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr
            .contains("--var MAX_MS is not applied to _sub.yaml at _mid.yaml:4:"),
        "{}",
        ran.stderr
    );
    // A var no flow of any depth declares or reads is still said to be unused.
    let ran = flow_run(d.path())
        .args(["top.yaml", "--var", "MAXX=100"])
        .run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("--var MAXX is not used by any flow"),
        "{}",
        ran.stderr
    );
}
