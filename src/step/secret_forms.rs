//! What a secret looks like where it travels: the one list of the encodings the masker masks
//! each secret (and each value made of one) in. Every output goes through the same masker, so
//! an encoding listed here is masked in all of them.
//!
//! - JSON string escapes as common encoders write them: minimal (serde, `JSON.stringify`),
//!   Go's HTML-safe `\u003c`/`\u0026`, Python's `\u00f6` for non-ASCII, PHP's `\/`, .NET's
//!   upper-case `\u00F6` and `\u0022`; and each of those escaped again (JSON inside JSON).
//! - HTML escapes: Python's `html.escape` and minijinja's (`&quot;`, `&#x27;`, `&#x2f;`), Go's
//!   and markupsafe's (`&#34;`, `&#39;`, `&#43;`), PHP's `&#039;`, XML's `&apos;`, and what a
//!   browser writes for a text node (`&amp; &lt; &gt;`) and an attribute (`&amp; &quot;`);
//!   of the value and of its JSON form.
//! - Percent encodings: the sets common URL encoders escape, with `%20` or `+` for a space,
//!   with upper- and lower-case hex digits; and every byte escaped.
//! - Percent encodings as a URL parser writes them (the WHATWG URL Standard's sets: a browser,
//!   the `url` crate).
//! - base64, standard and URL-safe, padded or not, and standard percent-encoded in turn; and
//!   the part of the base64 of a longer text that only the value's bytes decide; wrapped base64
//!   is matched without its line breaks ([`wrapped`]).
//! - Shell quoting (`set -x`, `printf %q`, `shlex.quote`, `declare -p`, bash's `$'...'` in the
//!   C and a UTF-8 locale), doubled quotes (YAML, SQL, CSV), and `\'` and `\\` escapes (Python's
//!   `repr`, Perl's `Data::Dumper`, PHP's `var_export`): [`shell`].
//! - A number's canonical forms (`9931.50` as `9931.5`, `004217` as `4217`): [`numbers`].
//!
//! Base64 is the one encoding that does not encode a value character by character, so the
//! base64 of a text that holds a secret (`user:<password>` for HTTP Basic, built by a command or
//! a page) need not hold the secret's own base64: each value is masked also as the characters
//! that only its bytes decide at each of the three offsets it can have in a 3-byte group. The
//! other encodings of such a text hold the value's encoding as it is.

use base64::Engine;

/// The shortest text masked that is not a secret itself (a secret is masked whatever its
/// length): a line of a multi-line secret (a `-----` or an empty line would blank out
/// everything), a value derived from a secret (`{{ secrets.T | length }}`, a slice of two
/// characters, one character of `| list`), the part of a base64 text a secret's bytes decide.
/// GitHub Actions does not mask such short pieces either: they would mask the same letters
/// wherever they are.
pub(crate) const MIN_PART: usize = 4;

/// The characters each common URL encoder escapes (each also with `+` for a space, and in
/// lower-case hex):
/// - everything but letters and digits;
/// - RFC 3986's unreserved set kept: Go's `QueryEscape`, Python's `quote(v, safe='')`,
///   `quote_plus` and `urlencode`, .NET's `EscapeDataString`, PHP's `rawurlencode`, Rust's `url`;
/// - WHATWG forms (`URLSearchParams`, HTML form submission), Java's `URLEncoder`;
/// - `encodeURIComponent`; `encodeURI`;
/// - `/` kept too: Python's `quote` (its default `safe='/'`), Jinja2's `urlencode`;
/// - minijinja's `urlencode` (`/ . - _` kept);
/// - PHP's `urlencode` (`- . _` kept);
/// - Go's `PathEscape` (`$ & + = : @` kept beside the unreserved);
/// - RFC 3986's path characters kept (`pchar`: sub-delims, `:` and `@`);
/// - .NET's `HttpUtility.UrlEncode` (`- _ . ! * ( )` kept).
///
/// JavaScript's `escape()` writes non-ASCII characters its own way: [`js_escape`].
const URL_SETS: [&percent_encoding::AsciiSet; 11] = {
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
    const PATH: percent_encoding::AsciiSet = UNRESERVED.remove(b'/');
    const MINIJINJA: percent_encoding::AsciiSet =
        N.remove(b'/').remove(b'.').remove(b'-').remove(b'_');
    const PHP: percent_encoding::AsciiSet = N.remove(b'-').remove(b'.').remove(b'_');
    const GO_PATH: percent_encoding::AsciiSet = UNRESERVED
        .remove(b'$')
        .remove(b'&')
        .remove(b'+')
        .remove(b'=')
        .remove(b':')
        .remove(b'@');
    const PCHAR: percent_encoding::AsciiSet = GO_PATH
        .remove(b'!')
        .remove(b'\'')
        .remove(b'(')
        .remove(b')')
        .remove(b'*')
        .remove(b',')
        .remove(b';');
    const DOTNET: percent_encoding::AsciiSet = N
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'!')
        .remove(b'*')
        .remove(b'(')
        .remove(b')');
    [
        N,
        &UNRESERVED,
        &FORM,
        &COMPONENT,
        &URI,
        &PATH,
        &MINIJINJA,
        &PHP,
        &GO_PATH,
        &PCHAR,
        &DOTNET,
    ]
};

/// The percent-encode sets of the WHATWG URL Standard, which a URL parser applies to each part
/// of a URL it is given (a browser's `location.href`, its requests and messages, the `url` crate
/// under `reqwest`): they keep most characters, so `Rk9^vT"q2{Lm` in a query is
/// `Rk9^vT%22q2{Lm`. Upper-case hex only, as the Standard writes it; `+` for a space only in
/// the form set (in [`URL_SETS`], as the component set is).
/// - the fragment set; the query set, and the special-query set (`'` too: `http`, `https`...);
/// - the path set as the `url` crate and browsers apply it, and as the Standard has it since it
///   added `^`;
/// - the userinfo set (a password in `https://user:pass@host`);
/// - the `url` crate's path-segment sets (`path_segments_mut`: `/` and `%` too, and `\`).
const WHATWG_SETS: [&percent_encoding::AsciiSet; 8] = {
    use percent_encoding::CONTROLS as C;
    const FRAGMENT: percent_encoding::AsciiSet =
        C.add(b' ').add(b'"').add(b'<').add(b'>').add(b'`');
    const QUERY: percent_encoding::AsciiSet = C.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>');
    const SPECIAL_QUERY: percent_encoding::AsciiSet = QUERY.add(b'\'');
    const PATH: percent_encoding::AsciiSet = FRAGMENT.add(b'#').add(b'?').add(b'{').add(b'}');
    const USERINFO: percent_encoding::AsciiSet = PATH
        .add(b'/')
        .add(b':')
        .add(b';')
        .add(b'=')
        .add(b'@')
        .add(b'[')
        .add(b'\\')
        .add(b']')
        .add(b'^')
        .add(b'|');
    const SEGMENT: percent_encoding::AsciiSet = PATH.add(b'/').add(b'%');
    [
        &FRAGMENT,
        &QUERY,
        &SPECIAL_QUERY,
        &PATH,
        &PATH.add(b'^'),
        &USERINFO,
        &SEGMENT,
        &SEGMENT.add(b'\\'),
    ]
};

/// `v` as JavaScript's `escape()` writes it: letters, digits and `@ * _ + - . /` kept, other
/// ASCII and Latin-1 characters as `%XX`, the rest as `%uXXXX` (UTF-16 code units).
fn js_escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len() * 3);
    for c in v.chars() {
        if c.is_ascii_alphanumeric() || "@*_+-./".contains(c) {
            out.push(c);
        } else if u32::from(c) < 0x100 {
            out.push_str(&format!("%{:02X}", u32::from(c)));
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("%u{u:04X}"));
            }
        }
    }
    out
}

/// How a JSON encoder writes a string's characters (besides `"`, `\` and control characters,
/// which every one escapes).
#[derive(Clone, Copy)]
struct JsonStyle {
    /// The characters written as `\u003c` (beside control characters).
    hex: &'static [char],
    /// Anything outside ASCII as `\u00f6`, a surrogate pair above U+FFFF (Python, PHP, .NET).
    ascii: bool,
    /// `/` as `\/` (PHP).
    slash: bool,
    /// Hex digits in upper case (.NET).
    upper: bool,
}

const STD: JsonStyle = JsonStyle {
    hex: &[],
    ascii: false,
    slash: false,
    upper: false,
};

/// serde and `JSON.stringify`; Go (HTML-safe: `<`, `>`, `&`, U+2028, U+2029); Python; PHP;
/// .NET (HTML-safe and `"`, `'`, `+`, `` ` ``).
const JSON_STYLES: [JsonStyle; 5] = [
    STD,
    JsonStyle {
        hex: &['<', '>', '&', '\u{2028}', '\u{2029}'],
        ..STD
    },
    JsonStyle { ascii: true, ..STD },
    JsonStyle {
        ascii: true,
        slash: true,
        ..STD
    },
    JsonStyle {
        hex: &['<', '>', '&', '"', '\'', '+', '`'],
        ascii: true,
        slash: false,
        upper: true,
    },
];

/// `s` inside a JSON string (without the quotes), as an encoder of `style` writes it.
fn json_escape(s: &str, style: JsonStyle) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let hex = |out: &mut String, unit: u32| {
        if style.upper {
            out.push_str(&format!("\\u{unit:04X}"));
        } else {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    };
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if style.hex.contains(&c) || c < ' ' => hex(&mut out, c.into()),
            '"' => out.push_str("\\\""),
            '/' if style.slash => out.push_str("\\/"),
            c if style.ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    hex(&mut out, u32::from(*u));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The escapes of each common HTML escaper, beside `&` -> `&amp;` (which all write).
const HTML_STYLES: [&[(char, &str)]; 10] = [
    // Python's `html.escape`, Jinja2 and minijinja (which escapes `/` too).
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&#x27;"),
    ],
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&#x27;"),
        ('/', "&#x2f;"),
    ],
    // Go's `html.EscapeString`, markupsafe; Go's `html/template` (`+` too).
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&#34;"),
        ('\'', "&#39;"),
    ],
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&#34;"),
        ('\'', "&#39;"),
        ('+', "&#43;"),
    ],
    // lodash; PHP's `htmlspecialchars`; XML.
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&#39;"),
    ],
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&#039;"),
    ],
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\'', "&apos;"),
    ],
    // What a browser writes (`innerHTML`) for a text node, an attribute, and an attribute in
    // Chromium since `<` and `>` are escaped there too.
    &[('<', "&lt;"), ('>', "&gt;"), ('\u{a0}', "&nbsp;")],
    &[('"', "&quot;"), ('\u{a0}', "&nbsp;")],
    &[
        ('<', "&lt;"),
        ('>', "&gt;"),
        ('"', "&quot;"),
        ('\u{a0}', "&nbsp;"),
    ],
];

/// `s` HTML-escaped with `escapes` (and `&`).
fn html_escape(s: &str, escapes: &[(char, &str)]) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match escapes.iter().find(|(e, _)| *e == c) {
            Some((_, entity)) => out.push_str(entity),
            None if c == '&' => out.push_str("&amp;"),
            None => out.push(c),
        }
    }
    out
}

/// `s` with the hex digits of its `%XX` (and `%uXXXX`) escapes in lower case (`%2f`).
fn lower_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '%' {
            let digits = if chars.next_if_eq(&'u').is_some() {
                out.push('u');
                4
            } else {
                2
            };
            for d in chars.by_ref().take(digits) {
                out.push(d.to_ascii_lowercase());
            }
        }
    }
    out
}

/// The length above which a value is masked only as itself and JSON-escaped (a large response
/// parsed into a var beside a token): some eighty forms of a megabyte each would make the
/// matcher gigabytes. The secrets inside it are masked in all their forms anyway.
const LONG: usize = 64 * 1024;

/// What a secret looks like where it travels: itself, each line of a multi-line secret of at
/// least `MIN_PART` characters, and each of their encodings above.
pub(crate) fn forms(secret: &str) -> Vec<String> {
    if secret.len() > LONG {
        return plain_forms(secret);
    }
    let mut bases = vec![secret.to_string()];
    let lines: Vec<&str> = secret
        .lines()
        .map(str::trim)
        .filter(|l| l.chars().count() >= MIN_PART)
        .collect();
    if lines.len() > 1 {
        bases.extend(lines.iter().map(|l| (*l).to_string()));
    }
    let mut out = Vec::new();
    for v in &bases {
        out.push(v.clone());
        out.extend(json_forms(v));
        for text in [v.clone(), json_escape(v, STD)] {
            out.extend(HTML_STYLES.iter().map(|s| html_escape(&text, s)));
        }
        out.extend(url_forms(v));
        out.extend(base64_forms(v));
        out.extend(shell::shell_forms(v).iter().flat_map(|f| plain_forms(f)));
        out.extend(numbers::number_forms(v));
    }
    out.retain(|f| !f.is_empty());
    out.sort();
    out.dedup();
    out
}

/// `v` as it is and inside a JSON string (what runner's reports write): the forms of a value
/// masked only as it shows.
pub(crate) fn plain_forms(v: &str) -> Vec<String> {
    vec![v.to_string(), json_escape(v, STD)]
}

/// `v` in a JSON string as each encoder writes it, and each of those inside a JSON string again.
fn json_forms(v: &str) -> Vec<String> {
    let once: Vec<String> = JSON_STYLES.iter().map(|s| json_escape(v, *s)).collect();
    let twice = once
        .iter()
        .flat_map(|o| JSON_STYLES.iter().map(|s| json_escape(o, *s)));
    let mut out: Vec<String> = twice.collect();
    out.extend(once);
    out
}

/// `v` percent-encoded (a URL path or query) and form-encoded (`+` for a space), as each
/// common encoder leaves a different set unescaped, in upper- and lower-case hex; and with every
/// byte escaped; and as a URL parser writes each part of a URL ([`WHATWG_SETS`]).
fn url_forms(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    for set in URL_SETS {
        let p = percent_encoding::utf8_percent_encode(v, set).to_string();
        out.push(p.replace("%20", "+"));
        out.push(p);
    }
    out.push(v.bytes().map(|b| format!("%{b:02X}")).collect());
    out.push(js_escape(v));
    let lower: Vec<String> = out.iter().map(|p| lower_hex(p)).collect();
    out.extend(lower);
    for set in WHATWG_SETS {
        out.push(percent_encoding::utf8_percent_encode(v, set).to_string());
    }
    out
}

/// `v` in base64, standard and URL-safe, padded or not; standard base64 in a URL is
/// percent-encoded in turn (`+`, `/`, `=`). And inside the base64 of a longer text.
fn base64_forms(v: &str) -> Vec<String> {
    let b = base64::engine::general_purpose::STANDARD.encode(v.as_bytes());
    let url_safe = |b: &str| b.replace('+', "-").replace('/', "_");
    let in_url = |b: &str| {
        b.replace('+', "%2B")
            .replace('/', "%2F")
            .replace('=', "%3D")
    };
    let mut out = Vec::new();
    let whole = [b.trim_end_matches('=').to_string(), b.clone()];
    for b in whole.into_iter().chain(base64_inside(v.as_bytes())) {
        out.push(url_safe(&b));
        out.push(lower_hex(&in_url(&b)));
        out.push(in_url(&b));
        out.push(b);
    }
    out
}

/// What the base64 of any text that holds `bytes` shows of them, for each offset `bytes` can
/// start at in a 3-byte group: the characters whose six bits all come from `bytes` (the ones
/// at either end also carry bits of the text around). Parts shorter than `MIN_PART` are left
/// out: they would match by chance.
pub(super) fn base64_inside(bytes: &[u8]) -> Vec<String> {
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

/// What the common filters make of a secret as a whole (`| upper`, `| lower`, `| title`,
/// `| capitalize`, `| reverse` and each of those reversed): the masker masks these with the
/// secret, as they show ([`plain_forms`]), so they are masked in a text made of a secret that
/// is too long to learn whole (the upper-case of a command's whole output that holds a token). Those of fewer than
/// `MIN_PART` characters, and the secret itself, are left out.
pub(crate) fn transforms(secret: &str) -> Vec<String> {
    let mut chars = secret.chars();
    let capitalized = chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().collect::<String>() + &chars.as_str().to_lowercase()
    });
    let cased = [
        secret.to_string(),
        secret.to_uppercase(),
        secret.to_lowercase(),
        title(secret),
        capitalized,
    ];
    let mut out: Vec<String> = cased
        .iter()
        .flat_map(|c| [c.clone(), c.chars().rev().collect()])
        .filter(|t| t != secret && t.chars().count() >= MIN_PART)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `s` as minijinja's `title` writes it: each word's first letter upper-case, the rest lower.
fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut word_start = true;
    for c in s.chars() {
        if c.is_ascii_punctuation() || c.is_whitespace() {
            out.push(c);
            word_start = true;
        } else if word_start {
            out.extend(c.to_uppercase());
            word_start = false;
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

mod numbers;
mod shell;
pub(crate) mod wrapped;

#[cfg(test)]
mod tests;
