//! The secrets a URL runner is given may carry: a remote browser's DevTools endpoint
//! (`browser.cdp`, `--browser-cdp`) often holds a token in its query (`?token=…`, Browserless)
//! or a password before its host (`wss://user:pass@host`). Runner shows such a URL with those
//! values as `***` ([`shown_url`]), and a flow's masker learns them ([`url_secrets`]) so that
//! they are masked wherever else they show (a message of agent-browser's naming the URL).

/// Where the parts of a URL that may hold a secret are: the password of its user info, the
/// query and the fragment (byte ranges of the URL, without their `:`, `?` or `#`).
struct Parts {
    password: Option<(usize, usize)>,
    query: Option<(usize, usize)>,
    fragment: Option<(usize, usize)>,
}

fn parts(url: &str) -> Parts {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let authority_end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    let password = url[after_scheme..authority_end].rfind('@').and_then(|at| {
        let info = &url[after_scheme..after_scheme + at];
        info.find(':')
            .map(|c| (after_scheme + c + 1, after_scheme + at))
    });
    let fragment_at = url[authority_end..].find('#').map(|i| authority_end + i);
    let query = url[authority_end..fragment_at.unwrap_or(url.len())]
        .find('?')
        .map(|i| (authority_end + i + 1, fragment_at.unwrap_or(url.len())));
    Parts {
        password,
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

/// The ranges of `url` that may hold a secret: the password, each value of the query and of
/// the fragment.
fn secret_ranges(url: &str) -> Vec<(usize, usize)> {
    let p = parts(url);
    let mut out: Vec<(usize, usize)> = p.password.into_iter().filter(|(a, b)| a < b).collect();
    for (a, b) in [p.query, p.fragment].into_iter().flatten() {
        out.extend(values(&url[a..b], a));
    }
    out
}

/// The values in `url` that may be secrets (its password, each value of its query and its
/// fragment), as written and percent-decoded.
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

/// `url` as runner shows it: its password and each value of its query and fragment `***`
/// (`ws://host:9222/devtools?token=***`, `wss://user:***@host`).
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
            // A user without a password, an `@` in the path: nothing to hide there.
            ("wss://user@host/a@b:c", "wss://user@host/a@b:c", vec![]),
            ("ws://u:@h?", "ws://u:@h?", vec![]),
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
