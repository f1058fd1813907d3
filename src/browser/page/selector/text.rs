//! Texts and names compared as Playwright compares them (by the look-ups, the suggestions and
//! the checks of what a selector says).

/// A text or name as Playwright compares it: zero-width spaces and soft hyphens dropped, every
/// run of whitespace (NBSP and newlines included) one space, trimmed. The page scripts
/// (`css_elements.js`, `text_elements.js`) do the same.
pub(crate) fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '\u{200b}' | '\u{ad}'))
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
