//! Diagnostics as text: human (miette's graphical report), JSON, GitHub annotations.

use miette::{GraphicalReportHandler, GraphicalTheme};
use serde_json::json;

use crate::source::Diagnostic;
use crate::step::Location;

/// miette's rendering: `file:line:col`, the source line with a caret, the message and `help:`.
pub(crate) fn human(d: &Diagnostic, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false)
        .with_context_lines(1);
    let mut out = String::new();
    if d.file.is_none() || d.span.is_none() {
        out.push_str(&format!("error: {}: {}\n", d.file_name, d.message));
        if let Some(h) = &d.help {
            out.push_str(&format!("  help: {h}\n"));
        }
        out.push('\n');
        return out;
    }
    let short = windowed(d);
    let mut s = String::new();
    if handler
        .render_report(&mut s, short.as_ref().unwrap_or(d))
        .is_err()
    {
        s = format!("{d}\n");
    }
    // miette names the location in the frame; keep a plain `file:line:col` first for editors
    // and terminals that make it clickable.
    out.push_str(&format!("{}: error: {}\n", d.location(), d.message));
    // Skip miette's own header (the message, wrapped over as many lines as it needs).
    let frame = s.lines().position(|l| l.contains("╭─[")).unwrap_or(1);
    for line in s.lines().skip(frame) {
        // (The frame names the place in the file itself, not in a shortened line.)
        match (line.find("╭─["), line.rfind(']')) {
            (Some(open), Some(close)) if open < close => {
                let open = open + "╭─[".len();
                out.push_str(&format!(
                    "{}{}{}",
                    &line[..open],
                    d.location(),
                    &line[close..]
                ));
            }
            _ => out.push_str(line.trim_end()),
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// The most characters of a source line an excerpt shows: a longer one (a minified JSON file,
/// a line of 10,000 brackets) is shown as a window around the place, never whole.
const MAX_LINE: usize = 120;

/// `d` with its excerpt's lines (the place's and one either side) cut to [`MAX_LINE`]
/// characters, a window around the place on its own line; `None` when none is longer.
fn windowed(d: &Diagnostic) -> Option<Diagnostic> {
    let (file, span) = (d.file.as_ref()?, d.span.clone()?);
    let text = file.text();
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let prev_start = text[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let next_end = text
        .get(line_end + 1..)
        .and_then(|t| t.find('\n'))
        .map_or(text.len(), |i| line_end + 1 + i);
    let long = |a: usize, b: usize| text.get(a..b).is_some_and(|l| l.chars().count() > MAX_LINE);
    let prev = (line_start > 0).then(|| (prev_start, line_start - 1));
    let next = (line_end < text.len()).then_some((line_end + 1, next_end));
    let any_long = long(line_start, line_end)
        || prev.is_some_and(|(a, b)| long(a, b))
        || next.is_some_and(|(a, b)| long(a, b));
    if !any_long {
        return None;
    }
    let head = |a: usize, b: usize| -> String {
        let l = &text[a..b];
        if l.chars().count() > MAX_LINE {
            format!("{}…", l.chars().take(MAX_LINE).collect::<String>())
        } else {
            l.to_string()
        }
    };
    // The place's line: up to half the window before the place, the rest after.
    let before: String = {
        let b: Vec<char> = text[line_start..start].chars().collect();
        let keep = b.len().min(MAX_LINE / 2);
        let cut = if keep < b.len() { "…" } else { "" };
        format!("{cut}{}", b[b.len() - keep..].iter().collect::<String>())
    };
    let after_all = &text[start..line_end];
    let after: String = after_all.chars().take(MAX_LINE / 2).collect();
    let after_cut = if after.len() < after_all.len() {
        "…"
    } else {
        ""
    };
    let mut short = "\n".repeat(
        text[..prev.map_or(line_start, |p| p.0)]
            .matches('\n')
            .count(),
    );
    if let Some((a, b)) = prev {
        short.push_str(&head(a, b));
        short.push('\n');
    }
    let at = short.len() + before.len();
    short.push_str(&format!("{before}{after}{after_cut}"));
    if let Some((a, b)) = next {
        short.push('\n');
        short.push_str(&head(a, b));
    }
    let len = span.end.saturating_sub(span.start).min(after.len());
    let file = crate::source::SourceFile::new(std::path::Path::new(file.name()), short);
    let mut w = Diagnostic::error(&file, at..at + len, d.message.clone());
    w.file_name.clone_from(&d.file_name);
    Some(w)
}

/// The source excerpt of a place in a file (the lines around it, the span underlined), as
/// `validate` shows it: what a run-time failure prints under its step.
pub(crate) fn excerpt(loc: &Location, color: bool) -> String {
    let d = Diagnostic::error(&loc.file, loc.span.clone(), "");
    human(&d, color)
        .lines()
        .skip(1) // the `file:line:col: error:` line: the caller says what failed
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A JSON list of `{file, line, col, pointer, message, help}`.
pub(crate) fn json(diags: &[Diagnostic]) -> String {
    let list: Vec<_> = diags
        .iter()
        .map(|d| {
            let (line, col) = d
                .line_col()
                .map_or((None, None), |(l, c)| (Some(l), Some(c)));
            json!({
                "file": d.file_name,
                "line": line,
                "col": col,
                "pointer": d.pointer,
                "message": d.message,
                "help": d.help,
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).unwrap_or_else(|_| "[]".into())
}

/// `::error file=F,line=L,col=C::message` (GitHub Actions workflow command).
pub(crate) fn github(d: &Diagnostic) -> String {
    let mut msg = d.message.clone();
    if let Some(h) = &d.help {
        msg.push_str(&format!(" (help: {h})"));
    }
    let msg = super::github::data(&msg);
    let file = super::github::property(&d.file_name);
    match d.line_col() {
        Some((l, c)) => format!("::error file={file},line={l},col={c}::{msg}"),
        None => format!("::error file={file}::{msg}"),
    }
}
