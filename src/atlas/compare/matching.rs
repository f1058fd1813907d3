//! Which state of one atlas is which state of the other. Ids cannot say (a changed state has
//! another id), so states are paired in three passes:
//!
//! 1. **identity**: the same fingerprint (origin aside): the same state;
//! 2. **route**: of the states left, those at the same route, the most alike first (the share
//!    of their structures' elements in common), a pair that the same action from a state
//!    paired in 1 leads to before the others: the page at that URL changed;
//! 3. **path**: of the states left, those the same action leads to from two paired states,
//!    again until no pair is found: the same click now leads to a state of another route.
//!
//! What is left unpaired was removed (A) or added (B).

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde::Serialize;

use super::side::Side;
use crate::atlas::Element;
use crate::atlas::identity::hunks;

/// How a state of A was paired with one of B.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum MatchedBy {
    /// The same identity: the same state.
    Identity,
    /// The same route, another structure.
    Route,
    /// The same action from paired states leads to it.
    Path,
}

/// The pairs: for each state of A its state in B and how they were paired; for each state of
/// B its state in A.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Matching {
    pub(super) a: Vec<Option<(usize, MatchedBy)>>,
    pub(super) b: Vec<Option<usize>>,
}

impl Matching {
    fn set(&mut self, i: usize, j: usize, how: MatchedBy) {
        self.a[i] = Some((j, how));
        self.b[j] = Some(i);
    }

    /// The state of B paired with the state `i` of A.
    pub(super) fn of_a(&self, i: usize) -> Option<usize> {
        self.a[i].map(|(j, _)| j)
    }
}

/// Pairs the states of `a` with those of `b`.
pub(super) fn pair(a: &Side, b: &Side) -> Matching {
    let mut m = Matching {
        a: vec![None; a.nodes.len()],
        b: vec![None; b.nodes.len()],
    };
    // 1. Identity; states of one atlas that share one (an atlas recorded by an older runner)
    // are paired in id order.
    let mut by_key: HashMap<&str, VecDeque<usize>> = HashMap::new();
    for (j, n) in b.nodes.iter().enumerate() {
        by_key.entry(n.key.as_str()).or_default().push_back(j);
    }
    for (i, n) in a.nodes.iter().enumerate() {
        if let Some(j) = by_key.get_mut(n.key.as_str()).and_then(VecDeque::pop_front) {
            m.set(i, j, MatchedBy::Identity);
        }
    }
    // 2. Route.
    let first_links = linked(a, b, &m);
    let mut candidates: Vec<(bool, u32, usize, usize)> = Vec::new();
    for (i, x) in a.nodes.iter().enumerate() {
        for (j, y) in b.nodes.iter().enumerate() {
            if m.a[i].is_none() && m.b[j].is_none() && x.route == y.route {
                let both = first_links.contains(&(i, j));
                candidates.push((both, alike(&x.elements, &y.elements), i, j));
            }
        }
    }
    candidates.sort_by(|x, y| (y.0, y.1, x.2, x.3).cmp(&(x.0, x.1, y.2, y.3)));
    for (_, _, i, j) in candidates {
        if m.a[i].is_none() && m.b[j].is_none() {
            m.set(i, j, MatchedBy::Route);
        }
    }
    // 3. Path, until nothing more is found (a pair found lets the edges from it pair more).
    loop {
        let found = linked(a, b, &m)
            .into_iter()
            .find(|&(i, j)| m.a[i].is_none() && m.b[j].is_none());
        match found {
            Some((i, j)) => m.set(i, j, MatchedBy::Path),
            None => return m,
        }
    }
}

/// The pairs (state of A, state of B) that the same action leads to from two paired states.
fn linked(a: &Side, b: &Side, m: &Matching) -> BTreeSet<(usize, usize)> {
    a.edges
        .iter()
        .filter_map(|e| {
            let source = m.of_a(e.source)?;
            Some((e.target, b.edge(source, &e.via)?.target))
        })
        .collect()
}

/// How alike two structures are, in thousandths: twice the elements they have in common
/// (in order) over the elements of both.
fn alike(x: &[Element], y: &[Element]) -> u32 {
    if x.is_empty() && y.is_empty() {
        return 1000;
    }
    let removed: usize = hunks(x, y).iter().map(|h| h.removed.len()).sum();
    let common = x.len() - removed;
    u32::try_from(2000 * common / (x.len() + y.len())).unwrap_or(1000)
}

#[cfg(test)]
mod tests {
    use super::super::side::{Edge, Node};
    use super::*;

    /// A state at `route` with these elements (`role name` each); its key is all of it.
    fn node(id: &str, route: &str, elements: &[&str]) -> Node {
        let elements: Vec<Element> = elements
            .iter()
            .map(|e| {
                let (role, name) = e.split_once(' ').unwrap_or((e, ""));
                Element {
                    place: "main".into(),
                    role: role.into(),
                    name: name.into(),
                    state: String::new(),
                }
            })
            .collect();
        let key = format!("{route}\n{elements:?}");
        Node {
            id: id.into(),
            label: id.into(),
            route: route.into(),
            key,
            elements,
            ..Node::default()
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

    /// The pairs as (id in A, id in B, how).
    fn pairs(a: &Side, b: &Side) -> Vec<(String, String, MatchedBy)> {
        let m = pair(a, b);
        m.a.iter()
            .enumerate()
            .filter_map(|(i, p)| {
                p.map(|(j, how)| (a.nodes[i].id.clone(), b.nodes[j].id.clone(), how))
            })
            .collect()
    }

    fn p(x: &str, y: &str, how: MatchedBy) -> (String, String, MatchedBy) {
        (x.into(), y.into(), how)
    }

    #[test]
    fn the_same_state_is_paired_whatever_its_id() {
        let a = Side::new(
            vec![node("a1", "/", &["link About"]), node("a2", "/about", &[])],
            vec![edge(0, "click link About", 1)],
        );
        let b = Side::new(
            vec![node("b1", "/about", &[]), node("b2", "/", &["link About"])],
            vec![edge(1, "click link About", 0)],
        );
        assert_eq!(
            pairs(&a, &b),
            [
                p("a1", "b2", MatchedBy::Identity),
                p("a2", "b1", MatchedBy::Identity)
            ]
        );
    }

    #[test]
    fn a_changed_state_pairs_with_the_most_alike_at_its_route() {
        // Two states of /books (a disclosure closed, open); in B the open one lost a button.
        let closed = ["heading Books", "DisclosureTriangle Columns"];
        let open = [
            "heading Books",
            "DisclosureTriangle Columns",
            "checkbox year",
            "button Apply",
        ];
        let a = Side::new(
            vec![
                node("closed", "/books", &closed),
                node("open", "/books", &open),
            ],
            vec![],
        );
        let b = Side::new(
            vec![
                node("open2", "/books", &open[..3]),
                node("closed2", "/books", &closed),
                node("new", "/books", &["heading Other"]),
            ],
            vec![],
        );
        assert_eq!(
            pairs(&a, &b),
            [
                p("closed", "closed2", MatchedBy::Identity),
                p("open", "open2", MatchedBy::Route)
            ]
        );
        assert_eq!(pair(&a, &b).b[2], None, "the third state of B is added");
        assert_eq!(alike(&a.nodes[1].elements, &b.nodes[0].elements), 857);
        assert_eq!(alike(&[], &[]), 1000);
    }

    #[test]
    fn the_same_action_pairs_a_state_whose_route_changed() {
        // Home --[click link Edit]--> /edit, in B /edit?from=home with its button renamed;
        // then from there the same action leads to a state whose route changed too.
        let a = Side::new(
            vec![
                node("home", "/", &["link Edit"]),
                node("edit", "/edit", &["button Save"]),
                node("saved", "/saved", &[]),
                node("gone", "/gone", &[]),
            ],
            vec![
                edge(0, "click link Edit", 1),
                edge(1, "click button Save", 2),
            ],
        );
        let b = Side::new(
            vec![
                node("home", "/", &["link Edit"]),
                node("edit2", "/edit?from=*", &["button Store"]),
                node("saved2", "/done", &[]),
                node("other", "/other", &[]),
            ],
            vec![
                edge(0, "click link Edit", 1),
                edge(1, "click button Save", 2),
            ],
        );
        assert_eq!(
            pairs(&a, &b),
            [
                p("home", "home", MatchedBy::Identity),
                p("edit", "edit2", MatchedBy::Path),
                p("saved", "saved2", MatchedBy::Path),
            ]
        );
    }

    #[test]
    fn at_one_route_the_state_the_same_action_leads_to_comes_first() {
        // A single-page app: every state at `/`. The tab's state is as alike to both new
        // states, but only one is where the same click leads.
        let a = Side::new(
            vec![
                node("home", "/", &["tab One", "tab Two"]),
                node("two", "/", &["tab Two", "x"]),
            ],
            vec![edge(0, "click tab Two", 1)],
        );
        let b = Side::new(
            vec![
                node("home", "/", &["tab One", "tab Two"]),
                node("other", "/", &["tab Two", "y"]),
                node("two2", "/", &["tab Two", "z"]),
            ],
            vec![edge(0, "click tab Two", 2)],
        );
        assert_eq!(
            pairs(&a, &b),
            [
                p("home", "home", MatchedBy::Identity),
                p("two", "two2", MatchedBy::Route)
            ]
        );
    }

    #[test]
    fn states_that_share_an_identity_pair_one_to_one() {
        let a = Side::new(vec![node("x1", "/", &[]), node("x2", "/", &[])], vec![]);
        let b = Side::new(vec![node("y", "/", &[])], vec![]);
        let m = pair(&a, &b);
        assert_eq!(m.a, [Some((0, MatchedBy::Identity)), None]);
        assert_eq!(m.b, [Some(0)]);
    }
}
