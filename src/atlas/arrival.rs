//! What tells a recorded state apart, as an exported test checks it on arrival: its URL route
//! (ids and query values generalised), its title, its main heading and its landmarks. All of it
//! is read from what the node recorded (`meta.json`'s URL and title, `snapshot.txt`'s
//! accessibility tree) by [`identity`], the one place that decides what a state's identity is;
//! the fingerprint that names the node is not read, so it may change its form.

use std::sync::OnceLock;

use regex::Regex;

use super::store::{Atlas, AtlasError};

/// A recorded state's identity.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Identity {
    pub(crate) node: String,
    /// How people read the node (`title path`).
    pub(crate) label: String,
    /// The URL it was recorded at (a secret in it masked).
    pub(crate) url: String,
    /// `None` for a page without a title.
    pub(crate) title: Option<Text>,
    /// The first heading of the highest level.
    pub(crate) heading: Option<Heading>,
    /// Each landmark role the state showed, once, in the order first seen.
    pub(crate) landmarks: Vec<Landmark>,
}

/// A state's main heading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heading {
    pub(crate) name: Text,
    /// How many headings of the state a look-up of `name` found (more than one: take the first).
    pub(crate) found: usize,
}

/// A landmark role and the CSS that finds its elements in the DOM (the HTML element that has
/// the role implicitly, or an explicit `role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Landmark {
    pub(crate) role: &'static str,
    pub(crate) css: &'static str,
}

/// The landmark roles every page may hold without naming them (a `form` or a `region` is a
/// landmark only when named, so it is not among them).
const LANDMARKS: [Landmark; 6] = [
    Landmark {
        role: "banner",
        css: "header, [role=banner]",
    },
    Landmark {
        role: "navigation",
        css: "nav, [role=navigation]",
    },
    Landmark {
        role: "main",
        css: "main, [role=main]",
    },
    Landmark {
        role: "complementary",
        css: "aside, [role=complementary]",
    },
    Landmark {
        role: "search",
        css: "search, [role=search]",
    },
    Landmark {
        role: "contentinfo",
        css: "footer, [role=contentinfo]",
    },
];

/// A recorded text, in parts: what must be there as it is, and what varies with the data
/// (numbers, ids, a masked secret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text(Vec<Part>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    /// A varying part: the regular expression that matches any of its values.
    Varies(&'static str),
}

/// The identity of `node`, from its recorded URL, title and snapshot.
pub(crate) fn identity(atlas: &Atlas, node: &str) -> Result<Identity, AtlasError> {
    let meta = atlas.meta(node)?;
    // An atlas written before snapshots were kept still has its URL and title.
    let snapshot = atlas.snapshot(node)?.unwrap_or_default();
    Ok(Identity {
        node: node.to_string(),
        label: super::view::label(atlas, node),
        title: (!meta.title.trim().is_empty()).then(|| Text::parse(meta.title.trim())),
        url: meta.url,
        heading: main_heading(&snapshot),
        landmarks: landmarks(&snapshot),
    })
}

impl Identity {
    /// A regular expression for the state's URL on `origin` (`scheme://host[:port]`, and a
    /// path prefix when the app is served under one): the path with id-like segments
    /// generalised, the recorded query's keys in order with any values (other parameters
    /// allowed between them; no query recorded, none allowed), and any fragment unless the
    /// recorded one is a route (`#/...`, `#!/...`), generalised as the path is. An origin that
    /// is a template (`{{ web_server.app.url }}`) stays one, its dots escaped when it renders.
    /// `origin` stands for the recorded path's `under` (`/app`, when it is a base at the path
    /// the app is served under: see `mount`), which is then not written again after it.
    pub(crate) fn url_pattern(&self, origin: &str, under: &str) -> String {
        let rest = self
            .url
            .split_once("://")
            .and_then(|(_, r)| r.find('/').map(|i| &r[i..]))
            .unwrap_or("/");
        let rest = match rest.strip_prefix(under) {
            Some("") if !under.is_empty() => "/",
            Some(r) if !under.is_empty() && r.starts_with(['/', '?', '#']) => r,
            _ => rest,
        };
        let (before, fragment) = match rest.split_once('#') {
            Some((b, f)) => (b, Some(f)),
            None => (rest, None),
        };
        let (path, query) = match before.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (before, None),
        };
        let origin = origin.trim_end_matches('/');
        let origin = match origin.strip_prefix("{{").and_then(|o| o.strip_suffix("}}")) {
            Some(expr) => format!("{{{{ {} | replace(\".\", \"\\\\.\") }}}}", expr.trim()),
            None => escape(origin),
        };
        let mut out = format!("^{origin}{}", route(path));
        if let Some(q) = query.filter(|q| !q.is_empty()) {
            out.push_str(&query_pattern(q));
        }
        let fragment_route = fragment.and_then(|f| {
            f.strip_prefix('/')
                .map(|r| ("", r))
                .or_else(|| f.strip_prefix("!/").map(|r| ("!", r)))
        });
        match fragment_route {
            Some((bang, r)) => {
                let r = r.split('?').next().unwrap_or_default();
                out.push_str(&format!("#{bang}{}(?:\\?.*)?", route(&format!("/{r}"))));
            }
            None => out.push_str("(?:#.*)?"),
        }
        out.push('$');
        out
    }
}

/// The landmark roles a snapshot shows (`- main`, `- navigation "Primary" [ref=e3]`), each
/// once, in the order first shown.
fn landmarks(snapshot: &str) -> Vec<Landmark> {
    let mut out: Vec<Landmark> = Vec::new();
    for line in snapshot.lines() {
        let Some(rest) = line.trim_start().strip_prefix("- ") else {
            continue;
        };
        let found = LANDMARKS.iter().find(|l| {
            rest.strip_prefix(l.role)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', ':', '[']))
        });
        if let Some(l) = found
            && !out.contains(l)
        {
            out.push(*l);
        }
    }
    out
}

/// A path as a pattern: each segment as it is, an id-like one (digits, a UUID, a long hex
/// hash, a masked secret) as any segment; a trailing `/` optional.
fn route(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    let mut out: String = trimmed
        .split('/')
        .skip(1)
        .map(|s| {
            if is_id(s) {
                "/[^/]+".to_string()
            } else {
                format!("/{}", escape(s))
            }
        })
        .collect();
    if path.ends_with('/') {
        out.push_str("/?");
    }
    out
}

/// Whether a path segment names one record rather than a place: it changes with the data. The
/// segments a state's route takes for ids (`identity::is_id`, so an exported check agrees with
/// verify on what one state is), and a masked secret.
fn is_id(segment: &str) -> bool {
    super::identity::is_id(segment) || segment.contains("***")
}

/// The query's keys, in order, each with any value.
fn query_pattern(query: &str) -> String {
    let keys: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, _)) => format!("{}=[^&#]*", escape(k)),
            None => escape(p),
        })
        .collect();
    format!("\\?(?:[^#]*&)?{}(?:&[^#]*)?", keys.join("(?:&[^#]*)?&"))
}

/// `text` as a regular expression that matches it literally, in the syntax Rust's `regex`,
/// Python's `re` and JavaScript share: only their common metacharacters are escaped.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Text {
    /// Splits a recorded text into what stays and what varies with the data.
    pub(crate) fn parse(text: &str) -> Text {
        static R: OnceLock<Regex> = OnceLock::new();
        let varies = R.get_or_init(|| {
            Regex::new(
                r"\*\*\*|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|\d+(?:[.,]\d+)*",
            )
            .expect("the pattern is valid")
        });
        let mut parts = Vec::new();
        let mut at = 0;
        for m in varies.find_iter(text) {
            if m.start() > at {
                parts.push(Part::Literal(text[at..m.start()].to_string()));
            }
            parts.push(Part::Varies(match m.as_str() {
                "***" => ".+",
                s if s.contains('-') => "[0-9a-fA-F-]{36}",
                _ => r"\d+(?:[.,]\d+)*",
            }));
            at = m.end();
        }
        if at < text.len() {
            parts.push(Part::Literal(text[at..].to_string()));
        }
        Text(parts)
    }

    /// The text, when nothing in it varies.
    pub(crate) fn fixed(&self) -> Option<String> {
        self.0
            .iter()
            .map(|p| match p {
                Part::Literal(s) => Some(s.as_str()),
                Part::Varies(_) => None,
            })
            .collect()
    }

    /// A regular expression that matches the whole text, whatever its varying parts hold.
    pub(crate) fn pattern(&self) -> String {
        let body: String = self
            .0
            .iter()
            .map(|p| match p {
                Part::Literal(s) => escape(s),
                Part::Varies(r) => (*r).to_string(),
            })
            .collect();
        format!("^{body}$")
    }

    /// The longest part that stays, trimmed (none when no part holds a letter).
    pub(crate) fn longest_fixed(&self) -> Option<String> {
        self.0
            .iter()
            .filter_map(|p| match p {
                Part::Literal(s) => Some(s.trim()),
                Part::Varies(_) => None,
            })
            .filter(|s| s.chars().any(char::is_alphabetic))
            .max_by_key(|s| s.chars().count())
            .map(str::to_string)
    }
}

/// The first heading of the highest level in a snapshot (`- heading "Cart" [level=1, ref=e2]`),
/// and how many headings a look-up of its name (as `Heading::found` says) finds.
fn main_heading(snapshot: &str) -> Option<Heading> {
    static R: OnceLock<Regex> = OnceLock::new();
    let re = R.get_or_init(|| {
        Regex::new(r#"^\s*- heading "((?:[^"\\]|\\.)*)"(.*)$"#).expect("the pattern is valid")
    });
    let headings: Vec<(u32, String)> = snapshot
        .lines()
        .filter_map(|l| re.captures(l))
        .map(|c| {
            let raw = &c[1];
            let name: String = serde_json::from_str(&format!("\"{raw}\""))
                .unwrap_or_else(|_| raw.replace("\\\"", "\""));
            let level = c[2]
                .split("level=")
                .nth(1)
                .and_then(|r| r.split(|ch: char| !ch.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(7);
            (level, name.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .filter(|(_, name)| !name.is_empty())
        .collect();
    let top = headings.iter().map(|(l, _)| *l).min()?;
    let (_, name) = headings.iter().find(|(l, _)| *l == top)?;
    let text = Text::parse(name);
    let found = match (text.fixed(), text.longest_fixed()) {
        (Some(exact), _) => headings.iter().filter(|(_, n)| *n == exact).count(),
        (None, Some(part)) => {
            let part = part.to_lowercase();
            headings
                .iter()
                .filter(|(_, n)| n.to_lowercase().contains(&part))
                .count()
        }
        (None, None) => 1,
    };
    Some(Heading { name: text, found })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(url: &str) -> Identity {
        Identity {
            node: "n".into(),
            label: String::new(),
            url: url.into(),
            title: None,
            heading: None,
            landmarks: Vec::new(),
        }
    }

    fn matches(pattern: &str, url: &str) -> bool {
        Regex::new(pattern).unwrap().is_match(url)
    }

    /// What a state's route takes for an id (a slug that starts with a number, a date), the
    /// exported check takes for one too: verify and the export agree on what one state is.
    #[test]
    fn the_export_takes_for_ids_what_a_states_route_does() {
        for (recorded, other) in [
            ("/books/42-moby-dick", "/books/7-emma"),
            ("/days/2026-11-27", "/days/2025-01-02"),
            ("/users/5f1d7a9c0b3e4d2a", "/users/0a1b2c3d4e5f6a7b"),
        ] {
            assert_eq!(
                crate::atlas::identity::route(&format!("http://h{recorded}")),
                crate::atlas::identity::route(&format!("http://h{other}"))
            );
            let pattern = format!("^{}$", route(recorded));
            assert!(matches(&pattern, other), "{pattern} vs {other}");
        }
        assert!(!matches(
            &format!("^{}$", route("/books/42")),
            "/authors/42"
        ));
    }

    #[test]
    fn a_url_pattern_generalises_ids_and_query_values() {
        let p = at("http://127.0.0.1:8001/library/books/42?_sort=title&page=3#top")
            .url_pattern("http://127.0.0.1:8001", "");
        assert_eq!(
            p,
            r"^http://127\.0\.0\.1:8001/library/books/[^/]+\?(?:[^#]*&)?_sort=[^&#]*(?:&[^#]*)?&page=[^&#]*(?:&[^#]*)?(?:#.*)?$"
        );
        for same in [
            "http://127.0.0.1:8001/library/books/7?_sort=year&page=1",
            "http://127.0.0.1:8001/library/books/7?_sort=year&_size=10&page=1#x",
        ] {
            assert!(matches(&p, same), "{same}");
        }
        for other in [
            "http://127.0.0.1:8001/library/books/7",
            "http://127.0.0.1:8001/library/books/7?page=1",
            "http://127.0.0.1:8001/library/books/7/edit?_sort=a&page=1",
            "http://127.0.0.1:8001/library/authors/7?_sort=a&page=1",
            "http://127.0.0.1:9999/library/books/7?_sort=a&page=1",
            "http://127.0.0.1:8001/library/books/7?_sortx=a&page=1",
        ] {
            assert!(!matches(&p, other), "{other}");
        }
        let uuid = at("https://h/o/3f2a9c1e-0b7d-4e5f-9a1b-2c3d4e5f6a7b/x/deadbeef99/***")
            .url_pattern("https://h", "");
        assert_eq!(uuid, r"^https://h/o/[^/]+/x/[^/]+/[^/]+(?:#.*)?$");
        // No query recorded: none allowed (a query may be another state: a search, an SQL page).
        let plain = at("http://h/library").url_pattern("http://h", "");
        assert!(matches(&plain, "http://h/library#t"));
        assert!(!matches(&plain, "http://h/library?sql=select"));
        assert!(!matches(&plain, "http://h/library2"));
        // A trailing slash is optional; slugs, file names and versions stay as they are.
        let root = at("http://h/").url_pattern("http://h/app/", "");
        assert_eq!(root, r"^http://h/app/?(?:#.*)?$");
        assert_eq!(
            at("http://h/v2/page-2.html").url_pattern("http://h", ""),
            r"^http://h/v2/page-2\.html(?:#.*)?$"
        );
    }

    #[test]
    fn a_template_origin_stays_a_template_that_escapes_what_it_renders() {
        assert_eq!(
            at("http://h/books/7").url_pattern("{{ web_server.app.url }}", ""),
            r#"^{{ web_server.app.url | replace(".", "\\.") }}/books/[^/]+(?:#.*)?$"#
        );
    }

    #[test]
    fn a_base_at_the_apps_path_is_not_followed_by_that_path_again() {
        let under = at("http://h/app/books/7").url_pattern("http://other/app", "/app");
        assert_eq!(under, r"^http://other/app/books/[^/]+(?:#.*)?$");
        let home = at("http://h/app").url_pattern("{{ web_server.app.url | trim('/') }}", "/app");
        assert!(
            home.starts_with(r#"^{{ web_server.app.url | trim('/') | replace(".", "\\.") }}/?"#),
            "{home}"
        );
        // A path the app is not under stays whole.
        let other = at("http://h/apple").url_pattern("http://other", "/app");
        assert_eq!(other, r"^http://other/apple(?:#.*)?$");
    }

    #[test]
    fn a_fragment_route_is_part_of_the_url_pattern() {
        let p = at("http://h/#/users/12?tab=a").url_pattern("http://h", "");
        assert_eq!(p, r"^http://h/?#/users/[^/]+(?:\?.*)?$");
        assert!(matches(&p, "http://h/#/users/3"));
        assert!(!matches(&p, "http://h/#/orders/3"));
        let bang = at("http://h/app#!/cart").url_pattern("http://h", "");
        assert!(matches(&bang, "http://h/app#!/cart"));
        assert!(!matches(&bang, "http://h/app#!/checkout"));
    }

    #[test]
    fn texts_keep_what_stays_and_generalise_what_varies() {
        let t = Text::parse("Visitor 1,234 (as of 2026-01-15)");
        assert_eq!(t.fixed(), None);
        assert_eq!(t.longest_fixed().as_deref(), Some("Visitor"));
        let p = t.pattern();
        assert!(matches(&p, "Visitor 9 (as of 2025-12-01)"), "{p}");
        assert!(!matches(&p, "Visitors 9 (as of 2025-12-01)"), "{p}");
        assert_eq!(
            Text::parse("Team (A+B)").fixed().as_deref(),
            Some("Team (A+B)")
        );
        assert_eq!(Text::parse("Team (A+B)").pattern(), r"^Team \(A\+B\)$");
        assert_eq!(Text::parse("42").longest_fixed(), None);
        assert!(matches(&Text::parse("Hello ***").pattern(), "Hello Ada"));
    }

    #[test]
    fn the_main_heading_is_the_first_of_the_highest_level() {
        let snap = "- banner\n  - heading \"Site\" [level=2, ref=e1]\n- main\n  - heading \"Order 1234\" [level=1, ref=e2]\n  - heading \"Items\" [level=2]\n  - heading \"Order 1234 \\\"copy\\\"\" [level=1]\n- contentinfo";
        let h = main_heading(snap).unwrap();
        assert_eq!(h.name.longest_fixed().as_deref(), Some("Order"));
        assert_eq!(h.found, 2, "both level-1 headings hold \"Order\"");
        let one = main_heading("- heading \"Say \\\"hi\\\"\" [level=1, ref=e1]").unwrap();
        assert_eq!(one.name.fixed().as_deref(), Some("Say \"hi\""));
        assert_eq!(one.found, 1);
        assert_eq!(main_heading("- main\n  - heading \"\" [level=1]"), None);
    }

    #[test]
    fn landmarks_are_read_by_role_in_the_order_shown() {
        let found = landmarks(
            "- banner\n- navigation \"Primary\" [ref=e1]\n- main\n  - navigation\n- mainframe\n- form\n- contentinfo:\n",
        );
        let roles: Vec<&str> = found.iter().map(|l| l.role).collect();
        assert_eq!(roles, ["banner", "navigation", "main", "contentinfo"]);
    }
}
