//! Steps that hold steps, end to end: `each` over a list (items filled into a real page, the
//! iteration in names and failures), `group` as one named step with its steps in the console
//! and every report, nesting, and `if`, `timeout`, `continue_on_error` on them.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, write};

/// The names of a report step's steps.
fn names(step: &Value) -> Vec<&str> {
    step["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no steps in {step}"))
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

/// A flow against the TodoMVC fixture app, its todos in `vars.todos`.
fn todo_flow(todos: &str, steps: &str) -> String {
    format!(
        "name: todos\nweb_server: {{ static: \"{}\" }}\nvars:\n  todos: {todos}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{steps}",
        fixture("todomvc").display()
    )
}

/// Fills each todo into the page and checks the list it makes, item by item.
const ADD_TODOS: &str = r#"  - group:
      name: add the todos
      steps:
        - each:
            in: "{{ vars.todos }}"
            as: todo
            steps:
              - fill: { target: ".new-todo", value: "{{ vars.todo }}" }
              - press: Enter
              - expect:
                  count: { target: ".todo-list li", equals: "{{ vars.todo_index + 1 }}" }
                timeout: 2s
"#;

#[test]
fn todos_are_filled_into_a_real_page_in_a_loop() {
    let d = tempfile::tempdir().unwrap();
    let steps = format!(
        "{ADD_TODOS}  - each:\n      in: \"{{{{ vars.todos }}}}\"\n      steps:\n        - expect: {{ text: {{ target: \".todo-list li:nth-child({{{{ vars.item_index + 1 }}}}) label\", equals: \"{{{{ vars.item }}}}\" }} }}\n  - expect: {{ text: {{ target: .todo-count, equals: 3 items left }} }}\n"
    );
    write(
        d.path(),
        "f.yaml",
        &todo_flow("[buy milk, walk the dog, feed the cat]", &steps),
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let flow = &report["flows"][0];
    let group = &flow["steps"][1];
    assert_eq!(
        (&group["name"], &group["action"], &group["conclusion"]),
        (
            &Value::from("add the todos"),
            &Value::from("group"),
            &Value::from("passed")
        ),
        "{group}"
    );
    let each = &group["steps"][0];
    assert_eq!(each["name"], "each todo in vars.todos");
    assert_eq!(each["outputs"]["count"], 3);
    assert_eq!(names(each), ["todo[0]", "todo[1]", "todo[2]"]);
    let third = &each["steps"][2];
    assert_eq!(third["action"], "iteration");
    assert_eq!(third["outputs"]["item"], "feed the cat");
    assert_eq!(third["outputs"]["index"], 2);
    assert_eq!(
        names(third),
        ["fill css `.new-todo`", "press Enter", "expect count"]
    );
    // The page holds what the loop put in it, in order: the second loop read each back.
    let checks = &flow["steps"][2];
    assert_eq!(names(checks), ["item[0]", "item[1]", "item[2]"]);
    assert!(
        checks["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["steps"][0]["conclusion"] == "passed"),
        "{checks}"
    );
}

#[test]
fn a_failing_iteration_fails_the_flow_naming_it_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    // A todo of spaces is not added: the count check of the third iteration fails.
    let steps = format!("{ADD_TODOS}  - log: not reached\n");
    write(
        d.path(),
        "f.yaml",
        &todo_flow(r#"[buy milk, walk the dog, "   "]"#, &steps),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let flow = &report["flows"][0];
    assert_eq!(flow["status"], "failed");
    // The group is the flow's failing step: the step inside that failed, named by the way to
    // it, at its line (the `count` check of the `expect`, line 17 of the flow).
    let steps = flow["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "the step after the group did not run");
    let group = &steps[1];
    assert_eq!(group["conclusion"], "failed");
    let err = &group["error"];
    assert_eq!(err["kind"], "assertion", "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .starts_with("each todo in vars.todos > todo[2] > expect count: "),
        "{err}"
    );
    assert_eq!(err["location"], "f.yaml:17:19", "{err}");
    let each = &group["steps"][0];
    let outcomes: Vec<&Value> = each["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["conclusion"])
        .collect();
    assert_eq!(outcomes, ["passed", "passed", "failed"]);
    // The failed step's screenshot is named after the group, the each and the iteration.
    let shot = each["steps"][2]["steps"][2]["failure_artifacts"]["screenshot"]
        .as_str()
        .unwrap_or_else(|| panic!("no screenshot in {each}"));
    assert!(
        shot.ends_with("002-group.001-each.2.003-expect-failure.png"),
        "{shot}"
    );
    assert!(std::path::Path::new(shot).is_file(), "{shot}");
    // The console says it where the step failed, and in the summary.
    assert!(
        stderr.contains("FAIL todo[2]")
            && stderr.contains("failed at todo[2] > expect count (f.yaml:17:19)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "step `add the todos` at f.yaml:17:19: each todo in vars.todos > todo[2] > expect count: "
        ),
        "{stderr}"
    );
}

#[test]
fn a_group_is_one_step_with_its_steps_in_the_console_and_every_report() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: sign up
steps:
  - group:
      name: fill the form
      steps:
        - log: typing
        - exec: ["true"]
  - group:
      name: submit
      steps:
        - exec: ["true"]
        - exec: ["sh", "-c", "exit 3"]
        - log: not reached
  - log: not reached either
"#,
    );
    let html = d.path().join("html");
    let junit = d.path().join("junit.xml");
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .arg("f.yaml")
        .arg("--report")
        .arg(format!("junit={}", junit.display()))
        .arg("--report")
        .arg(format!("html={}", html.display()))
        .run();
    assert_eq!(code, 1, "{stderr}");
    // The console: the group's name, its steps under it, then its verdict.
    let lines: Vec<&str> = stderr.lines().collect();
    let at = |l: &str| {
        lines
            .iter()
            .position(|x| x.starts_with(l))
            .unwrap_or_else(|| panic!("no line `{l}` in:\n{stderr}"))
    };
    let order = [
        at("  ▸ fill the form"),
        at("    ok log ("),
        at("    ok exec true ("),
        at("  ok fill the form ("),
        at("  ▸ submit"),
        at("    FAIL exec sh -c exit 3 ("),
        at("  FAIL submit ("),
    ];
    assert!(order.is_sorted(), "{order:?}\n{stderr}");
    assert!(
        stderr.contains("      failed at exec sh -c exit 3 (f.yaml:12:11)"),
        "{stderr}"
    );
    // JSON: each group a step of the flow, its steps inside it.
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(
        steps.len(),
        2,
        "the step after the failed group did not run"
    );
    assert_eq!(names(&steps[0]), ["log", "exec true"]);
    assert_eq!(names(&steps[1]), ["exec true", "exec sh -c exit 3"]);
    let err = &steps[1]["error"];
    assert_eq!(
        (&err["kind"], &err["message"], &err["location"]),
        (
            &Value::from("command_failed"),
            &Value::from("exec sh -c exit 3: command exited with code 3"),
            &Value::from("f.yaml:12:11")
        )
    );
    // JUnit: the failure names the group and the step inside it, at that step's line.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(
            "message=\"step `submit` failed: exec sh -c exit 3: command exited with code 3\""
        ) && xml.contains("step 2 `submit` at f.yaml:12:11"),
        "{xml}"
    );
    // HTML: the groups' rows, and their steps' rows indented under them.
    let page = std::fs::read_to_string(html.join("index.html")).unwrap();
    for row in [
        "padding-left:0.5em\">fill the form</td><td>group</td><td>passed",
        "padding-left:2em\">exec true</td><td>exec</td><td>passed",
        "padding-left:0.5em\">submit</td><td>group</td><td>failed",
        "padding-left:2em\">exec sh -c exit 3</td><td>exec</td><td>failed",
    ] {
        assert!(page.contains(row), "no `{row}` in the HTML report");
    }
}

#[test]
fn loops_and_groups_nest_and_a_loops_vars_end_with_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: nested
vars:
  rows: [[1, 2], [3]]
steps:
  - set: { item: outer }
  - each:
      in: "{{ vars.rows }}"
      as: row
      steps:
        - group:
            name: "row {{ vars.row_index }}"
            steps:
              - each:
                  in: "{{ vars.row }}"
                  steps:
                    - id: cell
                      exec: ["echo", "{{ vars.row_index }}.{{ vars.item_index }}={{ vars.item }}"]
  # A step id inside a loop holds its last run's outputs; the item was the flow's var again.
  - expect:
      that: "{{ steps.cell.stdout == '1.0=3' and vars.item == 'outer' and vars.row is not defined }}"
  - id: none
    each:
      in: []
      steps:
        - exec: ["false"]
"#,
    );
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let steps = &report["flows"][0]["steps"];
    let rows = &steps[1];
    assert_eq!(rows["name"], "each row in vars.rows");
    assert_eq!(names(rows), ["row[0]", "row[1]"]);
    assert_eq!(names(&rows["steps"][1]), ["row 1"]);
    let mut cells = Vec::new();
    for row in rows["steps"].as_array().unwrap() {
        let each = &row["steps"][0]["steps"][0];
        assert_eq!(each["name"], "each item in vars.row");
        for it in each["steps"].as_array().unwrap() {
            cells.push(it["steps"][0]["outputs"]["stdout"].as_str().unwrap());
        }
    }
    assert_eq!(cells, ["0.0=1", "0.1=2", "1.0=3"]);
    // Each run of the step keeps its own output file, named after the steps around it.
    let flow_dir = d.path().join("art/001-nested");
    for (file, text) in [
        ("002-each.0.001-group.001-each.0.001-cell.stdout", "0.0=1"),
        ("002-each.0.001-group.001-each.1.001-cell.stdout", "0.1=2"),
        ("002-each.1.001-group.001-each.0.001-cell.stdout", "1.0=3"),
    ] {
        let kept =
            std::fs::read_to_string(flow_dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(kept.trim(), text);
    }
    // An empty list: no iteration, a pass.
    let empty = &steps[3];
    assert_eq!(
        (&empty["conclusion"], &empty["outputs"]["count"]),
        (&Value::from("passed"), &Value::from(0))
    );
    assert!(empty.get("steps").is_none(), "{empty}");
}

#[test]
fn if_timeout_and_continue_on_error_mean_on_them_what_they_mean_on_any_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: keys
steps:
  - if: false
    group:
      name: skipped
      steps:
        - exec: ["false"]
  - continue_on_error: true
    each:
      in: [a, b]
      steps:
        - exec: ["test", "{{ vars.item }}", "=", "a"]
  - timeout: 1s
    continue_on_error: true
    group:
      name: slow
      steps:
        - exec: ["true"]
        - exec: ["sleep", "10"]
  - log: still here
"#,
    );
    let started = std::time::Instant::now();
    let report = flow_run(d.path()).arg("f.yaml").passes();
    // The group's timeout capped its sleep.
    assert!(started.elapsed().as_secs() < 8, "{:?}", started.elapsed());
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4);
    assert_eq!(steps[0]["outcome"], "skipped");
    assert!(steps[0].get("steps").is_none(), "{}", steps[0]);
    let each = &steps[1];
    assert_eq!(
        (&each["outcome"], &each["conclusion"]),
        (&Value::from("failed"), &Value::from("passed"))
    );
    assert!(
        each["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("item[1] > exec test b = a: "),
        "{each}"
    );
    let slow = &steps[2];
    assert_eq!(slow["outcome"], "failed");
    assert_eq!(slow["error"]["kind"], "timeout");
    // The step running when the group's time ran out timed out, at its line, and says why.
    let message = slow["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("exec sleep 10: command timed out after ")
            && message.ends_with("(the `group`'s `timeout` of 1s ran out)"),
        "{message}"
    );
    assert_eq!(slow["error"]["location"], "f.yaml:19:11");
    assert!(slow["duration_ms"].as_u64().unwrap() < 3000, "{slow}");
    assert_eq!(names(slow), ["exec true", "exec sleep 10"]);
    assert_eq!(slow["steps"][1]["error"]["kind"], "timeout");
    assert_eq!(steps[3]["outcome"], "passed");
}

#[test]
fn an_in_that_renders_to_no_list_fails_the_step_at_its_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: not a list
vars:
  todos: buy milk
steps:
  - each:
      in: "{{ vars.todos }}"
      steps:
        - log: x
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    let err = &report["flows"][0]["steps"][0]["error"];
    assert_eq!(
        (&err["kind"], &err["message"], &err["location"]),
        (
            &Value::from("template"),
            &Value::from(
                "`each.in` must be a list, but `{{ vars.todos }}` is a string (\"buy milk\")"
            ),
            &Value::from("f.yaml:6:7")
        )
    );
}

#[test]
fn a_step_retried_inside_a_group_makes_the_flow_flaky_and_the_group_runs_once() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: flaky inside
defaults: { retry: 3 }
steps:
  - group:
      name: once
      steps:
        - exec: { command: "echo run >> group-runs", shell: true }
        - exec:
            command: 'n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $n -ge 2 ]'
            shell: true
"#,
    );
    let junit = d.path().join("junit.xml");
    let report = flow_run(d.path())
        .arg("f.yaml")
        .arg("--report")
        .arg(format!("junit={}", junit.display()))
        .passes();
    let flow = &report["flows"][0];
    assert_eq!(flow["flaky"], true, "{flow}");
    // JUnit keeps the failed attempt of the step inside the group.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<flakyFailure message=\"step `exec n=$(cat count")
            && xml.contains("attempt 1 of 2 failed"),
        "{xml}"
    );
    assert_eq!(report["summary"]["flaky"], 1);
    let group = &flow["steps"][0];
    assert_eq!(
        (&group["attempts"], &group["flaky"]),
        (&Value::from(1), &Value::from(true))
    );
    assert_eq!(group["steps"][1]["attempts"], 2);
    let runs = std::fs::read_to_string(d.path().join("group-runs")).unwrap();
    assert_eq!(runs.lines().count(), 1, "the group ran once");
}

#[test]
fn a_dry_run_lists_the_steps_inside_under_their_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: planned
steps:
  - group:
      name: add todos
      steps:
        - each:
            in: [a, b]
            as: todo
            steps:
              - log: "{{ vars.todo }}"
  - log: done
"#,
    );
    let mut c = crate::common::runner(d.path());
    c.args(["run", "f.yaml", "--dry-run"]);
    let (code, stdout, stderr) = crate::common::output(c);
    assert_eq!(code, 0, "{stderr}");
    let plan = format!("{stdout}{stderr}");
    assert!(
        plan.contains(
            "  1. add todos\n     1.1. each todo in [a, b]\n        1.1.1. log\n  2. log\n"
        ),
        "{plan}"
    );
}
