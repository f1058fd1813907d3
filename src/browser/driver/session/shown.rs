//! The page's text as it is rendered (`SHOWN_TEXT`): what a picture of it would show, read to
//! tell whether a screenshot, a screencast frame or an atlas node's screenshot would show a
//! secret in pixels, which no masker reads.

use std::time::Duration;

use serde_json::Value;

use super::Session;
use crate::browser::driver::script::{SHOWN_TEXT, call};

/// The most characters of a page's rendered text read to look for secrets in: a page with more
/// is taken for one that cannot be read to tell (no answer may come near the DevTools
/// connection's message limit).
const MAX_SHOWN: usize = 4 * 1024 * 1024;

impl Session {
    /// The texts of the page's shown text nodes, in order, to be joined with nothing between
    /// them (none when they cannot be read within `t`, the page's own work bounded by `budget`
    /// too, or come to more than `MAX_SHOWN` characters).
    pub(crate) async fn shown_texts(
        &mut self,
        t: Duration,
        budget: Duration,
    ) -> Option<Vec<String>> {
        let ms = u64::try_from(budget.min(t).as_millis()).unwrap_or(u64::MAX);
        let js = call(SHOWN_TEXT, &[Value::from(MAX_SHOWN), Value::from(ms)]);
        let answer = self.eval(&js, t).await.ok()?;
        let texts = answer.get("texts")?.as_array()?;
        Some(
            texts
                .iter()
                .map(|t| t.as_str().unwrap_or_default().to_string())
                .collect(),
        )
    }
}
