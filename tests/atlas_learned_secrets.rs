//! Values a flow made of a secret with a template (a slice, a `replace`, a prefix) and typed
//! into the page are secrets the run's masker learned: the atlas a `link_state` writes (its
//! node's `snapshot.txt` and `meta.json`, meant to be committed) holds none of them, as the
//! run's artifacts hold none (attack 31, G18: the atlas writer masked only the declared
//! secret's forms).

use crate::common::{output_within, runner, write};
use crate::secret_search::{as_written, everything, nowhere};
use crate::untrusted_stores::LIMIT;

const T: &str = "zqKestrel9931xy";

#[test]
fn what_a_flow_made_of_a_secret_and_typed_is_not_in_the_atlas() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        r##"name: atlas slices
secrets: [T]
atlas: atl
steps:
  - open: "data:text/html,<title>f</title><input id=a><input id=b><input id=d>"
  - fill: { target: "#a", value: "{{ secrets.T[2:9] }}" }
  - fill: { target: "#b", value: "{{ secrets.T | replace('9931', '') }}" }
  - fill: { target: "#d", value: "pre-{{ secrets.T[:10] }}" }
  - link_state: filled
"##,
    );
    let mut c = runner(d.path());
    c.args(["run", "a.yaml", "--artifacts", "art"]).env("T", T);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let atlas = everything(&d.path().join("atl"), &[]);
    assert!(
        atlas.iter().any(|(w, _)| w.ends_with("snapshot.txt")),
        "no node snapshot: {:?}",
        atlas.iter().map(|(w, _)| w).collect::<Vec<_>>()
    );
    let forms = [
        ("the slice", T[2..9].to_string()),
        ("the replace", T.replace("9931", "")),
        ("the prefix", T[..10].to_string()),
    ];
    // The fields are in the snapshot, masked.
    let snapshot = atlas
        .iter()
        .find(|(w, _)| w.ends_with("snapshot.txt") && !w.starts_with("the name"))
        .unwrap();
    assert!(snapshot.1.contains("pre-***"), "{}", snapshot.1);
    nowhere(&atlas, &as_written(&forms));
    let art = everything(&d.path().join("art"), &[("out", out.as_str())]);
    nowhere(&art, &as_written(&forms));
}

/// The same in the node's URL and title: a search box that puts what is typed in the URL
/// (`?q=`) and the title (review 28, #5: meta.json held `?q=strel-Vault-`).
#[test]
fn what_a_flow_typed_of_a_secret_is_not_in_a_nodes_url_or_title() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        &format!(
            r##"name: atlas url
secrets: [T]
web_server: {{ static: "{}" }}
atlas: atl
steps:
  - open: "{{{{ web_server.url }}}}/search.html"
  - fill: {{ target: "#q", value: "{{{{ secrets.T[2:12] }}}}" }}
  - expect: {{ title: {{ contains: "Results for" }} }}
  - link_state: searched
"##,
            crate::common::fixture("secret-url").display()
        ),
    );
    let mut c = runner(d.path());
    c.args(["run", "a.yaml", "--artifacts", "art"]).env("T", T);
    let (code, out, err) = output_within(c, LIMIT);
    assert_eq!(code, 0, "{out}{err}");
    let atlas = everything(&d.path().join("atl"), &[]);
    let meta = atlas
        .iter()
        .find(|(w, _)| w.ends_with("meta.json") && !w.starts_with("the name"))
        .unwrap_or_else(|| {
            panic!(
                "no meta.json: {:?}",
                atlas.iter().map(|(w, _)| w).collect::<Vec<_>>()
            )
        });
    assert!(meta.1.contains("search.html?q="), "{}", meta.1);
    assert!(meta.1.contains("Results for"), "{}", meta.1);
    nowhere(&atlas, &as_written(&[("the slice", T[2..12].to_string())]));
}
