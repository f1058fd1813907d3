//! `atlas diff`: two atlases read, their states paired (`matching`), and what differs: each
//! state of one without a state in the other, each pair whose identity differs (with what
//! differs in it, as verify says it), each edge of one that the other lacks.

use super::matching::{MatchedBy, Matching, pair};
use super::model::{
    AtlasDiff, BrokenEdge, BrokenWhy, ChangedState, DriftedState, EdgeRef, Edges, NodeRef,
    RemovedEdge, RemovedWhy, StateRef, States, Summary,
};
use super::side::Side;
use crate::atlas::fingerprint::Fingerprint;
use crate::atlas::identity::{Recorded, diff};
use crate::atlas::store::{Atlas, AtlasError};

/// What differs from atlas `a` to atlas `b`. Atlases that tell states apart in different ways
/// cannot be compared: their identities are not of one kind.
pub(crate) fn compare(a: &Atlas, b: &Atlas) -> Result<AtlasDiff, AtlasError> {
    let (mode_a, mode_b) = (a.fingerprint()?, b.fingerprint()?);
    if mode_a != mode_b {
        return Err(AtlasError::Incomparable {
            a: a.root.display().to_string(),
            b: b.root.display().to_string(),
            a_mode: mode_a.as_str(),
            b_mode: mode_b.as_str(),
        });
    }
    // What either atlas recorded masked, both are read masked with (a node stored before its
    // atlas named a secret holds it as the page showed it): shown nowhere, and no difference.
    let masker = crate::atlas::secrets::atlas_masker(a)?;
    crate::atlas::secrets::add_atlas_secrets(b, &masker)?;
    let (x, y) = (
        Side::read(a, mode_a, &masker)?,
        Side::read(b, mode_b, &masker)?,
    );
    let mut d = between(&x, &y, mode_a);
    d.a = a.root.display().to_string();
    d.b = b.root.display().to_string();
    Ok(d)
}

/// What differs from `x` to `y` (the atlases' names left empty).
fn between(x: &Side, y: &Side, mode: Fingerprint) -> AtlasDiff {
    let m = pair(x, y);
    let (states, unchanged) = states(x, y, &m, mode);
    let (edges, edges_unchanged) = edges(x, y, &m);
    let summary = Summary {
        states_added: states.added.len(),
        states_removed: states.removed.len(),
        states_changed: states.changed.len(),
        states_unchanged: unchanged,
        edges_broken: edges.broken.len(),
        edges_new: edges.new.len(),
        edges_removed: edges.removed.len(),
        edges_unchanged,
    };
    AtlasDiff {
        a: String::new(),
        b: String::new(),
        fingerprint: mode,
        differ: summary.states_added
            + summary.states_removed
            + summary.states_changed
            + summary.edges_broken
            + summary.edges_new
            + summary.edges_removed
            > 0,
        summary,
        states,
        edges,
    }
}

fn state(side: &Side, i: usize) -> StateRef {
    let n = &side.nodes[i];
    StateRef {
        id: n.id.clone(),
        label: n.label.clone(),
        url: n.url.clone(),
        title: n.title.clone(),
    }
}

fn node(side: &Side, i: usize) -> NodeRef {
    let n = &side.nodes[i];
    NodeRef {
        id: n.id.clone(),
        label: n.label.clone(),
    }
}

/// The state `i` of a side as recorded.
fn recorded(side: &Side, i: usize) -> Recorded<'_> {
    let n = &side.nodes[i];
    Recorded {
        url: &n.url,
        snapshot: &n.snapshot,
    }
}

/// The states added, removed, changed and drifted, and how many are the same.
fn states(x: &Side, y: &Side, m: &Matching, mode: Fingerprint) -> (States, usize) {
    let mut s = States::default();
    let mut unchanged = 0;
    for (i, pairing) in m.a.iter().enumerate() {
        let Some((j, how)) = *pairing else {
            s.removed.push(state(x, i));
            continue;
        };
        let d = diff(mode, recorded(x, i), recorded(y, j));
        let (a, b) = (state(x, i), state(y, j));
        if how != MatchedBy::Identity {
            s.changed.push(ChangedState {
                a,
                b,
                matched_by: how,
                diff: d,
            });
            continue;
        }
        unchanged += 1;
        if d.drifted() || a.title != b.title {
            s.drifted.push(DriftedState { a, b, diff: d });
        }
    }
    s.added = (0..y.nodes.len())
        .filter(|&j| m.b[j].is_none())
        .map(|j| state(y, j))
        .collect();
    let by_label = |r: &StateRef| (r.label.clone(), r.id.clone());
    s.added.sort_by_key(by_label);
    s.removed.sort_by_key(by_label);
    s.changed.sort_by_key(|c| by_label(&c.a));
    s.drifted.sort_by_key(|c| by_label(&c.a));
    (s, unchanged)
}

/// The edges broken, new and removed, and how many are the same.
fn edges(x: &Side, y: &Side, m: &Matching) -> (Edges, usize) {
    let mut out = Edges::default();
    let mut unchanged = 0;
    for e in &x.edges {
        let edge = EdgeRef {
            source: node(x, e.source),
            action: e.action.clone(),
            target: node(x, e.target),
        };
        let Some(source) = m.of_a(e.source) else {
            out.removed.push(RemovedEdge {
                edge,
                reason: RemovedWhy::SourceRemoved,
            });
            continue;
        };
        match (y.edge(source, &e.via), m.of_a(e.target)) {
            (Some(f), Some(target)) if f.target == target => unchanged += 1,
            (Some(f), _) => out.broken.push(BrokenEdge {
                edge,
                reason: BrokenWhy::Retargeted,
                now: Some(node(y, f.target)),
            }),
            (None, None) => out.removed.push(RemovedEdge {
                edge,
                reason: RemovedWhy::TargetRemoved,
            }),
            (None, Some(_)) => out.broken.push(BrokenEdge {
                edge,
                reason: BrokenWhy::Missing,
                now: None,
            }),
        }
    }
    for f in &y.edges {
        let known = m.b[f.source].is_some_and(|s| x.edge(s, &f.via).is_some());
        if !known {
            out.new.push(EdgeRef {
                source: node(y, f.source),
                action: f.action.clone(),
                target: node(y, f.target),
            });
        }
    }
    let key = |e: &EdgeRef| {
        (
            e.source.label.clone(),
            e.action.clone(),
            e.target.label.clone(),
        )
    };
    out.broken.sort_by_key(|b| key(&b.edge));
    out.removed.sort_by_key(|r| key(&r.edge));
    out.new.sort_by_key(key);
    (out, unchanged)
}

#[cfg(test)]
mod tests {
    use super::super::side::{Edge, Node};
    use super::*;

    /// A state at `http://h<route>` whose snapshot is `snapshot`, identified by both.
    fn node(id: &str, route: &str, snapshot: &str) -> Node {
        let url = format!("http://h{route}");
        let s = crate::atlas::identity::structure(&url, snapshot);
        Node {
            id: id.into(),
            label: format!("{id} {route}"),
            title: id.into(),
            key: s.fingerprint(),
            route: route.into(),
            elements: s.elements,
            snapshot: snapshot.into(),
            url,
        }
    }

    fn edge(source: usize, action: &str, target: usize) -> Edge {
        Edge {
            source,
            action: action.into(),
            via: action.into(),
            target,
        }
    }

    fn lines(edges: &[EdgeRef]) -> Vec<String> {
        edges
            .iter()
            .map(|e| format!("{} {} {}", e.source.id, e.action, e.target.id))
            .collect()
    }

    #[test]
    fn edges_are_broken_new_or_removed_by_what_became_of_their_states() {
        let home = "- main\n  - link \"Help\"\n  - link \"Shop\"\n";
        let a = Side::new(
            vec![
                node("home", "/", home),
                node("help", "/help", "- heading \"Help\" [level=1]"),
                node("shop", "/shop", "- button \"Buy\""),
                node("old", "/old", "- heading \"Old\" [level=1]"),
            ],
            vec![
                edge(0, "click link Help", 1),
                edge(0, "click link Shop", 2),
                edge(2, "click button Buy", 0),
                edge(0, "click link Old", 3),
                edge(3, "click link Home", 0),
            ],
        );
        // In B, Help leads to the shop, the shop's Buy goes nowhere, the old page is gone and
        // a new one is there.
        let b = Side::new(
            vec![
                node("home", "/", home),
                node("help", "/help", "- heading \"Help\" [level=1]"),
                node("shop", "/shop", "- button \"Buy\""),
                node("new", "/new", "- heading \"New\" [level=1]"),
            ],
            vec![
                edge(0, "click link Help", 2),
                edge(0, "click link Shop", 2),
                edge(0, "click link New", 3),
            ],
        );
        let d = between(&a, &b, Fingerprint::Structure);
        assert!(d.differ);
        let broken: Vec<(String, BrokenWhy, Option<String>)> = d
            .edges
            .broken
            .iter()
            .map(|x| {
                (
                    lines(std::slice::from_ref(&x.edge))[0].clone(),
                    x.reason,
                    x.now.as_ref().map(|n| n.id.clone()),
                )
            })
            .collect();
        assert_eq!(
            broken,
            [
                (
                    "home click link Help help".to_string(),
                    BrokenWhy::Retargeted,
                    Some("shop".to_string())
                ),
                (
                    "shop click button Buy home".to_string(),
                    BrokenWhy::Missing,
                    None
                ),
            ]
        );
        assert_eq!(lines(&d.edges.new), ["home click link New new"]);
        let removed: Vec<(String, RemovedWhy)> = d
            .edges
            .removed
            .iter()
            .map(|r| (lines(std::slice::from_ref(&r.edge))[0].clone(), r.reason))
            .collect();
        assert_eq!(
            removed,
            [
                (
                    "home click link Old old".to_string(),
                    RemovedWhy::TargetRemoved
                ),
                (
                    "old click link Home home".to_string(),
                    RemovedWhy::SourceRemoved
                ),
            ]
        );
        assert_eq!(
            (d.summary.edges_unchanged, d.summary.states_unchanged),
            (1, 3)
        );
        let ids = |v: &[StateRef]| v.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&d.states.added), ["new"]);
        assert_eq!(ids(&d.states.removed), ["old"]);
        assert!(d.states.changed.is_empty());
    }

    #[test]
    fn a_changed_state_says_what_changed_and_data_alone_is_no_difference() {
        let table = "- main\n  - heading \"Books\" [level=1]\n  - button \"Search\"\n  - table\n    - row\n      - cell \"Dune\"\n";
        let a = Side::new(vec![node("t", "/books", table)], vec![]);
        // Other data: the same state, its drift said, no difference.
        let b = Side::new(
            vec![node("t", "/books", &table.replace("Dune", "Emma"))],
            vec![],
        );
        let d = between(&a, &b, Fingerprint::Structure);
        assert!(!d.differ);
        assert_eq!(d.summary.states_unchanged, 1);
        assert_eq!(d.states.drifted.len(), 1);
        assert_eq!(
            d.states.drifted[0].diff.drift_summary(),
            "\"Dune\" -> \"Emma\""
        );
        // A renamed button: changed, at the same route.
        let c = Side::new(
            vec![node("t2", "/books", &table.replace("Search", "Find"))],
            vec![],
        );
        let d = between(&a, &c, Fingerprint::Structure);
        assert!(d.differ);
        assert_eq!(d.states.changed.len(), 1);
        let changed = &d.states.changed[0];
        assert_eq!((changed.a.id.as_str(), changed.b.id.as_str()), ("t", "t2"));
        assert_eq!(changed.matched_by, MatchedBy::Route);
        assert_eq!(
            changed.diff.element_lines(),
            ["renamed: button \"Search\" -> button \"Find\" (in main)"]
        );
        // The document has every list, empty or not.
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["states"]["added"], serde_json::json!([]));
        assert_eq!(json["edges"]["broken"], serde_json::json!([]));
        assert_eq!(json["states"]["changed"][0]["matched_by"], "route");
    }

    #[test]
    fn edges_an_agent_named_are_matched_by_what_explore_did() {
        let nodes = || {
            vec![
                node("shop", "/", "- link \"Cart\""),
                node("cart", "/cart", "- heading \"Cart\" [level=1]"),
            ]
        };
        let named = |name: &str| Edge {
            source: 0,
            action: name.into(),
            via: "click link Cart".into(),
            target: 1,
        };
        let a = Side::new(nodes(), vec![named("open the cart")]);
        let b = Side::new(nodes(), vec![named("go to the cart")]);
        let d = between(&a, &b, Fingerprint::Structure);
        assert!(!d.differ, "{:?}", d.edges);
        assert_eq!(d.summary.edges_unchanged, 1);
    }
}
