//! A secret the page shows split by markup (`<span>Kestrel-</span><span>Vault-…</span>`, a
//! `<wbr>`, a highlight), in what a run keeps of the page (issue 27 / 29, the tenth attack's
//! F6): the trace's drawn pictures show it as `***`, and `inspect`'s `html` shows it masked in
//! every report.

use std::path::Path;

use crate::common::{flow_run, write};

const SECRET: &str = "Kestrel-Vault-9931-Zulu";

/// A page showing `key` as an API key, with a heading above it.
fn page(key: &str) -> String {
    format!(
        "<!doctype html><html><body style=\"font-size:28px\"><h1>Account</h1>\
         <p>API key: {key} (shown once)</p></body></html>"
    )
}

/// A failed flow `name` that opens `site`'s page: its trace draws the page as it was.
fn failing(dir: &Path, name: &str, site: &str) {
    write(
        dir,
        &format!("{name}.yaml"),
        &format!(
            r#"name: {name}
secrets: [T]
web_server: {{ static: "{site}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - expect: {{ that: "{{{{ 1 == 2 }}}}" }}
"#
        ),
    );
}

/// The drawn picture (a JPEG) of the first step of the flow whose artifacts end in `name`.
fn first_picture(dir: &Path, name: &str) -> Vec<u8> {
    let flow = std::fs::read_dir(dir.join("art"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no artifacts of {name}"));
    let path = flow.path().join("trace/trace.json");
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let picture = trace["steps"][0]["picture"].as_str().unwrap_or_default();
    assert!(
        Path::new(picture).extension().is_some_and(|e| e == "jpg"),
        "{trace}"
    );
    std::fs::read(picture).unwrap()
}

/// Two failed flows: one on a page that shows the secret split across two elements, one on
/// the same page showing `***` where the masking puts it. Their drawn pictures are the same,
/// byte for byte: the picture of the first shows no piece of the secret (before the fix, it
/// drew `API key: Kestrel-Vault-9931-Zulu`, since the HTML was masked only as text).
#[test]
fn a_drawn_picture_masks_a_secret_split_by_markup() {
    let d = tempfile::tempdir().unwrap();
    let split = "<span>Kestrel-</span><wbr><span>Vault-9931-Zulu</span>";
    for site in ["split", "masked"] {
        std::fs::create_dir(d.path().join(site)).unwrap();
    }
    write(d.path(), "split/index.html", &page(split));
    write(
        d.path(),
        "masked/index.html",
        &page("<span>***</span><wbr><span></span>"),
    );
    failing(d.path(), "split", "split");
    failing(d.path(), "masked", "masked");
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["split.yaml", "masked.yaml"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let (shown, masked) = (
        first_picture(d.path(), "split"),
        first_picture(d.path(), "masked"),
    );
    assert!(
        shown == masked,
        "the drawn picture differs from the masked page's"
    );
}

/// `inspect` of an element that shows the secret split by markup: its `html` (and each
/// element's) is masked in report.json, trace.json and the HTML report, as its `text` is.
#[test]
fn inspect_html_masks_a_secret_split_by_markup() {
    let d = tempfile::tempdir().unwrap();
    let split = "<span>Kestrel-</span><span>Vault-9931-Zulu</span>";
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(d.path(), "site/index.html", &page(split));
    write(
        d.path(),
        "insp.yaml",
        r#"name: inspect split
secrets: [T]
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/index.html"
  - id: i
    inspect: { target: "p" }
  - exec: ["sh", "-c", "exit 1"]
"#,
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["insp.yaml", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let i = &ran.report["flows"][0]["steps"][1];
    assert_eq!(i["outputs"]["text"], "API key: *** (shown once)", "{i}");
    let html = i["outputs"]["html"].as_str().unwrap();
    assert!(html.starts_with("<p>API key: <span>***</span>"), "{html}");
    let trace = std::fs::read_to_string(d.path().join("art/001-inspect-split/trace/trace.json"));
    let index = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    let report = ran.report.to_string();
    for (name, text) in [
        ("report", &report),
        ("trace", &trace.unwrap()),
        ("html", &index),
    ] {
        for piece in ["Kestrel", "Vault-9931", "9931-Zulu"] {
            assert!(!text.contains(piece), "{name} shows {piece}");
        }
    }
    assert!(index.contains("inspect"), "{index}");
}

/// A failed flow `name` that types the secret into a field when `typed` (else types `nothing`),
/// then fails an assertion on the page.
fn typing(dir: &Path, name: &str, typed: bool) {
    let value = if typed { "{{ secrets.T }}" } else { "nothing" };
    write(
        dir,
        &format!("{name}.yaml"),
        &format!(
            r##"name: {name}
secrets: [T]
web_server: {{ static: "site" }}
steps:
  - open: "{{{{ web_server.url }}}}/form.html"
  - fill: {{ target: "#tok", value: "{value}" }}
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##
        ),
    );
}

/// `site/form.html` under `dir`: a page with one text field (`#tok`).
fn form_site(dir: &Path) {
    std::fs::create_dir(dir.join("site")).unwrap();
    write(
        dir,
        "site/form.html",
        "<!doctype html><html><body><h1>Account</h1>\
         <label>Token <input id=\"tok\" type=\"text\" size=\"40\"></label></body></html>",
    );
}

/// A failed step's screenshot would show a secret typed into a field in pixels, which no masker
/// reads: it is left out, and the console, report.json and the HTML report say so; the trace
/// still has the step's picture, drawn from the masked snapshot. The same flow typing no secret
/// keeps its screenshot.
#[test]
fn a_failure_screenshot_of_a_page_showing_a_secret_is_left_out() {
    let d = tempfile::tempdir().unwrap();
    form_site(d.path());
    typing(d.path(), "typed", true);
    typing(d.path(), "plain", false);
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["typed.yaml", "plain.yaml", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let arts = |name: &str| {
        let flows = ran.report["flows"].as_array().unwrap();
        let flow = flows.iter().find(|f| f["name"] == name).unwrap();
        flow["steps"][2]["failure_artifacts"].clone()
    };
    let (typed, plain) = (arts("typed"), arts("plain"));
    assert_eq!(
        typed["screenshot_left_out"], "the page showed a secret",
        "{typed}"
    );
    assert!(typed["screenshot"].is_null(), "{typed}");
    assert!(typed["snapshot"].is_string(), "{typed}");
    assert!(plain["screenshot"].is_string(), "{plain}");
    assert!(plain["screenshot_left_out"].is_null(), "{plain}");
    let dir = |name: &str| {
        std::fs::read_dir(d.path().join("art"))
            .unwrap()
            .filter_map(Result::ok)
            .find(|e| e.file_name().to_string_lossy().ends_with(name))
            .unwrap()
            .path()
    };
    let pngs = |flow: &str| {
        std::fs::read_dir(dir(flow))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with("-failure.png"))
            .count()
    };
    assert_eq!((pngs("-typed"), pngs("-plain")), (0, 1));
    let said = format!("{}{}", ran.stdout, ran.stderr);
    assert!(
        said.contains("screenshot left out: the page showed a secret"),
        "{said}"
    );
    let index = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    assert!(index.contains("screenshot left out: the page showed a secret"));
    let shots = index
        .matches("alt=\"the page when the step failed\"")
        .count();
    assert_eq!(shots, 1, "only the plain flow's");
    let trace = std::fs::read_to_string(dir("-typed").join("trace/trace.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&trace).unwrap();
    let failed = &trace["steps"][2];
    assert!(
        failed["picture"]
            .as_str()
            .is_some_and(|p| Path::new(p).extension().is_some_and(|e| e == "jpg")),
        "{failed}"
    );
}

/// With `trace: on`, a step's picture is a frame of the screencast, the page's pixels: none is
/// kept of a page that shows a secret (typed into a field), and the trace says why; the steps
/// before the secret is typed, and after the field is cleared, keep theirs.
#[test]
fn a_screencast_keeps_no_frame_of_a_page_showing_a_secret() {
    let d = tempfile::tempdir().unwrap();
    form_site(d.path());
    write(
        d.path(),
        "on.yaml",
        r##"name: on
secrets: [T]
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/form.html"
  - fill: { target: "#tok", value: "{{ secrets.T }}" }
  - fill: { target: "#tok", value: "nothing" }
"##,
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["on.yaml", "--trace", "on"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let text = std::fs::read_to_string(d.path().join("art/001-on/trace/trace.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = trace["steps"].as_array().unwrap();
    let kept: Vec<bool> = steps.iter().map(|s| s["picture"].is_string()).collect();
    assert_eq!(kept, [true, false, true], "{trace}");
    assert_eq!(steps[1]["picture_left_out"], "the page showed a secret");
    assert!(steps[2]["picture_left_out"].is_null(), "{trace}");
}

/// All the PNG files under the run's artifacts in `dir`.
fn pngs_under(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir.join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
        .map(|e| e.path().display().to_string())
        .collect()
}

/// Attack 27 D16: a `screenshot` step on a page that shows a typed secret wrote it in pixels
/// (`ok screenshot shot.png`) while the same run's trace left its picture out. Now the step
/// fails saying why and writes no file, whole page or one element; the same flow typing no
/// secret keeps both screenshots.
#[test]
fn a_screenshot_step_of_a_page_showing_a_secret_fails_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    form_site(d.path());
    let shots = |name: &str, value: &str| {
        write(
            d.path(),
            &format!("{name}.yaml"),
            &format!(
                r##"name: {name}
secrets: [T]
web_server: {{ static: "site" }}
steps:
  - open: "{{{{ web_server.url }}}}/form.html"
  - fill: {{ target: "#tok", value: "{value}" }}
  - id: page
    screenshot: {{ path: {name}-page.png }}
    continue_on_error: true
  - id: field
    screenshot: {{ target: "#tok", path: {name}-field.png }}
    continue_on_error: true
"##
            ),
        );
    };
    shots("typed", "{{ secrets.T }}");
    shots("plain", "nothing secret");
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["typed.yaml", "plain.yaml"])
        .run();
    let flows = ran.report["flows"].as_array().unwrap();
    let flow = |name: &str| flows.iter().find(|f| f["name"] == name).unwrap();
    for i in [2, 3] {
        let typed = &flow("typed")["steps"][i];
        assert_eq!(typed["outcome"], "failed", "{typed}");
        let message = typed["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains("the page showed a secret"), "{message}");
        let plain = &flow("plain")["steps"][i];
        assert_eq!(plain["outcome"], "passed", "{plain}");
    }
    let pngs = pngs_under(d.path());
    assert!(pngs.iter().all(|p| !p.contains("typed-")), "{pngs:?}");
    assert_eq!(pngs.iter().filter(|p| p.contains("plain-")).count(), 2);
}

/// Attack 27 D16, its second form: an agent-answered `act` kept the page before and after its
/// answer as PNGs, which showed the secret typed into a field. They are left out with the
/// trace's note; the step itself passes.
#[test]
fn an_act_keeps_no_picture_of_a_page_showing_a_secret() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    for f in ["index.html", "page2.html"] {
        std::fs::copy(crate::common::fixture("site").join(f), site.join(f)).unwrap();
    }
    write(
        d.path(),
        "f.yaml",
        r##"name: act on a secret
secrets: [T]
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/index.html"
  - fill: { target: "#email", value: "{{ secrets.T }}" }
  - id: ask
    act: { intent: "sign me in, please: the Sign in or Log in button", profile: fake-claude }
"##,
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(crate::agents::with_profiles(&["f.yaml"]))
        .with(|c| crate::agents::agent_env(c, d.path()))
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let o = &crate::common::step(&ran.report, "ask")["outputs"];
    assert_eq!(o["source"], "agent", "{o}");
    assert!(o["screenshot_before"].is_null(), "{o}");
    assert!(o["screenshot_after"].is_null(), "{o}");
    assert_eq!(o["screenshot_left_out"], "the page showed a secret", "{o}");
    let pngs = pngs_under(d.path());
    assert!(pngs.is_empty(), "{pngs:?}");
}

/// Attack 30, F6: with `trace: on`, the picture after each step of a very large page that shows
/// a secret is left out without asking agent-browser for the page's snapshot (seconds on a page
/// of 100,000 elements, and left running when cut, so the flow's NEXT step waited behind it and
/// failed as "still busy with the `dialog` command of an earlier step"). The page's rendered
/// text, read by a script that stops itself in time, tells first.
#[test]
fn a_trace_picture_of_a_huge_page_showing_a_secret_delays_no_later_step() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    write(
        &d.path().join("site"),
        "big.html",
        r#"<!doctype html><meta charset="utf-8"><title>big</title>
<input id="tok"><button id="go" onclick="document.getElementById('done').textContent='clicked'">go</button>
<p id="done"></p><div id="many"></div>
<script>
document.getElementById('tok').value = decodeURIComponent(location.hash.slice(1));
const many = document.getElementById('many');
const html = [];
for (let i = 0; i < 100000; i++) html.push('<span>item ' + i + '</span>');
many.innerHTML = html.join('');
</script>"#,
    );
    write(
        d.path(),
        "f.yaml",
        r##"name: big
secrets: [T]
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/big.html#{{ secrets.T }}"
  - click: "#go"
    timeout: 4s
  - expect: { text: { target: "#done", equals: clicked } }
    timeout: 4s
  - click: "#tok"
    timeout: 4s
"##,
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["f.yaml", "--trace", "on"])
        .run();
    assert_eq!(ran.code, 0, "{}\n{}", ran.stdout, ran.stderr);
    let text = std::fs::read_to_string(d.path().join("art/001-big/trace/trace.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    for s in trace["steps"].as_array().unwrap() {
        assert!(s["picture"].is_null(), "{s}");
        assert!(s["picture_left_out"].is_string(), "{s}");
    }
    assert!(!text.contains(SECRET));
}
