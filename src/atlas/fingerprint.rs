//! State fingerprints: the normalized URL plus the structure of the accessibility snapshot,
//! with volatile text (numbers, dates, ids) normalized, so the same screen reached twice is one
//! node and a different screen another.

use regex::Regex;
use sha2::{Digest, Sha256};
use std::sync::OnceLock;

/// `scheme://host:port` of a URL.
pub(crate) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}"))
}

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

/// A fingerprint without its URL's origin: what a replay against another origin must match.
pub(crate) fn without_origin(fp: &str) -> String {
    let (url, rest) = fp.split_once('\n').unwrap_or((fp, ""));
    let path = url
        .split_once("://")
        .and_then(|(_, r)| r.find('/').map(|i| &r[i..]))
        .unwrap_or("/");
    format!("{path}\n{rest}")
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

/// The structure of a snapshot: each line's role and name with volatile text normalized.
pub(crate) fn structure(snapshot: &str) -> String {
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

/// The fingerprint of a state and the node id derived from it.
pub(crate) fn fingerprint(url: &str, snapshot: &str) -> (String, String) {
    let fp = format!("{}\n{}", normalize_url(url), structure(snapshot));
    let hash = Sha256::digest(fp.as_bytes());
    let id: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    (fp, id)
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
        assert_eq!(
            without_origin("http://a:1/x\n- main\n"),
            without_origin("https://b/x\n- main\n")
        );
    }

    #[test]
    fn volatile_text_does_not_change_the_node() {
        let a = "- heading \"Visitor 123\" [level=1, ref=e1]\n- text \"2026-11-22T10:00:00Z\"";
        let b = "- heading \"Visitor 9\" [level=1, ref=e7]\n- text \"2025-01-01T00:00:00Z\"";
        assert_eq!(
            fingerprint("http://h/p?x=1", a).1,
            fingerprint("http://h/p?y=2", b).1
        );
        let c = "- heading \"Another page\" [level=1, ref=e1]";
        assert_ne!(
            fingerprint("http://h/p", a).1,
            fingerprint("http://h/p", c).1
        );
        assert_ne!(
            fingerprint("http://h/p", a).1,
            fingerprint("http://h/q", a).1
        );
    }
}
