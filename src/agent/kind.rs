//! Output protocols of agent CLIs: how a kind starts a new chat or a follow-up, where its event
//! stream carries the session id, the final answer and the cost. Tolerates noise: non-JSON
//! lines, unknown event types, partial lines.

use serde_json::Value;

use crate::config::profiles::Kind;
use crate::step::Masker;

/// How much of an agent's answer runner keeps (its outputs, reports), as an `exec` step keeps
/// 1 MiB of its stdout: the agent's log keeps all it printed.
pub(crate) const MAX_ANSWER: usize = 1024 * 1024;

/// What the event stream has told so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct EventState {
    /// The agent's own session id (the last part of runner's session id).
    pub(crate) session_id: Option<String>,
    /// The final answer.
    pub(crate) result: Option<String>,
    /// Text of assistant messages, for kinds whose answer is the last message.
    pub(crate) last_message: Option<String>,
    /// Streamed assistant text (deltas), joined.
    pub(crate) streamed: String,
    pub(crate) cost_usd: Option<f64>,
    /// Token usage where the agent reports tokens rather than money.
    pub(crate) usage: Option<Value>,
    /// The agent said the run failed.
    pub(crate) is_error: bool,
    /// The whole stdout, for a kind without events (`generic`): its stdout is its answer.
    pub(crate) stdout: Option<String>,
    /// The answer was longer than [`MAX_ANSWER`]: what is kept is its start.
    pub(crate) truncated: bool,
}

/// Adds `text` to `to`, up to [`MAX_ANSWER`] in all (cut at a character's boundary); past it,
/// sets `truncated`.
fn push_capped(to: &mut String, text: &str, truncated: &mut bool) {
    let room = MAX_ANSWER.saturating_sub(to.len());
    if text.len() <= room {
        to.push_str(text);
        return;
    }
    let mut end = room;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    to.push_str(&text[..end]);
    *truncated = true;
}

impl EventState {
    /// Nothing told yet, by an agent of `kind`.
    pub(crate) fn of(kind: Kind) -> EventState {
        EventState {
            stdout: (kind == Kind::Generic).then(String::new),
            ..EventState::default()
        }
    }

    /// The final answer, whichever way the kind gives it (`generic`: all of stdout, without
    /// the line breaks at its end, as an `exec` step's `stdout`).
    /// At most [`MAX_ANSWER`] (see `truncated`).
    pub(crate) fn answer(&self) -> Option<String> {
        if let Some(out) = &self.stdout {
            return Some(out.trim_end_matches(['\n', '\r']).to_string());
        }
        let whole = self
            .result
            .as_ref()
            .or(self.last_message.as_ref())
            .or((!self.streamed.is_empty()).then_some(&self.streamed))?;
        let mut kept = String::new();
        push_capped(&mut kept, whole, &mut false);
        Some(kept)
    }

    /// [`EventState::answer`] as runner keeps it (outputs, reports, errors): cut where it was
    /// cut, before any secret the cut would split ([`Masker::kept_start`], as an `exec`
    /// output is), so that masked it shows no head of one.
    pub(crate) fn kept_answer(&self, masker: &Masker) -> Option<String> {
        let answer = self.answer()?;
        let kept = masker.kept_start(&answer, MAX_ANSWER, self.answer_truncated());
        Some(kept.to_string())
    }

    /// Whether the answer was cut at [`MAX_ANSWER`].
    pub(crate) fn answer_truncated(&self) -> bool {
        self.truncated
            || self
                .result
                .as_ref()
                .or(self.last_message.as_ref())
                .is_some_and(|a| self.stdout.is_none() && a.len() > MAX_ANSWER)
    }
}

impl Kind {
    /// Arguments of a new chat; `pre_assigned` is a session id runner chose, for CLIs that accept one.
    pub(crate) fn new_chat_args(self, base: &[String], pre_assigned: Option<&str>) -> Vec<String> {
        let mut args = base.to_vec();
        if let (Kind::Claude, Some(id)) = (self, pre_assigned) {
            args.push(format!("--session-id={id}"));
        }
        args
    }

    /// Whether runner can choose the session id up front.
    pub(crate) fn pre_assigns(self) -> bool {
        matches!(self, Kind::Claude)
    }

    /// Arguments of a follow-up in session `id`; `None` when the kind cannot follow up.
    pub(crate) fn follow_up_args(self, base: &[String], id: &str) -> Option<Vec<String>> {
        let mut args = base.to_vec();
        match self {
            // Claude Code only accepts the equals form reliably with other flags around it.
            Kind::Claude => args.push(format!("--resume={id}")),
            Kind::Cursor | Kind::Gemini => args.extend(["--resume".to_string(), id.to_string()]),
            Kind::Codex => args.extend(["resume".to_string(), id.to_string()]),
            Kind::Opencode => args.extend(["--session".to_string(), id.to_string()]),
            Kind::Generic => return None,
        }
        Some(args)
    }

    /// Reads one stdout line (without its line break) into `state`; anything that is not a
    /// known event is ignored. A `generic` agent's lines are its answer, whatever they hold.
    pub(crate) fn parse_line(self, state: &mut EventState, line: &str) {
        if self == Kind::Generic {
            let out = state.stdout.get_or_insert_with(String::new);
            push_capped(out, line, &mut state.truncated);
            push_capped(out, "\n", &mut state.truncated);
            return;
        }
        let t = line.trim();
        if !t.starts_with('{') {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(t) else {
            return;
        };
        match self {
            Kind::Claude | Kind::Cursor => claude_event(state, &v),
            Kind::Codex => codex_event(state, &v),
            Kind::Gemini => gemini_event(state, &v),
            Kind::Opencode => opencode_event(state, &v),
            Kind::Generic => {}
        }
    }
}

/// The string at a JSON pointer of an event.
fn text(v: &Value, pointer: &str) -> Option<String> {
    v.pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Claude Code's and Cursor's `stream-json` events.
fn claude_event(state: &mut EventState, v: &Value) {
    let s = |p: &str| text(v, p);
    let ty = s("/type").unwrap_or_default();
    if let Some(id) = s("/session_id")
        && (state.session_id.is_none() || ty == "system")
    {
        state.session_id = Some(id);
    }
    match ty.as_str() {
        "assistant" => {
            let text: Vec<String> = v
                .pointer("/message/content")
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                        .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if !text.is_empty() {
                state.last_message = Some(text.join(""));
            }
        }
        "result" => {
            state.result = s("/result");
            state.cost_usd = v
                .get("total_cost_usd")
                .and_then(Value::as_f64)
                .or(state.cost_usd);
            state.is_error = v.get("is_error").and_then(Value::as_bool).unwrap_or(false)
                || s("/subtype").is_some_and(|st| st != "success");
        }
        _ => {}
    }
}

/// Codex's `exec --json` events.
fn codex_event(state: &mut EventState, v: &Value) {
    let s = |p: &str| text(v, p);
    match s("/type").unwrap_or_default().as_str() {
        "thread.started" => state.session_id = s("/thread_id"),
        "item.completed" if s("/item/type").as_deref() == Some("agent_message") => {
            state.last_message = s("/item/text");
        }
        "turn.completed" => state.usage = v.get("usage").cloned(),
        "turn.failed" | "error" => state.is_error = true,
        _ => {}
    }
}

/// Gemini CLI's `stream-json` events.
fn gemini_event(state: &mut EventState, v: &Value) {
    let s = |p: &str| text(v, p);
    match s("/type").unwrap_or_default().as_str() {
        "init" => state.session_id = s("/session_id"),
        "message" if s("/role").as_deref() == Some("assistant") => {
            let text = s("/content").unwrap_or_default();
            if v.get("delta").and_then(Value::as_bool) == Some(true) {
                push_capped(&mut state.streamed, &text, &mut state.truncated);
            } else {
                state.last_message = Some(text);
            }
        }
        "result" => {
            state.usage = v.get("stats").cloned();
            state.is_error = s("/status").is_some_and(|st| st != "success");
        }
        _ => {}
    }
}

/// OpenCode's `run --format json` events.
fn opencode_event(state: &mut EventState, v: &Value) {
    let s = |p: &str| text(v, p);
    if let Some(id) = s("/sessionID") {
        state.session_id = Some(id);
    }
    match s("/type").unwrap_or_default().as_str() {
        "text" => {
            if let Some(t) = s("/part/text") {
                push_capped(&mut state.streamed, &t, &mut state.truncated);
            }
        }
        "step_finish" => {
            if let Some(c) = v.pointer("/part/cost").and_then(Value::as_f64) {
                state.cost_usd = Some(state.cost_usd.unwrap_or(0.0) + c);
            }
        }
        "error" => state.is_error = true,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(kind: Kind, lines: &[&str]) -> EventState {
        let mut st = EventState::default();
        for l in lines {
            kind.parse_line(&mut st, l);
        }
        st
    }

    #[test]
    fn claude_stream_json() {
        let st = feed(
            Kind::Claude,
            &[
                r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"3f1b6a8e-1c2d-4e5f-9a0b-1c2d3e4f5a6b","tools":["Bash"],"model":"claude-sonnet-4-5","permissionMode":"default","apiKeySource":"none"}"#,
                "not json at all",
                r#"{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Looking"}]},"parent_tool_use_id":null,"session_id":"3f1b6a8e-1c2d-4e5f-9a0b-1c2d3e4f5a6b"}"#,
                r#"{"type":"some_future_event","x":1}"#,
                r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":2100,"num_turns":2,"result":"All good.","session_id":"3f1b6a8e-1c2d-4e5f-9a0b-1c2d3e4f5a6b","total_cost_usd":0.0213,"usage":{"input_tokens":10}}"#,
                r#"{"type":"resu"#,
            ],
        );
        assert_eq!(
            st.session_id.as_deref(),
            Some("3f1b6a8e-1c2d-4e5f-9a0b-1c2d3e4f5a6b")
        );
        assert_eq!(st.answer().as_deref(), Some("All good."));
        assert_eq!(st.cost_usd, Some(0.0213));
        assert!(!st.is_error);
    }

    #[test]
    fn codex_exec_json() {
        let st = feed(
            Kind::Codex,
            &[
                r#"{"type":"thread.started","thread_id":"0199a213-81c0-7800-8aa1-bbab2a035a53"}"#,
                r#"{"type":"turn.started"}"#,
                r#"{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking"}}"#,
                r#"{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}"#,
                r#"{"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}}"#,
            ],
        );
        assert_eq!(
            st.session_id.as_deref(),
            Some("0199a213-81c0-7800-8aa1-bbab2a035a53")
        );
        assert_eq!(st.answer().as_deref(), Some("Done."));
        assert_eq!(st.usage.unwrap()["output_tokens"], 122);
    }

    #[test]
    fn gemini_stream_json() {
        let st = feed(
            Kind::Gemini,
            &[
                r#"{"type":"init","timestamp":"2026-11-01T10:00:00.000Z","session_id":"c0ffee00-0000-4000-8000-000000000001","model":"gemini-2.5-pro"}"#,
                r#"{"type":"message","timestamp":"2026-11-01T10:00:00.100Z","role":"user","content":"hi"}"#,
                r#"{"type":"message","timestamp":"2026-11-01T10:00:01.000Z","role":"assistant","content":"Hel","delta":true}"#,
                r#"{"type":"message","timestamp":"2026-11-01T10:00:01.100Z","role":"assistant","content":"lo","delta":true}"#,
                r#"{"type":"result","timestamp":"2026-11-01T10:00:02.000Z","status":"success","stats":{"total_tokens":42}}"#,
            ],
        );
        assert_eq!(
            st.session_id.as_deref(),
            Some("c0ffee00-0000-4000-8000-000000000001")
        );
        assert_eq!(st.answer().as_deref(), Some("Hello"));
    }

    #[test]
    fn opencode_json() {
        let st = feed(
            Kind::Opencode,
            &[
                r#"{"type":"step_start","timestamp":1762000000000,"sessionID":"ses_5a1b2c3d4e","part":{"id":"prt_1","sessionID":"ses_5a1b2c3d4e","messageID":"msg_1","type":"step-start"}}"#,
                r#"{"type":"text","timestamp":1762000000100,"sessionID":"ses_5a1b2c3d4e","part":{"id":"prt_2","type":"text","text":"Fixed it."}}"#,
                r#"{"type":"step_finish","timestamp":1762000000200,"sessionID":"ses_5a1b2c3d4e","part":{"id":"prt_3","type":"step-finish","reason":"stop","cost":0.0015,"tokens":{"input":10,"output":5}}}"#,
            ],
        );
        assert_eq!(st.session_id.as_deref(), Some("ses_5a1b2c3d4e"));
        assert_eq!(st.answer().as_deref(), Some("Fixed it."));
        assert_eq!(st.cost_usd, Some(0.0015));
    }

    /// An answer is kept up to `MAX_ANSWER`, as an `exec` step's stdout: an agent that prints
    /// without end (a loop, a log it cats) does not grow runner's memory and reports with it.
    #[test]
    fn an_answer_is_cut_at_max_answer_and_says_so() {
        let line = "a".repeat(999);
        let mut st = EventState::of(Kind::Generic);
        for _ in 0..3000 {
            Kind::Generic.parse_line(&mut st, &line);
        }
        let answer = st.answer().unwrap();
        assert!(answer.len() <= MAX_ANSWER, "{}", answer.len());
        assert!(answer.len() > MAX_ANSWER - 1000, "{}", answer.len());
        assert!(st.truncated);
        assert!(st.stdout.as_ref().unwrap().len() <= MAX_ANSWER);
        // Streamed text (OpenCode's `text` parts) too, cut at a character's boundary.
        let mut st = EventState::of(Kind::Opencode);
        let part = serde_json::json!({"type": "text", "part": {"text": "é".repeat(300_000)}});
        for _ in 0..3 {
            Kind::Opencode.parse_line(&mut st, &part.to_string());
        }
        let answer = st.answer().unwrap();
        assert!(
            answer.len() <= MAX_ANSWER && st.truncated,
            "{}",
            answer.len()
        );
        // A short answer is whole.
        let mut st = EventState::of(Kind::Generic);
        Kind::Generic.parse_line(&mut st, "done");
        assert_eq!(
            (st.answer().as_deref(), st.truncated),
            (Some("done"), false)
        );
    }

    #[test]
    fn a_generic_agents_stdout_is_its_answer() {
        let mut st = EventState::of(Kind::Generic);
        assert_eq!(st.answer().as_deref(), Some(""));
        for l in [
            "Sure.",
            r#"{"type":"result","result":"not this"}"#,
            "",
            "done",
        ] {
            Kind::Generic.parse_line(&mut st, l);
        }
        assert_eq!(
            st.answer().as_deref(),
            Some("Sure.\n{\"type\":\"result\",\"result\":\"not this\"}\n\ndone")
        );
        // Other kinds answer only through their events.
        assert_eq!(EventState::of(Kind::Claude).answer(), None);
    }

    #[test]
    fn follow_up_forms() {
        let base = vec!["-p".to_string()];
        assert_eq!(
            Kind::Claude.follow_up_args(&base, "x").unwrap(),
            ["-p", "--resume=x"]
        );
        assert_eq!(
            Kind::Codex.follow_up_args(&base, "x").unwrap(),
            ["-p", "resume", "x"]
        );
        assert_eq!(
            Kind::Opencode.follow_up_args(&base, "x").unwrap(),
            ["-p", "--session", "x"]
        );
        assert_eq!(
            Kind::Gemini.follow_up_args(&base, "x").unwrap(),
            ["-p", "--resume", "x"]
        );
        assert!(Kind::Generic.follow_up_args(&base, "x").is_none());
    }
}
