//! The browser steps: each turns a typed action into agent-browser commands on the flow's
//! session and returns the step's outputs.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::element_action::{element, fits};
use super::selector::{Poll, left, resolve, resolve_now_one, resolve_one};
use super::session::{RefTable, Session};
use crate::config::duration::parse_duration;
use crate::config::model::{Action, OneOrMany, Toggle, VisibleState, WaitAction};
use crate::step::{ErrorKind, StepError};

/// Where a browser step writes files.
pub(crate) struct StepFiles {
    /// The run's artifacts directory for this flow.
    pub(crate) dir: PathBuf,
    /// `NNN-<id>`: the prefix of this step's files.
    pub(crate) base: String,
}

/// Runs one browser action (the page checks of an `expect` included).
pub(crate) async fn run_step(
    session: &mut Session,
    action: Action,
    timeout: Duration,
    files: &StepFiles,
) -> Result<Value, StepError> {
    let deadline = Instant::now() + timeout;
    // A dialog the previous step left open gets the flow's answer first (an `expect` of the
    // dialog reads it as it is, and a `dialog` step answers it itself).
    let reads_dialog = matches!(&action, Action::Expect(e) if e.dialog.is_some());
    if !matches!(action, Action::Dialog(_)) && !reads_dialog {
        super::dialog::settle(session).await?;
    }
    match action {
        Action::Open(url) => open(session, &url, timeout).await,
        Action::Snapshot(t) => {
            let mut args = Vec::new();
            if let Toggle::Options(o) = t {
                if o.interactive == Some(true) {
                    args.push("-i".to_string());
                }
                if o.compact == Some(true) {
                    args.push("-c".to_string());
                }
                if let Some(d) = o.depth {
                    args.extend(["-d".to_string(), d.to_string()]);
                }
                if let Some(scope) = &o.scope {
                    let r = resolve(session, scope, deadline).await?;
                    if r.target.starts_with('@') {
                        return Err(StepError::new(
                            ErrorKind::NotFound,
                            "snapshot `scope` takes a CSS or text selector, not a ref or role",
                        ));
                    }
                    args.extend(["-s".to_string(), r.target]);
                }
            }
            let data = session.snapshot(&args, timeout).await?;
            session.user_refs.clone_from(&session.latest_refs);
            let table: RefTable = session.user_refs.clone().unwrap_or_default();
            let url = session
                .document(timeout)
                .await?
                .split_once(' ')
                .map(|(_, u)| u.to_string())
                .unwrap_or_default();
            Ok(json!({
                "text": data.get("snapshot").cloned().unwrap_or(Value::String(String::new())),
                "refs": table.refs,
                "url": url,
            }))
        }
        Action::Click(s) => element(session, "click", &s, &[], deadline).await,
        Action::Dblclick(s) => element(session, "dblclick", &s, &[], deadline).await,
        Action::Hover(s) => element(session, "hover", &s, &[], deadline).await,
        Action::Focus(s) => element(session, "focus", &s, &[], deadline).await,
        Action::Check(s) => element(session, "check", &s, &[], deadline).await,
        Action::Upload(u) => upload(session, &u, deadline).await,
        Action::Dialog(d) => dialog(session, &d, deadline).await,
        Action::Tab(t) => tab(session, &t, deadline).await,
        Action::Route(r) => route(session, &r, timeout).await,
        Action::State(s) => save_state(session, &s.save, timeout).await,
        Action::Download(d) => super::download::download(session, &d, &files.dir, deadline).await,
        Action::Uncheck(s) => element(session, "uncheck", &s, &[], deadline).await,
        Action::Fill(f) => {
            element(session, "fill", &f.target, &[f.value.to_string()], deadline).await
        }
        Action::Type(f) => {
            element(session, "type", &f.target, &[f.value.to_string()], deadline).await
        }
        Action::Select(f) => {
            let values = match f.value {
                OneOrMany::One(v) => vec![v],
                OneOrMany::Many(v) => v,
            };
            element(session, "select", &f.target, &values, deadline).await
        }
        Action::Press(p) => press(session, &p, deadline).await,
        Action::Scroll(s) => scroll(session, &s, deadline).await,
        Action::Wait(w) => wait(session, w, deadline).await,
        Action::Screenshot(t) => {
            let (path, target, full) = match t {
                Toggle::On(_) => (None, None, false),
                Toggle::Options(o) => (o.path, o.target, o.full_page.unwrap_or(false)),
            };
            let path = match path {
                // Screenshots stay inside the run's artifacts (a rendered path too).
                Some(p) if crate::fs::leaves_dir(&p) => {
                    return Err(StepError::new(
                        ErrorKind::CommandFailed,
                        format!(
                            "screenshot path `{p}` leaves the artifacts directory; give a relative path without `..`"
                        ),
                    ));
                }
                Some(p) => files.dir.join(p),
                None => files.dir.join(format!("{}.png", files.base)),
            };
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| {
                    StepError::new(
                        ErrorKind::CommandFailed,
                        format!("cannot create {}: {e}", parent.display()),
                    )
                })?;
            }
            let mut args = Vec::new();
            if full {
                args.push("--full".to_string());
            }
            if let Some(t) = target {
                // One element, as an action would (Playwright's locator.screenshot is strict).
                args.push(resolve_one(session, &t, deadline).await?.target);
            }
            args.push(path.display().to_string());
            session.cmd("screenshot", &args, timeout).await?;
            Ok(json!({ "path": path.display().to_string() }))
        }
        Action::Eval(js) => {
            let v = session.eval(&js, timeout).await?;
            Ok(json!({ "value": v }))
        }
        Action::Inspect(i) => super::inspect::inspect(session, &i, deadline).await,
        Action::Expect(e) => super::expect::expect(session, &e, deadline).await,
        // Listed one by one, so a new action has to be placed in a family.
        other @ (Action::Agent(_)
        | Action::Act(_)
        | Action::StopAgent(_)
        | Action::LinkState(_)
        | Action::Exec(_)
        | Action::Set(_)
        | Action::Log(_)
        | Action::RunFlow(_)) => Err(StepError::new(
            ErrorKind::Environment,
            format!("internal error: `{}` is not a browser step", other.key()),
        )),
    }
}

async fn open(session: &mut Session, url: &str, timeout: Duration) -> Result<Value, StepError> {
    let data = session.cmd("open", &[url.to_string()], timeout).await.map_err(|mut e| {
        if e.message.contains("ERR_HTTP_RESPONSE_CODE_FAILURE") {
            e.message = format!("HTTP error response for {url} (the server answered with an error status and an empty page)");
        } else {
            e.message = format!("cannot open {url}: {}", e.message);
        }
        e
    })?;
    // agent-browser reports success for a 404 page: ask the page for its HTTP status.
    let status = session
        .eval(
            "(() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.responseStatus || 0 : 0 })()",
            timeout,
        )
        .await
        .ok()
        .and_then(|v| v.as_i64())
        .unwrap_or(0);
    let final_url = data
        .get("url")
        .cloned()
        .unwrap_or(Value::String(url.to_string()));
    if status >= 400 {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!("HTTP {status} for {}", final_url.as_str().unwrap_or(url)),
        ));
    }
    Ok(json!({
        "url": final_url,
        "title": data.get("title").cloned().unwrap_or(Value::String(String::new())),
        "status": status,
    }))
}

/// `press`: the key for the focused element, or for the target, focused first; the key is not
/// sent when the target cannot take the focus (it would go to whatever has it).
async fn press(
    session: &mut Session,
    p: &crate::config::model::PressAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let key = p.key().to_string();
    let t = left(deadline);
    let Some(sel) = p.target() else {
        session.cmd("press", &[key], t).await?;
        return Ok(json!({}));
    };
    let r = resolve_one(session, sel, deadline).await?;
    session
        .cmd("focus", std::slice::from_ref(&r.target), t)
        .await?;
    if super::selector::element_eval(session, &r, super::selector::HAS_FOCUS_JS).await?
        != Some(Value::Bool(true))
    {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "press {key}: {} cannot take the focus, so the key was not sent (press it on a field, a button or a link, or on the page without `target`)",
                r.matched
            ),
        ));
    }
    session.cmd("press", &[key], t).await?;
    Ok(json!({ "matched": r.matched, "matched_index": r.index }))
}

/// `scroll`: an element into view (then checked to be in the viewport), the page to its top or
/// bottom, or the wheel by some pixels; outputs the window's scroll position after.
async fn scroll(
    session: &mut Session,
    s: &crate::config::model::ScrollAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::config::model::ScrollTo;
    let t = left(deadline);
    let mut out = json!({});
    match s.to() {
        Some(ScrollTo::Element(sel)) => {
            let r = resolve_one(session, sel, deadline).await?;
            session
                .cmd("scrollintoview", std::slice::from_ref(&r.target), t)
                .await?;
            if super::selector::element_eval(session, &r, IN_VIEW_JS).await?
                != Some(Value::Bool(true))
            {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    format!("scroll: {} is still outside the viewport", r.matched),
                ));
            }
            out = json!({ "matched": r.matched, "matched_index": r.index });
        }
        Some(end @ (ScrollTo::Top | ScrollTo::Bottom)) => {
            let y = if matches!(end, ScrollTo::Top) {
                "0"
            } else {
                "document.scrollingElement.scrollHeight"
            };
            session
                .eval(&format!("document.scrollingElement.scrollTo(0, {y})"), t)
                .await?;
        }
        None => {
            let by = s.by.unwrap_or(0);
            let dir = if by < 0 { "up" } else { "down" };
            session
                .cmd(
                    "scroll",
                    &[dir.to_string(), by.unsigned_abs().to_string()],
                    t,
                )
                .await?;
        }
    }
    let pos = session
        .eval(
            "({ x: Math.round(window.scrollX), y: Math.round(window.scrollY) })",
            t,
        )
        .await?;
    out["x"] = pos.get("x").cloned().unwrap_or(Value::Null);
    out["y"] = pos.get("y").cloned().unwrap_or(Value::Null);
    Ok(out)
}

/// Whether an element's box meets the viewport.
const IN_VIEW_JS: &str = "(() => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth; })()";

/// `dialog`: waits (up to the step's timeout) for the page's dialog to be open, answers it,
/// and says what it was (`type`: alert, confirm, prompt, beforeunload; `message`).
async fn dialog(
    session: &mut Session,
    d: &crate::config::model::DialogAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let (accept, text) = d.answer();
    let mut poll = Poll::new();
    // A dialog in another of the flow's tabs is runner's to answer, not this step's (see
    // `dialog_watch`): one that opens while the step waits fails it at once, saying so.
    super::dialog::take_watched(session)?;
    let answered = session.dialogs.len();
    let open = loop {
        if let Some(open) = super::dialog::open(session).await? {
            break open;
        }
        super::dialog::take_watched(session)?;
        if let Some(d) = session.dialogs.get(answered) {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "the {} dialog ({}) opened in another tab of the flow and got the flow's default answer (`browser: {{ dialogs }}`): a `dialog` step answers a dialog of the tab the flow acts on; switch to that tab (`tab: {{ switch: ... }}`) before it opens the dialog",
                    d["type"].as_str().unwrap_or("?"),
                    d["message"]
                ),
            ));
        }
        if !poll.wait(deadline).await {
            return Err(StepError::new(
                ErrorKind::Timeout,
                "timed out waiting for a dialog: the page opened none (a `dialog` step answers one the previous step opened)",
            ));
        }
    };
    super::dialog::answer(session, open, accept, text).await
}

/// `state: { save }`: the flow's cookies and storage (agent-browser's `state save`, Playwright's
/// storageState format) written to a file only its owner reads; outputs its path and how many
/// cookies and origins it holds, never what they are.
async fn save_state(
    session: &mut Session,
    path: &str,
    timeout: Duration,
) -> Result<Value, StepError> {
    let dest = session.cwd.join(path);
    let fail = |e: String| StepError::new(ErrorKind::CommandFailed, e);
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    }
    session
        .cmd(
            "state",
            &["save".to_string(), dest.display().to_string()],
            timeout,
        )
        .await?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| fail(format!("cannot restrict {}: {e}", dest.display())))?;
    }
    let saved: Value = std::fs::read_to_string(&dest)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| fail(format!("the saved state {} is not JSON", dest.display())))?;
    let n = |k: &str| saved.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    Ok(json!({
        "path": dest.display().to_string(),
        "cookies": n("cookies"),
        "origins": n("origins"),
    }))
}

/// `route`: from now to the end of the flow, requests matching the pattern get the stub (or
/// fail, with `abort`); the newest route wins over an older one for the same URL.
async fn route(
    session: &mut Session,
    r: &crate::config::model::RouteAction,
    timeout: Duration,
) -> Result<Value, StepError> {
    let mut args = vec!["route".to_string(), r.url.clone()];
    if r.abort {
        args.push("--abort".into());
    } else {
        let (body, kind) = match &r.body {
            None => (String::new(), "text/plain; charset=utf-8"),
            Some(Value::String(s)) => (s.clone(), "text/plain; charset=utf-8"),
            Some(v) => (v.to_string(), "application/json"),
        };
        let mut response = json!({
            "status": r.status.unwrap_or(200),
            "body": body,
            "contentType": r.content_type.as_deref().unwrap_or(kind),
        });
        if let Some(h) = &r.headers {
            response["headers"] = json!(h);
        }
        args.extend(["--response".to_string(), response.to_string()]);
    }
    // agent-browser answers a URL from the first route that matches it: an earlier route of
    // the same pattern goes first, so this one takes its place.
    if session.routes.contains(&r.url) {
        session
            .cmd("network", &["unroute".to_string(), r.url.clone()], timeout)
            .await?;
    }
    session.cmd("network", &args, timeout).await?;
    session.routes.push(r.url.clone());
    Ok(json!({ "url": r.url }))
}

/// `tab`: switches to another tab of the flow's context (waiting, up to the step's timeout, for
/// it to open), or closes the current one and goes back to the one before it. Outputs the tab's
/// `index` (0: the flow's first), `url`, and the `count` of open tabs.
async fn tab(
    session: &mut Session,
    t: &crate::config::model::TabAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    use crate::config::model::{TabAction, TabWhich};
    let no_tabs = || {
        StepError::new(
            ErrorKind::CommandFailed,
            "`tab` needs the flow's own browser context (not available here)",
        )
    };
    let t_left = left(deadline);
    let (target, list) = match t {
        TabAction::Word(_) => {
            let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
            let list = tabs.list().await?;
            let current = tabs.current.clone();
            let at = list.iter().position(|(id, _)| *id == current).unwrap_or(0);
            if list.len() < 2 {
                return Err(StepError::new(
                    ErrorKind::CommandFailed,
                    "`tab: close` would close the flow's only tab",
                ));
            }
            let back = if at == 0 { 1 } else { at - 1 };
            let back = list[back].0.clone();
            session
                .cmd("tab", &["close".to_string(), current.clone()], t_left)
                .await?;
            // The browser's word that the tab is gone, not agent-browser's.
            let mut poll = Poll::new();
            let list = loop {
                let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
                let list = tabs.list().await?;
                if !list.iter().any(|(id, _)| *id == current) {
                    break list;
                }
                if !poll.wait(deadline).await {
                    return Err(StepError::new(
                        ErrorKind::CommandFailed,
                        "`tab: close`: the tab is still open",
                    ));
                }
            };
            (back, list)
        }
        TabAction::Switch(s) => {
            let mut poll = Poll::new();
            loop {
                let tabs = session.tabs.as_mut().ok_or_else(no_tabs)?;
                let list = tabs.list().await?;
                let n = i64::try_from(list.len()).unwrap_or(i64::MAX);
                let found = match &s.switch {
                    TabWhich::Word(w) if w == "first" => list.first(),
                    // The newest tab, once it is not the one the flow is on.
                    TabWhich::Word(_) => list.last().filter(|(id, _)| *id != tabs.current),
                    TabWhich::Index(i) => {
                        let i = if *i < 0 { n + i } else { *i };
                        usize::try_from(i).ok().and_then(|i| list.get(i))
                    }
                    TabWhich::Url(u) => list.iter().find(|(_, url)| url.contains(&u.url)),
                };
                if let Some((id, _)) = found {
                    break (id.clone(), list);
                }
                if !poll.wait(deadline).await {
                    let open: Vec<String> = list
                        .iter()
                        .enumerate()
                        .map(|(i, (_, url))| format!("[{i}] {url}"))
                        .collect();
                    let want = match &s.switch {
                        TabWhich::Word(w) if w == "first" => "the first tab".to_string(),
                        TabWhich::Word(_) => "a new tab".to_string(),
                        TabWhich::Index(i) => format!("tab {i}"),
                        TabWhich::Url(u) => format!("a tab whose URL contains `{}`", u.url),
                    };
                    return Err(StepError::new(
                        ErrorKind::Timeout,
                        format!(
                            "timed out waiting for {want}; the flow's tabs: {}",
                            open.join(", ")
                        ),
                    ));
                }
            }
        }
    };
    session.switch_tab(&target, t_left).await?;
    let index = list.iter().position(|(id, _)| *id == target).unwrap_or(0);
    Ok(json!({
        "index": index,
        "url": list.get(index).map(|(_, u)| u.clone()).unwrap_or_default(),
        "count": list.len(),
    }))
}

/// `upload`: the files (relative to the flow's directory; each must exist) attached to one file
/// input, and the count the page then holds checked.
async fn upload(
    session: &mut Session,
    u: &crate::config::model::UploadAction,
    deadline: Instant,
) -> Result<Value, StepError> {
    let names = match &u.files {
        OneOrMany::One(f) => vec![f.clone()],
        OneOrMany::Many(v) => v.clone(),
    };
    let mut files = Vec::new();
    for n in &names {
        let p = session.cwd.join(n);
        if !p.is_file() {
            return Err(StepError::new(
                ErrorKind::CommandFailed,
                format!(
                    "no file to upload at {} (`{n}`, relative to the flow's directory)",
                    p.display()
                ),
            ));
        }
        files.push(p.display().to_string());
    }
    let r = resolve_one(session, &u.target, deadline).await?;
    fits("upload", &r)?;
    let mut args = vec![r.target.clone()];
    args.extend(files.iter().cloned());
    let t = left(deadline);
    session.cmd("upload", &args, t).await?;
    // What the input then holds is read from the page: agent-browser counts the files it was
    // given, and an input without `multiple` keeps one of them. `fits` let only an element known
    // to be a file input through, which the resolver marks with a CSS handle (a snapshot ref
    // carries no tag), so the handle reaches it.
    let uploaded = session
        .eval(
            &format!(
                "document.querySelector({}).files.length",
                super::selector::js_str(&r.target)
            ),
            t,
        )
        .await?
        .as_u64()
        .unwrap_or(0);
    if usize::try_from(uploaded).ok() != Some(files.len()) {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "{} holds {uploaded} of the {} file(s) uploaded (an input without `multiple` takes one)",
                r.matched,
                files.len()
            ),
        ));
    }
    Ok(json!({
        "matched": r.matched,
        "matched_index": r.index,
        "uploaded": uploaded,
        "files": files,
    }))
}

async fn wait(session: &mut Session, w: WaitAction, deadline: Instant) -> Result<Value, StepError> {
    match w {
        WaitAction::Duration(d) => {
            let d = parse_duration(&d).map_err(|e| StepError::new(ErrorKind::CommandFailed, e))?;
            tokio::time::sleep(d).await;
            Ok(json!({}))
        }
        WaitAction::For(o) => {
            let mut poll = Poll::new();
            loop {
                let t = Duration::from_secs(5);
                let check = async {
                    Ok::<bool, StepError>(if let Some(sel) = &o.target {
                        let visible = match resolve_now_one(session, sel).await? {
                            Some(r) => session.is("visible", &r.target).await?,
                            None => false,
                        };
                        match o.state.unwrap_or(VisibleState::Visible) {
                            VisibleState::Visible => visible,
                            VisibleState::Hidden => !visible,
                        }
                    } else if let Some(text) = &o.text {
                        let js = format!(
                            "document.body ? document.body.innerText.includes({}) : false",
                            super::selector::js_str(text)
                        );
                        session.eval(&js, t).await?.as_bool().unwrap_or(false)
                    } else if let Some(u) = &o.url {
                        let data = session.cmd("get", &["url".into()], t).await?;
                        data.get("url")
                            .and_then(Value::as_str)
                            .is_some_and(|cur| cur.contains(u.as_str()))
                    } else {
                        true
                    })
                };
                if poll.settle(check.await)?.unwrap_or(false) {
                    return Ok(json!({}));
                }
                if !poll.wait(deadline).await {
                    let what = if let Some(sel) = &o.target {
                        let state = match o.state.unwrap_or(VisibleState::Visible) {
                            VisibleState::Visible => "visible",
                            VisibleState::Hidden => "hidden",
                        };
                        format!(
                            "{} to be {state}",
                            super::selector::alternatives(sel)
                                .iter()
                                .map(super::selector::Alt::describe)
                                .collect::<Vec<_>>()
                                .join(" or ")
                        )
                    } else if let Some(t) = &o.text {
                        format!("the page to show \"{t}\"")
                    } else {
                        format!(
                            "the URL to contain \"{}\"",
                            o.url.clone().unwrap_or_default()
                        )
                    };
                    return Err(match poll.still_navigating() {
                        Some(e) => StepError::new(
                            ErrorKind::Timeout,
                            format!(
                                "timed out waiting for {what}; {}",
                                e.message.trim_start_matches("timed out: ")
                            ),
                        ),
                        None => StepError::new(
                            ErrorKind::Timeout,
                            format!("timed out waiting for {what}"),
                        ),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::time::Instant;

    use super::super::session::Session;
    use super::*;
    use crate::config::model::Selector;

    /// A session on a fake daemon whose first `navigating` answers are Chromium's "the document
    /// was replaced while reading it"; then a page at `/done` with one `#ok` element.
    fn session_on_a_navigating_page(dir: &std::path::Path, navigating: usize) -> Session {
        super::super::session::on_fake_daemon(dir, move |n, v| {
            if n < navigating {
                return Err(
                    "CDP error (Runtime.evaluate): Inspected target navigated or closed".into(),
                );
            }
            Ok(match v["action"].as_str().unwrap() {
                "url" => json!({"url":"http://site/done"}),
                // A selector's look-up script: one match, of a div.
                "evaluate" => json!({"result":{"count":1,"matches":["div#ok"],"id":"k1",
                    "kind":{"tag":"div","input_type":"","editable":false}}}),
                other => panic!("unexpected {other}"),
            })
        })
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(3)
    }

    /// A check that meets a navigation committing (CI saw `wait: { url }` fail on it right after
    /// a form's submit) is checked again on the new document, by every re-checking step.
    #[tokio::test]
    async fn a_navigation_in_flight_is_checked_again_not_failed() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let w: WaitAction = serde_json::from_value(json!({"url":"done"})).unwrap();
        wait(&mut s, w, soon()).await.unwrap();

        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let e: crate::config::model::ExpectAction =
            serde_json::from_value(json!({"url":{"contains":"done"}})).unwrap();
        super::super::expect::expect(&mut s, &e, soon())
            .await
            .unwrap();

        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), 2);
        let sel: Selector = serde_json::from_value(json!("#ok")).unwrap();
        let r = resolve(&mut s, &sel, soon()).await.unwrap();
        assert_eq!(r.count, 1);

        // A page that never stops navigating is a timeout that says so.
        let dir = tempfile::tempdir().unwrap();
        let mut s = session_on_a_navigating_page(dir.path(), usize::MAX);
        let w: WaitAction = serde_json::from_value(json!({"url":"done"})).unwrap();
        let deadline = Instant::now() + Duration::from_millis(400);
        let err = wait(&mut s, w, deadline).await.unwrap_err();
        assert_eq!(err.kind, ErrorKind::Timeout);
        assert!(err.message.contains("still navigating"), "{}", err.message);
    }

    /// Any other failure of a check is the step's, at once.
    #[tokio::test]
    async fn other_failures_of_a_check_are_not_retried() {
        assert!(
            !super::super::adapter::Cause::of("CDP error (Runtime.evaluate): Target crashed")
                .navigated
        );
        assert!(
            super::super::adapter::Cause::of(
                "Execution context was destroyed, most likely because of a navigation."
            )
            .navigated
        );
    }
}
