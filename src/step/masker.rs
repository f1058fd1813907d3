//! Masking secret values in everything that leaves the engine: one masker per flow run (its
//! sub-flows add theirs to it), seeded with each secret, each line of a multi-line secret, and
//! their encoded forms (JSON-escaped, percent- and form-encoded, base64); values derived from a
//! secret by a template are added as they are rendered (GitHub Actions' `add-mask`: what is made
//! of a secret is a secret). Every match is replaced, overlapping ones together, longest first.
//!
//! Base64 is the one encoding that does not encode a value character by character, so the
//! base64 of a text that holds a secret (`user:<password>` for HTTP Basic, built by a command or
//! a page) need not hold the secret's own base64: each value is masked also as the characters
//! that only its bytes decide at each of the three offsets it can have in a 3-byte group. The
//! other encodings of such a text hold the secret's encoding as it is, already masked.

use std::sync::{Arc, RwLock};

use aho_corasick::AhoCorasick;
use base64::Engine;
use serde_json::Value;

/// The shortest text masked that is not a secret itself (a secret is masked whatever its
/// length): a line of a multi-line secret (a `-----` or an empty line would blank out
/// everything), a value derived from a secret (`{{ secrets.T | length }}`, a slice of two
/// characters), the part of a base64 text a secret's bytes decide.
pub(crate) const MIN_PART: usize = 4;

/// Replaces every secret value, and its forms, with `***`. Clones share their values: what one
/// learns (a sub-flow's secret, a derived value), all mask.
#[derive(Debug, Clone, Default)]
pub(crate) struct Masker {
    inner: Arc<RwLock<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    values: Vec<String>,
    matcher: Option<AhoCorasick>,
}

/// The characters each common URL encoder escapes: everything but letters and digits; RFC 3986's
/// unreserved set kept (Go, Python's `quote_plus`, Rust's `url` forms); WHATWG forms
/// (`URLSearchParams`, HTML form submission); `encodeURIComponent`; `encodeURI`.
const URL_SETS: [&percent_encoding::AsciiSet; 5] = {
    use percent_encoding::NON_ALPHANUMERIC as N;
    const UNRESERVED: percent_encoding::AsciiSet =
        N.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    const FORM: percent_encoding::AsciiSet = N.remove(b'*').remove(b'-').remove(b'.').remove(b'_');
    const COMPONENT: percent_encoding::AsciiSet = UNRESERVED
        .remove(b'!')
        .remove(b'*')
        .remove(b'\'')
        .remove(b'(')
        .remove(b')');
    const URI: percent_encoding::AsciiSet = COMPONENT
        .remove(b';')
        .remove(b',')
        .remove(b'/')
        .remove(b'?')
        .remove(b':')
        .remove(b'@')
        .remove(b'&')
        .remove(b'=')
        .remove(b'+')
        .remove(b'$')
        .remove(b'#');
    [N, &UNRESERVED, &FORM, &COMPONENT, &URI]
};

/// What a secret looks like where it travels.
fn forms(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_string()];
    let lines: Vec<&str> = secret
        .lines()
        .map(str::trim)
        .filter(|l| l.chars().count() >= MIN_PART)
        .collect();
    if lines.len() > 1 {
        out.extend(lines.iter().map(|l| (*l).to_string()));
    }
    for v in out.clone() {
        // JSON-escaped (inside a JSON string: agent events, reports).
        let json = serde_json::to_string(&v).unwrap_or_default();
        out.push(json[1..json.len().saturating_sub(1)].to_string());
        // Percent-encoded (a URL path or query) and form-encoded (`+` for spaces), as each
        // common encoder leaves a different set of characters unescaped.
        for set in URL_SETS {
            let p = percent_encoding::utf8_percent_encode(&v, set).to_string();
            out.push(p.replace("%20", "+"));
            out.push(p);
        }
        // base64, standard and URL-safe, padded or not; and inside the base64 of a longer text.
        // Standard base64 in a URL is percent-encoded in turn (`+`, `/`, `=`).
        let b = base64::engine::general_purpose::STANDARD.encode(v.as_bytes());
        let url_safe = |b: &str| b.replace('+', "-").replace('/', "_");
        let in_url = |b: &str| {
            b.replace('+', "%2B")
                .replace('/', "%2F")
                .replace('=', "%3D")
        };
        for b in [b.trim_end_matches('=').to_string(), b.clone()] {
            out.push(url_safe(&b));
            out.push(in_url(&b));
            out.push(b);
        }
        for inner in base64_inside(v.as_bytes()) {
            out.push(url_safe(&inner));
            out.push(in_url(&inner));
            out.push(inner);
        }
    }
    out.retain(|f| !f.is_empty());
    out.sort();
    out.dedup();
    out
}

/// What the base64 of any text that holds `bytes` shows of them, for each offset `bytes` can
/// start at in a 3-byte group: the characters whose six bits all come from `bytes` (the ones
/// at either end also carry bits of the text around). Parts shorter than `MIN_PART` are left
/// out: they would match by chance.
fn base64_inside(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for offset in 0..3 {
        let mut shifted = vec![0u8; offset];
        shifted.extend_from_slice(bytes);
        let b = base64::engine::general_purpose::STANDARD.encode(&shifted);
        // Character c carries bits 6c..6c+6; `bytes` are bits 8*offset..8*(offset+len).
        let first = (8 * offset).div_ceil(6);
        let end = 8 * (offset + bytes.len()) / 6;
        if end >= first + MIN_PART
            && let Some(part) = b.get(first..end)
        {
            out.push(part.to_string());
        }
    }
    out
}

impl Masker {
    /// A masker for these secrets (empty ones are ignored: they would match everywhere).
    #[cfg(test)]
    pub(crate) fn new(values: impl IntoIterator<Item = String>) -> Masker {
        let m = Masker::default();
        m.add_all(values);
        m
    }

    /// Adds secrets (a sub-flow's, or values derived from one); every clone masks them.
    pub(crate) fn add_all(&self, values: impl IntoIterator<Item = String>) {
        let new: Vec<String> = values
            .into_iter()
            .filter(|v| !v.is_empty())
            .flat_map(|v| forms(&v))
            .collect();
        if new.is_empty() {
            return;
        }
        let Ok(mut inner) = self.inner.write() else {
            return;
        };
        let before = inner.values.len();
        for v in new {
            if !inner.values.contains(&v) {
                inner.values.push(v);
            }
        }
        if inner.values.len() != before {
            inner.matcher = AhoCorasick::new(&inner.values).ok();
        }
    }

    /// Adds one secret.
    pub(crate) fn add(&self, value: &str) {
        self.add_all([value.to_string()]);
    }

    /// Adds values a template made of a secret (`{{ secrets.T | upper }}`), with their forms:
    /// each at least `MIN_PART` characters long (a shorter one, a length or a slice of two
    /// characters, would mask the same text wherever it is).
    pub(crate) fn add_derived(&self, values: impl IntoIterator<Item = String>) {
        self.add_all(
            values
                .into_iter()
                .filter(|v| v.trim().chars().count() >= MIN_PART),
        );
    }

    /// Whether there is nothing to mask (no secrets): derived values need not be looked for.
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.read().map_or(true, |i| i.matcher.is_none())
    }

    /// Whether `text` holds a secret, or a form of one.
    pub(crate) fn holds_secret(&self, text: &str) -> bool {
        self.inner
            .read()
            .is_ok_and(|i| i.matcher.as_ref().is_some_and(|m| m.is_match(text)))
    }

    /// The length of the longest form masked (0 with no secrets): a stream cut into pieces
    /// keeps this much minus one back, so no secret is split between two pieces.
    pub(crate) fn longest(&self) -> usize {
        self.inner
            .read()
            .map_or(0, |i| i.values.iter().map(String::len).max().unwrap_or(0))
    }

    /// `text` with every secret form replaced by `***` (overlapping matches merged).
    pub(crate) fn mask(&self, text: &str) -> String {
        let Ok(inner) = self.inner.read() else {
            return text.to_string();
        };
        let Some(m) = &inner.matcher else {
            return text.to_string();
        };
        let mut spans: Vec<(usize, usize)> = m
            .find_overlapping_iter(text)
            .map(|f| (f.start(), f.end()))
            .collect();
        if spans.is_empty() {
            return text.to_string();
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end) = spans[i];
            i += 1;
            while i < spans.len() && spans[i].0 <= end {
                end = end.max(spans[i].1);
                i += 1;
            }
            if start >= at {
                out.push_str(&text[at..start]);
                out.push_str("***");
                at = end;
            } else if end > at {
                at = end;
            }
        }
        out.push_str(&text[at..]);
        out
    }

    /// A copy of `value` with secrets replaced in every string (and map key).
    pub(crate) fn mask_value(&self, value: &Value) -> Value {
        if self.inner.read().map_or(true, |i| i.matcher.is_none()) {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.mask(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.mask_value(v)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (self.mask(k), self.mask_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_longest_first_and_overlaps_together() {
        let m = Masker::new(["abc".to_string(), "abcdef".to_string(), String::new()]);
        assert_eq!(m.mask("x abcdef y abc"), "x *** y ***");
        assert_eq!(
            m.mask_value(&serde_json::json!({"a": ["abc"], "abc": 1})),
            serde_json::json!({"a": ["***"], "***": 1})
        );
        let m = Masker::new(["abcXYZ".to_string(), "XYZdef".to_string()]);
        assert_eq!(m.mask("1 abcXYZdef 2"), "1 *** 2");
    }

    #[test]
    fn masks_lines_and_encodings() {
        let pem = "-----BEGIN KEY-----\nMIIBVwIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----";
        let m = Masker::new([pem.to_string(), "p@ss word\"\\é".to_string()]);
        assert_eq!(m.mask("line: hkiG9w0BAQEFAASC"), "line: ***");
        assert_eq!(m.mask("MIIBVwIBADANBgkq | hkiG9w0BAQEFAASC"), "*** | ***");
        assert_eq!(m.mask(r#"{"v":"p@ss word\"\\é"}"#), r#"{"v":"***"}"#);
        assert_eq!(m.mask("?pw=p%40ss%20word%22%5C%C3%A9"), "?pw=***");
        assert_eq!(m.mask("?pw=p%40ss+word%22%5C%C3%A9"), "?pw=***");
        let b64 = base64::engine::general_purpose::STANDARD.encode("p@ss word\"\\é");
        assert_eq!(m.mask(&format!("basic {b64}")), "basic ***");
        // Each encoder leaves its own set unescaped.
        let m = Masker::new(["a-b.c~d(e)/f g*h".to_string()]);
        for encoded in [
            "a-b.c~d(e)%2Ff%20g*h",     // encodeURIComponent
            "a-b.c~d(e)/f%20g*h",       // encodeURI
            "a-b.c%7Ed%28e%29%2Ff+g*h", // URLSearchParams, HTML forms
            "a-b.c~d%28e%29%2Ff+g%2Ah", // Go's QueryEscape, Python's quote_plus
            "a%2Db%2Ec%7Ed%28e%29%2Ff%20g%2Ah",
        ] {
            assert_eq!(m.mask(&format!("?q={encoded}&x")), "?q=***&x", "{encoded}");
        }
    }

    #[test]
    fn the_base64_of_a_text_holding_a_secret_is_masked_where_the_secret_is() {
        use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
        let secret = "hunter2>?~s3?cret";
        let m = Masker::new([secret.to_string()]);
        // At each offset in a 3-byte group, before and after other text, in every alphabet.
        for prefix in ["", "u", "us", "user:", "Authorization: Basic user:"] {
            for suffix in ["", "!", "\n", "!!!!"] {
                let text = format!("{prefix}{secret}{suffix}");
                let b = STANDARD.encode(&text);
                let in_url = b
                    .replace('+', "%2B")
                    .replace('/', "%2F")
                    .replace('=', "%3D");
                for b in [
                    b,
                    in_url,
                    URL_SAFE.encode(&text),
                    URL_SAFE_NO_PAD.encode(&text),
                ] {
                    let masked = m.mask(&format!("[{b}]"));
                    assert!(masked.contains("***"), "{text}: {b} -> {masked}");
                    // What is left is the text around, and the character at either end of the
                    // secret that it shares with it.
                    let left = masked.replace("***", "").replace("%3D", "=");
                    let around = STANDARD.encode(prefix).len() + STANDARD.encode(suffix).len() + 6;
                    assert!(left.len() <= around, "{text}: {b} -> {masked}");
                }
            }
        }
        // A secret too short for its inner parts is masked by its own forms only.
        assert!(base64_inside(b"ab").is_empty());
        assert_eq!(base64_inside(b"abcdef").len(), 3);
    }

    #[test]
    fn derived_values_are_masked_from_four_characters() {
        let m = Masker::default();
        assert!(m.is_empty() && !m.holds_secret("x"));
        m.add_derived(["11".to_string(), " ab ".to_string(), "S3CR".to_string()]);
        assert_eq!(m.mask("11 ab S3CR"), "11 ab ***");
        assert!(!m.is_empty() && m.holds_secret("xS3CRx") && !m.holds_secret("s3cr"));
        // A secret itself is masked whatever its length.
        m.add("q");
        assert_eq!(m.mask("q"), "***");
    }

    #[test]
    fn clones_learn_what_one_adds() {
        let m = Masker::new(["s3cret".to_string()]);
        let c = m.clone();
        m.add("S3CRET");
        assert_eq!(c.mask("S3CRET s3cret"), "*** ***");
    }
}
