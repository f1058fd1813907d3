//! A flow's trace (`--trace`): the timeline of its steps, written at its end to
//! `<flow artifacts>/trace/trace.json` beside the pictures of its browser steps. Per step, in
//! the order the report lists them (each step, then the steps it holds): its start (from the
//! flow's) and duration, its outcome, error and outputs, the console messages and failed
//! requests of the flow's tabs during it, the picture of the page after it (the failure
//! screenshot of one that failed) and, at the failure, the page's snapshot. Every text goes
//! through the flow's masker.
//!
//! What is recorded comes from runner's own DevTools session on the flow's tabs (see
//! `browser::driver::recorder`), from events and calls nothing waits for. With `on`, the
//! picture after a step is the first frame of a screencast of the flow's tab that the browser
//! began after the step ended (chosen as the frames come), written once chosen. With
//! `retain-on-failure` there is no screencast: after each step that acts on the page a snapshot
//! of its document is taken, and drawn into pictures at the flow's end only when it did not
//! pass (held in memory until then, the latest `HELD_PICTURES`), so a passing run draws and
//! writes nothing. A message or a failed request is put in the step it happened in by the
//! browser's time of it, at the flow's end.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

use super::runtime::{Frame, Runtime};
use crate::browser::{FlowBrowser, Logged, Recorded, Recording};
use crate::config::model::Step;
use crate::config::trace_mode::TraceMode;
use crate::step::{FlowInfo, FlowResult, FlowStatus, Masker, StepResult};

/// The directory of a flow's trace, in its artifacts directory (a sub-flow's pictures are in
/// its own directory's).
pub(crate) const DIR: &str = "trace";

/// The trace file's name.
const FILE: &str = "trace.json";

/// What a step's entry says of a picture the browser drew only after the next step that acts
/// on the page had begun (see `browser::driver::recorder`).
pub(crate) const PICTURE_LATER: &str = "drawn after the next step that acts on the page began: it shows this step's changes, and may show that step's too";

/// How long a kept trace's end waits for runner's connection to read the events the browser
/// sent before (and for its last pictures).
pub(crate) const CATCH_UP: Duration = Duration::from_secs(1);

/// How a flow's tabs record the pictures of its trace in `mode`: a screencast when every
/// trace is kept (`on`); with `retain-on-failure`, a snapshot of the document after each step
/// that acts, drawn only when the flow fails (see `browser::driver::recorder`).
pub(crate) fn recording(mode: TraceMode) -> Option<Recording> {
    match mode {
        TraceMode::Off => None,
        TraceMode::On => Some(Recording::Screencast),
        TraceMode::RetainOnFailure => Some(Recording::Snapshots),
    }
}

/// Whether `path` is where runner writes a flow's trace (`.../trace/trace.json`).
pub(crate) fn is_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == FILE)
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|d| d == DIR)
}

/// Where a flow's trace goes, in its artifacts directory `dir`.
pub(crate) fn file(dir: &Path) -> PathBuf {
    dir.join(DIR).join(FILE)
}

/// After a step (the `index`-th of its frame, `passed` or not): its picture, when it is a
/// browser step (one that failed has its failure screenshot, when one could be taken), at
/// `<frame's dir>/trace/NNN-<id>.jpg`. It is chosen as the browser's frames come (see
/// `browser::driver::recorder`), mostly during the next step: each chosen is written then with
/// `on`, held until the flow's end with `retain-on-failure` (and written then if the flow did
/// not pass).
pub(crate) async fn record(
    rt: &Runtime,
    frame: &Frame<'_>,
    (step, index, passed): (&Step, usize, bool),
    result: &mut StepResult,
) {
    let (mode, root) = (rt.trace, &rt.artifacts);
    if !mode.records() || !step.action.needs_browser() {
        return;
    }
    let Some(wall) = result.trace.wall else {
        return;
    };
    let start = ms_since_epoch(wall);
    let end = start + result.duration.as_secs_f64() * 1000.0;
    let shot = |a: &Value| a["screenshot"].is_string();
    let mut picture = (passed || !result.failure_artifacts.as_ref().is_some_and(shot)).then(|| {
        let base = super::artifacts::step_base(&frame.prefix, index, step, step.action.key());
        frame.dir.join(DIR).join(format!("{base}.jpg"))
    });
    // A screencast frame is the page's pixels, which no masker reads: none of a page that
    // shows a secret (a drawn snapshot, `retain-on-failure`, is masked).
    if mode == TraceMode::On && picture.is_some() {
        result.trace.picture_left_out = frame.browser.picture_left_out(&frame.masker).await;
        if result.trace.picture_left_out.is_some() {
            picture = None;
        }
    }
    // Named now; a picture that never comes (or is let go) is none in the trace.
    if let Some(path) = &picture {
        result.trace.picture = Some(path.clone());
    }
    let acts = !step.action.only_reads_the_page();
    let secrets = !frame.masker.is_empty();
    for (path, jpeg) in frame
        .browser
        .stepped((start, end), (acts, secrets), picture)
        .await
    {
        if mode == TraceMode::On {
            // One that cannot be written is missing from the trace: the report says so.
            let _ = write(root, &path, &jpeg);
        } else {
            frame.browser.hold_picture((path, jpeg));
        }
    }
}

/// Writes `bytes` to `path` in the run's artifacts directory `root`, its folders made and none
/// followed if a link (`crate::fs::write_artifact`), or why it cannot be.
fn write(root: &Path, path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::fs::write_artifact(root, path, bytes)
}

/// At a flow's end (`started` then, its artifacts in `dir`): its trace, with what its `browser`
/// recorded, when the run's `--trace` keeps it for its `result` (see `finish`). Its last
/// pictures are frames still to come, a few after its last step that acted: the trace is
/// finished beside the flows after it (its context kept until then: see
/// `FlowBrowser::trace_tail`), and named in `result` now; what could not be written is said
/// under the flow, and the pass takes its name out of the results once it knows
/// (`Finishing::done`, before any report is written).
pub(crate) async fn end(
    rt: &Runtime,
    (info, browser): (&FlowInfo, &FlowBrowser),
    (dir, started): (&Path, Instant),
    result: &mut FlowResult,
    masker: &Masker,
) {
    let kept = rt.trace.records() && rt.trace.keeps(result.status == FlowStatus::Passed);
    let Some(tail) = browser.trace_tail(kept).await else {
        return;
    };
    let (mode, root, listener) = (rt.trace, rt.artifacts.clone(), rt.listener.clone());
    let cancel = rt.cancel.clone();
    let (info, dir, masker, mut copy) = (
        info.clone(),
        dir.to_path_buf(),
        masker.clone(),
        result.clone(),
    );
    let path = file(&dir).display().to_string();
    result.trace = Some(path.clone());
    let task = tokio::spawn(async move {
        let recorded = tail.recorded(CATCH_UP, &masker, &cancel).await;
        let at = (root.as_path(), dir.as_path(), started);
        if let Some(why) = finish(mode, at, &mut copy, &masker, recorded) {
            listener.message(&info, 0, &masker.mask(&why));
        }
        (path, copy.trace.is_some())
    });
    rt.traces.push(task);
}

/// At a flow's end: writes its trace into `dir` (its artifacts directory, in the run's `root`),
/// with the pictures `held` for it and what its tabs `logged`, and names it in `result`, when
/// `mode` keeps it. `started`: the flow's start. What could not be written (the trace, or
/// else a picture), and why: the run goes on, the report without it (a symlink planted in its
/// place is never written through: see `crate::fs::write_artifact`).
pub(crate) fn finish(
    mode: TraceMode,
    (root, dir, started): (&Path, &Path, Instant),
    result: &mut FlowResult,
    masker: &Masker,
    recorded: Recorded,
) -> Option<String> {
    if !mode.records() || !mode.keeps(result.status == FlowStatus::Passed) {
        return None;
    }
    let Recorded {
        held,
        let_go,
        later,
        logged,
        drawing_left_out,
    } = recorded;
    let mut unwritten = None;
    for (path, jpeg) in &held {
        if let Err(why) = write(root, path, jpeg) {
            unwritten.get_or_insert(format!("a picture of its trace is not kept: {why}"));
        }
    }
    let flow_start = SystemTime::now()
        .checked_sub(started.elapsed())
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let left_out = logged.left_out;
    place(
        &mut result.steps,
        logged,
        ms_since_epoch(flow_start),
        masker,
    );
    let mut steps = Vec::new();
    entries(&result.steps, (0, started, &later), &mut steps);
    let mut trace = json!({
        "flow": result.name,
        "status": result.status.as_str(),
        "duration_ms": millis(result.duration),
        "steps": steps,
    });
    say_left_out(&mut trace, (let_go, left_out), &drawing_left_out);
    let trace = masker.mask_value(&trace);
    let path = file(dir);
    match write(root, &path, trace.to_string().as_bytes()) {
        Ok(()) => {
            result.trace = Some(path.display().to_string());
            unwritten
        }
        Err(why) => Some(format!("its trace is not kept: {why}")),
    }
}

/// What a trace left out, and why, said in it: the pictures of the first `let_go` steps, the
/// first console messages and failed requests (`logged`), and what a drawing of snapshots
/// left out (`drawing`).
fn say_left_out(
    trace: &mut Value,
    (let_go, left_out): (usize, (usize, usize)),
    drawing: &[String],
) {
    let notes = [
        (
            let_go,
            "pictures_left_out",
            "pictures of the first",
            "browser steps",
            crate::browser::HELD_PICTURES,
        ),
        (
            left_out.0,
            "console_left_out",
            "first",
            "console messages",
            Logged::MAX,
        ),
        (
            left_out.1,
            "network_left_out",
            "first",
            "failed requests",
            Logged::MAX,
        ),
    ];
    for (n, key, what, of, max) in notes {
        if n > 0 {
            trace[key] = json!(format!(
                "the {what} {n} {of}: a flow's trace keeps its latest {max}"
            ));
        }
    }
    if !drawing.is_empty() {
        trace["snapshots_left_out"] = json!(drawing.join("; "));
    }
}

/// Puts each console message and failed request in the step it happened in: the innermost
/// step running at its time; else (between steps, before the first) the first step that
/// started after it; else the last step. Each gets `at_ms`, its time from the flow's start
/// (`flow_start`, ms since the epoch), and its texts (the message, the URL) masked, then cut
/// at `Logged::MAX_TEXT` characters: never cut before masking, which would leave a secret's
/// head.
fn place(steps: &mut [StepResult], logged: Logged, flow_start: f64, masker: &Masker) {
    // The steps' times, in the report's order: a step's inner steps come after it.
    let mut spans = Vec::new();
    spans_of(steps, &mut spans);
    if spans.is_empty() {
        return;
    }
    let mut placed: Vec<(Vec<Value>, Vec<Value>)> = vec![Default::default(); spans.len()];
    let which = |at: f64| {
        spans
            .iter()
            .rposition(|(start, end)| *start <= at && at <= *end)
            .or_else(|| spans.iter().position(|(start, _)| *start > at))
            .unwrap_or(spans.len() - 1)
    };
    let stamp = |at: f64, mut e: Value| {
        let since = Duration::try_from_secs_f64((at - flow_start) / 1000.0).unwrap_or_default();
        e["at_ms"] = json!(millis(since));
        for key in ["text", "url"] {
            if let Some(t) = e[key].as_str() {
                let more = t.chars().count() > Logged::MAX_HELD_TEXT;
                let t = if more { t.trim_end_matches('…') } else { t };
                e[key] = json!(masker.mask_cut_held(t, more, false, Logged::MAX_TEXT));
            }
        }
        e
    };
    for (at, e) in logged.console {
        placed[which(at)].0.push(stamp(at, e));
    }
    for (at, e) in logged.network {
        placed[which(at)].1.push(stamp(at, e));
    }
    let mut placed = placed.into_iter();
    fill(steps, &mut placed);
}

/// The times of `steps` and of the steps they hold (ms since the epoch), in the report's order.
fn spans_of(steps: &[StepResult], out: &mut Vec<(f64, f64)>) {
    for s in steps {
        let start = s.trace.wall.map_or(f64::MAX, ms_since_epoch);
        out.push((start, start + s.duration.as_secs_f64() * 1000.0));
        spans_of(&s.steps, out);
    }
}

/// Gives `steps` (and the steps they hold) their placed entries, in the report's order.
fn fill(steps: &mut [StepResult], placed: &mut impl Iterator<Item = (Vec<Value>, Vec<Value>)>) {
    for s in steps {
        if let Some((console, network)) = placed.next() {
            s.trace.console = console;
            s.trace.network = network;
        }
        fill(&mut s.steps, placed);
    }
}

fn ms_since_epoch(t: SystemTime) -> f64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The entries of `steps` and of the steps they hold, depth first (the report's order), at
/// `depth`, from the flow's start; `later`: the pictures that may show a later step's changes
/// too.
fn entries(
    steps: &[StepResult],
    (depth, started, later): (usize, Instant, &HashSet<PathBuf>),
    out: &mut Vec<Value>,
) {
    for s in steps {
        let arts = s.failure_artifacts.as_ref();
        // A picture let go (see `HELD_PICTURES`) or not written is none.
        let picture = s.trace.picture.as_ref().filter(|p| p.is_file());
        let shown = picture.map(|p| p.display().to_string()).or_else(|| {
            arts.and_then(|a| a["screenshot"].as_str())
                .map(String::from)
        });
        let start = s
            .trace
            .started
            .map(|t| millis(t.saturating_duration_since(started)));
        let mut entry = json!({
            "name": s.name,
            "action": s.action,
            "depth": depth,
            "start_ms": start,
            "duration_ms": millis(s.duration),
            "outcome": s.outcome,
            "error": s.error.as_ref().map(|e| json!({"kind": e.kind.as_str(), "message": e.message})),
            "outputs": s.outputs,
            "console": s.trace.console,
            "network": s.trace.network,
            "picture": shown,
            "snapshot": arts.and_then(|a| a["snapshot"].as_str()),
            "dialog": arts.map(|a| a["dialog"].clone()).filter(|d| !d.is_null()),
        });
        if picture.is_some_and(|p| later.contains(p)) {
            entry["picture_later"] = json!(PICTURE_LATER);
        }
        if let Some(why) = s.trace.picture_left_out {
            entry["picture_left_out"] = json!(why);
        }
        out.push(entry);
        entries(&s.steps, (depth + 1, started, later), out);
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::path::PathBuf;
    use std::sync::Arc;
    use std::time::{Duration, Instant, SystemTime};

    use serde_json::{Value, json};

    use super::finish;
    use crate::browser::{Logged, Recorded};
    use crate::config::trace_mode::TraceMode;
    use crate::source::SourceFile;
    use crate::step::{FlowResult, FlowStatus, Location, Masker, Outcome, StepResult, StepTrace};

    /// A passed step that started `at` ms after `t0` and took `took` ms.
    fn step(t0: SystemTime, (at, took): (u64, u64), steps: Vec<StepResult>) -> StepResult {
        let file = SourceFile::new(std::path::Path::new("f.yaml"), "steps: []\n".into());
        StepResult {
            index: 0,
            id: None,
            name: format!("at {at}"),
            action: "click",
            outcome: Outcome::Passed,
            conclusion: Outcome::Passed,
            attempts: 1,
            flaky: false,
            duration: Duration::from_millis(took),
            error: None,
            attempt_errors: Vec::new(),
            outputs: json!({}),
            failure_artifacts: None,
            location: Location::new(file, 0..5),
            finally: false,
            steps,
            trace: StepTrace {
                started: Some(Instant::now()),
                wall: Some(t0 + Duration::from_millis(at)),
                ..StepTrace::default()
            },
        }
    }

    /// A flow of steps at 0-10 ms, a group at 20-50 ms holding one at 25-40 ms.
    fn flow(status: FlowStatus, t0: SystemTime, picture: PathBuf) -> FlowResult {
        let mut first = step(t0, (0, 10), Vec::new());
        first.trace.picture = Some(picture);
        let inner = step(t0, (25, 15), Vec::new());
        FlowResult {
            duration: Duration::from_millis(60),
            steps: vec![first, step(t0, (20, 30), vec![inner])],
            ..FlowResult::new("f".into(), PathBuf::from("f.yaml"), status)
        }
    }

    /// What was logged at these ms after `t0`, each saying when.
    fn logged(t0: SystemTime, at: &[u64]) -> Logged {
        let ms = |a: &u64| super::ms_since_epoch(t0 + Duration::from_millis(*a));
        Logged {
            console: at
                .iter()
                .map(|a| (ms(a), json!({"text": format!("pw hunter22 {a}")})))
                .collect(),
            network: vec![(
                ms(&30),
                json!({"url": "http://x/?pw=hunter22", "status": 404}),
            )],
            left_out: (2, 0),
        }
    }

    /// `retain-on-failure`: a passed flow's held pictures are never written, nor its trace; a
    /// failed flow's are, its trace masked and saying what it let go, and which picture may
    /// show a later step's changes too. Each message is in the
    /// innermost step running at its time, else in the next step to start.
    #[test]
    fn a_kept_trace_has_its_pictures_and_each_message_in_its_step() {
        let d = tempfile::tempdir().unwrap();
        let pic = d.path().join("trace/001-click.jpg");
        let masker = Masker::default();
        masker.add("hunter22");
        let kept = |logged| Recorded {
            held: vec![(pic.clone(), Arc::new(vec![0xFF, 0xD8, 0xFF]))],
            let_go: 3,
            later: HashSet::from([pic.clone()]),
            logged,
            drawing_left_out: Vec::new(),
        };
        let t0 = SystemTime::now();
        let at = (d.path(), d.path(), Instant::now());
        let mut passed = flow(FlowStatus::Passed, t0, pic.clone());
        let recorded = kept(logged(t0, &[5]));
        finish(
            TraceMode::RetainOnFailure,
            at,
            &mut passed,
            &masker,
            recorded,
        );
        assert!(passed.trace.is_none());
        assert!(!d.path().join("trace").exists());
        let mut failed = flow(FlowStatus::Failed, t0, pic.clone());
        let recorded = kept(logged(t0, &[5, 15, 30, 45, 100]));
        finish(
            TraceMode::RetainOnFailure,
            at,
            &mut failed,
            &masker,
            recorded,
        );
        let text = std::fs::read_to_string(failed.trace.unwrap()).unwrap();
        let trace: Value = serde_json::from_str(&text).unwrap();
        let steps = trace["steps"].as_array().unwrap();
        assert_eq!(steps[0]["picture"], pic.display().to_string());
        assert_eq!(steps[0]["picture_later"], super::PICTURE_LATER);
        assert!(steps[1].get("picture_later").is_none());
        assert_eq!(std::fs::read(&pic).unwrap(), [0xFF, 0xD8, 0xFF]);
        let texts = |i: usize| -> Vec<&str> {
            steps[i]["console"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["text"].as_str().unwrap())
                .collect()
        };
        assert_eq!(texts(0), ["pw *** 5"]);
        assert_eq!(texts(1), ["pw *** 15", "pw *** 45"]);
        assert_eq!(texts(2), ["pw *** 30", "pw *** 100"]);
        assert_eq!(steps[2]["network"][0]["url"], "http://x/?pw=***");
        assert!(
            trace["pictures_left_out"]
                .as_str()
                .unwrap()
                .starts_with("the pictures of the first 3 browser steps")
        );
        assert!(
            trace["console_left_out"]
                .as_str()
                .unwrap()
                .starts_with("the first 2 console messages")
        );
    }
}
