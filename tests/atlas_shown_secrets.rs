//! What an atlas makes of a secret a page shows, beside what a flow makes of one: a node is
//! the page masked with the secrets the atlas names (what replays mask with), never with the
//! values a flow happened to make of one (a `.split('-')[0]` of `admin-corp` is `admin`: the
//! URL `/admin/` stays as it is, and verify finds the node); a node whose page shows a secret
//! keeps no screenshot (its pixels would show it), and says why; a secret the atlas names but
//! the environment does not set is named when a page no longer matches its node.

use std::path::Path;

use crate::atlas_secrets::{APP, KEY, recorded};
use crate::common::{free_port, output_within, runner, write};
use crate::untrusted_stores::LIMIT;

/// Each node's directory in `d/atl` with its meta.json and snapshot.txt, by node id.
fn nodes(d: &Path) -> Vec<(std::path::PathBuf, String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d.join("atl/nodes")).unwrap().flatten() {
        let read = |f: &str| std::fs::read_to_string(e.path().join(f)).unwrap_or_default();
        out.push((e.path(), read("meta.json"), read("snapshot.txt")));
    }
    out.sort();
    out
}

/// AT1: a flow that logs a piece of `ORG` (`admin`, which the page's URL holds) records home
/// and the panel: the panel's node is `/admin/index.html`, not `/***/index.html`, and
/// `atlas verify` (which masks with the atlas's secrets only) finds every node.
#[test]
fn what_a_flow_makes_of_a_secret_is_not_what_a_node_is() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    std::fs::create_dir_all(d.join("site/admin")).unwrap();
    write(
        d,
        "site/index.html",
        "<!doctype html><title>Home</title><main><h1>Home</h1><a href=\"admin/index.html\">Panel</a></main>",
    );
    write(
        d,
        "site/admin/index.html",
        "<!doctype html><title>Panel</title><main><h1>Panel</h1><p>Settings</p></main>",
    );
    write(
        d,
        "rec.yaml",
        "name: rec\nsecrets: [ORG]\nweb_server: { static: ./site }\natlas: ./atl\nsteps:\n  - log: \"org short name: {{ secrets.ORG.split('-')[0] }}\"\n  - open: \"{{ web_server.url }}/index.html\"\n  - link_state: home\n  - click: { role: link, text: Panel }\n  - link_state: panel\n",
    );
    let mut c = runner(d);
    c.args(["run", "rec.yaml", "--artifacts", "art"])
        .env("ORG", "admin-corp");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    // The flow did learn the piece: its log masks it.
    assert!(err.contains("org short name: ***"), "{out}{err}");
    let recorded = nodes(d);
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert!(
        recorded
            .iter()
            .any(|(_, meta, _)| meta.contains("/admin/index.html")),
        "{recorded:?}"
    );
    assert!(
        !recorded.iter().any(|(_, meta, _)| meta.contains("/***/")),
        "{recorded:?}"
    );
    let port = free_port();
    let cmd = format!("python3 -m http.server {port} --bind 127.0.0.1 --directory site");
    let url = format!("http://127.0.0.1:{port}/");
    let mut c = runner(d);
    c.args(["atlas", "verify", "--atlas", "atl"])
        .args(["--web-server", &cmd, "--web-server-url", &url])
        .env("ORG", "admin-corp");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 verified"), "{out}");
    assert!(!out.contains("the page changed"), "{out}");
    // The same pages recorded by a flow that makes nothing of the secret: the same nodes.
    let plain = std::fs::read_to_string(d.join("rec.yaml")).unwrap();
    let plain: String = plain
        .lines()
        .filter(|l| !l.contains("- log:"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(d, "plain.yaml", &plain.replace("name: rec", "name: plain"));
    let mut c = runner(d);
    c.args(["run", "plain.yaml", "--artifacts", "art2"])
        .env("ORG", "admin-corp");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let again: Vec<_> = nodes(d).into_iter().map(|n| n.0).collect();
    let before: Vec<_> = recorded.into_iter().map(|n| n.0).collect();
    assert_eq!(again, before);
}

/// A1: the About page shows the deploy key (`Deploy key: ***` in its snapshot): its node keeps
/// no screenshot.png, its meta.json and `atlas show` say why; home, which shows no secret,
/// keeps its screenshot.
#[test]
fn a_page_that_shows_a_secret_keeps_no_screenshot() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    recorded(d);
    let all = nodes(d);
    assert_eq!(all.len(), 2, "{all:?}");
    let (about, home): (Vec<_>, Vec<_>) = all
        .iter()
        .partition(|(_, _, snap)| snap.contains("Deploy key"));
    let (about, home) = (about[0], home[0]);
    assert!(about.2.contains("Deploy key: ***"), "{}", about.2);
    assert!(!about.0.join("screenshot.png").exists());
    assert!(about.1.contains("the page showed a secret"), "{}", about.1);
    assert!(home.0.join("screenshot.png").exists());
    assert!(!home.1.contains("the page showed a secret"), "{}", home.1);
    let mut c = runner(d);
    c.args(["atlas", "show", "--atlas", "atl"]);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out.matches("screenshot left out: the page showed a secret")
            .count(),
        1,
        "{out}"
    );
    let id = about.0.file_name().unwrap().to_string_lossy().into_owned();
    let line = out.lines().position(|l| l.contains(&id)).unwrap();
    assert!(
        out.lines()
            .nth(line + 1)
            .unwrap()
            .contains("screenshot left out"),
        "{out}"
    );
}

/// A1: a node recorded (with its screenshot) before the atlas named the secret its page
/// shows loses the screenshot when a run that declares the secret sees it again.
#[test]
fn a_known_page_seen_to_show_a_secret_loses_its_screenshot() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    write(d, "app.py", APP);
    let port = free_port();
    let head = format!(
        "web_server: {{ command: \"python3 app.py {port}\", url: \"http://127.0.0.1:{port}/\" }}\natlas: ./atl\nsteps:\n  - open: \"{{{{ web_server.url }}}}\"\n  - link_state: home\n  - click: {{ role: link, text: About }}\n  - link_state: about\n"
    );
    write(d, "plain.yaml", &format!("name: plain\n{head}"));
    write(
        d,
        "keyed.yaml",
        &format!("name: keyed\nsecrets: [DEPLOY_KEY]\n{head}"),
    );
    for flow in ["plain.yaml", "keyed.yaml"] {
        let mut c = runner(d);
        c.args(["run", flow, "--artifacts", "art"])
            .env("DEPLOY_KEY", KEY);
        let (code, out, err) = output_within(c, LIMIT);
        assert_eq!(code, 0, "{flow}: {out}{err}");
        let shots = nodes(d)
            .iter()
            .filter(|(dir, _, _)| dir.join("screenshot.png").exists())
            .count();
        assert_eq!(shots, if flow == "plain.yaml" { 2 } else { 1 }, "{flow}");
    }
    let all = nodes(d);
    assert_eq!(all.len(), 2, "{all:?}");
    let about = all.iter().find(|n| n.2.contains("Deploy key")).unwrap();
    assert!(about.2.contains("Deploy key: ***"), "{}", about.2);
    assert!(!about.0.join("screenshot.png").exists());
    assert!(about.1.contains("the page showed a secret"), "{}", about.1);
}

/// A secret the atlas names (`DEPLOY_KEY`, the recording declared it) that this run does not
/// set, while the app still shows it: the About page no longer reads as its node, and the
/// failure names the secret.
#[test]
fn a_secret_the_atlas_names_but_the_run_lacks_is_named_when_a_link_clashes() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    write(d, "runner.toml", "[atlas]\nfingerprint = \"text\"\n");
    recorded(d);
    let port = free_port();
    write(
        d,
        "again.yaml",
        &format!(
            "name: again\nweb_server: {{ command: \"env DEPLOY_KEY={KEY} python3 app.py {port}\", url: \"http://127.0.0.1:{port}/\" }}\natlas: ./atl\nsteps:\n  - open: \"{{{{ web_server.url }}}}\"\n  - link_state: home\n  - click: {{ role: link, text: About }}\n  - link_state: about\n"
        ),
    );
    let mut c = runner(d);
    c.args(["run", "again.yaml", "--artifacts", "art2"])
        .env_remove("DEPLOY_KEY");
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 1, "{out}{err}");
    let all = format!("{out}{err}");
    assert!(all.contains("already leads to"), "{all}");
    assert!(
        all.contains("`DEPLOY_KEY`") && all.contains("not set"),
        "{all}"
    );
}
