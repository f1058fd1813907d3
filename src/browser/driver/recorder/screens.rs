//! Which frame of a tab's screencast is the picture after a step.
//!
//! The browser shows a change on screen a frame or more after it is made (a busy one, with a
//! page that draws all the time, up to three frames after), and its screencast frame comes some
//! milliseconds after that: when a step ends, the latest frame mostly shows the page before the
//! step. So the picture after a step is chosen as the frames come, by the time each is due on
//! screen (its screencast stamp): a frame due `SHOWS` or more after a change shows it (more
//! when the browser hands its frames over late: it is busy), and a frame due before a change
//! cannot show it.
//!
//! The picture after a step is the first frame due `SHOWS` after it ended, when that is before
//! the next step that acts on the page began (a step that only reads the page, an `expect`,
//! changes nothing): it shows the page after the step and no later step's change. Else, the last
//! such frame due between the end of the last step that acted on the page (plus `SHOWS`) and
//! this step's end (plus `SHOWS`), for a step that only read the page. Else, when no frame was
//! due from `SHOWS` after the last step that acted until the next one began, `SHOWS` or more
//! later, the page had settled: the picture is the last frame due before (a change it did not
//! show would have had a frame due within `SHOWS`). Else no frame shows the page between this
//! step and the next one that acts (steps follow each other at once, and the browser skips
//! frames while it is busy): the picture is the first frame that shows all the changes of the
//! last step that acted, said to be `later`: it may show the next step's changes too. When no
//! frame comes after the step at all, the browser drew nothing new: the picture is the last
//! frame due before.
//!
//! A change drawn later than `SHOWS` after it was made (a browser busier still) may be missing
//! from a picture that is not said to be `later`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};

use base64::Engine;

/// The time between two frames of the browser, in ms: 60 a second (headless Chromium's
/// pace).
pub(crate) const INTERVAL: f64 = 1000.0 / 60.0;

/// How long after a change a frame due on screen shows it, in ms, at least: three frames. The
/// page is read for a frame a frame before it is due, or a frame or two earlier still when the
/// browser is busy (measured: up to 30 ms on a loaded machine, with the page drawing every
/// frame). A browser that hands its frames over late is busier still: as much again as the
/// latest frames came after they were due (see `Screens::shows`).
const SHOWS: f64 = 3.0 * INTERVAL;

/// The most `SHOWS` grows by, in ms.
const MAX_LATE: f64 = 10.0 * INTERVAL;

/// A difference between runner's clock and the browser's stamps that the comparisons allow
/// for, in ms.
const MARGIN: f64 = 1.0;

/// The latest frames of each tab kept to choose from (a step's end is told after the frames
/// the browser began before it may have come).
const RECENT: usize = 8;

/// The most pictures waiting to be chosen: past it, the oldest is the page as last drawn.
const MAX_WANTED: usize = 256;

/// A screencast frame: base64 as it came, decoded when first taken.
pub(crate) struct Frame {
    data: String,
    /// When it is due on screen: ms since the epoch.
    due: f64,
    /// When it came: ms since the epoch.
    came: f64,
    jpeg: OnceLock<Option<Arc<Vec<u8>>>>,
}

impl Frame {
    /// A frame the screencast stamped `stamp` (s since the epoch: when it is due on screen),
    /// come at `came` (ms since the epoch).
    pub(crate) fn new(data: String, stamp: Option<f64>, came: f64) -> Frame {
        Frame {
            data,
            // Unstamped: as if due when it came.
            due: stamp.map_or(came, |s| s * 1000.0),
            came,
            jpeg: OnceLock::new(),
        }
    }

    /// The JPEG.
    pub(crate) fn jpeg(&self) -> Option<Arc<Vec<u8>>> {
        self.jpeg
            .get_or_init(|| {
                base64::engine::general_purpose::STANDARD
                    .decode(&self.data)
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }
}

/// A picture chosen: the frame (none when the tab had none), and whether it is `later`: due
/// after the next step that acts on the page began (it may show that step's changes too).
pub(crate) type Chosen = (Option<Arc<Frame>>, bool);

/// The picture after one step, while it is chosen.
struct Wanted {
    id: u64,
    tab: String,
    /// The end of the last step that acted on the page, this one or one before it (ms since
    /// the epoch): a frame due `SHOWS` after it shows its changes.
    from: f64,
    /// This step's end.
    end: f64,
    /// How long after a change a frame due shows it (`SHOWS`, as late as the browser was when
    /// the step ended).
    shows: f64,
    /// When the next step that acts on the page began (or the flow ended), once known.
    next: Option<f64>,
    /// The last frame due before `from` (plus `SHOWS`).
    before: Option<Arc<Frame>>,
    /// The latest frames due between `from` and `end` (plus `SHOWS`).
    between: VecDeque<Arc<Frame>>,
    /// The first frame due after `end` (plus `SHOWS`).
    after: Option<Arc<Frame>>,
}

impl Wanted {
    fn see(&mut self, f: &Arc<Frame>) {
        if self.after.is_some() {
            return;
        }
        if f.due < self.from + self.shows - MARGIN {
            self.before = Some(f.clone());
        } else if f.due < self.end + self.shows - MARGIN {
            if self.between.len() == RECENT {
                self.between.pop_front();
            }
            self.between.push_back(f.clone());
        } else {
            self.after = Some(f.clone());
        }
    }

    /// The picture, once it can be told: a frame due after the step, once it is known
    /// whether it was due before the next step that acts began.
    fn chosen(&self) -> Option<Chosen> {
        let next = self.next?;
        let after = self.after.as_ref()?;
        let clean = |f: &&Arc<Frame>| f.due < next - MARGIN;
        // No frame due from `SHOWS` after the last step that acted until the next one began,
        // `SHOWS` or more later: the page had settled, as the last frame before shows it (a
        // change it did not show would have had a frame due within `SHOWS`).
        let settled = (next >= self.from + self.shows - MARGIN)
            .then_some(self.before.as_ref())
            .flatten();
        let first = self.between.front().unwrap_or(after);
        Some(
            match Some(after)
                .filter(clean)
                .or_else(|| self.between.iter().rev().find(clean))
                .or(settled)
            {
                Some(f) => (Some(f.clone()), false),
                None => (Some(first.clone()), true),
            },
        )
    }

    /// The picture when no frame is to come after the step: the page as last drawn.
    fn last_drawn(self) -> Chosen {
        match self.chosen() {
            Some(c) => c,
            None => (self.between.back().cloned().or(self.before), false),
        }
    }
}

/// The frames of a flow's tabs and the pictures wanted of them.
#[derive(Default)]
pub(crate) struct Screens {
    recent: HashMap<String, VecDeque<Arc<Frame>>>,
    wanted: VecDeque<Wanted>,
    chosen: HashMap<u64, Chosen>,
    ids: u64,
    /// The end of the last step that acted on the page (ms since the epoch).
    acted: f64,
    /// How long after they were due the latest frames came, in ms.
    lags: VecDeque<f64>,
}

impl Screens {
    /// A frame of tab `tab` came.
    pub(crate) fn frame(&mut self, tab: &str, frame: Frame) {
        if self.lags.len() == RECENT {
            self.lags.pop_front();
        }
        self.lags.push_back(frame.came - frame.due);
        let f = Arc::new(frame);
        let recent = self.recent.entry(tab.to_string()).or_default();
        if recent.len() == RECENT {
            recent.pop_front();
        }
        recent.push_back(f.clone());
        for w in self.wanted.iter_mut().filter(|w| w.tab == tab) {
            w.see(&f);
        }
        self.choose();
    }

    /// A browser step began at `start` and ended at `end` (ms since the epoch); `acts` when it
    /// may change the page (not only read it).
    pub(crate) fn step(&mut self, (start, end): (f64, f64), acts: bool) {
        if acts {
            for w in &mut self.wanted {
                w.next.get_or_insert(start);
            }
            self.acted = end;
            self.choose();
        }
    }

    /// The picture of tab `tab` after the step told last (see `step`) is wanted: its id.
    pub(crate) fn want(&mut self, tab: &str, end: f64) -> u64 {
        self.ids += 1;
        let mut w = Wanted {
            id: self.ids,
            tab: tab.to_string(),
            from: self.acted.min(end),
            end,
            shows: self.shows(),
            next: None,
            before: None,
            between: VecDeque::new(),
            after: None,
        };
        for f in self.recent.get(tab).into_iter().flatten() {
            w.see(f);
        }
        self.wanted.push_back(w);
        if self.wanted.len() > MAX_WANTED
            && let Some(w) = self.wanted.pop_front()
        {
            self.chosen.insert(w.id, w.last_drawn());
        }
        self.choose();
        self.ids
    }

    /// How long after a change a frame due shows it now: `SHOWS`, and as much again as the
    /// latest frames came after they were due.
    fn shows(&self) -> f64 {
        let late = self.lags.iter().copied().fold(0.0, f64::max);
        SHOWS + late.clamp(0.0, MAX_LATE)
    }

    fn choose(&mut self) {
        let chosen = &mut self.chosen;
        self.wanted.retain(|w| match w.chosen() {
            Some(c) => {
                chosen.insert(w.id, c);
                false
            }
            None => true,
        });
    }

    /// The picture `id`, taken once it is chosen.
    pub(crate) fn take(&mut self, id: u64) -> Option<Chosen> {
        self.chosen.remove(&id)
    }

    /// The flow ended at `at` (ms since the epoch): no later step comes. When the pictures
    /// still waiting are to be chosen at the latest (ms since the epoch); `None` when none
    /// waits. A picture whose page had settled by then (`shows` after the last step that acted)
    /// is as the last frame before shows it: it waits for nothing. Else, until a frame that
    /// shows its step would have come: due `shows` after the step's end, and as late after
    /// that as the latest frames came, a frame at least.
    pub(crate) fn ended(&mut self, at: f64) -> Option<f64> {
        for w in &mut self.wanted {
            w.next.get_or_insert(at);
        }
        self.choose();
        let lag = self.lags.iter().copied().fold(INTERVAL, f64::max);
        self.wanted
            .iter()
            .map(|w| {
                if at >= w.from + w.shows - MARGIN {
                    at
                } else {
                    w.end + w.shows + lag.min(MAX_LATE)
                }
            })
            .reduce(f64::max)
    }

    /// Whether a picture waits to be chosen.
    pub(crate) fn waiting(&self) -> bool {
        !self.wanted.is_empty()
    }

    /// Every picture still waiting is the page as last drawn (no frame came after its step:
    /// the browser drew nothing new).
    pub(crate) fn give_up(&mut self) {
        for w in std::mem::take(&mut self.wanted) {
            let last = self.recent.get(&w.tab).and_then(|r| r.back().cloned());
            let id = w.id;
            let (frame, later) = w.last_drawn();
            self.chosen.insert(id, (frame.or(last), later));
        }
    }
}

#[cfg(test)]
mod tests;
