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
    let mut s = String::new();
    if handler.render_report(&mut s, d).is_err() {
        s = format!("{d}\n");
    }
    // miette names the location in the frame; keep a plain `file:line:col` first for editors
    // and terminals that make it clickable.
    out.push_str(&format!("{}: error: {}\n", d.location(), d.message));
    // Skip miette's own header (the message, wrapped over as many lines as it needs).
    let frame = s.lines().position(|l| l.contains("╭─[")).unwrap_or(1);
    for line in s.lines().skip(frame) {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push('\n');
    out
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
