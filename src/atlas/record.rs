//! The `link_state` step: fingerprints the browser's current state, records it as a node of the
//! atlas, and links the flow's previous state to it with the steps run in between.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::fingerprint::{Fingerprint, fingerprint, without_origin};
use super::secrets::{atlas_masker, unset_secrets};
use super::settle::{Awaited, Reading, settled_snapshot};
use super::store::{Atlas, Ensured, SHOWED_A_SECRET, State};
use crate::browser::{Command, Session};
use crate::config::model::{Action, LinkState, Step};
use crate::step::{Masker, StepError};

/// What a flow has done since its last `link_state`: the steps run (templates rendered, secrets
/// as references), which become the next edge's flow, and the node it last recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trail {
    pub(crate) steps: Vec<Value>,
    pub(crate) last_state: Option<String>,
}

impl Trail {
    /// Adds a step that ran, as the flow step `{key: value}` (its action as a flow writes it,
    /// with the `name` it shows under, if it has one of its own); a step that does not act on
    /// the page nor check it is not recorded (see `Action::recorded_in_atlas`).
    pub(crate) fn push(&mut self, step: &Step, name: Option<String>, key: &str, mut value: Value) {
        if !step.action.recorded_in_atlas() {
            return;
        }
        // An `expect`'s template condition is the flow's own business: its page checks go in.
        if let (Action::Expect(_), Some(m)) = (&step.action, value.as_object_mut()) {
            m.remove("that");
        }
        let mut m = serde_json::Map::new();
        if let Some(n) = name {
            m.insert("name".into(), json!(n));
        }
        m.insert(key.into(), value);
        self.steps.push(Value::Object(m));
    }
}

/// Where a `link_state` step writes: the atlas directory and the screenshot file.
pub(crate) struct RecordTarget<'a> {
    pub(crate) atlas: &'a Path,
    /// How a new atlas tells states apart (runner.toml's `[atlas] fingerprint`); `None`: as
    /// the atlas was made (by structure, for a new one).
    pub(crate) fingerprint: Option<Fingerprint>,
    pub(crate) screenshot: &'a Path,
    /// Whether a known state is shot too (a `link_state` step leaves its screenshot in the
    /// flow's artifacts); explore shoots new states only, the atlas keeping a node's first.
    pub(crate) screenshot_known: bool,
    pub(crate) run_id: &'a str,
    pub(crate) masker: &'a Masker,
    /// The run's web servers (`web_server.<name>`: `{url, port}`): the atlas keeps the name of
    /// the one its root's URL is on, as an explore keeps the one of its start URL.
    pub(crate) servers: &'a Map<String, Value>,
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

/// Records the current state and the edge to it (the `link_state` step). A state that cannot
/// be linked (its flow's last state already links under this action to another) leaves
/// nothing behind: a node no root leads to would break the atlas.
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
    // The atlas's way of telling states apart is settled first, before the page is read: the
    // lock it takes may be another process's (waited for, an interrupt ending the wait).
    let mode = atlas.settle_fingerprint(to.fingerprint)?;
    // The names of the secrets masked out of the state (the run's): replays mask with them.
    // Noted before the page is read, which is masked with every secret the atlas names (set
    // now, the run's among them): what a state is does not depend on which flows run
    // together. Nor on what the flow made of a secret (a `.split('-')[0]` of `admin-corp` is
    // `admin`, which an URL may hold): the flow's masker only tells that the page shows one.
    atlas.note_secrets(&to.masker.names())?;
    let named = atlas_masker(&atlas)?;
    let masks = [&named];
    let seen = read_state(session, &masks, timeout, Reading::default(), &[to.masker]).await?;
    let steps = std::mem::take(&mut trail.steps);
    let link = trail.last_state.clone().map(|prev| (prev, action));
    let identity = identify(&atlas, link.as_ref(), mode, &masks, &seen)?;
    let seen = record_as(session, &atlas, to, (seen, identity), &masks, timeout).await?;
    let id = seen.ensured.node_id.clone();
    let mut server = None;
    let edge = match &link {
        None => {
            atlas.set_entry(&id, &steps)?;
            // Replays replace the root's origin: with that of this server, of their own run.
            server = super::server::server_of(&seen.seen.url, to.servers);
            if let Some(name) = &server {
                let url = to.servers[name.as_str()]["url"].as_str();
                atlas.settle_server(name, url, to.fingerprint)?;
            }
            None
        }
        Some((prev, action)) => match atlas.link_state(prev, action, &id, &steps) {
            Ok(p) => Some(p),
            Err(e) => {
                if seen.ensured.is_new {
                    atlas.forget_new_node(&id)?;
                }
                return Err(unset_named(&atlas, e.into()));
            }
        },
    };
    trail.last_state = Some(id.clone());
    Ok(json!({
        "node_id": id,
        "is_new": seen.ensured.is_new,
        "path": seen.ensured.node_path.display().to_string(),
        "edge": edge.map(|p| p.display().to_string()),
        "url": seen.seen.url,
        "title": seen.seen.title,
        "server": server,
    }))
}

/// `e` (a state that does not link as its atlas says), naming the secrets the atlas names
/// that are not set now: a page that shows one is not masked as it was recorded, so it is not
/// the node it was.
fn unset_named(atlas: &Atlas, e: StepError) -> StepError {
    let unset = unset_secrets(atlas).unwrap_or_default();
    if unset.is_empty() {
        return e;
    }
    let names: Vec<String> = unset.iter().map(|n| format!("`{n}`")).collect();
    let (which, is) = match names.len() {
        1 => ("secret", "is"),
        _ => ("secrets", "are"),
    };
    let message = format!(
        "{}; the atlas names {which} {} (its recording masked them), which {is} not set in the environment (or empty or only white space): a page that shows one is not masked as recorded, so it is not the node it was",
        e.message,
        names.join(", ")
    );
    StepError { message, ..e }
}

/// `url` with its query and fragment (the data it carries, not its route) masked with `masker`.
fn masked_data_of_url(masker: &Masker, url: &str) -> String {
    match url.find(['?', '#']) {
        Some(i) => format!("{}{}", &url[..i], masker.mask(&url[i..])),
        None => url.to_string(),
    }
}

/// `text` masked with each of `masks` in turn.
fn masked(masks: &[&Masker], text: &str) -> String {
    masks.iter().fold(text.to_string(), |text, m| m.mask(&text))
}

/// The fingerprint of state `seen` and the node it is: the one the fingerprint names; but when
/// `link` (the flow's last state, the action) already leads to another node — or, for a
/// flow's first state (no `link`) that is no node yet, when a root — is this state once its
/// recording is masked as the state is, that node. It was recorded before the atlas named a
/// secret the page shows (the names grow with the runs that record into it): its id was made
/// of the page as shown, and it stays the node of that page.
fn identify(
    atlas: &Atlas,
    link: Option<&(String, String)>,
    mode: Fingerprint,
    masks: &[&Masker],
    seen: &Seen,
) -> Result<(String, String), StepError> {
    let (fp, id) = fingerprint(mode, &seen.url, &seen.text);
    let candidates = match link {
        Some((from, action)) => atlas
            .links(from)?
            .into_iter()
            .filter(|l| l.action == *action)
            .map(|l| l.target)
            .collect(),
        None if atlas.has_node(&id) => Vec::new(),
        None => atlas.roots()?,
    };
    if candidates.contains(&id) {
        return Ok((fp, id));
    }
    for node in candidates {
        let meta = atlas.meta(&node)?;
        let Some(snapshot) = atlas.snapshot(&node)? else {
            continue;
        };
        let stored = fingerprint(mode, &masked(masks, &meta.url), &masked(masks, &snapshot)).0;
        if without_origin(&stored) == without_origin(&fp) {
            return Ok((fp, node));
        }
    }
    Ok((fp, id))
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
    /// Whether the page's URL, title or text showed a secret (or what a flow made of one):
    /// then a screenshot would show it, in pixels no masker reads.
    pub(crate) shows_secret: bool,
}

/// As a settled `read_state`, but also done at the first read of a loaded page that is the state
/// `awaited` (given the URL and the snapshot's text) says it waits for: a replay checking that
/// it arrived at a known node passes as soon as the page shows it, as a web-first assertion
/// does, and only a page that is not there yet is waited out until it settles.
pub(crate) async fn arrived_state(
    session: &mut Session,
    masker: &Masker,
    timeout: Duration,
    awaited: Awaited<'_>,
) -> Result<Seen, StepError> {
    let reading = Reading {
        awaited: Some(awaited),
        ..Reading::default()
    };
    read_state(session, &[masker], timeout, reading, &[]).await
}

/// The page once settled, as `reading` says (see `settle::settled_snapshot`), masked with each
/// of `masks`; whether it shows a secret is told by those and by `also` (a flow's masker,
/// which knows what the flow made of its secrets: what a page is must not depend on that).
pub(crate) async fn read_state(
    session: &mut Session,
    masks: &[&Masker],
    timeout: Duration,
    reading: Reading<'_>,
    also: &[&Masker],
) -> Result<Seen, StepError> {
    // A confirm or prompt the last step opened is answered first, as `browser.dialogs` (the
    // project's `[browser] dialogs` in the atlas commands) says, as a run's next step answers
    // it: the page cannot be read while it is open.
    crate::browser::driver::dialog::settle(session, timeout).await?;
    let page = settled_snapshot(session, timeout, reading).await?;
    let text = page
        .snapshot
        .get("snapshot")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let every: Vec<&Masker> = masks.iter().chain(also).copied().collect();
    let shows_secret = [page.url.as_str(), &page.title, text]
        .iter()
        .any(|raw| masked(&every, raw) != *raw);
    // Secrets never reach the atlas (a form may put one in the URL or on the page).
    Ok(Seen {
        url: masked(masks, &page.url),
        title: masked(masks, &page.title),
        text: masked(masks, text),
        snapshot: page.snapshot,
        shows_secret,
    })
}

/// Fingerprints the state `seen` (read settled; `mode`: how the atlas tells states apart, see
/// `Atlas::settle_fingerprint`) and ensures its node in `atlas` (see [`record_as`]).
pub(crate) async fn record(
    session: &mut Session,
    atlas: &Atlas,
    to: &RecordTarget<'_>,
    (seen, mode): (Seen, Fingerprint),
    timeout: Duration,
) -> Result<Observed, StepError> {
    let identity = fingerprint(mode, &seen.url, &seen.text);
    record_as(session, atlas, to, (seen, identity), &[to.masker], timeout).await
}

/// Ensures the node of state `seen` (`identity`: its fingerprint and node id) in `atlas`, with
/// a screenshot (the atlas keeps a node's first: a known one is shot only when
/// `to.screenshot_known`). A known node's recording is masked with `masks`, as the state is.
async fn record_as(
    session: &mut Session,
    atlas: &Atlas,
    to: &RecordTarget<'_>,
    (seen, (fp, node_id)): (Seen, (String, String)),
    masks: &[&Masker],
    timeout: Duration,
) -> Result<Observed, StepError> {
    // What is written is masked with the run's masker too: it knows what the flow made of a
    // secret with a template and typed into the page (a slice, a `replace`), which `masks` (the
    // atlas's secrets) do not (attack 31, G18), and a page may put it in its title and its
    // URL's query (a search box's `?q=`: review 28, #5). Not the URL's path, nor the
    // fingerprint: they are what a node is (its route), which must not depend on the flow that
    // recorded it (a flow that logs `admin`, a piece of a secret, still records
    // `/admin/index.html`), and a replay finds the node by them. Field values, text nodes and
    // query values are data to a structure fingerprint (the default): masking them in the
    // stored recording changes no node.
    let stored = (
        masked_data_of_url(to.masker, &seen.url),
        masked(&[to.masker], &seen.title),
    );
    let seen = Seen {
        text: masked(&[to.masker], &seen.text),
        ..seen
    };
    let known = atlas.has_node(&node_id);
    if known {
        atlas.mask_node(&node_id, &|text| masked(masks, text))?;
    }
    // A page that shows a secret is not shot at all: not for the atlas (committed, handed to
    // explore's agent), not for the flow's artifacts. Nor one whose text as it is rendered
    // shows one (a key shown as flex items is a text of its own per item in the snapshot),
    // or cannot be read to tell when there are secrets.
    let mut left_out = seen.shows_secret.then_some(SHOWED_A_SECRET);
    if left_out.is_none() && masks.iter().any(|m| !m.is_empty()) {
        left_out = match session.shown_texts(timeout, timeout).await {
            Ok(texts) => {
                let text = texts.concat();
                masks
                    .iter()
                    .any(|m| m.holds_secret(&text))
                    .then_some(SHOWED_A_SECRET)
            }
            Err(why) => Some(why),
        };
    }
    let unshot = (!to.screenshot_known && known) || left_out.is_some();
    let screenshot = if unshot {
        None
    } else {
        shoot(session, to.screenshot, timeout).await
    };
    let ensured = atlas.ensure_state(&State {
        node_id: &node_id,
        url: &stored.0,
        title: &stored.1,
        fingerprint: &fp,
        snapshot: &seen.text,
        screenshot,
        screenshot_left_out: left_out,
        run_id: to.run_id,
    })?;
    // Known when looked at, new when recorded: another run forgot it meanwhile.
    if ensured.is_new
        && unshot
        && left_out.is_none()
        && let Some(png) = shoot(session, to.screenshot, timeout).await
    {
        atlas.set_screenshot(&node_id, png)?;
    }
    Ok(Observed { ensured, seen })
}

/// A screenshot of the page into `path`; `None` when the browser could not take one.
async fn shoot<'a>(session: &mut Session, path: &'a Path, timeout: Duration) -> Option<&'a Path> {
    session
        .send(Command::screenshot(path), timeout)
        .await
        .ok()
        .map(|_| path)
}
