//! The levels of a selector found in the page's DOM (CSS, text, label, placeholder, test id,
//! alt, title), looked up in the page's document (or an iframe's) by a page script that puts
//! runner's handle (`[data-runner-sel]`) on the element picked, so agent-browser can be given
//! exactly that element; and the errors of a look-up that cannot be made (a frame of another
//! origin, CSS the page cannot parse).

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::found::{Found, Read};
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::described;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// What a look-up of some levels of a selector found.
pub(super) enum Looked {
    /// The last level's element (`None` when it matched nothing).
    Found(Option<Found>),
    /// A level before the last (its index in `levels`) matched nothing, or (`None`) the element
    /// the look-up was to look inside is gone (a re-render): nothing matches now.
    Missed(Option<usize>),
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
    let find = scripts::find(frame);
    let read = read.map(Read::arg);
    let js = call(
        &find,
        &[json!(frame), json!(scope), Value::Array(query), json!(read)],
    );
    let v = session.eval(&js, t).await?;
    if let Some(state) = v.get("frame") {
        return Err(frame_error(session, frame.unwrap_or_default(), state));
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
    if let Some(i) = level("missed") {
        return Ok(Looked::Missed(Some(i)));
    }
    if v.get("gone").is_some() {
        return Ok(Looked::Missed(None));
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

/// Whether a selector can look in iframe `frame`: an error when it is missing, several match it,
/// it shows no page or a page of another origin, or its CSS cannot be parsed.
pub(super) async fn frame_ready(
    session: &mut Session,
    frame: &str,
    t: Duration,
) -> Result<(), StepError> {
    let js = call(&scripts::frame_state(), &[json!(frame)]);
    match session.eval(&js, t).await? {
        Value::Null => Ok(()),
        state => Err(frame_error(session, frame, &state)),
    }
}

/// What a selector's frame is short of says this about it: a frame that matches nothing is
/// "not on the page" (retried by a check's re-checks, as an element selector is: see
/// [`is_missing_frame`]), never "no element" (a negative check on a mistyped frame held).
const MISSING_FRAME: &str = "is not on the page: no element matches its CSS";

/// The error of a look-up kept out of iframe `frame` by `state` (`frame_state.js`).
fn frame_error(session: &Session, frame: &str, state: &Value) -> StepError {
    let has = |k: &str| state.get(k).is_some();
    let listed = |k: &str| {
        described::elements(&session.masker, state.get(k))
            .iter()
            .enumerate()
            .map(|(i, m)| format!("[{i}] {m}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let message = if has("foreign") {
        return foreign_frame(frame);
    } else if has("invalid") {
        let mut msg = format!("invalid CSS selector in `frame`: `{frame}`");
        if let Some(hint) = crate::config::selector_hint(frame) {
            msg.push_str(&format!("; {hint}"));
        }
        msg
    } else if let Some(n) = state.get("strict").and_then(Value::as_u64) {
        format!(
            "strict mode: frame `{frame}` matches {n} elements; make its CSS name one iframe (by its id, `name`, `title` or `src`, as `iframe[title=\"...\"]`): {}",
            listed("matches")
        )
    } else if has("not_frame") {
        let named = described::elements(&session.masker, state.get("not_frame"));
        format!(
            "frame `{frame}` names {}, which shows no page: name the iframe",
            named.join(", ")
        )
    } else {
        format!(
            "frame `{frame}` {MISSING_FRAME} (open shadow roots included), so nothing inside it can be told present or absent; check the frame's CSS"
        )
    };
    StepError::new(ErrorKind::NotFound, message)
}

/// Whether `message` says a selector's frame is not on the page (yet): a check re-checks, as
/// for an element that is not there yet, and fails with it when its time runs out.
pub(crate) fn is_missing_frame(message: &str) -> bool {
    message.starts_with("frame `") && message.contains(MISSING_FRAME)
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
const frame = { tagName: 'IFRAME', id: 'f', classList: [], contentWindow: {}, contentDocument: doc,
  getAttribute: () => null };
globalThis.document = { ...doc, querySelectorAll: (css) => (css === '#f' || css === 'iframe' ? [frame, frame].slice(css === '#f') : doc.querySelectorAll(css)) };
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

        // A frame that is not there is an error, never "no element" (attack 31, G2), and one
        // its CSS does not single out is refused, as an element selector in strict mode.
        let missing = sel(json!({ "css": "button", "frame": "#gone" }));
        let err = resolve_now(&mut s, &missing).await.unwrap_err();
        assert!(
            err.message.starts_with("frame `#gone` is not on the page"),
            "{}",
            err.message
        );
        assert!(super::is_missing_frame(&err.message));
        let two = sel(json!({ "css": "button", "frame": "iframe" }));
        let err = resolve_now(&mut s, &two).await.unwrap_err();
        assert!(
            err.message
                .starts_with("strict mode: frame `iframe` matches 2 elements"),
            "{}",
            err.message
        );
        assert!(err.message.contains("[1] iframe#f"), "{}", err.message);

        let err = resolve_now(&mut s, &sel(json!("!"))).await.unwrap_err();
        assert!(
            err.message.contains("invalid CSS selector `!`"),
            "{}",
            err.message
        );
    }
}
