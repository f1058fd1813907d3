//! Secrets that reach an output another way than as text a step prints (issue 27): split by a
//! control character or an escape sequence that the console, the annotations, JUnit and the HTML
//! report take out (the text shown would hold the secret whole), printed by a web server (its log
//! and the tail shown when it fails), and a remote browser's DevTools URL that carries a token or
//! a password. Each test greps every output as a reader sees it: as written, and with escape
//! sequences, control and invisible characters taken out (after JSON and annotation escapes
//! are read back).

use std::path::Path;

use crate::common::{Ran, flow_run, free_port, logging_agent_browser, output, runner, step, write};
use crate::secret_search::{all_shown, as_written, nowhere, nowhere_shown, run_failing_last};

/// The secret: a word, a dash, the rest; the commands below print the two parts with a
/// control character, an escape sequence or an invisible character between them.
const CTRL_SECRET: &str = "kestrel-Vault-9931";

/// Prints the secret of `$TOK` split ten ways, `<i … i>` each, on one line of stdout or
/// stderr, and exits with the code given.
const SPLITTER: &str = r#"import os, sys
a, b = os.environ['TOK'].split('-', 1)
seps = ['\x01', '\x1b[0m', '\r', '\x1b]0;title\x07', '\x1b', '\u200b', '\x9b', '\x7f', '\u202e',
        '\x1b[31;1m\x1b[0m\x01']
line = ' '.join('<%d %s-%s%s %d>' % (i, a, s, b, i) for i, s in enumerate(seps))
print(line, file=sys.stdout if sys.argv[1] == 'out' else sys.stderr, flush=True)
sys.exit(int(sys.argv[2]))
"#;

/// A secret split by a control character or an escape sequence is masked where it is printed,
/// whole (the characters between its parts too): a command's stdout (the report, the
/// artifacts), a `log` of it, a failing command's stderr (the console, the annotations, the
/// job summary, JUnit, the HTML report). Nothing shows it once cleaned.
#[test]
fn a_secret_split_by_control_characters_or_escapes_is_masked_everywhere() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "split.py", SPLITTER);
    write(
        d.path(),
        "hidden.yaml",
        r#"name: hidden secret
secrets: [CTRL_SECRET]
env: { TOK: "{{ secrets.CTRL_SECRET }}" }
steps:
  - id: out
    exec: [python3, split.py, out, "0"]
  - log: "L {{ steps.out.stdout }}"
  - exec: [python3, split.py, err, "3"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "hidden.yaml", "CTRL_SECRET", CTRL_SECRET);
    let masked: Vec<String> = (0..10).map(|i| format!("<{i} *** {i}>")).collect();
    let masked = masked.join(" ");
    assert_eq!(
        step(&report, "out")["outputs"]["stdout"],
        masked,
        "{report}"
    );
    assert!(stderr.contains(&format!("│ L {masked}")), "{stderr}");
    assert!(stderr.contains(&format!("stderr: {masked}")), "{stderr}");
    assert!(
        stdout.contains("::error ") && stdout.contains(&format!("stderr: {masked}")),
        "{stdout}"
    );
    let forms = [("the secret", CTRL_SECRET.to_string())];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// Serves 200 on `$PORT` after printing the secret in `$NAME` (argv 1) plainly on stdout and
/// split by a control character on stderr; with `die` it exits before it serves.
const SERVER: &str = r#"import http.server, os, sys
t = os.environ[sys.argv[1]]
a, b = t.split('-', 1)
print('plain ' + t, flush=True)
print('split %s-\x01%s' % (a, b), file=sys.stderr, flush=True)
if sys.argv[2:] == ['die']:
    sys.exit(1)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(s):
        s.send_response(200); s.end_headers(); s.wfile.write(b'ok')
    def log_message(s, *a):
        print('served ' + t, flush=True)
http.server.HTTPServer(('127.0.0.1', int(os.environ['PORT'])), H).serve_forever()
"#;

/// The secret a flow's web server prints, and one the run's server prints.
const SRV_SECRET: &str = "osprey-Harbor-4417";
const RUN_SECRET: &str = "heron-Quay-2290";

/// What web servers print is masked as it is written: a flow's server log (and its copy in the
/// HTML report), the run's server log (runner.toml's `[[web_server]]`: the secrets the run's
/// flows declare), and the last lines a failure shows, of a flow's server and of the run's.
#[test]
fn web_server_logs_and_their_tails_are_masked() {
    let d = tempfile::tempdir().unwrap();
    let flows = |dir: &Path, run_server: &str| {
        std::fs::create_dir_all(dir).unwrap();
        write(dir, "srv.py", SERVER);
        write(
            dir,
            "runner.toml",
            &format!(
                "[[web_server]]\nname = \"app\"\ncommand = [\"python3\", \"srv.py\", \"RUN_SECRET\"{run_server}]\nport = \"auto\"\n"
            ),
        );
        for (name, arg) in [("served", ""), ("dies", ", die")] {
            write(
                dir,
                &format!("{name}.yaml"),
                &format!(
                    r#"name: {name}
secrets: [SRV_SECRET, RUN_SECRET]
web_server: {{ command: [python3, srv.py, SRV_SECRET{arg}], port: auto }}
steps:
  - exec: [curl, -sf, "{{{{ web_server.url }}}}/", "{{{{ web_server.app.url }}}}/"]
"#
                ),
            );
        }
    };
    let run = |dir: &Path| {
        let ran = flow_run(dir)
            .env("SRV_SECRET", SRV_SECRET)
            .env("RUN_SECRET", RUN_SECRET)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
            .args([
                "served.yaml",
                "dies.yaml",
                "--report",
                "junit=r.xml",
                "--report",
                "html=html",
            ])
            .run();
        (ran.stdout, ran.stderr, ran.report)
    };
    // The run's server up: one flow passes, the other's server dies.
    let up = d.path().join("up");
    flows(&up, "");
    let (out1, err1, report) = run(&up);
    let flow = |name: &str| {
        report["flows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no flow {name}: {report}"))
            .clone()
    };
    assert_eq!(flow("served")["status"], "passed", "{err1}");
    assert_eq!(flow("dies")["status"], "error", "{err1}");
    let flow_log =
        std::fs::read_to_string(flow("served")["web_server_log"].as_str().unwrap()).unwrap();
    assert!(
        flow_log.contains("plain ***")
            && flow_log.contains("split ***")
            && flow_log.contains("served ***"),
        "{flow_log}"
    );
    let run_log = std::fs::read_to_string(up.join("art/web_server/app.log")).unwrap();
    assert!(
        run_log.contains("plain ***") && run_log.contains("served ***"),
        "{run_log}"
    );
    assert!(
        err1.contains("| plain ***") && err1.contains("| split ***"),
        "the dead server's tail: {err1}"
    );
    let assets: Vec<_> = std::fs::read_dir(up.join("html/assets"))
        .map(|r| {
            r.flatten()
                .filter(|e| e.file_name() != ".runner-assets")
                .collect()
        })
        .unwrap_or_default();
    assert!(!assets.is_empty(), "the HTML report copies the logs");
    // The run's server dies: its tail is in every flow's error.
    let down = d.path().join("down");
    flows(&down, ", \"die\"");
    let (out2, err2, _) = run(&down);
    assert!(
        err2.contains("did not start") && err2.contains("| plain ***"),
        "{err2}"
    );

    let forms = [
        ("the flow's server's secret", SRV_SECRET.to_string()),
        ("the run's server's secret", RUN_SECRET.to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[
            ("stdout", &out1),
            ("stderr", &err1),
            ("stdout (run's server dead)", &out2),
            ("stderr (run's server dead)", &err2),
        ],
        &forms,
    );
}

/// The secret a run's server's templates turn into other values.
const TOML_SECRET: &str = "grebe-Lantern-6612";

/// What runner.toml's `[[web_server]]` templates make of a secret's value in `env` (reversed,
/// upper-cased) is masked as what a flow's templates make of one: in the server's log, and in
/// what the server shows a flow that declares the secret.
#[test]
fn what_a_run_servers_templates_make_of_a_secret_is_masked() {
    let d = tempfile::tempdir().unwrap();
    let flows = d.path().join("flows");
    std::fs::create_dir_all(&flows).unwrap();
    // What the server serves is its own file, outside what is searched.
    let www = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "runner.toml",
        &r#"[[web_server]]
name = "app"
command = ["sh", "-c", "echo REV={{ env.TOK | reverse }} UP={{ env.TOK | upper }}; cd WWW; echo 'served {{ env.TOK | reverse }}' > served.txt; exec python3 -m http.server --bind 127.0.0.1 $PORT"]
port = "auto"
"#
        .replace("WWW", &www.path().display().to_string()),
    );
    write(
        &flows,
        "f.yaml",
        r#"name: toml server
secrets: [TOK]
steps:
  - id: got
    exec: [curl, -sf, "{{ web_server.app.url }}/served.txt"]
"#,
    );
    let ran = flow_run(d.path())
        .env("TOK", TOML_SECRET)
        .args(["flows", "--report", "junit=r.xml", "--report", "html=html"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let log = std::fs::read_to_string(d.path().join("art/web_server/app.log")).unwrap();
    assert_eq!(log.lines().next(), Some("REV=*** UP=***"), "{log}");
    assert_eq!(
        step(&ran.report, "got")["outputs"]["stdout"],
        "served ***",
        "{}",
        ran.report
    );
    let rev: String = TOML_SECRET.chars().rev().collect();
    let forms = as_written(&[
        ("the secret reversed", rev),
        ("the secret upper-cased", TOML_SECRET.to_uppercase()),
    ]);
    let printed = [
        ("stdout", ran.stdout.as_str()),
        ("stderr", ran.stderr.as_str()),
    ];
    nowhere(&all_shown(d.path(), &printed), &forms);
}

/// The token in a DevTools URL's query, and the password in one's user info.
const CDP_TOKEN: &str = "T0ken-Wren-5521";
const CDP_PASSWORD: &str = "Pa55-Stork-7780";

/// A remote browser's DevTools URL (`browser.cdp`, `--browser-cdp`) may carry a token in its
/// query or a password before its host: their values are masked in every output, as secrets
/// are, without the flow declaring one. The errors still name the browser.
#[test]
fn a_devtools_urls_token_and_password_are_masked_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let refused = free_port();
    write(
        d.path(),
        "token.yaml",
        &format!(
            "name: token\nbrowser: {{ cdp: \"ws://127.0.0.1:{refused}/devtools/browser?token={CDP_TOKEN}&v=1\", timeout: 2s }}\nsteps:\n  - open: \"data:text/html,<p>hi</p>\"\n"
        ),
    );
    // agent-browser through a wrapper that logs its argv (outside the directory searched).
    let w = tempfile::tempdir().unwrap();
    let (wrapper, log) = logging_agent_browser(w.path());
    let token = flow_run(d.path())
        .env("AGENT_BROWSER", &wrapper)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", d.path().join("summary.md"))
        .args([
            "token.yaml",
            "--report",
            "junit=r.xml",
            "--report",
            "html=html",
        ])
        .run();
    assert_eq!(token.code, 3, "{}", token.stderr);
    assert!(
        token.stderr.contains(&format!(
            "ws://127.0.0.1:{refused}/devtools/browser?token=***&v=***"
        )),
        "{}",
        token.stderr
    );

    // It was told of the browser in its environment; its argv holds no token.
    let calls = std::fs::read_to_string(&log).unwrap();
    let given: Vec<&str> = calls
        .lines()
        .filter_map(|l| l.strip_prefix("AGENT_BROWSER_CDP="))
        .collect();
    assert!(
        !given.is_empty() && given.iter().all(|l| l.contains(CDP_TOKEN)),
        "{calls}"
    );
    for l in &given {
        let argv = l.split_once(' ').map_or("", |(_, a)| a);
        assert!(!argv.contains(CDP_TOKEN), "{calls}");
    }

    let silent = crate::silent_browsers::SilentBrowser::start("silent");
    let e = tempfile::tempdir().unwrap();
    write(
        e.path(),
        "password.yaml",
        "name: password\nbrowser: { timeout: 2s }\nsteps:\n  - open: \"data:text/html,<p>hi</p>\"\n",
    );
    let url = format!("http://admin:{CDP_PASSWORD}@127.0.0.1:{}", silent.port);
    let password = flow_run(e.path())
        .args(["password.yaml", "--browser-cdp", &url])
        .run();
    assert_eq!(password.code, 3, "{}", password.stderr);
    assert!(
        password.stderr.contains(&format!(
            "http://admin:***@127.0.0.1:{} did not answer",
            silent.port
        )),
        "{}",
        password.stderr
    );
    // `runner doctor` checks the same browser, and says so the same way.
    let mut c = runner(e.path());
    c.args(["doctor", "--browser-cdp", &url]);
    let (_, doc_out, doc_err) = output(c);
    assert!(
        format!("{doc_out}{doc_err}").contains("admin:***@"),
        "{doc_out}{doc_err}"
    );

    let forms = as_written(&[
        ("the token", CDP_TOKEN.to_string()),
        ("the password", CDP_PASSWORD.to_string()),
    ]);
    let mut texts = all_shown(
        d.path(),
        &[("stdout", &token.stdout), ("stderr", &token.stderr)],
    );
    texts.extend(all_shown(
        e.path(),
        &[
            ("stdout", &password.stdout),
            ("stderr", &password.stderr),
            ("doctor's stdout", &doc_out),
            ("doctor's stderr", &doc_err),
        ],
    ));
    // (The flow file itself holds the token: it is where the user wrote it.)
    texts.retain(|(w, _)| !w.starts_with("token.yaml"));
    nowhere(&texts, &forms);
}
