//! What runner reads from outside, tried as a careless user or an attacker would: var files in
//! every format and with every oddity (a FIFO, a BOM, a NUL, a list, a YAML tag), files given on
//! the command line that are not regular files, and whole numbers too large for their field, in
//! flows, the project file and flags. Each is refused with the file, line and column and a
//! message that says what the file or field takes (exit 2), or read as the user meant.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{flow_run, output, runner, write};

/// A flow that passes when `vars.x` is `want` (and says what it was otherwise).
fn expects_x(dir: &Path, want: &str) {
    write(
        dir,
        "x.yaml",
        &format!(
            "name: x\nvars:\n  x: unset\nsteps:\n  - log: \"x is {{{{ vars.x }}}}\"\n  - expect: {{ that: \"{{{{ vars.x == '{want}' }}}}\" }}\n"
        ),
    );
}

/// Runs `c` to its end, which must come within 20 s (a read that blocks must not hang the test:
/// the child is killed and the test fails); (exit code, stderr).
fn finishes(mut c: Command) -> (i32, String) {
    let mut child = c
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the runner binary starts");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait for runner") {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
            return (status.code().unwrap_or(-1), stderr);
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("runner still runs after 20 s: it blocks on a read");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn files_given_on_the_command_line_must_be_regular_files() {
    let d = tempfile::tempdir().unwrap();
    let fifo = |name: &str| {
        nix::unistd::mkfifo(&d.path().join(name), nix::sys::stat::Mode::S_IRWXU).unwrap();
    };
    fifo("vars.env");
    fifo("vars.yaml");
    fifo("flow.yaml");
    fifo("shard.json");
    expects_x(d.path(), "1");
    for args in [
        &["run", "x.yaml", "--var-file", "vars.env"][..],
        &["run", "x.yaml", "--var-file", "vars.yaml"],
        &["validate", "flow.yaml"],
        &["run", "flow.yaml"],
        &[
            "merge-reports",
            "shard.json",
            "--report",
            "json=merged.json",
        ],
    ] {
        let mut c = runner(d.path());
        c.args(args);
        let (code, stderr) = finishes(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("is a FIFO (named pipe), not a regular file"),
            "{args:?}: {stderr}"
        );
    }
    assert!(!d.path().join("merged.json").exists());
    // A sub-flow too: refused at the step that runs it.
    write(
        d.path(),
        "calls.yaml",
        "name: calls\nsteps:\n  - run_flow: flow.yaml\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "calls.yaml"]);
    let (code, stderr) = finishes(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("calls.yaml:3:15: error: sub-flow `flow.yaml` is not a regular file"),
        "{stderr}"
    );
}

#[test]
fn var_files_lose_a_byte_order_mark() {
    let d = tempfile::tempdir().unwrap();
    expects_x(d.path(), "1");
    for (name, text) in [
        ("bom.env", "\u{feff}x=1\n"),
        ("bom.yaml", "\u{feff}x: \"1\"\n"),
        ("bom.toml", "\u{feff}x = \"1\"\n"),
        ("bom.json", "\u{feff}{\"x\": \"1\"}\n"),
    ] {
        write(d.path(), name, text);
        let mut c = runner(d.path());
        c.args(["run", "x.yaml", "--var-file", name]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert!(!stderr.contains("not used by any flow"), "{name}: {stderr}");
    }
    // Flow files and the project file lose theirs too.
    write(d.path(), "runner.toml", "\u{feff}jobs = 2\n");
    write(
        d.path(),
        "bom-flow.yaml",
        "\u{feff}name: b\nsteps:\n  - log: hi\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "bom-flow.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn var_files_are_refused_with_the_place_and_what_they_take() {
    let d = tempfile::tempdir().unwrap();
    expects_x(d.path(), "1");
    let cases: &[(&str, &str, &str)] = &[
        (
            "nul.env",
            "y=2\nx=a\0b\n",
            "nul.env:2:4: error: the file holds a NUL byte",
        ),
        (
            "nul.yaml",
            "x: \"a\\0b\"\n",
            "nul.yaml:1:4: error: the value of `x` holds a NUL character",
        ),
        (
            "list.yaml",
            "- a\n- b\n",
            "list.yaml:1:1: error: a var file holds a mapping of names to values, not a list",
        ),
        (
            "scalar.json",
            "\"x\"\n",
            "scalar.json:1:1: error: a var file holds a mapping of names to values, not a string",
        ),
        (
            "tag.yaml",
            "x: !!binary aGVsbG8=\n",
            "tag.yaml:1:4: error: runner does not read the YAML tag `!!binary`",
        ),
        (
            "custom.yaml",
            "x: !secret abc\n",
            "custom.yaml:1:4: error: runner does not read the YAML tag `!secret`",
        ),
        (
            "broken.json",
            "{\"x\": 1,,}\n",
            "broken.json:1:9: error: invalid JSON",
        ),
        (
            "vars.txt",
            "x=1\n",
            "error: vars.txt: a var file is .env (KEY=VALUE lines), .yaml, .yml, .toml or .json",
        ),
        ("noeq.env", "x\n", "noeq.env:1:1: error: expected KEY=VALUE"),
        (
            "quote.env",
            "y=2\nx=\"abc\n",
            "quote.env:2:3: error: the quote `\"` that starts this value is not closed on its line",
        ),
        (
            "single.env",
            "x= 'abc\r\n",
            "single.env:1:4: error: the quote `'` that starts this value is not closed on its line",
        ),
        (
            "after.env",
            "x=\"a\" b\n",
            "after.env:1:7: error: text after the closing quote `\"` of this value",
        ),
    ];
    for (name, text, want) in cases {
        write(d.path(), name, text);
        let mut c = runner(d.path());
        c.args(["run", "x.yaml", "--var-file", name]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(
            stderr.contains(want),
            "{name}: wanted `{want}` in:\n{stderr}"
        );
        for flow_help in ["not a flow file", "`steps`", "steps:", "internal error"] {
            assert!(!stderr.contains(flow_help), "{name}: {stderr}");
        }
    }
}

/// `.env` values read as python-dotenv and Docker Compose read them: a `#` after a space or a
/// tab starts a comment in an unquoted value (not one inside a word), quoted values keep theirs,
/// double quotes read escapes, single quotes keep what is inside them as written. `validate`
/// checks a `.env` file named to it as `run --var-file` reads it.
#[test]
fn env_files_read_comments_and_quotes_as_dotenv_does() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "v.env",
        concat!(
            "a=1 # a comment\n",
            "b=x#y\n",
            "c=\"q # kept\" # a comment\n",
            "d='single # \\n kept'\n",
            "e=\"say \\\"hi\\\" \\\\ \\t\"\n",
            "f=  spaced value\t# c\r\n",
            "g=#not a comment\n",
            "h=\n",
        ),
    );
    write(
        d.path(),
        "x.yaml",
        "name: dotenv\nvars: { a: '', b: '', c: '', d: '', e: '', f: '', g: '', h: '' }\nsteps:\n  - log: \"{{ vars | tojson }}\"\n",
    );
    let report = flow_run(d.path())
        .args(["x.yaml", "--var-file", "v.env"])
        .passes();
    let logged = report["flows"][0]["steps"][0]["outputs"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no log in {report}"));
    let vars: Value = serde_json::from_str(logged).unwrap();
    assert_eq!(
        vars,
        serde_json::json!({
            "a": "1", "b": "x#y", "c": "q # kept", "d": "single # \\n kept",
            "e": "say \"hi\" \\ \t", "f": "spaced value", "g": "#not a comment", "h": ""
        })
    );
    let mut c = runner(d.path());
    c.args(["validate", "v.env"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    // An unclosed quote: refused by validate as by run, at the quote.
    write(d.path(), "bad.env", "a=1\nb=\"abc\n");
    let mut c = runner(d.path());
    c.args(["validate", "bad.env"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("bad.env:2:3: error: the quote `\"` that starts this value is not closed"),
        "{stderr}"
    );
}

#[test]
fn json_var_files_set_vars() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "x.yaml",
        "name: x\nvars:\n  x: unset\n  n: 0\n  list: []\nsteps:\n  - expect: { that: \"{{ vars.x == 'from json' and vars.n == 3 and vars.list[1].k == true }}\" }\n",
    );
    write(
        d.path(),
        "vars.json",
        "{\n\t\"x\": \"from json\",\n\t\"n\": 3,\n\t\"list\": [1, {\"k\": true}]\n}\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "x.yaml", "--var-file", "vars.json"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    // dotenv's other names are .env files too.
    expects_x(d.path(), "local");
    write(d.path(), ".env.local", "x=local\n");
    let mut c = runner(d.path());
    c.args(["run", "x.yaml", "--var-file", ".env.local"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn yaml_tags_runner_does_not_read_are_refused_in_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "tags.yaml",
        "name: t\nvars:\n  a: !!binary aGVsbG8=\n  b: !!set { x }\n  c: !!str 5\n  d: !!int \"7\"\nsteps:\n  - log: \"{{ vars.a }}\"\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "tags.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("tags.yaml:3:6: error: runner does not read the YAML tag `!!binary`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("tags.yaml:4:6: error: runner does not read the YAML tag `!!set`"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("tags.yaml:5:"),
        "`!!str` is read: {stderr}"
    );
    assert!(
        !stderr.contains("tags.yaml:6:"),
        "`!!int` is read: {stderr}"
    );
    // The core schema's tags are read for what they say.
    write(
        d.path(),
        "core.yaml",
        "name: t\nvars:\n  c: !!str 5\n  d: !!int \"7\"\nsteps:\n  - expect: { that: \"{{ vars.c == '5' and vars.d == 7 }}\" }\n",
    );
    let mut c = runner(d.path());
    c.args(["run", "core.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
}

/// (a step's `retry`/selector/... written with a number, what validate must say)
const NUMBERS: &[(&str, &str)] = &[
    (
        "- exec: \"true\"\n  retry: { attempts: 99999999999999999999999 }",
        "`attempts` must be between 1 and 1000",
    ),
    (
        "- exec: \"true\"\n  retry: { attempts: 99999999999 }",
        "`attempts` must be between 1 and 1000",
    ),
    (
        "- exec: \"true\"\n  retry: { attempts: 0x7fffffffffffffffffff }",
        "`attempts` must be between 1 and 1000",
    ),
    (
        "- exec: \"true\"\n  retry: { attempts: 5.0 }",
        "`attempts` must be a whole number, not `5.0`",
    ),
    (
        "- exec: \"true\"\n  retry: { attempts: 1e3 }",
        "`attempts` must be a whole number, not `1e3`",
    ),
    (
        "- click: { css: li, nth: 99999999999999999999 }",
        "`nth` must be between",
    ),
    (
        "- snapshot: { depth: 99999999999 }",
        "`depth` must be between 0 and",
    ),
    (
        "- expect: { count: { target: li, equals: 1e30 } }",
        "`equals` must be between 0 and",
    ),
    (
        "- expect: { tabs: { count: 99999999999999999999 } }",
        "`count` must be between 0 and",
    ),
    ("- scroll: { by: 1e300 }", "`by` must be between"),
    // A number is quoted as it is written, not as the float it became.
    (
        "- exec: \"true\"\n  timeout: 99999999999999999999",
        "`timeout` must be a string, not the number `99999999999999999999`",
    ),
];

#[test]
fn whole_numbers_out_of_range_are_refused_with_the_range() {
    let d = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, (steps, _)) in NUMBERS.iter().enumerate() {
        let steps: String = steps.lines().map(|l| format!("  {l}\n")).collect();
        let name = format!("n{i:02}.yaml");
        write(d.path(), &name, &format!("name: n{i}\nsteps:\n{steps}"));
        files.push(name);
    }
    write(
        d.path(),
        "big.toml",
        "name = \"t\"\nbrowser = { viewport = { width = 99999999999999999999, height = 600 } }\n[[steps]]\nexec = \"true\"\nretry = { attempts = 99999999999999999999 }\n",
    );
    files.push("big.toml".into());
    let mut c = runner(d.path());
    c.args(["validate", "--format", "json"]).args(&files);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(!stdout.contains("internal error"), "{stdout}");
    let diags: Vec<Value> = serde_json::from_str(&stdout).expect("a JSON list");
    let said = |file: &str| -> Vec<String> {
        diags
            .iter()
            .filter(|d| d["file"] == file)
            .map(|d| format!("{}:{} {}", d["line"], d["col"], d["message"]))
            .collect()
    };
    let mut missing = Vec::new();
    for (i, (steps, want)) in NUMBERS.iter().enumerate() {
        let file = format!("n{i:02}.yaml");
        let line = format!("{}:", 2 + steps.lines().count());
        if !said(&file)
            .iter()
            .any(|s| s.starts_with(&line) && s.contains(want))
        {
            missing.push(format!(
                "{file} ({steps}): wanted `{want}` on line {line} got {:?}",
                said(&file)
            ));
        }
    }
    let toml = said("big.toml");
    // One message a number: the range, not also "must be a whole number".
    assert_eq!(toml.len(), 2, "{toml:?}");
    for want in [
        "2:34 \"`width` must be between 1 and 100000\"",
        "5:22 \"`attempts` must be between 1 and 1000\"",
    ] {
        if !toml.iter().any(|s| s.starts_with(want)) {
            missing.push(format!("big.toml: wanted `{want}`, got {toml:?}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn jobs_and_retries_out_of_range_say_the_range() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "ok.yaml", "name: ok\nsteps:\n  - log: hi\n");
    for (flag, value, want) in [
        ("--jobs", "99999999999999999999", "must be between 1 and 64"),
        ("--jobs", "100", "must be between 1 and 64"),
        ("--jobs", "two", "must be a whole number"),
        (
            "--retries",
            "99999999999999999999",
            "must be between 0 and 100",
        ),
        (
            "--repeat-each",
            "99999999999999999999",
            "must be between 1 and 1000",
        ),
    ] {
        let mut c = runner(d.path());
        c.args(["run", "ok.yaml", flag, value]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{flag} {value}: {stderr}");
        assert!(stderr.contains(want), "{flag} {value}: {stderr}");
        assert!(!stderr.contains("too large to fit"), "{stderr}");
    }
    let mut c = runner(d.path());
    c.args(["explore", "/", "--web-server", "true", "--web-server-port"])
        .arg("99999999999999999999");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--web-server-port: `99999999999999999999` is not a port")
            && stderr.contains("1-65535"),
        "{stderr}"
    );
    let mut c = runner(d.path());
    c.args(["run", "ok.yaml", "--shard", "1/99999999999999999999"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("N must be between 1 and"), "{stderr}");
    for (text, want) in [
        (
            "jobs = 99999999999999999999\n",
            "runner.toml:1:8: error: `jobs` must be between 1 and 64",
        ),
        (
            "retries = 99999999999999999999\n",
            "runner.toml:1:11: error: `retries` must be between 0 and 100",
        ),
        (
            "jobs = 1000\n",
            "runner.toml:1:8: error: `jobs` must be between 1 and 64",
        ),
    ] {
        write(d.path(), "runner.toml", text);
        let mut c = runner(d.path());
        c.args(["validate", "ok.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{text}: {stderr}");
        assert!(stderr.contains(want), "{text}: {stderr}");
        assert!(!stderr.contains("not the string"), "{stderr}");
    }
}
