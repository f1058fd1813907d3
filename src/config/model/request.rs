//! The `request` step: an HTTP request and the checks on its response, in the manner of Hurl's
//! asserts (a query — the status, a header, a JSONPath, the body, the duration — and
//! predicates on what it finds).

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::value::Scalar;

/// `request`: a URL (a GET), or the whole request.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum RequestAction {
    Url(String),
    Full(Box<RequestOptions>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestOptions {
    #[serde(default = "get")]
    pub(crate) method: String,
    pub(crate) url: String,
    #[serde(default)]
    pub(crate) headers: IndexMap<String, String>,
    #[serde(default)]
    pub(crate) query: IndexMap<String, Scalar>,
    /// A JSON body (sent with `Content-Type: application/json`).
    pub(crate) json: Option<Value>,
    /// A form body (`application/x-www-form-urlencoded`).
    pub(crate) form: Option<IndexMap<String, Scalar>>,
    /// A body as it is.
    pub(crate) body: Option<String>,
    /// Follow redirects (default true, as a browser and Playwright's `request` do; Hurl does
    /// not without `--location`).
    #[serde(default = "yes")]
    pub(crate) follow_redirects: bool,
    #[serde(default)]
    pub(crate) expect: Option<ResponseChecks>,
}

fn get() -> String {
    "GET".into()
}

fn yes() -> bool {
    true
}

/// The checks on a response; each key a query, its value the predicates on what it finds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResponseChecks {
    pub(crate) status: Option<Check>,
    /// By header name (any case).
    #[serde(default)]
    pub(crate) headers: IndexMap<String, Check>,
    /// By JSONPath (`$.items[0].name`), on the body parsed as JSON.
    #[serde(default)]
    pub(crate) json: IndexMap<String, Check>,
    pub(crate) body: Option<Check>,
    pub(crate) duration_ms: Option<Check>,
}

/// What a query's value must be: predicates, or a plain value it equals.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Check {
    Predicates(Box<Predicates>),
    Equals(Value),
}

/// Every predicate given must hold.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Predicates {
    // `equals: null` compares with null: it is not a check left out.
    #[serde(default, deserialize_with = "present")]
    pub(crate) equals: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) not_equals: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub(crate) contains: Option<Value>,
    pub(crate) matches: Option<String>,
    pub(crate) exists: Option<bool>,
    pub(crate) count: Option<u64>,
    /// Numbers as written (a 64-bit integer stays exact: see `http::check`).
    pub(crate) min: Option<serde_json::Number>,
    pub(crate) max: Option<serde_json::Number>,
}

/// A key that is there, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Check {
    /// The predicates, a plain value read as `equals`.
    pub(crate) fn predicates(&self) -> Predicates {
        match self {
            Check::Predicates(p) => (**p).clone(),
            Check::Equals(v) => Predicates {
                equals: Some(v.clone()),
                ..Predicates::default()
            },
        }
    }
}

impl RequestAction {
    /// The whole request, whichever way it was written.
    pub(crate) fn options(self) -> RequestOptions {
        match self {
            RequestAction::Url(url) => RequestOptions {
                method: get(),
                url,
                headers: IndexMap::new(),
                query: IndexMap::new(),
                json: None,
                form: None,
                body: None,
                follow_redirects: true,
                expect: None,
            },
            RequestAction::Full(o) => *o,
        }
    }
}

/// Whether a JSONPath can select more than one node (RFC 9535: it is not a singular query).
pub(crate) fn selects_many(text: &str) -> bool {
    let mut in_quotes: Option<char> = None;
    let mut depth = 0;
    let mut prev = ' ';
    for c in text.chars() {
        match (in_quotes, c) {
            (Some(q), c) if c == q && prev != '\\' => in_quotes = None,
            (None, '\'' | '"') => in_quotes = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => depth -= 1,
            (None, '*' | '?') => return true,
            (None, '.') if prev == '.' => return true,
            (None, ':' | ',') if depth > 0 => return true,
            // Inside quotes, and any other character.
            _ => {}
        }
        prev = c;
    }
    false
}

/// What to write instead of `equals`/`not_equals` of one value on a path that selects several.
pub(crate) const MANY_HELP: &str = "to check every node, filter and count \
    (`\"$.items[?@.qty == 0]\": { count: 0 }`), or compare with a list (`equals: [7, 3]`)";
