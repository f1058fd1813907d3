//! A state's route: its URL with the data taken out — the ids in its path as `:id`, its
//! query's values as `*` — so `/db/books/42?q=dune` and `/db/books/7?q=emma` are one route,
//! `/db/books/:id?q=*`.

use super::normalize::normalize_url;

/// The route of a URL: its origin (any local one as `localhost`, as the node ids take it) and
/// path with ids as `:id`, then its query's keys (sorted, each once, those with an empty value
/// left out) with `*` for their values; no fragment.
pub(crate) fn route(url: &str) -> String {
    let no_fragment = url.split('#').next().unwrap_or("");
    let query = no_fragment.split_once('?').map_or("", |(_, q)| q);
    let base = normalize_url(no_fragment);
    // The path starts after the origin's `//host`.
    let path_at = base
        .find("://")
        .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        .unwrap_or(base.len());
    let (origin, path) = base.split_at(path_at);
    let path: Vec<String> = path.split('/').map(generalized).collect();
    let mut keys: Vec<&str> = query
        .split('&')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (!k.is_empty() && !v.is_empty()).then_some(k)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let mut out = format!("{origin}{}", path.join("/"));
    if !keys.is_empty() {
        let q: Vec<String> = keys.iter().map(|k| format!("{k}=*")).collect();
        out.push('?');
        out.push_str(&q.join("&"));
    }
    out
}

/// A route without its origin (`/books/:id?q=*`).
pub(crate) fn path_of(route: &str) -> &str {
    route
        .split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or(route)
}

/// Whether a route names a record (a path segment was an id): the page of one row, whose
/// headings hold its data.
pub(crate) fn names_a_record(route: &str) -> bool {
    path_of(route)
        .split(['?', '/'])
        .any(|s| s == ":id" || s.starts_with(":id."))
}

/// A path segment, or `:id` when it is one (keeping an extension: `42.json` -> `:id.json`).
fn generalized(seg: &str) -> String {
    if is_id(seg) {
        return ":id".to_string();
    }
    match seg.rsplit_once('.') {
        Some((stem, ext))
            if is_id(stem) && !ext.is_empty() && ext.chars().all(|c| c.is_ascii_alphabetic()) =>
        {
            format!(":id.{ext}")
        }
        _ => seg.to_string(),
    }
}

/// Whether a path segment is an id: a number or what is made of digits and separators (a date,
/// a compound key `3,7`), a UUID or a hex hash, a number that starts a slug (`42-moby-dick`),
/// or a long token of letters and digits (`5f1d7a9c0b3e4d2a`, base62 ids).
pub(crate) fn is_id(seg: &str) -> bool {
    let digits = seg.chars().filter(char::is_ascii_digit).count();
    if seg.is_empty() || digits == 0 {
        return false;
    }
    let numeric = seg
        .chars()
        .all(|c| c.is_ascii_digit() || ",-_.~:".contains(c));
    let hex = seg.len() >= 8 && seg.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    let slugged = seg
        .split_once('-')
        .is_some_and(|(n, rest)| !rest.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let token = seg.len() >= 16
        && seg.chars().any(|c| c.is_ascii_alphabetic())
        && seg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    numeric || hex || slugged || token
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_query_values_are_generalised() {
        assert_eq!(
            route("http://127.0.0.1:8001/db/table/42?q=dune&_sort=id#top"),
            "http://localhost/db/table/:id?_sort=*&q=*"
        );
        assert_eq!(
            route("http://localhost:9/db/table/7?q=emma&_sort=title"),
            route("http://127.0.0.1:8001/db/table/42?_sort=id&q=dune")
        );
        for (url, want) in [
            ("http://h/a/2024-01-05/x", "http://h/a/:id/x"),
            ("http://h/rows/3,7", "http://h/rows/:id"),
            (
                "http://h/u/550e8400-e29b-41d4-a716-446655440000",
                "http://h/u/:id",
            ),
            ("http://h/c/5f1d7a9c0b3e4d2a9f1c", "http://h/c/:id"),
            (
                "http://h/posts/42-moby-dick/edit",
                "http://h/posts/:id/edit",
            ),
            ("http://h/books/42.json", "http://h/books/:id.json"),
            // Words stay: names of tables and pages, versions, a short token.
            (
                "http://h/v2/books/index.html",
                "http://h/v2/books/index.html",
            ),
            ("http://h/library/books", "http://h/library/books"),
            ("http://h/", "http://h/"),
            // An empty value is no parameter; a key given twice is one.
            ("http://h/books?q=&page=2&page=3", "http://h/books?page=*"),
        ] {
            assert_eq!(route(url), want, "{url}");
        }
    }

    #[test]
    fn record_routes_are_told() {
        assert!(names_a_record("http://h/books/:id"));
        assert!(names_a_record("http://h/books/:id/edit"));
        assert!(names_a_record("http://h/books/:id.json"));
        assert!(!names_a_record("http://h/books?id=*"));
        assert!(!names_a_record("http://h/books"));
        assert_eq!(path_of("http://h/books/:id?q=*"), "/books/:id?q=*");
        assert_eq!(path_of("/x"), "/x");
    }
}
