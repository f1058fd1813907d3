//! What a sub-flow (a flow `run_flow` runs) does with each top-level key of a flow: those it
//! honours are shown to work here; those it cannot (it runs in its caller's browser, with its
//! caller's servers) are refused by `validate` and `run` at the `run_flow` that runs it, never
//! parsed and ignored. (`web_server`: `server_checks`; `matrix` and suites: `suites`.)

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, validate, write};

/// A sub-flow's `browser:` settings other than `timeout` would never reach its caller's
/// browser context: refused where it is run, as its `web_server` is.
#[test]
fn a_sub_flows_browser_settings_are_refused_where_it_is_run() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nbrowser:\n  timeout: 5s\n  viewport: { width: 400, height: 300 }\n  locale: de-DE\nsteps:\n  - log: x\n",
    );
    write(
        d.path(),
        "f.yaml",
        "name: caller\nsteps:\n  - log: first\n  - run_flow: _sub.yaml\n",
    );
    let viewport = "f.yaml:4:15: error: sub-flow `_sub.yaml` sets `browser.viewport` (_sub.yaml:4:3), which is not applied: a sub-flow runs in its caller's browser";
    let locale = "f.yaml:4:15: error: sub-flow `_sub.yaml` sets `browser.locale` (_sub.yaml:5:3)";
    let (code, out) = validate(d.path());
    assert_eq!(code, 2, "{out}");
    assert!(out.contains(viewport), "{out}");
    assert!(out.contains(locale), "{out}");
    assert!(
        out.contains("set it in the calling flow or runner.toml's [browser]"),
        "{out}"
    );
    // `browser.timeout` is the sub-flow's own (its browser steps' timeout): not refused.
    assert!(!out.contains("`browser.timeout`"), "{out}");
    // `run` refuses it the same way, before any step.
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(viewport), "{stderr}");
    // The project's `[browser]` settings fill every flow's, a sub-flow's too: not the
    // sub-flow's own, not refused.
    write(d.path(), "_sub.yaml", "name: sub\nsteps:\n  - log: x\n");
    write(
        d.path(),
        "runner.toml",
        "[browser]\nlocale = \"de-DE\"\nviewport = { width = 700, height = 500 }\n",
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 0, "{out}");
}

/// A sub-flow's own `browser.timeout` bounds its browser steps (not the caller's 15 s).
#[test]
fn a_sub_flows_browser_timeout_is_its_own() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nbrowser: { timeout: 1s }\nsteps:\n  - id: never\n    wait: { for: \"#never\" }\n",
    );
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: caller\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/gaps/forms.html\"\n  - id: sub\n    run_flow: _sub.yaml\n",
            fixture("").display()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report}");
    let never = &report["flows"][0]["steps"][1]["steps"][0];
    assert_eq!(never["outcome"], "failed", "{never}");
    let message = never["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("timed out"), "{message}");
    let ms = never["duration_ms"].as_u64().unwrap_or(u64::MAX);
    assert!(ms < 5000, "took {ms} ms: {never}");
}

/// The keys a sub-flow honours: its `vars` (set by the caller's `run_flow.vars`), `secrets`
/// (masked in the caller too), `env` (its `exec` steps get its own, not the caller's: its own
/// scope), `defaults` (its steps' timeout), `finally` and `outputs`.
#[test]
fn a_sub_flow_honours_its_vars_secrets_env_defaults_finally_and_outputs() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        r#"name: sub
vars: { greeting: hello, who: nobody }
secrets: [SUB_TOKEN]
env: { SUB_ENV: "{{ vars.greeting }} {{ vars.who }}" }
defaults: { timeout: 1s }
steps:
  - id: env
    exec: [sh, -c, 'printf %s "$SUB_ENV$CALLER_ENV"']
  - id: slow
    exec: [sleep, "5"]
    continue_on_error: true
finally:
  - exec: [sh, -c, 'printf done > finally.txt']
outputs:
  env: "{{ steps.env.stdout }}"
  token: "{{ secrets.SUB_TOKEN }}"
"#,
    );
    write(
        d.path(),
        "f.yaml",
        r#"name: caller
env: { CALLER_ENV: " from the caller" }
steps:
  - id: sub
    run_flow: { path: _sub.yaml, vars: { who: caller } }
  - id: seen
    exec: [printf, "%s|%s", "{{ steps.sub.env }}", "{{ steps.sub.token }}"]
"#,
    );
    let (code, out) = validate(d.path());
    assert_eq!(code, 0, "{out}");
    let Ran { code, report, .. } = flow_run(d.path())
        .env("SUB_TOKEN", "s3cr3t-value")
        .arg("f.yaml")
        .run();
    assert_eq!(code, 0, "{report}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(
        steps[1]["outputs"]["stdout"],
        Value::from("hello caller|***"),
        "{report}"
    );
    let slow = &steps[0]["steps"][1];
    assert_eq!(slow["outcome"], "failed", "{slow}");
    assert!(
        slow["duration_ms"].as_u64().unwrap_or(u64::MAX) < 4000,
        "{slow}"
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("finally.txt")).unwrap_or_default(),
        "done"
    );
    assert!(!report.to_string().contains("s3cr3t-value"), "{report}");
}
