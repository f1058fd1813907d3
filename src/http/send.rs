//! Sending one request and reading its response (the body up to a bound).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::redirect;
use crate::config::model::{RequestOptions, Scalar};
use crate::step::{ErrorKind, StepError};
use crate::template::json_size::{MAX_VALUES, more_values_than};

/// Most bytes of a response body read (and checked); the rest is left unread.
pub(super) const MAX_BODY: usize = 16 * 1024 * 1024;

/// A response as the checks and the outputs see it.
#[derive(Debug, Clone)]
pub(super) struct Response {
    pub(super) status: u16,
    /// The final URL (after any redirects followed).
    pub(super) url: String,
    /// Names in lower case; a header sent several times has its values joined by `, `.
    pub(super) headers: IndexMap<String, String>,
    pub(super) body: String,
    /// The body parsed as JSON, when it is JSON.
    pub(super) json: Option<serde_json::Value>,
    /// From sending the request to the end of its body.
    pub(super) duration_ms: u64,
    /// The body was longer than [`MAX_BODY`].
    pub(super) truncated: bool,
    /// The body holds more JSON values than runner parses (`json` is none).
    pub(super) too_many: bool,
}

/// The client: it follows no redirect itself (see [`redirect`]) and sends no `Referer`. Built
/// once, its connection pool shared by every flow.
fn client() -> Result<&'static reqwest::Client, StepError> {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    if let Some(c) = CLIENT.get() {
        return Ok(c);
    }
    let built = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .user_agent(concat!("runner/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| {
            StepError::new(
                ErrorKind::Environment,
                format!("cannot set up the HTTP client: {}", chain(&e)),
            )
        })?;
    Ok(CLIENT.get_or_init(|| built))
}

/// Sends the request, following redirects when asked (at most [`redirect::MAX_REDIRECTS`]);
/// waits at most `timeout` for the whole answer, redirects and all.
pub(super) async fn send(o: &RequestOptions, timeout: Duration) -> Result<Response, StepError> {
    let what = format!("{} {}", o.method, o.url);
    let start = Instant::now();
    let failed = |e: reqwest::Error| {
        if e.is_timeout() {
            StepError::new(
                ErrorKind::Timeout,
                format!(
                    "{what}: no response within {}",
                    humantime::format_duration(timeout)
                ),
            )
        } else {
            StepError::new(ErrorKind::CommandFailed, format!("{what}: {}", chain(&e)))
        }
    };
    let mut hop = first_hop(o)?;
    let mut redirects = 0;
    let mut resp = loop {
        let left = timeout.saturating_sub(start.elapsed());
        let resp = request(&hop, o, left)?.send().await.map_err(failed)?;
        let Some(next) = o
            .follow_redirects
            .then(|| redirect::next(&hop, resp.status(), resp.headers()))
            .flatten()
        else {
            break resp;
        };
        redirects += 1;
        if redirects > redirect::MAX_REDIRECTS {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "{what}: more than {} redirects (the last to {})",
                    redirect::MAX_REDIRECTS,
                    next.url
                ),
            ));
        }
        hop = next;
    };
    let status = resp.status().as_u16();
    let final_url = resp.url().to_string();
    let headers = read_headers(resp.headers());
    let mut bytes = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = resp.chunk().await.map_err(failed)? {
        let room = MAX_BODY - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        bytes.extend_from_slice(&chunk);
    }
    let duration_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let body = String::from_utf8_lossy(&bytes).into_owned();
    // A body of more values than runner parses is kept as text only (`too_many`).
    let too_many = more_values_than(&bytes, MAX_VALUES);
    let json = if bytes.is_empty() || too_many {
        None
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    Ok(Response {
        status,
        url: final_url,
        headers,
        body,
        json,
        duration_ms,
        truncated,
        too_many,
    })
}

/// The first request: the step's method, URL (its `query` added) and headers (with the JSON
/// body's type when the flow gives none).
fn first_hop(o: &RequestOptions) -> Result<redirect::Hop, StepError> {
    let method = reqwest::Method::from_bytes(o.method.as_bytes()).map_err(|_| {
        StepError::new(
            ErrorKind::CommandFailed,
            format!("`{}` is not an HTTP method", o.method),
        )
        .in_part("method")
    })?;
    let mut url = reqwest::Url::parse(&o.url).map_err(|e| {
        StepError::new(
            ErrorKind::CommandFailed,
            format!("`{}` is not a URL: {e}", o.url),
        )
        .in_part("url")
    })?;
    if !o.query.is_empty() {
        url.query_pairs_mut().extend_pairs(pairs(&o.query));
    }
    let mut headers = headers(&o.headers)?;
    if o.json.is_some() && !has_header(&o.headers, "content-type") {
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    Ok(redirect::Hop {
        method,
        url,
        headers,
        body: true,
    })
}

/// The request of one hop, its body the step's when it goes along.
fn request(
    hop: &redirect::Hop,
    o: &RequestOptions,
    timeout: Duration,
) -> Result<reqwest::RequestBuilder, StepError> {
    let mut rb = client()?
        .request(hop.method.clone(), hop.url.clone())
        .timeout(timeout)
        .headers(hop.headers.clone());
    if !hop.body {
        return Ok(rb);
    }
    if let Some(j) = &o.json {
        rb = rb.body(j.to_string());
    } else if let Some(f) = &o.form {
        rb = rb.form(&pairs(f));
    } else if let Some(b) = &o.body {
        rb = rb.body(b.clone());
    }
    Ok(rb)
}

/// The request's headers; a name or value HTTP does not allow is the step's error, at it.
fn headers(given: &IndexMap<String, String>) -> Result<HeaderMap, StepError> {
    let mut map = HeaderMap::new();
    for (k, v) in given {
        let at = format!("headers/{}", crate::source::pointer_escape(k));
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("`{k}` is not a header name"),
            )
            .in_part(at.clone())
        })?;
        let value = HeaderValue::from_str(v).map_err(|_| {
            // The value may hold a secret: the message does not quote it.
            StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "the value of header `{k}` holds characters a header cannot carry (a newline?)"
                ),
            )
            .in_part(at)
        })?;
        map.append(name, value);
    }
    Ok(map)
}

fn has_header(given: &IndexMap<String, String>, name: &str) -> bool {
    given.keys().any(|k| k.eq_ignore_ascii_case(name))
}

fn pairs(m: &IndexMap<String, Scalar>) -> Vec<(String, String)> {
    m.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
}

fn read_headers(h: &HeaderMap) -> IndexMap<String, String> {
    let mut out: IndexMap<String, String> = IndexMap::new();
    for (k, v) in h {
        let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
        out.entry(k.as_str().to_string())
            .and_modify(|s| {
                s.push_str(", ");
                s.push_str(&v);
            })
            .or_insert(v);
    }
    out
}

/// An error with its causes (`error sending request: connection refused`).
fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = s.source();
    }
    parts.join(": ")
}
