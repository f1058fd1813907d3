//! A state's structure: what makes a screen the screen it is, without its data. It is the
//! route (ids and query values generalised), then the page's landmarks, headings, forms and
//! their fields, its interactive elements by role and name, and where it has paragraphs (not
//! what they say: a click that shows a hidden paragraph makes another state), in document
//! order.
//!
//! What is data, and so left out: every text node and a field's value; the inside of a
//! record — a table's cells, a list's items (outside a navigation, menu, tab list, toolbar,
//! banner or footer), an article; a combobox's options; images; and the text of the headings
//! of a record's page (a route with an `:id`: there the heading is the record's title), which
//! keep their level. Numbers, dates and UUIDs in what is kept are normalized. An element
//! repeated next to itself counts once.

use serde::{Deserialize, Serialize};

use super::normalize::normalize_text;
use super::route::{names_a_record, route};
use super::snapshot::{Node, parse};

/// One element of a state's structure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Element {
    /// The landmarks and containers around it, outermost first (`main > form`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) place: String,
    pub(crate) role: String,
    /// Its name, normalized; empty when it has none or it is data.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) name: String,
    /// Its state: a heading's `level=2`, a tab's `selected`, a disclosure's `expanded=true`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(crate) state: String,
}

impl std::fmt::Display for Element {
    /// `button "Save"`, `heading "Books" [level=1]`, `textbox`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.role)?;
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        if !self.state.is_empty() {
            write!(f, " [{}]", self.state)?;
        }
        Ok(())
    }
}

/// A state's structure: its route and its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Structure {
    pub(crate) route: String,
    pub(crate) elements: Vec<Element>,
}

impl Structure {
    /// The state's identity as text: the route, then a line per element.
    pub(crate) fn fingerprint(&self) -> String {
        let mut s = format!("{}\n", self.route);
        for e in &self.elements {
            if !e.place.is_empty() {
                s.push_str(&e.place);
                s.push_str(" > ");
            }
            s.push_str(&e.to_string());
            s.push('\n');
        }
        s
    }
}

/// How a role counts in a structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A landmark or container: kept, and the place of what is inside it.
    Container,
    /// Kept as an element.
    Kept,
    /// A record: it and all inside it are data.
    Record,
    /// Left out with all inside it.
    Dropped,
    /// Left out; what is inside it counts.
    Through,
}

/// Where a list's items are structure (a menu), not records.
const MENUS: &[&str] = &[
    "navigation",
    "menu",
    "menubar",
    "tablist",
    "toolbar",
    "banner",
    "contentinfo",
];

fn kind(n: &Node, places: &[String]) -> Kind {
    match n.role.as_str() {
        "banner" | "navigation" | "main" | "contentinfo" | "complementary" | "search" | "form"
        | "region" | "dialog" | "alertdialog" | "tablist" | "menu" | "menubar" | "toolbar"
        | "table" | "grid" | "treegrid" | "tree" | "tabpanel" | "radiogroup" => Kind::Container,
        "group" if !n.name.is_empty() => Kind::Container,
        "heading" | "link" | "button" | "tab" | "menuitem" | "menuitemcheckbox"
        | "menuitemradio" | "treeitem" | "checkbox" | "radio" | "switch" | "textbox"
        | "searchbox" | "combobox" | "listbox" | "spinbutton" | "slider" | "columnheader"
        | "rowheader" | "term" | "DisclosureTriangle" | "alert" | "paragraph" => Kind::Kept,
        "cell" | "gridcell" | "article" => Kind::Record,
        "listitem" if !places.iter().any(|p| MENUS.contains(&p.as_str())) => Kind::Record,
        "MenuListPopup" | "option" | "image" | "img" | "StaticText" | "ListMarker" => Kind::Dropped,
        _ if n.clickable => Kind::Kept,
        _ => Kind::Through,
    }
}

/// The state an element shows: a heading's level; `selected`, `expanded` as they are set.
fn state(n: &Node) -> String {
    let mut parts = Vec::new();
    for key in ["level", "selected", "expanded"] {
        match n.attr(key) {
            Some("") => parts.push(key.to_string()),
            Some(v) => parts.push(format!("{key}={v}")),
            None => {}
        }
    }
    parts.join(", ")
}

/// The structure of the state at `url` whose snapshot is `snapshot`.
pub(crate) fn structure(url: &str, snapshot: &str) -> Structure {
    walk(url, snapshot).0
}

/// The data of the state at `url` whose snapshot is `snapshot`: the texts its structure leaves
/// out (text nodes, values, the names inside records ...), in order, a text that repeats the
/// one just before it once.
pub(crate) fn data(url: &str, snapshot: &str) -> Vec<String> {
    walk(url, snapshot).1
}

fn walk(url: &str, snapshot: &str) -> (Structure, Vec<String>) {
    let route = route(url);
    let record_page = names_a_record(&route);
    let nodes = parse(snapshot);
    let mut elements: Vec<Element> = Vec::new();
    let mut data = Texts::default();
    // The containers around the current node: (depth, role); a record or dropped subtree is
    // skipped by its depth.
    let mut around: Vec<(usize, String)> = Vec::new();
    let mut skip_below: Option<usize> = None;
    for (i, n) in nodes.iter().enumerate() {
        if skip_below.is_some_and(|d| n.depth > d) {
            data.add(&n.name);
            data.add(&n.value);
            continue;
        }
        skip_below = None;
        around.retain(|(d, _)| *d < n.depth);
        let places: Vec<String> = around.iter().map(|(_, r)| r.clone()).collect();
        let kind = kind(n, &places);
        let name = match (kind, n.role.as_str()) {
            (Kind::Container | Kind::Kept, "alert" | "paragraph") => String::new(),
            (Kind::Container | Kind::Kept, "heading") if record_page => String::new(),
            (Kind::Container | Kind::Kept, _) if n.name.is_empty() && n.clickable => {
                inner_text(&nodes[i + 1..], n.depth)
            }
            (Kind::Container | Kind::Kept, _) => n.name.clone(),
            _ => String::new(),
        };
        if name.is_empty() {
            data.add(&n.name);
        } else {
            data.seen(&n.name);
        }
        data.add(&n.value);
        match kind {
            Kind::Record | Kind::Dropped => skip_below = Some(n.depth),
            Kind::Through => {}
            Kind::Container | Kind::Kept => {
                let e = Element {
                    place: places.join(" > "),
                    role: if n.clickable && n.role == "generic" {
                        "clickable".to_string()
                    } else {
                        n.role.clone()
                    },
                    name: normalize_text(name.trim()),
                    state: state(n),
                };
                if elements.last() != Some(&e) {
                    elements.push(e);
                }
                if kind == Kind::Container {
                    around.push((n.depth, n.role.clone()));
                }
            }
        }
    }
    (Structure { route, elements }, data.out)
}

/// The data texts of a page as they are read, each one once where a text node repeats the
/// name or value just before it (`textbox "Title": Dune` and its text `Dune`).
#[derive(Default)]
struct Texts {
    out: Vec<String>,
    last: String,
}

impl Texts {
    fn add(&mut self, t: &str) {
        let t = t.trim();
        if !t.is_empty() && t != self.last {
            self.out.push(t.to_string());
        }
        self.seen(t);
    }

    /// A text read that is not data (the name of an element of the structure).
    fn seen(&mut self, t: &str) {
        let t = t.trim();
        if !t.is_empty() {
            self.last = t.to_string();
        }
    }
}

/// The first text inside a node (what names an element with a click handler and no name).
fn inner_text(after: &[Node], depth: usize) -> String {
    after
        .iter()
        .take_while(|n| n.depth > depth)
        .find(|n| n.role == "StaticText" && !n.name.trim().is_empty())
        .map(|n| n.name.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = r#"- banner
  - navigation
    - link "Library" [ref=e2]
    - link "Books" [ref=e3]
- main
  - heading "Books" [level=1, ref=e1]
  - search
    - LabelText
      - StaticText "Search"
    - textbox "Search" [ref=e4]: dune
    - button "Search" [ref=e5]
  - paragraph
    - StaticText "3 books"
  - table
    - rowgroup
      - row
        - columnheader "title" [ref=e18]
    - row
      - cell "1" [ref=e6]
        - link "1" [ref=e22]
      - cell "Dune" [ref=e7]
    - row
      - cell "2" [ref=e10]
        - link "2" [ref=e23]
      - cell "Emma" [ref=e11]
  - list
    - listitem [level=1]
      - link "Moby-Dick" [ref=e30]
- contentinfo
  - StaticText "Library demo · 3 books"
"#;

    fn lines(s: &Structure) -> Vec<String> {
        s.fingerprint().lines().map(str::to_string).collect()
    }

    #[test]
    fn a_table_page_is_its_landmarks_headings_fields_and_columns() {
        let s = structure("http://127.0.0.1:5/books?q=dune", TABLE);
        assert_eq!(
            lines(&s),
            [
                "http://localhost/books?q=*",
                "banner",
                "banner > navigation",
                "banner > navigation > link \"Library\"",
                "banner > navigation > link \"Books\"",
                "main",
                "main > heading \"Books\" [level=1]",
                "main > search",
                "main > search > textbox \"Search\"",
                "main > search > button \"Search\"",
                "main > paragraph",
                "main > table",
                "main > table > columnheader \"title\"",
                "contentinfo",
            ]
        );
        // Other rows, other values, other list items: the same structure.
        let edited = TABLE
            .replace("Dune", "Dune Messiah")
            .replace("Moby-Dick", "Emma")
            .replace(": dune", ": emma")
            .replace("3 books", "4 books");
        assert_eq!(structure("http://localhost:1/books?q=emma", &edited), s);
        // A renamed button is another structure.
        let renamed = TABLE.replace("button \"Search\"", "button \"Find\"");
        assert_ne!(structure("http://localhost/books?q=x", &renamed), s);
    }

    #[test]
    fn a_records_headings_are_data_elsewhere_they_name_the_page() {
        let page = "- main\n  - heading \"Dune\" [level=1, ref=e1]\n  - link \"Edit\" [ref=e2]\n";
        let other = page.replace("Dune", "Emma");
        assert_eq!(
            structure("http://h/books/1", page),
            structure("http://h/books/2", &other)
        );
        assert_eq!(
            lines(&structure("http://h/books/1", page))[2],
            "main > heading [level=1]"
        );
        assert_ne!(
            structure("http://h/about", page),
            structure("http://h/about", &other)
        );
    }

    #[test]
    fn menus_states_and_clickables_are_structure() {
        let page = r#"- navigation
  - list
    - listitem [level=1]
      - link "Home" [ref=e1]
- tablist
  - tab "One" [selected, ref=e9]
  - tab "Two" [ref=e10]
- group
  - DisclosureTriangle "Columns" [expanded=false]
    - StaticText "Columns"
- generic [ref=e6] clickable [onclick]
  - StaticText "Click me"
- combobox "Pick" [expanded=false, ref=e5]: B
  - MenuListPopup
    - option "A" [ref=e13]
- button "Add" [ref=e1]
- button "Add" [ref=e2]
- alert
  - StaticText "Saved 3 books at 2026-01-01"
- image "logo"
"#;
        assert_eq!(
            lines(&structure("http://h/", page))[1..],
            [
                "navigation",
                "navigation > link \"Home\"",
                "tablist",
                "tablist > tab \"One\" [selected]",
                "tablist > tab \"Two\"",
                "DisclosureTriangle \"Columns\" [expanded=false]",
                "clickable \"Click me\"",
                "combobox \"Pick\" [expanded=false]",
                "button \"Add\"",
                "alert",
            ]
        );
        // A paragraph shown is another state; what it says is data.
        let hidden = "- main\n  - paragraph\n    - StaticText \"Fresh\"\n  - generic [ref=e1] clickable [onclick]\n    - StaticText \"Hours\"\n";
        let shown = format!("{hidden}  - paragraph\n    - StaticText \"Open 9 to 17\"\n");
        assert_ne!(
            structure("http://h/", hidden),
            structure("http://h/", &shown)
        );
        assert_eq!(
            structure("http://h/", &shown),
            structure("http://h/", &shown.replace("Open 9 to 17", "Closed"))
        );
        // Numbers in what is kept are normalized.
        let a = structure("http://h/", "- button \"3 new\" [ref=e1]");
        assert_eq!(a, structure("http://h/", "- button \"12 new\" [ref=e7]"));
    }
}
