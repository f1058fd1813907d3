//! A running agent-browser session's daemon, spoken to over its socket.
//!
//! The CLI is a process per call (~4–10 ms each, a flow makes dozens) that turns its argv into
//! one JSON line for the session's daemon (`<socket dir>/<session>.sock`, newline-delimited JSON
//! `{id, action, ...}` → `{id, success, data, error}`) and prints the answer. Once a session's
//! browser is up, runner sends those same lines itself on one kept-open connection: the same
//! daemon does the same work and answers the same `data` and `error`, at ~0.5 ms a call. The CLI
//! still launches browsers (its launch logic and environment) and closes them.
//!
//! `request` is the CLI's translation for the commands runner sends (checked against
//! agent-browser 0.41.2, the version `scripts/setup` installs, by recording what its CLI writes
//! to the socket; the unit tests below are that record). A dead daemon is an error here, never a
//! silent relaunch of a fresh browser as the CLI would do.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;

use super::adapter::{AdapterError, Cmd, answer_data};

/// The CLI's `open` rule: a URL without a known scheme gets `https://`.
fn normalize_url(url: &str) -> String {
    let lower = url.to_lowercase();
    let known = [
        "http://",
        "https://",
        "about:",
        "data:",
        "file:",
        "chrome-extension://",
        "chrome://",
    ];
    if known.iter().any(|k| lower.starts_with(k)) {
        url.to_string()
    } else {
        format!("https://{url}")
    }
}

/// The daemon's JSON for one CLI command (without `id`), or why it cannot be sent. Paths are
/// made absolute against `cwd` (the daemon resolves relative ones against its own directory).
pub(crate) fn request(command: &str, args: &[String], cwd: &Path) -> Result<Value, String> {
    let arg = |i: usize| -> Result<&str, String> {
        args.get(i)
            .map(String::as_str)
            .ok_or_else(|| format!("`{command}` needs {} argument(s)", i + 1))
    };
    let selector = |action: &str, i: usize| -> Result<Value, String> {
        Ok(json!({ "action": action, "selector": arg(i)? }))
    };
    let v = match command {
        "open" => json!({ "action": "navigate", "url": normalize_url(arg(0)?) }),
        "tab" if arg(0)? == "close" => json!({ "action": "tab_close", "tabId": arg(1)? }),
        "tab" => json!({ "action": "tab_switch", "tabId": arg(0)? }),
        "eval" => {
            let script = if arg(0)? == "-b" {
                use base64::Engine;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(arg(1)?)
                    .map_err(|e| format!("eval -b: {e}"))?;
                String::from_utf8(bytes).map_err(|e| format!("eval -b: {e}"))?
            } else {
                arg(0)?.to_string()
            };
            json!({ "action": "evaluate", "script": script })
        }
        "click" | "dblclick" | "hover" | "focus" | "check" | "uncheck" => selector(command, 0)?,
        "fill" => json!({ "action": "fill", "selector": arg(0)?, "value": arg(1)? }),
        "type" => json!({ "action": "type", "selector": arg(0)?, "text": arg(1)? }),
        "dialog" => {
            let mut v = json!({ "action": "dialog", "response": arg(0)? });
            if let Some(text) = args.get(1) {
                v["promptText"] = json!(text);
            }
            v
        }
        "upload" => {
            arg(1)?;
            json!({ "action": "upload", "selector": arg(0)?, "files": args[1..] })
        }
        "select" => {
            arg(1)?;
            json!({ "action": "select", "selector": arg(0)?, "values": args[1..] })
        }
        "press" => json!({ "action": "press", "key": arg(0)? }),
        // The CLI's `network route URL [--abort | --body B]`; `--response JSON` is runner's own:
        // the daemon's whole `response` object (`status`, `body`, `contentType`, `headers`),
        // of which the CLI fills only `body` (the daemon's handling of the others was checked
        // by hand against agent-browser 0.41.2).
        "network" => match arg(0)? {
            "route" => {
                let mut v = json!({ "action": "route", "url": arg(1)?, "abort": false });
                match args.get(2).map(String::as_str) {
                    None => {}
                    Some("--abort") => v["abort"] = json!(true),
                    Some("--body") => v["response"] = json!({ "body": arg(3)? }),
                    Some("--response") => {
                        v["response"] = serde_json::from_str(arg(3)?)
                            .map_err(|e| format!("network route --response: {e}"))?;
                    }
                    Some(other) => return Err(format!("network route: unknown option `{other}`")),
                }
                v
            }
            "unroute" => match args.get(1) {
                Some(url) => json!({ "action": "unroute", "url": url }),
                None => json!({ "action": "unroute" }),
            },
            "requests" => json!({ "action": "requests", "clear": false }),
            other => {
                return Err(format!(
                    "`network {other}` is not known to runner's daemon link"
                ));
            }
        },
        "state" => match arg(0)? {
            "save" => {
                json!({ "action": "state_save", "path": cwd.join(arg(1)?).display().to_string() })
            }
            "load" => {
                json!({ "action": "state_load", "path": cwd.join(arg(1)?).display().to_string() })
            }
            other => {
                return Err(format!(
                    "`state {other}` is not known to runner's daemon link"
                ));
            }
        },
        "set" => {
            let num = |i: usize| -> Result<f64, String> {
                arg(i)?
                    .parse::<f64>()
                    .map_err(|e| format!("set {}: {e}", args[0]))
            };
            match arg(0)? {
                "viewport" => {
                    let px = |i: usize| -> Result<u64, String> {
                        arg(i)?.parse().map_err(|e| format!("set viewport: {e}"))
                    };
                    json!({ "action": "viewport", "width": px(1)?, "height": px(2)? })
                }
                "device" => json!({ "action": "device", "device": arg(1)? }),
                "media" => json!({
                    "action": "emulatemedia",
                    "colorScheme": arg(1)?,
                    "reducedMotion": "no-preference",
                }),
                "geo" => {
                    json!({ "action": "geolocation", "latitude": num(1)?, "longitude": num(2)? })
                }
                "offline" => json!({ "action": "offline", "offline": arg(1)? == "on" }),
                "headers" => {
                    let h: Value =
                        serde_json::from_str(arg(1)?).map_err(|e| format!("set headers: {e}"))?;
                    json!({ "action": "headers", "headers": h })
                }
                other => {
                    return Err(format!(
                        "`set {other}` is not known to runner's daemon link"
                    ));
                }
            }
        }
        "scroll" => {
            let amount: u64 = arg(1)?.parse().map_err(|e| format!("scroll: {e}"))?;
            json!({ "action": "scroll", "direction": arg(0)?, "amount": amount })
        }
        "scrollintoview" => selector("scrollintoview", 0)?,
        "frame" if arg(0)? == "main" => json!({ "action": "mainframe" }),
        "frame" => selector("frame", 0)?,
        "get" => match arg(0)? {
            "url" => json!({ "action": "url" }),
            "title" => json!({ "action": "title" }),
            "cdp-url" => json!({ "action": "cdp_url" }),
            "text" => selector("gettext", 1)?,
            "value" => selector("inputvalue", 1)?,
            "box" => selector("boundingbox", 1)?,
            "html" => selector("innerhtml", 1)?,
            "attr" => {
                json!({ "action": "getattribute", "selector": arg(1)?, "attribute": arg(2)? })
            }
            other => {
                return Err(format!(
                    "`get {other}` is not known to runner's daemon link"
                ));
            }
        },
        "is" => match arg(0)? {
            "visible" => selector("isvisible", 1)?,
            "checked" => selector("ischecked", 1)?,
            "enabled" => selector("isenabled", 1)?,
            other => return Err(format!("`is {other}` is not known to runner's daemon link")),
        },
        "snapshot" => {
            let mut m = Map::new();
            m.insert("action".into(), "snapshot".into());
            let mut i = 0;
            while i < args.len() {
                match args[i].as_str() {
                    "-i" => {
                        m.insert("interactive".into(), true.into());
                    }
                    "-c" => {
                        m.insert("compact".into(), true.into());
                    }
                    "-d" => {
                        let d: u64 = arg(i + 1)?
                            .parse()
                            .map_err(|e| format!("snapshot -d: {e}"))?;
                        m.insert("maxDepth".into(), d.into());
                        i += 1;
                    }
                    "-s" => {
                        m.insert("selector".into(), arg(i + 1)?.into());
                        i += 1;
                    }
                    other => return Err(format!("snapshot: unknown option `{other}`")),
                }
                i += 1;
            }
            Value::Object(m)
        }
        "screenshot" => {
            let full = args.first().is_some_and(|a| a == "--full");
            let rest = &args[usize::from(full)..];
            let (target, path) = match rest {
                [path] => (None, path),
                [target, path] => (Some(target), path),
                _ => return Err("screenshot takes [--full] [target] path".into()),
            };
            json!({
                "action": "screenshot",
                "annotate": false,
                "fullPage": full,
                "path": cwd.join(path).display().to_string(),
                "selector": target,
            })
        }
        "close" => json!({ "action": "close" }),
        other => return Err(format!("`{other}` is not known to runner's daemon link")),
    };
    Ok(v)
}

/// A kept-open connection to one session's daemon.
pub(crate) struct DaemonLink {
    socket: PathBuf,
    conn: Option<BufReader<UnixStream>>,
    next_id: u64,
}

impl DaemonLink {
    /// A link to the daemon of `session` (connected on first use).
    pub(crate) fn new(socket_dir: &Path, session: &str) -> DaemonLink {
        DaemonLink {
            socket: socket_dir.join(format!("{session}.sock")),
            conn: None,
            next_id: 0,
        }
    }

    /// Sends commands one after another, stopping at the first that fails (as `batch --bail`);
    /// returns each one's `data`, or the first failure. A command that does not answer within
    /// `timeout` drops the connection (its answer must not be read as the next command's).
    pub(crate) async fn send_all(
        &mut self,
        commands: &[Cmd<'_>],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<Vec<Value>, AdapterError> {
        let mut requests = Vec::with_capacity(commands.len());
        for (command, args) in commands {
            let v = request(command, args, cwd).map_err(|e| AdapterError::CommandFailed {
                command: (*command).to_string(),
                args: args.to_vec(),
                exit_code: None,
                stderr: String::new(),
                error_message: format!("internal error: {e}"),
            })?;
            requests.push(v);
        }
        match tokio::time::timeout(timeout, self.exchange(commands, requests)).await {
            Ok(Ok(data)) => Ok(data),
            Ok(Err(e)) => Err(e),
            Err(_) => {
                self.conn = None;
                let (command, args) = commands.first().copied().unwrap_or(("batch", &[]));
                Err(AdapterError::Timeout {
                    command: command.into(),
                    args: args.to_vec(),
                    timeout,
                })
            }
        }
    }

    async fn exchange(
        &mut self,
        commands: &[Cmd<'_>],
        requests: Vec<Value>,
    ) -> Result<Vec<Value>, AdapterError> {
        let mut out = Vec::with_capacity(requests.len());
        for ((command, args), mut req) in commands.iter().zip(requests) {
            let gone = |what: String| AdapterError::CommandFailed {
                command: (*command).to_string(),
                args: args.to_vec(),
                exit_code: None,
                stderr: String::new(),
                error_message: format!("the browser session is gone: {what}"),
            };
            self.next_id += 1;
            let id = format!("runner{}", self.next_id);
            if let Value::Object(m) = &mut req {
                m.insert("id".into(), id.clone().into());
                m.insert("pinTab".into(), true.into());
                m.insert("plugins".into(), json!([]));
            }
            let mut line = req.to_string();
            line.push('\n');
            if self.conn.is_none() {
                let s = UnixStream::connect(&self.socket).await.map_err(|e| {
                    gone(format!(
                        "cannot reach agent-browser's daemon at {}: {e}",
                        self.socket.display()
                    ))
                })?;
                self.conn = Some(BufReader::new(s));
            }
            let conn = self.conn.as_mut().expect("connected above");
            if let Err(e) = conn.get_mut().write_all(line.as_bytes()).await {
                self.conn = None;
                return Err(gone(format!(
                    "agent-browser's daemon stopped listening: {e}"
                )));
            }
            let answer = loop {
                let mut buf = String::new();
                match conn.read_line(&mut buf).await {
                    Ok(0) => {
                        self.conn = None;
                        return Err(gone("agent-browser's daemon closed the connection".into()));
                    }
                    Err(e) => {
                        self.conn = None;
                        return Err(gone(format!("reading agent-browser's daemon: {e}")));
                    }
                    Ok(_) => {}
                }
                let v: Value =
                    serde_json::from_str(buf.trim()).map_err(|e| AdapterError::ParseError {
                        message: format!("agent-browser's daemon answered no JSON: {e}"),
                        raw_output: buf.clone(),
                    })?;
                // An answer to an earlier command cut off by its timeout is not this one's.
                if v.get("id").and_then(Value::as_str) == Some(id.as_str()) {
                    break v;
                }
            };
            out.push(answer_data((command, args), &answer, None, "")?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(argv: &[&str]) -> Value {
        let args: Vec<String> = argv[1..].iter().map(ToString::to_string).collect();
        request(argv[0], &args, Path::new("/run/here")).unwrap()
    }

    /// What agent-browser 0.41.2's CLI writes to the daemon for each command runner sends
    /// (recorded through a socket proxy; `id`, `pinTab` and `plugins` are added when sent).
    #[test]
    fn commands_become_the_clis_requests() {
        let cases: Vec<(&[&str], Value)> = vec![
            (
                &["open", "http://127.0.0.1:1/x"],
                json!({"action":"navigate","url":"http://127.0.0.1:1/x"}),
            ),
            (
                &["open", "localhost:1"],
                json!({"action":"navigate","url":"https://localhost:1"}),
            ),
            (
                &["open", "about:blank"],
                json!({"action":"navigate","url":"about:blank"}),
            ),
            (
                &["tab", "F8AC"],
                json!({"action":"tab_switch","tabId":"F8AC"}),
            ),
            (
                &["eval", "-b", "MSsx"],
                json!({"action":"evaluate","script":"1+1"}),
            ),
            (
                &["fill", ".x", "hello"],
                json!({"action":"fill","selector":".x","value":"hello"}),
            ),
            (
                &["type", ".x", "abc"],
                json!({"action":"type","selector":".x","text":"abc"}),
            ),
            (
                &["select", "#s", "a", "b"],
                json!({"action":"select","selector":"#s","values":["a","b"]}),
            ),
            (
                &["press", "Control+a"],
                json!({"action":"press","key":"Control+a"}),
            ),
            (
                &["click", "@e1"],
                json!({"action":"click","selector":"@e1"}),
            ),
            (
                &["dblclick", "a"],
                json!({"action":"dblclick","selector":"a"}),
            ),
            (&["hover", "a"], json!({"action":"hover","selector":"a"})),
            (&["focus", ".x"], json!({"action":"focus","selector":".x"})),
            (&["check", ".x"], json!({"action":"check","selector":".x"})),
            (
                &["uncheck", ".x"],
                json!({"action":"uncheck","selector":".x"}),
            ),
            (
                &["upload", "#f", "/a.txt", "/b.txt"],
                json!({"action":"upload","selector":"#f","files":["/a.txt","/b.txt"]}),
            ),
            (
                &["dialog", "accept", "Ada"],
                json!({"action":"dialog","response":"accept","promptText":"Ada"}),
            ),
            (
                &["dialog", "status"],
                json!({"action":"dialog","response":"status"}),
            ),
            (&["get", "url"], json!({"action":"url"})),
            (
                &["get", "attr", "#l", "href"],
                json!({"action":"getattribute","selector":"#l","attribute":"href"}),
            ),
            (
                &["scroll", "down", "500"],
                json!({"action":"scroll","direction":"down","amount":500}),
            ),
            (
                &["scrollintoview", "#l"],
                json!({"action":"scrollintoview","selector":"#l"}),
            ),
            (&["frame", "#f"], json!({"action":"frame","selector":"#f"})),
            (&["frame", "main"], json!({"action":"mainframe"})),
            (
                &["network", "route", "**/api/x", "--body", "{}"],
                json!({"action":"route","url":"**/api/x","abort":false,"response":{"body":"{}"}}),
            ),
            (
                &["network", "route", "**/api/y", "--abort"],
                json!({"action":"route","url":"**/api/y","abort":true}),
            ),
            (
                &["network", "requests"],
                json!({"action":"requests","clear":false}),
            ),
            (
                &["state", "save", "auth.json"],
                json!({"action":"state_save","path":"/run/here/auth.json"}),
            ),
            (
                &["state", "load", "/abs/auth.json"],
                json!({"action":"state_load","path":"/abs/auth.json"}),
            ),
            (
                &["tab", "close", "T1"],
                json!({"action":"tab_close","tabId":"T1"}),
            ),
            (
                &["set", "viewport", "800", "600"],
                json!({"action":"viewport","width":800,"height":600}),
            ),
            (
                &["set", "device", "iPhone 14"],
                json!({"action":"device","device":"iPhone 14"}),
            ),
            (
                &["set", "media", "dark"],
                json!({"action":"emulatemedia","colorScheme":"dark","reducedMotion":"no-preference"}),
            ),
            (
                &["set", "geo", "48.85", "2.35"],
                json!({"action":"geolocation","latitude":48.85,"longitude":2.35}),
            ),
            (
                &["set", "offline", "on"],
                json!({"action":"offline","offline":true}),
            ),
            (
                &["set", "headers", "{\"X-A\":\"1\"}"],
                json!({"action":"headers","headers":{"X-A":"1"}}),
            ),
            (&["get", "title"], json!({"action":"title"})),
            (&["get", "cdp-url"], json!({"action":"cdp_url"})),
            (
                &["get", "text", "a"],
                json!({"action":"gettext","selector":"a"}),
            ),
            (
                &["get", "value", ".x"],
                json!({"action":"inputvalue","selector":".x"}),
            ),
            (
                &["get", "box", "a"],
                json!({"action":"boundingbox","selector":"a"}),
            ),
            (
                &["get", "html", "a"],
                json!({"action":"innerhtml","selector":"a"}),
            ),
            (
                &["is", "visible", "a"],
                json!({"action":"isvisible","selector":"a"}),
            ),
            (
                &["is", "checked", ".x"],
                json!({"action":"ischecked","selector":".x"}),
            ),
            (
                &["is", "enabled", ".x"],
                json!({"action":"isenabled","selector":".x"}),
            ),
            (&["snapshot"], json!({"action":"snapshot"})),
            (
                &["snapshot", "-i", "-c", "-d", "3", "-s", "main"],
                json!({"action":"snapshot","compact":true,"interactive":true,"maxDepth":3,"selector":"main"}),
            ),
            (
                &["screenshot", "/tmp/a.png"],
                json!({"action":"screenshot","annotate":false,"fullPage":false,"path":"/tmp/a.png","selector":null}),
            ),
            (
                &["screenshot", "--full", "a", "rel.png"],
                json!({"action":"screenshot","annotate":false,"fullPage":true,"path":"/run/here/rel.png","selector":"a"}),
            ),
            (&["close"], json!({"action":"close"})),
        ];
        for (argv, want) in cases {
            assert_eq!(req(argv), want, "{argv:?}");
        }
    }

    #[test]
    fn unknown_or_short_commands_are_refused() {
        let none: Vec<String> = Vec::new();
        assert!(request("frobnicate", &none, Path::new("/")).is_err());
        assert!(request("fill", &[".x".to_string()], Path::new("/")).is_err());
        assert!(
            request(
                "get",
                &["attr".to_string(), "#a".to_string()],
                Path::new("/")
            )
            .is_err()
        );
        assert!(request("snapshot", &["-z".to_string()], Path::new("/")).is_err());
        assert!(request("eval", &["-b".into(), "%%%".into()], Path::new("/")).is_err());
    }

    #[tokio::test]
    async fn a_missing_daemon_is_an_error_not_a_relaunch() {
        let dir = tempfile::tempdir().unwrap();
        let mut link = DaemonLink::new(dir.path(), "nobody");
        let args = vec!["url".to_string()];
        let e = link
            .send_all(&[("get", &args)], dir.path(), Duration::from_secs(2))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("the browser session is gone"), "{e}");
    }

    /// A fake daemon: answers an earlier id first (a late answer to a command that timed out),
    /// then this command's, then fails the next: the stale answer is skipped and the batch
    /// stops at the failure.
    #[tokio::test]
    async fn answers_are_matched_by_id_and_a_failure_stops_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("s.sock");
        let listener = tokio::net::UnixListener::bind(&sock).unwrap();
        let server = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let mut r = BufReader::new(s);
            let mut seen = Vec::new();
            for n in 0..2 {
                let mut line = String::new();
                r.read_line(&mut line).await.unwrap();
                let v: Value = serde_json::from_str(&line).unwrap();
                let id = v["id"].as_str().unwrap().to_string();
                seen.push(v.clone());
                let reply = if n == 0 {
                    format!(
                        "{}\n{}\n",
                        json!({"id":"old","success":true,"data":{"url":"stale"}}),
                        json!({"id":id,"success":true,"data":{"url":"fresh"}})
                    )
                } else {
                    format!(
                        "{}\n",
                        json!({"id":id,"success":false,"error":"Element not found: #x"})
                    )
                };
                r.get_mut().write_all(reply.as_bytes()).await.unwrap();
            }
            seen
        });
        let mut link = DaemonLink::new(dir.path(), "s");
        let url = vec!["url".to_string()];
        let click = vec!["#x".to_string()];
        let never = vec!["title".to_string()];
        let e = link
            .send_all(
                &[("get", &url), ("click", &click), ("get", &never)],
                dir.path(),
                Duration::from_secs(5),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("Element not found: #x"), "{e}");
        let seen = server.await.unwrap();
        assert_eq!(seen.len(), 2, "the command after the failure is not sent");
        assert_eq!(seen[0]["action"], "url");
        assert_eq!(seen[0]["pinTab"], true);
        assert_eq!(seen[1]["action"], "click");

        // And a good answer is read as `data`.
        let listener = tokio::net::UnixListener::bind(dir.path().join("t.sock")).unwrap();
        tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let mut r = BufReader::new(s);
            let mut line = String::new();
            r.read_line(&mut line).await.unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            let reply = json!({"id":v["id"],"success":true,"data":{"title":"T"}});
            r.get_mut()
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
        });
        let mut link = DaemonLink::new(dir.path(), "t");
        let got = link
            .send_all(&[("get", &never)], dir.path(), Duration::from_secs(5))
            .await
            .unwrap();
        assert_eq!(got, vec![json!({"title":"T"})]);
    }
}
