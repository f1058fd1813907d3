//! Masking is of what runner shows and writes, not of the data a flow computes on: a step's
//! outputs (what a command printed, what a server answered) stay as they were in the flow's
//! scope, so a check reads the truth whatever secrets the run declares, while the console, the
//! reports, the artifacts and the failure message show each secret as `***`.

use std::path::Path;

use crate::common::{Ran, fixture, flow_run, free_port, write};
use crate::secret_search::{nowhere_shown, run_everywhere};

/// The flow that declares `name` (another flow of the run: every flow masks it).
fn declaring(dir: &Path, name: &str) {
    write(
        dir,
        "declares.yaml",
        &format!("name: declares\nsecrets: [{name}]\nsteps:\n  - exec: \"true\"\n"),
    );
}

/// `flows` run together, the secret `name` set to `value`.
fn run_with(dir: &Path, flows: &[&str], name: &str, value: &str) -> Ran {
    flow_run(dir).env(name, value).args(flows).run()
}

/// The flow named `name` in `report`.
fn flow<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no flow {name} in {report}"))
}

/// A command prints a JSON user whose role is `admin`; another flow of the run declares the
/// secret `DB_USER=admin`. The check that the role is not `admin` reads what the command printed,
/// and fails (it passed on `"role": "***"`, a false green that depended on the other flow).
#[test]
fn a_command_output_is_checked_raw_when_another_flow_declares_a_secret_in_it() {
    let d = tempfile::tempdir().unwrap();
    declaring(d.path(), "DB_USER");
    write(
        d.path(),
        "role.yaml",
        r#"name: demoted user is no longer admin
steps:
  - id: u
    exec: ["sh", "-c", "echo '{\"name\": \"bob\", \"role\": \"admin\"}'"]
  - expect: { that: "{{ (steps.u.stdout | fromjson).role != 'admin' }}" }
"#,
    );
    let Ran {
        code,
        report,
        stderr,
        ..
    } = run_with(
        d.path(),
        &["declares.yaml", "role.yaml"],
        "DB_USER",
        "admin",
    );
    assert_eq!(code, 1, "the check is false: the role is admin\n{stderr}");
    assert_eq!(flow(&report, "declares")["status"], "passed", "{report}");
    assert_eq!(
        flow(&report, "demoted user is no longer admin")["status"],
        "failed",
        "{report}"
    );
    // The report shows the output masked all the same.
    let role = flow(&report, "demoted user is no longer admin");
    let shown = role["steps"][0]["outputs"]["stdout"].as_str().unwrap();
    assert!(shown.contains("\"role\": \"***\""), "{shown}");
}

/// A server answers `{"role": "admin"}`; another flow declares `DB_USER=admin`. The check that
/// `admin` is not in the body reads the body as the server sent it, and fails; the body and its
/// `json` agree.
#[test]
fn a_response_body_is_checked_raw_when_another_flow_declares_a_secret_in_it() {
    let d = tempfile::tempdir().unwrap();
    declaring(d.path(), "DB_USER");
    std::fs::create_dir(d.path().join("www")).unwrap();
    write(
        &d.path().join("www"),
        "bob.json",
        "{\"name\": \"bob\", \"role\": \"admin\"}",
    );
    let port = free_port();
    write(
        d.path(),
        "req.yaml",
        &format!(
            r#"name: bob is not admin
web_server:
  command: ["python3", "{echo}", "{port}", "{www}"]
  url: "http://127.0.0.1:{port}/bob.json"
  ready_timeout: 20s
steps:
  - id: u
    request: {{ url: "http://127.0.0.1:{port}/bob.json" }}
  - id: same
    expect: {{ that: "{{{{ (steps.u.body | fromjson).role == steps.u.json.role }}}}" }}
  - expect: {{ that: "{{{{ 'admin' not in steps.u.body }}}}" }}
"#,
            echo = fixture("echo_server.py").display(),
            www = d.path().join("www").display()
        ),
    );
    let Ran {
        code,
        report,
        stderr,
        ..
    } = run_with(d.path(), &["declares.yaml", "req.yaml"], "DB_USER", "admin");
    assert_eq!(
        code, 1,
        "the check is false: the body holds admin\n{stderr}"
    );
    let req = flow(&report, "bob is not admin");
    assert_eq!(req["status"], "failed", "{report}");
    let steps = req["steps"].as_array().unwrap();
    assert_eq!(steps[1]["outcome"], "passed", "body and json agree: {req}");
    assert_eq!(steps[2]["outcome"], "failed", "{req}");
    let shown = steps[0]["outputs"]["body"].as_str().unwrap();
    assert!(shown.contains("\"role\": \"***\""), "{shown}");
}

/// The secret: long and unlike anything else the run prints.
const TOKEN: &str = "Kestrel-Vault-9931-Zulu";

/// A flow that checks its token does not leak in a command's output fails when it does (the
/// check sees the token), and what it shows of the failure, in every report, console and
/// artifact, is `***`.
#[test]
fn a_check_that_a_token_does_not_leak_fails_when_it_leaks_and_shows_it_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "leak.yaml",
        r#"name: token not in the dump
secrets: [LEAK_T]
steps:
  - id: dump
    exec: ["sh", "-c", "echo \"debug: user=alice token=$LEAK_T\""]
  - log: "dump: {{ steps.dump.stdout }}"
  - expect: { that: "{{ secrets.LEAK_T not in steps.dump.stdout }}" }
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_everywhere(d.path(), "leak.yaml", "LEAK_T", TOKEN);
    assert_eq!(code, 1, "the token is in the dump: {stderr}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[2]["outcome"], "failed", "{report}");
    // A log of the output shows it, the token masked.
    assert!(
        stderr.contains("│ dump: debug: user=alice token=***"),
        "{stderr}"
    );
    assert_eq!(
        steps[0]["outputs"]["stdout"], "debug: user=alice token=***",
        "{report}"
    );
    let exec_out = walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "stdout"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<Vec<_>>();
    assert_eq!(
        exec_out,
        ["debug: user=alice token=***\n"],
        "the exec artifact"
    );
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &[("the token", TOKEN.to_string())],
    );
}

/// A one-letter secret another flow declares (`T=o`) leaves a flow that never mentions it
/// computing on what its command printed: `hello world` stays `hello world` for its check.
#[test]
fn a_one_letter_secret_of_another_flow_leaves_a_flow_data_intact() {
    let d = tempfile::tempdir().unwrap();
    declaring(d.path(), "ONE_T");
    write(
        d.path(),
        "w.yaml",
        r#"name: greets
steps:
  - id: x
    exec: ["echo", "hello world, all good"]
  - expect: { that: "{{ steps.x.stdout == 'hello world, all good' }}" }
"#,
    );
    let Ran {
        code,
        report,
        stderr,
        ..
    } = run_with(d.path(), &["declares.yaml", "w.yaml"], "ONE_T", "o");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(flow(&report, "greets")["status"], "passed", "{report}");
}

/// A page shows `role: admin`; another flow declares `DB_USER=admin`. What `inspect` read is
/// the page's text, so the check that `admin` is not on it fails; the report shows it masked.
#[test]
fn an_element_text_is_checked_raw_when_another_flow_declares_a_secret_in_it() {
    let d = tempfile::tempdir().unwrap();
    declaring(d.path(), "DB_USER");
    std::fs::create_dir(d.path().join("www")).unwrap();
    write(
        &d.path().join("www"),
        "user.html",
        "<!doctype html><title>User</title><p id=\"role\">bob, role: admin</p>",
    );
    write(
        d.path(),
        "page.yaml",
        &format!(
            r##"name: bob is shown as no admin
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/user.html"
  - id: i
    inspect: {{ target: "#role" }}
  - id: same
    expect: {{ that: "{{{{ steps.i.elements[0].metadata.text == steps.i.text }}}}" }}
  - expect: {{ that: "{{{{ 'admin' not in steps.i.text }}}}" }}
"##,
            d.path().join("www").display()
        ),
    );
    let Ran {
        code,
        report,
        stderr,
        ..
    } = run_with(
        d.path(),
        &["declares.yaml", "page.yaml"],
        "DB_USER",
        "admin",
    );
    assert_eq!(code, 1, "the check is false: the page says admin\n{stderr}");
    let page = flow(&report, "bob is shown as no admin");
    assert_eq!(page["status"], "failed", "{report}");
    let steps = page["steps"].as_array().unwrap();
    assert_eq!(steps[2]["outcome"], "passed", "{page}");
    assert_eq!(steps[3]["outcome"], "failed", "{page}");
    assert_eq!(steps[1]["outputs"]["text"], "bob, role: ***", "{page}");
}

/// A command prints 1 MiB less 10 bytes, then the token: its `stdout` output keeps the first
/// 1 MiB as printed, cut before the token (a cut inside it would show its head once masked),
/// and says it was cut; the artifact holds all of it, masked.
#[test]
fn a_command_output_cut_at_1_mib_shows_no_head_of_a_secret() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "long.yaml",
        r#"name: long output
secrets: [LEAK_T]
steps:
  - id: long
    exec: ["sh", "-c", "head -c 1048566 /dev/zero | tr '\\0' x; printf %s \"$LEAK_T\""]
  - expect: { that: "{{ steps.long.truncated }}" }
  - exec: "false"
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = crate::secret_search::run_failing_last(d.path(), "long.yaml", "LEAK_T", TOKEN);
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[1]["outcome"], "passed", "{stderr}");
    let out = &steps[0]["outputs"];
    assert_eq!(out["truncated"], true);
    assert!(out["stdout"].as_str().unwrap().ends_with("xxxx"));
    let file = walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "stdout"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .max_by_key(String::len)
        .unwrap();
    assert!(
        file.ends_with("xxxx***"),
        "the artifact holds it all, masked"
    );
    let head = [("the token's first 4 characters", TOKEN[..4].to_string())];
    nowhere_shown(d.path(), &[("stdout", &stdout), ("stderr", &stderr)], &head);
}

/// Attack 27 D8: a `generic` agent prints 1 MiB less 10 bytes, then the token: its `result`,
/// cut at 1 MiB, ends before the token as an `exec` output does (it kept the token's first 10
/// characters, which no report masked: the masker sees no whole secret there).
#[test]
fn an_agent_answer_cut_at_1_mib_shows_no_head_of_a_secret() {
    let d = tempfile::tempdir().unwrap();
    let bin = write(
        d.path(),
        "long.sh",
        "#!/bin/sh\ncat > /dev/null\nhead -c 1048566 /dev/zero | tr '\\0' a\nprintf '%s\\n' \"$LEAK_T\"\n",
    );
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(d.path().join("profiles")).unwrap();
    write(
        d.path(),
        "profiles/long.toml",
        &format!(
            "label = \"long\"\nexecutor_type = \"LONG\"\nkind = \"generic\"\n[command]\nbinary = \"{}\"\nargs = []\n",
            bin.display()
        ),
    );
    write(
        d.path(),
        "long.yaml",
        r#"name: long answer
secrets: [LEAK_T]
steps:
  - id: ask
    agent: { profile: long, prompt: "talk" }
  - expect: { that: "{{ steps.ask.truncated }}" }
  - exec: "false"
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
        ..
    } = crate::secret_search::run_everywhere_with(
        d.path(),
        &["long.yaml", "--profiles", "profiles"],
        &[("LEAK_T", TOKEN)],
    );
    assert_eq!(code, 1, "only the last step fails: {stderr}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[1]["outcome"], "passed", "{stderr}");
    let result = steps[0]["outputs"]["result"].as_str().unwrap_or("");
    assert!(result.ends_with("aaaa"), "{}", &result[result.len() - 40..]);
    let head = [("the token's first 4 characters", TOKEN[..4].to_string())];
    nowhere_shown(d.path(), &[("stdout", &stdout), ("stderr", &stderr)], &head);
}
