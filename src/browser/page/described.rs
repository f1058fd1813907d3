//! Elements as runner's messages describe them (a strict-mode error's matches, the element a
//! click would reach instead): `tag#id.class "its text"`. The page sends the text whole (up to
//! a bound, saying when there was more); here it is masked with the flow's masker, then put on
//! one line and cut at `SHOWN` characters. A cut made in the page, before masking, would show
//! the head of a secret typed into a field.

use serde_json::Value;

use crate::step::Masker;

/// The most characters of an element's text a description shows.
const SHOWN: usize = 40;

/// What marks an element a page's message names (`hit_arm.js`): the JSON of its
/// `[name, text, more]` between them.
const OPEN: char = '\u{1}';
const CLOSE: char = '\u{2}';

/// An element as the page described it (`[name, text, more]`): its name, and its text masked,
/// then on one line and cut, in quotes (none when it has no text).
pub(crate) fn element(masker: &Masker, d: &Value) -> String {
    let name = d[0].as_str().unwrap_or_default();
    let text = d[1].as_str().unwrap_or_default();
    let more = d[2].as_bool() == Some(true);
    let t = masker.mask_cut_held(text, more, true, SHOWN);
    if t.is_empty() {
        name.to_string()
    } else {
        format!("{name} \"{t}\"")
    }
}

/// Each of a look-up's matches the page described (`mark_picked.js`).
pub(crate) fn elements(masker: &Masker, v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|d| element(masker, d)).collect())
        .unwrap_or_default()
}

/// `message` of the page, each element it names described ([`element`]); a mark left open
/// (the message was cut elsewhere) leaves nothing of the text after it.
pub(crate) fn in_message(masker: &Masker, message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at + OPEN.len_utf8()..];
        let Some(end) = after.find(CLOSE) else {
            out.push('…');
            return out;
        };
        let d: Value = serde_json::from_str(&after[..end]).unwrap_or(Value::Null);
        out.push_str(&element(masker, &d));
        rest = &after[end + CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn texts_are_masked_then_cut() {
        let m = Masker::default();
        m.add("Kestrel-Vault-9931-Zulu");
        let text = format!("{}Kestrel-Vault-9931-Zulu", "a \n ".repeat(10));
        assert_eq!(
            element(&m, &json!(["input#a", text, false])),
            r#"input#a "a a a a a a a a a a ***""#
        );
        assert_eq!(element(&m, &json!(["div", " \n", false])), "div");
        let long = format!("{}Kestrel", "x".repeat(200));
        assert_eq!(
            element(&m, &json!(["p", long, true])),
            format!("p \"{}…\"", "x".repeat(40))
        );
        let why = format!(
            "runner: {}{}{} would receive the click instead",
            '\u{1}',
            json!(["textarea#ov", "Kestrel-Vault-9931-Zulu", false]),
            '\u{2}'
        );
        assert_eq!(
            in_message(&m, &why),
            r#"runner: textarea#ov "***" would receive the click instead"#
        );
        assert_eq!(in_message(&m, "x \u{1}[\"b\""), "x …");
    }
}
