//! Masking secret values in everything that leaves the engine.

use serde_json::Value;

/// Replaces every secret value with `***`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Masker {
    /// Longest first, so a secret that contains another is masked whole.
    values: Vec<String>,
}

impl Masker {
    /// A masker for these values (empty ones are ignored: they would match everywhere).
    pub(crate) fn new(values: impl IntoIterator<Item = String>) -> Masker {
        let mut values: Vec<String> = values.into_iter().filter(|v| !v.is_empty()).collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Masker { values }
    }

    /// Adds more values (a sub-flow's secrets).
    pub(crate) fn extend(&self, more: impl IntoIterator<Item = String>) -> Masker {
        Masker::new(self.values.iter().cloned().chain(more))
    }

    /// The values masked.
    pub(crate) fn values(&self) -> Vec<String> {
        self.values.clone()
    }

    /// `text` with secrets replaced.
    pub(crate) fn mask(&self, text: &str) -> String {
        let mut out = text.to_string();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), "***");
            }
        }
        out
    }

    /// A copy of `value` with secrets replaced in every string.
    pub(crate) fn mask_value(&self, value: &Value) -> Value {
        if self.values.is_empty() {
            return value.clone();
        }
        match value {
            Value::String(s) => Value::String(self.mask(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.mask_value(v)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), self.mask_value(v)))
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
    fn masks_longest_first() {
        let m = Masker::new(["abc".to_string(), "abcdef".to_string(), String::new()]);
        assert_eq!(m.mask("x abcdef y abc"), "x *** y ***");
        assert_eq!(
            m.mask_value(&serde_json::json!({"a": ["abc"]})),
            serde_json::json!({"a": ["***"]})
        );
    }
}
