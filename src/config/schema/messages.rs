//! The message for each kind of schema error: what is wrong, said about the key the user wrote,
//! with the help that fixes it ("did you mean", the keys or values allowed, the unit a duration
//! needs).

use jsonschema::error::TypeKind;
use serde_json::Value;

use super::at::{at_key, at_value};
use super::walk::is_step;
use crate::config::numbers::between;
use crate::source::{Diagnostic, SourceFile, SpanMap, did_you_mean, pointer_push};

/// A schema error's place: in the document, and in the schema.
pub(super) struct Site<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) spans: &'a SpanMap,
    /// The failing node's pointer in the document.
    pub(super) pointer: String,
    /// The key the node is under, as messages name it (see [`key_name`]).
    pub(super) name: String,
    /// The failing value.
    pub(super) value: &'a Value,
    /// The schema node holding the failing keyword.
    pub(super) node: Option<&'a Value>,
}

impl Site<'_> {
    /// A diagnostic at the failing value.
    pub(super) fn at_value(&self, message: impl Into<String>) -> Diagnostic {
        at_value(self.file, self.spans, &self.pointer, message)
    }

    /// Keys the schema does not allow here, each with the near miss or the keys it does.
    pub(super) fn unknown_keys(&self, unexpected: &[String]) -> Vec<Diagnostic> {
        let allowed: Vec<&str> = self
            .node
            .and_then(|n| n.get("properties"))
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let where_ = if self.pointer.is_empty() {
            "at the top level".to_string()
        } else if is_step(&self.pointer) {
            "in a step".to_string()
        } else {
            format!("in `{}`", self.name)
        };
        unexpected
            .iter()
            .map(|key| {
                let child = pointer_push(&self.pointer, key);
                let d = at_key(
                    self.file,
                    self.spans,
                    &child,
                    format!("unknown key `{key}` {where_}"),
                );
                match did_you_mean(key, allowed.iter().copied()) {
                    Some(s) => d.with_help(format!("did you mean `{s}`?")),
                    None if !allowed.is_empty() => {
                        d.with_help(format!("expected one of: {}", allowed.join(", ")))
                    }
                    None => d,
                }
            })
            .collect()
    }

    /// `web_server` with neither form, or a folder with a command's keys.
    pub(super) fn web_server(&self) -> Diagnostic {
        if self.value.get("static").is_some() {
            return self
                .at_value(crate::config::model::WEB_SERVER_STATIC)
                .with_help(
                    "serve the folder with `static` alone, or start a server with `command`",
                );
        }
        self.at_value(crate::config::model::WEB_SERVER_FORMS)
            .with_help("serve a folder with `static: ./site`, or start a server with `command` and wait for its `url` (or `port`)")
    }

    /// A key the schema rules out where it stands; the schema's description of the rule says
    /// where it goes.
    pub(super) fn misplaced(&self) -> Diagnostic {
        let d = at_key(
            self.file,
            self.spans,
            &self.pointer,
            format!("`{}` is not allowed here", self.name),
        )
        .with_pointer(self.pointer.clone());
        match self
            .node
            .and_then(|n| n.get("description"))
            .and_then(Value::as_str)
        {
            Some(why) => d.with_help(why.trim_end_matches('.')),
            None => d,
        }
    }

    /// A value that fits none of the forms the key takes: the schema's description of them.
    pub(super) fn invalid_value(&self) -> Diagnostic {
        let name = &self.name;
        let what = self
            .node
            .and_then(|n| n.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("see the schema");
        // The schema's description as a sentence about the key: "`wait` takes a
        // duration, or ...", not "expected wait: a duration".
        let what = what
            .split_once(": ")
            .filter(|(head, _)| head.eq_ignore_ascii_case(name))
            .map_or(what, |(_, rest)| rest);
        let help = if let Some(h) = self.duration_help() {
            h
        } else if ["a ", "an ", "one ", "the "]
            .iter()
            .any(|a| what.to_lowercase().starts_with(a))
        {
            format!("`{name}` takes {}", lower_first(what))
        } else {
            format!("`{name}`: {what}")
        };
        self.at_value(format!("invalid value for `{name}`: {}", self.described()))
            .with_help(help)
    }

    /// A value of the wrong JSON type.
    pub(super) fn wrong_type(&self, kind: &TypeKind) -> Diagnostic {
        let expected = match kind {
            TypeKind::Single(t) => article(&t.to_string()),
            TypeKind::Multiple(set) => set
                .iter()
                .map(|t| article(&t.to_string()))
                .collect::<Vec<_>>()
                .join(" or "),
        };
        let d = self.at_value(format!(
            "`{}` must be {expected}, not {}",
            self.name,
            self.described()
        ));
        match self.duration_help() {
            Some(h) => d.with_help(h),
            None => d,
        }
    }

    /// A bare number where a duration goes: which unit is meant.
    fn duration_help(&self) -> Option<String> {
        match self.value {
            Value::Number(_) if DURATION_KEYS.contains(&self.name.as_str()) => Some(format!(
                "did you mean `{}s`? durations need a unit: `250ms`, `5s`, `2m`, `1h`",
                self.source()
            )),
            _ => None,
        }
    }

    /// A required key that is missing.
    pub(super) fn missing(&self, property: &Value) -> Diagnostic {
        let prop = property.as_str().unwrap_or("?");
        let top = self.pointer.is_empty();
        let whose = if top {
            "the flow".to_string()
        } else {
            format!("`{}`", self.name)
        };
        let message = format!("{whose} is missing the required key `{prop}`");
        let first_key = self
            .value
            .as_object()
            .and_then(|m| m.keys().next())
            .map(|k| pointer_push("", k));
        let d = match (top, &first_key) {
            // Where the key belongs: beside the mapping's first key, not at a comment on line 1.
            (true, Some(first)) => at_key(self.file, self.spans, first, message),
            (true, None) => Diagnostic::error(self.file, 0..0, message),
            (false, _) => at_key(self.file, self.spans, &self.pointer, message),
        };
        let d = if top && prop == "steps" {
            d.with_help(
                "a flow file holds one flow (`name` and `steps`), or a suite of them (`flows`)",
            )
        } else {
            d
        };
        d.with_pointer(self.pointer.clone())
    }

    /// A number below its field's `minimum` or above its `maximum`: the range, when the field
    /// has both (every whole-number field does: a drift test sees to it).
    pub(super) fn out_of_range(&self) -> Diagnostic {
        let name = &self.name;
        let bound = |k: &str| self.node.and_then(|n| n.get(k));
        let message = match (bound("minimum"), bound("maximum")) {
            (Some(min), Some(max)) => format!("`{name}` {}", between(min, max)),
            (Some(min), None) => format!("`{name}` must be at least {min}, not {}", self.source()),
            (None, Some(max)) => format!("`{name}` must be at most {max}, not {}", self.source()),
            (None, None) => format!("`{name}` is out of range"),
        };
        self.at_value(message)
    }

    /// A number with a fraction or an exponent where a whole number goes.
    pub(super) fn not_whole(&self) -> Diagnostic {
        self.at_value(format!(
            "`{}` must be a whole number, not `{}`",
            self.name,
            self.source()
        ))
        .with_help("write it in digits, without `.` or `e`")
    }

    /// The failing value for a message: a number as it is written (`2.50`, not `2.5`).
    fn described(&self) -> String {
        match self.value {
            Value::Number(_) => format!("the number `{}`", self.source()),
            other => describe(other),
        }
    }

    /// The failing value as it is written in the file (a number too large for 64 bits is held
    /// as a float, which would print otherwise).
    fn source(&self) -> String {
        self.spans
            .get(&self.pointer)
            .and_then(|s| self.file.text().get(s.value.clone()))
            // A literal, not an alias or a quoted or tagged form of it.
            .filter(|t| {
                !t.is_empty()
                    && t.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | '_'))
            })
            .map_or_else(|| self.value.to_string(), str::to_string)
    }

    /// A list with too few items.
    pub(super) fn too_few_items(&self, limit: u64) -> Diagnostic {
        let name = &self.name;
        self.at_value(if limit == 1 {
            format!("`{name}` must not be empty")
        } else {
            format!("`{name}` needs at least {limit} items")
        })
    }

    /// An object with some keys but not enough (`text: { target: h1 }`): which keys it may
    /// still take.
    pub(super) fn needs_more_keys(&self) -> Diagnostic {
        let has: Vec<&String> = self
            .value
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        let more: Vec<String> = self
            .node
            .and_then(|n| n.get("properties"))
            .and_then(Value::as_object)
            .map(|p| {
                p.keys()
                    .filter(|k| !has.contains(k))
                    .map(|k| format!("`{k}`"))
                    .collect()
            })
            .unwrap_or_default();
        let has: Vec<String> = has.iter().map(|k| format!("`{k}`")).collect();
        self.at_value(format!(
            "`{}` needs more than {}: add {}",
            self.name,
            has.join(", "),
            if more.is_empty() {
                "another key".to_string()
            } else {
                format!("one of {}", more.join(", "))
            }
        ))
    }

    /// A string that does not match its pattern: a duration, a size, a step id, or any other.
    pub(super) fn pattern(&self, pattern: &str) -> Diagnostic {
        let s = self.value.as_str().unwrap_or_default();
        if pattern.contains("(ms|s|m|h)") {
            self.at_value(format!("invalid duration `{s}`"))
                .with_help("write a number and a unit: `250ms`, `5s`, `2m`, `1h`")
        } else if pattern.contains("KB") {
            self.at_value(format!("invalid size `{s}`"))
                .with_help("write bytes or a number with a unit: `50KB`, `1MB`")
        } else if self.name == "as" && is_step(self.pointer.trim_end_matches("/each/as")) {
            let what = if s.is_empty() {
                "`each.as` must not be empty".to_string()
            } else {
                format!("`each.as` must be a var name, not `{s}`")
            };
            self.at_value(what).with_help(
                "the item is read as `vars.<as>`: letters, digits and `_`, not starting with a digit",
            )
        } else if super::text::NOT_BLANK.contains(&pattern) {
            self.at_value(format!("`{}` must not be blank", self.name))
                .with_help(
                    "only whitespace is no text to look for or run: write what it should hold",
                )
        } else if self.name == "id" {
            self.at_value(format!("invalid step id `{s}`"))
                .with_help("ids are lowercase letters, digits and `_`, not starting with a digit")
        } else {
            self.at_value(format!(
                "`{s}` is not a valid `{}` (expected to match `{pattern}`)",
                self.name
            ))
        }
    }

    /// A name (a key of a map of names) that is not a valid one.
    pub(super) fn bad_name(&self, bad: &str) -> Diagnostic {
        at_key(
            self.file,
            self.spans,
            &pointer_push(&self.pointer, bad),
            format!("`{bad}` is not a valid name in `{}`", self.name),
        )
        .with_help("names are letters, digits and `_`, not starting with a digit")
    }

    /// A value that is not one of the options, with the near miss.
    pub(super) fn not_in_enum(&self, options: &Value) -> Diagnostic {
        let opts: Vec<String> = options
            .as_array()
            .map(|o| {
                o.iter()
                    .map(|v| v.as_str().unwrap_or("?").to_string())
                    .collect()
            })
            .unwrap_or_default();
        let s = self
            .value
            .as_str()
            .map_or_else(|| self.value.to_string(), str::to_string);
        let d = self.at_value(format!("`{s}` is not a valid `{}`", self.name));
        match did_you_mean(&s, opts.iter().map(String::as_str)) {
            Some(m) => d.with_help(format!("did you mean `{m}`? (one of: {})", opts.join(", "))),
            None => d.with_help(format!("expected one of: {}", opts.join(", "))),
        }
    }
}

/// The explanation for a step that has no action key or more than one.
pub(super) fn step_action_error(
    file: &SourceFile,
    spans: &SpanMap,
    pointer: &str,
    step: &Value,
) -> Vec<Diagnostic> {
    let Some(map) = step.as_object() else {
        return Vec::new();
    };
    let actions: Vec<&String> = map
        .keys()
        .filter(|k| crate::config::model::ACTION_KEYS.contains(&k.as_str()))
        .collect();
    if actions.len() > 1 {
        let second = actions[1];
        return vec![
            at_key(
                file,
                spans,
                &pointer_push(pointer, second),
                format!(
                    "a step has one action, but this one has `{}` and `{second}`",
                    actions[0]
                ),
            )
            .with_help("split it into two steps"),
        ];
    }
    let unknown = map
        .keys()
        .any(|k| !crate::config::model::COMMON_KEYS.contains(&k.as_str()) && !actions.contains(&k));
    if actions.is_empty() && !unknown {
        return vec![
            at_value(file, spans, pointer, "this step has no action")
                .with_help("add one action key, like `exec`, `log`, `open` or `click`"),
        ];
    }
    // An unknown key is already reported, with its own "did you mean".
    Vec::new()
}

/// The key a pointer ends with (`/steps/0/exec` -> `exec`; list items name their list).
pub(super) fn key_name(pointer: &str) -> String {
    let mut parts = pointer.rsplit('/');
    let last = parts.next().unwrap_or("");
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        let parent = parts.next().unwrap_or("");
        return format!("{}[{last}]", parent.replace("~1", "/").replace("~0", "~"));
    }
    last.replace("~1", "/").replace("~0", "~")
}

/// Keys whose value is a duration (a bare number there is missing its unit).
const DURATION_KEYS: &[&str] = &[
    "timeout",
    "delay",
    "max_delay",
    "ready_timeout",
    "idle_timeout",
    "wait",
];

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null (an empty value)".into(),
        Value::Bool(b) => format!("the boolean `{b}`"),
        Value::Number(n) => format!("the number `{n}`"),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("the string `{s}`"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a map".into(),
    }
}

fn article(t: &str) -> String {
    match t {
        "object" => "a map".into(),
        "array" => "a list".into(),
        "integer" => "an integer".into(),
        "null" => "null".into(),
        other => format!("a {other}"),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
