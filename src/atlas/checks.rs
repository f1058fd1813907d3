//! The checks an export makes of each state it reaches, from the state's [`Identity`]: runner
//! `expect` steps for the flow, `expect(...)` assertions for the Playwright script. Both say
//! the same — URL route, title, main heading, landmarks — each in its own tool's terms.

use serde_json::{Map, Value, json};

use super::arrival::{Heading, Identity};
use crate::template::literal_value;

/// `s` as a Python string literal (a JSON string is one).
pub(super) fn py(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// `text` as a Python comment: `# ` and the text on one line, its escape sequences, control
/// characters and bidirectional controls taken out (see `shown::one_line`: these would make the
/// code read otherwise than it runs, Trojan Source, CVE-2021-42574), so no text from a page or
/// an atlas ends the comment and starts a line of code. Every comment an export writes is made
/// here.
pub(super) fn comment(text: &str) -> String {
    format!("# {}", crate::step::shown::one_line(text))
}

/// The name of the steps that check `id`: `arrived at <title> <path> (<node>)`.
fn name(id: &Identity) -> String {
    let label: String = id
        .label
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("arrived at {label} ({})", id.node)
}

/// The `expect` steps that check, on arrival, that the page is the state `id` on `origin`
/// (which stands for the recorded path's `under`, see [`Identity::url_pattern`]): the first
/// holds the URL, the title, the main heading and the first landmark; each further landmark
/// has a step of its own (a step checks one `count`).
pub(crate) fn expect_steps(id: &Identity, origin: &str, under: &str) -> Vec<Value> {
    let name = name(id);
    let mut first = Map::new();
    first.insert(
        "url".into(),
        json!({ "matches": id.url_pattern(origin, under) }),
    );
    if let Some(t) = &id.title {
        let title = t
            .fixed()
            .map_or_else(|| json!({ "matches": t.pattern() }), Value::from);
        first.insert("title".into(), title);
    }
    if let Some(heading) = id.heading.as_ref().and_then(heading_selector) {
        first.insert("visible".into(), heading);
    }
    // A landmark is looked for in the DOM by CSS (its element or explicit role): present,
    // shown or not, as many pages hold a hidden copy of a `nav` (a `role` selector reads the
    // accessibility tree, which leaves hidden elements out).
    let mut landmarks = id
        .landmarks
        .iter()
        .map(|l| (l.role, json!({ "target": { "css": l.css }, "min": 1 })));
    if let Some((_, count)) = landmarks.next() {
        first.insert("count".into(), count);
    }
    let mut steps = vec![json!({ "name": name, "expect": first })];
    steps.extend(landmarks.map(|(role, count)| {
        json!({ "name": format!("{name}: its {role}"), "expect": { "count": count } })
    }));
    // The page's title, heading and name are text (the URL's pattern is made of escaped or
    // encoded parts, and may hold the base's template).
    for step in &mut steps {
        literal_value(&mut step["name"]);
        for key in ["title", "visible"] {
            if let Some(v) = step["expect"].get_mut(key) {
                literal_value(v);
            }
        }
    }
    steps
}

/// The selector of a main heading: its name whole when nothing in it varies, else the longest
/// part that stays (none when no part does).
fn heading_selector(h: &Heading) -> Option<Value> {
    let mut sel = match (h.name.fixed(), h.name.longest_fixed()) {
        (Some(name), _) => json!({ "role": "heading", "text": name, "exact": true }),
        (None, Some(part)) => json!({ "role": "heading", "text": part }),
        (None, None) => return None,
    };
    if h.found > 1 {
        sel["nth"] = json!(0);
    }
    Some(sel)
}

/// The Playwright for Python assertions that check, on arrival, that the page is the state
/// `id` on `origin` (standing for `under`), after a comment naming it.
pub(crate) fn python_asserts(id: &Identity, origin: &str, under: &str) -> Vec<String> {
    let mut out = vec![
        comment(&name(id)),
        format!(
            "expect(page).to_have_url(re.compile({}))",
            py(&id.url_pattern(origin, under))
        ),
    ];
    if let Some(t) = &id.title {
        out.push(match t.fixed() {
            Some(s) => format!("expect(page).to_have_title({})", py(&s)),
            None => format!(
                "expect(page).to_have_title(re.compile({}))",
                py(&t.pattern())
            ),
        });
    }
    if let Some(h) = &id.heading {
        let name = match h.name.fixed() {
            Some(s) => format!("name={}, exact=True", py(&s)),
            None => format!("name=re.compile({})", py(&h.name.pattern())),
        };
        let first = if h.found > 1 { ".first" } else { "" };
        out.push(format!(
            "expect(page.get_by_role(\"heading\", {name}){first}).to_be_visible()"
        ));
    }
    // Playwright finds a role in the accessibility tree, hidden copies left out.
    out.extend(id.landmarks.iter().map(|l| {
        format!(
            "expect(page.get_by_role({}).first).to_be_visible()",
            py(l.role)
        )
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::arrival::{Landmark, Text};

    fn id(title: &str, heading: Option<(&str, usize)>) -> Identity {
        Identity {
            node: "abc".into(),
            label: format!("{title} /orders/7"),
            url: "http://h/orders/7".into(),
            title: Some(Text::parse(title)),
            heading: heading.map(|(n, found)| Heading {
                name: Text::parse(n),
                found,
            }),
            landmarks: vec![
                Landmark {
                    role: "main",
                    css: "main, [role=main]",
                },
                Landmark {
                    role: "navigation",
                    css: "nav, [role=navigation]",
                },
            ],
        }
    }

    #[test]
    fn a_comment_stays_on_its_line() {
        for text in [
            "a\nimport os\n#",
            "a\rimport os",
            "a\u{2028}b\u{85}c\u{c}d",
            "t\u{1b}]0;x\u{7}\u{1b}[2J",
            "x\u{202E}yz\u{2066}w\u{200F}",
        ] {
            let c = comment(text);
            assert!(c.starts_with("# "), "{c:?}");
            assert!(!c.chars().any(char::is_control), "{c:?}");
            assert!(!c.contains(['\u{2028}', '\u{2029}']), "{c:?}");
            assert!(!c.contains(['\u{202E}', '\u{2066}', '\u{200F}']), "{c:?}");
        }
    }

    #[test]
    fn a_state_becomes_expect_steps() {
        let steps = expect_steps(&id("Orders", Some(("Your orders", 1))), "http://h", "");
        assert_eq!(
            Value::Array(steps),
            json!([
                {
                    "name": "arrived at Orders /orders/7 (abc)",
                    "expect": {
                        "url": { "matches": r"^http://h/orders/[^/]+(?:#.*)?$" },
                        "title": "Orders",
                        "visible": { "role": "heading", "text": "Your orders", "exact": true },
                        "count": { "target": { "css": "main, [role=main]" }, "min": 1 }
                    }
                },
                {
                    "name": "arrived at Orders /orders/7 (abc): its navigation",
                    "expect": { "count": { "target": { "css": "nav, [role=navigation]" }, "min": 1 } }
                }
            ])
        );
        // Numbers vary with the data: the title is matched, the heading by what stays.
        let steps = expect_steps(&id("Order 7 of 12", Some(("Order 7", 2))), "http://h", "");
        assert_eq!(
            steps[0]["expect"]["title"],
            json!({ "matches": r"^Order \d+(?:[.,]\d+)* of \d+(?:[.,]\d+)*$" })
        );
        assert_eq!(
            steps[0]["expect"]["visible"],
            json!({ "role": "heading", "text": "Order", "nth": 0 })
        );
        let steps = expect_steps(&id("7", Some(("42", 1))), "http://h", "");
        assert!(steps[0]["expect"].get("visible").is_none());
    }

    #[test]
    fn a_state_becomes_playwright_assertions() {
        assert_eq!(
            python_asserts(&id("Order 7", Some(("Your orders", 2))), "http://h", ""),
            [
                "# arrived at Order 7 /orders/7 (abc)",
                r#"expect(page).to_have_url(re.compile("^http://h/orders/[^/]+(?:#.*)?$"))"#,
                r#"expect(page).to_have_title(re.compile("^Order \\d+(?:[.,]\\d+)*$"))"#,
                r#"expect(page.get_by_role("heading", name="Your orders", exact=True).first).to_be_visible()"#,
                r#"expect(page.get_by_role("main").first).to_be_visible()"#,
                r#"expect(page.get_by_role("navigation").first).to_be_visible()"#,
            ]
        );
    }
}
