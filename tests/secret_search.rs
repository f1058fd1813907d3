//! The search the secret tests share: a run with every report (as on GitHub Actions), and
//! everything it printed and wrote (the console, the JSON, JUnit and HTML reports, the
//! annotations and the job summary, every artifact and every file name) searched for each form
//! of a secret, as written and as readers see it (JSON, HTML and annotation escapes read back,
//! escape sequences and hidden characters taken out).

use std::path::Path;

use crate::common::{Ran, flow_run};

/// What a run and the commands after it printed, and every file under `dir`: (where, text).
/// Every file and directory name under `dir` is there too, as its own entry.
pub(crate) fn everything(dir: &Path, printed: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut texts: Vec<(String, String)> = printed
        .iter()
        .map(|(w, t)| ((*w).to_string(), (*t).to_string()))
        .collect();
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
    {
        let p = e.path();
        let rel = p.strip_prefix(dir).unwrap_or(p).display().to_string();
        texts.push((format!("the name {rel}"), rel.clone()));
        if e.file_type().is_file()
            && let Ok(t) = std::fs::read_to_string(p)
        {
            texts.push((rel, t));
        }
    }
    texts
}

/// Fails naming the first form of `forms` found in `texts`.
pub(crate) fn nowhere(texts: &[(String, String)], forms: &[(&str, String)]) {
    for (where_, text) in texts {
        for (what, form) in forms {
            assert!(
                !text.contains(form.as_str()),
                "{what} (`{form}`) is in {where_}:\n{text}"
            );
        }
    }
}

/// A run of `flow` in `dir` with every report, as on GitHub Actions (annotations on stdout, the
/// job summary in `summary.md`), the secret `name` set to `value`.
pub(crate) fn run_everywhere(dir: &Path, flow: &str, name: &str, value: &str) -> Ran {
    run_everywhere_with(dir, &[flow], &[(name, value)])
}

/// [`run_everywhere`] of `args` (flow files and options), with each of `secrets` set.
pub(crate) fn run_everywhere_with(dir: &Path, args: &[&str], secrets: &[(&str, &str)]) -> Ran {
    let mut run = flow_run(dir)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .args(args)
        .args(["--report", "junit=r.xml", "--report", "html=html"]);
    for (k, v) in secrets {
        run = run.env(k, v);
    }
    let ran = run.run();
    // What is searched is there: a missing report would make the search vacuous.
    for f in ["report.json", "r.xml", "html/index.html", "summary.md"] {
        assert!(dir.join(f).is_file(), "no {f}: {}", ran.stderr);
    }
    ran
}

/// Each form as it is printed, and as a JSON string (the JSON report) and HTML text (the HTML
/// report) hold it.
pub(crate) fn as_written<'a>(forms: &[(&'a str, String)]) -> Vec<(&'a str, String)> {
    let mut out = Vec::new();
    for (what, f) in forms {
        let json = serde_json::to_string(f).unwrap();
        let html = f
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        out.push((*what, f.clone()));
        out.push((*what, json[1..json.len() - 1].to_string()));
        out.push((*what, html.replace('\'', "&#x27;")));
        out.push((*what, html.replace('\'', "&#39;")));
    }
    out
}

/// `text` as readers may see it: as written, with JSON's and GitHub's escapes read back, and
/// each of those with escape sequences and control characters (and invisible ones: zero-width
/// spaces, direction marks) taken out, as a terminal, a browser or a cleaning step would.
fn as_shown(text: &str) -> Vec<String> {
    let json = json_unescaped(text);
    let github = text
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%25", "%");
    // The job summary's Markdown cells escape each ASCII punctuation character (`\-`).
    let markdown = markdown_unescaped(text);
    let mut out = Vec::new();
    for t in [text.to_string(), json, github, markdown] {
        out.push(without_escapes(&t));
        out.push(t.chars().filter(|c| !hidden(*c)).collect());
        out.push(t);
    }
    out
}

/// `text` with each backslash before an ASCII punctuation character taken away, as CommonMark
/// shows it.
fn markdown_unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(char::is_ascii_punctuation) {
            continue;
        }
        out.push(c);
    }
    out
}

/// Controls (but line breaks and tabs) and characters that show as nothing.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}')
}

/// `\u0001`, `\u001b`, `\r` (and the like) of a JSON string read back into the characters.
fn json_unescaped(text: &str) -> String {
    let mut out = text.replace("\\r", "\r");
    for c in (0u32..0x20).chain(0x7f..0xa0) {
        let ch = char::from_u32(c).unwrap().to_string();
        out = out
            .replace(&format!("\\u{c:04x}"), &ch)
            .replace(&format!("\\u{c:04X}"), &ch);
    }
    out
}

/// `text` without ANSI escape sequences (CSI, OSC to BEL or ST, two-byte escapes) and hidden
/// characters: written here on its own, not runner's.
fn without_escapes(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            if !hidden(c) {
                out.push(c);
            }
            continue;
        }
        match chars.next() {
            Some('[') => {
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(n) = chars.next() {
                    if n == '\u{7}' || n == '\n' {
                        break;
                    }
                    if n == '\u{1b}' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every text the run printed and wrote under `dir`, each as readers may see it.
pub(crate) fn all_shown(dir: &Path, printed: &[(&str, &str)]) -> Vec<(String, String)> {
    everything(dir, printed)
        .into_iter()
        .flat_map(|(w, t)| {
            as_shown(&t)
                .into_iter()
                .map(move |s| (format!("{w} (as shown)"), s))
        })
        .collect()
}

/// [`run_everywhere`] of a flow whose last step fails (only it: exit 1).
pub(crate) fn run_failing_last(dir: &Path, flow: &str, name: &str, value: &str) -> Ran {
    let ran = run_everywhere(dir, flow, name, value);
    assert_eq!(ran.code, 1, "only the last step fails: {}", ran.stderr);
    ran
}

/// Fails naming the first of `forms`, [`as_written`], found in what was `printed` or anything
/// under `dir` ([`everything`]).
pub(crate) fn nowhere_written(dir: &Path, printed: &[(&str, &str)], forms: &[(&str, String)]) {
    nowhere(&everything(dir, printed), &as_written(forms));
}

/// [`nowhere_written`], searching each text as readers may see it too ([`all_shown`]).
pub(crate) fn nowhere_shown(dir: &Path, printed: &[(&str, &str)], forms: &[(&str, String)]) {
    nowhere(&all_shown(dir, printed), &as_written(forms));
}
