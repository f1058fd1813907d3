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

/// The most characters of a failure message a row of the job summary shows (the reports hold
/// the whole).
const MESSAGE_CHARS: usize = 300;

/// The most bytes of the job summary runner writes: GitHub drops a step's summary over 1 MiB
/// whole, and a run where every flow fails with a long message (a server down) is the one
/// whose summary matters. Rows past it are counted, not shown.
const SUMMARY_BYTES: usize = 256 * 1024;

/// `s` cut at `MESSAGE_CHARS` characters, with `…` where it was cut.
fn cut_message(s: &str) -> String {
    match s.char_indices().nth(MESSAGE_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The job summary: counts, then a row per flow (failed ones first) with its failing step, each
/// message cut at `MESSAGE_CHARS`, the whole at most `SUMMARY_BYTES` (the rows left out said).
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
    let total = flows.len();
    for (shown_rows, f) in flows.into_iter().enumerate() {
        if out.len() > SUMMARY_BYTES {
            out.push_str(&format!(
                "\n{} more flow(s) not shown here (the summary's size is bounded): see the run's reports.\n",
                total - shown_rows
            ));
            break;
        }
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
                cell(&cut_message(
                    st.error.as_ref().map_or("", |e| e.message.as_str())
                ))
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

    /// Attack 30, F9: 400 failing flows with a 4 KB message wrote 1.7 MB, which GitHub drops
    /// whole (over 1 MiB). Each message is cut, the whole bounded, the rows left out counted.
    #[test]
    fn the_job_summary_stays_under_githubs_limit() {
        let mut flows = Vec::new();
        for i in 0..3000 {
            flows.push(serde_json::json!({
                "name": format!("flow {i}"), "file": "f.yaml", "status": "failed",
                "duration_ms": 1, "error": null, "flaky": false, "steps": [{
                    "index": 1, "id": "s", "name": "exec", "action": "exec", "outcome": "failed",
                    "conclusion": "failed", "attempts": 1, "flaky": false, "finally": false,
                    "duration_ms": 1, "location": "f.yaml:3:5",
                    "error": { "kind": "command_failed", "message": "é".repeat(4000) },
                }],
            }));
        }
        let r: super::Report = serde_json::from_value(serde_json::json!({
            "run_id": "r", "flows": flows,
            "summary": { "total": 3000, "passed": 0, "failed": 3000, "errors": 0,
                "interrupted": 0, "flaky": 0, "skipped": 0, "duration_ms": 1 },
        }))
        .unwrap();
        let md = super::step_summary(&r);
        assert!(md.len() <= super::SUMMARY_BYTES + 4096, "{}", md.len());
        assert!(md.contains("more flow(s) not shown here"), "{md}");
        let row = md.lines().find(|l| l.starts_with("| flow 0 ")).unwrap();
        assert!(row.chars().count() < 400 && row.contains('…'), "{row}");
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
