//! What a flow's browser keeps for the flow's trace (`--trace`): the picture after each of its
//! browser steps (see `driver::recorder`: with a screencast each is chosen as the browser's
//! frames come, mostly during the next step; with snapshots each is drawn at the end of a
//! flow whose trace is kept), held in memory until the flow's end when only a failed flow's
//! trace is kept, and what its tabs logged.

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, PoisonError};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use super::{FlowBrowser, Slot};
use crate::browser::driver::dialog_watch::FlowDialogs;
use crate::browser::driver::recorder::{Drawn, Logged};
use crate::step::Masker;

/// The most pictures of a flow's trace held until it ends: the latest are kept (a failure is
/// at the end). A few kilobytes each (the screencast's small JPEGs; steps after which nothing
/// was drawn share theirs).
pub(crate) const HELD_PICTURES: usize = 200;

/// A picture of a flow's trace: where it goes, the JPEG.
pub(crate) type Picture = (PathBuf, Arc<Vec<u8>>);

/// What a flow's browser recorded for its kept trace, at the flow's end.
#[derive(Debug, Default)]
pub(crate) struct Recorded {
    /// The pictures held until the flow's end (and those chosen at its end).
    pub(crate) held: Vec<Picture>,
    /// How many pictures were let go (past `HELD_PICTURES`).
    pub(crate) let_go: usize,
    /// The pictures begun after the next step that acts on the page began: they may show its
    /// changes too (see `driver::recorder`).
    pub(crate) later: HashSet<PathBuf>,
    pub(crate) logged: Logged,
    /// With snapshots: the pictures left out of a failed flow's drawing, and why.
    pub(crate) drawing_left_out: Vec<String>,
}

/// The pictures of a flow's trace until it ends.
#[derive(Default)]
pub(crate) struct Pictures {
    /// The pictures wanted and not chosen yet: where each goes, its id (see
    /// `Recorder::stepped`).
    waiting: VecDeque<(PathBuf, u64)>,
    /// Held until the flow's end.
    held: VecDeque<Picture>,
    /// How many were let go (past `HELD_PICTURES`).
    let_go: usize,
    /// See `Recorded::later`.
    later: HashSet<PathBuf>,
}

impl Pictures {
    /// Holds a picture (the oldest let go past `HELD_PICTURES`).
    fn hold(&mut self, picture: Picture) {
        if self.held.len() == HELD_PICTURES {
            self.held.pop_front();
            self.let_go += 1;
        }
        self.held.push_back(picture);
    }

    /// What was held; nothing waits after.
    fn take(&mut self, logged: Logged) -> Recorded {
        let p = std::mem::take(self);
        Recorded {
            held: p.held.into(),
            let_go: p.let_go,
            later: p.later,
            logged,
            drawing_left_out: Vec::new(),
        }
    }
}

impl FlowBrowser {
    /// runner's watch on the flow's tabs, when the flow has a context and keeps a trace.
    async fn recording(&self) -> Option<Arc<FlowDialogs>> {
        match &*self.state.lock().await {
            Slot::Ready(l) => l.session.watched.clone().filter(|w| w.recorder.is_some()),
            Slot::Empty | Slot::Failed(_) => None,
        }
    }

    /// After a browser step that began at `start` and ended at `end` (ms since the epoch) and
    /// that `acts` on the page or only reads it, in a flow that has `secrets` or not (a
    /// snapshot then leaves out the text the page does not render): the picture is wanted when
    /// `picture` names where it goes (see `driver::recorder`); nothing when the flow keeps no
    /// trace or has no context. The pictures of earlier steps chosen since.
    pub(crate) async fn stepped(
        &self,
        (start, end): (f64, f64),
        (acts, secrets): (bool, bool),
        picture: Option<PathBuf>,
    ) -> Vec<Picture> {
        let Some(w) = self.recording().await else {
            return Vec::new();
        };
        let Some(r) = &w.recorder else {
            return Vec::new();
        };
        let id = w
            .stepped((start, end), (acts, picture.is_some(), secrets))
            .await;
        let mut p = self.pictures.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(id) = id
            && let Some(path) = picture
        {
            p.waiting.push_back((path, id));
        }
        let mut chosen = Vec::new();
        let mut later = Vec::new();
        p.waiting.retain(|(path, id)| {
            let Some((jpeg, late)) = r.take(*id) else {
                return true;
            };
            if late {
                later.push(path.clone());
            }
            chosen.extend(jpeg.map(|j| (path.clone(), j)));
            false
        });
        p.later.extend(later);
        chosen
    }

    /// Holds a picture of the flow's trace until its end, to be written if the trace is kept.
    pub(crate) fn hold_picture(&self, picture: Picture) {
        let mut p = self.pictures.lock().unwrap_or_else(PoisonError::into_inner);
        p.hold(picture);
    }

    /// At the flow's end: when its trace is `kept`, what is still to come of it (its last
    /// pictures are chosen as its tab's frames come, a few frames after its last step), to be
    /// taken beside the next flow; the flow's context stays watched, and open, until it is
    /// (see `close`). Else nothing, and what was held goes.
    pub(crate) async fn trace_tail(&self, kept: bool) -> Option<TraceTail> {
        let pictures =
            std::mem::take(&mut *self.pictures.lock().unwrap_or_else(PoisonError::into_inner));
        if !kept {
            return None;
        }
        let watched = self.recording().await;
        let (done, taken) = tokio::sync::oneshot::channel();
        if watched.is_some() {
            *self.hold.lock().unwrap_or_else(PoisonError::into_inner) = Some(taken);
        }
        Some(TraceTail {
            watched,
            pictures,
            _done: done,
        })
    }
}

/// What is still to come of a kept trace at its flow's end (see `FlowBrowser::trace_tail`).
pub(crate) struct TraceTail {
    watched: Option<Arc<FlowDialogs>>,
    pictures: Pictures,
    /// Dropped once taken: the flow's context may go then.
    _done: tokio::sync::oneshot::Sender<()>,
}

impl TraceTail {
    /// The pictures held and those still waiting, once chosen (snapshots drawn masked with
    /// `masker`), and what the flow's tabs logged, once runner's connection has read every
    /// event the browser sent (waiting at most `timeout` for each). Snapshots are not drawn
    /// once the run is stopped (`cancel`: SIGTERM, Ctrl-C): it ends at once, and the trace says
    /// its pictures were left out.
    pub(crate) async fn recorded(
        self,
        timeout: Duration,
        masker: &Masker,
        cancel: &CancellationToken,
    ) -> Recorded {
        let mut p = self.pictures;
        let Some((w, r)) = self
            .watched
            .as_ref()
            .and_then(|w| Some((w, w.recorder.as_ref()?)))
        else {
            return p.take(Logged::default());
        };
        r.ended(timeout).await;
        w.caught_up(timeout).await;
        let ids: Vec<u64> = p.waiting.iter().map(|(_, id)| *id).collect();
        let stopped = || Drawn {
            left_out: vec![format!(
                "{} picture(s): the run was stopped before they were drawn",
                ids.len()
            )],
            ..Drawn::default()
        };
        let drawn = match r.snapshots() {
            true if cancel.is_cancelled() && !ids.is_empty() => stopped(),
            true => tokio::select! {
                d = w.drawn(&ids, timeout, masker) => d,
                () = cancel.cancelled() => stopped(),
            },
            false => Drawn::default(),
        };
        let mut pictures = drawn.pictures;
        while let Some((path, id)) = p.waiting.pop_front() {
            let taken = match pictures.remove(&id) {
                Some(jpeg) => Some((Some(jpeg), false)),
                None => r.take(id),
            };
            let Some((jpeg, late)) = taken else {
                continue;
            };
            if late {
                p.later.insert(path.clone());
            }
            if let Some(jpeg) = jpeg {
                p.hold((path, jpeg));
            }
        }
        let mut recorded = p.take(r.logged());
        recorded.drawing_left_out = drawn.left_out;
        recorded
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::{HELD_PICTURES, Pictures};
    use crate::browser::driver::recorder::Logged;

    /// A flow holds the latest `HELD_PICTURES` pictures of its trace and counts those it let
    /// go; a picture shared by steps is held once in memory.
    #[test]
    fn held_pictures_are_bounded_to_the_latest() {
        let mut p = Pictures::default();
        let same = Arc::new(vec![0xFF, 0xD8]);
        for i in 0..HELD_PICTURES + 2 {
            p.hold((PathBuf::from(format!("{i}.jpg")), same.clone()));
        }
        let taken = p.take(Logged::default());
        assert_eq!((taken.held.len(), taken.let_go), (HELD_PICTURES, 2));
        assert_eq!(taken.held[0].0, PathBuf::from("2.jpg"));
        assert_eq!(Arc::strong_count(&same), HELD_PICTURES + 1);
        assert_eq!(p.take(Logged::default()).held.len(), 0);
    }
}
