//! Suites and matrices (issue 26, parts 7 and 8): a file of several flows with shared keys and
//! `before_each` / `after_each`, and a flow's `matrix`; each flow and combination is a test of
//! its own in the console, every report, `--grep`, `--list`, `--shard` and `--retries`, and
//! `validate` points inside the suite.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, output, runner, write};

/// The names and statuses of a report's flows.
fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["flows"]
        .as_array()
        .expect("a report")
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in the file"))
        + 1
}

/// A TodoMVC suite of three flows sharing the app, a var and the steps that open the page and
/// add an item; `counts items` fails (the counter says 2, it expects 5). Each flow's
/// `after_each` reads the counter and writes the flow's name to `after.log`.
fn todo_suite() -> String {
    format!(
        r#"name: todos
web_server: {{ static: "{app}" }}
vars:
  first: buy some cheese
before_each:
  - open: "{{{{ web_server.url }}}}/index.html"
  - fill: {{ target: ".new-todo", value: "{{{{ vars.first }}}}" }}
  - press: Enter
after_each:
  - id: left
    inspect: {{ target: ".todo-count" }}
  - exec: ["sh", "-c", "echo \"$0: $1\" >> after.log", "{{{{ flow.name }}}}", "{{{{ steps.left.text }}}}"]
flows:
  - name: adds an item
    steps:
      - fill: {{ target: ".new-todo", value: feed the cat }}
      - press: Enter
      - expect: {{ count: {{ target: ".todo-list li", equals: 2 }} }}
  - name: counts items
    steps:
      - fill: {{ target: ".new-todo", value: feed the cat }}
      - press: Enter
      - expect: {{ text: {{ target: ".todo-count", equals: 5 items left }} }}
        timeout: 1s
  - name: completes an item
    tags: [smoke]
    steps:
      - check: {{ role: checkbox, text: "Toggle {{{{ vars.first }}}}" }}
      - expect: {{ count: {{ target: ".todo-list li.completed", equals: 1 }} }}
"#,
        app = fixture("todomvc").display()
    )
}

#[test]
fn a_suite_runs_each_flow_as_a_test_with_its_hooks_in_every_report() {
    let d = tempfile::tempdir().unwrap();
    let text = todo_suite();
    write(d.path(), "todos.yaml", &text);
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .args(["todos.yaml", "--format", "github"])
        .args(["--report", "junit=junit.xml", "--report", "html=html"])
        .run();
    assert_eq!(code, 1, "one flow fails: {stderr}");
    assert_eq!(
        verdicts(&report),
        [
            ("todos > adds an item".into(), "passed".into()),
            ("todos > counts items".into(), "failed".into()),
            ("todos > completes an item".into(), "passed".into()),
        ]
    );
    assert_eq!(report["summary"]["total"], 3);
    let file = d.path().join("todos.yaml");
    let expect_line = line_of(&text, "equals: 5 items left");
    let left_line = line_of(&text, "inspect: { target: \".todo-count\" }");
    for f in report["flows"].as_array().unwrap() {
        assert_eq!(f["file"].as_str(), file.to_str(), "{f}");
        let steps = f["steps"].as_array().unwrap();
        let actions: Vec<&str> = steps
            .iter()
            .map(|s| s["action"].as_str().unwrap())
            .collect();
        // before_each first, after_each last (as finally steps: run after a failure too).
        assert_eq!(actions[..3], ["open", "fill", "press"], "{f}");
        assert_eq!(actions[actions.len() - 2..], ["inspect", "exec"], "{f}");
        let after = &steps[steps.len() - 2];
        assert_eq!(
            (after["outcome"].as_str(), after["finally"].as_bool()),
            (Some("passed"), Some(true)),
            "{f}"
        );
        // Each step is located in the suite file: the after_each read on its own line.
        assert_eq!(
            after["location"].as_str(),
            Some(format!("todos.yaml:{left_line}:5").as_str()),
            "{after}"
        );
    }
    let failed = &report["flows"][1];
    let failing = failed["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["outcome"] == "failed")
        .expect("a failed step");
    assert!(
        failing["location"]
            .as_str()
            .is_some_and(|l| l.starts_with(&format!("todos.yaml:{expect_line}:"))),
        "{failing}"
    );
    // after_each ran for each flow, after the failure too, on each flow's own page.
    let log = std::fs::read_to_string(d.path().join("after.log")).unwrap();
    assert_eq!(
        log,
        "todos > adds an item: 2 items left\ntodos > counts items: 2 items left\n\
         todos > completes an item: 0 items left\n"
    );
    // The console names each test; the annotation points at the failing line of the suite.
    assert!(stderr.contains("FAIL todos > counts items"), "{stderr}");
    assert!(
        stderr.contains("ok todos > adds an item passed"),
        "{stderr}"
    );
    assert!(
        stdout.contains(&format!("::error file=todos.yaml,line={expect_line},")),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(d.path().join("junit.xml")).unwrap();
    assert_eq!(junit.matches("<testcase ").count(), 3, "{junit}");
    assert_eq!(junit.matches("<failure ").count(), 1, "{junit}");
    assert!(
        junit.contains("name=\"todos &gt; counts items\"")
            && junit.contains(&format!("at todos.yaml:{expect_line}:")),
        "{junit}"
    );
    let html = std::fs::read_to_string(d.path().join("html/index.html")).unwrap();
    for name in ["adds an item", "counts items", "completes an item"] {
        assert!(
            html.contains(&format!("todos &gt; {name}")),
            "{name} in the HTML report"
        );
    }
}

/// Three exec flows in a suite (no browser): `before_each` and each flow append to `runs`.
const ALPHABET: &str = r#"name: letters
before_each:
  - exec: ["sh", "-c", "echo \"before $0\" >> runs", "{{ flow.name }}"]
flows:
  - name: alpha
    steps:
      - exec: ["sh", "-c", "echo alpha >> runs"]
  - name: beta
    tags: [slow]
    steps:
      - exec: ["sh", "-c", "echo beta >> runs"]
  - name: gamma
    steps:
      - exec: ["sh", "-c", "echo gamma >> runs"]
"#;

#[test]
fn grep_list_shard_and_tags_pick_flows_of_a_suite() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "letters.yaml", ALPHABET);
    write(
        d.path(),
        "solo.yaml",
        "name: solo\nsteps:\n  - exec: \"true\"\n",
    );
    let run = |args: &[&str]| {
        let mut c = runner(d.path());
        c.arg("run").args(args);
        output(c)
    };
    let (code, out, err) = run(&[".", "--list"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "letters.yaml: letters > alpha\nletters.yaml: letters > beta\n\
         letters.yaml: letters > gamma\nsolo.yaml: solo\n"
    );
    let (_, out, _) = run(&[".", "--list", "--grep", "beta|solo"]);
    assert_eq!(out, "letters.yaml: letters > beta\nsolo.yaml: solo\n");
    let (_, out, _) = run(&[".", "--list", "--tag", "slow"]);
    assert_eq!(out, "letters.yaml: letters > beta\n");
    // The shards split the suite's flows; together they are the whole.
    let mut union = Vec::new();
    for i in 1..=2 {
        let (code, out, err) = run(&[".", "--list", "--shard", &format!("{i}/2")]);
        assert_eq!(code, 0, "{err}");
        union.extend(out.lines().map(str::to_string));
    }
    union.sort();
    assert_eq!(union.len(), 4, "{union:?}");
    union.dedup();
    assert_eq!(union.len(), 4, "the shards overlap: {union:?}");
    let (_, first, _) = run(&[".", "--list", "--shard", "1/2"]);
    assert_eq!(
        first,
        "letters.yaml: letters > alpha\nletters.yaml: letters > gamma\n"
    );

    // --grep runs one flow of the suite, with its before_each, and nothing else.
    let Ran { code, report, .. } = flow_run(d.path())
        .args(["letters.yaml", "--grep", "beta"])
        .run();
    assert_eq!(code, 0);
    assert_eq!(
        verdicts(&report),
        [("letters > beta".into(), "passed".into())]
    );
    let runs = std::fs::read_to_string(d.path().join("runs")).unwrap();
    assert_eq!(runs, "before letters > beta\nbeta\n");
}

#[test]
fn retries_run_again_only_the_flow_of_a_suite_that_failed() {
    let d = tempfile::tempdir().unwrap();
    // `flaky` fails on its first run and passes on its second (a file remembers).
    write(
        d.path(),
        "suite.yaml",
        r#"before_each:
  - exec: ["sh", "-c", "echo \"$0\" >> runs", "{{ flow.name }}"]
flows:
  - name: steady
    steps:
      - exec: "true"
  - name: flaky
    steps:
      - exec: { command: "[ $(grep -c '^flaky$' runs) -ge 2 ]", shell: true }
  - name: after
    steps:
      - exec: "true"
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path())
        .args(["suite.yaml", "--retries", "2"])
        .run();
    assert_eq!(code, 0);
    assert_eq!(
        verdicts(&report),
        [
            ("steady".into(), "passed".into()),
            ("flaky".into(), "passed".into()),
            ("after".into(), "passed".into()),
        ]
    );
    let flaky: Vec<bool> = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["flaky"].as_bool().unwrap())
        .collect();
    assert_eq!(flaky, [false, true, false]);
    assert_eq!(
        report["flows"][1]["retry_errors"].as_array().unwrap().len(),
        1
    );
    let runs = std::fs::read_to_string(d.path().join("runs")).unwrap();
    assert_eq!(runs, "steady\nflaky\nflaky\nafter\n");
}

#[test]
fn a_matrix_makes_a_test_of_each_combination_named_by_its_values() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "login.yaml",
        r#"flows:
  - name: login
    vars:
      greeting: "{{ vars.user }} on {{ vars.size }}"
    matrix:
      user: [ada, bob]
      size: [s, m]
      exclude:
        - { user: bob, size: s }
      include:
        - { user: cy, size: xl }
    steps:
      - id: say
        exec: ["echo", "{{ vars.greeting }}"]
  - name: plain
    steps:
      - exec: "true"
"#,
    );
    // `--var` does not change a matrix value (the test's name says it).
    let Ran {
        code,
        report,
        stderr,
        ..
    } = flow_run(d.path())
        .args(["login.yaml", "--var", "user=mallory"])
        .run();
    assert_eq!(code, 0);
    assert!(
        stderr
            .contains("--var user does not change the matrix value of `login [user=ada, size=s]`"),
        "{stderr}"
    );
    let names: Vec<String> = verdicts(&report).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        [
            "login [user=ada, size=s]",
            "login [user=ada, size=m]",
            "login [user=bob, size=m]",
            "login [user=cy, size=xl]",
            "plain"
        ]
    );
    let said: Vec<&str> = report["flows"].as_array().unwrap()[..4]
        .iter()
        .map(|f| f["steps"][0]["outputs"]["stdout"].as_str().unwrap().trim())
        .collect();
    assert_eq!(said, ["ada on s", "ada on m", "bob on m", "cy on xl"]);
    // --grep picks combinations by their values.
    let mut c = runner(d.path());
    c.args(["run", "login.yaml", "--list", "--grep", "size=m"]);
    let (_, out, _) = output(c);
    assert_eq!(
        out,
        "login.yaml: login [user=ada, size=m]\nlogin.yaml: login [user=bob, size=m]\n"
    );
    // A one-flow file takes a matrix too.
    write(
        d.path(),
        "one.yaml",
        "name: one\nmatrix: { n: [1, 2] }\nsteps:\n  - expect: { that: \"{{ vars.n > 0 }}\" }\n",
    );
    let report = flow_run(d.path()).arg("one.yaml").passes();
    assert_eq!(
        verdicts(&report),
        [
            ("one [n=1]".into(), "passed".into()),
            ("one [n=2]".into(), "passed".into())
        ]
    );
}

/// `validate` output as (line, message) pairs, in file order.
fn problems(dir: &std::path::Path, file: &str) -> (i32, Vec<(u64, String)>) {
    let mut c = runner(dir);
    c.args(["validate", file, "--format", "json"]);
    let (code, out, _) = output(c);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let list = v.as_array().unwrap_or_else(|| panic!("a list: {v}"));
    let found = list
        .iter()
        .map(|d| {
            (
                d["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (code, found)
}

#[test]
fn validate_points_inside_the_suite() {
    let d = tempfile::tempdir().unwrap();
    let text = r##"name: shop
vars: { user: ada }
before_each:
  - log: "hi {{ vars.usr }}"
flows:
  - name: one
    steps:
      - log: "{{ vars.user }}"
  - name: two
    steps:
      - log: ok
  - name: three
    steps:
      - clik: "#buy"
      - exec: "echo {{ steps.nope.stdout }}"
  - name: two
    matrix: { size: [] }
    steps:
      - log: x
steps:
  - log: stray
"##;
    write(d.path(), "shop.yaml", text);
    let (code, found) = problems(d.path(), "shop.yaml");
    assert_eq!(code, 2, "{found:?}");
    let lines: Vec<u64> = found.iter().map(|(l, _)| *l).collect();
    let at = |needle: &str| line_of(text, needle) as u64;
    assert_eq!(
        lines,
        [
            at("vars.usr"),
            at("clik"),
            at("steps.nope"),
            at("size: []"),
            at("stray") - 1
        ],
        "{found:?}"
    );
    assert!(found[0].1.contains("unknown var `usr`"), "{found:?}");
    assert!(found[1].1.contains("unknown key `clik`"), "{found:?}");
    assert!(
        found[4].1.contains("`steps` is not allowed here"),
        "{found:?}"
    );
    // The JSON pointer is the file's, inside the suite.
    let mut c = runner(d.path());
    c.args(["validate", "shop.yaml", "--format", "json"]);
    let (_, out, _) = output(c);
    assert!(out.contains("\"/flows/2/steps/1/exec\""), "{out}");
    assert!(out.contains("\"/before_each/0/log\""), "{out}");

    // Two tests of one name, once the matrix is right.
    let fixed = text
        .replace("matrix: { size: [] }", "vars: { x: 1 }")
        .replace("clik", "click")
        .replace("{{ steps.nope.stdout }}", "x")
        .replace("vars.usr", "vars.user")
        .replace("steps:\n  - log: stray\n", "");
    write(d.path(), "shop.yaml", &fixed);
    let (code, found) = problems(d.path(), "shop.yaml");
    assert_eq!(code, 2);
    let second = fixed[..fixed.find("  - name: two\n    vars").unwrap()]
        .matches('\n')
        .count()
        + 1;
    assert_eq!(
        found,
        [(
            second as u64,
            "two tests of this file are named `shop > two`".to_string()
        )]
    );
}

#[test]
fn a_suite_is_no_sub_flow() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "_suite.yaml", ALPHABET);
    write(
        d.path(),
        "main.yaml",
        "name: main\nsteps:\n  - run_flow: _suite.yaml\n",
    );
    let (code, found) = problems(d.path(), "main.yaml");
    assert_eq!(code, 2);
    assert_eq!(
        found,
        [(
            3,
            "sub-flow `_suite.yaml` holds several tests (a suite, or a matrix)".to_string()
        )]
    );
}

#[test]
fn validate_refuses_a_matrix_that_makes_no_tests_or_hides_its_values() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("matrix: {}", "`matrix` must not be empty"),
        (
            "matrix: { user: ada }",
            "`user` must be a list, not the string `ada`",
        ),
        ("matrix: { user: [] }", "`user` must not be empty"),
        (
            "matrix: { user: [ada], exclude: [{ user: ada }] }",
            "the matrix makes no test: `exclude` leaves out every combination",
        ),
        (
            "matrix: { user: [ada], exclude: [{ usr: ada }] }",
            "`matrix.exclude` names `usr`, which is not a key of the matrix",
        ),
        (
            "matrix: { user: [\"{{ env.USER }}\"] }",
            "matrix values are taken as written: templates are not rendered here",
        ),
        (
            "matrix: { user: [a], \"user name\": [a] }",
            "`user name` is not a valid name",
        ),
    ];
    for (matrix, message) in cases {
        // The step reads the matrix's var: no "unknown var" beside the matrix's own problem.
        let text = format!("name: m\n{matrix}\nsteps:\n  - log: \"{{{{ vars.user }}}}\"\n");
        write(d.path(), "m.yaml", &text);
        let (code, found) = problems(d.path(), "m.yaml");
        assert_eq!(code, 2, "{matrix}");
        // (An empty matrix names no var: the step's `user` is unknown indeed.)
        let expected = if matrix == "matrix: {}" { 2 } else { 1 };
        assert_eq!(found.len(), expected, "{matrix}: {found:?}");
        assert_eq!(found[0].0, 2, "{matrix}: {found:?}");
        assert!(found[0].1.starts_with(message), "{matrix}: {found:?}");
    }
}
