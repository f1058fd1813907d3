//! When a page has settled: loaded, quiet (nothing on it changing) and not saying it is still
//! loading, read in one call to agent-browser; what explore, `link_state` and a replay's
//! arrival check record or compare.

use std::time::Duration;

use serde_json::{Value, json};

use super::fingerprint::origin;
use super::identity::text_lines;
use crate::browser::driver::script;
use crate::browser::{Command, Poll, Session};
use crate::step::{ErrorKind, StepError};

/// Waits for the page to be quiet and answers its ready state and its form controls' validation
/// messages; then whether it changed since (page scripts, see `crate::browser::driver::script`).
const DOCUMENT_QUIET: &str = include_str!("document_quiet.js");
const DOCUMENT_UNCHANGED: &str = include_str!("document_unchanged.js");

/// Which state a read is done waiting for, besides a settled one (see `settled_snapshot`).
pub(crate) type Awaited<'a> = &'a (dyn Fn(&str, &str) -> bool + Send + Sync);

/// Whether a snapshot shows a page still loading: a progress bar, or a short text that says so
/// ("Loading…", "Please wait", "加载中", "読み込み中", "로딩 중", "Cargando", "Chargement").
/// Such a state is waited out (up to the cap), never recorded as a node.
fn looks_loading(snapshot: &str) -> bool {
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

/// How long a page must show no change (see `document_quiet.js`) for one read of it to count as
/// settled: a re-render after a click or a route change takes a frame or two.
const QUIET: Duration = Duration::from_millis(50);

/// The longest one read waits for the page to be quiet: a page that never is (an animation
/// driven by script) is settled when two reads this far apart show the same structure.
const QUIET_MAX: Duration = Duration::from_millis(250);

/// What a read of the page is for, besides a page that has settled (see `settled_snapshot`).
#[derive(Clone, Copy, Default)]
pub(crate) struct Reading<'a> {
    /// The state a replay waits for: a loaded read that shows it is taken at once.
    pub(crate) awaited: Option<Awaited<'a>>,
    /// The origin (`scheme://host:port`, see `fingerprint::origin`) explore keeps to: a page
    /// elsewhere (a link that left the app) is answered at once, not waited for.
    pub(crate) within: Option<&'a str>,
}

/// The page as a read found it once settled (see `settled_snapshot`).
pub(crate) struct Settled {
    /// The snapshot's answer (Chromium's validation bubble taken out).
    pub(crate) snapshot: Value,
    pub(crate) url: String,
    pub(crate) title: String,
}

/// A snapshot of a page that has finished loading and stopped changing, read in one call to
/// agent-browser: the page script waits until the document is loaded and nothing on it has
/// changed for `QUIET` (see `document_quiet.js`), the snapshot is read, and a second script
/// says whether anything changed meanwhile, with the page's URL and title
/// (`document_unchanged.js`). A click may
/// return before the navigation it starts is done: the navigation ends the wait (a read that
/// meets it is no answer, and the next is of the new document) or the new document is not the
/// one watched. A page that is never quiet is settled when two reads agree on their text.
/// Nothing on it may say it is still loading (see `looks_loading`). Read until settled (at most
/// 5 s), or until a loaded read is the state `reading.awaited` says it waits for: the first
/// read then does not wait for the page to be quiet, so a replay checking that it arrived at a
/// known node passes as soon as the page shows it. A page off `reading.within`'s origin is
/// answered as it is, at its first read. Returns the last read.
pub(super) async fn settled_snapshot(
    session: &mut Session,
    timeout: Duration,
    reading: Reading<'_>,
) -> Result<Settled, StepError> {
    let deadline = tokio::time::Instant::now() + timeout.min(Duration::from_secs(5));
    let mut poll = Poll::new();
    let mut last: Option<Read> = None;
    // The first read of a replay that awaits a state is at once; every other waits for quiet.
    let mut quiet = if reading.awaited.is_some() {
        Duration::ZERO
    } else {
        QUIET
    };
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let wait = if quiet.is_zero() {
            Duration::ZERO
        } else {
            QUIET_MAX.min(left)
        };
        let read = session
            .send_all(reads(quiet, wait, &reading), timeout)
            .await;
        if let Some(all) = poll.settle(read)? {
            let now = Read::of(all, !quiet.is_zero())?;
            // Settled: quiet for a whole window, through the read; or (never quiet) the same
            // text as the read before.
            let settled = now.quiet
                || last
                    .as_ref()
                    .is_some_and(|l| text_lines(l.text()) == text_lines(now.text()));
            let shown = reading.awaited.is_some_and(|a| a(&now.url, now.text()));
            let elsewhere = reading
                .within
                .is_some_and(|o| origin(&now.url).as_deref() != Some(o));
            // Done once loaded, not saying it is loading, and settled or the state awaited.
            if (now.ready && (settled || shown))
                || elsewhere
                || tokio::time::Instant::now() >= deadline
            {
                return Ok(now.settled());
            }
            // A hidden page's timers are slowed down: it is read again 100 ms later instead.
            if now.hidden {
                tokio::time::sleep(Duration::from_millis(100).min(left)).await;
            }
            last = Some(now);
            quiet = QUIET;
        } else if !poll.wait(deadline).await {
            // A read that met a navigation committing is made again, after a short wait.
            return Err(poll.still_navigating().unwrap_or_else(|| {
                StepError::new(ErrorKind::Timeout, "timed out reading the page")
            }));
        }
    }
}

/// What one read of the page found (see `reads`).
struct Read {
    /// The snapshot's answer (Chromium's validation bubble taken out).
    snapshot: Value,
    url: String,
    title: String,
    /// Loaded, and not saying it is loading (see `looks_loading`).
    ready: bool,
    /// Quiet for the whole window it waited for, and unchanged until the read's end.
    quiet: bool,
    /// The page is hidden: it did not wait for quiet (its timers would be slowed down).
    hidden: bool,
}

impl Read {
    /// The answers to `reads`; `waited`: whether the read waited for the page to be quiet.
    fn of(all: Vec<Value>, waited: bool) -> Result<Read, StepError> {
        let [page, mut snapshot, after] = <[Value; 3]>::try_from(all).map_err(|_| {
            StepError::new(
                ErrorKind::CommandFailed,
                "agent-browser answered fewer commands than it was sent",
            )
        })?;
        let page = page.get("result").cloned().unwrap_or_default();
        let invalid: Vec<&str> = page["invalid"]
            .as_array()
            .map(|m| m.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(s) = snapshot.get("snapshot").and_then(Value::as_str) {
            snapshot["snapshot"] = Value::String(without_validation_bubbles(s, &invalid));
        }
        let after = after.get("result").cloned().unwrap_or_default();
        let field = |k: &str| after[k].as_str().unwrap_or_default().to_string();
        let mut read = Read {
            url: field("url"),
            title: field("title"),
            ready: false,
            quiet: waited && page["quiet"] == true && after["unchanged"] == true,
            hidden: page["hidden"] == true,
            snapshot,
        };
        read.ready = page["ready"] == "complete" && !looks_loading(read.text());
        Ok(read)
    }

    /// The snapshot's text.
    fn text(&self) -> &str {
        self.snapshot["snapshot"].as_str().unwrap_or_default()
    }

    fn settled(self) -> Settled {
        Settled {
            snapshot: self.snapshot,
            url: self.url,
            title: self.title,
        }
    }
}

/// One read of the page (see `settled_snapshot`): wait up to `max` for it to be quiet for
/// `quiet` (not on a page off `reading.within`'s origin), then its snapshot, then whether it
/// changed meanwhile, with its URL and title: three commands (agent-browser answers each on
/// its own; its `get url` and `get title` were two more).
fn reads(quiet: Duration, max: Duration, reading: &Reading<'_>) -> Vec<Command> {
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    vec![
        Command::eval(script::call(
            DOCUMENT_QUIET,
            &[json!({ "quiet": ms(quiet), "max": ms(max), "within": reading.within })],
        )),
        Command::snapshot(),
        Command::eval(script::call(DOCUMENT_UNCHANGED, &[])),
    ]
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::{Reading, looks_loading, settled_snapshot, without_validation_bubbles};
    use crate::browser::{Session, session_on_fake_daemon};

    /// What the page scripts answer: the quiet wait (`quiet`: whether the page was quiet) and
    /// the check after the snapshot (`unchanged`, with the page's URL and title), in one shape
    /// the fake gives both. agent-browser's `get url` and `get title` are not asked: the fakes
    /// fail a read that asks them.
    fn page_state(quiet: bool, unchanged: bool) -> Value {
        json!({"result":{"ready":"complete","quiet":quiet,"invalid":[],"unchanged":unchanged,
            "url":"http://shop/cart","title":"Cart"}})
    }

    /// A page whose first `navigating` reads meet a navigation committing (a click on a link
    /// returns before the page it opens has replaced the old one).
    fn navigating_page(dir: &std::path::Path, navigating: usize) -> Session {
        session_on_fake_daemon(dir, move |n, v| {
            if n < navigating {
                return Err(
                    "CDP error (Runtime.evaluate): Inspected target navigated or closed".into(),
                );
            }
            Ok(match v["action"].as_str().unwrap() {
                "snapshot" => json!({"snapshot":"- heading \"Cart\" [level=1]"}),
                "evaluate" => page_state(true, true),
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
            let got = settled_snapshot(&mut s, Duration::from_secs(3), Reading::default())
                .await
                .unwrap();
            assert_eq!(got.snapshot["snapshot"], "- heading \"Cart\" [level=1]");
            assert_eq!(
                (got.url.as_str(), got.title.as_str()),
                ("http://shop/cart", "Cart")
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let mut s = navigating_page(dir.path(), usize::MAX);
        let Err(err) =
            settled_snapshot(&mut s, Duration::from_millis(600), Reading::default()).await
        else {
            panic!("a page that never stops navigating was read");
        };
        assert!(err.message.contains("still navigating"), "{}", err.message);
    }

    /// A page whose scripts answer `state` (see `page_state`), and whose every snapshot shows
    /// one more item when it is `changing`. Counts the snapshots and keeps the page scripts.
    struct Page {
        session: Session,
        reads: Arc<AtomicUsize>,
        scripts: Arc<Mutex<Vec<String>>>,
    }

    fn page(dir: &std::path::Path, state: Value, changing: bool) -> Page {
        let reads = Arc::new(AtomicUsize::new(0));
        let scripts = Arc::new(Mutex::new(Vec::new()));
        let (r, sc) = (reads.clone(), scripts.clone());
        let session = session_on_fake_daemon(dir, move |n, v| {
            Ok(match v["action"].as_str().unwrap() {
                "snapshot" => {
                    r.fetch_add(1, Ordering::SeqCst);
                    let items = if changing { n } else { 0 };
                    json!({"snapshot": format!("- heading \"Cart\"{}", "\n- listitem".repeat(items))})
                }
                "evaluate" => {
                    sc.lock()
                        .unwrap()
                        .push(v["script"].as_str().unwrap().to_string());
                    state.clone()
                }
                other => panic!("unexpected {other}"),
            })
        });
        Page {
            session,
            reads,
            scripts,
        }
    }

    /// A page quiet through its read is settled at that read: one call to agent-browser, no
    /// second snapshot to compare (explore's states took two reads 100 ms apart); one that
    /// changed between the quiet and the end of the read is read again.
    #[tokio::test]
    async fn a_page_quiet_through_its_read_is_settled_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = page(dir.path(), page_state(true, true), true);
        settled_snapshot(&mut p.session, Duration::from_secs(3), Reading::default())
            .await
            .unwrap();
        assert_eq!(p.reads.load(Ordering::SeqCst), 1, "one read");
        let scripts = p.scripts.lock().unwrap().clone();
        assert_eq!(scripts.len(), 2, "{scripts:?}");
        assert!(
            scripts[0].contains(r#"{"quiet":50,"max":250,"within":null}"#),
            "{}",
            scripts[0]
        );
        // Quiet, then changed during the read (and never agreeing with the read before): read
        // until the time is up.
        for (quiet, unchanged) in [(true, false), (false, true)] {
            let dir = tempfile::tempdir().unwrap();
            let mut p = page(dir.path(), page_state(quiet, unchanged), true);
            settled_snapshot(
                &mut p.session,
                Duration::from_millis(500),
                Reading::default(),
            )
            .await
            .unwrap();
            assert!(p.reads.load(Ordering::SeqCst) > 2, "{quiet} {unchanged}");
        }
    }

    /// A hidden page's timers are slowed down, so it does not wait to be quiet: it is read as
    /// a page that never is quiet, twice 100 ms apart, and settled when the two reads agree.
    #[tokio::test]
    async fn a_hidden_page_is_read_twice_100_ms_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = page_state(false, false);
        state["result"]["hidden"] = json!(true);
        let mut p = page(dir.path(), state, false);
        let started = std::time::Instant::now();
        settled_snapshot(&mut p.session, Duration::from_secs(3), Reading::default())
            .await
            .unwrap();
        assert_eq!(p.reads.load(Ordering::SeqCst), 2);
        assert!(started.elapsed() >= Duration::from_millis(100));
    }

    /// A replay that checks it arrived at a known state is done at the first read that shows
    /// it, made without waiting for the page to be quiet; a page that is not there yet is read
    /// until it settles (here: never, so until the time is up).
    #[tokio::test]
    async fn an_awaited_state_is_taken_at_its_first_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut p = page(dir.path(), page_state(false, false), true);
        let awaited = |url: &str, text: &str| url.ends_with("/cart") && text.contains("Cart");
        let reading = Reading {
            awaited: Some(&awaited),
            ..Reading::default()
        };
        let got = settled_snapshot(&mut p.session, Duration::from_secs(3), reading)
            .await
            .unwrap();
        assert_eq!(got.url, "http://shop/cart");
        assert!(got.snapshot["snapshot"].as_str().unwrap().contains("Cart"));
        assert_eq!(p.reads.load(Ordering::SeqCst), 1, "done at the first read");
        let first = p.scripts.lock().unwrap()[0].clone();
        assert!(
            first.contains(r#"{"quiet":0,"max":0,"within":null}"#),
            "{first}"
        );
        // Awaiting another state: the unsettled page is read again and again until time is up.
        let dir = tempfile::tempdir().unwrap();
        let mut p = page(dir.path(), page_state(false, false), true);
        let started = std::time::Instant::now();
        let elsewhere = |url: &str, _: &str| url.ends_with("/home");
        let reading = Reading {
            awaited: Some(&elsewhere),
            ..Reading::default()
        };
        settled_snapshot(&mut p.session, Duration::from_millis(800), reading)
            .await
            .unwrap();
        assert!(p.reads.load(Ordering::SeqCst) > 2, "{:?}", p.reads);
        assert!(
            started.elapsed() >= Duration::from_millis(800),
            "{:?}",
            started.elapsed()
        );
    }

    /// explore read the URL after each todo, then the page: the read says where the page is.
    /// A page off the origin explored (a link that left the app) is answered at its first
    /// read, not waited for; the app's page is read until settled, as ever.
    #[tokio::test]
    async fn a_read_keeps_to_its_origin() {
        let dir = tempfile::tempdir().unwrap();
        // Never quiet: only the origin can end the read at once.
        let mut p = page(dir.path(), page_state(false, false), true);
        let started = std::time::Instant::now();
        let reading = Reading {
            within: Some("http://app:8000"),
            ..Reading::default()
        };
        let got = settled_snapshot(&mut p.session, Duration::from_secs(3), reading)
            .await
            .unwrap();
        assert_eq!(got.url, "http://shop/cart");
        assert_eq!(p.reads.load(Ordering::SeqCst), 1, "one read");
        assert!(started.elapsed() < Duration::from_secs(1));
        let scripts = p.scripts.lock().unwrap().clone();
        assert!(
            scripts[0].contains(r#""within":"http://app:8000""#),
            "{}",
            scripts[0]
        );
        // On its own origin the read waits for the page to be quiet, as ever.
        let dir = tempfile::tempdir().unwrap();
        let mut p = page(dir.path(), page_state(true, true), true);
        let reading = Reading {
            within: Some("http://shop"),
            ..Reading::default()
        };
        settled_snapshot(&mut p.session, Duration::from_secs(3), reading)
            .await
            .unwrap();
        assert_eq!(
            p.reads.load(Ordering::SeqCst),
            1,
            "settled at its first read"
        );
        let scripts = p.scripts.lock().unwrap().clone();
        assert!(
            scripts[0].contains(r#"{"quiet":50,"max":250,"within":"http://shop"}"#),
            "{}",
            scripts[0]
        );
        // Elsewhere but not yet loaded, never quiet: still answered at once.
        let dir = tempfile::tempdir().unwrap();
        let mut state = page_state(false, false);
        state["result"]["ready"] = json!("loading");
        let mut p = page(dir.path(), state, true);
        let reading = Reading {
            within: Some("http://app:8000"),
            ..Reading::default()
        };
        settled_snapshot(&mut p.session, Duration::from_secs(3), reading)
            .await
            .unwrap();
        assert_eq!(p.reads.load(Ordering::SeqCst), 1);
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
