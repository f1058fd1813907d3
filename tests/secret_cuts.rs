//! Secrets where runner cuts a text short (issue 27, F7-F9): a page's console message, a
//! failed request's URL and an exception at 2000 characters, an element's text in `inspect`
//! (500) and in the strict-mode and covered-click messages (40), an `expect js` value (200), a
//! failed `request`'s body (200), its check messages (200) and its `body` output (1 MiB). Each
//! text holds the secret where the cut falls inside it: every cut happens after masking, so no
//! head of the secret shows anywhere the run printed or wrote.

use crate::common::{Ran, fixture, free_port, step, write};
use crate::secret_search::{nowhere_shown, run_failing_last};

/// Longer than API keys often are, and longer than the 40 characters an element's
/// description shows.
const SECRET: &str = "Qzx9-Kestrel-Vault-9931-Zulu-abcdefghijklmnopqrstuvwxyz-0123456789";

/// The secret's head: any longer one holds it.
fn head() -> Vec<(&'static str, String)> {
    vec![("the secret's first 4 characters", SECRET[..4].to_string())]
}

/// The page puts the typed secret behind 1988 characters of a console message, 1960 of a
/// failed request's URL, 1985 of an exception, 490 of an element's text; the secret is the
/// value of a field a strict-mode error describes, of a textarea that covers a button, and of
/// what an `expect js` throws after 180 characters. The trace (kept: the flow fails) and every
/// report show each text cut, none a head of the secret.
#[test]
fn page_texts_are_masked_before_they_are_cut() {
    let d = tempfile::tempdir().unwrap();
    let flow = format!(
        r##"name: page cuts
secrets: [CUT_SECRET]
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - fill: {{ target: "#a", value: "{{{{ secrets.CUT_SECRET }}}}" }}
  - fill: {{ target: "#ov", value: "{{{{ secrets.CUT_SECRET }}}}" }}
  - click: "#go"
  - wait: {{ js: "document.getElementById('wrap').textContent.length > 490" }}
  - id: strict
    click: {{ css: input }}
    timeout: 1s
    continue_on_error: true
  - id: covered
    click: "#under"
    timeout: 1s
    continue_on_error: true
  - id: ins
    inspect: {{ target: "#wrap" }}
  - id: threw
    expect: {{ js: "(() => {{ throw {{ t: 'y'.repeat(180) + document.getElementById('a').value }} }})()" }}
    timeout: 1s
    continue_on_error: true
  - expect: {{ text: {{ target: "#wrap", contains: nope }} }}
    timeout: 1s
"##,
        fixture("secret-cuts").display()
    );
    write(d.path(), "cuts.yaml", &flow);
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "cuts.yaml", "CUT_SECRET", SECRET);
    // Each place ran and said what it cut.
    let error = |id: &str| step(&report, id)["error"]["message"].to_string();
    assert!(error("strict").contains("input#a"), "{report}");
    assert!(error("covered").contains("textarea#ov"), "{report}");
    assert!(error("threw").contains("yyyy"), "{report}");
    let text = step(&report, "ins")["outputs"]["elements"][0]["metadata"]["text"].to_string();
    assert!(text.contains("zzzz"), "{report}");
    let art = d.path().join("art");
    let trace = walkdir::WalkDir::new(&art)
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "trace.json")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("the failing flow keeps its trace");
    for shown in ["AAAA", "CCCC", "uuuu"] {
        assert!(trace.contains(shown), "no {shown} in the trace: {trace}");
    }
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &head(),
    );
}

/// A failed request's body (the secret after 185 characters), a check's actual values (after
/// 180), an `expect that` operand's value (a command's output, the secret after 190; one made
/// of a secret by the condition is masked whole): masked, then cut; and a `body` output
/// whose cut at 1 MiB falls 10 bytes into the secret: cut before the secret.
#[test]
fn request_texts_are_masked_before_they_are_cut() {
    let d = tempfile::tempdir().unwrap();
    let port = free_port();
    let flow = format!(
        r#"name: request cuts
secrets: [CUT_SECRET]
web_server:
  command: ["python3", "{api}", "{port}"]
  url: "http://127.0.0.1:{port}/items"
  ready_timeout: 20s
vars: {{ api: "http://127.0.0.1:{port}" }}
steps:
  - id: failing
    request:
      method: POST
      url: "{{{{ vars.api }}}}/say?status=500&pad=185"
      body: "{{{{ secrets.CUT_SECRET }}}} tail"
    continue_on_error: true
  - id: checked
    request:
      method: POST
      url: "{{{{ vars.api }}}}/say?pad=180&json=a"
      body: "{{{{ secrets.CUT_SECRET }}}} tail"
      expect: {{ json: {{ $.a: nope }}, body: {{ contains: nope }} }}
    continue_on_error: true
  - id: long
    request:
      method: POST
      url: "{{{{ vars.api }}}}/say?pad=1048566"
      body: "{{{{ secrets.CUT_SECRET }}}}"
  - id: padded
    exec: ["sh", "-c", "printf 'y%.0s' $(seq 190); printf %s \"$CUT_SECRET\""]
  - id: that
    expect: {{ that: "{{{{ steps.padded.stdout == 'a' }}}}" }}
    continue_on_error: true
  - exec: "false"
"#,
        api = fixture("api_server.py").display()
    );
    write(d.path(), "req.yaml", &flow);
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "req.yaml", "CUT_SECRET", SECRET);
    let error = |id: &str| step(&report, id)["error"]["message"].to_string();
    assert!(error("failing").contains("HTTP 500"), "{report}");
    assert!(error("checked").contains("xxxx"), "{report}");
    assert!(error("that").contains("yyyy"), "{report}");
    // The body as it came is 1 MiB and 56 bytes, cut at 1 MiB 10 bytes into the secret: the
    // output (data, as the server sent it) is cut before the secret, so none of it shows.
    let long = &step(&report, "long")["outputs"];
    assert_eq!(long["truncated"], true, "{}", long["headers"]);
    let body = long["body"].as_str().unwrap();
    assert!(
        body.ends_with("xxxx") && body.len() <= 1024 * 1024,
        "{}",
        body.len()
    );
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &head(),
    );
}
