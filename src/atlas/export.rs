//! `atlas export`: the path to a node as a standalone flow (replays use it too) or as a
//! Playwright for Python script.

use serde_json::{Value, json};

use super::arrival::{Identity, identity};
use super::checks::{comment, expect_steps, py, python_asserts};
use super::fingerprint::origin;
use super::identity::normalize_url;
use super::mount::Mount;
use super::store::{Atlas, AtlasError};
use crate::config::duration::parse_duration;
use crate::config::model::{
    Action, DialogAction, KeyboardAction, OneOrMany, ScrollAction, ScrollTo, SelectAction,
    Selector, Step, UploadAction, VisibleState, WaitAction, WaitOptions,
};

/// What `atlas export` writes.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// A runner flow (JSON, which is YAML).
    Flow,
    /// A Playwright for Python script.
    PlaywrightPython,
}

/// A state on the path to a node: the steps that reach it from the one before (the root's:
/// its entry), pointed at the export's origin, and what identifies it.
struct Reached {
    steps: Vec<Value>,
    /// The atlas's file they were read from (a root's meta.json, an edge's flow.yaml).
    from: String,
    identity: Identity,
    /// Where the state is checked: the export's base when it was recorded on the root's
    /// origin, else its own origin.
    origin: String,
    /// The part of the recorded URL's path that the base stands for (`/app`), or empty.
    under: String,
}

/// The states on the path to `node`, each with its steps pointed at `base_url` (when given)
/// instead of the root's recorded origin (see [`Mount`]).
fn reached(atlas: &Atlas, node: &str, base_url: Option<&str>) -> Result<Vec<Reached>, AtlasError> {
    let by_state = atlas.steps_by_state(node)?;
    let path = atlas.path_to_node(node)?;
    let root_url = atlas.meta(&by_state[0].0)?.url;
    let recorded = origin(&root_url);
    let mount = base_url
        .map(|b| Mount::of(atlas, &root_url, b))
        .transpose()?;
    // Where the export opens the app: a state recorded on the root's origin is checked there
    // (a local one on any port counts as the root's, as for the fingerprint: the atlas may
    // have grown over runs on other free ports), one on another origin where it was seen.
    let at_root = |own: &str| {
        recorded
            .as_deref()
            .is_some_and(|r| normalize_url(&format!("{r}/")) == normalize_url(&format!("{own}/")))
    };
    let mut out = Vec::new();
    for (i, (state, steps)) in by_state.into_iter().enumerate() {
        let identity = identity(atlas, &state)?;
        let from = match i.checked_sub(1).and_then(|j| path[j].script_path.as_ref()) {
            Some(script) => script.display().to_string(),
            None => atlas
                .node_dir(&state)
                .join("meta.json")
                .display()
                .to_string(),
        };
        let own = origin(&identity.url).unwrap_or_default();
        let steps = match &mount {
            Some(m) => {
                serde_json::from_value(m.rebase(&Value::Array(steps), &state)?).unwrap_or_default()
            }
            None => steps,
        };
        let (origin, under) = match (&mount, &recorded) {
            (Some(m), _) if at_root(&own) => (m.base.clone(), m.under.clone()),
            (None, Some(r)) if at_root(&own) => (r.clone(), String::new()),
            _ => (own, String::new()),
        };
        out.push(Reached {
            steps,
            from,
            identity,
            origin,
            under,
        });
    }
    Ok(out)
}

/// A flow named after `node` with `steps`; it declares the secrets they use (recorded steps
/// keep secrets as references).
fn flow(atlas: &Atlas, node: &str, steps: Vec<Value>) -> Value {
    // A flow's name takes no template: a label made of a page's text loses its `{{`.
    let name = format!("reach {} ({node})", super::view::label(atlas, node));
    let mut flow = json!({
        "name": crate::template::unbraced(&name),
        "steps": steps,
    });
    let secrets = super::store::referenced_secrets(&flow);
    if !secrets.is_empty() {
        flow["secrets"] = json!(secrets);
    }
    flow
}

/// The flow that reaches `node`, optionally pointed at another origin: what a replay runs
/// (it checks where it arrived by the fingerprint).
pub(crate) fn export_flow(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
) -> Result<Value, AtlasError> {
    let steps = reached(atlas, node, base_url)?
        .into_iter()
        .flat_map(|r| r.steps)
        .collect();
    Ok(flow(atlas, node, steps))
}

/// The flow that takes a browser at the state before `node` on its path on to `node` (the
/// last link's steps), pointed at `base_url` as `export_flow` points the whole path: what a
/// replay that goes on from there runs.
pub(crate) fn export_last_link(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
) -> Result<Value, AtlasError> {
    let steps = reached(atlas, node, base_url)?
        .pop()
        .map(|r| r.steps)
        .unwrap_or_default();
    Ok(flow(atlas, node, steps))
}

/// `atlas export NODE`: the path to the node as a standalone flow or a Playwright script,
/// each state on it checked on arrival (URL route, title, main heading, landmarks), so the
/// export fails where the app changed, not only where a click no longer finds its element.
pub(crate) fn export(
    atlas: &Atlas,
    node: &str,
    format: ExportFormat,
    base_url: Option<&str>,
) -> Result<String, AtlasError> {
    let states = reached(atlas, node, base_url)?;
    Ok(match format {
        ExportFormat::Flow => {
            let mut steps = Vec::new();
            for r in states {
                steps.extend(r.steps);
                steps.extend(expect_steps(&r.identity, &r.origin, &r.under));
            }
            serde_json::to_string_pretty(&flow(atlas, node, steps)).unwrap_or_default() + "\n"
        }
        ExportFormat::PlaywrightPython => playwright(atlas, &states, node)?,
    })
}

/// The file name (no extension) of a test or an export: a name, lower-case, `_` between words.
pub(crate) fn script_name(idea: &str) -> String {
    let mut out = String::new();
    for c in idea.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    let out: String = out.trim_end_matches('_').chars().take(60).collect();
    if out.is_empty() { "test".into() } else { out }
}

/// The file name (no extension) an exported node gets: the agent's `script_name` of the last
/// edge on its path (`explore --agent`), else its label's words. A stored `script_name` is read
/// from the atlas on disk (which anyone may edit): one that is not a plain file name (`../x`,
/// `/tmp/x`) is refused, so an export never writes outside the directory it is given.
pub(crate) fn file_stem(atlas: &Atlas, node: &str) -> Result<String, AtlasError> {
    let path = atlas.path_to_node(node)?;
    let labelled = path.len().checked_sub(2).and_then(|i| {
        let from = &path[i];
        let action = from.action.as_deref()?;
        let link = atlas
            .links(&from.node_id)
            .ok()?
            .into_iter()
            .find(|l| l.action == action)?;
        let name = atlas
            .edge_meta(&from.node_id, &link.safe)?
            .label?
            .script_name;
        Some((name, from.node_id.clone(), link.safe))
    });
    match labelled {
        Some((name, _, _)) if is_file_stem(&name) => Ok(name),
        Some((name, from, safe)) => Err(AtlasError::Broken {
            path: atlas
                .root
                .join("edges")
                .join(from)
                .join(safe)
                .join("meta.json")
                .display()
                .to_string(),
            message: format!(
                "its `script_name` {name:?} is not a file name: lower-case letters, digits, `_` and `-`, starting with a letter or a digit, at most 100 characters"
            ),
        }),
        None => Ok(script_name(&format!(
            "reach {}",
            super::view::label(atlas, node)
        ))),
    }
}

/// Whether `name` is a `script_name` as the `trajectory_labeling` skill's schema has it
/// (`^[a-z0-9][a-z0-9_-]*$`), and short: a file name in the directory it is joined to.
fn is_file_stem(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
        && name.len() <= 100
}

/// `locator.call` on what `sel` selects, or a comment for a snapshot ref.
fn on(action: &Action, sel: &Selector, call: &str) -> String {
    match super::locator::locator(sel) {
        Some(l) => format!("{l}.{call}"),
        None => comment(&format!(
            "{} on a snapshot ref: no Playwright equivalent",
            action.key()
        )),
    }
}

/// One recorded step as Python lines (a comment for what Playwright has no form of): one arm
/// per action.
fn python(action: &Action) -> String {
    let on = |sel: &Selector, call: &str| on(action, sel, call);
    match action {
        Action::Open(o) => format!("page.goto({})", py(o.url())),
        Action::Back(_) => "page.go_back()".into(),
        Action::Forward(_) => "page.go_forward()".into(),
        Action::Reload(_) => "page.reload()".into(),
        Action::Dispatch(d) => on(&d.target, &format!("dispatch_event({})", py(&d.event))),
        Action::Click(s) => on(s, "click()"),
        Action::Dblclick(s) => on(s, "dblclick()"),
        Action::Hover(s) => on(s, "hover()"),
        Action::Focus(s) => on(s, "focus()"),
        Action::Check(s) => on(s, "check()"),
        Action::Uncheck(s) => on(s, "uncheck()"),
        Action::Fill(f) => on(&f.target, &format!("fill({})", py(&f.value.to_string()))),
        Action::Type(f) => on(
            &f.target,
            &format!("press_sequentially({})", py(&f.value.to_string())),
        ),
        Action::Press(p) => match p.target() {
            Some(t) => on(t, &format!("press({})", py(p.key()))),
            None => format!("page.keyboard.press({})", py(p.key())),
        },
        Action::Keyboard(k) => keyboard(k),
        Action::Scroll(s) => scroll(action, s),
        Action::Upload(u) => upload(action, u),
        Action::Select(f) => select(action, f),
        Action::Wait(WaitAction::Duration(d)) => {
            let ms = parse_duration(d).map_or(0, |d| d.as_millis());
            format!("page.wait_for_timeout({ms})")
        }
        Action::Wait(WaitAction::For(w)) => wait_for(action, w),
        Action::Screenshot(_) => "page.screenshot()".into(),
        Action::Eval(js) => format!("page.evaluate({})", py(js)),
        Action::Dialog(d) => dialog(d),
        Action::Route(r) if r.abort => {
            format!("page.route({}, lambda route: route.abort())", py(&r.url))
        }
        Action::Route(r) => format!(
            "page.route({}, lambda route: route.fulfill(status={}))",
            py(&r.url),
            r.status.unwrap_or(200)
        ),
        Action::State(s) => format!("context.storage_state(path={})", py(&s.save)),
        Action::Download(d) => format!(
            "with page.expect_download() as dl:\n    {}\ndl.value.save_as(\"downloads/\" + dl.value.suggested_filename)",
            on(&d.target, "click()")
        ),
        Action::Tab(_) => comment(
            "switch tabs: page = context.pages[-1] (Playwright keeps a Page object per tab)",
        ),
        Action::Snapshot(_) | Action::Inspect(_) | Action::Expect(_) => comment(&format!(
            "{}: a check runner makes; not replayed here",
            action.key()
        )),
        Action::Act(a) => comment(&format!(
            "act: {} (resolved by runner when it runs)",
            py(a.parts().0)
        )),
        Action::Exec(_)
        | Action::Request(_)
        | Action::Agent(_)
        | Action::StopAgent(_)
        | Action::LinkState(_)
        | Action::Set(_)
        | Action::Log(_)
        | Action::RunFlow(_)
        | Action::Each(_)
        | Action::Group(_) => comment(&format!(
            "{}: runs outside the browser in runner",
            action.key()
        )),
    }
}

/// `keyboard` as `page.keyboard` calls, one line per key pressed.
fn keyboard(k: &KeyboardAction) -> String {
    match k {
        KeyboardAction::Type(t) => format!("page.keyboard.type({})", py(t)),
        KeyboardAction::InsertText(t) => format!("page.keyboard.insert_text({})", py(t)),
        KeyboardAction::Press(_) => k
            .keys()
            .iter()
            .map(|key| format!("page.keyboard.press({})", py(key)))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn scroll(action: &Action, s: &ScrollAction) -> String {
    match s.to() {
        Some(ScrollTo::Element(t)) => on(action, t, "scroll_into_view_if_needed()"),
        Some(ScrollTo::Top) => "page.evaluate(\"window.scrollTo(0, 0)\")".into(),
        Some(ScrollTo::Bottom) => {
            "page.evaluate(\"window.scrollTo(0, document.documentElement.scrollHeight)\")".into()
        }
        None => format!("page.mouse.wheel(0, {})", s.by.unwrap_or(0)),
    }
}

fn upload(action: &Action, u: &UploadAction) -> String {
    let files = match &u.files {
        OneOrMany::One(f) => vec![f.clone()],
        OneOrMany::Many(v) => v.clone(),
    };
    on(
        action,
        &u.target,
        &format!(
            "set_input_files({})",
            serde_json::to_string(&files).unwrap_or_default()
        ),
    )
}

fn select(action: &Action, f: &SelectAction) -> String {
    let values = match &f.value {
        OneOrMany::One(v) => py(v),
        OneOrMany::Many(v) => serde_json::to_string(v).unwrap_or_default(),
    };
    on(action, &f.target, &format!("select_option({values})"))
}

fn wait_for(action: &Action, w: &WaitOptions) -> String {
    match (&w.target, &w.text, &w.url) {
        (Some(t), _, _) => {
            let state = match w.state {
                Some(VisibleState::Hidden) => "hidden",
                _ => "visible",
            };
            on(action, t, &format!("wait_for(state={})", py(state)))
        }
        (None, Some(t), _) => format!("page.get_by_text({}).first.wait_for()", py(t)),
        (None, None, Some(u)) => format!("page.wait_for_url({})", py(&format!("**{u}**"))),
        (None, None, None) => "page.wait_for_load_state()".into(),
    }
}

fn dialog(d: &DialogAction) -> String {
    let (accept, text) = d.answer();
    let how = match (accept, text) {
        (true, Some(t)) => format!("d.accept({})", py(t)),
        (true, None) => "d.accept()".to_string(),
        (false, _) => "d.dismiss()".to_string(),
    };
    // Playwright answers a dialog from a handler armed before the action that opens it.
    comment(&format!(
        "arm before the action that opens the dialog: page.once(\"dialog\", lambda d: {how})"
    ))
}

/// The Playwright script of the path `states` to `node` (an id: 16 hex digits, see
/// `store::is_node_id`); Err: a recorded step runner cannot read (admitted steps always are:
/// its text is never quoted into the script).
fn playwright(atlas: &Atlas, states: &[Reached], node: &str) -> Result<String, AtlasError> {
    let mut s = format!(
        "\"\"\"Replays the path to atlas node {node}, checking each state it reaches.\n\nGenerated by `runner atlas export {node} --format playwright-python`.\nRun: pip install playwright && python this_file.py\n\"\"\"\nimport os\nimport re\n\nfrom playwright.sync_api import expect, sync_playwright\n\n\ndef main():\n    with sync_playwright() as p:\n        browser = p.chromium.launch()\n        page = browser.new_page()\n"
    );
    for r in states {
        let mut lines = Vec::new();
        for (i, step) in r.steps.iter().enumerate() {
            let mut step = step.clone();
            let key = step
                .as_object()
                .and_then(|m| m.keys().find(|k| *k != "name" && *k != "frame"))
                .cloned()
                .unwrap_or_default();
            let at = || format!("{}: step {} (`{key}`)", r.from, i + 1);
            // A template that reads a secret is Python that reads the environment; any other
            // holds the text it prints (`{{ '{{' }}` is `{{`).
            let secrets = secrets_as_python(&mut step).map_err(|why| unwritable(&at(), &why))?;
            crate::template::text_value(&mut step);
            let step = serde_json::from_value::<Step>(step).map_err(|e| {
                AtlasError::Refused(format!(
                    "the atlas at {} holds a step runner cannot read: {}",
                    atlas.root.display(),
                    e.to_string().escape_debug()
                ))
            })?;
            let mut line = python(&step.action);
            for (i, expr) in secrets.iter().enumerate() {
                let mark = py(&placeholder(i));
                if !line.contains(&mark) {
                    return Err(unwritable(&at(), "the script has no place for it"));
                }
                line = line.replace(&mark, expr);
            }
            lines.push(line);
        }
        for line in lines
            .into_iter()
            .chain(python_asserts(&r.identity, &r.origin, &r.under))
        {
            for l in line.lines() {
                s.push_str(&format!("        {l}\n"));
            }
        }
    }
    s.push_str("        browser.close()\n\n\nif __name__ == \"__main__\":\n    main()\n");
    Ok(s)
}

/// The text that stands, in a step being written as Python, for its `i`th string that reads a
/// secret, until the line is written (see [`secrets_as_python`]): no step's own text holds it.
fn placeholder(i: usize) -> String {
    format!("\u{E000}{i}\u{E000}")
}

/// Puts a [`placeholder`] in the place of each string of `step` that reads a secret, and
/// gives their Python expressions (`os.environ["PW"] + "-2fa"`), in their order; Err: the
/// template of one that Python cannot make (`crate::template::as_python`).
fn secrets_as_python(step: &mut Value) -> Result<Vec<String>, String> {
    fn walk(v: &mut Value, out: &mut Vec<String>) -> Result<(), String> {
        match v {
            Value::String(s)
                if !crate::template::secrets_read(s)
                    .unwrap_or_default()
                    .is_empty() =>
            {
                let expr = crate::template::as_python(s).ok_or_else(|| format!("`{s}`"))?;
                *s = placeholder(out.len());
                out.push(expr);
                Ok(())
            }
            Value::Array(items) => items.iter_mut().try_for_each(|i| walk(i, out)),
            Value::Object(m) => m.values_mut().try_for_each(|i| walk(i, out)),
            _ => Ok(()),
        }
    }
    let mut out = Vec::new();
    walk(step, &mut out)?;
    Ok(out)
}

/// Why the Playwright export refuses the step `at` that reads a secret.
fn unwritable(at: &str, why: &str) -> AtlasError {
    AtlasError::Refused(format!(
        "{at}: the Playwright export cannot write this use of a secret in Python ({why}): it writes `secrets.NAME` as `os.environ[\"NAME\"]`, with a slice, `upper`, `lower` or `trim` after it, and joins it to the text around it; it never writes a secret's template as text, which the script would type as it is. Export it as a flow (`--format flow`), or change the step"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(step: Value) -> String {
        python(&serde_json::from_value::<Step>(step).unwrap().action)
    }

    #[test]
    fn a_stored_script_name_is_a_plain_file_name() {
        for good in ["open_cart", "a", "0-x", "checkout_2"] {
            assert!(is_file_stem(good), "{good}");
        }
        for bad in [
            "",
            "../x",
            "/tmp/x",
            "a/b",
            "..",
            ".hidden",
            "_x",
            "Open",
            "a b",
            "a\0b",
            &"a".repeat(101),
        ] {
            assert!(!is_file_stem(bad), "{bad:?}");
        }
    }

    #[test]
    fn each_state_is_checked_on_the_origin_the_export_opens() {
        use crate::atlas::store::State;
        let d = tempfile::tempdir().unwrap();
        let atlas = Atlas::open(d.path()).unwrap();
        let (home, cart, pay) = ("00000000000000a1", "00000000000000a2", "00000000000000a3");
        // The atlas grew over two runs on free ports, and one state is on another site.
        for (id, url) in [
            (home, "http://127.0.0.1:4001/"),
            (cart, "http://127.0.0.1:4002/cart/17"),
            (pay, "https://pay.example/checkout?session=abc"),
        ] {
            atlas
                .ensure_state(&State {
                    node_id: id,
                    url,
                    title: id,
                    fingerprint: "fp",
                    snapshot: "- main\n  - heading \"Hi\" [level=1]",
                    screenshot: None,
                    screenshot_left_out: None,
                    run_id: "r",
                })
                .unwrap();
        }
        atlas
            .set_entry(home, &[json!({"open": "http://127.0.0.1:4001/"})])
            .unwrap();
        atlas
            .link_state(home, "cart", cart, &[json!({"click": "#cart"})])
            .unwrap();
        atlas
            .link_state(cart, "pay", pay, &[json!({"click": "#pay"})])
            .unwrap();
        let urls = |base: Option<&str>| -> Vec<String> {
            let text = export(&atlas, pay, ExportFormat::Flow, base).unwrap();
            let flow: Value = serde_json::from_str(&text).unwrap();
            flow["steps"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|s| s["expect"]["url"]["matches"].as_str())
                .map(str::to_string)
                .collect()
        };
        assert_eq!(
            urls(Some("http://app.test/")),
            [
                r"^http://app\.test/?(?:#.*)?$",
                r"^http://app\.test/cart/[^/]+(?:#.*)?$",
                r"^https://pay\.example/checkout\?(?:[^#]*&)?session=[^&#]*(?:&[^#]*)?(?:#.*)?$",
            ]
        );
        assert_eq!(
            urls(None)[..2],
            [
                r"^http://127\.0\.0\.1:4001/?(?:#.*)?$",
                r"^http://127\.0\.0\.1:4001/cart/[^/]+(?:#.*)?$",
            ]
        );
    }

    #[test]
    fn recorded_steps_become_playwright_calls_or_comments() {
        assert_eq!(
            line(serde_json::json!({"fill": {"target": {"css": "#q"}, "value": "hi"}})),
            "page.locator(\"#q\").fill(\"hi\")"
        );
        assert_eq!(
            line(serde_json::json!({"click": [{"role": "button", "text": "Go"}, "#go"]})),
            "page.get_by_role(\"button\", name=\"Go\").click()"
        );
        assert_eq!(
            line(serde_json::json!({"wait": "250ms"})),
            "page.wait_for_timeout(250)"
        );
        assert!(line(serde_json::json!({"click": "@e3"})).starts_with('#'));
        assert!(line(serde_json::json!({"exec": ["make"]})).starts_with("# exec"));
        assert!(
            line(serde_json::json!({"expect": {"that": "{{ true }}"}})).starts_with("# expect")
        );
    }
}
