//! Text made comparable: a URL's origin and path (any local origin as one), a text's numbers,
//! dates and UUIDs as `#`, a snapshot's lines without their refs.

use std::sync::OnceLock;

use regex::Regex;

/// Origin and path of a URL, without query and fragment (and without a trailing `/` except the root).
pub(crate) fn normalize_url(url: &str) -> String {
    let no_fragment = url.split('#').next().unwrap_or("");
    let no_query = no_fragment.split('?').next().unwrap_or("");
    let (scheme, rest) = no_query.split_once("://").unwrap_or(("", no_query));
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let path = if path.len() > 1 {
        path.trim_end_matches('/')
    } else {
        path
    };
    let host = host.to_lowercase();
    // A local test server gets a free port on every run: the same screen must stay one node.
    let bare = host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h);
    let host = if matches!(bare, "127.0.0.1" | "localhost" | "[::1]" | "0.0.0.0") {
        "localhost"
    } else {
        host.as_str()
    };
    format!("{}://{host}{path}", scheme.to_lowercase())
}

fn volatile() -> &'static [Regex] {
    static R: OnceLock<Vec<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        [
            // refs change between snapshots
            r"\s*\[?ref=e\d+\]?",
            // ISO dates and times, then any run of digits
            r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?Z?)?",
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            r"\d+([.,]\d+)*",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("the patterns are valid"))
        .collect()
    })
}

/// A text with its volatile parts (dates, UUIDs, numbers) as `#`.
pub(crate) fn normalize_text(text: &str) -> String {
    let mut t = text.to_string();
    for re in &volatile()[1..] {
        t = re.replace_all(&t, "#").into_owned();
    }
    t
}

/// The lines of a snapshot with volatile text normalized and refs left out (what an atlas that
/// tells states apart by their text compares).
pub(crate) fn text_lines(snapshot: &str) -> String {
    let mut out = String::new();
    for line in snapshot.lines() {
        let mut l = line.trim_end().to_string();
        for (i, re) in volatile().iter().enumerate() {
            let with = if i == 0 { "" } else { "#" };
            l = re.replace_all(&l, with).into_owned();
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_query_fragment_and_trailing_slash() {
        assert_eq!(
            normalize_url("HTTP://Example.com/a/b/?x=1#top"),
            "http://example.com/a/b"
        );
        assert_eq!(normalize_url("http://h:8080"), "http://h:8080/");
        assert_eq!(
            normalize_url("http://127.0.0.1:41234/a"),
            normalize_url("http://localhost:9/a")
        );
    }

    #[test]
    fn volatile_parts_of_a_text_are_one() {
        assert_eq!(
            normalize_text("3 books at 2026-01-01T10:00:00Z"),
            "# books at #"
        );
        assert_eq!(
            text_lines("- heading \"Visitor 12\" [level=1, ref=e3]\n"),
            "- heading \"Visitor #\" [level=#,\n"
        );
    }
}
