//! Session ids `{EXECUTOR_TYPE}:{ACTUAL_PROJECT_ID}:{SESSION_ID}`: the project id is the URL-safe
//! base64 of the workspace path; the last part is whatever the agent uses (not always a UUID).
//! Also the session-file watch for agents that only write their id to disk (Gemini).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The project id of a workspace.
pub(crate) fn project_id(workspace: &Path) -> String {
    URL_SAFE_NO_PAD.encode(workspace.as_os_str().as_encoded_bytes())
}

/// `{executor}:{project}:{id}`.
pub(crate) fn format(executor: &str, workspace: &Path, id: &str) -> String {
    format!("{executor}:{}:{id}", project_id(workspace))
}

/// The longest agent's own id runner takes.
const MAX_ID: usize = 256;

/// Whether `id`, an agent's own session id as it printed it (or wrote it in a session file), is
/// one runner uses: 1 to 256 ASCII letters, digits, `.`, `_`, `:` or `-`, not only dots.
/// Claude's, Codex's, Cursor's and Gemini's ids are UUIDs, opencode's `ses_<hex>`; the id goes
/// into relay lines, outputs, reports and a follow-up's argv, where a newline, an escape
/// sequence, a direction mark or `../` would forge or mislead.
pub(crate) fn is_valid_id(id: &str) -> bool {
    (1..=MAX_ID).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
        && !id.bytes().all(|b| b == b'.')
}

/// An id that is not valid, as a message may show it: quoted, everything but printable ASCII
/// escaped (`\n`, `\u{1b}`, `\u{202e}`), at most 120 characters of it.
pub(crate) fn shown(id: &str) -> String {
    let mut out = String::from("\"");
    for (i, c) in id.chars().enumerate() {
        if i == 120 {
            out.push_str("...");
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A parsed full session id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionId {
    pub(crate) executor: String,
    pub(crate) workspace: PathBuf,
    /// The agent's own id.
    pub(crate) id: String,
}

/// Parses `{executor}:{project}:{id}` (the id may itself contain `:`); an id runner would not
/// take from an agent (see [`is_valid_id`]) makes it none, so it reaches no follow-up's argv.
pub(crate) fn parse(full: &str) -> Option<SessionId> {
    let mut parts = full.splitn(3, ':');
    let executor = parts.next()?.to_string();
    let project = parts.next()?;
    let id = parts.next()?.to_string();
    let bytes = URL_SAFE_NO_PAD.decode(project).ok()?;
    let workspace = PathBuf::from(String::from_utf8(bytes).ok()?);
    (!executor.is_empty() && is_valid_id(&id)).then_some(SessionId {
        executor,
        workspace,
        id,
    })
}

/// Gemini keeps sessions in `~/.gemini/tmp/<project>/chats/session-*.json` (or `.jsonl`, one
/// object per line): the id is the `sessionId` field (of the first line for JSONL). Files older
/// than `since` are ignored.
pub(crate) fn find_gemini_session(home: &Path, since: SystemTime) -> Option<String> {
    let tmp = home.join(".gemini").join("tmp");
    let mut newest: Option<(SystemTime, String)> = None;
    for project in std::fs::read_dir(tmp).ok()?.flatten() {
        let Ok(chats) = std::fs::read_dir(project.path().join("chats")) else {
            continue;
        };
        for f in chats.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            // Gemini names its files exactly so: no other case to match.
            #[allow(clippy::case_sensitive_file_extension_comparisons)]
            let skip = !name.starts_with("session-")
                || !(name.ends_with(".json") || name.ends_with(".jsonl"));
            if skip {
                continue;
            }
            let Ok(modified) = f.metadata().and_then(|m| m.modified()) else {
                continue;
            };
            if modified < since {
                continue;
            }
            // Only a regular file, and not without end: a FIFO there would block the run.
            let Ok(text) = crate::fs::read_regular(&f.path(), 64 << 20)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
            else {
                continue;
            };
            #[allow(clippy::case_sensitive_file_extension_comparisons)]
            let jsonl = name.ends_with(".jsonl");
            let first = if jsonl {
                text.lines().next().unwrap_or("")
            } else {
                text.as_str()
            };
            let Some(id) = serde_json::from_str::<serde_json::Value>(first)
                .ok()
                .and_then(|v| {
                    v.get("sessionId")
                        .and_then(|s| s.as_str())
                        .map(str::to_string)
                })
            else {
                continue;
            };
            if newest.as_ref().is_none_or(|(t, _)| modified > *t) {
                newest = Some((modified, id));
            }
        }
    }
    newest.map(|(_, id)| id)
}

/// Polls for a Gemini session file every 500 ms for at most 30 s (or until `stop` is true);
/// files older than the launch minus 5 s are ignored.
pub(crate) async fn watch_gemini_session(
    home: PathBuf,
    launched: SystemTime,
    stop: impl Fn() -> bool,
) -> Option<String> {
    let since = launched
        .checked_sub(Duration::from_secs(5))
        .unwrap_or(launched);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(id) = find_gemini_session(&home, since) {
            return Some(id);
        }
        if stop() || tokio::time::Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let full = format("CODEX", Path::new("/work/my project"), "thread:with:colons");
        let p = parse(&full).unwrap();
        assert_eq!(p.executor, "CODEX");
        assert_eq!(p.workspace, PathBuf::from("/work/my project"));
        assert_eq!(p.id, "thread:with:colons");
        assert!(!full.split(':').nth(1).unwrap().contains(['+', '/', '=']));
        assert!(parse("nonsense").is_none());
        assert!(parse(&format("CODEX", Path::new("/w"), "../../x")).is_none());
    }

    #[test]
    fn an_agents_own_id_is_plain() {
        for ok in [
            "3f1b6a8e-1c2d-4e5f-9a0b-1c2d3e4f5a6b",
            "ses_5a1b2c3d4e",
            "thread:with:colons",
            "v1.2",
            &"a".repeat(256),
        ] {
            assert!(is_valid_id(ok), "{ok}");
        }
        for bad in [
            "",
            "..",
            ".",
            "../../x",
            "a b",
            "a\nb",
            "x\u{1b}]0;t\u{7}",
            "\u{202e}x",
            "é",
            &"a".repeat(257),
        ] {
            assert!(!is_valid_id(bad), "{bad:?}");
        }
        assert_eq!(
            shown("../x\n::error\u{1b}]0;t\u{7}\r\u{202e}\"\\"),
            r#""../x\n::error\u{1b}]0;t\u{7}\r\u{202e}\"\\""#
        );
        assert_eq!(shown(&"a".repeat(200)).len(), 120 + 5);
    }

    #[test]
    fn gemini_session_files() {
        let home = tempfile::tempdir().unwrap();
        let chats = home.path().join(".gemini/tmp/abc123/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let before = SystemTime::now() - Duration::from_secs(60);
        std::fs::write(
            chats.join("session-1.jsonl"),
            "{\"sessionId\":\"g-1\",\"x\":1}\n{\"other\":2}\n",
        )
        .unwrap();
        assert_eq!(
            find_gemini_session(home.path(), before).as_deref(),
            Some("g-1")
        );
        assert_eq!(
            find_gemini_session(home.path(), SystemTime::now() + Duration::from_secs(60)),
            None
        );
    }
}
