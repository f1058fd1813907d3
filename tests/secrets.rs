//! Secrets end to end: values built from a secret and their encodings are masked (issue 27,
//! item 6), and no name runner creates holds a secret (item 4). Each test greps everything the
//! run printed and wrote.

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};

use crate::common::{Ran, fixture, flow_run, output, runner, step, write};
use crate::secret_search::{everything, nowhere};

/// The password: its base64 in `user:<password>` has `+` and `/` (so its URL-safe form differs),
/// and sits at another offset than the password's own base64.
const BASIC_PW: &str = "hunter2>?~s3?cret";

/// Values made of a secret are secrets too, with their encodings: the base64 of
/// `user:<password>` (HTTP Basic) built by a command from a template and from a var made of the
/// secret, built by the page from what was typed (the header, the token percent-encoded in the
/// query and URL-safe and unpadded in the fragment), a var made of the secret upper-cased and
/// reversed.
#[test]
fn values_built_from_a_secret_are_masked_with_their_encodings() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "basic.yaml",
        &format!(
            r##"name: derived secrets
secrets: [BASIC_PW]
web_server: {{ static: "{}" }}
vars:
  creds: "user:{{{{ secrets.BASIC_PW }}}}"
steps:
  - id: std
    exec: ["sh", "-c", "printf %s \"$0\" | base64", "user:{{{{ secrets.BASIC_PW }}}}"]
  - id: urlsafe
    exec: ["sh", "-c", "printf %s \"$0\" | base64 | tr '+/' '-_' | tr -d '='", "{{{{ vars.creds }}}}"]
  - log: "shout {{{{ vars.creds | upper }}}} back {{{{ vars.creds | reverse }}}}"
  - open: "{{{{ web_server.url }}}}/basic.html"
  - fill: {{ target: "#user", value: user }}
  - fill: {{ target: "#password", value: "{{{{ secrets.BASIC_PW }}}}" }}
  - click: {{ role: button, text: Sign in }}
  - wait: {{ url: "#t=" }}
  - id: header
    eval: "document.querySelector('#auth').textContent + ' at ' + location.href"
  - log: "the page says {{{{ steps.header.value }}}}"
  - expect: {{ text: {{ target: "#auth", equals: "Basic nothing" }} }}
    timeout: 1s
"##,
            fixture("secrets").display()
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .env("BASIC_PW", BASIC_PW)
        .args([
            "basic.yaml",
            "--report",
            "junit=r.xml",
            "--report",
            "html=html",
        ])
        .run();
    assert_eq!(code, 1, "only the last step fails: {stderr}");
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    let failed: Vec<&str> = steps
        .iter()
        .filter(|s| s["outcome"] != "passed")
        .map(|s| s["action"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(failed, ["expect"], "{report}");
    // The steps did make the values, and what they printed is there, masked.
    assert!(
        step(&report, "std")["outputs"]["stdout"]
            .as_str()
            .unwrap()
            .starts_with("dXNlcj"),
        "{report}"
    );
    let shown = step(&report, "header")["outputs"]["value"]
        .as_str()
        .unwrap();
    assert!(
        shown.starts_with("Basic ") && shown.contains("***") && shown.contains("#t="),
        "{shown}"
    );
    assert!(stderr.contains("shout *** back ***"), "{stderr}");

    let creds = format!("user:{BASIC_PW}");
    let b64 = STANDARD.encode(&creds);
    let safe = URL_SAFE_NO_PAD.encode(&creds);
    assert!(b64.contains('+') && b64.contains('/'), "{b64}");
    // What only the password's bytes decide in its base64 at this offset ("user:" is 5 bytes).
    let inner = |s: &str| s[8..s.trim_end_matches('=').len() - 2].to_string();
    let in_url = |s: &str| {
        s.replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D")
    };
    let forms = [
        ("the password", BASIC_PW.to_string()),
        ("base64 of user:password", b64.clone()),
        ("base64 unpadded", b64.trim_end_matches('=').to_string()),
        ("base64 URL-safe", URL_SAFE.encode(&creds)),
        ("base64 URL-safe unpadded", safe.clone()),
        ("the password's part of the base64", inner(&b64)),
        ("the password's part of the URL-safe base64", inner(&safe)),
        ("the base64 in a URL", in_url(&b64)),
        (
            "the password's part of the base64 in a URL",
            in_url(&inner(&b64)),
        ),
        ("user:password upper-cased", creds.to_uppercase()),
        ("user:password reversed", creds.chars().rev().collect()),
    ];
    let texts = everything(d.path(), &[("stdout", &stdout), ("stderr", &stderr)]);
    nowhere(&texts, &forms);
}

/// The secret typed and named: upper and lower case, so that its cased forms differ from it.
const NAME_SECRET: &str = "Kx9-ZeQrUt-Qm4";

/// Names runner makes from a value are masked: atlas actions (edge directories, links,
/// meta.json, the edge flow's name, `atlas show`, `path`, `graph`, `export`) from a secret, its
/// lower-cased form and a long action that is cut; a screenshot path from the secret (a
/// directory) and from its reversed form; a download's page-suggested name, with a step and
/// without; a download path from a slice of it; a `state.save` path from its upper-cased form.
/// Each file is where the step's output says it is; two names masked alike are two files.
#[test]
fn names_runner_creates_never_hold_a_secret() {
    let d = tempfile::tempdir().unwrap();
    let long = "x".repeat(50);
    write(
        d.path(),
        "names.yaml",
        &format!(
            r##"name: secret names
secrets: [NAME_SECRET]
web_server: {{ static: "{}" }}
atlas: atlas
steps:
  - open: "{{{{ web_server.url }}}}/names.html"
  - link_state: start
  - fill: {{ target: "#name", value: "{{{{ secrets.NAME_SECRET }}}}" }}
  - click: {{ role: button, text: Save }}
  - wait: {{ text: Saved }}
  - link_state: "saved as {{{{ secrets.NAME_SECRET | lower }}}}"
  - click: "#again"
  # A page that shows the secret is never photographed (attack 27 D16): the field is cleared.
  - fill: {{ target: "#name", value: "" }}
  - id: shot1
    screenshot: {{ path: "shots/{{{{ secrets.NAME_SECRET | reverse }}}}.png" }}
  - id: shot3
    screenshot: {{ path: "shots/{{{{ secrets.NAME_SECRET }}}}.png" }}
  - id: shot2
    screenshot: {{ path: "{{{{ secrets.NAME_SECRET }}}}/page.png" }}
  - id: dl1
    download: {{ target: "#export" }}
  - id: dl2
    download: {{ target: "#export", path: "dl/{{{{ secrets.NAME_SECRET[2:12] }}}}.csv" }}
  - id: state
    state: {{ save: "state-{{{{ secrets.NAME_SECRET | upper }}}}.json" }}
  - click: {{ role: link, text: Details }}
  - link_state: "{long} {{{{ secrets.NAME_SECRET }}}} {long}"
"##,
            fixture("secrets").display()
        ),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .env("NAME_SECRET", NAME_SECRET)
        .arg("names.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    // Each file is where its step says, under a masked name.
    for (id, rel) in [
        ("shot1", "art/001-secret-names/shots/***.png"),
        // Masked alike, numbered: not written over shot1's.
        ("shot3", "art/001-secret-names/shots/*** (2).png"),
        ("shot2", "art/001-secret-names/***/page.png"),
        ("dl1", "art/001-secret-names/downloads/report-***.csv"),
        ("dl2", "art/001-secret-names/dl/***.csv"),
        ("state", "state-***.json"),
    ] {
        let path = step(&report, id)["outputs"]["path"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(path.ends_with(rel), "{id}: {path}");
        assert!(Path::new(&path).is_file(), "{id}: no file at {path}");
    }
    // The download no step took gets the page's name at the end of the flow, masked too.
    let downloads = d.path().join("art/001-secret-names/downloads");
    let mut names: Vec<String> = std::fs::read_dir(&downloads)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["report-*** (2).csv", "report-***.csv"], "{names:?}");

    let atlas = |args: &[&str]| {
        let mut c = runner(d.path());
        c.arg("atlas").args(args).args(["--atlas", "atlas"]);
        let (code, out, err) = output(c);
        assert_eq!(code, 0, "atlas {args:?}: {err}");
        out
    };
    let show = atlas(&["show"]);
    assert!(show.contains("--[saved as ***]-->"), "{show}");
    let details = show
        .lines()
        .find_map(|l| {
            l.contains("--[xxxxx")
                .then(|| l.rsplit(' ').next().unwrap().to_string())
        })
        .unwrap_or_else(|| panic!("no edge to the details page: {show}"));
    let path = atlas(&["path", &details]);
    let graph = atlas(&["graph"]);
    // The project names the secret the atlas's steps may read (see atlas_reach).
    std::fs::write(
        d.path().join("runner.toml"),
        "[atlas]\nsecrets = [\"NAME_SECRET\"]\n",
    )
    .unwrap();
    let exported = atlas(&["export", &details]);
    assert!(exported.contains("secrets.NAME_SECRET"), "{exported}");
    // The edges keep the actions masked, the long one whole (its directory is cut, after).
    let mut actions: Vec<String> = walkdir::WalkDir::new(d.path().join("atlas/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "meta.json")
        .map(|e| {
            let m: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            m["action"].as_str().unwrap().to_string()
        })
        .collect();
    actions.sort();
    assert_eq!(
        actions,
        ["saved as ***".to_string(), format!("{long} *** {long}")]
    );
    // Each edge's flow keeps the templates and declares the secret they read (a slice too).
    for e in walkdir::WalkDir::new(d.path().join("atlas/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "flow.yaml")
    {
        let mut c = runner(d.path());
        c.arg("validate").arg(e.path());
        let (code, _, err) = output(c);
        assert_eq!(code, 0, "{}: {err}", e.path().display());
    }

    let lower = NAME_SECRET.to_lowercase();
    let upper = NAME_SECRET.to_uppercase();
    let reversed: String = NAME_SECRET.chars().rev().collect();
    let mut forms = vec![
        ("the secret", NAME_SECRET.to_string()),
        ("its lower case", lower.clone()),
        ("its upper case", upper),
        ("it reversed", reversed),
    ];
    // Any slice of it (a long name is cut), cased or not, of six characters or more.
    for i in 0..=NAME_SECRET.len() - 6 {
        forms.push(("a slice of it", NAME_SECRET[i..i + 6].to_string()));
        forms.push(("a slice of its lower case", lower[i..i + 6].to_string()));
    }
    let texts = everything(
        d.path(),
        &[
            ("stdout", &stdout),
            ("stderr", &stderr),
            ("atlas show", &show),
            ("atlas path", &path),
            ("atlas graph", &graph),
            ("atlas export", &exported),
        ],
    );
    nowhere(&texts, &forms);
}

/// A secret in `browser.headers` is sent by the browser to every origin its pages load from
/// (attack 25 B8: a bearer token reached a third-party pixel and script): the run says so,
/// naming the flow and the header; a header that reads no secret is not named.
#[test]
fn a_secret_in_browser_headers_is_warned_about() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "h.yaml",
        "name: signed\nsecrets: [API_TOKEN]\nbrowser:\n  headers:\n    Authorization: \"Bearer {{ secrets.API_TOKEN }}\"\n    X-Run: \"{{ vars.run }}\"\nvars: { run: nightly }\nsteps:\n  - log: hi\n",
    );
    let mut c = runner(d.path());
    c.env("API_TOKEN", "tok-Kx7Wq2Rn8Lp5")
        .args(["run", "h.yaml", "--artifacts", "art"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("flow `signed`: browser.headers Authorization read a secret")
            && stderr.contains("every origin"),
        "{stderr}"
    );
    assert!(!stderr.contains("X-Run"), "{stderr}");
    assert!(!stderr.contains("tok-Kx7Wq2Rn8Lp5"), "{stderr}");
}
