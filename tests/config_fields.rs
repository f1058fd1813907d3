//! Every field of every file is rendered or refuses a template (issue 27, item 8), and
//! runner.toml is checked like a flow (item 9). (Which fields are which: the schema walk in
//! `src/config/template_fields_tests.rs`.)

use std::path::Path;

use crate::common::{Ran, fixture, flow_run, output, runner, write};

const SECRET: &str = "s3cr3t-h3ad3r-v4lue";

/// `web_server:` serving the echo server (its `/headers` page shows what the browser sent).
fn echo_server(port: u16) -> String {
    format!(
        "web_server:\n  command: [\"python3\", \"{}\", \"{port}\", \"{}\"]\n  url: \"http://127.0.0.1:{port}/index.html\"\n  ready_timeout: 20s\n",
        fixture("echo_server.py").display(),
        fixture("site").display()
    )
}

/// Every file under `dir` whose bytes hold `needle` (what a secret must never be in).
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path()).is_ok_and(|b| {
                b.windows(needle.len())
                    .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
            })
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

/// `browser.headers`, `device`, `locale` and `timezone` are templates: rendered after the
/// flow's vars, before its context is made. A header reaches the server rendered (`X-T:
/// {{ vars.x }}` as `hello`, `Bearer {{ secrets.T }}` with the secret), and the secret — and
/// what a template made of it — is masked in every output, even where the page shows it back.
#[test]
fn browser_settings_render_their_templates_and_mask_the_secrets_in_them() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let settings = format!(
        r#"{server}vars:
  greeting: hello
  lang: de-DE
  zone: Asia/Tokyo
  phone: iPhone 14
secrets: [HEADER_TOKEN]
browser:
  device: "{{{{ vars.phone }}}}"
  locale: "{{{{ vars.lang }}}}"
  timezone: "{{{{ vars.zone }}}}"
  headers:
    X-T: "{{{{ vars.greeting }}}}"
    X-Url: "{{{{ web_server.url }}}}"
    Authorization: "Bearer {{{{ secrets.HEADER_TOKEN }}}}"
    X-Upper: "{{{{ secrets.HEADER_TOKEN | upper }}}}"
"#,
        server = echo_server(port)
    );
    write(
        d.path(),
        "a-rendered.yaml",
        &format!(
            r##"name: rendered
{settings}steps:
  - open: "http://127.0.0.1:{port}/headers"
  - expect: {{ text: {{ target: "#headers", contains: '"X-T": "hello"' }} }}
  - expect: {{ text: {{ target: "#headers", contains: '"X-Url": "http://127.0.0.1:{port}/index.html"' }} }}
  - expect: {{ text: {{ target: "#headers", contains: '"Authorization": "Bearer {{{{ secrets.HEADER_TOKEN }}}}"' }} }}
  - expect: {{ text: {{ target: "#headers", contains: '"X-Upper": "{{{{ secrets.HEADER_TOKEN | upper }}}}"' }} }}
  - expect: {{ not: {{ text: {{ target: "#headers", contains: "{{{{ '{{{{' }}}}" }} }} }}
  - id: page
    eval: "({{ lang: navigator.language, tz: Intl.DateTimeFormat().resolvedOptions().timeZone, ua: navigator.userAgent }})"
  - expect: {{ that: "{{{{ steps.page.value.lang == 'de-DE' and steps.page.value.tz == 'Asia/Tokyo' and 'iPhone' in steps.page.value.ua }}}}" }}
"##
        ),
    );
    // The page shows the headers back, and the failure quotes it.
    write(
        d.path(),
        "b-shown.yaml",
        &format!(
            r##"name: shown
{settings}steps:
  - open: "http://127.0.0.1:{port}/headers"
  - expect: {{ text: {{ target: "#headers", equals: "nothing of the kind" }} }}
    timeout: 1s
"##
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .args(["a-rendered.yaml", "b-shown.yaml"])
        .args([
            "--report",
            &format!("junit={}", d.path().join("junit.xml").display()),
        ])
        .args([
            "--report",
            &format!("html={}", d.path().join("html").display()),
        ])
        .env("HEADER_TOKEN", SECRET)
        .run();
    assert_eq!(code, 1, "{stderr}");
    let flows = report["flows"].as_array().unwrap();
    assert_eq!(flows[0]["status"], "passed", "{}", flows[0]);
    assert_eq!(flows[1]["status"], "failed", "{}", flows[1]);
    let failure = flows[1]["steps"][1]["error"]["message"].as_str().unwrap();
    assert!(failure.contains(r#""X-T": "hello""#), "{failure}");
    assert!(
        failure.contains(r#""Authorization": "Bearer ***""#),
        "{failure}"
    );
    for (what, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        assert!(
            !text.to_lowercase().contains(SECRET),
            "the secret is in {what}:\n{text}"
        );
    }
    let leaks = files_holding(d.path(), SECRET);
    assert!(leaks.is_empty(), "the secret is in {leaks:?}");
}

/// A setting whose template renders to nothing usable fails the flow before its first step,
/// at the setting's line, and `validate` checks the names these templates read.
#[test]
fn browser_setting_templates_are_checked_and_fail_at_their_line() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "unknown.yaml",
        "name: unknown\nbrowser:\n  locale: \"{{ vars.lang }}\"\n  headers: { X-T: \"{{ vars.greting }}\" }\nvars: { greeting: hi }\nsteps:\n  - log: x\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "unknown.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown.yaml:3:15: error: unknown var `lang`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("unknown.yaml:4:19: error: unknown var `greting`"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `greeting`?"), "{stderr}");
    write(
        d.path(),
        "empty.yaml",
        "name: empty\nvars: { lang: \"\" }\nbrowser:\n  locale: \"{{ vars.lang }}\"\nsteps:\n  - open: \"data:text/html,<p>x</p>\"\n",
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("empty.yaml").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("at empty.yaml:4:3")
            && stderr.contains("`browser.locale` (`{{ vars.lang }}`) renders to an empty string"),
        "{stderr}"
    );
}

/// The fields used as written refuse a template at its `file:line:col`, saying the field takes
/// none: a flow's `browser.state` and `browser.cdp`, `description`, `$schema`, `agent`, a
/// header's name; a suite's own `description`; runner.toml's vars, browser settings, paths and
/// reports (templates render only in its `[[web_server]]`).
#[test]
fn fields_used_as_written_refuse_templates() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "flow.yaml",
        r#"$schema: "{{ vars.s }}"
name: literal
description: "about {{ vars.s }}"
agent: "{{ vars.s }}"
vars: { s: x }
browser:
  state: "{{ vars.s }}.json"
  cdp: "ws://{{ env.HOST }}:9222"
  headers: { "X-{{ vars.s }}": "1" }
steps:
  - log: x
"#,
    );
    write(
        d.path(),
        "suite.yaml",
        "name: s\ndescription: \"{{ vars.s }}\"\nflows:\n  - name: a\n    steps: [{ log: x }]\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "flow.yaml", "suite.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    for want in [
        "flow.yaml:1:10: error: `$schema` takes no templates: `{{ vars.s }}` would be used as written",
        "flow.yaml:3:14: error: `description` takes no templates",
        "flow.yaml:4:8: error: `agent` takes no templates",
        "flow.yaml:7:10: error: `browser.state` takes no templates: `{{ vars.s }}.json` would be used as written",
        "flow.yaml:8:8: error: `browser.cdp` takes no templates",
        "flow.yaml:9:14: error: the names in `browser.headers` take no templates: `X-{{ vars.s }}` would be used as written",
        "suite.yaml:2:14: error: `description` takes no templates",
    ] {
        assert!(stderr.contains(want), "{want}\n{stderr}");
    }
    assert!(stderr.contains("7 problems in 2 files"), "{stderr}");
    write(
        d.path(),
        "runner.toml",
        r#"flows = ["{{ vars.dir }}"]
reports = ["json={{ env.OUT }}"]

[vars]
base = "{{ env.BASE }}"

[browser]
locale = "{{ vars.lang }}"
headers = { Authorization = "Bearer {{ secrets.T }}" }
"#,
    );
    let mut c = runner(d.path());
    c.args(["validate", "suite.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    for want in [
        "runner.toml:1:10: error: `flows[0]` takes no templates: `{{ vars.dir }}` would be used as written",
        "runner.toml:2:12: error: `reports[0]` takes no templates",
        "runner.toml:5:8: error: `vars.base` takes no templates",
        "runner.toml:8:10: error: `browser.locale` takes no templates",
        "runner.toml:9:29: error: `browser.headers.Authorization` takes no templates",
        "help: runner.toml renders templates only in `[[web_server]]`",
    ] {
        assert!(stderr.contains(want), "{want}\n{stderr}");
    }
    // `runner run` refuses it too, before running anything.
    let mut c = runner(d.path());
    c.args(["run", "suite.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`vars.base` takes no templates"),
        "{stderr}"
    );
}

/// runner.toml's durations follow a flow's rules, at their `file:line:col`: `0s` (which would
/// turn the timeout off), more than 7 days, and a number too large for the clock are refused —
/// with the very words the same values get in a flow — by `validate` and by `run`.
#[test]
fn runner_toml_durations_are_checked_like_a_flows() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "flow.yaml",
        "name: f\ndefaults: { timeout: 0s }\nbrowser: { timeout: 200h }\nweb_server: { command: \"true\", port: auto, ready_timeout: 99999999999999999999s }\nsteps:\n  - log: x\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "flow.yaml"]);
    let (code, _, flow_err) = output(c);
    assert_eq!(code, 2, "{flow_err}");
    write(d.path(), "ok.yaml", "name: ok\nsteps:\n  - log: x\n");
    let cases: [(&str, &[(&str, &str)]); 2] = [
        (
            "timeout = \"0s\"\n\n[browser]\ntimeout = \"200h\"\n",
            &[
                ("runner.toml:1:11", "duration `0s` must be more than zero"),
                ("runner.toml:4:11", "duration `200h` is longer than 7 days"),
            ],
        ),
        (
            "timeout = \"99999999999999999999s\"\n\n[[web_server]]\nname = \"app\"\ncommand = \"true\"\nport = \"auto\"\nready_timeout = \"0s\"\n",
            &[
                (
                    "runner.toml:1:11",
                    "invalid duration `99999999999999999999s`",
                ),
                ("runner.toml:7:17", "duration `0s` must be more than zero"),
            ],
        ),
    ];
    for (toml, wants) in cases {
        write(d.path(), "runner.toml", toml);
        for args in [["validate", "ok.yaml"], ["run", "ok.yaml"]] {
            let mut c = runner(d.path());
            c.args(args);
            let (code, _, stderr) = output(c);
            assert_eq!(code, 2, "{args:?}: {stderr}");
            for (at, message) in wants {
                assert!(
                    stderr.contains(&format!("{at}: error: {message}")),
                    "{args:?}: {at} {message}\n{stderr}"
                );
                let word = message.split(':').next().unwrap_or(message);
                assert!(flow_err.contains(word), "{message}\n{flow_err}");
            }
            let helps = stderr.matches("help: write a number and a unit").count();
            assert_eq!(helps, wants.len(), "{stderr}");
        }
    }
}

/// The servers' settings are templates, rendered when each starts: a flow's `web_server`
/// (`command`, `url`, `ready_url`, `cwd`, `env`, from its vars) and runner.toml's
/// `[[web_server]]` (from `env`; `static` too). Taken as written, the command would not start,
/// readiness would poll a path with braces in it, and the app would see other values.
#[test]
fn server_settings_render_their_templates() {
    let d = tempfile::tempdir().unwrap();
    for dir in ["srv", "files"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    std::fs::write(d.path().join("files/hello.txt"), "served from files").unwrap();
    let app = fixture("servers/app.py");
    write(
        d.path(),
        "runner.toml",
        r#"[[web_server]]
name = "app"
command = ["python3", "{{ env.APP_PY }}"]
port = "auto"
url = "http://127.0.0.1:{{ web_server.port }}"
ready_url = "{{ env.READY_PATH }}"
cwd = "{{ env.APP_DIR }}"
env = { GREETING = "hello {{ env.WHO }}" }

[[web_server]]
name = "files"
static = "{{ env.FILES_DIR }}"
"#,
    );
    let get = "[python3, -c, \"import sys, urllib.request; print(*(urllib.request.urlopen(sys.argv[1] + p).read().decode() for p in sys.argv[2:]))\"";
    write(
        d.path(),
        "f.yaml",
        &format!(
            r#"name: servers
vars: {{ app: "{app}", dir: srv, ready: /env/GREETING, who: world }}
web_server:
  command: [python3, "{{{{ vars.app }}}}"]
  port: auto
  url: "http://127.0.0.1:{{{{ web_server.port }}}}"
  ready_url: "{{{{ vars.ready }}}}"
  cwd: "{{{{ vars.dir }}}}"
  env: {{ GREETING: "hi {{{{ vars.who }}}}" }}
steps:
  - id: own
    exec: {get}, "{{{{ web_server.url }}}}", /env/GREETING, /env/PWD]
  - id: shared
    exec: {get}, "{{{{ web_server.app.url }}}}", /env/GREETING, /env/PWD]
  - id: files
    exec: {get}, "{{{{ web_server.files.url }}}}", /hello.txt]
  - expect: {{ that: "{{{{ steps.own.stdout == 'hi world ' ~ flow.dir ~ '/srv' }}}}" }}
  - expect: {{ that: "{{{{ steps.shared.stdout == 'hello world ' ~ flow.dir ~ '/srv' }}}}" }}
  - expect: {{ that: "{{{{ steps.files.stdout == 'served from files' }}}}" }}
  - expect: {{ that: "{{{{ web_server.url == 'http://127.0.0.1:' ~ web_server.port }}}}" }}
"#,
            app = app.display()
        ),
    );
    flow_run(d.path())
        .arg("f.yaml")
        .env("APP_PY", &app)
        .env("READY_PATH", "/env/GREETING")
        .env("APP_DIR", "srv")
        .env("WHO", "world")
        .env("FILES_DIR", "files")
        .passes();
    assert!(!d.path().join("{{ env.FILES_DIR }}").exists());
}
