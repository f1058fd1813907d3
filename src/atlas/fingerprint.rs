//! State fingerprints, so the same screen reached twice is one node and a different screen
//! another. An atlas takes one of two (its `atlas.json`): its states' structure (the route and
//! the page's landmarks, headings, forms and controls, data left out: see `identity`), or their
//! text — the normalized URL plus every line of the accessibility snapshot, volatile text
//! (numbers, dates, ids) normalized.

use sha2::{Digest, Sha256};

use super::identity::{normalize_url, text_lines};
pub(crate) use crate::config::project::Fingerprint;

/// `scheme://host:port` of a URL.
pub(crate) fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}"))
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

/// The fingerprint of a state, as `mode` takes it, and the node id derived from it.
pub(crate) fn fingerprint(mode: Fingerprint, url: &str, snapshot: &str) -> (String, String) {
    let fp = match mode {
        Fingerprint::Text => format!("{}\n{}", normalize_url(url), text_lines(snapshot)),
        Fingerprint::Structure => super::identity::structure(url, snapshot).fingerprint(),
    };
    let hash = Sha256::digest(fp.as_bytes());
    let id: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    (fp, id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_left_out_of_what_a_replay_compares() {
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
            fingerprint(Fingerprint::Text, "http://h/p?x=1", a).1,
            fingerprint(Fingerprint::Text, "http://h/p?y=2", b).1
        );
        let c = "- heading \"Another page\" [level=1, ref=e1]";
        assert_ne!(
            fingerprint(Fingerprint::Text, "http://h/p", a).1,
            fingerprint(Fingerprint::Text, "http://h/p", c).1
        );
        assert_ne!(
            fingerprint(Fingerprint::Text, "http://h/p", a).1,
            fingerprint(Fingerprint::Text, "http://h/q", a).1
        );
    }
}
