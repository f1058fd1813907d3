//! Masking HTML as it is shown: a secret that a page shows split by markup
//! (`API key: <span>Kestrel-</span><span>Vault-9931-Zulu</span>`, a `<wbr>`, a highlight) is one
//! run of text on the screen and none in the HTML. The text nodes are joined as shown (tags,
//! comments, scripts and stylesheets skipped; character references read), the masker's forms
//! are found in that text, and each match is mapped back to the characters of the nodes it spans.

use aho_corasick::AhoCorasick;

use super::{Masker, Matcher, mask_all, mask_with, matches};

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
        let shown = shown(&text);
        let spans = split_matches(&m, &shown);
        replaced_in_runs(&text, spans, &shown.runs)
    }

    /// Learns each piece of `html` that shows a secret split by markup (from the secret's first
    /// character to its last, the tags between included), as a value made of a secret: then
    /// that HTML is `***` wherever it is shown (an `inspect` step's `html` in the reports).
    pub(crate) fn learn_markup(&self, html: &str) {
        // (A masker that cannot look for its secrets masks every text whole: nothing to learn.)
        let Some(Matcher::Forms(m)) = self.matcher() else {
            return;
        };
        let shown = shown(html);
        let pieces: Vec<String> = split_matches(&m, &shown)
            .into_iter()
            .map(|(s, e)| html[s..e].to_string())
            .filter(|p| !m.is_match(p))
            .collect();
        self.add_derived(pieces);
    }
}

/// The ranges of the HTML that `m` matches in its text as shown, those that are not one run of
/// text as they are (a match inside one text run is found in the HTML itself).
fn split_matches(m: &AhoCorasick, shown: &Shown) -> Vec<(usize, usize)> {
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

/// `html`'s text as it is shown (see [`Shown`]).
fn shown(html: &str) -> Shown {
    let mut s = Shown {
        text: String::new(),
        from: Vec::new(),
        runs: Vec::new(),
    };
    let bytes = html.as_bytes();
    let (mut i, mut run) = (0, 0);
    while i < html.len() {
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        if bytes[i] == b'<' && (next.is_ascii_alphabetic() || b"/!?".contains(&next)) {
            if run < i {
                s.runs.push((run, i));
            }
            i = tag_end(html, i);
            run = i;
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

/// Where the tag (or comment, or element whose content is not shown) that starts at `at` ends.
fn tag_end(html: &str, at: usize) -> usize {
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
        let after = html[end..].to_ascii_lowercase();
        return after
            .find(&close)
            .map_or(html.len(), |e| tag_end(html, end + e));
    }
    end
}

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
