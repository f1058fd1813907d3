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

/// A Markdown cell: without escape sequences and control characters (as the console shows it),
/// no line breaks, no `|`.
fn cell(s: &str) -> String {
    clean(s)
        .replace('|', "\\|")
        .replace(['\r', '\n', '\t'], " ")
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
                "`{}` at {}: {}",
                st.name,
                st.error
                    .as_ref()
                    .and_then(|e| e.location.as_deref())
                    .unwrap_or(&st.location),
                st.error.as_ref().map_or("", |e| e.message.as_str())
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
            status,
            cell(&shown(&f.file)),
            cell(&failed)
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
}
