//! runner's hold on new tabs (a flow's settings reach the tabs its pages open, see
//! `driver::new_tabs`) never reaches the tabs of a browser's other clients: on a running browser
//! elsewhere (`--browser-cdp`), which others may use, runner holds no tab. Chromium does not let a
//! held tab run when the connection that holds it ends, so a runner stopped or killed while it
//! held another client's popup would leave that popup blank and its opener frozen for good.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{free_port, write};
use crate::contexts::RemoteBrowser;

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Another client of the browser: a DevTools connection of the test's own.
struct Client {
    ws: Socket,
    id: u64,
}

impl Client {
    async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Client { ws, id: 0 }
    }

    /// Calls `method` (in `session`, when given) and returns its answer, events skipped.
    async fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.id += 1;
        let mut m = json!({ "id": self.id, "method": method, "params": params });
        if let Some(s) = session {
            m["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(m.to_string())).await.unwrap();
        while let Some(m) = self.ws.next().await {
            if let Message::Text(t) = m.unwrap() {
                let v: Value = serde_json::from_str(&t).unwrap();
                if v["id"] == self.id {
                    return v;
                }
            }
        }
        panic!("the browser closed the connection during {method}");
    }
}

/// The browser's own DevTools WebSocket URL.
fn browser_ws(http: &str) -> String {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys, urllib.request\nprint(json.load(urllib.request.urlopen(sys.argv[1] + '/json/version'))['webSocketDebuggerUrl'])",
            http,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Another client of the browser at `ws` opens a page of `base`, and from it a popup
/// (`window.open`): whether the opener's script went on (`window.open` returned) and the popup's
/// own script ran, each within `limit`.
async fn other_clients_popup(ws: &str, base: &str, limit: Duration) -> (bool, bool) {
    let mut c = Client::connect(ws).await;
    let opener = c
        .call(
            None,
            "Target.createTarget",
            json!({ "url": format!("{base}/ran.html?opener") }),
        )
        .await;
    let opener = opener["result"]["targetId"].as_str().unwrap().to_string();
    let session = c
        .call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": opener, "flatten": true }),
        )
        .await;
    let session = session["result"]["sessionId"].as_str().unwrap().to_string();
    let loaded = json!({ "expression": "new Promise(r => document.readyState === 'complete' ? r(1) : addEventListener('load', () => r(1)))", "awaitPromise": true });
    c.call(Some(&session), "Runtime.evaluate", loaded).await;
    let open = json!({ "expression": "window.open('ran.html?popup') ? 'opened' : 'blocked'" });
    let opened = tokio::time::timeout(limit, c.call(Some(&session), "Runtime.evaluate", open))
        .await
        .is_ok_and(|v| v["result"]["result"]["value"] == "opened");
    // A new connection: the first may still wait for its answer.
    let mut c = Client::connect(ws).await;
    let deadline = std::time::Instant::now() + limit;
    let ran = loop {
        let targets = c.call(None, "Target.getTargets", json!({})).await;
        let ran = targets["result"]["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["url"].as_str().unwrap_or("").ends_with("?popup") && t["title"] == "ran");
        if ran || std::time::Instant::now() > deadline {
            break ran;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    (opened, ran)
}

/// Runner `pid` and its agent-browser daemons.
fn run_and_daemons(pid: u32) -> Vec<nix::unistd::Pid> {
    let dirs = crate::common::socket_dirs(pid);
    let daemons = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| crate::common::has_socket_dir(*p, &dirs));
    std::iter::once(pid as i32)
        .chain(daemons)
        .map(nix::unistd::Pid::from_raw)
        .collect()
}

fn signal(pids: &[nix::unistd::Pid], s: nix::sys::signal::Signal) {
    for p in pids {
        let _ = nix::sys::signal::kill(*p, s);
    }
}

/// While a run is connected to a running browser elsewhere (`--browser-cdp`), another client's
/// popup runs even when runner and its agent-browser do not answer (stopped, as by Ctrl-Z): runner
/// holds no tab of a browser it did not launch (a holder that ended would leave it held for
/// good). Then the run goes on and passes.
#[test]
fn a_stopped_run_holds_no_tab_of_a_shared_browser() {
    let remote = RemoteBrowser::start();
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir(&site).unwrap();
    write(
        &site,
        "ran.html",
        "<!doctype html><title>before</title><script>document.title = 'ran'</script>\n",
    );
    let port = free_port();
    let mut server = std::process::Command::new("python3")
        .args([
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            &port.to_string(),
            "--directory",
        ])
        .arg(&site)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: stopped\nbrowser: {{ timezone: Asia/Tokyo }}\nsteps:\n  - open: \"{base}/ran.html\"\n  - exec: {{ command: 'echo x > ready; while [ ! -f go ]; do sleep 0.05; done', shell: true }}\n    timeout: 60s\n"
        ),
    );
    let mut run = crate::common::runner(d.path())
        .args(["run", "f.yaml", "--browser-cdp", &remote.url])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ready = d.path().join("ready");
    for _ in 0..600 {
        if ready.exists() || run.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !ready.exists() {
        let _ = run.kill();
        let out = run.wait_with_output().unwrap();
        panic!(
            "the flow did not reach its exec step: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // runner and its agent-browser daemon (which lets a tab it finds waiting run) stop answering.
    let stopped = run_and_daemons(run.id());
    signal(&stopped, nix::sys::signal::Signal::SIGSTOP);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ws = browser_ws(&remote.url);
    let (opened, ran) = rt.block_on(other_clients_popup(&ws, &base, Duration::from_secs(15)));
    signal(&stopped, nix::sys::signal::Signal::SIGCONT);
    std::fs::write(d.path().join("go"), "x").unwrap();
    let out = run.wait_with_output().unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        opened,
        "the other client's window.open did not return while runner was stopped"
    );
    assert!(
        ran,
        "the other client's popup did not run while runner was stopped"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
