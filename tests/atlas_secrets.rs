//! A secret the recording run declared, shown by the app on a page the atlas recorded masked
//! (`Deploy key: ***`): `atlas replay` and `verify` (and `test`, which verifies first) mask the page they find with it too
//! (the atlas keeps its name, never its value), so it shows nowhere and is no drift.

use std::path::Path;

use crate::common::{free_port, output_within, runner, write};
use crate::secret_search::{as_written, everything, nowhere};
use crate::untrusted_stores::LIMIT;

pub(crate) const KEY: &str = "Kestrel-Vault-9931-Zulu";

/// An app that shows its own deploy key (`$DEPLOY_KEY`) on `/about.html`, linked from `/`.
pub(crate) const APP: &str = r#"import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/about'):
            b = '<!doctype html><title>About</title><main><h1>About</h1><p>Deploy key: %s</p><a href="/">Home</a></main>' % os.environ.get('DEPLOY_KEY', '')
        else:
            b = '<!doctype html><title>Home</title><main><h1>Home</h1><a href="/about.html">About</a></main>'
        b = b.encode()
        self.send_response(200)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header('Content-Length', str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
"#;

/// Records `rec.yaml` (it declares `DEPLOY_KEY`; its path to About is a click) into `./atl`;
/// the app's command and URL, for `--web-server`.
pub(crate) fn recorded(d: &Path) -> (String, String) {
    write(d, "app.py", APP);
    let port = free_port();
    let (cmd, url) = (
        format!("python3 app.py {port}"),
        format!("http://127.0.0.1:{port}/"),
    );
    write(
        d,
        "rec.yaml",
        &format!(
            "name: rec\nsecrets: [DEPLOY_KEY]\nweb_server: {{ command: \"{cmd}\", url: \"{url}\" }}\natlas: ./atl\nsteps:\n  - open: \"{{{{ web_server.url }}}}\"\n  - link_state: home\n  - click: {{ role: link, text: About }}\n  - link_state: about\n"
        ),
    );
    let mut c = runner(d);
    c.args(["run", "rec.yaml", "--artifacts", "rec-artifacts"])
        .env("DEPLOY_KEY", KEY);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    (cmd, url)
}

/// The node the About page was recorded as.
fn about(d: &Path) -> String {
    for e in std::fs::read_dir(d.join("atl/nodes")).unwrap().flatten() {
        let snap = std::fs::read_to_string(e.path().join("snapshot.txt")).unwrap_or_default();
        if snap.contains("Deploy key") {
            assert!(snap.contains("Deploy key: ***"), "{snap}");
            return e.file_name().to_string_lossy().into_owned();
        }
    }
    panic!("no node shows the deploy key");
}

#[test]
fn a_secret_the_recording_declared_is_masked_in_replays_and_is_no_drift() {
    let d = tempfile::tempdir().unwrap();
    let (cmd, url) = recorded(d.path());
    let node = about(d.path());
    // Its name is kept, never its value.
    let settings = std::fs::read_to_string(d.path().join("atl/atlas.json")).unwrap();
    assert!(settings.contains("DEPLOY_KEY"), "{settings}");
    let server = ["--web-server", &cmd, "--web-server-url", &url];
    let mut printed = Vec::new();
    for cmd in [
        vec!["verify", "--report", "json=v.json", "--report", "html=vh"],
        vec!["replay", &node],
    ] {
        let mut c = runner(d.path());
        c.arg("atlas")
            .args(&cmd)
            .args(["--atlas", "atl"])
            .args(server)
            .env("DEPLOY_KEY", KEY);
        let (code, out, err) = output_within(c, LIMIT);
        assert_eq!(code, 0, "{cmd:?}: {out}{err}");
        assert!(!out.contains("data drift:"), "{cmd:?}: {out}");
        assert!(out.contains(&node), "{cmd:?}: {out}");
        printed.push((format!("{cmd:?} stdout"), out));
        printed.push((format!("{cmd:?} stderr"), err));
    }
    assert!(d.path().join("vh/index.html").is_file());
    let printed: Vec<(&str, &str)> = printed
        .iter()
        .map(|(w, t)| (w.as_str(), t.as_str()))
        .collect();
    let all = everything(d.path(), &printed);
    assert!(all.iter().any(|(w, t)| w == "v.json" && t.contains(&node)));
    nowhere(&all, &as_written(&[("the deploy key", KEY.to_string())]));
}

/// A secret the atlas names that is not set now: nothing to mask it with, said once (the
/// replay may show drift where the app shows it).
#[test]
fn a_recorded_secret_not_set_now_is_said() {
    let d = tempfile::tempdir().unwrap();
    let (cmd, url) = recorded(d.path());
    let node = about(d.path());
    let mut c = runner(d.path());
    c.args(["atlas", "replay", &node, "--atlas", "atl"])
        .args(["--web-server", &cmd, "--web-server-url", &url])
        .env_remove("DEPLOY_KEY");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("secret `DEPLOY_KEY`") && err.contains("not set"),
        "{err}"
    );
    assert_eq!(err.matches("DEPLOY_KEY").count(), 1, "{err}");
}
