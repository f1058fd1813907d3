//! A secret is the run's, not only the flow's that declares it: every command inherits runner's
//! environment, and every flow writes into the same console, reports and job summary. So each
//! flow of a run masks every secret any flow of the run (or a sub-flow one may run) declares,
//! from its first step; and a secret set to nothing is as missing as an unset one.

use std::path::Path;

use base64::Engine as _;

use crate::common::{Ran, flow_run, step, write};
use crate::secret_search::{nowhere_shown, run_everywhere, run_everywhere_with};

/// The secret: long and unlike anything else the run prints.
const SECRET: &str = "Kestrel-Vault-9931-Zulu";

/// The secret and what a command makes of it that the masker knows (its base64).
fn forms() -> Vec<(&'static str, String)> {
    vec![
        ("the secret", SECRET.to_string()),
        (
            "its base64",
            base64::engine::general_purpose::STANDARD.encode(SECRET),
        ),
    ]
}

/// `flows` run together with every report, as on GitHub Actions, the secret `RUN_WIDE_T` set.
fn run_together(dir: &Path, flows: &[&str]) -> Ran {
    run_everywhere_with(dir, flows, &[("RUN_WIDE_T", SECRET)])
}

/// A flow that declares no secret and prints one another flow of the run declares (a command's
/// output, its base64, a failing command's stderr, a template reading `env`) shows it nowhere:
/// not on the console, in the JSON, JUnit or HTML report, an artifact (the command's output
/// file, the trace), a GitHub annotation or the job summary.
#[test]
fn a_secret_one_flow_declares_is_masked_in_every_flow_of_the_run() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: declares\nsecrets: [RUN_WIDE_T]\nsteps:\n  - id: own\n    exec: \"printenv RUN_WIDE_T\"\n",
    );
    write(
        d.path(),
        "b.yaml",
        r#"name: prints
steps:
  - id: plain
    exec: "printenv RUN_WIDE_T"
  - id: encoded
    exec: ["sh", "-c", "printf %s \"$RUN_WIDE_T\" | base64"]
  - log: "env says {{ env.RUN_WIDE_T }}"
  - exec: ["sh", "-c", "echo \"stderr $RUN_WIDE_T\" >&2; exit 1"]
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_together(d.path(), &["a.yaml", "b.yaml", "--trace", "on"]);
    assert_eq!(code, 1, "only b's last step fails: {stderr}");
    let flows = report["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 2, "{report}");
    let b = flows.iter().find(|f| f["name"] == "prints").unwrap();
    let by_id = |id: &str| {
        b["steps"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap_or_else(|| panic!("no step {id} in {b}"))
            .clone()
    };
    // The commands ran and printed it, masked.
    assert_eq!(by_id("plain")["outputs"]["stdout"], "***", "{b}");
    assert_eq!(by_id("encoded")["outputs"]["stdout"], "***", "{b}");
    assert!(stderr.contains("│ env says ***"), "{stderr}");
    assert!(
        stdout.contains("::error ") && stdout.contains("stderr ***"),
        "{stdout}"
    );
    // The trace of the failing flow is there to be searched.
    let traces = walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "trace.json")
        .count();
    assert!(traces >= 1, "no trace.json under art");
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms(),
    );
}

/// A parent that prints a secret only its sub-flow declares, before it runs the sub-flow, shows
/// it masked: the sub-flows a flow may run are known when it loads, so their secrets are masked
/// from its first step.
#[test]
fn a_secret_a_sub_flow_declares_is_masked_before_the_sub_flow_runs() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "_sub.yaml",
        "name: sub\nsecrets: [RUN_WIDE_T]\nsteps:\n  - exec: \"printenv RUN_WIDE_T\"\n",
    );
    write(
        d.path(),
        "p.yaml",
        r#"name: parent
steps:
  - id: before
    exec: "printenv RUN_WIDE_T"
  - run_flow: _sub.yaml
  - id: after
    exec: "printenv RUN_WIDE_T"
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_everywhere(d.path(), "p.yaml", "RUN_WIDE_T", SECRET);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        step(&report, "before")["outputs"]["stdout"],
        "***",
        "{report}"
    );
    assert_eq!(
        step(&report, "after")["outputs"]["stdout"],
        "***",
        "{report}"
    );
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms(),
    );
}

/// A declared secret set to nothing (`T=`, as CI often sets a secret it does not have) is the
/// same environment error as one not set: nothing could be masked, and the flow would run with
/// an empty password.
#[test]
fn an_empty_secret_is_an_environment_error() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "s.yaml",
        "name: s\nsecrets: [RUN_WIDE_EMPTY]\nsteps:\n  - log: hi\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("RUN_WIDE_EMPTY", "")
        .arg("s.yaml")
        .run();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("secret `RUN_WIDE_EMPTY` is empty in the environment"),
        "{stderr}"
    );
    assert!(!stderr.contains("│ hi"), "no step ran: {stderr}");
    // Only white space is as empty: masked, it would turn every space of the run into `***`.
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("RUN_WIDE_EMPTY", " \t")
        .arg("s.yaml")
        .run();
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("secret `RUN_WIDE_EMPTY` is only white space in the environment"),
        "{stderr}"
    );
}

/// `--dry-run` shows each step's name with what can be rendered before the run: a secret another
/// flow declares, read through `env`, shows as `***` there too.
#[test]
fn a_dry_run_masks_a_secret_another_flow_declares() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: declares\nsecrets: [RUN_WIDE_T]\nsteps:\n  - log: hi\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: prints\nsteps:\n  - name: \"env says {{ env.RUN_WIDE_T }}\"\n    exec: [\"echo\", \"{{ env.RUN_WIDE_T }}\"]\n",
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = flow_run(d.path())
        .env("RUN_WIDE_T", SECRET)
        .args(["a.yaml", "b.yaml", "--dry-run"])
        .run();
    assert_eq!(code, 0, "{stderr}");
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("env says ***"), "{all}");
    assert!(!all.contains(SECRET), "{all}");
}

/// A flow that prints a secret another flow of the suite declares shows it masked also when the
/// filters or the shard leave that other flow out (`--grep`, `--shard`): a sharded CI suite
/// masks what the whole suite masks.
#[test]
fn a_secret_a_flow_left_out_declares_is_masked_all_the_same() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        "name: declares\nsecrets: [RUN_WIDE_T]\nsteps:\n  - exec: \"true\"\n",
    );
    write(
        d.path(),
        "b.yaml",
        "name: prints\nsteps:\n  - id: plain\n    exec: \"printenv RUN_WIDE_T\"\n  - exec: [\"sh\", \"-c\", \"echo \\\"stderr $RUN_WIDE_T\\\" >&2; exit 1\"]\n",
    );
    for pick in [["--grep", "prints"], ["--shard", "2/2"]] {
        let Ran {
            code,
            stdout,
            stderr,
            report,
        } = run_together(d.path(), &["a.yaml", "b.yaml", pick[0], pick[1]]);
        assert_eq!(code, 1, "{pick:?}: {stderr}");
        let flows = report["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 1, "{pick:?}: {report}");
        assert_eq!(flows[0]["name"], "prints", "{report}");
        assert_eq!(
            step(&report, "plain")["outputs"]["stdout"],
            "***",
            "{pick:?}: {report}"
        );
        nowhere_shown(
            d.path(),
            &[("stdout", &stdout), ("stderr", &stderr)],
            &forms(),
        );
    }
}

/// What one flow's templates make of a secret is the run's secret too (GitHub Actions'
/// `add-mask` is the job's): the run's shared server (runner.toml's `[[web_server]]`), to which
/// the flow sends a slice and a `replace` of the secret, logs them masked, and a later flow that
/// declares nothing and prints what the first one wrote (another slice) shows it masked.
#[test]
fn what_a_flow_makes_of_a_secret_is_masked_in_the_runs_server_log_and_later_flows() {
    let d = tempfile::tempdir().unwrap();
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/servers/app.py");
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"{}\"]\nport = \"auto\"\n",
            app.display()
        ),
    );
    write(
        d.path(),
        "a.yaml",
        r#"name: makes
secrets: [RUN_WIDE_T]
steps:
  - request:
      url: "{{ web_server.app.url }}/env/NONE?k={{ secrets.RUN_WIDE_T[3:] }}&u={{ secrets.RUN_WIDE_T | replace('-', '_') }}"
      expect: { status: 404 }
  - exec: ["sh", "-c", "echo '{{ secrets.RUN_WIDE_T[4:] }}' > shared.txt"]
"#,
    );
    write(
        d.path(),
        "b.yaml",
        "name: reads\nsteps:\n  - id: cat\n    exec: [cat, shared.txt]\n  - exec: [sh, -c, 'exit 1']\n",
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_together(d.path(), &["a.yaml", "b.yaml", "--jobs", "1"]);
    assert_eq!(code, 1, "only b's last step fails: {stderr}");
    let log = std::fs::read_to_string(d.path().join("art/web_server/app.log"))
        .unwrap_or_else(|e| panic!("no server log: {e}; {stderr}"));
    // The request reached the server, and its log holds the masked query.
    assert!(log.contains("/env/NONE?k=***&u=***"), "{log}");
    let b = &report["flows"][1];
    assert_eq!(b["name"], "reads", "{report}");
    assert_eq!(b["steps"][0]["outputs"]["stdout"], "***", "{b}");
    // The flows' own file holds it raw (runner writes no such file): not searched.
    std::fs::remove_file(d.path().join("shared.txt")).unwrap();
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &[
            ("a slice", SECRET[3..].to_string()),
            ("a replace", SECRET.replace('-', "_")),
            ("another slice", SECRET[4..].to_string()),
        ],
    );
}
