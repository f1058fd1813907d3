//! The `act` step end to end, in the real browser: the built-in resolver, the `intent` skill
//! through a fake claude agent (its real stream-json events), the answer cache with
//! `--agent-cache`, self-healing of a cached answer that no longer fits, and the one retry of an
//! invalid answer.

use std::path::Path;

use serde_json::Value;

use crate::agents::{agent_env, with_profiles};
use crate::common::{Ran, fixture, flow_run, step, write};

/// A flow on a copy of the fixture site in `dir/site` (so a test can change the page).
fn flow(dir: &Path, steps: &str) -> String {
    let site = dir.join("site");
    if !site.exists() {
        std::fs::create_dir_all(&site).unwrap();
        for f in ["index.html", "page2.html"] {
            std::fs::copy(fixture("site").join(f), site.join(f)).unwrap();
        }
    }
    format!(
        "name: act\nweb_server: {{ static: \"{}\" }}\nvars:\n  base: \"{{{{ web_server.url }}}}\"\nsteps:\n  - open: \"{{{{ vars.base }}}}/index.html\"\n{steps}",
        site.display()
    )
}

/// How many times a fake agent ran.
fn agent_calls(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("rec")).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .count()
    })
}

fn run(dir: &Path, extra: &[&str]) -> Ran {
    let mut args = vec!["f.yaml"];
    args.extend_from_slice(extra);
    flow_run(dir)
        .args(with_profiles(&args))
        .with(|c| agent_env(c, dir))
        .run()
}

#[test]
fn simple_instructions_run_without_any_agent() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(
            d.path(),
            r##"  - id: email
    act: "fill the Email field with ada@example.com"
  - id: sign
    act: "click the Sign in button"
  - expect: { text: { target: "#out", equals: "Hello ada@example.com" } }
  - id: agree
    act: "check I agree to the terms"
  - expect: { checked: "#agree" }
  - id: jp
    act: "ログイン をクリック"
  - expect: { text: { target: "#out", equals: "こんにちは" } }
  - id: zh
    act: "点击“Sign in”按钮"
  - expect: { text: { target: "#out", equals: "Hello ada@example.com" } }
"##,
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(d.path(), &[]);
    assert_eq!(code, 0, "{stderr}\n{report}");
    let email = &step(&report, "email")["outputs"];
    assert_eq!(email["source"], "local", "{email}");
    assert_eq!(email["action_type"], "fill");
    assert_eq!(email["value"], "ada@example.com");
    assert_eq!(
        email["selector"],
        serde_json::json!({"role": "textbox", "text": "Email", "exact": true})
    );
    assert_eq!(step(&report, "agree")["outputs"]["action_type"], "check");
    for id in ["sign", "jp", "zh"] {
        let o = &step(&report, id)["outputs"];
        assert_eq!(o["source"], "local", "{id}: {o}");
        assert_eq!(o["action_type"], "click", "{id}: {o}");
        // Screenshots are for an agent's decisions; the resolver's cost what the step does.
        assert_eq!(o["screenshot_before"], Value::Null, "{id}: {o}");
    }
    assert_eq!(agent_calls(d.path()), 0);
}

#[test]
fn an_instruction_runner_cannot_read_without_a_profile_fails_clearly() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(d.path(), "  - id: x\n    act: \"sign me in, please\"\n"),
    );
    let Ran { code, report, .. } = run(d.path(), &[]);
    assert_eq!(code, 1, "{report}");
    let e = &step(&report, "x")["error"];
    assert_eq!(e["kind"], "skill", "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("give it an agent profile"),
        "{e}"
    );
}

const ASK: &str = r##"  - id: ask
    act: { intent: "sign me in, please: the Sign in or Log in button", profile: fake-claude }
  - expect: { text: { target: "#out", equals: "Hello" } }
"##;

#[test]
fn the_agent_answers_once_then_the_cache_replays_it_read_only() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &flow(d.path(), ASK));
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(d.path(), &[]);
    assert_eq!(code, 0, "{stderr}\n{report}");
    let o = &step(&report, "ask")["outputs"];
    assert_eq!(o["source"], "agent", "{o}");
    // The agent named a snapshot ref; runner keeps role and name, which outlive the snapshot.
    assert_eq!(
        o["selector"],
        serde_json::json!({"role": "button", "text": "Sign in", "exact": true})
    );
    assert_eq!(agent_calls(d.path()), 1);
    // The page before and after the agent's decision.
    for k in ["screenshot_before", "screenshot_after"] {
        let p = o[k].as_str().unwrap_or_else(|| panic!("{k}: {o}"));
        let png = std::fs::read(p).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{k}: {p}");
    }
    let cached: Vec<_> = std::fs::read_dir(d.path().join(".runner/cache/skills/intent"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(cached.len(), 1);
    // What is cached is the answer as used: role and name, not the snapshot's ref.
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(cached[0].path()).unwrap()).unwrap();
    assert_eq!(entry["answer"]["selector"], o["selector"], "{entry}");

    // Read-only, with no agent binary anywhere on PATH: the cached answer is replayed.
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(with_profiles(&["f.yaml", "--agent-cache", "read-only"]))
        .run();
    assert_eq!(code, 0, "{stderr}\n{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "cache");
    assert_eq!(agent_calls(d.path()), 1);

    // `off` asks the agent again.
    let Ran { code, report, .. } = run(d.path(), &["--agent-cache", "off"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "agent");
    assert_eq!(agent_calls(d.path()), 2);
}

#[test]
fn a_cached_answer_that_no_longer_fits_is_resolved_again() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &flow(d.path(), ASK));
    let Ran { code, report, .. } = run(d.path(), &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(agent_calls(d.path()), 1);

    // The button is renamed: the cached "Sign in" is no longer on the page.
    let page = d.path().join("site/index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, html.replace(">Sign in</button>", ">Log in</button>")).unwrap();

    // Read-only cannot heal it: a clear `skill` error, no agent call.
    let Ran { code, report, .. } = run(d.path(), &["--agent-cache", "read-only"]);
    assert_eq!(code, 1, "{report}");
    let e = &step(&report, "ask")["error"];
    assert_eq!(e["kind"], "skill", "{e}");
    assert!(e["message"].as_str().unwrap().contains("read-only"), "{e}");
    assert_eq!(agent_calls(d.path()), 1);

    // Read-write asks again and replaces the cached answer.
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(d.path(), &[]);
    assert_eq!(code, 0, "{stderr}\n{report}");
    let o = &step(&report, "ask")["outputs"];
    assert_eq!(o["source"], "agent", "{o}");
    assert_eq!(o["selector"]["text"], "Log in", "{o}");
    assert_eq!(agent_calls(d.path()), 2);
    let Ran { code, report, .. } = run(d.path(), &["--agent-cache", "read-only"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "cache");
}

/// The `ASK` flow in a fresh directory, with the fake agent in `mode`.
fn ask_in_mode(mode: &str) -> (tempfile::TempDir, Ran) {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &flow(d.path(), ASK));
    let ran = flow_run(d.path())
        .args(with_profiles(&["f.yaml"]))
        .with(|c| {
            agent_env(c, d.path());
            c.env("FAKE_AGENT_MODE", mode);
        })
        .run();
    (d, ran)
}

#[test]
fn an_invalid_answer_is_asked_again_once() {
    let (d, Ran { code, report, .. }) = ask_in_mode("skill-invalid-first");
    assert_eq!(code, 0, "{report}");
    assert_eq!(agent_calls(d.path()), 2);
    let second: Value = std::fs::read_dir(d.path().join("rec"))
        .unwrap()
        .flatten()
        .map(|e| {
            serde_json::from_str::<Value>(&std::fs::read_to_string(e.path()).unwrap()).unwrap()
        })
        .find(|r| {
            r["stdin"]
                .as_str()
                .unwrap()
                .contains("previous answer was not valid")
        })
        .expect("the retry tells the agent what was wrong");
    assert!(
        second["stdin"].as_str().unwrap().contains("/action_type"),
        "{second}"
    );

    let (d, Ran { code, report, .. }) = ask_in_mode("skill-invalid");
    assert_eq!(code, 1, "{report}");
    let e = &step(&report, "ask")["error"];
    assert_eq!(e["kind"], "skill", "{e}");
    assert!(
        e["message"].as_str().unwrap().contains("asked twice"),
        "{e}"
    );
    assert_eq!(agent_calls(d.path()), 2);
    assert!(!d.path().join(".runner/cache/skills/intent").exists());
}

#[test]
fn an_answer_in_the_seeds_words_is_acted_on_and_one_without_json_names_its_logs() {
    // `"action_type": "Click"`, `"selector": "role=button[name=\"Sign in\"]"`.
    let (d, Ran { code, report, .. }) = ask_in_mode("seed-shapes");
    assert_eq!(code, 0, "{report}");
    let o = &step(&report, "ask")["outputs"];
    assert_eq!(o["action_type"], "click", "{o}");
    assert_eq!(
        o["selector"],
        serde_json::json!({"role": "button", "text": "Sign in"}),
        "{o}"
    );
    assert_eq!(agent_calls(d.path()), 1);

    // (The directory holds the logs: kept until they are read.)
    let (_dir, Ran { code, report, .. }) = ask_in_mode("skill-no-json");
    assert_eq!(code, 1, "{report}");
    let message = step(&report, "ask")["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, logs) = message
        .split_once("the answer holds no JSON object; the agent's text is in ")
        .unwrap_or_else(|| panic!("{message}"));
    for log in logs.split(" and ") {
        let text = std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{log}: {e}"));
        assert!(text.contains("I looked at the page"), "{log}: {text}");
    }
}

#[test]
fn validate_checks_act_and_the_skill_schemas_are_printed() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: v\nsteps:\n  - act: { intent: click it, profile: fake-claud }\n  - act: { intent: click it, colour: red }\n",
    );
    let mut c = crate::common::runner(d.path());
    c.args(with_profiles(&["validate", "f.yaml"]));
    let (code, out, err) = crate::common::output(c);
    let all = format!("{out}{err}");
    assert_eq!(code, 2, "{all}");
    assert!(
        all.contains("Profile config not found for fake-claud"),
        "{all}"
    );
    assert!(all.contains("did you mean `fake-claude`?"), "{all}");
    assert!(all.contains("colour"), "{all}");

    // Each flag says what it does (not its neighbour's text).
    let mut c = crate::common::runner(d.path());
    c.args(["run", "--help"]);
    let (_, help, _) = crate::common::output(c);
    // The flag's help: on its line, or below it (clap moves every help below its flag when
    // some are long), up to the next flag.
    let line = |flag: &str| {
        let mut lines = help
            .lines()
            .skip_while(|l| !l.trim_start().starts_with(flag));
        let first = lines.next().unwrap_or_default().to_string();
        let rest: Vec<&str> = lines
            .take_while(|l| !l.trim_start().starts_with('-'))
            .collect();
        format!("{first} {}", rest.join(" "))
    };
    let agent = line("--agent <PROFILE>");
    assert!(
        agent.contains("`act` steps ask") && !agent.contains("cached"),
        "{help}"
    );
    assert!(
        line("--agent-cache <MODE>").contains("cached under"),
        "{help}"
    );
    for name in [
        "intent",
        "page_analysis",
        "trajectory_labeling",
        "test_generation",
    ] {
        let mut c = crate::common::runner(d.path());
        c.args(["schema", &format!("skill/{name}")]);
        let (code, out, _) = crate::common::output(c);
        assert_eq!(code, 0);
        let file = std::fs::read_to_string(
            crate::common::root().join(format!("schemas/skills/{name}.schema.json")),
        )
        .unwrap();
        assert_eq!(out.trim(), file.trim(), "{name}");
    }
}

#[test]
fn a_secret_on_the_page_never_reaches_the_agent() {
    let d = tempfile::tempdir().unwrap();
    let secret = "hunter2-act-secret";
    write(
        d.path(),
        "f.yaml",
        &flow(
            d.path(),
            r##"  - fill: { target: "#email", value: "{{ env.ACT_SECRET }}" }
  - click: "#signin"
  - id: ask
    act: { intent: "sign me in, please: the Sign in or Log in button", profile: fake-claude }
"##,
        )
        .replacen("steps:", "secrets: [ACT_SECRET]\nsteps:", 1),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(with_profiles(&["f.yaml"]))
        .with(|c| {
            agent_env(c, d.path());
            c.env("ACT_SECRET", secret);
        })
        .run();
    assert_eq!(code, 0, "{stderr}\n{report}");
    let rec = std::fs::read_dir(d.path().join("rec"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<String>();
    // The snapshot shows the field's value: the prompt has it masked.
    assert!(rec.contains(": ***"), "{rec}");
    assert!(!rec.contains(secret), "{rec}");
}

#[test]
fn the_flows_agent_or_run_agent_answers_when_the_step_names_none() {
    const BARE: &str = r##"  - id: ask
    act: "sign me in, please: the Sign in or Log in button"
  - expect: { text: { target: "#out", equals: "Hello" } }
"##;
    // The flow's `agent:`.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(d.path(), BARE).replacen("steps:", "agent: fake-claude\nsteps:", 1),
    );
    let Ran { code, report, .. } = run(d.path(), &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "agent");
    assert_eq!(agent_calls(d.path()), 1);

    // `--agent`.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "f.yaml", &flow(d.path(), BARE));
    let Ran { code, report, .. } = run(d.path(), &["--agent", "fake-claude"]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "agent");
    assert_eq!(agent_calls(d.path()), 1);

    // An unknown `--agent` is refused before anything runs.
    let Ran { code, stderr, .. } = run(d.path(), &["--agent", "fake-claud"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("Profile config not found for fake-claud"),
        "{stderr}"
    );
    assert_eq!(agent_calls(d.path()), 1);

    // And an unknown flow `agent:` is a validation error at its line.
    write(
        d.path(),
        "g.yaml",
        "name: g\nagent: fake-claud\nsteps:\n  - act: click Sign in\n",
    );
    let mut c = crate::common::runner(d.path());
    c.args(with_profiles(&["validate", "g.yaml"]));
    let (code, out, err) = crate::common::output(c);
    assert_eq!(code, 2, "{out}{err}");
    assert!(format!("{out}{err}").contains("g.yaml:2:"), "{out}{err}");
}

#[test]
fn an_agent_gets_an_agents_time_while_the_page_keeps_the_browsers() {
    // The flow's browser commands get 1 s; the agent takes 6.5 s to answer (more than the 1 s
    // and the 5 s the engine gives any attempt beyond its timeout). The act step is bounded as an
    // agent step is (15 min by default), its page work by the 1 s.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(d.path(), ASK).replacen("steps:", "browser: { timeout: 1s }\nsteps:", 1),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(with_profiles(&["f.yaml"]))
        .with(|c| {
            agent_env(c, d.path());
            c.env("FAKE_AGENT_MODE", "slow")
                .env("FAKE_AGENT_SLEEP", "6.5");
        })
        .run();
    assert_eq!(code, 0, "{stderr}\n{report}");
    let ask = step(&report, "ask");
    assert_eq!(ask["outputs"]["source"], "agent", "{ask}");
    assert!(ask["duration_ms"].as_u64().unwrap() >= 6500, "{ask}");
}

#[test]
fn an_answer_holding_a_secret_is_never_cached_and_read_only_says_why() {
    // The agent types a secret it knows (from its environment) into the page. The cache would
    // hold it masked, and a replay would type `***-via-agent`: such an answer is not cached.
    let d = tempfile::tempdir().unwrap();
    let secret = "s3cr3t-act-cache";
    let steps = r##"  - id: ask
    act: { intent: "log me in: my secret goes in the Password field", profile: fake-claude }
  - expect: { value: { target: "#password", equals: "{{ secrets.FAKE_SECRET }}-via-agent" } }
"##;
    write(
        d.path(),
        "f.yaml",
        &flow(d.path(), steps).replacen("steps:", "secrets: [FAKE_SECRET]\nsteps:", 1),
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["f.yaml"];
        args.extend_from_slice(extra);
        flow_run(d.path())
            .args(with_profiles(&args))
            .with(|c| {
                agent_env(c, d.path());
                c.env("FAKE_AGENT_MODE", "secret-value")
                    .env("FAKE_SECRET", secret);
            })
            .run()
    };
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&[]);
    assert_eq!(code, 0, "{stderr}\n{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "agent");
    assert_eq!(agent_calls(d.path()), 1);
    assert!(
        stderr.contains("the `intent` answer holds a secret: it is not cached"),
        "{stderr}"
    );
    // Whatever the cache holds, it is no answer (neither the secret nor its mask).
    let dir = d.path().join(".runner/cache/skills/intent");
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let entry: Value = serde_json::from_str(&text).unwrap();
        assert!(entry.get("answer").is_none(), "{text}");
        assert!(
            !text.contains(secret) && !text.contains("via-agent"),
            "{text}"
        );
    }

    // Read-only has nothing to replay, and says why; nothing typed `***` into the page.
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(&["--agent-cache", "read-only"]);
    assert_eq!(code, 1, "{stderr}\n{report}");
    let e = &step(&report, "ask")["error"];
    assert_eq!(e["kind"], "skill", "{e}");
    let message = e["message"].as_str().unwrap();
    assert!(message.contains("holds a secret"), "{message}");
    assert!(message.contains("never cached"), "{message}");
    assert_eq!(agent_calls(d.path()), 1);

    // Read-write asks the agent again, and the flow passes again.
    let Ran { code, report, .. } = run(&[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "ask")["outputs"]["source"], "agent");
    assert_eq!(agent_calls(d.path()), 2);
}

#[test]
fn a_generic_profile_answers_on_its_stdout() {
    // A profile of kind `generic` has no event stream: its stdout is its answer.
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        &flow(d.path(), &ASK.replace("fake-claude", "fake-generic")),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = run(d.path(), &[]);
    assert_eq!(code, 0, "{stderr}\n{report}");
    let o = &step(&report, "ask")["outputs"];
    assert_eq!(o["source"], "agent", "{o}");
    assert_eq!(
        o["selector"],
        serde_json::json!({"role": "button", "text": "Sign in", "exact": true})
    );
    assert_eq!(agent_calls(d.path()), 1);
}

/// An `act` right after a step whose confirm the flow's `browser: { dialogs: accept }` answered
/// runs at once, answered by the built-in resolver and by the agent: it waits for the answer to
/// have come back, as every browser step does before it touches the page, instead of asking
/// agent-browser for the URL while the click's command was still held (it timed out after 15 s:
/// "agent-browser get timed out", attack 27, D12).
#[test]
fn an_act_right_after_an_answered_confirm_runs_at_once() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - click: "#del"
  - expect: { text: { target: "#out", equals: "deleted" } }
  - click: "#del"
  - id: local
    act: "click the Sign in button"
    timeout: 5s
  - expect: { text: { target: "#out", equals: "Hello" } }
  - click: "#del"
  - id: agent
    act: { intent: "sign me in, please: the Sign in or Log in button", profile: fake-claude }
    timeout: 10s
  - expect: { text: { target: "#out", equals: "Hello" } }
"##;
    let text = flow(d.path(), steps).replacen("steps:", "browser: { dialogs: accept }\nsteps:", 1);
    write(d.path(), "f.yaml", &text);
    let page = d.path().join("site/index.html");
    let html = std::fs::read_to_string(&page).unwrap().replacen(
        "<button type=\"button\" id=\"signin\"",
        "<button type=\"button\" id=\"del\" onclick=\"if (confirm('Delete it?')) document.querySelector('#out').textContent = 'deleted'\">Delete</button>\n    <button type=\"button\" id=\"signin\"",
        1,
    );
    std::fs::write(&page, html).unwrap();
    let Ran { code, report, .. } = run(d.path(), &[]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(step(&report, "local")["outputs"]["source"], "local");
    assert_eq!(step(&report, "agent")["outputs"]["source"], "agent");
    for id in ["local", "agent"] {
        let ms = step(&report, id)["duration_ms"].as_u64().unwrap();
        assert!(ms < 4000, "{id} took {ms} ms");
    }
}
