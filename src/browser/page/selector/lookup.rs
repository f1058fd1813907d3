//! The levels of a selector found in the page's DOM (CSS, text, label, placeholder, test id,
//! alt, title), looked up in the page's document (or an iframe's) by a page script that puts
//! runner's handle (`[data-runner-sel]`) on the element picked, so agent-browser can be given
//! exactly that element; and the errors of a look-up that cannot be made (a frame of another
//! origin, CSS the page cannot parse).

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::found::{Found, Read};
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::Session;
use crate::browser::page::described;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// What a look-up of some levels of a selector found.
pub(super) enum Looked {
    /// The last level's element (`None` when it matched nothing).
    Found(Option<Found>),
    /// A level before the last matched nothing, or the element the look-up was to look inside
    /// is gone (a re-render): nothing matches now.
    Missed,
    /// A level before the last (its index in `levels`) matched several and says not which.
    Ambiguous {
        level: usize,
        count: usize,
        matches: Vec<String>,
    },
}

/// Looks `levels` (DOM levels of one selector, outermost first) up in `frame`'s document (the
/// page's when `None`) below the element runner's handle `scope` names (the whole document when
/// `None`), each inside the one element the level before picked; marks the last level's match
/// its `nth` picks, reading what `read` says of it in the same call.
pub(super) async fn in_document(
    session: &mut Session,
    (frame, scope): (Option<&str>, Option<&str>),
    levels: &[&Alt],
    read: Option<&Read>,
    t: Duration,
) -> Result<Looked, StepError> {
    let testid = session.testid().to_string();
    let query: Vec<Value> = levels
        .iter()
        .filter_map(|l| l.level_json(&testid))
        .collect();
    let find = bind(
        scripts::FIND,
        &[
            scripts::FRAME_DOCUMENT,
            &scripts::elements(),
            &scripts::mark_picked(),
        ],
    );
    let read = read.map(Read::arg);
    let js = call(
        &find,
        &[json!(frame), json!(scope), Value::Array(query), json!(read)],
    );
    let v = session.eval(&js, t).await?;
    if v.get("foreign").and_then(Value::as_bool) == Some(true) {
        return Err(foreign_frame(frame.unwrap_or_default()));
    }
    let level = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
    };
    if let Some(i) = level("invalid") {
        let css = match levels.get(i).map(|l| &l.find) {
            Some(Find::Css { css, .. }) => css.as_str(),
            _ => "?",
        };
        return Err(invalid_css(css));
    }
    if let Some(i) = level("strict") {
        return Ok(Looked::Ambiguous {
            level: i,
            count: level("count").unwrap_or(0),
            matches: described::elements(&session.masker, v.get("matches")),
        });
    }
    if level("missed").is_some() || v.get("gone").is_some() {
        return Ok(Looked::Missed);
    }
    Ok(Looked::Found(marked(session, frame, &v)))
}

/// The element the look-up's answer `v` names by runner's handle, and what it says of the
/// matches; `None` when nothing matched.
fn marked(session: &mut Session, frame: Option<&str>, v: &Value) -> Option<Found> {
    let id = v.get("id").and_then(Value::as_str)?;
    let kind = ElementKind::from_page(v.get("kind").unwrap_or(&Value::Null));
    let target = format!("[data-runner-sel=\"{id}\"]");
    if let Some(f) = frame {
        session.frame_of.insert(target.clone(), f.to_string());
    }
    Some(Found {
        target,
        count: v
            .get("count")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0),
        matches: described::elements(&session.masker, v.get("matches")),
        // An explicit widget role (`<div role=checkbox>`) says what the element is.
        kind,
        read: v.get("read").cloned(),
    })
}

/// Whether iframe `frame` shows a page of another origin (its document cannot be read).
pub(super) async fn frame_is_foreign(
    session: &mut Session,
    frame: &str,
    t: Duration,
) -> Result<bool, StepError> {
    let js = call(
        &bind(scripts::FRAME_IS_FOREIGN, &[scripts::FRAME_DOCUMENT]),
        &[json!(frame)],
    );
    Ok(session.eval(&js, t).await? == Value::Bool(true))
}

/// The error for a selector inside a frame of another origin.
pub(super) fn foreign_frame(frame: &str) -> StepError {
    StepError::new(
        ErrorKind::NotFound,
        format!(
            "frame `{frame}` shows a page of another origin: neither its document nor its accessibility tree can be read through agent-browser (0.41), so no selector reaches inside it; test that page on its own (open its URL)"
        ),
    )
}

/// The error for CSS the page cannot parse, with the runner form of Playwright-only syntax.
fn invalid_css(css: &str) -> StepError {
    let mut msg = format!("invalid CSS selector `{css}`");
    if let Some(hint) = crate::config::selector_hint(css) {
        msg.push_str(&format!("; {hint}"));
    }
    StepError::new(ErrorKind::NotFound, msg)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::browser::driver::script::node_run;
    use crate::browser::driver::session::{Session, on_fake_daemon};
    use crate::browser::page::selector::{
        Read, element_eval, resolve_now, resolve_now_one_reading,
    };
    use crate::config::model::Selector;

    /// A stand-in page for node: two buttons (`#a` "Save", `#b` "Save as") that already carry
    /// runner's handles `a` and `b`, and an iframe `#f` showing the same two.
    const PAGE: &str = r#"
const button = (id, text) => ({ tagName: 'BUTTON', id, classList: [], innerText: text, type: 'submit',
  isContentEditable: false, offsetParent: {}, dataset: { runnerSel: id }, getAttribute: () => null,
  contains: (o) => false, querySelectorAll: () => [] });
const els = [button('a', 'Save'), button('b', 'Save as')];
els[0].nextElementSibling = els[1];
const doc = {
  nodeType: 9, body: { nodeType: 1, firstElementChild: els[0], querySelectorAll: () => els },
  querySelectorAll: (css) => {
    if (css === '!') throw new SyntaxError('not a selector');
    return css === 'button' || css === 'body *' ? els : [];
  },
  querySelector: (css) => els.find(e => css === `[data-runner-sel="${e.dataset.runnerSel}"]`) || null,
};
const frame = { contentDocument: doc };
globalThis.document = { ...doc, querySelector: (css) => (css === '#f' ? frame : doc.querySelector(css)) };
"#;

    /// A session whose page scripts run in node, on `PAGE`.
    fn session(dir: &std::path::Path) -> Session {
        on_fake_daemon(dir, |_, v| {
            let script = v["script"].as_str().unwrap_or_default();
            let out = node_run(PAGE, script)?;
            Ok(json!({ "result": serde_json::from_str::<Value>(&out).unwrap_or(Value::Null) }))
        })
    }

    fn sel(v: Value) -> Selector {
        serde_json::from_value(v).unwrap()
    }

    /// The look-up as composed from its script files (frame document, elements, the pick and
    /// its handle), and a script run on the element it found, in node.
    #[tokio::test]
    async fn css_and_text_are_found_in_the_page_and_in_a_frame() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(dir.path());

        let r = resolve_now(&mut s, &sel(json!("button")))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(r.count, 2);
        assert_eq!(r.target, r#"[data-runner-sel="a"]"#);
        assert_eq!(r.matches, [r#"button#a "Save""#, r#"button#b "Save as""#]);
        assert_eq!(
            (r.kind.tag.as_str(), r.kind.input_type.as_str()),
            ("button", "submit")
        );

        let last = sel(json!({ "css": "button", "nth": -1 }));
        let r = resolve_now(&mut s, &last).await.unwrap().unwrap();
        assert_eq!(r.target, r#"[data-runner-sel="b"]"#);
        let id = element_eval(&mut s, &r, "(el, mark) => el.id + mark", &[json!("!")]).await;
        assert_eq!(id.unwrap(), Some(json!("b!")));

        let exact = sel(json!({ "text": "Save", "exact": true }));
        let r = resolve_now(&mut s, &exact).await.unwrap().unwrap();
        assert_eq!(
            (r.count, r.target.as_str()),
            (1, r#"[data-runner-sel="a"]"#)
        );

        // A check's look-up reads the element in the same call, as `get text`/`get value`.
        let r = resolve_now_one_reading(&mut s, &exact, Read::Text).await;
        assert_eq!(r.unwrap().unwrap().read, Some(json!("Save")));
        let r = resolve_now_one_reading(&mut s, &exact, Read::Value).await;
        assert_eq!(r.unwrap().unwrap().read, Some(json!("")));
        assert_eq!(
            resolve_now(&mut s, &exact).await.unwrap().unwrap().read,
            None
        );

        let inside = sel(json!({ "css": "button", "frame": "#f", "nth": 1 }));
        let r = resolve_now(&mut s, &inside).await.unwrap().unwrap();
        assert_eq!(s.frame_of.get(&r.target).map(String::as_str), Some("#f"));
        let id = element_eval(&mut s, &r, "(el) => el.id", &[]).await;
        assert_eq!(id.unwrap(), Some(json!("b")));

        let missing = sel(json!({ "css": "button", "frame": "#gone" }));
        assert!(resolve_now(&mut s, &missing).await.unwrap().is_none());

        let err = resolve_now(&mut s, &sel(json!("!"))).await.unwrap_err();
        assert!(
            err.message.contains("invalid CSS selector `!`"),
            "{}",
            err.message
        );
    }
}
