//! ElementSelector resolution (SPEC §3.2): a selector becomes something agent-browser accepts
//! (`@e5` or CSS). Role and name mean what the accessibility snapshot shows; refs from before a
//! navigation are refused; a miss lists up to 5 similar things that do exist.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

pub(crate) use super::element_kind::ElementKind;
use crate::browser::driver::adapter::{Cause, RefInfo, ref_number};
use crate::browser::driver::command::Command;
use crate::browser::driver::session::Session;
use crate::config::model::{Selector, SelectorItem, SelectorObject};
use crate::step::{ErrorKind, StepError};

/// The waits between re-checks of what the page has yet to show (an element, an assertion, a
/// `wait`): short at first, as a re-render after a click or a route change takes a frame or
/// two, then every 100 ms (Playwright retries after 0, 20, 50, 100, 100, 500 ms).
pub(crate) struct Poll {
    checks: usize,
    /// The last check that met a navigation in flight (see `settle`).
    navigated: Option<StepError>,
}

impl Poll {
    const STEPS_MS: [u64; 5] = [10, 20, 30, 50, 100];

    pub(crate) fn new() -> Poll {
        Poll {
            checks: 0,
            navigated: None,
        }
    }

    /// What one check of the page gave. A check that met a navigation committing while it read
    /// the page (`Cause::navigated`) has no answer yet: `None`, and the next check reads the
    /// new document. Any other failure is the check's.
    pub(crate) fn settle<T>(&mut self, r: Result<T, StepError>) -> Result<Option<T>, StepError> {
        match r {
            Err(e) if Cause::of(&e.message).navigated => {
                self.navigated = Some(e);
                Ok(None)
            }
            Err(e) => Err(e),
            Ok(v) => {
                self.navigated = None;
                Ok(Some(v))
            }
        }
    }

    /// The error of a wait that ran out while the last check still met a navigation.
    pub(crate) fn still_navigating(&mut self) -> Option<StepError> {
        self.navigated.take().map(|e| {
            StepError::new(
                ErrorKind::Timeout,
                format!(
                    "timed out: the page was still navigating at the last check ({})",
                    e.message
                ),
            )
        })
    }

    /// Sleeps until the next check; false (without sleeping) when that check would come at or
    /// after `deadline`.
    pub(crate) async fn wait(&mut self, deadline: Instant) -> bool {
        let d = Duration::from_millis(Self::STEPS_MS[self.checks.min(Self::STEPS_MS.len() - 1)]);
        self.checks += 1;
        if Instant::now() + d >= deadline {
            return false;
        }
        tokio::time::sleep(d).await;
        true
    }
}

/// A resolved element.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// What agent-browser gets for exactly this element: `@e5`, or a CSS handle runner put on it
    /// (`[data-runner-sel="…"]`).
    pub(crate) target: String,
    /// Which alternative matched, as the user wrote it.
    pub(crate) matched: String,
    /// Its position in a fallback list.
    pub(crate) index: usize,
    /// How many elements that alternative matched (actions refuse more than one without `nth`).
    pub(crate) count: usize,
    /// Whether the alternative said which match it means (`nth`).
    pub(crate) has_nth: bool,
    /// Up to 5 of the matches, described (`button "Remove"`, `button#rm.danger "Remove"`).
    pub(crate) matches: Vec<String>,
    /// What kind of element it is, for the actions that need a particular one.
    pub(crate) kind: ElementKind,
    /// The iframe (CSS in the page) it is inside, when its selector said.
    pub(crate) frame: Option<String>,
    /// Found in an accessibility snapshot taken just now (a role and name): it was rendered and
    /// not inert then, as the snapshot lists no other element.
    pub(crate) shown: bool,
}

/// One alternative of a selector.
#[derive(Debug, Clone)]
pub(crate) enum Alt {
    Ref(String),
    Css {
        css: String,
        nth: Option<i64>,
        frame: Option<String>,
    },
    Role {
        role: String,
        name: Option<String>,
        exact: bool,
        nth: Option<i64>,
        frame: Option<String>,
    },
    Text {
        text: String,
        tag: Option<String>,
        exact: bool,
        nth: Option<i64>,
        frame: Option<String>,
    },
}

impl Alt {
    /// How the user wrote it (for reports).
    pub(crate) fn describe(&self) -> String {
        let mut out = self.describe_base();
        if let Some(n) = self.nth() {
            out.push_str(&format!(" (nth {n})"));
        }
        if let Some(f) = self.frame() {
            out.push_str(&format!(" in frame `{f}`"));
        }
        out
    }

    /// The iframe it looks inside (CSS in the page).
    pub(crate) fn frame(&self) -> Option<&str> {
        match self {
            Alt::Ref(_) => None,
            Alt::Css { frame, .. } | Alt::Role { frame, .. } | Alt::Text { frame, .. } => {
                frame.as_deref()
            }
        }
    }

    /// Which match the alternative means, when it says.
    pub(crate) fn nth(&self) -> Option<i64> {
        match self {
            Alt::Ref(_) => None,
            Alt::Css { nth, .. } | Alt::Role { nth, .. } | Alt::Text { nth, .. } => *nth,
        }
    }

    fn describe_base(&self) -> String {
        match self {
            Alt::Ref(r) => format!("@{r}"),
            Alt::Css { css: c, .. } => format!("css `{c}`"),
            Alt::Role {
                role,
                name: Some(n),
                ..
            } => format!("{role} \"{n}\""),
            Alt::Role {
                role, name: None, ..
            } => role.clone(),
            Alt::Text {
                text, tag: Some(t), ..
            } => format!("<{t}> with text \"{text}\""),
            Alt::Text {
                text, tag: None, ..
            } => format!("text \"{text}\""),
        }
    }
}

fn from_object(o: &SelectorObject) -> Alt {
    let exact = o.exact.unwrap_or(false);
    let nth = o.nth;
    let frame = o.frame.clone();
    if let Some(r) = &o.reference {
        Alt::Ref(r.trim_start_matches('@').to_string())
    } else if let Some(c) = &o.css {
        Alt::Css {
            css: c.clone(),
            nth,
            frame,
        }
    } else if let Some(role) = &o.role {
        Alt::Role {
            role: role.clone(),
            name: o.text.clone(),
            exact,
            nth,
            frame,
        }
    } else {
        Alt::Text {
            text: o.text.clone().unwrap_or_default(),
            tag: o.tag.clone(),
            exact,
            nth,
            frame,
        }
    }
}

fn from_string(s: &str) -> Alt {
    match s.strip_prefix('@') {
        Some(r) if !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric()) => {
            Alt::Ref(r.to_string())
        }
        _ => Alt::Css {
            css: s.to_string(),
            nth: None,
            frame: None,
        },
    }
}

/// The alternatives of a selector, in order.
pub(crate) fn alternatives(sel: &Selector) -> Vec<Alt> {
    match sel {
        Selector::String(s) => vec![from_string(s)],
        Selector::Object(o) => vec![from_object(o)],
        Selector::List(items) => items
            .iter()
            .map(|i| match i {
                SelectorItem::String(s) => from_string(s),
                SelectorItem::Object(o) => from_object(o),
            })
            .collect(),
    }
}

/// A selector as the user reads it: its alternatives joined with ` | `.
pub(crate) fn describe_selector(sel: &Selector) -> String {
    alternatives(sel)
        .iter()
        .map(Alt::describe)
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Resolves a selector, waiting up to `deadline` for an element to match.
pub(crate) async fn resolve(
    session: &mut Session,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    let alts = alternatives(sel);
    let mut poll = Poll::new();
    loop {
        for (index, alt) in alts.iter().enumerate() {
            match poll.settle(try_once(session, alt, deadline).await)? {
                Some(Some(found)) => return Ok(found.resolved(alt, index)),
                Some(None) => {}
                // The document changed under the check: all alternatives again, on the new one.
                None => break,
            }
        }
        if !poll.wait(deadline).await {
            break;
        }
    }
    match poll.still_navigating() {
        Some(e) => Err(e),
        None => Err(miss(session, &alts).await),
    }
}

/// Resolves a selector to exactly one element: more than one match is an error listing them,
/// unless `nth` says which (strict mode).
pub(crate) async fn resolve_one(
    session: &mut Session,
    sel: &Selector,
    deadline: Instant,
) -> Result<Resolved, StepError> {
    strict(resolve(session, sel, deadline).await?)
}

/// Strict mode: a match of more than one element is an error listing them, unless the
/// selector's `nth` says which.
fn strict(r: Resolved) -> Result<Resolved, StepError> {
    if r.count > 1 && !r.has_nth {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "strict mode: {} matches {} elements; add `nth: N` (0-based, negative from the end) to say which: {}",
                r.matched,
                r.count,
                r.matches
                    .iter()
                    .enumerate()
                    .map(|(i, m)| format!("[{i}] {m}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(r)
}

/// Resolves once, without waiting; `None` when nothing matches now.
pub(crate) async fn resolve_now(
    session: &mut Session,
    sel: &Selector,
) -> Result<Option<Resolved>, StepError> {
    let deadline = Instant::now() + Duration::from_secs(10);
    for (index, alt) in alternatives(sel).iter().enumerate() {
        if let Some(found) = try_once(session, alt, deadline).await? {
            return Ok(Some(found.resolved(alt, index)));
        }
    }
    Ok(None)
}

/// Resolves once, without waiting, to exactly one element (strict, as `resolve_one`): what an
/// assertion or wait about one element's state reads. `None` when nothing matches now.
pub(crate) async fn resolve_now_one(
    session: &mut Session,
    sel: &Selector,
) -> Result<Option<Resolved>, StepError> {
    resolve_now(session, sel).await?.map(strict).transpose()
}

/// How many elements the first alternative of `sel` matches; with `nth`, one or none.
pub(crate) async fn count(session: &mut Session, sel: &Selector) -> Result<usize, StepError> {
    let Some(alt) = alternatives(sel).into_iter().next() else {
        return Ok(0);
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    Ok(match try_once(session, &alt, deadline).await? {
        None => 0,
        Some(_) if alt.nth().is_some() => 1,
        Some(found) => found.count,
    })
}

/// The time a look-up of the page may take: what is left of the step, at least 2 s.
fn lookup_time(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(2))
}

/// The time an action's command may take: what is left of the step, at least 1 s.
pub(crate) fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1))
}

/// A JSON string literal for embedding in JavaScript.
pub(crate) fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// JavaScript that binds `doc` to the page's document, or to the document of iframe `frame`
/// (CSS in the page); when that frame is missing or of another origin, the script returns
/// `otherwise` (a JavaScript expression).
fn document_js(frame: Option<&str>, otherwise: &str) -> String {
    match frame {
        None => "const doc = document;".to_string(),
        Some(f) => format!(
            "const f = document.querySelector({}); let doc; try {{ doc = f && f.contentDocument }} catch (e) {{}} if (!doc) return {otherwise};",
            js_str(f)
        ),
    }
}

/// What one alternative found on the page.
struct Found {
    target: String,
    count: usize,
    matches: Vec<String>,
    kind: ElementKind,
}

impl Found {
    fn resolved(self, alt: &Alt, index: usize) -> Resolved {
        Resolved {
            target: self.target,
            matched: alt.describe(),
            index,
            count: self.count,
            has_nth: alt.nth().is_some(),
            matches: self.matches,
            kind: self.kind,
            frame: alt.frame().map(str::to_string),
            shown: matches!(alt, Alt::Role { .. }),
        }
    }
}

/// The index `nth` names among `count` matches (negative counts from the end).
fn pick(nth: Option<i64>, count: usize) -> Option<usize> {
    let n = nth.unwrap_or(0);
    let count = i64::try_from(count).ok()?;
    let i = if n < 0 { count + n } else { n };
    (0..count)
        .contains(&i)
        .then(|| usize::try_from(i).ok())
        .flatten()
}

/// The page-side half of CSS and text alternatives: given the list of matching elements, put
/// a handle on the one picked and describe the matches.
const MARK_JS: &str = r#"
  const n = els.length;
  const i = nth === null ? 0 : (nth < 0 ? n + nth : nth);
  const norm = s => (s || '').replace(/\s+/g, ' ').trim();
  const desc = el => {
    let d = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
    for (const c of [...el.classList].slice(0, 2)) d += '.' + c;
    const t = norm(el.innerText || el.value || el.getAttribute('aria-label')).slice(0, 40);
    return t ? d + ' "' + t + '"' : d;
  };
  const out = { count: n, matches: els.slice(0, 5).map(desc) };
  const el = els[i];
  if (el) {
    if (!el.dataset.runnerSel) el.dataset.runnerSel = Math.random().toString(36).slice(2);
    out.id = el.dataset.runnerSel;
    out.kind = { tag: el.tagName.toLowerCase(), input_type: (el.type || '').toLowerCase(), editable: !!el.isContentEditable, role: (r => ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'listbox'].includes(r) ? r : '')(((el.getAttribute('role') || '').trim().split(/\s+/)[0] || '').toLowerCase()) };
  }
  return out;"#;

async fn try_once(
    session: &mut Session,
    alt: &Alt,
    deadline: Instant,
) -> Result<Option<Found>, StepError> {
    let t = lookup_time(deadline);
    // CSS and text alternatives are looked up in the page's document, or an iframe's.
    let page = |setup: String, nth: Option<i64>| {
        let doc = match alt.frame() {
            None => "const doc = document;".to_string(),
            Some(f) => format!(
                "const frame = document.querySelector({});
  if (!frame) return {{ count: 0, matches: [] }};
  let doc; try {{ doc = frame.contentDocument }} catch (e) {{}}
  if (!doc) return {{ foreign: true }};",
                js_str(f)
            ),
        };
        format!(
            "(() => {{ {doc}\n let els; {setup}\n const nth = {};\n{MARK_JS} }})()",
            nth.map_or("null".to_string(), |n| n.to_string())
        )
    };
    let js = match alt {
        Alt::Ref(r) => {
            let target = resolve_ref(session, r, t).await?;
            let role = session
                .user_refs
                .as_ref()
                .and_then(|tbl| tbl.refs.get(r.as_str()))
                .map(|i| (i.role.clone(), format!("{} \"{}\"", i.role, i.name)))
                .unwrap_or_default();
            return Ok(Some(Found {
                target,
                count: 1,
                matches: vec![role.1],
                kind: ElementKind {
                    role: role.0,
                    ..ElementKind::default()
                },
            }));
        }
        Alt::Role {
            role,
            name,
            exact,
            nth,
            frame,
        } => {
            let refs = match frame {
                None => session.fresh_refs(t).await?,
                // Asked before the frame's tree is read: a browser that renders a frame of
                // another origin in the page's own process (the headless shell) lets
                // agent-browser read its tree, but not act on it (a click misses it).
                Some(f) if frame_is_foreign(session, f, t).await? => return Err(foreign_frame(f)),
                Some(f) => session.frame_refs(f, t).await?,
            };
            let mut hits: Vec<(&String, &RefInfo)> = refs
                .iter()
                .filter(|(_, info)| role_matches(info, role, name.as_deref(), *exact))
                .collect();
            // Refs are numbered in document order (e2 before e10): `nth` counts in that order.
            hits.sort_by_key(|(k, _)| ref_number(k));
            let Some(i) = pick(*nth, hits.len()) else {
                return Ok(None);
            };
            return Ok(Some(Found {
                target: format!("@{}", hits[i].0),
                count: hits.len(),
                matches: hits
                    .iter()
                    .take(5)
                    .map(|(k, info)| format!("{} \"{}\" (@{k})", info.role, info.name))
                    .collect(),
                kind: ElementKind {
                    role: hits[i].1.role.clone(),
                    ..ElementKind::default()
                },
            }));
        }
        Alt::Css { css, nth, .. } => page(
            format!(
                "try {{ els = [...doc.querySelectorAll({})] }} catch (e) {{ return {{ invalid: true }} }}",
                js_str(css)
            ),
            *nth,
        ),
        Alt::Text {
            text,
            tag,
            exact,
            nth,
            ..
        } => page(
            format!(
                r"const want = {want}, tag = {tag}, exact = {exact};
  const normt = s => (s || '').replace(/\s+/g, ' ').trim();
  const hit = el => {{ const t = normt(el.innerText); return exact ? t === want : t.toLowerCase().includes(want.toLowerCase()); }};
  const all = [...doc.querySelectorAll(tag || 'body *')].filter(el => el.offsetParent !== null || el.getClientRects().length);
  const found = all.filter(hit);
  els = found.filter(el => !found.some(o => o !== el && el.contains(o)));",
                want = js_str(text),
                tag = tag.as_deref().map_or("null".to_string(), js_str),
                exact = exact
            ),
            *nth,
        ),
    };
    let v = session.eval(&js, t).await?;
    if v.get("foreign").and_then(Value::as_bool) == Some(true) {
        return Err(foreign_frame(alt.frame().unwrap_or_default()));
    }
    if v.get("invalid").and_then(Value::as_bool) == Some(true) {
        let Alt::Css { css, .. } = alt else {
            unreachable!("only CSS can be invalid")
        };
        return Err(invalid_css(css));
    }
    let Some(id) = v.get("id").and_then(Value::as_str) else {
        return Ok(None);
    };
    let kind = v.get("kind").cloned().unwrap_or(Value::Null);
    let field = |k: &str| {
        kind.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let target = format!("[data-runner-sel=\"{id}\"]");
    if let Some(f) = alt.frame() {
        session.frame_of.insert(target.clone(), f.to_string());
    }
    Ok(Some(Found {
        target,
        count: v
            .get("count")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        matches: v
            .get("matches")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        kind: ElementKind {
            tag: field("tag"),
            input_type: field("input_type"),
            editable: kind
                .get("editable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            // An explicit widget role (`<div role=checkbox>`) says what the element is.
            role: field("role"),
        },
    }))
}

/// Whether `el` is disabled: natively (`:disabled`, a disabled fieldset included) or by
/// `aria-disabled` on it or an ancestor (Playwright's rule).
pub(crate) const DISABLED_JS: &str =
    r#"(el.matches(':disabled') || !!el.closest('[aria-disabled="true"]'))"#;

/// Whether `el` refuses typed text: read-only, natively or by `aria-readonly`.
pub(crate) const READ_ONLY_JS: &str =
    r#"(el.readOnly === true || el.getAttribute('aria-readonly') === 'true')"#;

/// Whether the element or one inside it has the focus.
pub(crate) const HAS_FOCUS_JS: &str = r#"(() => {
  let a = el.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return !!a && (a === el || el.contains(a));
})()"#;

/// Evaluates `expr` (a JavaScript expression using `el`) on a resolved element; `None` when the
/// element is gone. Elements found by CSS or text carry runner's handle; one found by role or
/// ref is marked first (see `mark`).
pub(crate) async fn element_eval(
    session: &mut Session,
    r: &Resolved,
    expr: &str,
) -> Result<Option<Value>, StepError> {
    let t = Duration::from_secs(5);
    let handle = if r.target.starts_with('@') {
        mark(session, &r.target, r.frame.as_deref(), t)
            .await?
            .ok_or_else(|| {
            StepError::new(
                ErrorKind::NotFound,
                format!(
                    "cannot find {} in the page's DOM by its box (an element with no size, or covered by one of the same size): select it by css or text",
                    r.matched
                ),
            )
        })?
    } else {
        r.target.clone()
    };
    let v = session.eval(&handle_js(session, &handle, expr), t).await?;
    Ok((!v.is_null()).then_some(v))
}

/// A script that evaluates `expr` (using `el`) on the element runner's CSS handle `handle`
/// names (in its iframe's document when it is in one): `null` when the element is gone.
pub(crate) fn handle_js(session: &Session, handle: &str, expr: &str) -> String {
    let doc = match session.frame_of.get(handle) {
        Some(f) => format!(
            "((document.querySelector({}) || {{}}).contentDocument || document.createDocumentFragment())",
            js_str(f)
        ),
        None => "document".to_string(),
    };
    format!(
        "(() => {{ const el = {doc}.querySelector({});\n if (!el) return null; return {expr}; }})()",
        js_str(handle)
    )
}

/// The element a ref (`@e5`) stands for, marked with runner's handle (`[data-runner-sel]`):
/// the innermost element whose box is the box agent-browser gives for the ref (viewport
/// coordinates, within a pixel). `None` when the ref has no size or no element has that box:
/// never another element in its place.
pub(crate) async fn mark(
    session: &mut Session,
    target: &str,
    frame: Option<&str>,
    t: Duration,
) -> Result<Option<String>, StepError> {
    let b = session
        .send(
            Command::GetBox {
                selector: target.to_string(),
            },
            t,
        )
        .await?;
    let b = b.get("box").unwrap_or(&b);
    let num = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (x, y, w, h) = (num("x"), num("y"), num("width"), num("height"));
    if w * h == 0.0 {
        return Ok(None);
    }
    // Inside an iframe, agent-browser's box is in the frame's own viewport, as the frame's
    // elements measure themselves.
    let doc = document_js(frame, "null");
    let js = format!(
        r#"(() => {{ {doc}
  const near = q => Math.abs(q.x - {x}) <= 1 && Math.abs(q.y - {y}) <= 1 && Math.abs(q.width - {w}) <= 1 && Math.abs(q.height - {h}) <= 1;
  const el = [...doc.querySelectorAll('body, body *')].filter(e => near(e.getBoundingClientRect())).pop();
  if (!el) return null;
  if (!el.dataset.runnerSel) el.dataset.runnerSel = Math.random().toString(36).slice(2);
  return el.dataset.runnerSel; }})()"#
    );
    let v = session.eval(&js, t).await?;
    let handle = v.as_str().map(|id| format!("[data-runner-sel=\"{id}\"]"));
    if let (Some(h), Some(f)) = (&handle, frame) {
        session.frame_of.insert(h.clone(), f.to_string());
    }
    Ok(handle)
}

/// Whether iframe `frame` shows a page of another origin (its document cannot be read).
async fn frame_is_foreign(
    session: &mut Session,
    frame: &str,
    t: Duration,
) -> Result<bool, StepError> {
    let js = format!(
        "(() => {{ const f = document.querySelector({}); if (!f) return false; try {{ return !f.contentDocument; }} catch (e) {{ return true; }} }})()",
        js_str(frame)
    );
    Ok(session.eval(&js, t).await? == Value::Bool(true))
}

/// The error for a selector inside a frame of another origin.
fn foreign_frame(frame: &str) -> StepError {
    StepError::new(
        ErrorKind::NotFound,
        format!(
            "frame `{frame}` shows a page of another origin: neither its document nor its accessibility tree can be read through agent-browser (0.41), so no selector reaches inside it; test that page on its own (open its URL)"
        ),
    )
}

/// The error for CSS the page cannot parse, with the runner form of Playwright-only syntax.
pub(crate) fn invalid_css(css: &str) -> StepError {
    let mut msg = format!("invalid CSS selector `{css}`");
    if let Some(hint) = crate::config::selector_hint(css) {
        msg.push_str(&format!("; {hint}"));
    }
    StepError::new(ErrorKind::NotFound, msg)
}

/// Role and accessible name as the snapshot shows them: role equal, name a case-insensitive
/// substring (or equal with `exact`).
pub(crate) fn role_matches(info: &RefInfo, role: &str, name: Option<&str>, exact: bool) -> bool {
    if !info.role.eq_ignore_ascii_case(role) {
        return false;
    }
    match name {
        None => true,
        Some(n) if exact => info.name == n,
        Some(n) => info.name.to_lowercase().contains(&n.to_lowercase()),
    }
}

async fn resolve_ref(session: &mut Session, r: &str, t: Duration) -> Result<String, StepError> {
    let Some(table) = session.user_refs.clone() else {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("ref {r} used before any snapshot; take a snapshot first"),
        ));
    };
    let Some(info) = table.refs.get(r).cloned() else {
        // The refs nearest in number are the elements around where it would be.
        let want = ref_number(r);
        let mut near: Vec<(&String, &RefInfo)> = table.refs.iter().collect();
        near.sort_by_key(|(k, _)| ref_number(k).abs_diff(want));
        let listed: Vec<String> = near
            .iter()
            .take(5)
            .map(|(k, i)| format!("@{k} ({} \"{}\")", i.role, i.name))
            .collect();
        let mut msg = format!("ref {r} is not in the last snapshot");
        if !listed.is_empty() {
            msg.push_str(&format!("; the closest refs it has: {}", listed.join(", ")));
        }
        return Err(StepError::new(ErrorKind::NotFound, msg));
    };
    let now = session.document(t).await?;
    if now != table.document {
        return Err(StepError::new(
            ErrorKind::NotFound,
            format!("ref {r} is from an earlier page; take a new snapshot"),
        ));
    }
    // A snapshot taken since (by a role selector) may have renumbered the refs: follow the
    // element by its role and name.
    if let Some(latest) = &session.latest_refs
        && latest.document == table.document
        && latest.refs.get(r) != Some(&info)
    {
        return latest
            .refs
            .iter()
            .find(|(_, i)| **i == info)
            .map(|(k, _)| format!("@{k}"))
            .ok_or_else(|| {
                StepError::new(
                    ErrorKind::NotFound,
                    format!(
                        "ref {r} ({} \"{}\") is gone from the page; take a new snapshot",
                        info.role, info.name
                    ),
                )
            });
    }
    Ok(format!("@{r}"))
}

/// The `not_found` error for a selector, with up to 5 similar things that exist where it looks:
/// in the page, or in the iframe it names (there, suggestions carry the frame: the page's own
/// elements are out of the selector's reach).
async fn miss(session: &mut Session, alts: &[Alt]) -> StepError {
    let t = Duration::from_secs(5);
    let wanted: Vec<String> = alts.iter().map(Alt::describe).collect();
    let mut suggestions: Vec<(f64, String)> = Vec::new();
    // The accessibility tree each alternative looks in (the page's, or its frame's), read once.
    let mut trees: HashMap<Option<&str>, BTreeMap<String, RefInfo>> = HashMap::new();
    for frame in alts.iter().map(Alt::frame) {
        if let std::collections::hash_map::Entry::Vacant(tree) = trees.entry(frame) {
            let refs = match frame {
                Some(f) => session.frame_refs(f, t).await,
                None => session.fresh_refs(t).await,
            };
            tree.insert(refs.unwrap_or_default());
        }
    }
    for alt in alts {
        let frame = alt.frame();
        let refs = &trees[&frame];
        let within = |fields: String| match frame {
            Some(f) => format!("{{ {fields}, frame: \"{f}\" }}"),
            None => format!("{{ {fields} }}"),
        };
        match alt {
            Alt::Role { role, name, .. } => {
                for info in refs.values() {
                    let role_sim = strsim::normalized_levenshtein(&info.role, role);
                    let name_sim = name.as_deref().map_or(0.5, |n| {
                        strsim::normalized_levenshtein(&info.name.to_lowercase(), &n.to_lowercase())
                    });
                    suggestions.push((
                        role_sim * 0.4 + name_sim * 0.6,
                        within(format!("role: {}, text: {}", info.role, info.name)),
                    ));
                }
            }
            Alt::Text { text, .. } => {
                for info in refs.values() {
                    let sim = strsim::normalized_levenshtein(
                        &info.name.to_lowercase(),
                        &text.to_lowercase(),
                    );
                    suggestions.push((
                        sim,
                        within(format!("role: {}, text: {}", info.role, info.name)),
                    ));
                }
            }
            Alt::Ref(_) => {
                for (k, info) in refs {
                    suggestions.push((0.1, format!("@{k} ({} \"{}\")", info.role, info.name)));
                }
            }
            Alt::Css { css, .. } => {
                let doc = document_js(frame, "[]");
                let js = format!(
                    r#"(() => {{ {doc} const out = new Set();
  for (const el of doc.querySelectorAll('body *')) {{
    if (el.id) out.add('#' + el.id);
    for (const c of el.classList) out.add('.' + c);
    out.add(el.tagName.toLowerCase());
    if (el.name) out.add(el.tagName.toLowerCase() + '[name="' + el.name + '"]');
  }}
  return [...out].slice(0, 500); }})()"#
                );
                if let Ok(Value::Array(cands)) = session.eval(&js, t).await {
                    for c in cands.iter().filter_map(Value::as_str) {
                        let sim = strsim::normalized_levenshtein(c, css);
                        let text = match frame {
                            Some(_) => within(format!("css: \"{c}\"")),
                            None => format!("css: \"{c}\""),
                        };
                        suggestions.push((sim, text));
                    }
                }
            }
        }
    }
    suggestions.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut seen = std::collections::HashSet::new();
    let top: Vec<String> = suggestions
        .into_iter()
        .filter(|(s, _)| *s > 0.05)
        .map(|(_, t)| t)
        .filter(|t| seen.insert(t.clone()))
        .take(5)
        .collect();
    let mut msg = format!("no element matches {}", wanted.join(", or "));
    if !top.is_empty() {
        // Where they were found: the one frame every alternative looks in, else the page.
        let place = match trees.keys().collect::<Vec<_>>().as_slice() {
            [Some(f)] => format!("in frame `{f}`"),
            _ => "on the page".to_string(),
        };
        msg.push_str(&format!("; similar elements {place}: {}", top.join("; ")));
    }
    StepError::new(ErrorKind::NotFound, msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_refs_or_css() {
        assert!(matches!(from_string("@e5"), Alt::Ref(r) if r == "e5"));
        assert!(matches!(from_string("#login > button"), Alt::Css { .. }));
        assert!(matches!(from_string("@media"), Alt::Ref(_)));
    }

    #[test]
    fn nth_counts_from_zero_and_from_the_end() {
        assert_eq!(pick(None, 3), Some(0));
        assert_eq!(pick(Some(2), 3), Some(2));
        assert_eq!(pick(Some(-1), 3), Some(2));
        assert_eq!(pick(Some(3), 3), None);
        assert_eq!(pick(Some(-4), 3), None);
        assert_eq!(pick(None, 0), None);
    }

    #[test]
    fn roles_match_like_the_snapshot() {
        let info = RefInfo {
            role: "button".into(),
            name: "Sign in".into(),
        };
        assert!(role_matches(&info, "button", Some("sign"), false));
        assert!(!role_matches(&info, "button", Some("sign"), true));
        assert!(role_matches(&info, "button", Some("Sign in"), true));
        assert!(!role_matches(&info, "link", None, false));
    }
}
