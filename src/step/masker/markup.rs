//! Masking HTML as it is shown: a secret that a page shows split by markup
//! (`API key: <span>Kestrel-</span><span>Vault-9931-Zulu</span>`, a `<wbr>`, a highlight) is one
//! run of text on the screen and none in the HTML. The text nodes are joined as shown (tags,
//! comments, scripts and stylesheets skipped; character references read), the masker's forms
//! are found in that text, and each match is mapped back to the characters of the nodes it spans.

use super::spread::Forms;

use super::super::secret_forms::MIN_PART;
use super::{Kind, MAX_LEARNED, Masker, Matcher, mask_all, mask_with, matches};

/// HTML's text as it is shown, with where each byte of it came from in the HTML, and the runs
/// of the HTML that are text (between tags).
struct Shown {
    text: String,
    /// For each byte of `text`: the range of the HTML it was read from (a character, or a whole
    /// character reference).
    from: Vec<(usize, usize)>,
    runs: Vec<(usize, usize)>,
}

impl Masker {
    /// `html` masked as text and as it is shown: a secret whose characters are split by tags is
    /// `***` in the first text node it spans and nothing in the others (the tags between stay,
    /// so the page keeps its structure). What a trace draws of a page goes through this.
    pub(crate) fn mask_markup(&self, html: &str) -> String {
        let m = match self.matcher() {
            Some(Matcher::Forms(m)) => m,
            // A masker that cannot look for its secrets fails closed.
            Some(Matcher::All) => return mask_all(html),
            None => return html.to_string(),
        };
        let text = mask_with(&m, html);
        let views = views(&text);
        let spans = views.iter().flat_map(|v| split_matches(&m, v)).collect();
        replaced_in_runs(&text, spans, &views[0].runs)
    }

    /// Learns each piece of `html` that shows a secret split by markup (from the secret's first
    /// character to its last, the tags between included), as a value made of a secret: then
    /// that HTML is `***` wherever it is shown (an `inspect` step's `html` in the reports).
    ///
    /// The text of such HTML as a page reads it (`innerText`, `inspect`'s `text`) has white
    /// space between the pieces the markup split it into (a line break between flex items, a
    /// space on one line): each piece's text joined with a line break, a space and a tab is
    /// learned too, and, where text not rendered lies between them, the texts of all its nodes
    /// joined with nothing, a line break and a space (`innerText` holds an off-screen span's
    /// text). Only as they are and in JSON. HTML longer than `MAX_MARKUP` bytes is not looked at.
    pub(crate) fn learn_markup(&self, html: &str) {
        // (A masker that cannot look for its secrets masks every text whole: nothing to learn.)
        let Some(Matcher::Forms(m)) = self.matcher() else {
            return;
        };
        if html.len() > MAX_MARKUP || !html.contains('<') {
            return;
        }
        let (mut pieces, mut joins) = (Vec::new(), Vec::new());
        for shown in views(html) {
            for (s, e) in matches(&m, &shown.text) {
                let (hs, he) = (shown.from[s].0, shown.from[e - 1].1);
                if m.is_match(&html[hs..he]) {
                    continue;
                }
                let parts = parts(&shown, s, e);
                if parts.len() > 1 {
                    joins.extend(["\n", " ", "\t"].map(|gap| parts.join(gap)));
                }
                // With the text not rendered between them (an element's `innerText` has an
                // off-screen span's).
                let all = node_texts(&html[hs..he]);
                if all.len() > parts.len() {
                    joins.extend(["", "\n", " "].map(|gap| all.join(gap)));
                }
                pieces.push(html[hs..he].to_string());
            }
        }
        self.add_derived(pieces);
        // Only as they are (and in JSON): a line of a value made of a secret is masked on its
        // own, and a piece (`Zulu`) would be masked wherever it is.
        joins.retain(|j| j.len() <= MAX_LEARNED);
        self.learn(joins, Kind::Plain);
    }
}

impl Masker {
    /// Whether `texts` (a page's shown text nodes, in order), joined with nothing between them,
    /// show a secret; the piece of each node a secret spans there, of at least `MIN_PART`
    /// characters, is learned as it is and in JSON (the accessibility snapshot of the page
    /// holds each piece as a text of its own). Fails closed: true when the masker cannot look.
    pub(crate) fn learn_shown(&self, texts: &[String]) -> bool {
        let m = match self.matcher() {
            Some(Matcher::Forms(m)) => m,
            Some(Matcher::All) => return true,
            None => return false,
        };
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(texts.len());
        for t in texts {
            starts.push(joined.len());
            joined.push_str(t);
        }
        let found = matches(&m, &joined);
        let mut pieces = Vec::new();
        for &(s, e) in &found {
            let first = starts.partition_point(|&at| at <= s).saturating_sub(1);
            for (i, &at) in starts.iter().enumerate().skip(first) {
                if at >= e {
                    break;
                }
                let end = at + texts[i].len();
                let piece = &texts[i][s.max(at) - at..e.min(end).max(s.max(at)) - at];
                if piece.trim().chars().count() >= MIN_PART && piece.len() <= MAX_LEARNED {
                    pieces.push(piece.to_string());
                }
            }
        }
        self.learn(pieces, Kind::Plain);
        !found.is_empty()
    }

    /// [`Masker::learn_markup`] of each text in `value` that holds markup (an `eval` of an
    /// element's `outerHTML`, or of several).
    pub(crate) fn learn_markup_in(&self, value: &serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(s) => self.learn_markup(s),
            Value::Array(a) => a.iter().for_each(|v| self.learn_markup_in(v)),
            Value::Object(o) => o.values().for_each(|v| self.learn_markup_in(v)),
            _ => {}
        }
    }
}

/// The most bytes of HTML [`Masker::learn_markup`] looks at (its text as shown takes sixteen
/// bytes more for each of them).
pub(crate) const MAX_MARKUP: usize = 2 * 1024 * 1024;

/// The text `s..e` of `shown` in the pieces that markup splits it into (where the bytes of two
/// characters after each other do not come from the HTML one after the other).
fn parts(shown: &Shown, s: usize, e: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = s;
    for k in s + 1..e {
        let (before, here) = (shown.from[k - 1], shown.from[k]);
        if before != here && before.1 != here.0 && shown.text.is_char_boundary(k) {
            out.push(&shown.text[start..k]);
            start = k;
        }
    }
    out.push(&shown.text[start..e]);
    out
}

/// The ranges of the HTML that `m` matches in its text as shown, those that are not one run of
/// text as they are (a match inside one text run is found in the HTML itself).
fn split_matches(m: &Forms, shown: &Shown) -> Vec<(usize, usize)> {
    matches(m, &shown.text)
        .into_iter()
        .map(|(s, e)| (shown.from[s].0, shown.from[e - 1].1))
        .collect()
}

/// `html` with each of `spans` (merged where they overlap) replaced in the text `runs` it spans:
/// `***` in the first, nothing in the others; what lies between the runs (tags) stays.
fn replaced_in_runs(html: &str, mut spans: Vec<(usize, usize)>, runs: &[(usize, usize)]) -> String {
    if spans.is_empty() {
        return html.to_string();
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    for (s, e) in merged {
        let mut first = true;
        for &(rs, re) in runs.iter().filter(|(rs, re)| *rs < e && s < *re) {
            let (a, b) = (rs.max(s), re.min(e));
            out.push_str(&html[at..a]);
            if first {
                out.push_str("***");
                first = false;
            }
            at = b;
        }
    }
    out.push_str(&html[at..]);
    out
}

/// The elements whose content is not shown as text.
const HIDDEN: [&str; 4] = ["script", "style", "template", "noscript"];

/// `html`'s text as it is shown, and, when some run of text between two tags is only white
/// space, as it is shown without such runs too: white space between flex items, or between
/// elements made blocks, is not rendered (see [`Shown`]).
fn views(html: &str) -> Vec<Shown> {
    let mut out = vec![shown(html, false)];
    let blank = out[0]
        .runs
        .iter()
        .any(|&(s, e)| html[s..e].trim().is_empty());
    if blank {
        out.push(shown(html, true));
    }
    out
}

/// `html`'s text as it is shown (see [`Shown`]), without the runs of text that are only white
/// space with `drop_blank`.
fn shown(html: &str, drop_blank: bool) -> Shown {
    let mut s = Shown {
        text: String::new(),
        from: Vec::new(),
        runs: Vec::new(),
    };
    let bytes = html.as_bytes();
    // One lower-case copy for the whole pass (ASCII case folding keeps every byte offset):
    // finding end tags must not copy the rest of the markup per element.
    let lower = html.to_ascii_lowercase();
    let (mut i, mut run, mut mark) = (0, 0, 0);
    while i < html.len() {
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        if bytes[i] == b'<' && (next.is_ascii_alphabetic() || b"/!?".contains(&next)) {
            if run < i {
                s.runs.push((run, i));
                if drop_blank && html[run..i].trim().is_empty() {
                    s.text.truncate(mark);
                    s.from.truncate(mark);
                }
            }
            i = tag_end(html, &lower, i);
            (run, mark) = (i, s.text.len());
            continue;
        }
        let (c, len) = if bytes[i] == b'&' {
            reference(&html[i..])
        } else {
            let c = html[i..].chars().next().unwrap_or(' ');
            (Some(c), c.len_utf8())
        };
        let c = c.unwrap_or('&');
        let len = if len == 0 { 1 } else { len };
        s.text.push(c);
        s.from.extend((0..c.len_utf8()).map(|_| (i, i + len)));
        i += len;
    }
    if run < html.len() {
        s.runs.push((run, html.len()));
    }
    s
}

/// Where the tag (or comment, or element whose content is not shown) that starts at `at` ends;
/// `lower` is `html` in ASCII lower case.
fn tag_end(html: &str, lower: &str, at: usize) -> usize {
    let rest = &html[at..];
    if let Some(comment) = rest.strip_prefix("<!--") {
        return comment.find("-->").map_or(html.len(), |e| at + 4 + e + 3);
    }
    let mut quote = None;
    let mut end = html.len();
    for (i, c) in rest.char_indices().skip(1) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                end = at + i + 1;
                break;
            }
            _ => {}
        }
    }
    let name: String = rest[1..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    if HIDDEN.contains(&name.as_str()) {
        let close = format!("</{name}");
        return lower[end..]
            .find(&close)
            .map_or(html.len(), |e| tag_end(html, lower, end + e));
    }
    if !name.is_empty() && not_rendered(&html[at..end]) && !html[..end].ends_with("/>") {
        return element_end(html, lower, end, &name);
    }
    end
}

/// Whether the start tag `tag` (`<name …>`) is of an element the browser does not render
/// (or renders where it is not seen), as its markup tells: a `hidden` attribute, or an inline
/// style ([`unseen_style`]).
fn not_rendered(tag: &str) -> bool {
    attributes(tag).any(|(name, value)| {
        name.eq_ignore_ascii_case("hidden")
            || (name.eq_ignore_ascii_case("style") && unseen_style(value))
    })
}

/// Whether an inline style hides its element's text: `display: none`, or an absolute
/// position far off the page (`left: -9999px`) or clipped to nothing (a screen-reader-only
/// span written inline).
fn unseen_style(style: &str) -> bool {
    let style: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let rules: Vec<(&str, &str)> = style
        .split(';')
        .filter_map(|d| d.split_once(':'))
        .map(|(k, v)| (k, v.trim_end_matches("!important")))
        .collect();
    let get = |k: &str| rules.iter().rev().find(|(n, _)| *n == k).map(|(_, v)| *v);
    if get("display") == Some("none") {
        return true;
    }
    let far = |k: &str| {
        get(k)
            .and_then(|v| v.strip_suffix("px"))
            .and_then(|v| v.parse::<f64>().ok())
            .is_some_and(|v| v <= -1000.0)
    };
    let clip = get("clip").map(|v| v.replace("px", ""));
    let clipped = matches!(
        clip.as_deref(),
        Some("rect(0,0,0,0)" | "rect(0000)" | "rect(1,1,1,1)" | "rect(1111)")
    ) || get("clip-path") == Some("inset(50%)");
    matches!(get("position"), Some("absolute" | "fixed")) && (far("left") || far("top") || clipped)
}

/// The texts of the nodes of `html` (a piece of an element's markup), those not rendered too,
/// each with its character references read; comments and blank texts left out.
fn node_texts(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        let lt = rest.find('<').unwrap_or(rest.len());
        let text = &rest[..lt];
        if !text.trim().is_empty() {
            out.push(shown(text, false).text);
        }
        rest = &rest[lt..];
        let end = if rest.starts_with("<!--") {
            rest.find("-->").map_or(rest.len(), |e| e + 3)
        } else {
            rest.find('>').map_or(rest.len(), |e| e + 1)
        };
        rest = &rest[end..];
    }
    out
}

/// The attributes of the start tag `tag`, as (name, value) (a value as written, its quotes
/// taken off and its character references not read).
fn attributes(tag: &str) -> impl Iterator<Item = (&str, &str)> {
    let body = tag.trim_start_matches('<').trim_end_matches('>');
    let mut rest = body.trim_start_matches(|c: char| !c.is_whitespace() && c != '/');
    std::iter::from_fn(move || {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if rest.is_empty() {
            return None;
        }
        let n = rest
            .find(|c: char| c.is_whitespace() || c == '=' || c == '/')
            .unwrap_or(rest.len());
        let name = &rest[..n.max(1).min(rest.len())];
        rest = rest[name.len()..].trim_start();
        let Some(after) = rest.strip_prefix('=') else {
            return Some((name, ""));
        };
        let after = after.trim_start();
        let (value, left) = if let Some(q @ ('"' | '\'')) = after.chars().next() {
            let inner = &after[1..];
            let e = inner.find(q).unwrap_or(inner.len());
            (&inner[..e], inner.get(e + 1..).unwrap_or(""))
        } else {
            let e = after.find(char::is_whitespace).unwrap_or(after.len());
            (&after[..e], &after[e..])
        };
        rest = left;
        Some((name, value))
    })
}

/// Where the element `name` whose start tag ends at `from` ends (after its end tag; the
/// HTML's end when it has none): elements of the same name inside it are counted. A void
/// element (`<input hidden>`) has no content: it ends with its start tag. `lower` is `html`
/// in ASCII lower case.
fn element_end(html: &str, lower_html: &str, from: usize, name: &str) -> usize {
    if VOID.contains(&name) {
        return from;
    }
    let lower = &lower_html[from..];
    let (open, close) = (format!("<{name}"), format!("</{name}"));
    let named = |at: usize, len: usize| {
        !lower[at + len..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
    };
    let (mut depth, mut at) = (1usize, 0);
    while let Some(i) = lower[at..].find('<').map(|i| at + i) {
        if lower[i..].starts_with(&close) && named(i, close.len()) {
            depth -= 1;
            if depth == 0 {
                return tag_end(html, lower_html, from + i);
            }
        } else if lower[i..].starts_with(&open) && named(i, open.len()) {
            depth += 1;
        }
        at = i + 1;
    }
    html.len()
}

/// The elements that have no content (nor end tag).
const VOID: [&str; 14] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param",
];

/// The character a character reference at the start of `text` stands for, and its length
/// (none, 0: not one read here; the `&` is text).
fn reference(text: &str) -> (Option<char>, usize) {
    let Some((semi, _)) = text.char_indices().take(12).find(|(_, c)| *c == ';') else {
        return (None, 0);
    };
    let body = &text[1..semi];
    let c = match body {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some('\u{a0}'),
        _ => body
            .strip_prefix("#x")
            .or_else(|| body.strip_prefix("#X"))
            .map(|h| u32::from_str_radix(h, 16))
            .or_else(|| body.strip_prefix('#').map(str::parse::<u32>))
            .and_then(Result::ok)
            .and_then(char::from_u32),
    };
    match c {
        Some(c) => (Some(c), semi + 1),
        None => (None, 0),
    }
}

#[cfg(test)]
mod tests;
