//! What differs between two recorded states — the state a node was recorded as and the one a
//! replay found, or one node of two atlases: the route, the elements of their structures
//! added, removed, renamed or moved, and the data (texts) that changed — a long text by the
//! part that changed, and a text that only moved not at all. `atlas verify` fails a node on a
//! change of its identity and reports the rest as drift.

use serde::{Deserialize, Serialize};

use super::excerpt::{LONG, excerpt};
use super::lcs::edits;
use super::normalize::{normalize_text, normalize_url};
use super::route::{path_of, route};
use super::structure::{Element, data, structure};
use crate::config::project::Fingerprint;

/// A state as recorded: its URL and its snapshot's text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recorded<'a> {
    pub(crate) url: &'a str,
    pub(crate) snapshot: &'a str,
}

/// Where a state was: its URL and its route (without origin), as its fingerprint takes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Place {
    pub(crate) url: String,
    pub(crate) route: String,
}

/// An element whose name or state changed in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Renamed {
    pub(crate) from: Element,
    pub(crate) to: Element,
}

/// A text of the page that changed, came or went (`None` on the side that lacks it). A long
/// text that changed is its part around the changes on each side, and `change` says them
/// inline (`… "title": "Dune -> Dune Messiah", …`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TextChange {
    pub(crate) expected: Option<String>,
    pub(crate) found: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) change: Option<String>,
}

impl TextChange {
    /// A text that changed from `a` to `b`: a long one by the part that changed.
    fn changed(a: &str, b: &str) -> TextChange {
        if a.chars().count() <= LONG && b.chars().count() <= LONG {
            return TextChange {
                expected: Some(a.to_string()),
                found: Some(b.to_string()),
                change: None,
            };
        }
        let e = excerpt(a, b);
        TextChange {
            expected: Some(e.expected),
            found: Some(e.found),
            change: Some(e.change),
        }
    }

    /// A text that came (`found`) or went.
    fn one(text: &str, found: bool) -> TextChange {
        let t = Some(text.to_string());
        let (expected, found) = if found { (None, t) } else { (t, None) };
        TextChange {
            expected,
            found,
            change: None,
        }
    }
}

/// What differs between two states.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct StateDiff {
    /// How the states are told apart (the atlas's fingerprint).
    pub(crate) fingerprint: Fingerprint,
    pub(crate) expected: Place,
    pub(crate) found: Place,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) added: Vec<Element>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) removed: Vec<Element>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) renamed: Vec<Renamed>,
    /// Elements taken out in one place and put in at another, unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) moved: Vec<Element>,
    /// The texts that changed (at most `MAX_DRIFT`; `drift_more` counts the rest). Changes of
    /// numbers and dates alone (a counter, a clock) are not listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) drift: Vec<TextChange>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) drift_more: usize,
}

// serde's `skip_serializing_if` takes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The most text changes a diff lists.
const MAX_DRIFT: usize = 20;

impl StateDiff {
    /// Whether the route differs.
    pub(crate) fn moved(&self) -> bool {
        self.expected.route != self.found.route
    }

    /// Whether the structure differs: the route or an element.
    pub(crate) fn restructured(&self) -> bool {
        self.moved()
            || !self.added.is_empty()
            || !self.removed.is_empty()
            || !self.renamed.is_empty()
            || !self.moved.is_empty()
    }

    /// Whether a text changed.
    pub(crate) fn drifted(&self) -> bool {
        !self.drift.is_empty() || self.drift_more > 0
    }

    /// The differences as lines for people: the URL, then each element, then the texts.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.moved() {
            out.push(format!(
                "url: expected {}, found {}",
                self.expected.route, self.found.route
            ));
        }
        out.extend(self.element_lines());
        out
    }

    /// The differences but the URL, as lines for people: each element, then the texts.
    pub(crate) fn element_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        let at = |e: &Element| {
            if e.place.is_empty() {
                String::new()
            } else {
                format!(" (in {})", e.place)
            }
        };
        for r in &self.renamed {
            let what = if r.from.name == r.to.name {
                "changed"
            } else {
                "renamed"
            };
            out.push(format!("{what}: {} -> {}{}", r.from, r.to, at(&r.to)));
        }
        out.extend(
            self.removed
                .iter()
                .map(|e| format!("removed: {e}{}", at(e))),
        );
        out.extend(self.added.iter().map(|e| format!("added: {e}{}", at(e))));
        out.extend(self.moved.iter().map(|e| format!("moved: {e}{}", at(e))));
        if self.drifted() {
            let word = match self.fingerprint {
                Fingerprint::Structure => "data drift",
                Fingerprint::Text => "text",
            };
            out.push(format!("{word}: {}", self.drift_summary()));
        }
        out
    }

    /// The texts that changed, on one line: `"Dune" -> "Dune Messiah", + "Foundation"` (a
    /// long text by its change inline: `… "title": "Dune -> Dune Messiah", …`).
    pub(crate) fn drift_summary(&self) -> String {
        let q = |s: &str| format!("{s:?}");
        let mut parts: Vec<String> = self
            .drift
            .iter()
            .map(|c| match (&c.expected, &c.found) {
                _ if c.change.is_some() => c.change.clone().unwrap_or_default(),
                (Some(a), Some(b)) => format!("{} -> {}", q(a), q(b)),
                (Some(a), None) => format!("- {}", q(a)),
                (None, Some(b)) => format!("+ {}", q(b)),
                (None, None) => String::new(),
            })
            .collect();
        if self.drift_more > 0 {
            parts.push(format!("and {} more", self.drift_more));
        }
        parts.join(", ")
    }
}

/// What differs between the state `expected` and the state `found`, as an atlas of
/// fingerprint `mode` tells states apart.
pub(crate) fn diff(mode: Fingerprint, expected: Recorded<'_>, found: Recorded<'_>) -> StateDiff {
    let place = |r: Recorded<'_>| Place {
        url: r.url.to_string(),
        route: match mode {
            Fingerprint::Structure => path_of(&route(r.url)).to_string(),
            Fingerprint::Text => path_of(&normalize_url(r.url)).to_string(),
        },
    };
    let mut d = StateDiff {
        fingerprint: mode,
        expected: place(expected),
        found: place(found),
        ..StateDiff::default()
    };
    let a = structure(expected.url, expected.snapshot).elements;
    let b = structure(found.url, found.snapshot).elements;
    let e = edits(&a, &b);
    d.moved = e.moved.into_iter().cloned().collect();
    for (removed, added) in e.hunks {
        let mut added: Vec<Option<&Element>> = added.into_iter().map(Some).collect();
        for from in removed {
            let pair = added
                .iter_mut()
                .find(|e| e.is_some_and(|e| e.role == from.role && e.place == from.place));
            match pair.and_then(Option::take) {
                Some(to) => d.renamed.push(Renamed {
                    from: from.clone(),
                    to: to.clone(),
                }),
                None => d.removed.push(from.clone()),
            }
        }
        d.added.extend(added.into_iter().flatten().cloned());
    }
    let changes = text_changes(
        &data(expected.url, expected.snapshot),
        &data(found.url, found.snapshot),
    );
    d.drift_more = changes.len().saturating_sub(MAX_DRIFT);
    d.drift = changes.into_iter().take(MAX_DRIFT).collect();
    d
}

/// The texts that changed from `a` to `b`, hunk by hunk: a text that only moved (taken out
/// in one place, put in at another) is no change; a text taken out and one put in that differ
/// only in numbers or dates (a counter, a clock) are the same text and left out; of the rest,
/// as many taken out as put in are changes, paired in order; otherwise each one alone.
fn text_changes(a: &[String], b: &[String]) -> Vec<TextChange> {
    let mut out = Vec::new();
    for (taken, put) in edits(a, b).hunks {
        let mut added: Vec<Option<&String>> = put.into_iter().map(Some).collect();
        let mut removed = Vec::new();
        for x in taken {
            let volatile = added
                .iter_mut()
                .find(|t| t.is_some_and(|t| normalize_text(t) == normalize_text(x)));
            if volatile.and_then(Option::take).is_none() {
                removed.push(x);
            }
        }
        let added: Vec<&String> = added.into_iter().flatten().collect();
        if removed.len() == added.len() {
            out.extend(
                removed
                    .iter()
                    .zip(&added)
                    .map(|(x, y)| TextChange::changed(x, y)),
            );
            continue;
        }
        out.extend(removed.iter().map(|x| TextChange::one(x, false)));
        out.extend(added.iter().map(|y| TextChange::one(y, true)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EDIT: &str = r#"- banner
  - navigation
    - link "Books" [ref=e1]
- main
  - heading "Edit book" [level=1, ref=e2]
  - form
    - textbox "Title" [required, ref=e3]: Dune
      - StaticText "Dune"
    - button "Save" [ref=e4]
- contentinfo
  - StaticText "Queries took 0.675ms"
"#;

    fn at<'a>(url: &'a str, snapshot: &'a str) -> Recorded<'a> {
        Recorded { url, snapshot }
    }

    #[test]
    fn a_renamed_button_and_a_new_link_are_told_with_their_place() {
        let found = EDIT
            .replace("button \"Save\"", "button \"Store\"")
            .replace("- contentinfo", "  - link \"Help\" [ref=e9]\n- contentinfo");
        let d = diff(
            Fingerprint::Structure,
            at("http://a:1/books/1/edit", EDIT),
            at("http://b:2/books/1/edit?from=row", &found),
        );
        assert!(d.restructured() && d.moved());
        assert_eq!(d.expected.route, "/books/:id/edit");
        assert_eq!(d.found.route, "/books/:id/edit?from=*");
        assert_eq!(
            d.lines(),
            [
                "url: expected /books/:id/edit, found /books/:id/edit?from=*",
                "renamed: button \"Save\" -> button \"Store\" (in main > form)",
                "added: link \"Help\" (in main)",
            ]
        );
    }

    #[test]
    fn data_is_drift_and_a_clock_is_not() {
        let found = EDIT
            .replace("Dune", "Dune Messiah")
            .replace("0.675ms", "0.419ms");
        let d = diff(
            Fingerprint::Structure,
            at("http://a/books/1/edit", EDIT),
            at("http://a/books/1/edit", &found),
        );
        assert!(!d.restructured() && d.drifted());
        assert_eq!(
            d.drift,
            [TextChange {
                expected: Some("Dune".into()),
                found: Some("Dune Messiah".into()),
                change: None,
            }]
        );
        assert_eq!(d.lines(), ["data drift: \"Dune\" -> \"Dune Messiah\""]);
        // Unchanged: nothing to say.
        let same = diff(
            Fingerprint::Structure,
            at("http://a/books/1/edit", EDIT),
            at("http://a/books/2/edit", EDIT),
        );
        assert!(same.lines().is_empty());
        // The JSON form reads back.
        let json = serde_json::to_value(&d).unwrap();
        assert_eq!(json["drift"][0]["found"], "Dune Messiah");
        assert!(json.get("added").is_none());
        assert_eq!(serde_json::from_value::<StateDiff>(json).unwrap(), d);
    }

    #[test]
    fn a_new_row_is_texts_put_in_and_a_count_beside_it_no_change() {
        let a: Vec<String> = ["Dune", "Emma", "3 books"].map(String::from).to_vec();
        let b: Vec<String> = ["Dune", "Emma", "4", "Foundation", "4 books"]
            .map(String::from)
            .to_vec();
        let found: Vec<Option<String>> =
            text_changes(&a, &b).into_iter().map(|c| c.found).collect();
        assert_eq!(
            found,
            [Some("4".to_string()), Some("Foundation".to_string())]
        );
        let gone = text_changes(&b, &a);
        assert!(gone.iter().all(|c| c.found.is_none()), "{gone:?}");
        assert_eq!(gone.len(), 2);
    }

    #[test]
    fn what_only_moved_is_not_drift_and_an_element_that_moved_is_said_once() {
        // The tester's Datasette page: a table renamed, which sorts it first; the texts of the
        // table that moved after it are the same.
        let a: Vec<String> = [
            "select * from orders",
            "id, product_id, qty",
            "2 rows",
            "select * from products",
            "id, name, price",
            "4 rows",
        ]
        .map(String::from)
        .to_vec();
        let b: Vec<String> = [
            "select * from items",
            "id, name, price",
            "4 rows",
            "select * from orders",
            "id, product_id, qty",
            "2 rows",
        ]
        .map(String::from)
        .to_vec();
        let changes = text_changes(&a, &b);
        assert_eq!(
            changes,
            [TextChange::changed(
                "select * from products",
                "select * from items"
            )]
        );
        let page = "- main\n  - paragraph\n    - StaticText \"x\"\n  - heading \"orders\" [level=3]\n  - heading \"products\" [level=3]\n";
        let moved = "- main\n  - heading \"orders\" [level=3]\n  - paragraph\n    - StaticText \"x\"\n  - heading \"products\" [level=3]\n";
        let d = diff(
            Fingerprint::Structure,
            at("http://a/shop", page),
            at("http://a/shop", moved),
        );
        assert_eq!(d.lines(), ["moved: paragraph (in main)"], "{d:?}");
        assert!(d.restructured());
    }

    #[test]
    fn a_long_text_is_shown_by_the_part_that_changed() {
        let body = |title: &str| {
            format!(
                r#"{{"rows": [[1, "{title}", "Frank Herbert", 1965], [2, "Emma", "Jane Austen", 1815], [3, "Neuromancer", "William Gibson", 1984]], "count": 3}}"#
            )
        };
        let d = diff(
            Fingerprint::Structure,
            at(
                "http://a/b.json",
                &format!("- StaticText {:?}\n", body("Dune")),
            ),
            at(
                "http://a/b.json",
                &format!("- StaticText {:?}\n", body("Dune Messiah")),
            ),
        );
        assert_eq!(
            d.lines(),
            [r#"data drift: {"rows": [[1, "Dune -> Dune Messiah", "Frank Herbert", 1965…"#]
        );
        assert_eq!(
            d.drift[0].expected.as_deref(),
            Some(r#"{"rows": [[1, "Dune", "Frank Herbert", 1965…"#)
        );
    }

    #[test]
    fn many_text_changes_are_counted_past_the_first_ones() {
        let rows = |word: &str| -> String {
            (0..30)
                .map(|i| format!("- cell \"{word} {i}a\"\n"))
                .collect()
        };
        let d = diff(
            Fingerprint::Text,
            at("http://a/t", &rows("old")),
            at("http://a/t", &rows("new")),
        );
        assert_eq!((d.drift.len(), d.drift_more), (MAX_DRIFT, 10));
        assert!(d.lines()[0].starts_with("text: \"old 0a\" -> \"new 0a\""));
        assert!(d.lines()[0].ends_with("and 10 more"));
    }
}
