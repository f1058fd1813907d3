//! A diagnostic as it may be printed: its text passed through what every text runner prints
//! before a run goes through (the run's declared secrets masked, escape sequences and control
//! characters taken out: see `report::reporter::shown_text`), the source lines it quotes too,
//! with its place moved to where it is in the line shown.

use std::ops::Range;
use std::path::Path;

use super::{Diagnostic, SourceFile};

impl Diagnostic {
    /// This diagnostic with `f` applied to its message, help and file name, and to each line of
    /// its source that an excerpt may show (the place's lines and one either side; the others
    /// are left empty, so that line numbers stay); its span moved into the lines shown.
    pub(crate) fn shown(&self, f: &dyn Fn(&str) -> String) -> Diagnostic {
        let mut d = self.clone();
        d.message = f(&self.message);
        d.help = self.help.as_deref().map(f);
        d.file_name = f(&self.file_name);
        if let (Some(file), Some(span)) = (&self.file, &self.span) {
            let (text, span) = shown_lines(file.text(), span.clone(), f);
            d.file = Some(SourceFile::new(Path::new(&f(file.name())), text));
            d.span = Some(span);
        }
        d
    }
}

/// `text` with the lines from the one before `span`'s first to the one after its last passed
/// through `f`, the others emptied; and `span` in the text made.
fn shown_lines(
    text: &str,
    span: Range<usize>,
    f: &dyn Fn(&str) -> String,
) -> (String, Range<usize>) {
    let start = span.start.min(text.len());
    let end = span.end.clamp(start, text.len());
    let first = text[..start].matches('\n').count().saturating_sub(1);
    let last = text[..end].matches('\n').count() + 1;
    let mut out = String::with_capacity(text.len().min(4096));
    let (mut new_start, mut new_end) = (None, None);
    let mut at = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.strip_suffix('\n').unwrap_or(raw);
        let here = at..at + raw.len();
        at += raw.len();
        if n < first || n > last {
            if raw.ends_with('\n') {
                out.push('\n');
            }
            continue;
        }
        let shown = f(line);
        let base = out.len();
        let place = |offset: usize, or_end: bool| {
            let prefix = f(&line[..(offset - here.start).min(line.len())]);
            if shown.starts_with(&prefix) {
                base + prefix.len()
            } else if or_end {
                base + shown.len()
            } else {
                base
            }
        };
        if here.contains(&start) || (start == here.end && new_start.is_none() && at == text.len()) {
            new_start = Some(place(start, false));
        }
        if new_end.is_none() && (here.contains(&end) || at == text.len()) {
            new_end = Some(place(end.min(here.end), true));
        }
        out.push_str(&shown);
        if raw.ends_with('\n') {
            out.push('\n');
        }
    }
    let s = new_start.unwrap_or(out.len());
    let e = new_end.unwrap_or(s).max(s);
    (out, s..e)
}

#[cfg(test)]
mod tests {
    use super::shown_lines;

    #[test]
    fn the_place_follows_the_text_shown() {
        let mask = |t: &str| t.replace("SECRET", "***").replace('\u{1b}', "");
        let text = "a: 1\nb: \u{1b}SECRET x\nc: 3\nd: 4\n";
        let at = text.find('x').unwrap_or(0);
        let (out, span) = shown_lines(text, at..at + 1, &mask);
        assert_eq!(out, "a: 1\nb: *** x\nc: 3\n\n");
        assert_eq!(&out[span], "x");
        // A place inside what is masked goes to the start of its line.
        let inside = text.find("CRET").unwrap_or(0);
        let (out, span) = shown_lines(text, inside..inside + 2, &mask);
        assert_eq!(&out[span.start..span.start + 3], "b: ");
    }
}
