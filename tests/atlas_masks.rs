//! Which secrets an atlas's pages are masked with, wherever they are recorded, replayed or
//! shown: `explore` masks the secrets the atlas names, as a replay does; a node recorded
//! before the atlas named a secret its page shows is masked when it is read (never shown,
//! never drift); the node a page is does not depend on which flows run together; a
//! `link_state` that fails leaves no node behind; a secret set to white space masks nothing.

use std::path::Path;

use crate::atlas_secrets::{KEY, recorded};
use crate::common::{free_port, output_within, runner, write};
use crate::secret_search::{as_written, everything, nowhere};
use crate::untrusted_stores::LIMIT;

/// Every node's recorded text (snapshot and meta.json) in `atlas`, by node id.
fn stored(atlas: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(atlas.join("nodes")).unwrap().flatten() {
        let read = |f: &str| std::fs::read_to_string(e.path().join(f)).unwrap_or_default();
        let id = e.file_name().to_string_lossy().into_owned();
        out.push((
            id,
            format!("{}\n{}", read("snapshot.txt"), read("meta.json")),
        ));
    }
    out.sort();
    out
}

/// `runner atlas <args> --atlas <atlas>` in `d`, with `env`: (exit code, stdout, stderr).
fn atlas_cmd(d: &Path, args: &[&str], atlas: &str, env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = runner(d);
    c.arg("atlas").args(args).args(["--atlas", atlas]);
    for (k, v) in env {
        c.env(k, v);
    }
    output_within(c, LIMIT)
}

/// H4: an atlas a run recorded masking `DEPLOY_KEY`, widened by `runner explore`: the pages
/// explore records are masked with it (it masked nothing before), so the atlas holds the key
/// nowhere and `verify` shows it nowhere, as no drift.
#[test]
fn explore_masks_the_secrets_the_atlas_names() {
    let d = tempfile::tempdir().unwrap();
    let (cmd, url) = recorded(d.path());
    std::fs::create_dir(d.path().join("wide")).unwrap();
    std::fs::copy(
        d.path().join("atl/atlas.json"),
        d.path().join("wide/atlas.json"),
    )
    .unwrap();
    let mut c = runner(d.path());
    c.args(["explore", &url, "--atlas", "wide"])
        .args(["--web-server", &cmd, "--web-server-url", &url])
        .env("DEPLOY_KEY", KEY);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let nodes = stored(&d.path().join("wide"));
    assert!(
        nodes.iter().any(|(_, t)| t.contains("Deploy key: ***")),
        "explore did not reach the page that shows the key: {nodes:?}"
    );
    // Its screenshot would show the key: left out, and said.
    for (id, text) in &nodes {
        let shot = d.path().join("wide/nodes").join(id).join("screenshot.png");
        let shows = text.contains("Deploy key: ***");
        assert_eq!(shot.exists(), !shows, "{id}: {text}");
        assert_eq!(text.contains("the page showed a secret"), shows, "{text}");
    }
    let server = [
        "--web-server",
        cmd.as_str(),
        "--web-server-url",
        url.as_str(),
    ];
    let mut args = vec!["verify", "--report", "json=v.json"];
    args.extend(server);
    let (code, vout, verr) = atlas_cmd(d.path(), &args, "wide", &[("DEPLOY_KEY", KEY)]);
    assert_eq!(code, 0, "{vout}{verr}");
    assert!(!vout.contains("data drift:"), "{vout}");
    let printed = [
        ("explore stdout", out.as_str()),
        ("explore stderr", err.as_str()),
        ("verify stdout", vout.as_str()),
        ("verify stderr", verr.as_str()),
    ];
    nowhere(
        &everything(d.path(), &printed),
        &as_written(&[("the deploy key", KEY.to_string())]),
    );
}

/// A static site: `/index.html` (`Signed in: admin`) links "User" to `user.html` (`Role: admin`) and "Panel" to
/// `admin/index.html`; `db.yaml` declares `DB_USER` (whose value, `admin`, the pages show) and
/// runs nothing in a browser; `<name>.yaml` records home and the page behind `link` into
/// `./atl` as `as_` (the runner.toml's `[atlas] fingerprint`: `fingerprint`, when given).
fn site(d: &Path, fingerprint: Option<&str>) {
    std::fs::create_dir_all(d.join("site/admin")).unwrap();
    write(
        d,
        "site/index.html",
        "<!doctype html><title>Home</title><main><h1>Home</h1><p>Signed in: admin</p><a href=\"user.html\">User</a> <a href=\"admin/index.html\">Panel</a> <a href=\"about.html\">About</a></main>",
    );
    write(
        d,
        "site/user.html",
        "<!doctype html><title>User</title><main><h1>User</h1><p>Role: admin</p></main>",
    );
    write(
        d,
        "site/admin/index.html",
        "<!doctype html><title>Panel</title><main><h1>Panel</h1><p>Settings</p></main>",
    );
    write(
        d,
        "site/about.html",
        "<!doctype html><title>About</title><main><h1>About</h1></main>",
    );
    write(
        d,
        "db.yaml",
        "name: db\nsecrets: [DB_USER]\nsteps:\n  - exec: \"true\"\n",
    );
    if let Some(f) = fingerprint {
        write(
            d,
            "runner.toml",
            &format!("[atlas]\nfingerprint = \"{f}\"\n"),
        );
    }
}

/// Writes `<name>.yaml`: open home, `link_state: home`, then for each (link text, action):
/// click it and `link_state` the action (back home between two).
fn recorder(d: &Path, name: &str, moves: &[(&str, &str)]) {
    let mut flow = format!(
        "name: {name}\nweb_server: {{ static: ./site }}\natlas: ./atl\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - link_state: home\n"
    );
    for (i, (text, action)) in moves.iter().enumerate() {
        if i > 0 {
            flow.push_str("  - open: \"{{ web_server.url }}/index.html\"\n  - link_state: home\n");
        }
        flow.push_str(&format!(
            "  - click: {{ role: link, text: {text} }}\n  - link_state: {action}\n"
        ));
    }
    write(d, &format!("{name}.yaml"), &flow);
}

/// `runner run <files>` in `d` with `DB_USER=admin` set: (exit code, stdout, stderr).
fn run(d: &Path, files: &[&str]) -> (i32, String, String) {
    let mut c = runner(d);
    c.arg("run")
        .args(files)
        .args(["--artifacts", "art"])
        .env("DB_USER", "admin");
    output_within(c, LIMIT)
}

/// `runner atlas verify` of `./atl` against the site, `DB_USER=admin` set.
fn verify(d: &Path) -> (i32, String, String) {
    let port = free_port();
    let cmd = format!("python3 -m http.server {port} --bind 127.0.0.1 --directory site");
    let url = format!("http://127.0.0.1:{port}/");
    let args = ["verify", "--web-server", &cmd, "--web-server-url", &url];
    atlas_cmd(d, &args, "atl", &[("DB_USER", "admin")])
}

/// H7: a node recorded before the atlas named `DB_USER` (a run that declares it recorded
/// another page since) keeps `Role: admin` on disk; `verify` masks it as it masks the page
/// found: no drift, and the value is not shown.
#[test]
fn a_node_recorded_before_its_secret_was_named_is_masked_when_verified() {
    let d = tempfile::tempdir().unwrap();
    site(d.path(), None);
    recorder(d.path(), "rec", &[("User", "user")]);
    recorder(d.path(), "about", &[("About", "about")]);
    let (code, out, err) = run(d.path(), &["rec.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(d.path(), &["db.yaml", "about.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    let settings = std::fs::read_to_string(d.path().join("atl/atlas.json")).unwrap();
    assert!(settings.contains("DB_USER"), "{settings}");
    // The user node was not seen again: it holds the value as the page showed it.
    let nodes = stored(&d.path().join("atl"));
    assert!(
        nodes.iter().any(|(_, t)| t.contains("Role: admin")),
        "{nodes:?}"
    );
    let (code, out, err) = verify(d.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("data drift:"), "{out}");
    assert!(
        !out.contains("Role: admin") && !err.contains("Role: admin"),
        "{out}{err}"
    );
    assert!(out.contains("3 verified"), "{out}");
}

/// H8: the node a page is does not depend on which flows run with the recording one. `rec`
/// alone records the user page as it shows `Role: admin`; with `db.yaml` (which declares
/// `DB_USER`) beside it the page reads `Role: ***`: the same node all the same, so the run
/// passes, the node's recording is masked now, and the atlas verifies. By text (home, the
/// root, shows it too: `Signed in: admin`) and by structure, where the secret is in the URL's
/// path (`/admin/`).
#[test]
fn the_node_a_page_is_does_not_depend_on_the_flows_run_with_it() {
    for (fingerprint, link, action) in [(Some("text"), "User", "user"), (None, "Panel", "panel")] {
        let d = tempfile::tempdir().unwrap();
        site(d.path(), fingerprint);
        recorder(d.path(), "rec", &[(link, action)]);
        let (code, out, err) = run(d.path(), &["rec.yaml"]);
        assert_eq!(code, 0, "{out}{err}");
        let before: Vec<String> = stored(&d.path().join("atl"))
            .into_iter()
            .map(|n| n.0)
            .collect();
        assert_eq!(before.len(), 2, "{before:?}");
        let (code, out, err) = run(d.path(), &["db.yaml", "rec.yaml"]);
        assert_eq!(code, 0, "{fingerprint:?}: {out}{err}");
        let after = stored(&d.path().join("atl"));
        let ids: Vec<&String> = after.iter().map(|n| &n.0).collect();
        assert_eq!(ids, before.iter().collect::<Vec<_>>(), "{fingerprint:?}");
        for (id, text) in &after {
            assert!(
                !text.contains("admin"),
                "{fingerprint:?}: node {id} holds the secret:\n{text}"
            );
        }
        let (code, out, err) = verify(d.path());
        assert_eq!(code, 0, "{fingerprint:?}: {out}{err}");
        assert!(out.contains("2 verified"), "{out}");
        // Alone again (the atlas names `DB_USER` now, set in the environment): the same node.
        let (code, out, err) = run(d.path(), &["rec.yaml"]);
        assert_eq!(code, 0, "{fingerprint:?}: {out}{err}");
        assert_eq!(stored(&d.path().join("atl")).len(), 2);
    }
}

/// H8: a `link_state` that cannot link (its action already leads from home to another node)
/// fails its flow and leaves no node behind: the atlas still verifies.
#[test]
fn a_link_state_that_fails_leaves_no_node() {
    let d = tempfile::tempdir().unwrap();
    site(d.path(), None);
    recorder(d.path(), "rec", &[("User", "user")]);
    recorder(d.path(), "clash", &[("About", "user")]);
    let (code, out, err) = run(d.path(), &["rec.yaml"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(d.path(), &["clash.yaml"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("already leads to") || err.contains("already leads to"),
        "{out}{err}"
    );
    let nodes = stored(&d.path().join("atl"));
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    assert!(
        !nodes.iter().any(|(_, t)| t.contains("heading \"About\"")),
        "{nodes:?}"
    );
    let (code, out, err) = verify(d.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 verified"), "{out}");
}

/// H2: a secret the atlas names, set to white space only (which a run refuses), masks
/// nothing in a replay (it would mask every space of the page: every node "changed"), and is
/// named in the warning.
#[test]
fn a_secret_of_white_space_masks_nothing_in_replays_and_is_said() {
    let d = tempfile::tempdir().unwrap();
    let (cmd, url) = recorded(d.path());
    let args = ["verify", "--web-server", &cmd, "--web-server-url", &url];
    let (code, out, err) = atlas_cmd(d.path(), &args, "atl", &[("DEPLOY_KEY", " ")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("the page changed"), "{out}");
    assert!(out.contains("2 verified"), "{out}");
    assert!(
        err.contains("secret `DEPLOY_KEY`") && err.contains("white space"),
        "{err}"
    );
}
