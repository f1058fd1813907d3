//! A secret a page shows in pieces (flex or inline-block items, a hidden, off-screen or
//! screen-reader-only node between its parts), in what a run keeps of the page (issue 27, the
//! eleventh attack's G3, G4, G5): a failure screenshot and a `trace: on` frame of such a page
//! are left out (the page's rendered text is read before them, not only its accessibility
//! snapshot, which gives each piece as a text of its own); the drawn pictures and `inspect`'s
//! html do not count text the browser does not render as shown; `inspect`'s text and an
//! `eval` of such an element's text or HTML, and a `request` of the page, show it masked.
//! Pages: `tests/fixtures/shown-pieces`.

use std::path::Path;

use serde_json::Value;

use crate::common::{fixture, flow_run, write};

const SECRET: &str = "Kestrel-Vault-9931-Zulu";

/// The pieces of [`SECRET`] that no report may show.
const PIECES: [&str; 3] = ["Kestrel", "Vault-", "9931-Zulu"];

/// A flow `name` with secret `T` serving the fixture pages, with `steps` (YAML, indented by 2).
fn flow(dir: &Path, name: &str, steps: &str) {
    write(
        dir,
        &format!("{name}.yaml"),
        &format!(
            "name: {name}\nsecrets: [T]\nweb_server: {{ static: \"{}\" }}\nsteps:\n{steps}",
            fixture("shown-pieces").display()
        ),
    );
}

/// The artifacts directory of the flow whose directory name ends in `name`.
fn flow_dir(dir: &Path, name: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir.join("art"))
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no artifacts of {name}"))
        .path()
}

/// The flow `name`'s entry in `report`.
fn flow_of<'a>(report: &'a Value, name: &str) -> &'a Value {
    let flows = report["flows"].as_array().unwrap();
    flows.iter().find(|f| f["name"] == name).unwrap()
}

/// A failed step's screenshot of a page that shows the secret in pieces (four flex items, two
/// inline-block items, around an off-screen span, around a visually-hidden span) is left out,
/// and no failure PNG is written; the same flow on a page showing another key keeps its
/// screenshot. Before the fix, each was taken: the accessibility snapshot has each piece as a
/// text of its own, and the PNG showed the key whole. The snapshot written, and the HTML
/// report's copy of it, show none of the pieces (they held `StaticText "Kestrel-"`, ...).
#[test]
fn a_failure_screenshot_of_a_secret_shown_in_pieces_is_left_out() {
    let d = tempfile::tempdir().unwrap();
    let pages = [
        "flex",
        "inline-block",
        "off-screen",
        "visually-hidden",
        "plain",
    ];
    for page in pages {
        flow(
            d.path(),
            page,
            &format!(
                "  - open: \"{{{{ web_server.url }}}}/{page}.html\"\n  - expect: {{ visible: {{ text: \"Nothing like this\" }} }}\n    timeout: 1s\n"
            ),
        );
    }
    let files: Vec<String> = pages.iter().map(|p| format!("{p}.yaml")).collect();
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(&files)
        .args(["--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let mut wrong = Vec::new();
    let index = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    for piece in PIECES {
        if index.contains(piece) {
            wrong.push(format!("the HTML report shows {piece}"));
        }
    }
    for page in pages {
        let arts = &flow_of(&ran.report, page)["steps"][1]["failure_artifacts"];
        let pngs = std::fs::read_dir(flow_dir(d.path(), &format!("-{page}")))
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().ends_with("-failure.png"))
            .count();
        let right = if page == "plain" {
            arts["screenshot"].is_string() && pngs == 1
        } else {
            arts["screenshot_left_out"] == "the page showed a secret"
                && arts["screenshot"].is_null()
                && pngs == 0
        };
        if !right {
            wrong.push(format!("{page}: {arts}, {pngs} PNG"));
        }
        let snapshot = std::fs::read_to_string(arts["snapshot"].as_str().unwrap()).unwrap();
        for piece in PIECES.into_iter().filter(|p| snapshot.contains(p)) {
            wrong.push(format!("{page}'s snapshot shows {piece}: {snapshot}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// With `trace: on`, no screencast frame is kept of a page that shows the secret as four flex
/// items; a page showing another key keeps its frame.
#[test]
fn a_screencast_keeps_no_frame_of_a_secret_shown_in_pieces() {
    let d = tempfile::tempdir().unwrap();
    for page in ["flex", "plain"] {
        flow(
            d.path(),
            page,
            &format!("  - open: \"{{{{ web_server.url }}}}/{page}.html\"\n"),
        );
    }
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["flex.yaml", "plain.yaml", "--trace", "on"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let step = |page: &str| {
        let path = flow_dir(d.path(), &format!("-{page}")).join("trace/trace.json");
        let trace: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        trace["steps"][0].clone()
    };
    let (flex, plain) = (step("flex"), step("plain"));
    assert_eq!(
        flex["picture_left_out"], "the page showed a secret",
        "{flex}"
    );
    assert!(flex["picture"].is_null(), "{flex}");
    assert!(plain["picture"].is_string(), "{plain}");
}

/// Whether any of [`PIECES`] is in the run's report.json, trace.json or HTML report (`h/`).
fn shown_anywhere(dir: &Path, flow: &str, report: &Value) -> Vec<String> {
    let trace = std::fs::read_to_string(flow_dir(dir, flow).join("trace/trace.json")).unwrap();
    let index = std::fs::read_to_string(dir.join("h/index.html")).unwrap();
    let mut found = Vec::new();
    for (name, text) in [
        ("report", report.to_string()),
        ("trace", trace),
        ("html", index),
    ] {
        for piece in PIECES {
            if text.contains(piece) {
                found.push(format!("{name} shows {piece}"));
            }
        }
    }
    found
}

/// `inspect` of four flex items that show the secret: its `text` (`Kestrel- Vault- 9931- Zulu`
/// before the fix) is masked as its html is, and so is an `eval` of the element's `innerText`
/// (`Kestrel-\nVault-\n9931-\nZulu`), in report.json, trace.json and the HTML report.
#[test]
fn inspect_text_and_inner_text_of_a_secret_in_pieces_are_masked() {
    let d = tempfile::tempdir().unwrap();
    flow(
        d.path(),
        "pieces",
        "  - open: \"{{ web_server.url }}/flex.html\"\n  - id: i\n    inspect: { target: \"#key\" }\n  - id: t\n    eval: \"document.querySelector('#key').innerText\"\n  - exec: [\"sh\", \"-c\", \"exit 1\"]\n",
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["pieces.yaml", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let steps = &ran.report["flows"][0]["steps"];
    assert_eq!(steps[1]["outputs"]["text"], "***", "{}", steps[1]);
    assert_eq!(steps[2]["outputs"]["value"], "***", "{}", steps[2]);
    let found = shown_anywhere(d.path(), "-pieces", &ran.report);
    assert!(found.is_empty(), "{found:?}");
}

/// A secret split by a node the browser does not render (a `hidden` span, an inline
/// `display:none` one, a hidden textarea, an inline-styled off-screen span, a visually-hidden
/// one clipped to a pixel by a class): `inspect`'s html and text of the first four are masked
/// (the off-screen span's text is in the text), and the drawn picture of the page is the
/// picture of the page with `***` where the masking puts it, byte for byte (before the fix,
/// each showed the key whole: the text not rendered was read as shown between its parts).
/// (A class's rule is told only on the live page: `inspect`'s html of the last is not looked
/// at here.)
#[test]
fn text_not_rendered_does_not_hide_a_split_secret() {
    let d = tempfile::tempdir().unwrap();
    let steps = "  - open: \"{{ web_server.url }}/hidden.html\"\n  - id: i\n    inspect: { target: [\"#p4\", \"#p5\", \"#p6\", \"#p8\"] }\n  - exec: [\"sh\", \"-c\", \"exit 1\"]\n";
    flow(d.path(), "split", steps);
    let masked = d.path().join("masked");
    std::fs::create_dir(&masked).unwrap();
    let hidden = std::fs::read_to_string(fixture("shown-pieces/hidden.html")).unwrap();
    let page = hidden
        .replace("Kestrel-</span>", "***</span>")
        .replace("<span>Vault-9931-Zulu</span>", "<span></span>")
        .replace("p5: Kestrel-", "p5: ***")
        .replace("</span>Vault-9931-Zulu</p>", "</span></p>");
    assert!(!page.contains("Kestrel"), "{page}");
    write(&masked, "hidden.html", &page);
    write(
        d.path(),
        "masked.yaml",
        &std::fs::read_to_string(d.path().join("split.yaml"))
            .unwrap()
            .replace("name: split", "name: masked")
            .replace(&fixture("shown-pieces").display().to_string(), "masked"),
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["split.yaml", "masked.yaml", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let outputs = &flow_of(&ran.report, "split")["steps"][1]["outputs"];
    let html = format!("{}\n{}", outputs["html"], outputs["text"]);
    let shown: Vec<&str> = PIECES.into_iter().filter(|p| html.contains(p)).collect();
    let picture = |name: &str| {
        let path = flow_dir(d.path(), name).join("trace/trace.json");
        let trace: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let picture = trace["steps"][0]["picture"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let jpg = Path::new(&picture).extension().is_some_and(|e| e == "jpg");
        assert!(jpg, "{trace}");
        std::fs::read(picture).unwrap()
    };
    let same = picture("-split") == picture("-masked");
    assert!(
        same && shown.is_empty(),
        "the drawn picture is the masked page's: {same}; inspect shows {shown:?}: {html}"
    );
}

/// An `eval` of an element's `outerHTML` and a `request` of the page, with no `inspect`
/// before them: the secret the markup splits is masked in the value and in the body (before
/// the fix both showed `<span>Kestrel-</span><wbr><span>Vault-9931-Zulu</span>`).
#[test]
fn eval_html_and_an_html_body_mask_a_secret_split_by_markup() {
    let d = tempfile::tempdir().unwrap();
    flow(
        d.path(),
        "reads",
        "  - open: \"{{ web_server.url }}/markup.html\"\n  - id: ev\n    eval: \"document.querySelector('#p1').outerHTML\"\n  - id: rq\n    request: { url: \"{{ web_server.url }}/markup.html\" }\n  - exec: [\"sh\", \"-c\", \"exit 1\"]\n",
    );
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(["reads.yaml", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let steps = &ran.report["flows"][0]["steps"];
    let value = steps[1]["outputs"]["value"].as_str().unwrap();
    assert!(
        value.starts_with("<p id=\"p1\">p1: <span>***</span>"),
        "{value}"
    );
    let body = steps[2]["outputs"]["body"].as_str().unwrap();
    assert!(body.contains("p1: <span>***</span>"), "{body}");
    let found = shown_anywhere(d.path(), "-reads", &ran.report);
    assert!(found.is_empty(), "{found:?}");
}

/// An atlas node of a page that shows the secret as four flex items keeps no screenshot, and
/// its meta.json says why; the node of a page showing another key keeps its screenshot. Before
/// the fix, the atlas shot it: its check read only the accessibility snapshot.
#[test]
fn an_atlas_node_of_a_secret_shown_in_pieces_keeps_no_screenshot() {
    let d = tempfile::tempdir().unwrap();
    flow(
        d.path(),
        "rec",
        "  - open: \"{{ web_server.url }}/flex.html\"\n  - link_state: key\n  - open: \"{{ web_server.url }}/plain.html\"\n  - link_state: plain\n",
    );
    let text = std::fs::read_to_string(d.path().join("rec.yaml")).unwrap();
    write(
        d.path(),
        "rec.yaml",
        &text.replace("steps:\n", "atlas: ./atl\nsteps:\n"),
    );
    let ran = flow_run(d.path()).env("T", SECRET).arg("rec.yaml").run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let mut nodes = Vec::new();
    for e in std::fs::read_dir(d.path().join("atl/nodes"))
        .unwrap()
        .flatten()
    {
        let meta = std::fs::read_to_string(e.path().join("meta.json")).unwrap();
        let shot = e.path().join("screenshot.png").exists();
        nodes.push((meta.contains("flex.html"), shot, meta));
    }
    nodes.sort();
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    let (plain, key) = (&nodes[0], &nodes[1]);
    assert!(key.0 && !key.1, "{nodes:?}");
    assert!(key.2.contains("the page showed a secret"), "{}", key.2);
    assert!(
        plain.1 && !plain.2.contains("showed a secret"),
        "{}",
        plain.2
    );
}

/// A secret the page shows in two pieces, one of them not a text node: CSS generated content
/// (`::before` strings, an `::after` of `attr()`) or a field's value (an input's, a
/// textarea's), the other a text node beside it (attack 25 B3). The failure screenshot and the
/// `trace: on` frame are left out, and the failure snapshot and the HTML report show none of
/// the pieces. Before the fix, the rendered text read before a picture held only text nodes:
/// the PNG and the frame showed the key whole, and the snapshot held its pieces raw
/// (`StaticText "Kestrel-Vault-"`, `textbox: Kestrel-Vault-`).
#[test]
fn a_secret_shown_partly_by_generated_content_or_a_field_value_is_left_out() {
    let d = tempfile::tempdir().unwrap();
    let pages = [
        "generated",
        "generated-after",
        "field-value",
        "textarea-value",
    ];
    for page in pages {
        flow(
            d.path(),
            page,
            &format!(
                "  - open: \"{{{{ web_server.url }}}}/{page}.html\"\n  - expect: {{ visible: {{ text: \"Nothing like this\" }} }}\n    timeout: 1s\n"
            ),
        );
    }
    let files: Vec<String> = pages.iter().map(|p| format!("{p}.yaml")).collect();
    let ran = flow_run(d.path())
        .env("T", SECRET)
        .args(&files)
        .args(["--report", "html=h", "--trace", "on"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let mut wrong = Vec::new();
    let index = std::fs::read_to_string(d.path().join("h/index.html")).unwrap();
    for piece in PIECES.into_iter().filter(|p| index.contains(p)) {
        wrong.push(format!("the HTML report shows {piece}"));
    }
    for page in pages {
        let dir = flow_dir(d.path(), &format!("-{page}"));
        let arts = &flow_of(&ran.report, page)["steps"][1]["failure_artifacts"];
        if arts["screenshot_left_out"] != "the page showed a secret"
            || !arts["screenshot"].is_null()
        {
            wrong.push(format!("{page}: {arts}"));
        }
        let snapshot = std::fs::read_to_string(arts["snapshot"].as_str().unwrap()).unwrap();
        for piece in PIECES.into_iter().filter(|p| snapshot.contains(p)) {
            wrong.push(format!("{page}'s snapshot shows {piece}: {snapshot}"));
        }
        let trace = std::fs::read_to_string(dir.join("trace/trace.json")).unwrap();
        let trace: Value = serde_json::from_str(&trace).unwrap();
        let open = &trace["steps"][0];
        if open["picture_left_out"] != "the page showed a secret" {
            wrong.push(format!("{page}'s frame: {open}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
