//! The `act` step's page side: what the page offers (an interactive snapshot), the built-in
//! resolver that turns a simple instruction into an action on one element without any LLM
//! (English, Chinese, Japanese and Korean phrasings), whether an earlier answer still points at
//! exactly one element, and the runner step an answer means.
//!
//! An answer has the `intent` skill's shape (`runner schema skill/intent`): `action_type`,
//! `selector` (an ElementSelector), `value`, `confidence`. The resolver never guesses: an
//! instruction it cannot read, a name no element has as a whole (one that only holds it is not
//! it), or a name that two elements share, gives no answer (then the agent is asked, when the
//! step names one).

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use super::selector::resolve_now;
use crate::browser::driver::adapter::{RefInfo, ref_number};
use crate::browser::driver::command::SnapshotOptions;
use crate::browser::driver::session::Session;
use crate::config::model::{
    Action, FillAction, OneOrMany, OpenAction, Scalar, SelectAction, Selector, SelectorObject,
};
use crate::step::{ErrorKind, StepError};

/// What the page offers an instruction: its URL, the interactive snapshot's text and refs.
pub(crate) struct Page {
    pub(crate) url: String,
    pub(crate) snapshot: String,
    pub(crate) refs: BTreeMap<String, RefInfo>,
}

/// Takes the interactive snapshot of the page at `url` (read by the caller).
pub(crate) async fn observe(
    session: &mut Session,
    url: String,
    timeout: Duration,
) -> Result<Page, StepError> {
    let interactive = SnapshotOptions {
        interactive: true,
        ..SnapshotOptions::default()
    };
    let data = session.snapshot(interactive, timeout).await?;
    let refs = session
        .latest_refs
        .as_ref()
        .map(|r| r.refs.clone())
        .unwrap_or_default();
    Ok(Page {
        url,
        snapshot: data
            .get("snapshot")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        refs,
    })
}

/// The page's URL.
pub(crate) async fn current_url(
    session: &mut Session,
    timeout: Duration,
) -> Result<String, StepError> {
    session.url(timeout).await
}

/// Whether an answer still fits the page: its element is there, and only one (an answer
/// without an element always fits).
pub(crate) async fn still_matches(session: &mut Session, answer: &Value) -> bool {
    let Some(sel) = answer.get("selector").filter(|s| !s.is_null()) else {
        return true;
    };
    let Ok(sel) = serde_json::from_value::<SelectorObject>(sel.clone()) else {
        return false;
    };
    let has_nth = sel.nth.is_some();
    match resolve_now(session, &Selector::Object(Box::new(sel))).await {
        Ok(Some(r)) => r.count == 1 || has_nth,
        _ => false,
    }
}

/// The element of a snapshot ref as a selector that does not depend on that snapshot: role and
/// exact name, with `nth` when other elements share both.
pub(crate) fn stable_selector(reference: &str, refs: &BTreeMap<String, RefInfo>) -> Option<Value> {
    let key = reference.trim_start_matches('@');
    let info = refs.get(key)?;
    let mut same: Vec<&String> = refs
        .iter()
        .filter(|(_, r)| r.role == info.role && r.name == info.name)
        .map(|(k, _)| k)
        .collect();
    same.sort_by_key(|k| ref_number(k));
    let mut sel = json!({ "role": info.role, "text": info.name, "exact": true });
    if same.len() > 1 {
        let nth = same.iter().position(|k| k.as_str() == key)?;
        sel["nth"] = json!(nth);
    }
    if info.name.is_empty() {
        sel.as_object_mut()?.remove("text");
        sel.as_object_mut()?.remove("exact");
    }
    Some(sel)
}

/// The runner step an answer means.
pub(crate) fn to_action(answer: &Value) -> Result<Action, StepError> {
    let bad = |m: &str| StepError::new(ErrorKind::Skill, format!("{m}: {answer}"));
    let kind = answer
        .get("action_type")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("the answer names no action_type"))?;
    let value = answer
        .get("value")
        .and_then(Value::as_str)
        .map(str::to_string);
    let selector = || -> Result<Selector, StepError> {
        let s = answer
            .get("selector")
            .filter(|s| !s.is_null())
            .ok_or_else(|| bad(&format!("`{kind}` needs a selector")))?;
        serde_json::from_value::<SelectorObject>(s.clone())
            .map(|o| Selector::Object(Box::new(o)))
            .map_err(|e| bad(&format!("the selector is not an ElementSelector ({e})")))
    };
    let value_or = |what: &str| {
        value
            .clone()
            .ok_or_else(|| bad(&format!("`{kind}` needs {what}")))
    };
    Ok(match kind {
        "click" => Action::Click(selector()?.into()),
        "dblclick" => Action::Dblclick(selector()?.into()),
        "hover" => Action::Hover(selector()?.into()),
        "focus" => Action::Focus(selector()?.into()),
        "check" => Action::Check(selector()?.into()),
        "uncheck" => Action::Uncheck(selector()?.into()),
        "fill" | "type" => {
            let f = FillAction {
                target: selector()?,
                value: Scalar::String(value_or("a value")?),
            };
            if kind == "fill" {
                Action::Fill(f)
            } else {
                Action::Type(f)
            }
        }
        "select" => Action::Select(SelectAction {
            target: selector()?,
            value: OneOrMany::One(value_or("an option")?),
        }),
        "press" => Action::Press(crate::config::model::PressAction::Key(value_or("a key")?)),
        "open" => Action::Open(OpenAction::Url(value_or("a URL")?)),
        other => return Err(bad(&format!("unknown action_type `{other}`"))),
    })
}

/// Why an `open` answer may not be carried out, if it is one that may not: an answer is an
/// agent's text or a cache file's, so it may open an http(s) page on the origin of one of
/// `pages` (the current page's URL and the run's servers'), never another site nor a `file:`,
/// `data:`, `javascript:` or browser page.
pub(crate) fn open_refused(answer: &Value, pages: &[String]) -> Option<String> {
    if answer.get("action_type").and_then(Value::as_str) != Some("open") {
        return None;
    }
    let url = answer
        .get("value")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let origin = |u: &str| {
        reqwest::Url::parse(u)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .map(|u| u.origin().ascii_serialization())
    };
    let allowed: Vec<String> = pages.iter().filter_map(|p| origin(p)).collect();
    if origin(url).is_some_and(|o| allowed.contains(&o)) {
        return None;
    }
    Some(format!(
        "opens `{url}`: an `act` may open only http(s) pages on the origin of the page it is on or of the run's web servers ({})",
        if allowed.is_empty() {
            "none here".to_string()
        } else {
            allowed.join(", ")
        }
    ))
}

/// The step an answer (or an `act` step's outputs, which repeat it) means, as a flow writes it:
/// `(action key, value)`, what an atlas records of the `act`; `None` for one that is no step.
pub(crate) fn as_step(answer: &Value) -> Option<(&'static str, Value)> {
    let sel = || answer.get("selector").filter(|s| s.is_object()).cloned();
    let value = || answer.get("value").and_then(Value::as_str).map(Value::from);
    let kind = answer.get("action_type")?.as_str()?;
    Some(match kind {
        "click" => ("click", sel()?),
        "dblclick" => ("dblclick", sel()?),
        "hover" => ("hover", sel()?),
        "focus" => ("focus", sel()?),
        "check" => ("check", sel()?),
        "uncheck" => ("uncheck", sel()?),
        "fill" => ("fill", json!({ "target": sel()?, "value": value()? })),
        "type" => ("type", json!({ "target": sel()?, "value": value()? })),
        "select" => ("select", json!({ "target": sel()?, "value": value()? })),
        "press" => ("press", value()?),
        "open" => ("open", value()?),
        _ => return None,
    })
}

/// The verbs the resolver knows, and which roles each can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Click,
    Check,
    Uncheck,
    Fill,
    Select,
}

impl Verb {
    fn name(self) -> &'static str {
        match self {
            Verb::Click => "click",
            Verb::Check => "check",
            Verb::Uncheck => "uncheck",
            Verb::Fill => "fill",
            Verb::Select => "select",
        }
    }

    fn fits(self, role: &str) -> bool {
        match self {
            Verb::Click => matches!(
                role,
                "button"
                    | "link"
                    | "tab"
                    | "menuitem"
                    | "menuitemcheckbox"
                    | "menuitemradio"
                    | "option"
                    | "checkbox"
                    | "radio"
                    | "switch"
                    | "treeitem"
                    | "row"
                    | "cell"
                    | "gridcell"
                    | "listitem"
                    | "img"
                    | "heading"
            ),
            Verb::Check | Verb::Uncheck => {
                matches!(role, "checkbox" | "radio" | "switch" | "menuitemcheckbox")
            }
            Verb::Fill => matches!(role, "textbox" | "searchbox" | "combobox" | "spinbutton"),
            Verb::Select => matches!(role, "combobox" | "listbox"),
        }
    }
}

/// Words that name a kind of element (in the languages the resolver reads) and the roles they
/// mean.
const ROLE_WORDS: &[(&str, &[&str])] = &[
    ("menu item", &["menuitem"]),
    ("check box", &["checkbox"]),
    ("checkbox", &["checkbox"]),
    ("text box", &["textbox", "searchbox"]),
    ("textbox", &["textbox", "searchbox"]),
    ("text field", &["textbox", "searchbox"]),
    ("field", &["textbox", "searchbox", "combobox", "spinbutton"]),
    ("input", &["textbox", "searchbox", "combobox", "spinbutton"]),
    ("dropdown", &["combobox", "listbox"]),
    ("button", &["button"]),
    ("link", &["link"]),
    ("radio", &["radio"]),
    ("tab", &["tab"]),
    ("按钮", &["button"]),
    ("链接", &["link"]),
    ("复选框", &["checkbox"]),
    ("输入框", &["textbox", "searchbox"]),
    ("文本框", &["textbox", "searchbox"]),
    ("下拉框", &["combobox", "listbox"]),
    ("ボタン", &["button"]),
    ("リンク", &["link"]),
    ("チェックボックス", &["checkbox"]),
    ("入力欄", &["textbox", "searchbox"]),
    ("버튼", &["button"]),
    ("링크", &["link"]),
];

/// Keys `press` knows by name (chords are recognised by `+`).
const KEYS: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Space",
    "Backspace",
    "Delete",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
    "PageUp",
    "PageDown",
];

fn patterns() -> &'static [(Regex, &'static str)] {
    static P: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            // English.
            (r"(?i)^(?:press|hit)\s+(?:the\s+)?(?P<key>[A-Za-z0-9]+(?:\+[A-Za-z0-9]+)*)(?:\s+key)?$", "press"),
            (r"(?i)^(?:open|go to|visit|navigate to)\s+(?P<url>(?:https?://|/)\S*)$", "open"),
            (r#"(?i)^(?:fill(?:\s+in)?|enter|type)\s+(?P<target>.+?)\s+with\s+(?P<value>.+)$"#, "fill"),
            (r#"(?i)^(?:type|enter|input|write)\s+(?P<value>.+?)\s+(?:into|in)\s+(?P<target>.+)$"#, "fill"),
            (r#"(?i)^(?:select|choose|pick)\s+(?P<value>.+?)\s+(?:in|from)\s+(?P<target>.+)$"#, "select"),
            (r"(?i)^(?:uncheck|untick|unselect)\s+(?P<target>.+)$", "uncheck"),
            (r"(?i)^(?:check|tick)\s+(?P<target>.+)$", "check"),
            (r"(?i)^(?:click|tap|press|hit|follow|choose|select)(?:\s+on)?\s+(?P<target>.+)$", "click"),
            // Chinese.
            (r"^在\s*(?P<target>.+?)\s*(?:中|里|内)?\s*(?:输入|填写|填入)\s*(?P<value>.+)$", "fill"),
            (r"^取消(?:勾选|选中)\s*(?P<target>.+)$", "uncheck"),
            (r"^(?:勾选|选中)\s*(?P<target>.+)$", "check"),
            (r"^(?:点击|单击|点一下|点|按下|按|轻触)\s*(?P<target>.+)$", "click"),
            // Japanese.
            (r"^(?P<target>.+?)\s*(?:に|へ)\s*(?P<value>.+?)\s*を\s*入力(?:する|して)?(?:ください)?$", "fill"),
            (r"^(?P<target>.+?)\s*の\s*チェックを\s*外(?:す|して(?:ください)?)$", "uncheck"),
            (r"^(?P<target>.+?)\s*を\s*チェック(?:する|して)?(?:ください)?$", "check"),
            (r"^(?P<target>.+?)\s*を\s*(?:クリック|タップ|押)(?:す|する|して)?(?:ください)?$", "click"),
            // Korean.
            (r"^(?P<target>.+?)\s*(?:을|를)?\s*(?:클릭|누르기|누르세요|탭)(?:하기|하세요|해)?$", "click"),
        ]
        .into_iter()
        .map(|(p, k)| (Regex::new(p).expect("the resolver's patterns compile"), k))
        .collect()
    })
}

fn unquote(s: &str) -> String {
    let s = s.trim().trim_end_matches(['.', '。', '!', '！']);
    let pairs = [
        ('"', '"'),
        ('\'', '\''),
        ('“', '”'),
        ('「', '」'),
        ('`', '`'),
    ];
    for (a, b) in pairs {
        if let Some(inner) = s.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner.to_string();
        }
    }
    s.to_string()
}

/// A name as written, for comparing: in lower case, without spaces ("delete ACCOUNT" is
/// "Delete account"). Punctuation stays: it tells "C++" from "C", and is all an icon button's
/// name ("+") may hold.
fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// What punctuates a word of a name at its ends: a sentence's marks, brackets, quotes, arrows
/// ("Email:", "Yes, delete it", "Save (draft)", "Next»"). Not the signs that are part of a name
/// ("C++", "C#", "-1", "$5", "50%").
const DECOR: &[char] = &[
    ':', '：', '*', '.', '。', ',', '，', '、', ';', '!', '！', '?', '？', '…', '·', '•', '|', '"',
    '\'', '“', '”', '‘', '’', '(', ')', '（', '）', '[', ']', '{', '}', '「', '」', '→', '←', '➜',
    '➔', '▶', '▸', '►', '›', '‹', '»', '«', '>', '<',
];

/// The marks that join a name's words ("Sign-in", "Don't", "first_name").
const JOINERS: &[char] = &['-', '‐', '–', '_', '\'', '’', '.'];

/// A name compared loosely, word by word (split at spaces): a word with no letter or digit is an
/// icon or a mark set beside the name ("🛒 Cart", "Close ×", "Continue ->", "+ Add item") and is
/// left out; each other word loses what punctuates it at its ends (`DECOR`) and the marks that
/// join its parts (`JOINERS`); the rest, in lower case, is joined. Signs that are part of a word
/// stay ("C++" is not "C", "-1" is not "1"). Only when no name is the instruction's as written
/// (see `named`); a name of marks alone ("+", "×") is compared as written only.
fn loose(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_whitespace() {
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        let word = word.to_lowercase();
        let chars: Vec<char> = word.trim_matches(|c| DECOR.contains(&c)).chars().collect();
        let inner = |i: usize| chars.get(i).is_some_and(|c| c.is_alphanumeric());
        out.extend(
            chars
                .iter()
                .enumerate()
                .filter(|(i, c)| !(JOINERS.contains(c) && *i > 0 && inner(i - 1) && inner(i + 1)))
                .map(|(_, c)| *c),
        );
    }
    out
}

/// `s` without `word` (lower case) at its start (`front`) or its end, in any case; `None` when
/// it is not there. Compared a character at a time, on `s`'s own characters: a character whose
/// lower case is longer or shorter (`İ`, the Kelvin sign) never makes a cut inside another.
fn strip_ci<'a>(s: &'a str, word: &str, front: bool) -> Option<&'a str> {
    let k = word.chars().count();
    let n = s.chars().count();
    if k > n {
        return None;
    }
    let at = if front { k } else { n - k };
    let cut = s.char_indices().nth(at).map_or(s.len(), |(i, _)| i);
    let (head, tail) = s.split_at(cut);
    let (part, rest) = if front { (head, tail) } else { (tail, head) };
    (part.to_lowercase() == word).then_some(rest)
}

/// The name an instruction gives its element and the roles its words name.
fn target_words(phrase: &str) -> (String, Option<&'static [&'static str]>) {
    let mut p = unquote(phrase);
    for article in ["the ", "a ", "an ", "on "] {
        if let Some(rest) = strip_ci(&p, article, true) {
            p = rest.to_string();
        }
    }
    let mut roles = None;
    for (word, r) in ROLE_WORDS {
        if let Some(rest) = strip_ci(&p, word, false).or_else(|| strip_ci(&p, word, true)) {
            p = rest.to_string();
            roles = Some(*r);
            break;
        }
    }
    let p = unquote(p.trim().trim_end_matches(['的', 'の']).trim());
    (p, roles)
}

/// The built-in resolver: an answer for a simple instruction on this page, or why it has none
/// (empty when it cannot read the instruction; else no element of that name, or two that
/// share it, said in a phrase that names the elements that came close).
///
/// An element is the instruction's when its accessible name IS the name the instruction gives,
/// compared without case and spaces ("delete ACCOUNT" is "Delete account"); when none is, without
/// what decorates a name at its ends or joins its words ("Email:", "Next →", "Sign-in"), but
/// never without punctuation that names ("C++" is not "C", "+" is an icon button's name). A name
/// that only holds the instruction's words is not it: "Subscribe" is not "Unsubscribe from all
/// emails", "Agree" not "I disagree with the terms", 登录 not 退出登录 — acting on such a part
/// is a guess, and often the opposite of what was asked.
pub(crate) fn resolve_local(
    intent: &str,
    refs: &BTreeMap<String, RefInfo>,
) -> Result<Value, String> {
    let intent = intent.trim();
    for (re, kind) in patterns() {
        let Some(c) = re.captures(intent) else {
            continue;
        };
        match *kind {
            "press" => {
                let Some(key) = c.name("key").and_then(|k| key_name(k.as_str())) else {
                    // "press Sign in" is a click: only a key name is a key.
                    continue;
                };
                return Ok(json!({ "action_type": "press", "value": key, "confidence": 1.0 }));
            }
            "open" => {
                let url = c.name("url").map_or("", |u| u.as_str());
                return Ok(json!({ "action_type": "open", "value": url, "confidence": 1.0 }));
            }
            _ => {}
        }
        let verb = match *kind {
            "fill" => Verb::Fill,
            "select" => Verb::Select,
            "check" => Verb::Check,
            "uncheck" => Verb::Uncheck,
            _ => Verb::Click,
        };
        let target = c.name("target").map_or("", |t| t.as_str());
        let key = named(verb, target, refs)?;
        let selector = stable_selector(&key, refs).ok_or_else(String::new)?;
        let mut answer = json!({
            "action_type": verb.name(),
            "selector": selector,
            "confidence": 1.0,
        });
        if let Some(v) = c.name("value") {
            answer["value"] = json!(unquote(v.as_str()));
        }
        return Ok(answer);
    }
    Err(String::new())
}

/// A key `press` knows by name (chords are recognised by `+`, one character is itself).
fn key_name(key: &str) -> Option<String> {
    KEYS.iter()
        .find(|k| k.eq_ignore_ascii_case(key))
        .map(|k| (*k).to_string())
        .or_else(|| (key.contains('+') || key.chars().count() == 1).then(|| key.to_string()))
}

/// The ref of the one element `verb` can act on whose name is the one `target` gives; else why
/// there is none, naming the elements whose names only hold it (or are held in it).
fn named(verb: Verb, target: &str, refs: &BTreeMap<String, RefInfo>) -> Result<String, String> {
    let (name, roles) = target_words(target);
    let want = norm(&name);
    if want.is_empty() {
        return Err(String::new());
    }
    // In the page's order (the snapshot numbers its refs as it reads the page).
    let mut fitting: Vec<(&String, &RefInfo)> = refs
        .iter()
        .filter(|(_, r)| verb.fits(&r.role) && roles.is_none_or(|rs| rs.contains(&r.role.as_str())))
        .collect();
    fitting.sort_by_key(|(k, _)| ref_number(k));
    // The name as written first; loosely only when none is.
    for key in [norm, loose] {
        let want = key(&name);
        let same: Vec<&String> = fitting
            .iter()
            .filter(|(_, r)| !want.is_empty() && key(&r.name) == want)
            .map(|(k, _)| *k)
            .collect();
        match same.as_slice() {
            [one] => return Ok((*one).clone()),
            [] => {}
            many => {
                return Err(format!(
                    "{} elements it can {} are named \"{name}\"",
                    many.len(),
                    verb.name()
                ));
            }
        }
    }
    let want = loose(&name);
    let mut near: Vec<String> = Vec::new();
    for (_, r) in &fitting {
        let have = loose(&r.name);
        let close =
            !have.is_empty() && !want.is_empty() && (have.contains(&want) || want.contains(&have));
        if close && !near.contains(&r.name) {
            near.push(r.name.clone());
        }
    }
    let mut why = format!("no element it can {} is named \"{name}\"", verb.name());
    if !near.is_empty() {
        let shown: Vec<String> = near.iter().take(5).map(|n| format!("\"{n}\"")).collect();
        why.push_str(&format!(
            " (close: {}; a name that only holds it, or is only a part of it, is not it)",
            shown.join(", ")
        ));
    }
    Err(why)
}

#[cfg(test)]
mod tests;
