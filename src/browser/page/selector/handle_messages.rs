//! Runner's handle (`[data-runner-sel="…"]`) in the messages of commands on the element it
//! marks: what a failure that names it means (the element is gone: resolve the selector again),
//! and the handle scrubbed from every message that leaves the browser steps.

/// The attribute of runner's handle, as it appears in the CSS of a handle.
const HANDLE_ATTRIBUTE: &str = "[data-runner-sel=";

/// Whether an error of a command on a resolved element says that element is gone: it names
/// runner's handle (`[data-runner-sel="…"]`, put on the element a moment ago) or a ref
/// (`@e5`, of a snapshot taken a moment ago) and finds nothing there, or finds it detached.
/// The element was replaced (a re-render) or its page was (a navigation): the user's selector
/// is to be resolved again, not the check failed.
pub(crate) fn is_gone(message: &str) -> bool {
    let lower = message.to_lowercase();
    let names_ours = message.contains(HANDLE_ATTRIBUTE) || lower.contains("not found: @e");
    names_ours
        && (lower.contains("not found")
            || lower.contains("detached")
            || lower.contains("no node")
            || lower.contains("not attached"))
}

/// `message` with runner's handles (`[data-runner-sel="…"]`) replaced by "the element": the
/// handle is runner's own, meaningless to the user, who wrote another selector. Every error
/// of a browser step passes through here on its way out (`steps::dispatch`). Agent-browser's
/// advice to check "the selector" is about the handle, not the user's selector: dropped too.
pub(crate) fn scrub(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(HANDLE_ATTRIBUTE) {
        out.push_str(&rest[..at]);
        let after = &rest[at + HANDLE_ATTRIBUTE.len()..];
        // `"id"]`, or whatever is left of a handle cut short.
        let end = after
            .strip_prefix('"')
            .and_then(|a| a.find("\"]").map(|i| i + 3))
            .unwrap_or_else(|| after.find(']').map_or(after.len(), |i| i + 1));
        out.push_str("the element");
        rest = &after[end..];
    }
    out.push_str(rest);
    out.replace(
        ". Verify the selector, role, or name is correct and the element exists in the DOM.",
        " (it is gone from the page)",
    )
}

#[cfg(test)]
mod tests {
    use super::{is_gone, scrub};

    #[test]
    fn handles_never_leave_in_a_message() {
        let m = "Element not found: [data-runner-sel=\"j3spd3nnwhb\"]. Verify the selector, role, or name is correct and the element exists in the DOM.";
        assert!(is_gone(m));
        assert_eq!(
            scrub(m),
            "Element not found: the element (it is gone from the page)"
        );
        assert_eq!(
            scrub("a [data-runner-sel=\"x\"] and [data-runner-sel=\"y\"]"),
            "a the element and the element"
        );
        assert_eq!(scrub("cut [data-runner-sel=\"x"), "cut the element");
        assert!(is_gone("Element not found: @e12"));
        assert!(!is_gone("no element matches css `#x`"));
        assert!(!is_gone("Element not found: #user-css"));
    }
}
