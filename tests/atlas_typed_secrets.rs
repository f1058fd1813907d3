//! A recorded step that typed a secret it read from somewhere else than `secrets` (a command's
//! output, a var): the atlas keeps `{{ secrets.NAME }}` where the secret's value was, the text
//! around it as text, so `atlas verify` replays it with the secret set and nothing raw is on
//! disk; a value made of a secret in another way (`| upper` in a var) fails the `link_state`
//! that would record it, saying why, and nothing of it is written.

use std::path::Path;

use crate::common::{free_port, output_within, runner, write};
use crate::secret_search::{as_written, everything, nowhere};
use crate::untrusted_stores::LIMIT;

const KEY: &str = "Kestrel-Vault-9931-Zulu";

/// A page with two fields and a Save button that adds a heading (a new state), and an About
/// page.
fn site(d: &Path) {
    std::fs::create_dir_all(d.join("site")).unwrap();
    write(
        d,
        "site/index.html",
        r##"<!doctype html><title>Home</title>
<main><h1>Home</h1>
<label>Token <input id="tok" aria-label="Token"></label>
<label>Note <input id="note" aria-label="Note"></label>
<button id="go" onclick="document.getElementById('out').innerHTML='<h2>Saved</h2>'">Save</button>
<div id="out"></div>
<a href="about.html">About</a></main>
"##,
    );
    write(
        d,
        "site/about.html",
        "<!doctype html><title>About</title><main><h1>About</h1><a href=\"index.html\">Home</a></main>\n",
    );
}

/// `rec.yaml`: declares `T`, reads it back from a command's output, fills `#tok` with `tok`
/// and `#note` with `note`, saves, and records home, saved and about into `./atl`.
fn recording(d: &Path, vars: &str, tok: &str, note: &str) {
    site(d);
    write(
        d,
        "rec.yaml",
        &format!(
            r##"name: rec
secrets: [T]
web_server: {{ static: ./site }}
atlas: ./atl
{vars}steps:
  - id: d
    exec: ["sh", "-c", "echo \"token=$T\""]
  - open: "{{{{ web_server.url }}}}/index.html"
  - link_state: home
  - fill: {{ target: "#tok", value: "{tok}" }}
  - fill: {{ target: "#note", value: "{note}" }}
  - click: "#go"
  - link_state: saved
  - click: {{ role: link, text: About }}
  - link_state: about
"##
        ),
    );
}

fn run(d: &Path) -> (i32, String, String) {
    let mut c = runner(d);
    c.args(["run", "rec.yaml", "--artifacts", "art"])
        .env("T", KEY);
    output_within(c, LIMIT)
}

#[test]
fn a_secret_typed_from_a_commands_output_is_stored_by_name_and_verifies() {
    let d = tempfile::tempdir().unwrap();
    recording(
        d.path(),
        "",
        "{{ steps.d.stdout[6:] | trim }}",
        "{{ '{{' }} {{ steps.d.stdout | trim }} and {{ steps.d.stdout[6:] | trim }} }}",
    );
    let (code, out, err) = run(d.path());
    assert_eq!(code, 0, "{out}{err}");
    let edges: Vec<String> = walkdir::WalkDir::new(d.path().join("atl/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "flow.yaml")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    let saved = edges
        .iter()
        .find(|t| t.contains("#tok"))
        .expect("the edge that fills the token");
    // The secret's value by name, the text around it as text (its `{{` escaped).
    assert!(saved.contains(r#""{{ secrets.T }}""#), "{saved}");
    assert!(
        saved.contains(r#""{{ '{{' }} token={{ secrets.T }} and {{ secrets.T }} }}""#),
        "{saved}"
    );
    // The project declares the secret its atlas's steps may read (the atlas's own list is
    // anyone's to edit).
    write(d.path(), "runner.toml", "[atlas]\nsecrets = [\"T\"]\n");
    let port = free_port();
    let mut c = runner(d.path());
    c.args(["atlas", "verify", "--atlas", "atl", "--web-server"])
        .arg(format!(
            "python3 -m http.server {port} --bind 127.0.0.1 --directory site"
        ))
        .args(["--web-server-url", &format!("http://127.0.0.1:{port}/")])
        .env("T", KEY);
    let (code, vout, verr) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{vout}{verr}");
    assert!(vout.contains("3 verified, 0 no longer arrive"), "{vout}");
    let all = everything(
        d.path(),
        &[
            ("run", &out),
            ("run", &err),
            ("verify", &vout),
            ("verify", &verr),
        ],
    );
    nowhere(&all, &as_written(&[("the secret", KEY.to_string())]));
}

#[test]
fn a_value_made_of_a_secret_another_way_fails_the_link_state_and_is_not_written() {
    let d = tempfile::tempdir().unwrap();
    recording(
        d.path(),
        "vars:\n  loud: \"{{ secrets.T | upper }}\"\n",
        "{{ vars.loud }}",
        "plain",
    );
    let (code, out, err) = run(d.path());
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("the atlas cannot hold the step at rec.yaml:12:5 (fill css `#tok`) without a secret: its value `{{ vars.loud }}` holds a secret in another form than the secret itself")
            && err.contains("no edge is written"),
        "{err}"
    );
    // Home was recorded; nothing of the step, nor the edge it was in.
    let edges: Vec<String> = walkdir::WalkDir::new(d.path().join("atl/edges"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "flow.yaml")
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(edges.iter().all(|t| !t.contains("#tok")), "{edges:?}");
    assert!(d.path().join("atl/nodes").is_dir());
    let all = everything(d.path(), &[("run", &out), ("run", &err)]);
    nowhere(
        &all,
        &as_written(&[
            ("the secret", KEY.to_string()),
            ("the secret upper-cased", KEY.to_uppercase()),
        ]),
    );
}
