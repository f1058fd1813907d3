//! What drawing a failed flow's snapshots (`--trace retain-on-failure`, the default) may cost
//! and reach (the eighth attack, S1-S5): drawn offline (the page's stylesheets ask for no URL,
//! so none spells a typed value), password values never written, the flow's own viewport, a
//! bounded memory and time, and a page too large to snapshot breaks nothing.

use std::path::Path;
use std::time::Duration;

use crate::common::{Ran, fixture, flow_run, free_port, write};
use crate::trace_pictures::filmstrips;

const SECRET: &str = "Kestrel-Vault-9931-Zulu";

/// `logged.py` serving `dir` on `port`, each request's path appended to `log`; the caller
/// kills it.
fn logged_server(dir: &Path, port: u16, log: &Path) -> std::process::Child {
    let mut child = std::process::Command::new("python3")
        .arg(fixture("servers/logged.py"))
        .arg(dir)
        .arg(port.to_string())
        .arg(log)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 starts");
    for _ in 0..400 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return child;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("logged.py did not answer on {port}");
}

/// The trace of flow `flow` (its artifacts' directory name) in `dir`'s artifacts.
fn trace(dir: &Path, flow: &str) -> serde_json::Value {
    let path = dir.join("art").join(flow).join("trace/trace.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The width and height of a JPEG (its frame header).
fn jpeg_size(bytes: &[u8]) -> (u32, u32) {
    let mut i = 2;
    while i + 9 < bytes.len() {
        let (marker, len) = (
            bytes[i + 1],
            usize::from(bytes[i + 2]) << 8 | usize::from(bytes[i + 3]),
        );
        if (0xC0..=0xC3).contains(&marker) {
            let h = u32::from(bytes[i + 5]) << 8 | u32::from(bytes[i + 6]);
            let w = u32::from(bytes[i + 7]) << 8 | u32::from(bytes[i + 8]);
            return (w, h);
        }
        i += 2 + len;
    }
    panic!("no frame header in the JPEG");
}

/// The pictures of a trace's steps that have one, read.
fn pictures(trace: &serde_json::Value) -> Vec<Vec<u8>> {
    trace["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["picture"].as_str())
        .filter(|p| Path::new(p).extension().is_some_and(|e| e == "jpg"))
        .map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{p}: {e}")))
        .collect()
}

/// A failed flow that typed a secret into a text field, a password field and a text area of
/// a page whose stylesheets (one inlined, one of another origin that stays a `<link>`) ask
/// for URLs spelling a field's value when it is an attribute (a drawn snapshot's), with a
/// frame of its own origin and one of another: drawing its pictures asks for no URL at all —
/// no leak probe, not the other origin's sheet again, neither frame again — and the pictures
/// are drawn all the same.
#[test]
fn drawing_a_failed_flows_pictures_asks_for_no_url() {
    let d = tempfile::tempdir().unwrap();
    let (port, log) = (free_port(), d.path().join("requests.log"));
    let mut server = logged_server(&fixture("trace"), port, &log);
    write(
        d.path(),
        "pw.yaml",
        &format!(
            r##"name: sign in
secrets: [T]
steps:
  - open: "http://127.0.0.1:{port}/pw.html"
  - expect: {{ visible: {{ title: other }} }}
  - fill: {{ target: "#user", value: "{{{{ secrets.T }}}}" }}
  - fill: {{ target: "#pw", value: "{{{{ secrets.T }}}}" }}
  - fill: {{ target: "#note", value: "{{{{ secrets.T }}}}" }}
  - click: "#go"
  - expect: {{ that: "{{{{ 1 == 2 }}}}" }}
"##
        ),
    );
    let ran = flow_run(d.path()).env("T", SECRET).arg("pw.yaml").run();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let requests = std::fs::read_to_string(&log).unwrap();
    assert!(!requests.contains("/leak"), "{requests}");
    let count = |path: &str| requests.lines().filter(|l| l.ends_with(path)).count();
    for once in ["/pw.css?other", " /pw-frame.html", "/pw-frame.html?other"] {
        assert_eq!(count(once), 1, "{once} asked for again: {requests}");
    }
    let trace = trace(d.path(), "001-sign-in");
    let shown = pictures(&trace);
    assert_eq!(shown.len(), 6, "{trace}");
    for p in &shown {
        assert_eq!(&p[..3], [0xFF, 0xD8, 0xFF]);
    }
}

/// A page whose script hooks what a snapshot reads (`HTMLLinkElement.prototype.sheet` gives
/// a 1 MB text for each of its 200 `<link>`s, all of one 1 MB sheet): its failed flow's
/// pictures are drawn from what the page really holds, each sheet once, and runner's memory
/// stays far below what pasting a sheet at each reference would take (200 × 1 MB a shot).
#[test]
fn a_pages_many_references_to_a_big_sheet_cost_it_once() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let rules = "p { color: #000000 }\n".repeat(50_000);
    write(&site, "big.css", &rules);
    let links = "<link rel=\"stylesheet\" href=\"big.css\">".repeat(200);
    write(
        &site,
        "amp.html",
        &format!(
            "<!doctype html><title>Amp</title><script>const BIG = 'p{{color:red}}'.repeat(90000);\nObject.defineProperty(HTMLLinkElement.prototype, 'sheet', {{ get() {{ return {{ cssRules: [{{ cssText: BIG }}] }}; }} }});</script>{links}<main><button id=a onclick=\"this.textContent='clicked'\">Go</button></main>"
        ),
    );
    write(
        d.path(),
        "amp.yaml",
        &format!(
            "name: amp\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/amp.html\"\n  - click: \"#a\"\n  - click: \"#a\"\n  - expect: {{ that: \"{{{{ 1 == 2 }}}}\" }}\n",
            site.display()
        ),
    );
    let rss = d.path().join("rss");
    let Ran { code, stderr, .. } = flow_run(d.path())
        .arg("amp.yaml")
        .with(|c| {
            let program = c.get_program().to_owned();
            let args: Vec<_> = c.get_args().map(ToOwned::to_owned).collect();
            let mut timed = std::process::Command::new("/usr/bin/time");
            timed.arg("-f").arg("%M").arg("-o").arg(&rss).arg(program);
            timed.args(args);
            timed.current_dir(d.path());
            for (k, v) in c.get_envs() {
                match v {
                    Some(v) => timed.env(k, v),
                    None => timed.env_remove(k),
                };
            }
            *c = timed;
        })
        .run_within(Duration::from_secs(120));
    assert_eq!(code, 1, "{stderr}");
    // (`time` says the exit status first when it is not 0.)
    let said = std::fs::read_to_string(&rss).unwrap();
    let kb: u64 = said.lines().last().unwrap_or_default().parse().unwrap();
    assert!(kb < 600_000, "runner's max RSS: {kb} kB");
    let shown = pictures(&trace(d.path(), "001-amp"));
    assert_eq!(shown.len(), 3);
}

/// A page that names its own viewport (`window.innerWidth = 1e7`): its failed flow's pictures
/// are drawn at the flow's viewport (1280 × 720, scaled to 480 × 270), at once.
#[test]
fn the_drawing_is_at_the_flows_viewport_not_the_pages() {
    let d = tempfile::tempdir().unwrap();
    let clicks = "  - click: \"#a\"\n".repeat(6);
    write(
        d.path(),
        "vp.yaml",
        &format!(
            "name: vp\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/viewport.html\"\n{clicks}  - expect: {{ that: \"{{{{ 1 == 2 }}}}\" }}\n",
            fixture("trace").display()
        ),
    );
    let started = std::time::Instant::now();
    let Ran { code, stderr, .. } = flow_run(d.path())
        .arg("vp.yaml")
        .run_within(Duration::from_secs(120));
    assert_eq!(code, 1, "{stderr}");
    let took = started.elapsed();
    let shown = pictures(&trace(d.path(), "001-vp"));
    assert_eq!(shown.len(), 7);
    for p in &shown {
        assert_eq!(jpeg_size(p), (480, 270));
    }
    assert!(took < Duration::from_secs(40), "{took:?}");
}

/// A page whose document grows past 64 MiB (a DevTools message's limit) after a step: its
/// flow's steps go on over runner's connection (the snapshot is too large, and none is taken
/// after it), so the flow passes; when it fails, its trace says why the later pictures are
/// missing, and the pictures before are drawn.
#[test]
fn a_document_too_large_to_snapshot_breaks_nothing() {
    let d = tempfile::tempdir().unwrap();
    let server = format!(
        "web_server: {{ static: \"{}\" }}",
        fixture("trace").display()
    );
    let steps = "  - open: \"{{ web_server.url }}/grows.html\"\n  - click: \"#count\"\n  - click: \"#grow\"\n  - expect: { text: { target: \"#state\", equals: big } }\n  - click: \"#count\"\n  - click: \"#count\"\n  - expect: { text: { target: \"#count\", equals: \"3\" } }\n";
    write(
        d.path(),
        "a.yaml",
        &format!("name: grows\n{server}\nsteps:\n{steps}"),
    );
    write(
        d.path(),
        "b.yaml",
        &format!(
            "name: grows and fails\n{server}\nsteps:\n{steps}  - expect: {{ that: \"{{{{ 1 == 2 }}}}\" }}\n"
        ),
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args([".", "--jobs", "1"])
        .run_within(Duration::from_secs(180));
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(report["flows"][0]["status"], "passed", "{stderr}");
    let failed = &report["flows"][1];
    assert_eq!(failed["steps"][7]["outcome"], "failed", "{failed}");
    let trace = trace(d.path(), "002-grows-and-fails");
    let note = trace["snapshots_left_out"].as_str().unwrap_or_default();
    assert!(note.contains("MiB"), "{trace}");
    assert_eq!(pictures(&trace).len(), 2, "{trace}");
}

/// A page whose script rewrites what a copy of its document holds (`Node.prototype.cloneNode`
/// paints the copy red and adds a refresh to a blue page): its failed flow's pictures show the
/// page as it is (white), the snapshot taken where the page's scripts cannot reach.
#[test]
fn the_pages_scripts_cannot_change_its_snapshot() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "hooked.yaml",
        &format!(
            "name: hooked\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/hooked.html\"\n  - click: \"#a\"\n  - expect: {{ that: \"{{{{ 1 == 2 }}}}\" }}\n",
            fixture("trace").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args(["hooked.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let strips = filmstrips(d.path(), "report");
    assert_eq!(strips, [["111", "111", "none"]], "{strips:?}");
}

/// A failed flow whose page is wedged (a script that never ends): its browser is discarded
/// after it (agent-browser may still be busy with the step), but only once the flow's kept
/// trace is drawn in it, in a tab of its own: the picture of the step before the wedge is in
/// the trace. And the run does not wait out a call's timeout on a browser that is gone.
#[test]
fn a_wedged_pages_pictures_are_drawn_before_its_browser_goes() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "wedged.yaml",
        &format!(
            "name: wedged\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/state.html\"\n  - id: wedge\n    eval: \"while (true) {{}}\"\n    timeout: 2s\n",
            fixture("trace").display()
        ),
    );
    let started = std::time::Instant::now();
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("wedged.yaml").run();
    let whole = started.elapsed();
    assert_eq!(code, 1, "{stderr}");
    let trace = trace(d.path(), "001-wedged");
    assert!(trace.get("pictures_left_out").is_none(), "{trace}");
    assert!(trace.get("snapshots_left_out").is_none(), "{trace}");
    let open = Path::new(trace["steps"][0]["picture"].as_str().unwrap_or_default());
    assert!(
        open.extension().is_some_and(|e| e == "jpg") && open.is_file(),
        "{trace}"
    );
    // 2 s of the step's timeout, its failure artifacts and the drawing: no call's 10 s.
    assert!(whole < Duration::from_secs(9), "the run took {whole:?}");
}

/// With a secret in the run, a step's snapshot reads which text the page renders (a layout
/// read per text node): on a page of 300 000 text nodes that took seconds after every step
/// that acts, holding the page's thread from the next steps (the attack's clicks took 3-9 s,
/// an `expect` after them ran out of time blaming an `eval`). The read stops at its budget and
/// no snapshot is taken after it in the flow, saying so; the flow's steps run as without a
/// trace, and it fails on its own check, not on runner's read.
#[test]
fn a_huge_pages_secret_read_is_bounded_and_stops_the_snapshots() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let spans: String = (0..300_000)
        .map(|i| format!("<span>w{i} </span>"))
        .collect();
    write(
        &site,
        "big.html",
        &format!(
            "<!doctype html><title>Big</title><main><button id=a onclick=\"this.textContent='clicked'\">Go</button></main><div>{spans}</div>"
        ),
    );
    write(
        d.path(),
        "big.yaml",
        &format!(
            "name: big\nsecrets: [BIG_TOKEN]\nweb_server: {{ static: \"{}\" }}\nbrowser: {{ timeout: 8s }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/big.html\"\n    timeout: 30s\n  - click: \"#a\"\n  - click: \"#a\"\n  - click: \"#a\"\n  - expect: {{ text: {{ target: \"#a\", equals: \"not this\" }} }}\n    timeout: 2s\n",
            site.display()
        ),
    );
    // (The open has time of its own: loading 300 000 spans on a loaded machine took more than
    // the 8 s the other steps get, a CI failure that was not about the read.)
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .arg("big.yaml")
        .env("BIG_TOKEN", SECRET)
        .run_within(Duration::from_secs(120));
    assert_eq!(code, 1, "{stderr}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    let last = steps.last().unwrap();
    // The flow's own check failed, on what the page shows, not on the page being busy.
    let error = last["error"]["message"].as_str().unwrap_or_default();
    assert!(error.contains("\"clicked\""), "{error}");
    assert!(
        steps[..4].iter().all(|s| s["outcome"] == "passed"),
        "{stderr}"
    );
    let trace = trace(d.path(), "001-big").to_string();
    assert!(
        trace.contains("ms to read for the text it shows"),
        "the trace does not say its snapshots stopped: {}",
        &trace[..trace.len().min(3000)]
    );
}
