//! A text with each secret named instead of masked: what tells two questions to an agent's
//! cache apart by the secrets they read, never by their values; and what an atlas stores of a
//! text that holds a secret (`{{ secrets.NAME }}` where the value was, the text around as
//! text), which a replay renders with its own secrets.

use std::cell::Cell;

use super::{Kind, Masker, Matcher, matches, replaced_by};
use crate::template::literal;

impl Masker {
    /// Keeps the secrets `values` (named `name`, when added by name) for
    /// [`Masker::names`] and [`Masker::mask_named`].
    pub(super) fn note_added(&self, name: Option<&str>, values: impl IntoIterator<Item = String>) {
        let Ok(mut inner) = self.inner.write() else {
            return;
        };
        for v in values.into_iter().filter(|v| !v.is_empty()) {
            let entry = (name.map(str::to_string), v);
            if !inner.added.contains(&entry) {
                inner.added.push(entry);
            }
        }
    }

    /// The secrets added by name, with their values, the longest first (where one secret's value
    /// holds another's, the longer is the one a text holds): those [`Masker::as_template`] may
    /// name.
    pub(crate) fn named_values(&self) -> Vec<(String, String)> {
        let mut named: Vec<(String, String)> = self
            .inner
            .read()
            .map(|i| {
                i.added
                    .iter()
                    .filter_map(|(n, v)| n.clone().map(|n| (n, v.clone())))
                    .collect()
            })
            .unwrap_or_default();
        named.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
        named
    }

    /// `s` as a template that renders it: each value of `secrets` (name, value; the longest
    /// first) in it as `{{ secrets.NAME }}`, the text between as text
    /// ([`crate::template::literal`]). None when no secret of `secrets` is in it, or when some
    /// text between still holds a secret this masker masks (another form of one: its case, its
    /// reverse, its base64; or a secret not in `secrets`): that cannot be stored without it.
    pub(crate) fn as_template(&self, secrets: &[(String, String)], s: &str) -> Option<String> {
        let mut out = String::new();
        let (mut rest, mut text) = (s, String::new());
        let mut named_one = false;
        while let Some(c) = rest.chars().next() {
            if let Some((name, value)) = secrets.iter().find(|(_, v)| rest.starts_with(v.as_str()))
            {
                if self.mask(&text) != text {
                    return None;
                }
                // A `{` of the text just before the tag would open it early (`{{{`): it goes
                // inside, as a string the tag prints first.
                let before = literal(&text);
                if let Some(b) = before.strip_suffix('{') {
                    out.push_str(b);
                    out.push_str(&format!("{{{{ '{{' ~ secrets.{name} }}}}"));
                } else {
                    out.push_str(&before);
                    out.push_str(&format!("{{{{ secrets.{name} }}}}"));
                }
                text.clear();
                rest = &rest[value.len()..];
                named_one = true;
            } else {
                text.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        if !named_one || self.mask(&text) != text {
            return None;
        }
        out.push_str(&literal(&text));
        Some(out)
    }

    /// `text` with what [`Masker::mask`] would mask replaced by the names of the secrets it
    /// holds (`{{ secrets.CUST_B }}`; `***` for a secret added without a name): two texts that
    /// differ in which secret they hold stay different, two that differ only in a secret's value
    /// are the same, and nothing of a value is left (a hash of it is no oracle for the value).
    /// None when some masked part holds no secret that can be told (a value made of one that
    /// shows none of its forms: `{{ secrets.PIN[2:] }}`), or when the secrets cannot be looked
    /// for: what it would be named by could not tell secrets apart.
    pub(crate) fn mask_named(&self, text: &str) -> Option<String> {
        let m = match self.matcher() {
            None => return Some(text.to_string()),
            Some(Matcher::All) => return None,
            Some(Matcher::Forms(m)) => m,
        };
        let spans = matches(&m, text);
        if spans.is_empty() {
            return Some(text.to_string());
        }
        let added = self.inner.read().ok()?.added.clone();
        let each: Vec<(Option<String>, Masker)> = added
            .into_iter()
            .map(|(name, value)| {
                let one = Masker::default();
                one.learn([value], Kind::Secret);
                (name, one)
            })
            .collect();
        let untold = Cell::new(false);
        let out = replaced_by(text, spans, &|part| {
            let held: Vec<&Option<String>> = each
                .iter()
                .filter(|(_, one)| one.holds_secret(part))
                .map(|(name, _)| name)
                .collect();
            let mut names: Vec<&str> = held.iter().filter_map(|n| n.as_deref()).collect();
            names.sort_unstable();
            names.dedup();
            if names.is_empty() {
                untold.set(untold.get() || held.is_empty());
                return "***".to_string();
            }
            names
                .iter()
                .map(|n| format!("{{{{ secrets.{n} }}}}"))
                .collect()
        });
        (!untold.get()).then_some(out)
    }
}
