//! What agent-browser's failed switch into a selector's iframe means. runner finds a frame as
//! element CSS is found, inside open shadow roots too (attack 31, G1), so its checks and reads
//! reach an iframe a web component holds; agent-browser's `frame` command (0.41) looks only in
//! the page's own tree, and an action there cannot be sent.

use crate::step::StepError;

/// agent-browser's answer to a `frame` command that found no iframe.
const NOT_FOUND: &str = "Could not find frame for selector";

/// `e`, said in runner's terms when it is agent-browser failing to enter iframe `frame` (the
/// batch's switch, when it had one).
pub(super) fn explained(mut e: StepError, frame: Option<&str>) -> StepError {
    if let Some(f) = frame
        && e.message.contains(NOT_FOUND)
    {
        e.message = format!(
            "agent-browser (0.41) cannot enter frame `{f}` to act in it (\"{NOT_FOUND}\"): its frame switch does not look inside shadow roots, so an action in an iframe a web component holds cannot be sent (runner's checks and reads reach it), or the frame went away since it was found"
        );
    }
    e
}

#[cfg(test)]
mod tests {
    use super::explained;
    use crate::step::{ErrorKind, StepError};

    #[test]
    fn a_failed_switch_says_which_frame_and_why() {
        let e = StepError::new(ErrorKind::CommandFailed, super::NOT_FOUND.to_string());
        let m = explained(e.clone(), Some("#inner")).message;
        assert!(
            m.starts_with("agent-browser (0.41) cannot enter frame `#inner`"),
            "{m}"
        );
        assert_eq!(explained(e.clone(), None).message, e.message);
        let other = StepError::new(ErrorKind::CommandFailed, "Element not found".to_string());
        assert_eq!(
            explained(other, Some("#inner")).message,
            "Element not found"
        );
    }
}
