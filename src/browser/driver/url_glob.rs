//! The URL glob of `route` and of `expect: { request: { url } }`, one rule for both: `*` any
//! text within a path segment, `**` across segments; every other character is the URL's own
//! (`[`, `]`, `{`, `}` and `?` too: `filter[name]=x`, a query's `?`). A glob without a `?` of
//! its own is matched against the URL without its query and fragment, as `wait: { url }` reads
//! a URL (`url_has`): `**/api/orders/*` is `/api/orders/1?next=/home`, whose query's `/` would
//! otherwise stop the `*`. A glob with a `?` (it is written for the query) matches the whole URL.
//! A glob is written as a person reads a URL: the characters the browser percent-encodes in the
//! URLs it requests (a space, a non-ASCII letter, `"`, `<`, `>`; in the path `^`, a backtick,
//! `{`, `|`, `}`; in the query `'`: see [`as_requested`]) are encoded so (UTF-8, `%20`) before
//! matching: `**/files/my report.pdf` is `/files/my%20report.pdf`, `**/café` is `/caf%C3%A9`,
//! `?q=it's` is `?q=it%27s` (attack 31, G10, review 28, #4: such a glob matched nothing, so
//! `count: 0` held and the route never stubbed). A host with a non-ASCII letter is refused: the
//! browser requests its punycode form.

/// A compiled URL glob.
pub(crate) struct UrlGlob {
    matcher: globset::GlobMatcher,
    whole: bool,
}

impl UrlGlob {
    /// The glob `glob` as above; Err (why) when globset refuses it.
    pub(crate) fn new(glob: &str) -> Result<Self, String> {
        if let Some(why) = crate::config::url_host::host_problem(glob) {
            return Err(why);
        }
        let glob = &as_requested(glob);
        let mut text = String::with_capacity(glob.len() + 8);
        for c in glob.chars() {
            match c {
                '[' | ']' | '{' | '}' | '?' => {
                    text.push('[');
                    text.push(c);
                    text.push(']');
                }
                _ => text.push(c),
            }
        }
        let matcher = globset::GlobBuilder::new(&text)
            .literal_separator(true)
            .build()
            .map_err(|e| e.to_string())?
            .compile_matcher();
        Ok(Self {
            matcher,
            whole: glob.contains('?'),
        })
    }

    /// Whether `url` matches.
    pub(crate) fn is_match(&self, url: &str) -> bool {
        if self.whole {
            return self.matcher.is_match(url);
        }
        let end = url.find(['?', '#']).unwrap_or(url.len());
        self.matcher.is_match(&url[..end])
    }
}

/// The Fetch domain's `urlPattern` (`*` any text, `?` one character) that takes in at least
/// every URL `glob` matches: a glob without a `?` matches a URL whatever its query.
pub(crate) fn browser_pattern(glob: &str) -> String {
    let glob = &as_requested(glob);
    let pattern = glob.replace("**", "*");
    if glob.contains('?') || pattern.ends_with('*') {
        pattern
    } else {
        format!("{pattern}*")
    }
}

/// `glob` with the characters a browser percent-encodes in the URLs it requests encoded so, as
/// Chromium's URL parser does, part by part (seen with `new URL()` in the browser): in the path
/// a space, `"`, `<`, `>`, `^`, a backtick, `{`, `|` and `}`; in the query (after the first `?`)
/// a space, `"`, `'`, `<` and `>`; in the fragment (after `#`) a space, `"`, `<`, `>` and a
/// backtick; everywhere a control character and every non-ASCII character, as its UTF-8 bytes.
fn as_requested(glob: &str) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum Part {
        Path,
        Query,
        Fragment,
    }
    let mut part = Part::Path;
    let mut out = String::with_capacity(glob.len());
    for c in glob.chars() {
        match c {
            '?' if part == Part::Path => part = Part::Query,
            '#' if part != Part::Fragment => part = Part::Fragment,
            _ => {}
        }
        let encoded = !c.is_ascii()
            || c.is_ascii_control()
            || matches!(c, ' ' | '"' | '<' | '>')
            || match part {
                Part::Path => matches!(c, '^' | '`' | '{' | '|' | '}'),
                Part::Query => c == '\'',
                Part::Fragment => c == '`',
            };
        if !encoded {
            out.push(c);
            continue;
        }
        let mut buf = [0u8; 4];
        for b in c.encode_utf8(&mut buf).bytes() {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{UrlGlob, browser_pattern};

    #[test]
    fn a_glob_is_read_as_the_browser_requests_its_url() {
        assert!(matches(
            "**/files/my report.pdf",
            "http://h/files/my%20report.pdf"
        ));
        assert!(matches("**/café/menu", "http://h/caf%C3%A9/menu"));
        assert!(matches(
            "**/search?q=hello world&x=[1]",
            "http://h/search?q=hello%20world&x=[1]"
        ));
        assert!(matches(
            "**/files/my%20report.pdf",
            "http://h/files/my%20report.pdf"
        ));
        assert!(!matches("**/café/menu", "http://h/cafe/menu"));
        assert_eq!(browser_pattern("**/café"), "*/caf%C3%A9*");
        // Part by part, as Chromium's `new URL()` encodes (review 28, #4).
        assert!(matches(
            "**/api/search?q=it's",
            "http://h/api/search?q=it%27s"
        ));
        assert!(matches(
            "**/api/pipe|caret^x",
            "http://h/api/pipe%7Ccaret%5Ex"
        ));
        assert!(matches("**/api/brace{x}", "http://h/api/brace%7Bx%7D"));
        assert!(matches("**/it's/a`b", "http://h/it's/a%60b"));
        assert!(matches("**/a?q={|}^`", "http://h/a?q={|}^`"));
        assert!(matches("**/a?q=1#x `'", "http://h/a?q=1#x%20%60'"));
        assert!(UrlGlob::new("http://café.example/**").is_err());
        assert!(UrlGlob::new("http://xn--caf-dma.example/**").is_ok());
    }

    fn matches(glob: &str, url: &str) -> bool {
        UrlGlob::new(glob).unwrap().is_match(url)
    }

    #[test]
    fn a_star_stays_in_a_path_segment_and_a_query_does_not_stop_it() {
        let g = "**/api/orders/*";
        assert!(matches(g, "http://h:1/api/orders/1?next=/home"));
        assert!(matches(g, "http://h:1/api/orders/1#/a/b"));
        assert!(matches(g, "http://h:1/api/orders/1"));
        assert!(!matches(g, "http://h:1/api/orders/1/lines"));
        assert!(!matches(g, "http://h:1/api/orders"));
        assert!(matches("**/api/orders", "http://h:1/api/orders?page=2"));
        assert!(!matches("*/api/wide*", "http://h:1/api/wide"));
        assert!(matches(
            "http://127.0.0.1:*/api/users/*",
            "http://127.0.0.1:80/api/users/7"
        ));
    }

    #[test]
    fn brackets_braces_and_question_marks_are_the_urls_own() {
        let g = "**/api/items?filter[name]=x";
        assert!(matches(g, "http://h/api/items?filter[name]=x"));
        assert!(!matches(g, "http://h/api/items?filtern=x"));
        assert!(!matches(g, "http://h/api/itemsXfilter[name]=x"));
        assert!(!matches(g, "http://h/api/items?filter[name]=x&y=1"));
        assert!(matches(
            "**/api/items?*",
            "http://h/api/items?filter[name]=x&y=1"
        ));
        // The browser requests a path's braces encoded.
        assert!(matches("**/t/{a,b}", "http://h/t/%7Ba,b%7D"));
        assert!(!matches("**/t/{a,b}", "http://h/t/a"));
        assert!(matches("**/t/[]/x", "http://h/t/[]/x"));
        assert!(matches("**/t/]/x", "http://h/t/]/x"));
    }

    #[test]
    fn the_browsers_pattern_takes_in_what_the_glob_matches() {
        assert_eq!(browser_pattern("**/api/orders"), "*/api/orders*");
        assert_eq!(browser_pattern("**/api/orders/*"), "*/api/orders/*");
        assert_eq!(browser_pattern("**/a?b=[1]"), "*/a?b=[1]");
    }
}
