//! What a flow's browser keeps for the flow's trace (`--trace`): the picture after each of its
//! browser steps (see `driver::recorder`), held in memory until the flow's end when only a
//! failed flow's trace is kept, and what its tabs logged.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use super::{FlowBrowser, Slot};
use crate::browser::driver::dialog_watch::FlowDialogs;
use crate::browser::driver::recorder::{Logged, Recorder};

/// The most pictures of a flow's trace held until it ends: the latest are kept (a failure is
/// at the end). A few kilobytes each (the screencast's small JPEGs; steps after which nothing
/// was drawn share theirs).
pub(crate) const HELD_PICTURES: usize = 200;

/// Pictures held until a flow's end: (where each goes, the JPEG), and how many were let go.
pub(crate) type HeldPictures = (Vec<(PathBuf, Arc<Vec<u8>>)>, usize);

/// The pictures of a flow's trace held until it ends.
#[derive(Default)]
pub(crate) struct Pictures {
    /// Where each goes, the JPEG.
    held: VecDeque<(PathBuf, Arc<Vec<u8>>)>,
    /// How many were let go (past `HELD_PICTURES`).
    let_go: usize,
}

impl Pictures {
    /// Holds a picture (the oldest let go past `HELD_PICTURES`).
    fn hold(&mut self, path: PathBuf, jpeg: Arc<Vec<u8>>) {
        if self.held.len() == HELD_PICTURES {
            self.held.pop_front();
            self.let_go += 1;
        }
        self.held.push_back((path, jpeg));
    }

    fn take(&mut self) -> HeldPictures {
        let let_go = std::mem::take(&mut self.let_go);
        (std::mem::take(&mut self.held).into(), let_go)
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

    /// After a browser step: the picture of the page (the latest frame of its tab, a JPEG: see
    /// `driver::recorder`); none when the flow keeps no trace, has no context, or no frame of
    /// its tab came.
    pub(crate) async fn picture(&self) -> Option<Arc<Vec<u8>>> {
        self.recording().await?.picture()
    }

    /// Holds a picture of the flow's trace until its end, to be written to `path` if the trace
    /// is kept.
    pub(crate) fn hold_picture(&self, path: PathBuf, jpeg: Arc<Vec<u8>>) {
        let mut p = self.pictures.lock().unwrap_or_else(PoisonError::into_inner);
        p.hold(path, jpeg);
    }

    /// At the flow's end, when its trace is `kept`: the pictures held and what its tabs logged,
    /// once runner's connection has read every event the browser sent (waiting at most
    /// `timeout`). Else nothing, and what was held goes.
    pub(crate) async fn recorded(&self, kept: bool, timeout: Duration) -> (HeldPictures, Logged) {
        let held = self
            .pictures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let w = self.recording().await;
        let Some(w) = w.filter(|_| kept) else {
            return ((Vec::new(), 0), Logged::default());
        };
        w.caught_up(timeout).await;
        let logged = w
            .recorder
            .as_ref()
            .map(Recorder::logged)
            .unwrap_or_default();
        (held, logged)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::{HELD_PICTURES, Pictures};

    /// A flow holds the latest `HELD_PICTURES` pictures of its trace and counts those it let
    /// go; a picture shared by steps is held once in memory.
    #[test]
    fn held_pictures_are_bounded_to_the_latest() {
        let mut p = Pictures::default();
        let same = Arc::new(vec![0xFF, 0xD8]);
        for i in 0..HELD_PICTURES + 2 {
            p.hold(PathBuf::from(format!("{i}.jpg")), same.clone());
        }
        let (held, let_go) = p.take();
        assert_eq!((held.len(), let_go), (HELD_PICTURES, 2));
        assert_eq!(held[0].0, PathBuf::from("2.jpg"));
        assert_eq!(Arc::strong_count(&same), HELD_PICTURES + 1);
        assert_eq!(p.take().0.len(), 0);
    }
}
