//! A text with each secret named instead of masked: what tells two questions to an agent's
//! cache apart by the secrets they read, never by their values.

use std::cell::Cell;

use super::{Kind, Masker, Matcher, matches, replaced_by};

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
