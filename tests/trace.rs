//! `--trace` end to end (issue 29, items 1 and 3): the trace files a run keeps, which flows keep
//! them, their masking, and the report that shows them, looked at in Chromium by runner itself.

use std::path::{Path, PathBuf};

use crate::common::{Ran, fixture, flow_run, write};

/// The secret the failing flow types and prints.
const PW: &str = "tr4ce-s3cret-pw";

/// A flow on the fixture site that types the secret, reads it back (an output), prints it
/// (stdout) and then fails on a text the page does not have.
fn failing_flow(dir: &Path) {
    write(
        dir,
        "b-fails.yaml",
        &format!(
            r##"name: fails with a trace
secrets: [TRACE_PW]
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - fill: {{ target: "#password", value: "{{{{ secrets.TRACE_PW }}}}" }}
  - id: typed
    eval: "document.querySelector('#password').value"
  - exec: ["sh", "-c", "echo typed $0", "{{{{ secrets.TRACE_PW }}}}"]
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##,
            fixture("site").display()
        ),
    );
}

/// A flow on the fixture site that passes.
fn passing_flow(dir: &Path) {
    write(
        dir,
        "a-passes.yaml",
        &format!(
            "name: passes\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - expect: {{ visible: {{ text: Welcome }} }}\n",
            fixture("site").display()
        ),
    );
}

/// Every file under `dir` whose path has a `trace` directory in it.
fn trace_files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_path_buf())
        .filter(|p| p.components().any(|c| c.as_os_str() == "trace"))
        .collect()
}

/// The failing flow's trace: a timeline of its five steps in order, with a start and a
/// duration each, a JPEG after each browser step that passed, the failure screenshot and the
/// page's snapshot at the failing step, its error; the secret masked in every trace file (the
/// output that read it back, the printed line). The passed flow keeps none (the default,
/// `retain-on-failure`).
#[test]
fn a_failing_flow_keeps_a_masked_trace_and_a_passed_one_none() {
    let d = tempfile::tempdir().unwrap();
    passing_flow(d.path());
    failing_flow(d.path());
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).env("TRACE_PW", PW).arg(".").run();
    assert_eq!(code, 1, "{stderr}");
    let art = d.path().join("art");
    let files = trace_files(&art);
    assert!(
        files
            .iter()
            .all(|f| f.starts_with(art.join("002-fails-with-a-trace"))),
        "only the failed flow keeps a trace: {files:?}"
    );
    let path = art.join("002-fails-with-a-trace/trace/trace.json");
    assert_eq!(report["flows"][1]["trace"], path.display().to_string());
    assert!(report["flows"][0].get("trace").is_none(), "{report}");
    let text = std::fs::read_to_string(&path).unwrap();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PW),
            "the secret is in {}",
            f.display()
        );
    }
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = trace["steps"].as_array().unwrap();
    let actions: Vec<&str> = steps
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["open", "fill", "eval", "exec", "expect"]);
    let mut last_start = 0;
    for s in steps {
        let start = s["start_ms"].as_u64().unwrap();
        assert!(start >= last_start, "in order: {s}");
        last_start = start;
        assert!(s["duration_ms"].is_u64(), "{s}");
    }
    for s in &steps[..3] {
        let pic = s["picture"]
            .as_str()
            .unwrap_or_else(|| panic!("a picture: {s}"));
        let bytes = std::fs::read(pic).unwrap();
        assert_eq!(&bytes[..3], [0xFF, 0xD8, 0xFF], "a JPEG: {pic}");
        assert!(bytes.len() < 60_000, "small: {} bytes", bytes.len());
    }
    assert!(steps[3]["picture"].is_null(), "exec drives no browser");
    assert_eq!(steps[2]["outputs"]["value"], "***");
    assert!(
        steps[3]["outputs"]["stdout"]
            .as_str()
            .unwrap()
            .contains("typed ***")
    );
    let failed = &steps[4];
    assert_eq!(failed["outcome"], "failed");
    assert!(
        failed["picture"]
            .as_str()
            .unwrap()
            .ends_with("-failure.png")
    );
    let snapshot = std::fs::read_to_string(failed["snapshot"].as_str().unwrap()).unwrap();
    assert!(snapshot.contains("Welcome"), "{snapshot}");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Nothing like this")
    );
}

/// `--trace off` writes no trace file for either flow; `--trace on` keeps the passed flow's
/// too; `trace = "on"` in runner.toml does the same, and the flag wins over it.
#[test]
fn trace_off_writes_none_and_on_keeps_every_flow() {
    let d = tempfile::tempdir().unwrap();
    passing_flow(d.path());
    failing_flow(d.path());
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("TRACE_PW", PW)
        .args([".", "--trace", "off"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let files = trace_files(&d.path().join("art"));
    assert!(files.is_empty(), "{files:?}");
    std::fs::remove_dir_all(d.path().join("art")).unwrap();
    write(d.path(), "runner.toml", "trace = \"on\"\n");
    let Ran { code, stderr, .. } = flow_run(d.path()).env("TRACE_PW", PW).arg(".").run();
    assert_eq!(code, 1, "{stderr}");
    for flow in ["001-passes", "002-fails-with-a-trace"] {
        let t = d.path().join("art").join(flow).join("trace/trace.json");
        assert!(t.is_file(), "{}", t.display());
    }
    std::fs::remove_dir_all(d.path().join("art")).unwrap();
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("TRACE_PW", PW)
        .args([".", "--trace", "retain-on-failure"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    assert!(!d.path().join("art/001-passes/trace").exists());
    assert!(
        d.path()
            .join("art/002-fails-with-a-trace/trace/trace.json")
            .is_file()
    );
}

/// A trace mode that is not one: exit 2, said with the values there are (the flag), and with
/// the file's line (runner.toml).
#[test]
fn a_bad_trace_mode_is_refused() {
    let d = tempfile::tempdir().unwrap();
    passing_flow(d.path());
    let Ran { code, stderr, .. } = flow_run(d.path()).args([".", "--trace", "always"]).run();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("retain-on-failure"), "{stderr}");
    write(d.path(), "runner.toml", "jobs = 1\ntrace = \"sometimes\"\n");
    let Ran { code, stderr, .. } = flow_run(d.path()).arg(".").run();
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("runner.toml:2"), "{stderr}");
}

/// The HTML report of a failed flow, opened in Chromium by runner itself: its filmstrip above
/// the steps, each frame's picture loaded; a click on the failing step shows its details (the
/// picture, the error, the page's snapshot), hidden before; a click on a frame shows that
/// step's instead. The snapshot, held once in the page (in the failed step's row), is shown in
/// the details too.
#[test]
fn the_report_shows_the_filmstrip_and_a_clicked_steps_details() {
    let d = tempfile::tempdir().unwrap();
    failing_flow(d.path());
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("TRACE_PW", PW)
        .args(["b-fails.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let page = std::fs::read_to_string(d.path().join("report/index.html")).unwrap();
    assert!(!page.contains(PW), "the secret is on the page");
    assert!(!page.contains("fetch("), "the page reads no file");
    write(
        d.path(),
        "look.yaml",
        &format!(
            r##"name: look at the trace
steps:
  - open: "file://{}/index.html"
  - id: frames
    eval: "[...document.querySelectorAll('details.flow .filmstrip .frame')].length"
  - expect: {{ that: "{{{{ steps.frames.value == 5 }}}}" }}
  - id: pictures
    eval: "[...document.querySelectorAll('.filmstrip img')].map(i => i.complete && i.naturalWidth > 0).join(',')"
  - expect: {{ that: "{{{{ steps.pictures.value == 'true,true,true,true' }}}}" }}
  - expect: {{ hidden: {{ text: "page snapshot at the failure" }} }}
  - click: {{ css: "tr.failed[data-trace]" }}
  - expect: {{ visible: {{ text: "page snapshot at the failure" }} }}
  - id: details
    eval: "[...document.querySelectorAll('tr.trace-detail')].filter(r => !r.hidden).map(r => r.textContent).join('|')"
  - expect: {{ that: "{{{{ 'Nothing like this' in steps.details.value and 'took' in steps.details.value }}}}" }}
  - id: shot
    eval: "[...document.querySelectorAll('tr.trace-detail')].filter(r => !r.hidden).map(r => r.querySelector('img.shot').naturalWidth).join(',')"
  - expect: {{ that: "{{{{ steps.shot.value | int > 0 }}}}" }}
  - id: snapshot
    eval: "(() => {{ const p = [...document.querySelectorAll('tr.trace-detail')].find(r => !r.hidden).querySelector('.snapshot pre'); const o = document.getElementById(p.dataset.same); return !!o && p.textContent.length > 10 && p.textContent === o.textContent; }})()"
  - expect: {{ that: "{{{{ steps.snapshot.value }}}}" }}
  - click: {{ css: ".filmstrip .frame:nth-child(3)" }}
  - expect: {{ visible: {{ text: '"value": "***"' }} }}
  - expect: {{ hidden: {{ text: "page snapshot at the failure" }} }}
"##,
            d.path().join("report").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("look.yaml").run();
    assert_eq!(code, 0, "{stderr}");
}

/// A flow on the trace fixture whose page leaks the secret: it logs it, puts it in the URL of
/// a request that gets a 404, throws an error with it; a request that gets no response too.
fn leaking_flow(dir: &Path) {
    write(
        dir,
        "leaks.yaml",
        &format!(
            r##"name: leaks
secrets: [TRACE_PW]
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - fill: {{ target: "#password", value: "{{{{ secrets.TRACE_PW }}}}" }}
  - click: "#send"
  - expect: {{ text: {{ target: "#out", equals: "status 404, refused" }} }}
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##,
            fixture("trace").display()
        ),
    );
}

/// The console messages and failed requests of each step are in the trace, the secret masked
/// in every one: the click's `console.log` in the click's entry (its end waits for the events
/// the browser sent before), the 404 named with its method and URL, the request with no
/// response with the browser's error, the page's uncaught error; the HTML report shows them,
/// masked too.
#[test]
fn console_and_failed_requests_are_traced_masked() {
    let d = tempfile::tempdir().unwrap();
    leaking_flow(d.path());
    let Ran { code, stderr, .. } = flow_run(d.path())
        .env("TRACE_PW", PW)
        .args(["leaks.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let art = d.path().join("art");
    for f in trace_files(&art) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(PW),
            "the secret is in {}",
            f.display()
        );
    }
    let text = std::fs::read_to_string(art.join("001-leaks/trace/trace.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = trace["steps"].as_array().unwrap();
    assert_eq!(steps[2]["action"], "click");
    let texts = |s: &serde_json::Value| -> Vec<String> {
        s["console"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| format!("{} {}", e["level"], e["text"]))
            .collect()
    };
    assert!(
        texts(&steps[2]).contains(&"\"log\" \"sending ***\"".to_string()),
        "{:?}",
        texts(&steps[2])
    );
    let console: Vec<String> = steps.iter().flat_map(texts).collect();
    assert!(
        console
            .iter()
            .any(|t| t.starts_with("\"error\"") && t.contains("gave up on ***")),
        "{console:?}"
    );
    let network: Vec<&serde_json::Value> = steps
        .iter()
        .flat_map(|s| s["network"].as_array().unwrap())
        .collect();
    assert!(
        network.iter().any(|n| n["status"] == 404
            && n["method"] == "GET"
            && n["url"].as_str().unwrap().ends_with("/missing?pw=***")),
        "{network:?}"
    );
    assert!(
        network
            .iter()
            .any(|n| n["url"] == "http://127.0.0.1:9/refused"
                && n["error"].as_str().unwrap().starts_with("net::ERR_")),
        "{network:?}"
    );
    assert_eq!(network.len(), 2, "each failed request once: {network:?}");
    let page = std::fs::read_to_string(d.path().join("report/index.html")).unwrap();
    assert!(!page.contains(PW), "the secret is on the page");
    write(
        d.path(),
        "look.yaml",
        &format!(
            r##"name: look at the console
steps:
  - open: "file://{}/index.html"
  - expect: {{ hidden: {{ text: "sending ***" }} }}
  - click: {{ css: "tr[data-trace=trace-1-2]" }}
  - expect: {{ visible: {{ text: "sending ***" }} }}
  # The requests may have failed during the click or the step after: all the details rows'.
  - id: network
    eval: "[...document.querySelectorAll('tr.trace-detail .network li')].map(l => l.textContent).join('|')"
  - expect: {{ that: "{{{{ '404 Not Found GET' in steps.network.value and 'missing?pw=***' in steps.network.value }}}}" }}
"##,
            d.path().join("report").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).arg("look.yaml").run();
    assert_eq!(code, 0, "{stderr}");
}

/// A page that leaks a secret whose encodings all differ (quotes, `&`, `<`, `/`, `+`, a space,
/// non-ASCII): in its console as it is, as JSON, percent-encoded and as base64 of its UTF-8,
/// in an uncaught error, in the URLs of a request that gets a 404 and of one that gets no
/// response, and in its text (the snapshot at the failure). Each is `***` in the trace, and
/// none of the secret's forms is in any file the run wrote (the trace, the pictures' names,
/// the snapshot, the JSON and HTML reports) nor in what it printed.
#[test]
fn every_trace_file_masks_the_secret_in_every_encoding() {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};

    use crate::secret_forms::{ENC_SECRET, encodings};
    use crate::secret_search::{everything, nowhere_shown};

    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "leaks.yaml",
        &format!(
            r##"name: leaks encoded
secrets: [ENC_SECRET]
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/encodings.html"
  - fill: {{ target: "#secret", value: "{{{{ secrets.ENC_SECRET }}}}" }}
  - click: "#leak"
  - wait: {{ js: "document.querySelector('#out').dataset.done === 'yes'" }}
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##,
            fixture("trace").display()
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = flow_run(d.path())
        .env("ENC_SECRET", ENC_SECRET)
        .args(["leaks.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let text =
        std::fs::read_to_string(d.path().join("art/001-leaks-encoded/trace/trace.json")).unwrap();
    // What the page leaked is there, masked (a search for the secret would pass on an empty
    // trace).
    for shown in [
        "as it is ***",
        r#"as JSON {\"v\":\"***\"}"#,
        "percent-encoded *** base64 ***",
        "missing?v=***&b=***",
        "http://127.0.0.1:9/***",
        "gave up on ***",
    ] {
        assert!(text.contains(shown), "{shown} not in the trace: {text}");
    }
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let snapshot = trace["steps"][4]["snapshot"].as_str().unwrap();
    let snapshot = std::fs::read_to_string(snapshot).unwrap();
    assert!(snapshot.contains("leaked ***"), "{snapshot}");
    let bytes = ENC_SECRET.as_bytes();
    let mut forms = encodings(ENC_SECRET);
    forms.push(("the secret", ENC_SECRET.to_string()));
    for (what, engine) in [
        ("base64", &STANDARD),
        ("base64 unpadded", &STANDARD_NO_PAD),
        ("base64 URL-safe", &URL_SAFE),
        ("base64 URL-safe unpadded", &URL_SAFE_NO_PAD),
    ] {
        let b64 = engine.encode(bytes);
        forms.push((what, b64.clone()));
        forms.push((
            "base64 percent-encoded",
            b64.replace('+', "%2B")
                .replace('/', "%2F")
                .replace('=', "%3D"),
        ));
    }
    let printed = [("stdout", stdout.as_str()), ("stderr", stderr.as_str())];
    let texts = everything(d.path(), &printed);
    assert!(
        texts.iter().any(|(w, _)| w.ends_with("trace.json"))
            && texts.iter().any(|(w, _)| w.ends_with("index.html")),
        "the trace and the report are searched"
    );
    nowhere_shown(d.path(), &printed, &forms);
}

/// A page's event bigger than a WebSocket frame's usual bound (16 MiB: an upload of 17 MiB,
/// whose body the request's event would carry, and a console message of 17 MiB) does not end
/// runner's DevTools connection while the flow records its trace: the flow passes, and the
/// connection still hears what the page logs after.
#[test]
fn a_pages_events_bigger_than_a_frame_do_not_end_the_recording() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "big.yaml",
        &format!(
            r##"name: big
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/big.html"
  - click: "#post"
  - expect: {{ text: {{ target: "#out", equals: uploaded }} }}
    timeout: 20s
  - click: "#log"
  - expect: {{ text: {{ target: "#out", equals: logged }} }}
    timeout: 20s
"##,
            fixture("trace").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path()).args(["big.yaml", "--trace", "on"]).run();
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(d.path().join("art/001-big/trace/trace.json")).unwrap();
    assert!(
        text.contains("after the big one"),
        "{}",
        &text[..text.len().min(3000)]
    );
}

/// A flaky flow (failed, passed on its retry) under the default `retain-on-failure`: the failed
/// attempt's trace was kept in its artifacts but named nowhere (report.json had no `trace`, the
/// HTML report no row): attack 29's A9. The flow's result now names it, as Playwright's report
/// shows a flaky test's failed attempt.
#[test]
fn a_flaky_flows_failed_attempt_keeps_its_trace_in_the_report() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: flaky\nsteps:\n  - exec: { command: \"test -f flag || { touch flag; exit 1; }\", shell: true }\n",
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args(["f.yaml", "--retries", "1", "--report", "html=h"])
        .run();
    assert_eq!(code, 0, "{stderr}");
    let flow = &report["flows"][0];
    assert_eq!(flow["flaky"], true, "{flow:#}");
    let trace = flow["trace"].as_str().unwrap_or_else(|| panic!("{flow:#}"));
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(trace).unwrap()).unwrap();
    assert_eq!(kept["status"], "failed", "{kept:#}");
    // Which run's it is (review of session 25, F4): the report's flow passed, its trace is of
    // run 1, which failed; said in report.json and on the HTML report's filmstrip and details.
    assert_eq!(flow["trace_attempt"], 1, "{flow:#}");
    let html = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    assert!(html.contains("the trace of run 1, which failed"), "{html}");
    assert!(
        html.contains("<p class=\"when\">run 1: started at"),
        "{html}"
    );
}

/// A flow that passed at once keeps no `trace_attempt`: its trace (`--trace on`) is its run's.
#[test]
fn a_flow_that_passes_at_once_names_no_other_run_for_its_trace() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        "name: once\nsteps:\n  - exec: [\"true\"]\n",
    );
    let report = flow_run(d.path())
        .args(["f.yaml", "--retries", "1", "--trace", "on"])
        .passes();
    let flow = &report["flows"][0];
    assert!(flow["trace"].is_string(), "{flow:#}");
    assert!(flow.get("trace_attempt").is_none(), "{flow:#}");
}
