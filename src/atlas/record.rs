//! The `link_state` step: fingerprints the browser's current state, records it as a node of the
//! atlas, and links the flow's previous state to it with the steps run in between.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use super::fingerprint::{Fingerprint, fingerprint};
use super::store::{Atlas, Ensured, State};
use crate::browser::driver::script;
use crate::browser::{Command, Poll, Session};
use crate::config::model::{LinkState, Step};
use crate::step::{ErrorKind, Masker, StepError};

/// The document's ready state and its form controls' validation messages: a page script of no
/// arguments (see `crate::browser::driver::script`).
const DOCUMENT_STATE: &str = include_str!("document_state.js");

/// What a flow has done since its last `link_state`: the steps run (templates rendered, secrets
/// as references), which become the next edge's flow, and the node it last recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trail {
    pub(crate) steps: Vec<Value>,
    pub(crate) last_state: Option<String>,
}

impl Trail {
    /// Adds a step that ran (see [`recorded`]).
    pub(crate) fn push(&mut self, step: &Step, rendered: Value) {
        if let Some(r) = recorded(step, rendered) {
            self.steps.push(r);
        }
    }
}

/// Where a `link_state` step writes: the atlas directory and the screenshot file.
pub(crate) struct RecordTarget<'a> {
    pub(crate) atlas: &'a Path,
    /// How a new atlas tells states apart (runner.toml's `[atlas] fingerprint`); `None`: as
    /// the atlas was made (by structure, for a new one).
    pub(crate) fingerprint: Option<Fingerprint>,
    pub(crate) screenshot: &'a Path,
    pub(crate) run_id: &'a str,
    pub(crate) masker: &'a Masker,
}

/// Where the atlas is: the step's `atlas`, else `--atlas`, else the flow's `atlas:` (relative to
/// the flow), else `.runner/atlas`.
pub(crate) fn atlas_dir(
    ls: &LinkState,
    cli: Option<&Path>,
    flow: Option<&str>,
    flow_dir: &Path,
) -> PathBuf {
    let step = match ls {
        LinkState::Full(o) => o.atlas.as_deref(),
        LinkState::Action(_) => None,
    };
    match (step, cli, flow) {
        (Some(s), _, _) => flow_dir.join(s),
        (None, Some(c), _) => c.to_path_buf(),
        (None, None, Some(f)) => flow_dir.join(f),
        (None, None, None) => PathBuf::from(".runner/atlas"),
    }
}

/// Records the current state and the edge to it (the `link_state` step).
pub(crate) async fn record_state(
    session: &mut Session,
    ls: &LinkState,
    to: &RecordTarget<'_>,
    trail: &mut Trail,
    timeout: Duration,
) -> Result<Value, StepError> {
    // The action names the edge's directory, its link and its flow: a secret in it (or what a
    // template made of one) is masked before the name is made safe and cut to length.
    let action = to.masker.mask(match ls {
        LinkState::Action(a) => a,
        LinkState::Full(o) => &o.action,
    });
    let atlas = Atlas::open(to.atlas)?;
    let seen = observe(session, &atlas, to, timeout).await?;
    let steps = std::mem::take(&mut trail.steps);
    let edge = match trail.last_state.clone() {
        None => {
            atlas.set_entry(&seen.ensured.node_id, &steps)?;
            None
        }
        Some(prev) => Some(atlas.link_state(&prev, &action, &seen.ensured.node_id, &steps)?),
    };
    trail.last_state = Some(seen.ensured.node_id.clone());
    Ok(json!({
        "node_id": seen.ensured.node_id,
        "is_new": seen.ensured.is_new,
        "path": seen.ensured.node_path.display().to_string(),
        "edge": edge.map(|p| p.display().to_string()),
        "url": seen.seen.url,
        "title": seen.seen.title,
    }))
}

/// A state of the browser, recorded as a node.
pub(crate) struct Observed {
    pub(crate) ensured: Ensured,
    pub(crate) seen: Seen,
}

/// What the browser shows once its page has settled; secret values masked out.
pub(crate) struct Seen {
    pub(crate) url: String,
    pub(crate) title: String,
    /// The snapshot's text.
    pub(crate) text: String,
    /// The snapshot as agent-browser returned it (its refs name the state's elements).
    pub(crate) snapshot: Value,
}

/// Which state a read is done waiting for, besides a settled one (see `settled_snapshot`).
pub(crate) type Awaited<'a> = &'a (dyn Fn(&str, &str) -> bool + Send + Sync);

/// Waits for the page to settle and reads its URL, title and snapshot.
pub(crate) async fn settled_state(
    session: &mut Session,
    masker: &Masker,
    timeout: Duration,
) -> Result<Seen, StepError> {
    arrived_state(session, masker, timeout, &|_, _| false).await
}

/// As `settled_state`, but also done at the first read of a loaded page that is the state
/// `awaited` (given the URL and the snapshot's text) says it waits for: a replay checking that
/// it arrived at a known node passes as soon as the page shows it, as a web-first assertion
/// does, and only a page that is not there yet is waited out until it settles.
pub(crate) async fn arrived_state(
    session: &mut Session,
    masker: &Masker,
    timeout: Duration,
    awaited: Awaited<'_>,
) -> Result<Seen, StepError> {
    let (snapshot, url, title) = settled_snapshot(session, timeout, awaited).await?;
    let text = snapshot
        .get("snapshot")
        .and_then(Value::as_str)
        .unwrap_or_default();
    // Secrets never reach the atlas (a form may put one in the URL or on the page).
    Ok(Seen {
        url: masker.mask(&url),
        title: masker.mask(&title),
        text: masker.mask(text),
        snapshot,
    })
}

/// Waits for the page to settle, fingerprints it and ensures its node in `atlas` (with a
/// screenshot).
pub(crate) async fn observe(
    session: &mut Session,
    atlas: &Atlas,
    to: &RecordTarget<'_>,
    timeout: Duration,
) -> Result<Observed, StepError> {
    let mode = atlas.settle_fingerprint(to.fingerprint)?;
    let seen = settled_state(session, to.masker, timeout).await?;
    let (fp, node_id) = fingerprint(mode, &seen.url, &seen.text);
    let screenshot = session
        .send(Command::screenshot(to.screenshot), timeout)
        .await
        .ok()
        .map(|_| to.screenshot);
    let ensured = atlas.ensure_state(&State {
        node_id: &node_id,
        url: &seen.url,
        title: &seen.title,
        fingerprint: &fp,
        snapshot: &seen.text,
        screenshot,
        run_id: to.run_id,
    })?;
    Ok(Observed { ensured, seen })
}

/// Whether a snapshot shows a page still loading: a progress bar, or a short text that says so
/// ("Loading…", "Please wait", "加载中", "読み込み中", "로딩 중", "Cargando", "Chargement").
/// Such a state is waited out (up to the cap), never recorded as a node.
pub(crate) fn looks_loading(snapshot: &str) -> bool {
    const WORDS: &[&str] = &[
        "loading",
        "please wait",
        "加载中",
        "載入中",
        "読み込み中",
        "로딩",
        "cargando",
        "chargement",
    ];
    snapshot.lines().any(|line| {
        let l = line.trim_start().trim_start_matches("- ");
        if l == "progressbar" || l.starts_with("progressbar ") {
            return true;
        }
        // The line's text: a StaticText's or an element's name, in quotes.
        let Some(text) = l.split('"').nth(1) else {
            return false;
        };
        let t = text.trim().to_lowercase();
        t.chars().count() <= 40 && WORDS.iter().any(|w| t.starts_with(w))
    })
}

/// A snapshot of a page that has finished loading and stopped changing: two snapshots 100 ms
/// apart with the same structure (a click may return before the navigation it starts is done),
/// and nothing on it saying it is still loading (see `looks_loading`).
/// Snapshots until two taken 100 ms apart agree and the document is loaded (at most 5 s), or
/// until a loaded one is the state `awaited` says it waits for; returns the last snapshot with
/// the page's URL and title, read in the same call.
async fn settled_snapshot(
    session: &mut Session,
    timeout: Duration,
    awaited: Awaited<'_>,
) -> Result<(Value, String, String), StepError> {
    let deadline = tokio::time::Instant::now() + timeout.min(Duration::from_secs(5));
    let text = |d: &Value| {
        d.get("snapshot")
            .and_then(Value::as_str)
            .map(super::identity::text_lines)
            .unwrap_or_default()
    };
    let field = |d: &Value, k: &str| {
        d.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    // The document's state, and the validation messages of its form controls: the bubble
    // Chromium shows for one of them (after a submit of an invalid form) is browser UI that
    // fades by itself, not a state of the page (see `without_validation_bubbles`).
    let ready = Command::eval(script::call(DOCUMENT_STATE, &[]));
    // A read that meets a navigation committing (a click on a link returns before the page it
    // opens has replaced the old one) is no answer: the next read is of the new document.
    let mut poll = Poll::new();
    let mut last: Option<Value> = None;
    loop {
        let read = session
            .send_all(
                vec![
                    ready.clone(),
                    Command::snapshot(),
                    Command::GetUrl,
                    Command::GetTitle,
                ],
                timeout,
            )
            .await;
        if let Some(all) = poll.settle(read)? {
            let [ready_now, mut now, url_now, title_now] =
                <[Value; 4]>::try_from(all).map_err(|_| {
                    StepError::new(
                        ErrorKind::CommandFailed,
                        "agent-browser answered fewer commands than it was sent",
                    )
                })?;
            let page = ready_now.get("result").cloned().unwrap_or_default();
            let invalid: Vec<&str> = page["invalid"]
                .as_array()
                .map(|m| m.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(s) = now.get("snapshot").and_then(Value::as_str) {
                now["snapshot"] = Value::String(without_validation_bubbles(s, &invalid));
            }
            let stable = last.as_ref().is_some_and(|l| text(&now) == text(l));
            let loaded = page["ready"] == "complete";
            let snapshot = now
                .get("snapshot")
                .and_then(Value::as_str)
                .unwrap_or_default();
            // Ready: loaded and not saying it is loading; then done once it is stable, or at once
            // when it is the state awaited.
            let ready = loaded && !looks_loading(snapshot);
            if (ready && (stable || awaited(&field(&url_now, "url"), snapshot)))
                || tokio::time::Instant::now() >= deadline
            {
                return Ok((now, field(&url_now, "url"), field(&title_now, "title")));
            }
            last = Some(now);
        } else if tokio::time::Instant::now() >= deadline {
            return Err(poll.still_navigating().unwrap_or_else(|| {
                StepError::new(ErrorKind::Timeout, "timed out reading the page")
            }));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A snapshot without Chromium's form validation bubble: a top-level `alert` whose name is the
/// validation message of one of the page's form controls (`messages`), and the lines under it.
/// The bubble shows for a few seconds after a submit of an invalid form and is not part of the
/// page: the same page with and without it is one state.
fn without_validation_bubbles(snapshot: &str, messages: &[&str]) -> String {
    if messages.is_empty() {
        return snapshot.to_string();
    }
    let mut out = Vec::new();
    let mut skipping = false;
    for line in snapshot.lines() {
        let top = !line.starts_with(' ');
        if top {
            skipping = line
                .strip_prefix("- alert \"")
                .and_then(|rest| rest.split('"').next())
                .is_some_and(|name| messages.iter().any(|m| m.trim() == name.trim()));
        }
        if !skipping {
            out.push(line);
        }
    }
    let mut text = out.join("\n");
    if snapshot.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The step as it goes into an edge's flow: its action with templates rendered (secrets as
/// references) and its name; `None` for steps that do not act on the page's state.
fn recorded(step: &Step, rendered: Value) -> Option<Value> {
    if !step.action.recorded_in_atlas() {
        return None;
    }
    let mut m = serde_json::Map::new();
    if let Some(n) = &step.name {
        m.insert("name".into(), json!(n));
    }
    m.insert(step.action.key().into(), rendered);
    Some(Value::Object(m))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::{looks_loading, settled_snapshot, without_validation_bubbles};
    use crate::browser::session_on_fake_daemon;

    /// A page whose first `navigating` reads meet a navigation committing (a click on a link
    /// returns before the page it opens has replaced the old one).
    fn navigating_page(dir: &std::path::Path, navigating: usize) -> crate::browser::Session {
        session_on_fake_daemon(dir, move |n, v| {
            if n < navigating {
                return Err(
                    "CDP error (Runtime.evaluate): Inspected target navigated or closed".into(),
                );
            }
            Ok(match v["action"].as_str().unwrap() {
                "snapshot" => json!({"snapshot":"- heading \"Cart\" [level=1]"}),
                "evaluate" => json!({"result":{"ready":"complete","invalid":[]}}),
                "url" => json!({"url":"http://shop/cart"}),
                "title" => json!({"title":"Cart"}),
                other => panic!("unexpected {other}"),
            })
        })
    }

    /// explore read a page right after a click on a link and failed the whole crawl on
    /// Chromium's "Inspected target navigated or closed" (CI saw it): a state is read again on
    /// the new document, and a page that never stops navigating says so.
    #[tokio::test]
    async fn a_state_read_during_a_navigation_is_read_again_on_the_new_page() {
        for navigating in [1, 2, 3] {
            let dir = tempfile::tempdir().unwrap();
            let mut s = navigating_page(dir.path(), navigating);
            let (snap, url, title) =
                settled_snapshot(&mut s, Duration::from_secs(3), &|_, _| false)
                    .await
                    .unwrap();
            assert_eq!(snap["snapshot"], "- heading \"Cart\" [level=1]");
            assert_eq!((url.as_str(), title.as_str()), ("http://shop/cart", "Cart"));
        }
        let dir = tempfile::tempdir().unwrap();
        let mut s = navigating_page(dir.path(), usize::MAX);
        let err = settled_snapshot(&mut s, Duration::from_millis(600), &|_, _| false)
            .await
            .unwrap_err();
        assert!(err.message.contains("still navigating"), "{}", err.message);
    }

    /// A replay that checks it arrived at a known state is done at the first read that shows
    /// it; a page that is not there yet is read until it settles (here: never, so until the
    /// time is up).
    #[tokio::test]
    async fn an_awaited_state_is_taken_at_its_first_read() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        // A page where every read shows one more item (it never settles), counting its reads.
        let page = |dir: &std::path::Path, reads: Arc<AtomicUsize>| {
            session_on_fake_daemon(dir, move |n, v| {
                Ok(match v["action"].as_str().unwrap() {
                    "snapshot" => {
                        reads.fetch_add(1, Ordering::SeqCst);
                        json!({"snapshot": format!("- heading \"Cart\"{}", "\n- listitem".repeat(n))})
                    }
                    "evaluate" => json!({"result":{"ready":"complete","invalid":[]}}),
                    "url" => json!({"url":"http://shop/cart"}),
                    "title" => json!({"title":"Cart"}),
                    other => panic!("unexpected {other}"),
                })
            })
        };
        let dir = tempfile::tempdir().unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let mut s = page(dir.path(), reads.clone());
        let awaited = |url: &str, text: &str| url.ends_with("/cart") && text.contains("Cart");
        let (snap, url, _) = settled_snapshot(&mut s, Duration::from_secs(3), &awaited)
            .await
            .unwrap();
        assert_eq!(url, "http://shop/cart");
        assert!(snap["snapshot"].as_str().unwrap().contains("Cart"));
        assert_eq!(reads.load(Ordering::SeqCst), 1, "done at the first read");
        // Awaiting another state: the unsettled page is read again and again until time is up.
        let dir = tempfile::tempdir().unwrap();
        let reads = Arc::new(AtomicUsize::new(0));
        let mut s = page(dir.path(), reads.clone());
        let started = std::time::Instant::now();
        let elsewhere = |url: &str, _: &str| url.ends_with("/home");
        settled_snapshot(&mut s, Duration::from_millis(800), &elsewhere)
            .await
            .unwrap();
        assert!(reads.load(Ordering::SeqCst) > 2, "{reads:?}");
        assert!(
            started.elapsed() >= Duration::from_millis(800),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn loading_states_are_told_apart_from_pages_about_loading() {
        assert!(looks_loading(
            "- heading \"Shop\" [level=1]\n- StaticText \"Loading…\""
        ));
        assert!(looks_loading("- progressbar\n- status"));
        assert!(looks_loading("- status\n  - StaticText \"Please wait...\""));
        assert!(looks_loading("- StaticText \"加载中…\""));
        assert!(looks_loading("- StaticText \"読み込み中\""));
        assert!(!looks_loading(
            "- heading \"Deals\" [level=1]\n- link \"Shop\""
        ));
        // A page about loading docks is not loading.
        assert!(!looks_loading(
            "- StaticText \"Loading docks and warehouses: our guide to the best ones in town\""
        ));
        assert!(!looks_loading("- button \"Reload\""));
    }

    #[test]
    fn chromiums_validation_bubble_is_not_part_of_the_state() {
        let page = "- main\n  - heading \"Home\" [level=1]\n  - textbox \"Your name\" [required]\n";
        let with_bubble = format!("- alert \"Please fill out this field. \"\n{page}");
        let messages = ["Please fill out this field."];
        assert_eq!(without_validation_bubbles(&with_bubble, &messages), page);
        // The page's own alerts stay: another text, or one inside the page.
        let own = format!("- alert \"Saved\"\n{page}");
        assert_eq!(without_validation_bubbles(&own, &messages), own);
        let inside = "- main\n  - alert \"Please fill out this field.\"\n";
        assert_eq!(without_validation_bubbles(inside, &messages), inside);
        // No invalid control: nothing is taken out.
        assert_eq!(without_validation_bubbles(&with_bubble, &[]), with_bubble);
        // A bubble with lines under it goes with them.
        let nested = format!(
            "- alert \"Please fill out this field.\"\n  - StaticText \"Please fill out this field.\"\n{page}"
        );
        assert_eq!(without_validation_bubbles(&nested, &messages), page);
    }
}
