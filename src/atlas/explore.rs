//! `runner explore URL`: breadth-first crawl of an app's states. At each new state its todo
//! list is made (persisted, so an interrupted crawl resumes); for each todo the browser is
//! teleported to the state (its path replayed in a fresh context), the todo done, and the state
//! reached recorded with the edge to it. Destructive-looking actions are skipped unless allowed.
//!
//! Without an agent the todos are the state's links, buttons, tabs and menu items, and forms are
//! not filled. With one (`--agent`), the `page_analysis` skill gives each new state its todos
//! (by priority, with the values to fill), a summary and test ideas; the `trajectory_labeling`
//! skill names each edge and drops the actions that changed nothing meaningful.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::fingerprint::origin;
use super::record::{RecordTarget, observe};
use super::replay::Driver;
use super::status::StatusFile;
use super::store::{Atlas, AtlasError, EdgeLabel};
use crate::agent::{Skill, SkillCall, SkillEnv, call_skill};
use crate::browser::driver::adapter::{RefInfo, parse_snapshot_refs, ref_number};
use crate::browser::page::intent::stable_selector;
use crate::browser::{Command, Poll, Session};
use crate::step::{ErrorKind, FlowStatus, Masker, StepError};

/// Words that make an action look destructive.
pub(crate) const DESTRUCTIVE: &[&str] = &[
    "delete",
    "remove",
    "logout",
    "log out",
    "sign out",
    "signout",
    "pay",
    "purchase",
    "buy",
    "unsubscribe",
    "destroy",
    "erase",
    "deactivate",
    "close account",
    "reset",
    "drop",
];

/// Whether an element's name looks destructive.
pub(crate) fn is_destructive(name: &str) -> bool {
    let n = name.to_lowercase();
    DESTRUCTIVE.iter().any(|w| n.contains(w))
}

/// Crawl settings.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    pub(crate) url: String,
    pub(crate) max_depth: usize,
    pub(crate) max_nodes: usize,
    pub(crate) allow_destructive: bool,
    pub(crate) atlas: PathBuf,
    pub(crate) artifacts: PathBuf,
    pub(crate) run_id: String,
}

/// The agent behind `explore --agent`: where and how its skills are asked.
pub(crate) struct ExploreAgent<'a> {
    pub(crate) env: SkillEnv<'a>,
    /// `None` when answers may only come from the cache (`--agent-cache read-only`).
    pub(crate) profile: Option<String>,
}

/// What a crawl found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct Summary {
    pub(crate) total_nodes: usize,
    pub(crate) total_edges: usize,
    pub(crate) max_depth_reached: usize,
    pub(crate) atlas_path: String,
    pub(crate) skipped_destructive: Vec<String>,
    /// Todos that could not be done (`<node>: <action>: <why>`): the element was gone, the
    /// path to the state no longer replays, ... They are not edges.
    pub(crate) failed_todos: Vec<String>,
    /// Actions the agent judged meaningless (`<node>: <action>`): no edge recorded.
    pub(crate) dropped_meaningless: Vec<String>,
}

/// Whether clicking an element of this role may lead somewhere (as Crawljax's candidates):
/// links and buttons, and what behaves as one — tabs, menu items, tree items. Form controls
/// that only hold a value (checkboxes, radios, selects and their options, text fields) are not:
/// toggling one is no new state of the app.
fn is_candidate(role: &str) -> bool {
    matches!(
        role,
        "link" | "button" | "tab" | "menuitem" | "menuitemcheckbox" | "menuitemradio" | "treeitem"
    )
}

/// A state explore is in.
struct Arrived {
    node: String,
    is_new: bool,
    url: String,
    title: String,
    /// The snapshot's text (refs included; secrets masked).
    text: String,
    /// The page's forms (`FORMS_JS`), when explore makes its own todos.
    forms: Value,
    refs: BTreeMap<String, RefInfo>,
}

/// What a todo does.
#[derive(Debug, Clone, PartialEq)]
struct Task {
    /// Its name in the atlas when no agent labels it (`click link About us`).
    name: String,
    steps: Vec<Value>,
    /// The name of what it acts on, for the destructive guard (`Delete account`).
    target_name: String,
    /// An agent said it destroys data.
    destructive: bool,
}

/// A selector object of an agent's or explore's todo, described (`link About us #2`).
fn describe(sel: &Value) -> String {
    let s = |k: &str| sel.get(k).and_then(Value::as_str);
    let base = match (s("role"), s("text"), s("css")) {
        (Some(role), Some(text), _) => format!("{role} {text}"),
        (Some(role), None, _) => role.to_string(),
        (None, Some(text), _) => format!("text \"{text}\""),
        (None, None, Some(css)) => format!("css `{css}`"),
        _ => sel.to_string(),
    };
    match sel.get("nth").and_then(Value::as_i64) {
        Some(n) => format!("{base} #{}", n + 1),
        None => base,
    }
}

/// The field a form value is for: a CSS selector as given, else the control whose `name`,
/// id or accessible name it is.
fn field(key: &str) -> Value {
    if key.starts_with(['#', '.', '[']) || key.contains('=') {
        return json!({ "css": key });
    }
    let quoted = serde_json::to_string(key).unwrap_or_default();
    json!([
        { "css": format!("[name={quoted}]") },
        { "css": format!("[id={quoted}]") },
        { "role": "textbox", "text": key, "exact": true },
    ])
}

/// A todo as the steps that do it. Two shapes: explore's own (`{role, name, nth}`: click it)
/// and an agent's (`{action, selector, parameters, is_destructive}`). `None` for a todo it
/// cannot do (a snapshot ref the agent gave that is not on the page: refs do not outlive it).
fn task_of(todo: &Value) -> Option<Task> {
    let Some(action) = todo.get("action").and_then(Value::as_str) else {
        let role = todo.get("role")?.as_str()?;
        let name = todo.get("name")?.as_str()?;
        let mut target = json!({ "role": role, "text": name, "exact": true });
        if let Some(n) = todo.get("nth").and_then(Value::as_i64) {
            target["nth"] = json!(n);
        }
        return Some(Task {
            name: format!("click {}", describe(&target)),
            steps: vec![json!({ "click": target })],
            target_name: name.to_string(),
            destructive: false,
        });
    };
    let sel = todo.get("selector")?.clone();
    if sel.get("ref").is_some() {
        return None;
    }
    let params: Vec<(String, String)> = todo
        .get("parameters")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let value = params
        .iter()
        .find(|(k, _)| k == "value")
        .or(params.first())
        .map(|(_, v)| v.clone());
    let steps = match action {
        "click" => vec![json!({ "click": sel })],
        "check" => vec![json!({ "check": sel })],
        "fill" => vec![json!({ "fill": { "target": sel, "value": value.unwrap_or_default() } })],
        "select" => vec![json!({ "select": { "target": sel, "value": value? } })],
        "submit" => {
            let mut steps: Vec<Value> = params
                .iter()
                .map(|(k, v)| json!({ "fill": { "target": field(k), "value": v } }))
                .collect();
            steps.push(json!({ "click": sel }));
            steps
        }
        _ => return None,
    };
    Some(Task {
        name: format!("{action} {}", describe(&sel)),
        steps,
        target_name: sel
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        destructive: todo
            .get("is_destructive")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

/// The name a snapshot line gives (`- button "Save" [ref=e3]` -> `Save`), if any.
fn quoted_name(line: &str) -> Option<&str> {
    let rest = line.split_once('"')?.1;
    let name = rest.rsplit_once('"')?.0;
    (!name.trim().is_empty()).then_some(name)
}

/// What else a snapshot shows can be clicked, beyond the roles of `is_candidate`, as the
/// todos that click it by its text: an element with a click handler (`generic [ref=e1]
/// clickable [onclick]`, named by its own text or its first text inside) and a `<details>`
/// summary (`DisclosureTriangle "More"`, which has no ref). Checkboxes, radios and selects are
/// not candidates: their checked or selected value is part of a state's fingerprint, so every
/// toggle would be a node of its own; an agent proposes them where they matter (`check`,
/// `select`).
fn text_todos(snapshot: &str) -> Vec<Value> {
    let lines: Vec<&str> = snapshot.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut out: Vec<(String, Option<&str>)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let item = line.trim_start().trim_start_matches("- ");
        let role = item.split([' ', ':']).next().unwrap_or_default();
        if role == "DisclosureTriangle" {
            if let Some(name) = quoted_name(item) {
                out.push((name.to_string(), Some("summary")));
            }
            continue;
        }
        if !item.contains(" clickable [") || is_candidate(role) {
            continue;
        }
        let own = quoted_name(item.split(" clickable [").next().unwrap_or_default());
        let inner = || {
            lines[i + 1..]
                .iter()
                .take_while(|l| indent(l) > indent(line))
                .find_map(|l| {
                    let l = l.trim_start().trim_start_matches("- ");
                    l.starts_with("StaticText ")
                        .then(|| quoted_name(l))
                        .flatten()
                })
        };
        if let Some(name) = own.or_else(inner) {
            out.push((name.to_string(), None));
        }
    }
    let mut todos = Vec::new();
    for (i, (name, tag)) in out.iter().enumerate() {
        let mut sel = json!({ "text": name, "exact": true });
        if let Some(t) = tag {
            sel["tag"] = json!(t);
        }
        let same = |o: &(String, Option<&str>)| o.0 == *name && o.1 == *tag;
        if out.iter().filter(|o| same(o)).count() > 1 {
            sel["nth"] = json!(out[..i].iter().filter(|o| same(o)).count());
        }
        todos.push(json!({ "action": "click", "selector": sel }));
    }
    todos
}

/// The page's forms, for explore's own form todos: each form's visible fields with a name or an
/// id (name, id, type, required, min) and its submit button's text.
const FORMS_JS: &str = r#"[...document.forms].map(f => ({
  fields: [...f.elements].filter(e => (e.name || e.id) && (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA')
      && !['hidden', 'submit', 'button', 'reset', 'image', 'file', 'checkbox', 'radio'].includes(e.type)
      && (e.offsetParent !== null || e.getClientRects().length))
    .map(e => ({ name: e.name, id: e.id, type: (e.type || 'text').toLowerCase(), required: e.required, min: e.min || '' })),
  submit: ((f.querySelector('button:not([type=button]):not([type=reset]), input[type=submit]') || {}).innerText
    || (f.querySelector('input[type=submit]') || {}).value || '').trim(),
}))"#;

/// A value of the field's type that a form accepts, for explore's own form todos (an agent
/// proposes its own values).
fn typed_default(kind: &str, min: &str) -> String {
    match kind {
        "email" => "test@example.com".into(),
        "number" | "range" => {
            if min.is_empty() {
                "1".into()
            } else {
                min.into()
            }
        }
        "date" => "2026-01-15".into(),
        "datetime-local" => "2026-01-15T10:30".into(),
        "time" => "10:30".into(),
        "month" => "2026-01".into(),
        "week" => "2026-W03".into(),
        "tel" => "+15550100".into(),
        "url" => "https://example.com".into(),
        "password" => "Example-passw0rd".into(),
        "color" => "#336699".into(),
        _ => "test".into(),
    }
}

/// Explore's own todos for a page's forms (`FORMS_JS`'s answer): fill every field with a value
/// of its type, then press the form's submit button (named by its text).
fn form_todos(forms: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for f in forms.as_array().into_iter().flatten() {
        let submit = f["submit"].as_str().unwrap_or_default();
        let fields = f["fields"].as_array().cloned().unwrap_or_default();
        if submit.is_empty() || fields.is_empty() {
            continue;
        }
        let params: serde_json::Map<String, Value> = fields
            .iter()
            .filter_map(|x| {
                // By name, else by id (as CSS attribute selectors: any character is safe).
                let s = |k: &str| x[k].as_str().filter(|v| !v.is_empty());
                let (attr, v) = s("name")
                    .map(|n| ("name", n))
                    .or(s("id").map(|i| ("id", i)))?;
                let kind = x["type"].as_str().unwrap_or("text");
                let value = typed_default(kind, x["min"].as_str().unwrap_or_default());
                Some((
                    format!("[{attr}={}]", serde_json::to_string(v).ok()?),
                    json!(value),
                ))
            })
            .collect();
        out.push(json!({
            "action": "submit",
            "selector": { "role": "button", "text": submit, "exact": true },
            "parameters": params,
        }));
    }
    out
}

/// Explore's own todos of a state: its clickable elements with a name, in page order; elements
/// sharing a role and name are told apart by `nth`, every one of them (the click is strict:
/// without `nth`, the first of two would match both and never be clicked). Then what has a click
/// handler or is a `<details>` summary (see `text_todos`), and each form filled with values of
/// its fields' types and submitted (see `form_todos`).
fn own_todos(refs: &BTreeMap<String, RefInfo>, snapshot: &str, forms: &Value) -> Vec<Value> {
    let mut clickable: Vec<(&String, &RefInfo)> = refs
        .iter()
        .filter(|(_, r)| is_candidate(&r.role) && !r.name.trim().is_empty())
        .collect();
    clickable.sort_by_key(|(k, _)| ref_number(k));
    let mut total: std::collections::HashMap<(&str, &str), i64> = std::collections::HashMap::new();
    for (_, r) in &clickable {
        *total.entry((r.role.as_str(), r.name.as_str())).or_insert(0) += 1;
    }
    let mut seen_names: std::collections::HashMap<(&str, &str), i64> =
        std::collections::HashMap::new();
    let mut todos: Vec<Value> = clickable
        .into_iter()
        .map(|(_, r)| {
            let key = (r.role.as_str(), r.name.as_str());
            let n = seen_names.entry(key).or_insert(0);
            *n += 1;
            if total.get(&key).copied().unwrap_or(1) == 1 {
                json!({ "role": r.role, "name": r.name })
            } else {
                json!({ "role": r.role, "name": r.name, "nth": *n - 1 })
            }
        })
        .collect();
    todos.extend(text_todos(snapshot));
    todos.extend(form_todos(forms));
    todos
}

struct Crawler<'a> {
    driver: &'a mut dyn Driver,
    atlas: Atlas,
    status: StatusFile,
    opts: &'a Options,
    agent: Option<&'a ExploreAgent<'a>>,
    timeout: Duration,
    masker: Masker,
    summary: Summary,
}

/// One read of the page right after a todo acted: a read that meets the navigation the todo
/// started (`Poll::settle`) is made again on the new document, until `timeout`.
async fn read(
    session: &mut Session,
    command: &Command,
    timeout: Duration,
) -> Result<Value, StepError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut poll = Poll::new();
    loop {
        let r = session.send(command.clone(), timeout).await;
        if let Some(data) = poll.settle(r)? {
            return Ok(data);
        }
        if !poll.wait(deadline).await {
            return Err(poll.still_navigating().unwrap_or_else(|| {
                StepError::new(ErrorKind::Timeout, "timed out reading the page")
            }));
        }
    }
}

impl Crawler<'_> {
    /// Runs recorded steps as a flow; the error names the step that failed.
    async fn run_steps(&mut self, steps: &[Value]) -> Result<(), StepError> {
        let flow = json!({ "name": "explore", "steps": steps });
        let r = self.driver.run(&flow).await?;
        if r.status == FlowStatus::Passed {
            return Ok(());
        }
        Err(r.error.clone().unwrap_or_else(|| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("the steps {}", r.status.as_str()),
            )
        }))
    }

    /// The state the browser is in, recorded.
    async fn observe(&mut self) -> Result<Arrived, StepError> {
        let shot = self.opts.artifacts.join("state.png");
        let mut session = self.driver.session().await?;
        let to = RecordTarget {
            atlas: &self.atlas.root,
            screenshot: &shot,
            run_id: &self.opts.run_id,
            masker: &self.masker,
        };
        let seen = observe(&mut session, &self.atlas, &to, self.timeout).await?;
        // Forms are read for explore's own todos, of new states only.
        let forms = if self.agent.is_none() && seen.ensured.is_new {
            let data = read(&mut session, &Command::eval(FORMS_JS), self.timeout).await?;
            data.get("result").cloned().unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        Ok(Arrived {
            node: seen.ensured.node_id,
            is_new: seen.ensured.is_new,
            refs: parse_snapshot_refs(&seen.seen.snapshot),
            forms,
            url: seen.seen.url,
            title: seen.seen.title,
            text: seen.seen.text,
        })
    }

    /// The todos of a new state: the agent's (`page_analysis`, by priority; its summary and
    /// test ideas kept beside the node), else the state's own clickable elements.
    async fn todos_of(&mut self, at: &Arrived) -> Result<Vec<Value>, StepError> {
        let Some(agent) = self.agent else {
            return Ok(own_todos(&at.refs, &at.text, &at.forms));
        };
        self.analyse(agent, at).await.map_err(|mut e| {
            e.message = format!("page_analysis of {}: {}", at.node, e.message);
            e
        })
    }

    async fn analyse(
        &self,
        agent: &ExploreAgent<'_>,
        at: &Arrived,
    ) -> Result<Vec<Value>, StepError> {
        let refs = &at.refs;
        // Snapshot refs do not outlive the snapshot: the agent's become role and name.
        let stable = |answer: &mut Value| {
            let Some(tasks) = answer
                .get_mut("frontier_tasks")
                .and_then(Value::as_array_mut)
            else {
                return;
            };
            for t in tasks {
                if let Some(s) = t
                    .pointer("/selector/ref")
                    .and_then(Value::as_str)
                    .and_then(|r| stable_selector(r, refs))
                {
                    t["selector"] = s;
                }
            }
        };
        let screenshot = self.atlas.node_dir(&at.node).join("screenshot.png");
        let call = SkillCall {
            skill: Skill::PageAnalysis,
            input: json!({
                "url": at.url,
                "title": at.title,
                "snapshot": at.text,
                "screenshot": screenshot.exists().then(|| screenshot.display().to_string()),
            }),
            // The state's fingerprint (its node id): not its origin, not its volatile text.
            key: json!({ "node": at.node }),
            profile: agent.profile.as_deref(),
            variant: None,
            use_cache: true,
            normalize: &stable,
        };
        let (answer, _) = call_skill(&call, &agent.env).await?;
        let record = |name: &str, v: &Value| self.atlas.write_node_json(&at.node, name, v);
        record("test_ideas.json", &answer["test_ideas"])?;
        record(
            "analysis.json",
            &json!({ "summary": answer["summary"], "url": at.url, "title": at.title }),
        )?;
        let mut tasks: Vec<Value> = answer["frontier_tasks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // Highest priority first; equal ones in the agent's order.
        tasks.sort_by_key(|t| std::cmp::Reverse(t["priority"].as_i64().unwrap_or(0)));
        Ok(tasks)
    }

    /// The agent's label of the move from `from` along `task` to `to` (`trajectory_labeling`).
    async fn label(
        &self,
        agent: &ExploreAgent<'_>,
        from: &str,
        task: &Task,
        to: &Arrived,
    ) -> Result<Value, StepError> {
        let before = self.atlas.meta(from)?;
        let node_file = |id: &str, f: &str| self.atlas.node_dir(id).join(f);
        let shot = |id: &str| {
            let p = node_file(id, "screenshot.png");
            p.exists().then(|| p.display().to_string())
        };
        let call = SkillCall {
            skill: Skill::TrajectoryLabeling,
            input: json!({
                "action": task.name,
                "steps": task.steps,
                "before": {
                    "url": before.url,
                    "title": before.title,
                    "snapshot": std::fs::read_to_string(node_file(from, "snapshot.txt")).unwrap_or_default(),
                    "screenshot": shot(from),
                },
                "after": {
                    "url": to.url,
                    "title": to.title,
                    "snapshot": to.text,
                    "screenshot": shot(&to.node),
                },
            }),
            key: json!({ "from": from, "action": task.name, "to": to.node }),
            profile: agent.profile.as_deref(),
            variant: None,
            use_cache: true,
            normalize: &|_: &mut Value| {},
        };
        Ok(call_skill(&call, &agent.env).await?.0)
    }

    /// The current URL.
    async fn url(&mut self) -> Result<String, StepError> {
        let mut session = self.driver.session().await?;
        let data = read(&mut session, &Command::GetUrl, self.timeout).await?;
        Ok(data
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    /// Replays the path to `node` (its root's entry, then each edge) in a fresh browser context:
    /// what an earlier todo did to the app's client state (cookies, storage) without changing a
    /// fingerprint is not carried over, so every state recorded is one its recorded path
    /// reaches from scratch, as `atlas verify` and `replay` do.
    async fn teleport(&mut self, node: &str) -> Result<(), StepError> {
        let steps = self.atlas.steps_to(node)?;
        self.driver.reset().await?;
        self.run_steps(&steps).await
    }

    /// Records the edge `task` made from `node` to `to`: under the agent's label, else under
    /// the task's name. False when the agent says the move meant nothing: no edge.
    async fn link(&mut self, node: &str, task: &Task, to: &Arrived) -> Result<bool, StepError> {
        let labelled = match self.agent {
            None => None,
            Some(agent) => Some(self.label(agent, node, task, to).await.map_err(|mut e| {
                e.message = format!(
                    "trajectory_labeling of {node}: {}: {}",
                    task.name, e.message
                );
                e
            })?),
        };
        let Some(l) = labelled else {
            // A link that already exists under this name to another state is kept as recorded.
            let _ = self
                .atlas
                .link_state(node, &task.name, &to.node, &task.steps);
            return Ok(true);
        };
        if l["is_meaningful"] == json!(false) {
            self.summary
                .dropped_meaningless
                .push(format!("{node}: {}", task.name));
            return Ok(false);
        }
        let label = EdgeLabel {
            script_name: l["script_name"].as_str().unwrap_or_default().to_string(),
            confidence: l["confidence"].as_f64().unwrap_or_default(),
            performed: task.name.clone(),
        };
        let name = l["semantic_label"].as_str().unwrap_or(&task.name);
        match self
            .atlas
            .link_labelled(node, name, &to.node, &task.steps, Some(label.clone()))
        {
            // Two moves the agent named alike: the second keeps explore's name beside it.
            Err(AtlasError::LinkExists { .. }) => {
                let _ = self.atlas.link_labelled(
                    node,
                    &format!("{name} ({})", task.name),
                    &to.node,
                    &task.steps,
                    Some(label),
                );
                Ok(true)
            }
            r => r.map(|_| true).map_err(StepError::from),
        }
    }
}

/// Crawls from `opts.url` with `driver` (one browser session for the whole crawl), with the
/// agent's skills when there is one; `progress` gets a status line after each todo.
pub(crate) async fn explore(
    driver: &mut dyn Driver,
    opts: &Options,
    agent: Option<&ExploreAgent<'_>>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let started = Instant::now();
    std::fs::create_dir_all(&opts.artifacts).map_err(|e| {
        StepError::new(
            ErrorKind::Environment,
            format!("cannot create {}: {e}", opts.artifacts.display()),
        )
    })?;
    let atlas = Atlas::open(&opts.atlas)?;
    let status = StatusFile::start(&atlas);
    let mut c = Crawler {
        driver,
        atlas,
        status,
        opts,
        agent,
        timeout: Duration::from_secs(15),
        masker: Masker::default(),
        summary: Summary::default(),
    };
    let r = crawl(&mut c, started, progress).await;
    let end = if r.is_ok() { "done" } else { "failed" };
    c.status.write(&c.atlas, end, None);
    r
}

async fn crawl(
    c: &mut Crawler<'_>,
    started: Instant,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Summary, StepError> {
    let opts = c.opts;
    let entry = vec![json!({ "open": opts.url })];
    c.run_steps(&entry).await?;
    let root = c.observe().await?;
    if root.is_new {
        match c.todos_of(&root).await {
            Ok(todos) => c.atlas.manage_todos(&root.node, Some(&todos))?,
            Err(e) => {
                // Not kept half done: the next crawl sees the state anew and asks again.
                c.atlas.forget_new_node(&root.node)?;
                return Err(e);
            }
        };
    }
    c.atlas.set_entry(&root.node, &entry)?;
    let start_origin = origin(&opts.url);
    let mut queue = std::collections::VecDeque::from([(root.node.clone(), 0usize)]);
    let mut seen = std::collections::HashSet::from([root.node.clone()]);
    // Resume: states recorded by an earlier crawl that still have todos.
    for id in c.atlas.node_ids()? {
        if !c.atlas.todos(&id).is_empty()
            && seen.insert(id.clone())
            && let Ok(path) = c.atlas.path_to_node(&id)
        {
            queue.push_back((id, path.len() - 1));
        }
    }
    let mut max_depth = 0;
    'crawl: while let Some((node, depth)) = queue.pop_front() {
        max_depth = max_depth.max(depth);
        loop {
            // Stop before taking a todo, so what is left stays on disk for the next crawl.
            if c.atlas.node_ids()?.len() >= opts.max_nodes {
                break 'crawl;
            }
            // Taken off the list only once it is done: a crawl killed midway retries it.
            let Some(todo) = c.atlas.todos(&node).into_iter().next() else {
                break;
            };
            // A todo that could not be finished (the agent did not answer, the browser broke)
            // stays on the list: the crawl stops, and the next one does it.
            visit(
                c,
                &node,
                depth,
                &todo,
                &mut queue,
                &mut seen,
                started,
                start_origin.as_deref(),
                progress,
            )
            .await?;
            c.atlas.manage_todos(&node, None)?;
        }
    }
    let ids = c.atlas.node_ids()?;
    let mut edges = 0;
    for id in &ids {
        edges += c.atlas.links(id)?.len();
    }
    let mut summary = std::mem::take(&mut c.summary);
    summary.total_nodes = ids.len();
    summary.total_edges = edges;
    summary.max_depth_reached = max_depth;
    summary.atlas_path = opts.atlas.display().to_string();
    Ok(summary)
}

/// Does one todo of `node`: teleport there, act, record where it led.
#[allow(clippy::too_many_arguments)]
async fn visit(
    c: &mut Crawler<'_>,
    node: &str,
    depth: usize,
    todo: &Value,
    queue: &mut std::collections::VecDeque<(String, usize)>,
    seen: &mut std::collections::HashSet<String>,
    started: Instant,
    start_origin: Option<&str>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<(), StepError> {
    let opts = c.opts;
    let Some(task) = task_of(todo) else {
        c.summary
            .failed_todos
            .push(format!("{node}: {todo}: not a todo explore can do"));
        return Ok(());
    };
    // An agent's word can add to the guard, never lift it: only --allow-destructive does.
    if (task.destructive || is_destructive(&task.target_name) || is_destructive(&task.name))
        && !opts.allow_destructive
    {
        if !c.summary.skipped_destructive.contains(&task.name) {
            c.summary.skipped_destructive.push(task.name.clone());
        }
        return Ok(());
    }
    let nodes = c.atlas.node_ids()?.len();
    c.status.write(&c.atlas, "exploring", Some(node));
    progress(&format!(
        "explore: {nodes} nodes, {} pending in the queue, at {node} (depth {depth}), {:.1}s: {}",
        queue.len(),
        started.elapsed().as_secs_f64(),
        task.name
    ));
    if let Err(e) = c.teleport(node).await {
        c.summary.failed_todos.push(format!(
            "{node}: {}: the path to the state no longer replays: {}",
            task.name, e.message
        ));
        return Ok(());
    }
    if let Err(e) = c.run_steps(&task.steps).await {
        c.summary
            .failed_todos
            .push(format!("{node}: {}: {}", task.name, e.message));
        return Ok(());
    }
    if origin(&c.url().await?).as_deref() != start_origin {
        return Ok(()); // left the app
    }
    let to = c.observe().await?;
    // A new state is analysed before it is linked: if either fails it is forgotten (the todo
    // stays, the next crawl meets the state anew); a move that meant nothing leaves no trace.
    let explored = to.is_new && depth + 1 < opts.max_depth;
    let kept = async {
        let todos = if explored {
            Some(c.todos_of(&to).await?)
        } else {
            None
        };
        let linked = to.node == node || c.link(node, &task, &to).await?;
        Ok::<_, StepError>((linked, todos))
    }
    .await;
    let todos = match kept {
        Ok((true, todos)) => todos,
        Ok((false, _)) | Err(_) if to.is_new => {
            c.atlas.forget_new_node(&to.node)?;
            return kept.map(|_| ());
        }
        Ok((false, _)) => return Ok(()),
        Err(e) => return Err(e),
    };
    if to.is_new && seen.insert(to.node.clone()) {
        if let Some(todos) = todos {
            c.atlas.manage_todos(&to.node, Some(&todos))?;
        }
        queue.push_back((to.node.clone(), depth + 1));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The URL read after a click on a link is read again while the page it opens commits.
    #[tokio::test]
    async fn a_read_after_a_todo_waits_out_the_navigation_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = crate::browser::session_on_fake_daemon(dir.path(), |n, _| {
            if n < 2 {
                Err("CDP error (Runtime.evaluate): Inspected target navigated or closed".into())
            } else {
                Ok(json!({"url":"http://shop/cart"}))
            }
        });
        let got = read(&mut s, &Command::GetUrl, Duration::from_secs(3))
            .await
            .unwrap();
        assert_eq!(got["url"], "http://shop/cart");
        // Any other failure is the read's, at once.
        let dir = tempfile::tempdir().unwrap();
        let mut s = crate::browser::session_on_fake_daemon(dir.path(), |_, _| {
            Err("CDP error (Runtime.evaluate): Target crashed".into())
        });
        let err = read(&mut s, &Command::GetUrl, Duration::from_secs(3))
            .await
            .unwrap_err();
        assert!(err.message.contains("Target crashed"), "{}", err.message);
    }

    #[test]
    fn handlers_and_summaries_are_candidates_by_their_text() {
        let snap = r#"- generic [ref=e1] clickable [onclick]
  - StaticText "Open panel"
- generic "Named" [ref=e2] clickable [cursor:pointer, onclick]
- button "Save" [ref=e3] clickable [onclick]
- group
  - DisclosureTriangle "More info" [expanded=false]
    - StaticText "More info"
- generic [ref=e4] clickable [onclick]
  - StaticText "Open panel"
- checkbox "I agree" [checked=false, ref=e5]"#;
        assert_eq!(
            text_todos(snap),
            vec![
                json!({"action": "click", "selector": {"text": "Open panel", "exact": true, "nth": 0}}),
                json!({"action": "click", "selector": {"text": "Named", "exact": true}}),
                json!({"action": "click", "selector": {"text": "More info", "exact": true, "tag": "summary"}}),
                json!({"action": "click", "selector": {"text": "Open panel", "exact": true, "nth": 1}}),
            ]
        );
        let t = task_of(&text_todos(snap)[2]).unwrap();
        assert_eq!(t.name, "click text \"More info\"");
    }

    #[test]
    fn forms_are_filled_with_values_of_their_types() {
        let forms = json!([
            {"fields": [
                {"name": "email", "type": "email", "required": true, "min": ""},
                {"name": "qty", "type": "number", "required": false, "min": "2"},
                {"name": "when", "type": "date", "required": false, "min": ""},
                {"name": "", "id": "nick", "type": "text", "required": true, "min": ""}],
             "submit": "Send"},
            {"fields": [], "submit": "Search"},
        ]);
        let todos = form_todos(&forms);
        assert_eq!(todos.len(), 1, "a form without fields is no form todo");
        let task = task_of(&todos[0]).unwrap();
        assert_eq!(task.name, "submit button Send");
        assert_eq!(
            task.steps,
            vec![
                json!({"fill": {"target": {"css": "[name=\"email\"]"}, "value": "test@example.com"}}),
                json!({"fill": {"target": {"css": "[name=\"qty\"]"}, "value": "2"}}),
                json!({"fill": {"target": {"css": "[name=\"when\"]"}, "value": "2026-01-15"}}),
                json!({"fill": {"target": {"css": "[id=\"nick\"]"}, "value": "test"}}),
                json!({"click": {"role": "button", "text": "Send", "exact": true}}),
            ]
        );
    }

    #[test]
    fn destructive_names() {
        assert!(is_destructive("Delete account"));
        assert!(is_destructive("Sign out"));
        assert!(!is_destructive("About us"));
    }
}
