//! Where a base URL (`--base-url`, or the server an atlas was recorded on) puts an atlas's
//! recorded URLs: the root's origin is replaced, and with it the path the app is served under
//! when the base is at that path too — so an app explored at `http://host:port/app/` is
//! replayed and exported at `<base>/index.html`, not `<base>/app/index.html` under a base that
//! is the server's URL `http://host:port/app/`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::fingerprint::origin;
use super::store::{Atlas, AtlasError};
use crate::template::is_template;

/// What a base takes the place of in the recorded URLs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mount {
    /// The root's `scheme://host:port` and, when the app is under the base's path there, that
    /// path (`http://127.0.0.1:8000/app`).
    pub(crate) recorded: String,
    /// The path part of `recorded` (`/app`), or empty.
    pub(crate) under: String,
    /// What `recorded` becomes (no `/` at its end, or a template that renders without one).
    pub(crate) base: String,
    /// Where a URL on the root's origin outside `under` goes (`/static/x`): the base's origin,
    /// when the base is a whole URL at a path (else it stays as recorded, or `base` takes it).
    elsewhere: Option<(String, String)>,
}

impl Mount {
    /// Where `base` puts the URLs of an atlas whose root was recorded at `root_url`. A base
    /// that is a template renders to a server's URL: its path is the one the atlas's server had
    /// when it was recorded (`atlas.json`'s `server_url`); a whole URL's is its own.
    pub(crate) fn of(atlas: &Atlas, root_url: &str, base: &str) -> Result<Mount, AtlasError> {
        let recorded = origin(root_url).unwrap_or_default();
        let (path, base) = if is_template(base) {
            let path = atlas.server_path()?;
            let base = if path.is_empty() {
                base.to_string()
            } else {
                without_end_slash(base)
            };
            (path, base)
        } else {
            (
                path_of(base).to_string(),
                base.trim_end_matches('/').to_string(),
            )
        };
        let path = path.trim_end_matches('/');
        let root = path_of(root_url);
        let under = if !path.is_empty() && (root == path || root.starts_with(&format!("{path}/"))) {
            path.to_string()
        } else {
            String::new()
        };
        let elsewhere = (!under.is_empty() && !is_template(&base))
            .then(|| origin(&base).map(|to| (recorded.clone(), to)))
            .flatten();
        Ok(Mount {
            recorded: format!("{recorded}{under}"),
            under,
            base,
            elsewhere,
        })
    }

    /// `value` with the recorded place replaced by the base wherever a URL starts with it (and
    /// is not a longer name: `http://h:80/app` is not in `http://h:80/apple`).
    pub(crate) fn rebase(&self, value: &Value, what: &str) -> Result<Value, AtlasError> {
        let text = serde_json::to_string(value).unwrap_or_default();
        let mut text = replace_at(&text, &self.recorded, &self.base, what)?;
        if let Some((from, to)) = &self.elsewhere {
            text = replace_at(&text, from, to, what)?;
        }
        serde_json::from_str(&text).map_err(|e| broken(what, &e.to_string()))
    }
}

/// `text` (JSON) with each URL that starts with `from` made to start with `to` instead.
fn replace_at(text: &str, from: &str, to: &str, what: &str) -> Result<String, AtlasError> {
    let at = Regex::new(&format!(r#"{}([/?#"\\]|$)"#, regex::escape(from)))
        .map_err(|e| broken(what, &e.to_string()))?;
    let to = to.replace('$', "$$");
    Ok(at
        .replace_all(text, format!("{to}${{1}}").as_str())
        .into_owned())
}

fn broken(what: &str, message: &str) -> AtlasError {
    AtlasError::Broken {
        path: what.into(),
        message: message.into(),
    }
}

/// The path of a URL (`/app/`), without its query or fragment; empty for an origin.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    path.split(['?', '#']).next().unwrap_or_default()
}

/// A template that renders without a `/` at its end: `{{ web_server.app.url }}` (a server's
/// URL that had a path, `http://host:port/app/`) becomes `{{ web_server.app.url | trim('/') }}`.
fn without_end_slash(template: &str) -> String {
    static WHOLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\{\{\s*(.*?)\s*\}\}$").expect("a valid regex"));
    match WHOLE.captures(template.trim_end_matches('/')) {
        Some(c) => format!("{{{{ {} | trim('/') }}}}", &c[1]),
        None => template.trim_end_matches('/').to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn atlas_on(dir: &std::path::Path, server_url: Option<&str>) -> Atlas {
        let a = Atlas::open(dir).unwrap();
        if let Some(url) = server_url {
            a.settle_server("app", Some(url), None).unwrap();
        }
        a
    }

    #[test]
    fn a_base_at_the_apps_path_takes_the_place_of_the_origin_and_that_path() {
        let d = tempfile::tempdir().unwrap();
        let plain = atlas_on(&d.path().join("plain"), None);
        let root = "http://127.0.0.1:8000/app/index.html";
        let steps = json!([{"open": root}, {"open": "http://127.0.0.1:8000/apple/x"}]);
        // A whole URL at the app's path: the path once.
        let m = Mount::of(&plain, root, "http://127.0.0.1:9000/app/").unwrap();
        assert_eq!(m.under, "/app");
        assert_eq!(
            m.rebase(&steps, "n").unwrap(),
            json!([{"open": "http://127.0.0.1:9000/app/index.html"}, {"open": "http://127.0.0.1:9000/apple/x"}])
        );
        // An origin: the origin only (the path stays as recorded).
        let m = Mount::of(&plain, root, "http://127.0.0.1:9000").unwrap();
        assert_eq!(m.under, "");
        assert_eq!(
            m.rebase(&json!({"open": root}), "n").unwrap(),
            json!({"open": "http://127.0.0.1:9000/app/index.html"})
        );
        // A path the app is not under: the app is put under it.
        let m = Mount::of(&plain, "http://127.0.0.1:8000/index.html", "http://h/v2").unwrap();
        assert_eq!(
            m.rebase(&json!({"open": "http://127.0.0.1:8000/index.html"}), "n")
                .unwrap(),
            json!({"open": "http://h/v2/index.html"})
        );
        // A server's URL template: its path is the recorded server's.
        let on_app = atlas_on(&d.path().join("app"), Some("http://127.0.0.1:8000/app/"));
        let m = Mount::of(&on_app, root, "{{ web_server.app.url }}").unwrap();
        assert_eq!(m.base, "{{ web_server.app.url | trim('/') }}");
        assert_eq!(
            m.rebase(&json!({"open": root}), "n").unwrap(),
            json!({"open": "{{ web_server.app.url | trim('/') }}/index.html"})
        );
        // A server at its root: the template as it is.
        let at_root = atlas_on(&d.path().join("root"), Some("http://127.0.0.1:8000"));
        let m = Mount::of(
            &at_root,
            "http://127.0.0.1:8000/",
            "{{ web_server.app.url }}",
        )
        .unwrap();
        assert_eq!(m.base, "{{ web_server.app.url }}");
        assert_eq!(m.recorded, "http://127.0.0.1:8000");
    }
}
