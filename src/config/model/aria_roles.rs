//! The roles a `role` selector may name: WAI-ARIA's (as Playwright's getByRole takes them) and
//! the names Chromium's accessibility tree and agent-browser's snapshot show for some of them.
//! A role outside both is a typo (`buton`): no element ever has it, so `hidden: { role: buton }`
//! would hold on any page — `validate` refuses it instead.

/// WAI-ARIA 1.2 roles (Playwright's list for getByRole).
const ARIA: &[&str] = &[
    "alert",
    "alertdialog",
    "application",
    "article",
    "banner",
    "blockquote",
    "button",
    "caption",
    "cell",
    "checkbox",
    "code",
    "columnheader",
    "combobox",
    "complementary",
    "contentinfo",
    "definition",
    "deletion",
    "dialog",
    "directory",
    "document",
    "emphasis",
    "feed",
    "figure",
    "form",
    "generic",
    "grid",
    "gridcell",
    "group",
    "heading",
    "img",
    "insertion",
    "link",
    "list",
    "listbox",
    "listitem",
    "log",
    "main",
    "marquee",
    "math",
    "meter",
    "menu",
    "menubar",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "navigation",
    "none",
    "note",
    "option",
    "paragraph",
    "presentation",
    "progressbar",
    "radio",
    "radiogroup",
    "region",
    "row",
    "rowgroup",
    "rowheader",
    "scrollbar",
    "search",
    "searchbox",
    "separator",
    "slider",
    "spinbutton",
    "status",
    "strong",
    "subscript",
    "superscript",
    "switch",
    "tab",
    "table",
    "tablist",
    "tabpanel",
    "term",
    "textbox",
    "time",
    "timer",
    "toolbar",
    "tooltip",
    "tree",
    "treegrid",
    "treeitem",
];

/// Names Chromium's tree (and so the snapshot) gives where ARIA's differ or it has no role.
const CHROMIUM: &[&str] = &[
    "image",
    "statictext",
    "labeltext",
    "rootwebarea",
    "section",
    "listmarker",
    "linebreak",
    "abbr",
    "mark",
    "ruby",
    "video",
    "audio",
    "canvas",
    "iframe",
    "embeddedobject",
    "svgroot",
    "legend",
    "details",
    "disclosuretriangle",
    "descriptionlist",
    "descriptionlistterm",
    "descriptionlistdetail",
    "contenteditable",
    "pluginobject",
    "datetime",
    "inputtime",
    "colorwell",
    "date",
    "figcaption",
    "header",
    "footer",
    "sectionheader",
    "sectionfooter",
    "inlinetextbox",
    "layouttable",
    "layouttablerow",
    "layouttablecell",
    "pdfroot",
    "unknown",
];

/// Why `role` names no role, with the closest one, if it does not; a template is checked
/// once rendered.
pub(crate) fn unknown(role: &str) -> Option<String> {
    if role.contains("{{") {
        return None;
    }
    let lower = role.trim().to_lowercase();
    if ARIA.contains(&lower.as_str()) || CHROMIUM.contains(&lower.as_str()) {
        return None;
    }
    let near = crate::source::did_you_mean(role.trim(), ARIA.iter().copied())
        .map(|r| format!(" (did you mean `{r}`?)"))
        .unwrap_or_default();
    Some(format!(
        "`{role}` is not an ARIA role{near}: no element has it, so a check that it is hidden or absent would always hold"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn roles_and_typos() {
        for r in [
            "button",
            "Dialog",
            "img",
            "image",
            "listitem",
            "StaticText",
            "{{ vars.r }}",
        ] {
            assert_eq!(super::unknown(r), None, "{r}");
        }
        let why = super::unknown("buton").unwrap();
        assert!(why.contains("did you mean `button`"), "{why}");
        assert!(super::unknown("modal").is_some());
    }
}
