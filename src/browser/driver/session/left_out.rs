//! What the browser's accessibility tree leaves out, as the browser says: the one answer to
//! "is this part of the page modal-blocked or inert" for the check before a picture (a part the
//! snapshot, runner's second look, does not read: `shown`) and for a role look-up (a part its
//! tree leaves out: `selector::ax_roles`).
//!
//! Chromium's tree, asked of one element (`Accessibility.getPartialAXTree`, nothing around it),
//! gives why it ignores it: `activeModalDialog` (a `<dialog>` open as a modal, `showModal()`,
//! anywhere in its document, in a closed shadow root too, makes all but the dialog inert),
//! `inertElement` and `inertSubtree` (an `inert` part, around a frame's element too: the frame's
//! document is inert), `ariaHiddenElement` and `ariaHiddenSubtree` (`aria-hidden="true"`). No
//! page script can tell the first (`:modal` does not look into shadow roots, and not at all
//! into closed ones).

use std::time::Duration;

use serde_json::{Value, json};

use super::Session;
use crate::step::StepError;

/// Why the browser's accessibility tree leaves an element out, when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeftOut {
    /// Inert: behind a modal dialog, or in an `inert` part (Playwright's getByRole finds it).
    Inert,
    /// Under `aria-hidden="true"` (Playwright's getByRole leaves it out too).
    AriaHidden,
}

impl Session {
    /// Why the browser's accessibility tree leaves out each element of `ids` (remote objects of
    /// runner's own session on the tab), in order (`None`: it is in the tree, or it has no
    /// place there); all asked at once. `None` when runner has no session of its own on the tab.
    pub(crate) async fn left_out(
        &mut self,
        ids: &[String],
        t: Duration,
    ) -> Option<Result<Vec<Option<LeftOut>>, StepError>> {
        let params = ids
            .iter()
            .map(|id| json!({ "objectId": id, "fetchRelatives": false }))
            .collect();
        let answers = self
            .call_own_all("Accessibility.getPartialAXTree", params, t)
            .await?;
        Some(answers.into_iter().map(|a| a.map(|v| why(&v))).collect())
    }
}

/// Why `Accessibility.getPartialAXTree`'s answer for one element (without its relatives)
/// says the tree leaves it out.
fn why(answer: &Value) -> Option<LeftOut> {
    let node = answer.get("nodes")?.as_array()?.first()?;
    let reasons = node.get("ignoredReasons")?.as_array()?;
    let named = |n: &str| {
        reasons
            .iter()
            .any(|r| r.get("name").and_then(Value::as_str) == Some(n))
    };
    if ["activeModalDialog", "inertElement", "inertSubtree"]
        .iter()
        .any(|n| named(n))
    {
        Some(LeftOut::Inert)
    } else if named("ariaHiddenElement") || named("ariaHiddenSubtree") {
        Some(LeftOut::AriaHidden)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{LeftOut, why};
    use serde_json::json;

    #[test]
    fn the_reason_the_tree_gives_is_read() {
        let node = |reasons: &[&str]| {
            let reasons: Vec<_> = reasons.iter().map(|r| json!({ "name": r })).collect();
            json!({ "nodes": [{ "ignored": !reasons.is_empty(), "ignoredReasons": reasons }] })
        };
        assert_eq!(why(&node(&["activeModalDialog"])), Some(LeftOut::Inert));
        assert_eq!(why(&node(&["inertSubtree"])), Some(LeftOut::Inert));
        assert_eq!(why(&node(&["inertElement"])), Some(LeftOut::Inert));
        assert_eq!(
            why(&node(&["ariaHiddenSubtree"])),
            Some(LeftOut::AriaHidden)
        );
        assert_eq!(
            why(&node(&["ariaHiddenElement", "inertSubtree"])),
            Some(LeftOut::Inert)
        );
        assert_eq!(why(&node(&["uninteresting"])), None);
        assert_eq!(why(&node(&[])), None);
        assert_eq!(why(&json!({ "nodes": [] })), None);
    }
}
