//! The names `explore` makes are masked as the pages it records are (attack 30, F11; issue 27
//! item 4): an action named after a link whose text holds a secret, in any form the masker
//! knows, holds no secret in the atlas (edge directories, `meta.json`, `flow.yaml`, `links/`,
//! `todos.json`), in `atlas show` and `atlas export`, nor in explore's own lines. A link text
//! holding the secret as it is is stored as `{{ secrets.NAME }}`, as recorded steps store a
//! typed secret, and replays; one holding it in another form (its cases, its reverse, its
//! base64) cannot be, and is not done, said in the summary.

use std::path::Path;

use crate::common::{free_port, output_within, runner, write};
use crate::secret_search::{as_written, everything, nowhere};
use crate::untrusted_stores::LIMIT;

const T: &str = "Zebra-Kestrel-4471";

/// The secret in each form the site shows it in.
fn forms() -> Vec<(&'static str, String)> {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(T);
    as_written(&[
        ("the secret", T.to_string()),
        ("its upper case", T.to_uppercase()),
        ("its lower case", T.to_lowercase()),
        ("its reverse", T.chars().rev().collect()),
        ("its base64", b64),
    ])
}

/// A static site in `d` (not the project's folder, which is searched) whose home page is titled
/// with the secret and links pages by texts that hold it as it is, in upper and lower case,
/// reversed, and in base64 (a button), beside a plain link to a page whose URL holds it.
fn site(d: &Path) {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(T);
    let rev: String = T.chars().rev().collect();
    let (up, low) = (T.to_uppercase(), T.to_lowercase());
    std::fs::create_dir_all(d.join("site")).unwrap();
    write(
        d,
        "site/index.html",
        &format!(
            "<!doctype html><title>{T} dashboard</title><main><h1>Home</h1>\n<a href=\"settings.html\">{T} settings</a>\n<a href=\"loud.html\">{up} LOUD</a>\n<a href=\"account.html\">Account of {low}</a>\n<a href=\"rev.html\">{rev} reversed</a>\n<a href=\"key.html?k={T}\">Key page</a>\n<button onclick=\"document.getElementById('o').textContent='copied'\">Copy {b64}</button><p id=o></p></main>"
        ),
    );
    for (page, title) in [
        ("settings", "Settings"),
        ("loud", "Loud"),
        ("account", "Account"),
        ("rev", "Reversed"),
        ("key", "Key"),
    ] {
        write(
            d,
            &format!("site/{page}.html"),
            &format!("<!doctype html><title>{title}</title><main><h1>{title}</h1></main>"),
        );
    }
}

/// `runner explore` in `d` of the site in `s` into `./atl`, T set: (exit code, stdout, stderr),
/// and the site's server arguments.
fn explore(d: &Path, s: &Path) -> ((i32, String, String), Vec<String>) {
    explore_with(d, s, &[], free_port())
}

/// [`explore`] with more arguments, the site served on `port`.
fn explore_with(
    d: &Path,
    s: &Path,
    more: &[&str],
    port: u16,
) -> ((i32, String, String), Vec<String>) {
    let site = s.join("site");
    let server = vec![
        "--web-server".to_string(),
        format!(
            "python3 -m http.server {port} --bind 127.0.0.1 --directory {}",
            site.display()
        ),
        "--web-server-url".to_string(),
        format!("http://127.0.0.1:{port}/"),
    ];
    let mut c = runner(d);
    c.args(["explore", &format!("http://127.0.0.1:{port}/index.html")])
        .args(["--atlas", "atl", "--max-depth", "2"])
        .args(more)
        .args(&server)
        .env("T", T);
    (output_within(c, LIMIT), server)
}

/// `runner atlas <args> --atlas atl` in `d`, T set: (exit code, stdout, stderr).
fn atlas_cmd(d: &Path, args: &[&str]) -> (i32, String, String) {
    let mut c = runner(d);
    c.arg("atlas")
        .args(args)
        .args(["--atlas", "atl"])
        .env("T", T);
    output_within(c, LIMIT)
}

/// Every edge's flow.yaml in `./atl`, by its action as meta.json has it.
fn edges(d: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(d.join("atl/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "meta.json")
    {
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
        let flow = std::fs::read_to_string(e.path().with_file_name("flow.yaml")).unwrap();
        out.push((meta["action"].as_str().unwrap().to_string(), flow));
    }
    out.sort();
    out
}

/// A project whose runner.toml names T (`[atlas] secrets`) explores a fresh atlas: the pages
/// are masked with T (the project said it is the atlas's secret), the names explore makes
/// hold it in no form, the link that holds T as it is is an edge typed as `{{ secrets.T }}`
/// that `verify` replays, and the links that hold another form of it are not done, said.
#[test]
fn explore_writes_no_secret_into_the_names_it_makes() {
    let (d, s) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    site(s.path());
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"T\"]\n");
    let ((code, out, err), server) = explore(d.path(), s.path());
    assert_eq!(code, 0, "{out}{err}");
    let settings = std::fs::read_to_string(d.path().join("atl/atlas.json")).unwrap();
    assert!(settings.contains("\"T\""), "{settings}");
    let edges = edges(d.path());
    let typed = edges
        .iter()
        .find(|(a, _)| a == "click link *** settings")
        .unwrap_or_else(|| panic!("no edge of the link that holds T: {edges:?}\n{out}{err}"));
    assert!(typed.1.contains("{{ secrets.T }} settings"), "{}", typed.1);
    assert!(
        edges.iter().any(|(a, _)| a == "click link Key page"),
        "{edges:?}"
    );
    // The others cannot be typed from T: not done, said (masked).
    for refused in ["click link *** LOUD", "click link Account of ***"] {
        assert!(!edges.iter().any(|(a, _)| a == refused), "{edges:?}");
        assert!(out.contains(refused), "{out}");
    }
    assert!(
        out.contains("holds a secret in another form than the secret itself"),
        "{out}"
    );
    let home = std::fs::read_dir(d.path().join("atl/edges"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .next()
        .unwrap();
    let mut verify = vec!["verify"];
    verify.extend(server.iter().map(String::as_str));
    let (vcode, vout, verr) = atlas_cmd(d.path(), &verify);
    assert_eq!(vcode, 0, "{vout}{verr}");
    let (scode, show, serr) = atlas_cmd(d.path(), &["show"]);
    assert_eq!(scode, 0, "{show}{serr}");
    assert!(show.contains("click link *** settings"), "{show}");
    let (ecode, exported, eerr) = atlas_cmd(d.path(), &["export", &home, "--out", "exp"]);
    assert_eq!(ecode, 0, "{exported}{eerr}");
    let printed = [
        ("explore stdout", out.as_str()),
        ("explore stderr", err.as_str()),
        ("verify stdout", vout.as_str()),
        ("verify stderr", verr.as_str()),
        ("atlas show", show.as_str()),
        ("atlas show stderr", serr.as_str()),
        ("atlas export", exported.as_str()),
        ("atlas export stderr", eerr.as_str()),
    ];
    nowhere(&everything(d.path(), &printed), &forms());
}

/// An atlas that names T (`atlas.json`) in a project whose runner.toml does not: the pages are
/// masked with T, and the link that holds T as it is is not done either (a stored step reads
/// only the secrets runner.toml's `[atlas] secrets` names), saying how to let it.
#[test]
fn explore_does_not_type_a_secret_the_project_does_not_name() {
    let (d, s) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    site(s.path());
    std::fs::create_dir(d.path().join("atl")).unwrap();
    write(
        d.path(),
        "atl/atlas.json",
        "{\"fingerprint\": \"structure\", \"secrets\": [\"T\"]}",
    );
    let ((code, out, err), _) = explore(d.path(), s.path());
    assert_eq!(code, 0, "{out}{err}");
    let edges = edges(d.path());
    assert!(!edges.iter().any(|(a, _)| a.contains("***")), "{edges:?}");
    assert!(out.contains("click link *** settings"), "{out}");
    assert!(
        out.contains("runner.toml: [atlas] secrets = [\\\"T\\\"]"),
        "{out}"
    );
    let printed = [
        ("explore stdout", out.as_str()),
        ("explore stderr", err.as_str()),
    ];
    nowhere(&everything(d.path(), &printed), &forms());
}

/// A crawl stopped by `--max-nodes` keeps its todos for the next one (`todos.json`): the move
/// whose link holds T is kept as its step typed with `{{ secrets.T }}`, its name masked, and
/// the next crawl does it; no file holds T in any form in between.
#[test]
fn a_crawl_stopped_early_keeps_its_todos_without_the_secret() {
    let (d, s) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    site(s.path());
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"T\"]\n");
    // On one port: the next crawl replays the recorded entry as it is.
    let port = free_port();
    let ((code, out, err), _) = explore_with(d.path(), s.path(), &["--max-nodes", "1"], port);
    assert_eq!(code, 0, "{out}{err}");
    let home = std::fs::read_dir(d.path().join("atl/nodes"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let todos = std::fs::read_to_string(home.join("todos.json")).unwrap();
    assert!(todos.contains("{{ secrets.T }} settings"), "{todos}");
    let printed = [
        ("explore stdout", out.as_str()),
        ("explore stderr", err.as_str()),
    ];
    nowhere(&everything(d.path(), &printed), &forms());
    let ((code, out2, err2), _) = explore_with(d.path(), s.path(), &[], port);
    assert_eq!(code, 0, "{out2}{err2}");
    assert!(
        edges(d.path())
            .iter()
            .any(|(a, f)| a == "click link *** settings" && f.contains("{{ secrets.T }}")),
        "{out2}{err2}"
    );
    let printed = [
        ("explore stdout", out2.as_str()),
        ("explore stderr", err2.as_str()),
    ];
    nowhere(&everything(d.path(), &printed), &forms());
}
