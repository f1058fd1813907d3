//! GitHub Actions: `::error` workflow commands (annotations on the failing line) and the job's
//! Markdown summary (`$GITHUB_STEP_SUMMARY`), written from the report document.

use super::model::{Report, place, shown_path as shown};
use crate::step::shown::clean;

/// A workflow command's message: without escape sequences and control characters (as the
/// console shows it), then `%`, CR and LF escaped.
pub(crate) fn data(s: &str) -> String {
    clean(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as `data`, and `:` and `,` too.
pub(crate) fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error` line per flow that did not pass, on the line of the step that failed (or of
/// the flow's file when it failed outside any step).
pub(crate) fn annotations(r: &Report) -> String {
    let mut out = String::new();
    // A flow never started has no line of its own to point at: the failure that stopped the
    // run is annotated.
    for f in r
        .flows
        .iter()
        .filter(|f| f.status != "passed" && f.status != "skipped")
    {
        let (what, message, location) = match (f.failed_step(), &f.error) {
            (Some(step), _) => {
                let e = step.error.as_ref();
                (
                    format!("step `{}` {}", step.name, f.status),
                    e.map_or_else(
                        || f.status.clone(),
                        |e| format!("{}: {}", e.kind, e.message),
                    ),
                    e.and_then(|e| e.location.clone())
                        .unwrap_or_else(|| step.location.clone()),
                )
            }
            (None, Some(e)) => (
                f.status.clone(),
                format!("{}: {}", e.kind, e.message),
                e.location.clone().unwrap_or_default(),
            ),
            (None, None) => (f.status.clone(), f.status.clone(), String::new()),
        };
        // The annotation sits where it failed; a sub-flow's call chain goes in its message.
        let message = if location.contains(" > ") {
            format!("{message} (at {location})")
        } else {
            message
        };
        let title = property(&format!("{}: {what}", f.name));
        let at = match place(&location) {
            Some((file, line, col)) => {
                format!("file={},line={line},col={col},", property(&shown(file)))
            }
            None => format!("file={},", property(&shown(&f.file))),
        };
        out.push_str(&format!("::error {at}title={title}::{}\n", data(&message)));
    }
    out
}

/// A Markdown cell of plain text: without escape sequences and control characters (as the
/// console shows it), no line breaks, and every ASCII punctuation character escaped with a
/// backslash (CommonMark shows each as it is), so text from outside (a command's stderr, a
/// page's title, a flow's name) is shown as text: no HTML (`<img>`), link, emphasis, code span,
/// autolink (`http\://`), mention or `|` that ends the cell.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in clean(s).chars() {
        match c {
            '\r' | '\n' | '\t' => out.push(' '),
            c if c.is_ascii_punctuation() => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `s` as a code span in a Markdown cell: fenced by one backtick more than its longest run of
/// them (so none of its own ends it), its `|` escaped (a table's cells are split first).
fn code(s: &str) -> String {
    let s = clean(s)
        .replace(['\r', '\n', '\t'], " ")
        .replace('|', "\\|");
    let (mut run, mut longest) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// The job summary: counts, then a row per flow (failed ones first) with its failing step.
pub(crate) fn step_summary(r: &Report) -> String {
    let s = &r.summary;
    let mut out = format!(
        "### runner: {} of {} flows passed\n\n{} failed, {} errors, {} flaky, {} skipped, {:.1} s\n\n| flow | status | file | failed step |\n|---|---|---|---|\n",
        s.passed,
        s.total,
        s.failed,
        s.errors,
        s.flaky,
        s.skipped,
        r.duration().as_secs_f64()
    );
    let mut flows: Vec<_> = r.flows.iter().collect();
    flows.sort_by_key(|f| f.status == "passed");
    for f in flows {
        let failed = f.failed_step().map_or_else(String::new, |st| {
            format!(
                "{} at {}: {}",
                code(&st.name),
                cell(
                    st.error
                        .as_ref()
                        .and_then(|e| e.location.as_deref())
                        .unwrap_or(&st.location)
                ),
                cell(st.error.as_ref().map_or("", |e| e.message.as_str()))
            )
        });
        let status = if f.flaky && f.status == "passed" {
            "passed (flaky)".to_string()
        } else {
            f.status.clone()
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            cell(&f.name),
            cell(&status),
            cell(&shown(&f.file)),
            failed
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn places_and_escapes() {
        assert_eq!(super::place("a:b.yaml:3:5"), Some(("a:b.yaml", 3, 5)));
        assert_eq!(super::place("nowhere"), None);
        assert_eq!(super::property("a,b:c%\n"), "a%2Cb%3Ac%25%0A");
        assert_eq!(
            super::data("\u{1b}[2J\u{1b}]0;t\u{7}\u{1}50%\r\nok"),
            "50%25%0Aok"
        );
        assert_eq!(super::property("\u{1b}[1mf,1:2\u{1b}[0m"), "f%2C1%3A2");
        assert_eq!(super::cell("a|b\u{1b}[2J\nc\td"), "a\\|b c d");
    }

    /// Text from outside is shown as text in the job summary: no HTML, link, image, emphasis,
    /// code fence, autolink or cell break of its own.
    #[test]
    fn a_cell_renders_no_markdown_or_html_of_its_text() {
        assert_eq!(
            super::cell("<img src=x> **b** [l](http://e.x) `c` @all #1"),
            r"\<img src\=x\> \*\*b\*\* \[l\]\(http\:\/\/e\.x\) \`c\` \@all \#1"
        );
        assert_eq!(super::code("exec a|b"), "`exec a\\|b`");
        assert_eq!(super::code("a ``` b"), "````a ``` b````");
        assert_eq!(super::code("`x"), "`` `x ``");
    }
}
