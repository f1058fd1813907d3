//! Names of states a reader can tell apart, short enough for a graph: a state is its title and
//! its route (ids and query values generalised: `/books/:id`, `/db?sql=*`); where two states
//! share that, what tells them apart is added — the main heading, else the first element one
//! has and the other lacks (an open disclosure, a dialog) — and a number as the last resort.

use std::collections::BTreeMap;

use super::identity::{Element, path_of, route, structure};
use super::secrets::atlas_masker;
use super::store::Atlas;
use crate::step::Masker;

/// The most characters of each part of a label.
const TITLE: usize = 32;
const ROUTE: usize = 32;
const EXTRA: usize = 32;

/// The labels of an atlas's nodes.
pub(crate) struct Labels(BTreeMap<String, String>);

impl Labels {
    /// Every node's label.
    pub(crate) fn of(atlas: &Atlas) -> Labels {
        Labels::for_nodes(atlas, None)
    }

    /// The label of one node (the others' are only read for what they share with it).
    pub(crate) fn one(atlas: &Atlas, id: &str) -> String {
        Labels::for_nodes(atlas, Some(id)).get(id).to_string()
    }

    /// A node's label; empty for a node that is not there.
    pub(crate) fn get(&self, id: &str) -> &str {
        self.0.get(id).map_or("", String::as_str)
    }

    /// Made of each node's recording masked with the atlas's secrets, before it is cut (a
    /// node recorded before the atlas named a secret its page shows holds it).
    fn for_nodes(atlas: &Atlas, only: Option<&str>) -> Labels {
        let ids = atlas.node_ids().unwrap_or_default();
        let masker = atlas_masker(atlas).unwrap_or_default();
        let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for id in &ids {
            if let Ok(m) = atlas.meta(id) {
                groups
                    .entry(base(&masker.mask(&m.title), &masker.mask(&m.url)))
                    .or_default()
                    .push(id.clone());
            }
        }
        let mut out = BTreeMap::new();
        for (base, members) in groups {
            if only.is_some_and(|o| !members.iter().any(|m| m == o)) {
                continue;
            }
            if members.len() == 1 {
                out.insert(members[0].clone(), base);
                continue;
            }
            for (id, extra) in told_apart(atlas, &members, &masker) {
                out.insert(id, format!("{base} · {extra}"));
            }
        }
        Labels(out)
    }
}

/// `title route`, each part shortened.
fn base(title: &str, url: &str) -> String {
    let route = ellipsize_middle(path_of(&route(url)), ROUTE);
    format!("{} {route}", ellipsize(title.trim(), TITLE))
        .trim()
        .to_string()
}

/// What tells each of `ids` (states that share a title and a route) from the others: its main
/// heading where theirs differ, else the first element of its structure the others lack,
/// else its place among them.
fn told_apart(atlas: &Atlas, ids: &[String], masker: &Masker) -> Vec<(String, String)> {
    let read: Vec<(Option<String>, Vec<Element>)> = ids
        .iter()
        .map(|id| {
            let url = masker.mask(&atlas.meta(id).map(|m| m.url).unwrap_or_default());
            let snap = masker.mask(&atlas.snapshot(id).ok().flatten().unwrap_or_default());
            (main_heading(&snap), structure(&url, &snap).elements)
        })
        .collect();
    let headings: std::collections::HashSet<&Option<String>> =
        read.iter().map(|(h, _)| h).collect();
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let (heading, elements) = &read[i];
            let own = elements.iter().find(|e| {
                read.iter()
                    .enumerate()
                    .all(|(j, (_, other))| j == i || !other.contains(e))
            });
            let extra = match (heading, own) {
                (Some(h), _) if headings.len() == ids.len() => ellipsize(h, EXTRA),
                (_, Some(e)) => ellipsize(&short(e), EXTRA),
                _ => format!("#{}", i + 1),
            };
            (id.clone(), extra)
        })
        .collect()
}

/// An element as a label shows it: its name in quotes and its state, or its role.
fn short(e: &Element) -> String {
    let mut s = if e.name.is_empty() {
        e.role.clone()
    } else {
        format!("{:?}", e.name)
    };
    if !e.state.is_empty() {
        s.push_str(&format!(" [{}]", e.state));
    }
    s
}

/// The text of a snapshot's first level-1 heading, else of its first heading.
fn main_heading(snapshot: &str) -> Option<String> {
    let headings: Vec<&str> = snapshot
        .lines()
        .map(|l| l.trim_start().trim_start_matches("- "))
        .filter(|l| l.starts_with("heading \""))
        .collect();
    let h = headings
        .iter()
        .find(|l| l.contains("level=1"))
        .or(headings.first())?;
    let name = h.strip_prefix("heading \"")?.rsplit_once("\" [")?.0;
    Some(name.replace("\\\"", "\"")).filter(|n| !n.trim().is_empty())
}

/// `s`, cut to `max` characters with an ellipsis at the end.
pub(crate) fn ellipsize(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// `s`, cut to `max` characters with an ellipsis in the middle (the start and end of a route
/// say most).
fn ellipsize_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::store::State;

    /// A node id (16 hex digits) made of a short name.
    fn hex(name: &str) -> String {
        format!(
            "{:016x}",
            name.bytes().fold(0u64, |a, b| (a << 8) | u64::from(b))
        )
    }

    fn record(atlas: &Atlas, id: &str, title: &str, url: &str, snapshot: &str) {
        atlas
            .ensure_state(&State {
                node_id: &hex(id),
                url,
                title,
                fingerprint: "fp",
                snapshot,
                screenshot: None,
                screenshot_left_out: None,
                run_id: "r",
            })
            .unwrap();
    }

    #[test]
    fn states_that_share_a_title_and_route_are_told_apart() {
        let d = tempfile::tempdir().unwrap();
        let a = Atlas::open(d.path()).unwrap();
        let table =
            "- heading \"Books\" [level=1]\n- DisclosureTriangle \"Columns\" [expanded=false]\n";
        let open = "- heading \"Books\" [level=1]\n- DisclosureTriangle \"Columns\" [expanded=true]\n- checkbox \"year\" [checked=true]\n";
        record(&a, "a", "Books", "http://h:1/books", table);
        record(&a, "b", "Books", "http://h:1/books", open);
        record(&a, "c", "Books", "http://h:1/books?q=dune", table);
        record(
            &a,
            "d",
            "library",
            "http://h:1/library",
            "- heading \"library\" [level=1]",
        );
        record(
            &a,
            "e",
            "library",
            "http://h:1/library?sql=select+*+from+books+where+title+like+%27%25dune%25%27",
            "- heading \"Custom SQL\" [level=1]",
        );
        record(
            &a,
            "f",
            "Dune",
            "http://h:1/books/1",
            "- heading \"Dune\" [level=1]",
        );
        record(
            &a,
            "g",
            "Emma",
            "http://h:1/books/2",
            "- heading \"Emma\" [level=1]",
        );
        let l = Labels::of(&a);
        assert_eq!(
            l.get(&hex("a")),
            "Books /books · \"Columns\" [expanded=false]"
        );
        assert_eq!(
            l.get(&hex("b")),
            "Books /books · \"Columns\" [expanded=true]"
        );
        assert_eq!(l.get(&hex("c")), "Books /books?q=*");
        assert_eq!(l.get(&hex("d")), "library /library");
        assert_eq!(l.get(&hex("e")), "library /library?sql=*");
        assert_eq!(l.get(&hex("f")), "Dune /books/:id");
        assert_eq!(Labels::one(&a, &hex("b")), l.get(&hex("b")));
        assert_eq!(l.get(&hex("zz")), "");
        // Same title, route and structure, other headings: the heading tells them apart.
        record(
            &a,
            "h",
            "Row",
            "http://h:1/r/1",
            "- heading \"Dune\" [level=1]",
        );
        record(
            &a,
            "i",
            "Row",
            "http://h:1/r/2",
            "- heading \"Emma\" [level=1]",
        );
        let l = Labels::of(&a);
        assert_eq!(
            (l.get(&hex("h")), l.get(&hex("i"))),
            ("Row /r/:id · Dune", "Row /r/:id · Emma")
        );
        // Nothing at all: a number.
        record(&a, "j", "Same", "http://h:1/s", "- main");
        record(&a, "k", "Same", "http://h:1/s", "- main");
        let l = Labels::of(&a);
        assert_eq!(
            (l.get(&hex("j")), l.get(&hex("k"))),
            ("Same /s · #1", "Same /s · #2")
        );
    }

    #[test]
    fn long_parts_are_cut() {
        assert_eq!(ellipsize("abcdef", 4), "abc…");
        assert_eq!(ellipsize("abc", 4), "abc");
        assert_eq!(
            ellipsize_middle("/a/very/long/route/of/many/parts", 11),
            "/a/ve…parts"
        );
        let b = base(&"T".repeat(100), &format!("http://h/{}", "seg/".repeat(30)));
        assert!(b.chars().count() <= TITLE + 1 + ROUTE, "{b}");
    }
}
