//! The crawler's hands on the browser: it runs steps, teleports to a state (its path replayed
//! in a fresh context) and records the state it is in.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::options::{ExploreAgent, Options};
use super::summary::Summary;
use super::todos::FORMS_JS;
use crate::atlas::fingerprint::origin;
use crate::atlas::record::{RecordTarget, read_state, record};
use crate::atlas::replay::{Driver, await_arrival};
use crate::atlas::settle::Reading;
use crate::atlas::status::StatusFile;
use crate::atlas::store::Atlas;
use crate::browser::driver::adapter::{RefInfo, parse_snapshot_refs};
use crate::browser::driver::script;
use crate::browser::{Command, Poll, Session};
use crate::step::result::failed_among;
use crate::step::{ErrorKind, FlowStatus, Masker, StepError};

/// How long a teleport waits for the page to be the state its path leads to (see
/// `Crawler::teleport`): as long as a settled read of a page may take.
const ARRIVAL: Duration = Duration::from_secs(5);

/// A crawl under way: the browser, the atlas, the settings and what was found so far.
pub(super) struct Crawler<'a> {
    pub(super) driver: &'a mut dyn Driver,
    pub(super) atlas: Atlas,
    pub(super) status: StatusFile,
    pub(super) opts: &'a Options,
    pub(super) agent: Option<&'a ExploreAgent<'a>>,
    pub(super) timeout: Duration,
    pub(super) masker: Masker,
    pub(super) summary: Summary,
    /// When the crawl started, for the progress lines.
    pub(super) started: Instant,
    /// The origin of the URL explored: a todo that leaves it is not followed.
    pub(super) origin: Option<String>,
    /// Gets a status line before each todo.
    pub(super) progress: &'a (dyn Fn(&str) + Sync),
    /// Gets each warning (an item dropped from an agent's answer).
    pub(super) warn: &'a (dyn Fn(&str) + Sync),
    /// The steps run in the browser's context since it was fresh (nothing else was done in it
    /// but reading the page); `None` when that is not known (a run failed).
    pub(super) ran: Option<Vec<Value>>,
    /// The state the browser was last found in.
    pub(super) arrived: Option<String>,
}

/// A state explore is in.
pub(super) struct Arrived {
    pub(super) node: String,
    pub(super) is_new: bool,
    pub(super) url: String,
    pub(super) title: String,
    /// The snapshot's text (refs included; secrets masked).
    pub(super) text: String,
    /// The page's forms (`FORMS_JS`), when explore makes its own todos.
    pub(super) forms: Value,
    pub(super) refs: BTreeMap<String, RefInfo>,
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
    /// Runs recorded steps as a flow; the error is the failed step's (what it did and why it
    /// failed: `cannot open http://...: net::ERR_CONNECTION_REFUSED`).
    pub(super) async fn run_steps(&mut self, steps: &[Value]) -> Result<(), StepError> {
        let mut flow = json!({ "name": "explore", "steps": steps });
        // A step kept with a secret (`{{ secrets.T }}`: see `task::kept_todo`) reads it as an
        // edge's flow does, declared.
        let secrets = crate::atlas::referenced_secrets(&Value::from(steps.to_vec()));
        if !secrets.is_empty() {
            flow["secrets"] = json!(secrets);
        }
        let ran = self.ran.take();
        let bounds = super::super::replay::Bounds {
            masker: self.masker.clone(),
            budget: None,
            origins: None,
        };
        let r = self.driver.run(&flow, &bounds).await?;
        if r.status == FlowStatus::Passed {
            self.ran = ran.map(|mut ran| {
                ran.extend_from_slice(steps);
                ran
            });
            return Ok(());
        }
        if r.status == FlowStatus::Interrupted {
            return Err(StepError::new(ErrorKind::Interrupted, "interrupted"));
        }
        let failed_step = failed_among(&r.steps).and_then(|(_, step)| step.error.clone());
        Err(r.error.clone().or(failed_step).unwrap_or_else(|| {
            StepError::new(
                ErrorKind::CommandFailed,
                format!("the steps {} without saying why", r.status.as_str()),
            )
        }))
    }

    /// The state the browser is in, recorded; `None` (nothing recorded) when the page is off
    /// the origin explored and `within` says to keep to it (after a todo: a link that left the
    /// app; the read of the state says where the page is).
    pub(super) async fn observe(&mut self, within: bool) -> Result<Option<Arrived>, StepError> {
        let shot = self.opts.artifacts.join("state.png");
        let reading = Reading {
            within: self.origin.as_deref().filter(|_| within),
            ..Reading::default()
        };
        // Settled before the page is read, as `record::observe` does.
        let mode = self.atlas.settle_fingerprint(self.opts.fingerprint)?;
        let mut session = self.driver.session().await?;
        // A read that failed may have met a browser that is gone: then that is the error.
        let seen = match read_state(&mut session, &[&self.masker], self.timeout, reading, &[]).await
        {
            Ok(seen) => seen,
            Err(e) => return Err(session.why_failed(e).await),
        };
        if within && origin(&seen.url) != self.origin {
            return Ok(None);
        }
        let to = RecordTarget {
            atlas: &self.atlas.root,
            fingerprint: self.opts.fingerprint,
            screenshot: &shot,
            screenshot_known: false,
            run_id: &self.opts.run_id,
            masker: &self.masker,
            // explore keeps the server of its start URL (see `crawl::explore`).
            servers: &serde_json::Map::new(),
        };
        let seen = record(&mut session, &self.atlas, &to, (seen, mode), self.timeout).await?;
        // Forms are read for explore's own todos, of new states only.
        let forms = if self.agent.is_none() && seen.ensured.is_new {
            let data = read(
                &mut session,
                &Command::eval(script::call(FORMS_JS, &[])),
                self.timeout,
            )
            .await?;
            data.get("result").cloned().unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        Ok(Some(Arrived {
            node: seen.ensured.node_id,
            is_new: seen.ensured.is_new,
            refs: parse_snapshot_refs(&seen.seen.snapshot),
            forms,
            url: seen.seen.url,
            title: seen.seen.title,
            text: seen.seen.text,
        }))
    }

    /// Replays the path to `node` (its root's entry, then each edge) in a fresh browser context:
    /// what an earlier todo did to the app's client state (cookies, storage) without changing a
    /// fingerprint is not carried over, so every state recorded is one its recorded path
    /// reaches from scratch, as `atlas verify` and `replay` do. A browser whose fresh context
    /// has run exactly that path (and nothing since but reads: the todo that found the state,
    /// or the crawl's entry) is already there.
    ///
    /// The todo then acts once the page is that state: a path's last click may return before
    /// the browser has begun the navigation it started (a loaded machine), and a todo acting
    /// at once acted on the page being left (its element of the same name, another edge; or a
    /// read that met the navigation, a failed todo).
    pub(super) async fn teleport(&mut self, node: &str) -> Result<(), StepError> {
        let steps = self.atlas.steps_to(node)?;
        if self.ran.as_ref() == Some(&steps) {
            return Ok(());
        }
        self.fresh().await?;
        self.run_steps(&steps).await?;
        let arrival = {
            let mut session = self.driver.session().await?;
            match await_arrival(&mut session, &self.atlas, node, &self.masker, ARRIVAL).await {
                Err(e) => Err(session.why_failed(e).await),
                ok => ok,
            }
        };
        let elsewhere = match arrival {
            Ok(None) => return Ok(()),
            Ok(Some(url)) => StepError::new(
                ErrorKind::CommandFailed,
                format!("it arrived at another state ({})", self.masker.mask(&url)),
            ),
            Err(e) => e,
        };
        // Not there: the next todo of the state replays its path again.
        self.ran = None;
        Err(elsewhere)
    }

    /// The state the browser is in by that state's own path from a fresh context (the crawl's
    /// entry, or the todo that found it), so that a teleport there replays nothing.
    pub(super) fn here(&self) -> Option<String> {
        let at = self.arrived.as_ref()?;
        let steps = self.atlas.steps_to(at).ok()?;
        (self.ran.as_ref() == Some(&steps)).then(|| at.clone())
    }

    /// A fresh browser context, nothing run in it yet.
    pub(super) async fn fresh(&mut self) -> Result<(), StepError> {
        self.ran = None;
        self.driver.reset().await?;
        self.ran = Some(Vec::new());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atlas::store::State;
    use crate::browser::Session;
    use crate::step::FlowResult;
    use std::sync::{Arc, Mutex};

    /// A driver that says what it was asked: `reset`, and each flow's steps.
    struct Told(Arc<Mutex<Vec<Value>>>);

    type Boxed<'a, T> =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, StepError>> + Send + 'a>>;

    impl Driver for Told {
        fn run<'a>(
            &'a mut self,
            flow: &'a Value,
            _: &'a crate::atlas::replay::Bounds,
        ) -> Boxed<'a, FlowResult> {
            self.0.lock().unwrap().push(flow["steps"].clone());
            let status = if flow.to_string().contains("#broken") {
                FlowStatus::Failed
            } else {
                FlowStatus::Passed
            };
            let mut r = crate::atlas::replay::not_run(
                "t".into(),
                "t".into(),
                StepError::new(ErrorKind::CommandFailed, "broken"),
            );
            r.status = status;
            Box::pin(async move { Ok(r) })
        }
        fn check(&mut self, _: &Value) -> Result<(), StepError> {
            Ok(())
        }
        fn session(&mut self) -> Boxed<'_, tokio::sync::MappedMutexGuard<'_, Session>> {
            Box::pin(async { Err(StepError::new(ErrorKind::Internal, "no browser")) })
        }
        fn reset(&mut self) -> Boxed<'_, ()> {
            self.0.lock().unwrap().push(json!("reset"));
            Box::pin(async { Ok(()) })
        }
    }

    const HOME: &str = "00000000000000a1";
    const ABOUT: &str = "00000000000000a2";

    fn node(a: &Atlas, id: &str) {
        a.ensure_state(&State {
            node_id: id,
            url: &format!("http://h/{id}"),
            title: id,
            fingerprint: "fp",
            snapshot: "- main",
            screenshot: None,
            screenshot_left_out: None,
            run_id: "r",
        })
        .unwrap();
    }

    /// A teleport to a state the browser's fresh context has just reached by that state's own
    /// path (the crawl's entry, or the todo that found it) replays nothing; any other does, in
    /// a fresh context.
    #[tokio::test]
    async fn a_teleport_to_where_a_fresh_context_just_went_by_the_same_path_replays_nothing() {
        let d = tempfile::tempdir().unwrap();
        let atlas = Atlas::open(&d.path().join("atlas")).unwrap();
        node(&atlas, HOME);
        node(&atlas, ABOUT);
        let entry = [json!({"open": "http://h/"})];
        let to_about = [json!({"click": "#about"})];
        atlas.set_entry(HOME, &entry).unwrap();
        atlas.link_state(HOME, ABOUT, ABOUT, &to_about).unwrap();
        let told = Arc::new(Mutex::new(Vec::new()));
        let mut driver = Told(told.clone());
        let opts = Options {
            url: "http://h/".into(),
            max_depth: 3,
            max_nodes: 10,
            allow_destructive: false,
            atlas: d.path().join("atlas"),
            fingerprint: None,
            artifacts: d.path().join("art"),
            run_id: "r".into(),
            server: None,
            server_url: None,
            reach: crate::atlas::Reach::default(),
            masker: Masker::default(),
        };
        let status = StatusFile::start(&atlas);
        let mut c = Crawler {
            driver: &mut driver,
            atlas,
            status,
            opts: &opts,
            agent: None,
            timeout: Duration::from_secs(1),
            masker: Masker::default(),
            summary: Summary::default(),
            started: Instant::now(),
            origin: None,
            progress: &|_| {},
            warn: &|_| {},
            ran: None,
            arrived: None,
        };
        let taken = |told: &Arc<Mutex<Vec<Value>>>| std::mem::take(&mut *told.lock().unwrap());
        // The entry, in a fresh context: home is where the browser is.
        c.fresh().await.unwrap();
        c.run_steps(&entry).await.unwrap();
        taken(&told);
        c.teleport(HOME).await.unwrap();
        assert!(taken(&told).is_empty());
        // The todo that goes to about: about is where the browser is, by about's own path.
        c.run_steps(&to_about).await.unwrap();
        taken(&told);
        c.teleport(ABOUT).await.unwrap();
        assert!(taken(&told).is_empty());
        // Where the browser is by a state's own path: the crawl does that state next.
        c.arrived = Some(ABOUT.into());
        assert_eq!(c.here().as_deref(), Some(ABOUT));
        c.arrived = Some(HOME.into());
        assert_eq!(c.here(), None, "the browser went on from home");
        c.arrived = Some(ABOUT.into());
        // Home again: a fresh context and home's path (the browser went on from home), then
        // the read of where it arrived (this driver has no page to read).
        let arrival = c.teleport(HOME).await.unwrap_err();
        assert_eq!(arrival.message, "no browser");
        assert_eq!(taken(&told), [json!("reset"), json!(entry)]);
        assert_eq!(c.here(), None, "the browser is at home, not about");
        // A todo that failed leaves the browser somewhere unknown: the next teleport replays
        // (from home reached by its path, as if the read had found it there).
        c.ran = Some(entry.to_vec());
        c.teleport(HOME).await.unwrap();
        assert!(taken(&told).is_empty());
        assert!(c.run_steps(&[json!({"click": "#broken"})]).await.is_err());
        let _ = c.teleport(HOME).await;
        assert_eq!(taken(&told)[1..], [json!("reset"), json!(entry)]);
    }

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
}
