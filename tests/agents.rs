//! Agent steps end to end with fake agent executables (tests/fake-agents/fake-agent) that emit
//! each CLI's real event format, run through the same profile code real users run.

use std::path::Path;

use base64::Engine;
use std::process::Command;

use serde_json::Value;

use crate::common::{FlowRun, Ran, fixture, flow_run, output, root, runner, step, write};

/// The runner with the fake agents on PATH, a private HOME and a record directory.
fn agent_runner(dir: &Path) -> Command {
    let mut c = runner(dir);
    agent_env(&mut c, dir);
    c
}

/// Puts the fake agents on PATH, with a private HOME and a record directory.
pub(crate) fn agent_env(c: &mut Command, dir: &Path) {
    let path = format!(
        "{}:{}",
        root().join("tests/fake-agents").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::fs::create_dir_all(dir.join("home")).unwrap();
    c.env("PATH", path)
        .env("HOME", dir.join("home"))
        .env("FAKE_AGENT_RECORD", dir.join("rec"));
}

/// The records the fake agents wrote, oldest first.
fn records(dir: &Path) -> Vec<Value> {
    let mut out: Vec<(std::time::SystemTime, Value)> = std::fs::read_dir(dir.join("rec"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .map(|e| {
                    let t = e.metadata().unwrap().modified().unwrap();
                    (
                        t,
                        serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by_key(|(t, _)| *t);
    out.into_iter().map(|(_, v)| v).collect()
}

fn flow(steps: &str) -> String {
    format!("name: agents\nsteps:\n{steps}")
}

pub(crate) fn with_profiles(args: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(std::string::ToString::to_string).collect();
    v.push("--profiles".into());
    v.push(fixture("profiles").display().to_string());
    v
}

/// A run of `file` with the fake agents and their profiles.
fn agents_run(dir: &Path, file: &str) -> FlowRun {
    flow_run(dir)
        .with(|c| agent_env(c, dir))
        .args(with_profiles(&[file]))
}

#[test]
fn env_stdin_and_session_id_format() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: review
    agent: { profile: fake-claude, prompt: "Review the code, please", env: { STEP_VAR: from-step } }
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let out = &step(&report, "review")["outputs"];
    let rec = &records(d.path())[0];
    // The prompt goes to stdin, never into argv.
    assert_eq!(rec["stdin"], "Review the code, please");
    assert!(!rec["argv"].to_string().contains("Review the code"));
    assert_eq!(
        rec["cwd"],
        d.path().canonicalize().unwrap().display().to_string()
    );
    let env = &rec["env"];
    let project =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(d.path().display().to_string());
    assert_eq!(env["NORMALIZED_EXECUTION_KIND"], "new");
    assert_eq!(env["NORMALIZED_EXECUTION_PROFILE"], "fake-claude");
    assert_eq!(
        env["NORMALIZED_EXECUTION_PROJECT_ID"],
        format!("FAKE_CLAUDE:{project}")
    );
    assert_eq!(env["NORMALIZED_EXECUTION_ACTUAL_PROJECT_ID"], project);
    assert_eq!(
        env["NORMALIZED_EXECUTION_WORKSPACE"],
        d.path().display().to_string()
    );
    assert!(env.get("NORMALIZED_EXECUTION_VARIANT").is_none());
    assert_eq!(env["NODE_NO_WARNINGS"], "1");
    assert_eq!(env["FAKE_PROFILE_ENV"], "from-profile");
    assert_eq!(env["STEP_VAR"], "from-step");
    // Claude's id is assigned up front and is the one the agent reports.
    let sid = out["session_id"].as_str().unwrap();
    assert_eq!(
        sid,
        format!("FAKE_CLAUDE:{project}:{}", rec["session"].as_str().unwrap())
    );
    assert_eq!(env["NORMALIZED_EXECUTION_SESSION_ID"], sid);
    assert!(rec["argv"].to_string().contains(&format!(
        "--session-id={}",
        rec["session"].as_str().unwrap()
    )));
    assert_eq!(out["result"], "echo: Review the code, please");
    assert_eq!(out["cost_usd"], 0.0123);
    assert_eq!(out["exit_code"], 0);
    let log = std::fs::read_to_string(out["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("\"type\": \"result\""));
    assert!(
        stderr.contains(&format!("[execution:{sid}] {{\"type\": \"system\"")),
        "{stderr}"
    );
}

#[test]
fn follow_ups_pass_the_id_in_each_kinds_form_and_run_in_the_same_directory() {
    let forms = [
        ("claude", "--resume={id}"),
        ("cursor", "--resume {id}"),
        ("codex", "resume {id}"),
        ("gemini", "--resume {id}"),
        ("opencode", "--session {id}"),
    ];
    for (kind, form) in forms {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("ws")).unwrap();
        write(
            d.path(),
            "f.yaml",
            &flow(&format!(
                r#"
  - id: first
    agent: {{ profile: fake-{kind}, prompt: start, workspace: ws, variant: hang, timeout: 2s }}
    continue_on_error: true
  - id: one
    agent: {{ profile: fake-{kind}, prompt: start, workspace: ws }}
  - id: two
    agent: {{ profile: fake-{kind}, follow_up: one, message: "and now tests" }}
"#
            )),
        );
        let Ran {
            code,
            stderr,
            report,
            ..
        } = agents_run(d.path(), "f.yaml").run();
        assert_eq!(code, 0, "{kind}: {stderr}");
        let recs = records(d.path());
        let (first, follow) = (&recs[recs.len() - 2], &recs[recs.len() - 1]);
        let id = first["session"].as_str().unwrap();
        let argv: Vec<String> = follow["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        assert!(
            argv.join(" ").contains(&form.replace("{id}", id)),
            "{kind}: {argv:?}"
        );
        assert_eq!(follow["cwd"], first["cwd"], "{kind}");
        assert!(follow["cwd"].as_str().unwrap().ends_with("/ws"));
        assert_eq!(follow["env"]["NORMALIZED_EXECUTION_KIND"], "follow-up");
        assert_eq!(follow["stdin"], "and now tests");
        assert_eq!(
            step(&report, "two")["outputs"]["session_id"],
            step(&report, "one")["outputs"]["session_id"],
            "{kind}"
        );
        assert!(
            step(&report, "one")["outputs"]["session_id"]
                .as_str()
                .unwrap()
                .ends_with(&format!(":{id}")),
            "{kind}"
        );
        // The variant's env and label reached the first agent (2 s: a fake agent started on a
        // busy machine has written its record by then).
        assert_eq!(recs[0]["env"]["NORMALIZED_EXECUTION_VARIANT"], "hang");
    }
}

#[test]
fn gemini_session_id_from_a_late_session_file_and_the_minted_fallback() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: late
    agent: { profile: fake-gemini, prompt: hi, env: { FAKE_AGENT_MODE: late-session-file } }
  - id: none
    agent: { profile: fake-codex, prompt: hi, env: { FAKE_AGENT_MODE: no-session } }
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let recs = records(d.path());
    let late = step(&report, "late")["outputs"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        late.starts_with("FAKE_GEMINI:")
            && late.ends_with(&format!(":{}", recs[0]["session"].as_str().unwrap())),
        "{late}"
    );
    // No id anywhere: the minted one, in the same format.
    let none = step(&report, "none")["outputs"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let parts: Vec<&str> = none.splitn(3, ':').collect();
    assert_eq!(parts[0], "FAKE_CODEX");
    assert_ne!(parts[2], recs[1]["session"].as_str().unwrap());
    assert_eq!(parts[2].len(), 36, "a minted UUID: {none}");
}

#[test]
fn a_hanging_agent_is_killed_at_its_timeout_with_its_grandchild() {
    for mode in ["grandchild", "ignore-term,grandchild"] {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "f.yaml",
            &flow(&format!(
                r#"
  - id: stuck
    agent: {{ profile: fake-opencode, prompt: hi, timeout: 1s, env: {{ FAKE_AGENT_MODE: "{mode}" }} }}
"#
            )),
        );
        let Ran {
            code,
            stderr,
            report,
            ..
        } = agents_run(d.path(), "f.yaml").run();
        assert_eq!(code, 1, "{stderr}");
        assert_eq!(step_at(&report, 0)["error"]["kind"], "timeout");
        let gc: i32 = crate::common::read_pid(&d.path().join("rec/grandchild.pid"));
        assert!(
            !crate::common::pid_alive(gc),
            "{mode}: grandchild {gc} outlived the step"
        );
    }
}

fn step_at(report: &Value, i: usize) -> &Value {
    &report["flows"][0]["steps"][i]
}

#[test]
fn background_agents_are_stopped_by_stop_agent_or_at_the_end_of_the_flow() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: bg
    agent: { profile: fake-codex, prompt: work, background: true, env: { FAKE_AGENT_MODE: grandchild } }
  - exec: { command: 'until [ -f rec/grandchild.pid ]; do sleep 0.05; done; cp rec/grandchild.pid first.pid', shell: true }
  - id: refused
    agent: { profile: fake-codex, follow_up: bg, message: more }
    continue_on_error: true
  - id: stop
    stop_agent: bg
  - exec: { command: 'rm rec/grandchild.pid', shell: true }
  - id: forgotten
    agent: { profile: fake-codex, prompt: work, background: true, env: { FAKE_AGENT_MODE: grandchild } }
  - exec: { command: 'until [ -f rec/grandchild.pid ]; do sleep 0.05; done', shell: true }
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let bg = step(&report, "bg")["outputs"].clone();
    assert!(
        bg["session_id"]
            .as_str()
            .unwrap()
            .starts_with("FAKE_CODEX:")
    );
    let refused = step(&report, "refused");
    assert_eq!(refused["outcome"], "failed");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is still running"),
        "{refused}"
    );
    assert_eq!(step(&report, "stop")["outputs"]["stopped"], true);
    let first: i32 = crate::common::read_pid(&d.path().join("first.pid"));
    let second: i32 = crate::common::read_pid(&d.path().join("rec/grandchild.pid"));
    assert!(!crate::common::pid_alive(first), "stop_agent left {first}");
    assert!(
        !crate::common::pid_alive(second),
        "the flow's end left {second}"
    );
}

#[test]
fn ctrl_c_leaves_no_agent_process() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - agent: { profile: fake-claude, prompt: hi, env: { FAKE_AGENT_MODE: "ignore-term,grandchild" } }
"#,
        ),
    );
    let mut c = agent_runner(d.path());
    c.args(with_profiles(&["run", "f.yaml"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = c.spawn().unwrap();
    let pidfile = d.path().join("rec/grandchild.pid");
    crate::common::wait_for_file(&pidfile);
    let gc: i32 = crate::common::read_pid(&pidfile);
    crate::common::interrupt(child);
    // Killed as runner ends (a SIGKILL is delivered, not waited for: a loaded machine may take
    // a moment to end it).
    assert!(
        crate::common::all_gone(&[gc]),
        "grandchild {gc} outlived runner"
    );
}

#[test]
fn secrets_are_masked_in_the_relay_and_the_log() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: s\nsecrets: [FAKE_SECRET]\nsteps:\n{}",
            r#"
  - id: a
    agent: { profile: fake-cursor, prompt: hi, env: { FAKE_AGENT_MODE: secret } }
"#
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml")
        .env("FAKE_SECRET", "hunter2-agent-secret")
        .run();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("debug token ***"), "{stderr}");
    assert!(!stderr.contains("hunter2-agent-secret"));
    let out = &step(&report, "a")["outputs"];
    assert_eq!(out["result"], "echo: hi token=***");
    let log = std::fs::read_to_string(out["log"].as_str().unwrap()).unwrap();
    assert!(
        log.contains("token=***") && !log.contains("hunter2-agent-secret"),
        "{log}"
    );
}

#[test]
fn crashes_and_garbage() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: noisy
    agent: { profile: fake-gemini, prompt: hi, env: { FAKE_AGENT_MODE: garbage } }
  - id: crash
    agent: { profile: fake-claude, prompt: hi, env: { FAKE_AGENT_MODE: crash } }
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(step(&report, "noisy")["outputs"]["result"], "echo: hi");
    let crash = step(&report, "crash");
    assert_eq!(crash["error"]["kind"], "command_failed");
    assert!(
        crash["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("agent exited with code 3"),
        "{crash}"
    );
}

#[test]
fn profiles_list_and_show() {
    // Outside the repository: no ./profiles directory overrides the built-in ones.
    let elsewhere = tempfile::tempdir().unwrap();
    let mut c = runner(elsewhere.path());
    c.args(["profiles", "list"]);
    let (code, stdout, _) = output(c);
    assert_eq!(code, 0);
    for label in ["claude-code", "codex", "cursor", "gemini", "opencode"] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(label) && l.contains("built-in")),
            "{stdout}"
        );
    }
    let mut c = runner(&root());
    c.args(["profiles", "show", "claude-code/plan"]);
    let (code, stdout, _) = output(c);
    assert_eq!(code, 0);
    assert!(
        stdout.starts_with("npx -y @anthropic-ai/claude-code@"),
        "{stdout}"
    );
    assert!(stdout.contains("--permission-mode=plan"));
    let mut c = runner(&root());
    c.args(with_profiles(&["profiles", "show", "fake-codex/hang"]));
    let (code, stdout, _) = output(c);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.starts_with("fake-agent --kind codex --plan"),
        "{stdout}"
    );
    let mut c = runner(&root());
    c.args(["profiles", "show", "claude-code/nope"]);
    assert_eq!(output(c).0, 2);
}

#[test]
fn a_background_agent_without_any_session_id_gets_the_minted_one_after_the_watch() {
    // Gemini prints no id and writes no session file: the watch gives up after 30 s and the
    // step returns the minted id, in the same format.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: quiet
    agent: { profile: fake-gemini, prompt: hi, background: true, env: { FAKE_AGENT_MODE: "no-session,hang" } }
  - stop_agent: quiet
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 0, "{stderr}");
    let sid = step(&report, "quiet")["outputs"]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let parts: Vec<&str> = sid.splitn(3, ':').collect();
    assert_eq!(parts[0], "FAKE_GEMINI");
    assert_eq!(parts[2].len(), 36, "{sid}");
    assert_ne!(parts[2], records(d.path())[0]["session"].as_str().unwrap());
    assert_eq!(report["flows"][0]["steps"][1]["outputs"]["stopped"], true);
}

#[test]
fn a_generic_agents_stdout_is_its_result() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: plain
    agent: { profile: fake-generic, prompt: "first line\n{\"second\": \"line\"}\n" }
"#,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = agents_run(d.path(), "f.yaml").run();
    assert_eq!(code, 0, "{stderr}\n{report}");
    let out = &step(&report, "plain")["outputs"];
    // Every line of stdout, JSON-looking ones too, in order, without the last newline.
    assert_eq!(
        out["result"], "echo: first line\n{\"second\": \"line\"}",
        "{out}"
    );
    assert_eq!(out["exit_code"], 0);
    assert!(
        out["session_id"]
            .as_str()
            .unwrap()
            .starts_with("FAKE_GENERIC:"),
        "{out}"
    );
}

/// An agent's session id is its own text: one that is not 1 to 256 letters, digits, `.`, `_`,
/// `:` or `-` (Claude's, Codex's and Gemini's are UUIDs, opencode's `ses_...`) fails the step,
/// saying the agent printed an invalid session id, and goes nowhere: not into the relay lines,
/// a `log` of `steps.<id>.session_id`, the console, the reports, GitHub annotations or a
/// follow-up's argv. (A newline in it used to split the relay line and forge an `::error`
/// annotation, U+202E reached the console and HTML, `../` the follow-up's argv.) In the
/// foreground and in the background, at once.
#[test]
fn an_agent_that_prints_an_invalid_session_id_fails_its_step() {
    let d = tempfile::tempdir().unwrap();
    // A codex-kind CLI whose `thread.started` names a forged id, then answers.
    let forged = r#"../../x\n::error file=f.yaml,line=1::FORGED\u001b]0;t\u0007\r\u202e"#;
    let bin = write(
        d.path(),
        "forger.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\nprintf '%s\\n' '{{\"type\":\"thread.started\",\"thread_id\":\"{forged}\"}}'\nprintf '%s\\n' '{{\"type\":\"item.completed\",\"item\":{{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"Done.\"}}}}'\nprintf '%s\\n' '{{\"type\":\"turn.completed\",\"usage\":{{}}}}'\n{}\n",
            "[ -n \"$SLEEP\" ] && sleep \"$SLEEP\"; exit 0"
        ),
    );
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let profiles = d.path().join("profiles");
    std::fs::create_dir_all(&profiles).unwrap();
    write(
        &profiles,
        "forger.toml",
        &format!(
            "label = \"forger\"\nexecutor_type = \"FORGER\"\nkind = \"codex\"\n[command]\nbinary = \"{}\"\nargs = [\"exec\", \"--json\"]\n",
            bin.display()
        ),
    );
    write(
        d.path(),
        "f.yaml",
        &flow(
            r#"
  - id: a
    continue_on_error: true
    agent: { profile: forger, prompt: "hi" }
  - log: "a: {{ steps.a.session_id if steps.a is defined else 'none' }}"
  - id: bg
    continue_on_error: true
    agent: { profile: forger, prompt: "hi", background: true, env: { SLEEP: "20" } }
"#,
        ),
    );
    let started = std::time::Instant::now();
    let r = flow_run(d.path())
        .args(["f.yaml", "--profiles"])
        .arg(&profiles)
        .args(["--format", "github", "--report", "html=h"])
        .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The background step did not wait 30 s for an id, nor for its agent.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    for id in ["a", "bg"] {
        let s = step(&r.report, id);
        let e = s["error"]["message"].as_str().unwrap_or_default();
        assert!(
            e.starts_with("the agent printed an invalid session id: \"../../x\\n::error file=f.yaml,line=1::FORGED\\u{1b}]0;t\\u{7}\\r\\u{202e}\""),
            "{id}: {s}"
        );
        assert!(s["outputs"]["session_id"].is_null(), "{id}: {s}");
    }
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    let all = format!("{}\n{}\n{}\n{html}", r.stdout, r.stderr, r.report);
    assert!(!all.contains('\u{202e}'), "U+202E is shown");
    // The agent's own line shows it JSON-escaped, the error escaped: no id runner made of it.
    assert!(!all.contains(":../../x"), "the id is used:\n{all}");
    assert!(
        !all.lines()
            .any(|l| l.starts_with("::error file=f.yaml,line=1::FORGED")),
        "a forged annotation:\n{all}"
    );
}
