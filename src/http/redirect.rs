//! Following a redirect by hand, so what the flow set goes only where the flow sent it: reqwest
//! strips `Authorization` and `Cookie` on the way to another host, but keeps every other header
//! (`X-Api-Key: {{ secrets.T }}`) and adds a `Referer` holding the first URL (a secret in its
//! query and all). As curl's `--location` without `--location-trusted`, a redirect to another
//! origin (scheme, host or port) takes none of the flow's headers, from then on; none takes a
//! `Referer`. The method and body change as browsers and reqwest change them.

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use reqwest::{Method, StatusCode, Url};

/// Most redirects followed (reqwest's default).
pub(super) const MAX_REDIRECTS: usize = 10;

/// A request as the next hop sends it.
pub(super) struct Hop {
    pub(super) method: Method,
    pub(super) url: Url,
    /// The flow's headers (and the JSON body's type), or what is left of them.
    pub(super) headers: HeaderMap,
    /// Whether the body goes (a 303, or a 301 or 302 of a POST, is a GET without it).
    pub(super) body: bool,
}

/// Where a response sends `hop` next, if it is a redirect that can be followed: its
/// `Location` read against the URL it answered, not to a scheme other than http(s). `None`:
/// the response is the answer.
pub(super) fn next(hop: &Hop, status: StatusCode, headers: &HeaderMap) -> Option<Hop> {
    let code = status.as_u16();
    if !matches!(code, 301 | 302 | 303 | 307 | 308) {
        return None;
    }
    let location = headers.get(reqwest::header::LOCATION)?.to_str().ok()?;
    let url = hop.url.join(location).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let to_get = code == 303 && hop.method != Method::HEAD
        || matches!(code, 301 | 302) && hop.method == Method::POST;
    let (method, body) = if to_get {
        (Method::GET, false)
    } else {
        (hop.method.clone(), hop.body)
    };
    let mut kept = if url.origin() == hop.url.origin() {
        hop.headers.clone()
    } else {
        HeaderMap::new()
    };
    if !body {
        kept.remove(CONTENT_TYPE);
    } else if let Some(kind) = hop.headers.get(CONTENT_TYPE) {
        // What the body is goes with it: it says nothing of the sender.
        kept.insert(CONTENT_TYPE, kind.clone());
    }
    Some(Hop {
        method,
        url,
        headers: kept,
        body,
    })
}

#[cfg(test)]
mod tests {
    use reqwest::header::{HeaderMap, HeaderValue, LOCATION};
    use reqwest::{Method, StatusCode, Url};

    use super::{Hop, next};

    fn hop(method: Method, url: &str) -> Hop {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static("k"));
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        Hop {
            method,
            url: Url::parse(url).unwrap(),
            headers,
            body: true,
        }
    }

    fn to(code: u16, location: &str, from: &Hop) -> Option<Hop> {
        let mut h = HeaderMap::new();
        h.insert(LOCATION, HeaderValue::from_str(location).unwrap());
        next(from, StatusCode::from_u16(code).unwrap(), &h)
    }

    #[test]
    fn another_origin_gets_none_of_the_flows_headers() {
        let start = hop(Method::GET, "http://a.test:1/x?k=1");
        let same = to(302, "/y", &start).unwrap();
        assert_eq!(same.url.as_str(), "http://a.test:1/y");
        assert!(same.headers.contains_key("x-api-key"));
        for other in [
            "http://a.test:2/y",
            "https://a.test:1/y",
            "http://b.test:1/y",
        ] {
            let moved = to(302, other, &start).unwrap();
            let names: Vec<&str> = moved
                .headers
                .keys()
                .map(reqwest::header::HeaderName::as_str)
                .collect();
            assert_eq!(names, ["content-type"], "{other}: the body's type only");
            // And none from then on, back at the first origin too.
            let back = to(302, "http://a.test:1/z", &moved).unwrap();
            assert!(!back.headers.contains_key("x-api-key"), "{other}");
        }
    }

    #[test]
    fn methods_and_bodies_change_as_browsers_change_them() {
        let post = hop(Method::POST, "http://a.test/x");
        let kept = to(307, "http://b.test/y", &post).unwrap();
        assert_eq!((kept.method.clone(), kept.body), (Method::POST, true));
        assert_eq!(kept.headers.len(), 1, "the body's type only");
        assert!(kept.headers.contains_key("content-type"));
        for code in [301, 302, 303] {
            let got = to(code, "/y", &post).unwrap();
            assert_eq!((got.method, got.body), (Method::GET, false), "{code}");
            assert!(!got.headers.contains_key("content-type"), "{code}");
        }
        let put = hop(Method::PUT, "http://a.test/x");
        assert_eq!(to(302, "/y", &put).unwrap().method, Method::PUT);
        assert!(to(200, "/y", &post).is_none());
        assert!(to(302, "file:///etc/passwd", &post).is_none());
        assert!(to(304, "/y", &post).is_none());
    }
}
