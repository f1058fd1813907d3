//! The secrets a URL runner is given may carry: a remote browser's DevTools endpoint
//! (`browser.cdp`, `--browser-cdp`) often holds a token in its query (`?token=…`, Browserless),
//! a password before its host (`wss://user:pass@host`), a token as the user alone
//! (`wss://<token>@host`), or a token in its path (`ws://host/<token>/devtools`,
//! `/devtools;token=…`). Runner shows such a URL with those values as `***` ([`shown_url`]),
//! and a flow's masker learns them ([`url_secrets`]) so that they are masked wherever else they
//! show (a message of agent-browser's naming the URL).
//!
//! A path segment is taken for a token when it looks like one ([`token_like`]: 8 characters
//! or more with a digit, or 20 or more), not when it is a word of an endpoint's path
//! (`devtools`, `browser`, `chromium`, `playwright`): hiding every segment would hide where a
//! URL points, and learning words as secrets would mask them in every message.

/// Where the parts of a URL that may hold a secret are: the user info (its password, or the
/// user alone when it has no password), the path, the query and the fragment (byte ranges of
/// the URL, without their `@`, `:`, `?` or `#`).
struct Parts {
    user: Option<(usize, usize)>,
    path: (usize, usize),
    query: Option<(usize, usize)>,
    fragment: Option<(usize, usize)>,
}

fn parts(url: &str) -> Parts {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    let user = url[after_scheme..authority_end].rfind('@').map(|at| {
        let info = &url[after_scheme..after_scheme + at];
        info.find(':')
            .map_or((after_scheme, after_scheme + at), |c| {
                (after_scheme + c + 1, after_scheme + at)
            })
    });
    let fragment_at = url[authority_end..].find('#').map(|i| authority_end + i);
    let query_at = url[authority_end..fragment_at.unwrap_or(url.len())]
        .find('?')
        .map(|i| authority_end + i);
    let query = query_at.map(|q| (q + 1, fragment_at.unwrap_or(url.len())));
    Parts {
        user,
        path: (authority_end, query_at.or(fragment_at).unwrap_or(url.len())),
        query,
        fragment: fragment_at.map(|f| (f + 1, url.len())),
    }
}

/// The values of `key=value` pairs (`&` or `;` between them; a pair without `=` is a value),
/// as byte ranges of `text` starting at `offset`.
fn values(text: &str, offset: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for pair in text.split(['&', ';']) {
        let start = pair.find('=').map_or(0, |i| i + 1);
        if start < pair.len() {
            out.push((offset + at + start, offset + at + pair.len()));
        }
        at += pair.len() + 1;
    }
    out
}

/// Whether a path segment looks like a token: 8 characters or more with a digit, or 20 or more.
fn token_like(segment: &str) -> bool {
    let n = segment.chars().count();
    n >= 20 || (n >= 8 && segment.chars().any(|c| c.is_ascii_digit()))
}

/// The ranges of the path `path` (at `offset` of its URL) that may hold a secret: each segment
/// that looks like a token, each value of a segment's parameters (`;token=…`).
fn path_ranges(path: &str, offset: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = offset;
    for segment in path.split('/') {
        let (name, params) = segment.split_once(';').unwrap_or((segment, ""));
        if token_like(name) {
            out.push((at, at + name.len()));
        }
        if segment.len() > name.len() {
            out.extend(values(params, at + name.len() + 1));
        }
        at += segment.len() + 1;
    }
    out
}

/// The ranges of `url` that may hold a secret, in order: the password (or a lone user), the
/// path's tokens, each value of the query and of the fragment.
fn secret_ranges(url: &str) -> Vec<(usize, usize)> {
    let p = parts(url);
    let mut out: Vec<(usize, usize)> = p.user.into_iter().filter(|(a, b)| a < b).collect();
    out.extend(path_ranges(&url[p.path.0..p.path.1], p.path.0));
    for (a, b) in [p.query, p.fragment].into_iter().flatten() {
        out.extend(values(&url[a..b], a));
    }
    out
}

/// The values in `url` that may be secrets (its password or lone user, its path's tokens, each
/// value of its query and its fragment), as written and percent-decoded.
pub(crate) fn url_secrets(url: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (a, b) in secret_ranges(url) {
        let raw = &url[a..b];
        let decoded = percent_encoding::percent_decode_str(&raw.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned();
        out.push(raw.to_string());
        if decoded != raw {
            out.push(decoded);
        }
    }
    out
}

/// `url` as runner shows it: its password (or lone user), its path's tokens and each value of
/// its query and fragment `***` (`ws://host:9222/devtools?token=***`, `wss://user:***@host`,
/// `wss://***@host`, `ws://host/***/devtools`).
pub(crate) fn shown_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    let mut at = 0;
    for (a, b) in secret_ranges(url) {
        out.push_str(&url[at..a]);
        out.push_str("***");
        at = b;
    }
    out.push_str(&url[at..]);
    out
}

/// `text` (a message about the browser at `url`) with `url` as [`shown_url`] shows it, and its
/// secrets masked elsewhere in it (those of 4 characters or more, as values made of a secret).
pub(crate) fn hide_url_secrets(url: &str, text: &str) -> String {
    let m = super::Masker::default();
    m.add_derived(url_secrets(url));
    m.mask(&text.replace(url, &shown_url(url)))
}

#[cfg(test)]
mod tests {
    use super::{hide_url_secrets, shown_url, url_secrets};

    #[test]
    fn passwords_and_query_values_are_the_secrets_of_a_url() {
        for (url, shown, secrets) in [
            ("http://127.0.0.1:9222", "http://127.0.0.1:9222", vec![]),
            (
                "ws://h:9222/devtools/browser/ab?token=s3%2Fc&v=1#k=f;x",
                "ws://h:9222/devtools/browser/ab?token=***&v=***#k=***;***",
                vec!["s3%2Fc", "s3/c", "1", "f", "x"],
            ),
            (
                "wss://user:p%40ss@host/x?flag&t=",
                "wss://user:***@host/x?***&t=",
                vec!["p%40ss", "p@ss", "flag"],
            ),
            // A user without a password is a token (`https://<token>@host`): hidden whole. An
            // `@` in the path is no user.
            (
                "wss://user@host/a@b:c",
                "wss://***@host/a@b:c",
                vec!["user"],
            ),
            (
                "ws://sktokenuser12345@127.0.0.1:9/devtools/browser/x",
                "ws://***@127.0.0.1:9/devtools/browser/x",
                vec!["sktokenuser12345"],
            ),
            ("ws://u:@h?", "ws://u:@h?", vec![]),
            // A path segment that looks like a token (8 characters or more with a digit, or 20
            // or more) and each value of a path parameter (`;token=`) are hidden; the words
            // of an endpoint's path are not.
            (
                "ws://127.0.0.1:9/s3cr3tpathtoken9876/devtools",
                "ws://127.0.0.1:9/***/devtools",
                vec!["s3cr3tpathtoken9876"],
            ),
            (
                "ws://127.0.0.1:9/devtools;token=semicolontok55",
                "ws://127.0.0.1:9/devtools;token=***",
                vec!["semicolontok55"],
            ),
            (
                "wss://chrome.browserless.io/chromium/playwright?token=x",
                "wss://chrome.browserless.io/chromium/playwright?token=***",
                vec!["x"],
            ),
            (
                "ws://h:9222/devtools/browser/5c1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8",
                "ws://h:9222/devtools/browser/***",
                vec!["5c1a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8"],
            ),
        ] {
            assert_eq!(shown_url(url), shown, "{url}");
            assert_eq!(url_secrets(url), secrets, "{url}");
        }
        let url = "ws://h:1/?token=T0ken-5521&v=1";
        assert_eq!(
            hide_url_secrets(url, &format!("at {url}: no T0ken-5521 at h:1")),
            "at ws://h:1/?token=***&v=***: no *** at h:1"
        );
    }
}
