//! What a report page takes from the files its reports name: each file once, however often and
//! however it is named (by its canonical path: `p.png`, `./p.png` and a link to it are one
//! file), so a text shown again refers to the element that holds it and a file shown again is
//! the one copy under `assets/`; and from shards (input from outside) no more than a budget in
//! all: [`TEXT_BUDGET`] of text in the page, [`COPY_BUDGET`] of files copied beside it. What is
//! past it is left out with a note. A run's own files are taken as they are: each once, no
//! budget.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use super::{Asset, Writer, esc};
use crate::report::reads::Reads;

const MIB: u64 = 1024 * 1024;

/// The most text a page takes in from shards' files (snapshots, traces), in all. A trace's
/// entries become rows of the page some 5 times their size in JSON: a page of ~350 MB at most.
pub(crate) const TEXT_BUDGET: u64 = 64 * MIB;

/// The most a report copies of shards' files beside its page (screenshots, pictures, logs), in
/// all.
pub(crate) const COPY_BUDGET: u64 = 1024 * MIB;

/// The files taken so far, by canonical path, and what is left of the budgets.
pub(super) struct Taken {
    /// A text shown: the id of the element holding it.
    texts: HashMap<PathBuf, String>,
    /// A file copied: its name under `assets/`.
    copies: HashMap<PathBuf, String>,
    /// A trace shown: the flow it is shown with.
    traces: HashMap<PathBuf, String>,
    text_left: u64,
    copy_left: u64,
}

/// A text for the page: new (to be shown, in the element of that id), or the id of the element
/// that holds it already.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Text {
    New { id: String, text: String },
    Same { id: String },
}

impl Taken {
    pub(super) fn new(text_budget: u64, copy_budget: u64) -> Taken {
        Taken {
            texts: HashMap::new(),
            copies: HashMap::new(),
            traces: HashMap::new(),
            text_left: text_budget,
            copy_left: copy_budget,
        }
    }

    /// The text of the file `path` names (read as `reads` allow), or the element holding it.
    pub(super) fn text(&mut self, reads: &Reads, path: &str) -> Result<Text, String> {
        let key = reads.real(path).unwrap_or_else(|| path.into());
        if let Some(id) = self.texts.get(&key) {
            // Allowed then, allowed now: but a shard's path is checked again all the same.
            reads.open(path)?;
            return Ok(Text::Same { id: id.clone() });
        }
        let text = self.read(reads, path)?;
        let id = format!("text-{}", self.texts.len() + 1);
        self.texts.insert(key, id.clone());
        Ok(Text::New { id, text })
    }

    /// The text of flow `flow`'s trace at `path`; refused when another flow shows that file.
    pub(super) fn trace(
        &mut self,
        reads: &Reads,
        path: &str,
        flow: &str,
    ) -> Result<String, String> {
        let key = reads.real(path).unwrap_or_else(|| path.into());
        if let Some(other) = self.traces.get(&key) {
            return Err(format!("it is flow {other:?}'s trace, shown with it"));
        }
        let text = self.read(reads, path)?;
        self.traces.insert(key, flow.to_string());
        Ok(text)
    }

    /// The text of `path`, within what is left of the text budget (a shard's).
    fn read(&mut self, reads: &Reads, path: &str) -> Result<String, String> {
        let (f, cap) = reads.open(path)?;
        let len = f.metadata().map_or(0, |m| m.len()).min(cap);
        if reads.is_shard() && len > self.text_left {
            return Err(format!(
                "the page holds {} MiB of the shards' texts already, the most it takes in",
                TEXT_BUDGET / MIB
            ));
        }
        let mut bytes = Vec::new();
        f.take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot be read: {e}"))?;
        if reads.is_shard() {
            self.text_left = self
                .text_left
                .saturating_sub(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

impl Writer {
    /// The text of the file `path` names, as the page shows it: in a `<pre>` of its own the
    /// first time, else one that refers to it (filled by the page's script when shown).
    pub(super) fn shown_text(&mut self, path: &str) -> Result<String, String> {
        Ok(match self.taken.text(&self.reads, path)? {
            Text::New { id, text } => format!("<pre id=\"{id}\">{}</pre>", esc(&text)),
            Text::Same { id } => format!("<pre data-same=\"{id}\"></pre>"),
        })
    }

    /// The name under `assets/` of file `from` (read as `reads` allow), copied with the page
    /// once however often and however the page names it (a failed step's screenshot is its
    /// trace picture too); else why it is not.
    pub(super) fn asset(&mut self, reads: &Reads, from: &str, ext: &str) -> Result<String, String> {
        let (f, cap) = reads.open(from)?;
        let key = reads.real(from).unwrap_or_else(|| from.into());
        if let Some(name) = self.taken.copies.get(&key) {
            return Ok(name.clone());
        }
        let len = f.metadata().map_or(0, |m| m.len()).min(cap);
        if reads.is_shard() {
            if len > self.taken.copy_left {
                return Err(format!(
                    "the report copies {} MiB of the shards' files already, the most it takes",
                    COPY_BUDGET / MIB
                ));
            }
            self.taken.copy_left -= len;
        }
        let name = format!("{}.{ext}", self.assets.len() + 1);
        self.taken.copies.insert(key, name.clone());
        self.assets.push(Asset {
            reads: reads.clone(),
            from: from.to_string(),
            name: name.clone(),
        });
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::{Taken, Text};
    use crate::report::reads::Reads;

    #[test]
    fn a_file_is_taken_once_however_it_is_named_and_a_shards_within_the_budget() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.snapshot.txt"), "aaaaaa").unwrap();
        std::fs::write(d.path().join("b.snapshot.txt"), "bbbbbb").unwrap();
        let reads = Reads::shard(&d.path().join("report.json")).unwrap();
        let mut taken = Taken::new(10, 10);
        let first = taken.text(&reads, "a.snapshot.txt").unwrap();
        assert!(
            matches!(&first, Text::New { text, .. } if text == "aaaaaa"),
            "{first:?}"
        );
        let Text::New { id, .. } = first else {
            unreachable!()
        };
        for again in [
            "./a.snapshot.txt",
            "././a.snapshot.txt",
            "x/../a.snapshot.txt",
        ] {
            let _ = std::fs::create_dir_all(d.path().join("x"));
            assert_eq!(
                taken.text(&reads, again),
                Ok(Text::Same { id: id.clone() }),
                "{again}"
            );
        }
        // 6 of 10 bytes spent: another 6 are past the budget, and left out.
        let e = taken.text(&reads, "b.snapshot.txt").unwrap_err();
        assert!(e.contains("64 MiB of the shards' texts"), "{e}");
        // A run's own files have no budget.
        let mut own = Taken::new(0, 0);
        let b = d.path().join("b.snapshot.txt").display().to_string();
        assert!(matches!(own.text(&Reads::Own, &b), Ok(Text::New { .. })));
        // A trace is shown with one flow only.
        std::fs::write(d.path().join("t.log"), "{}").unwrap();
        let mut taken = Taken::new(10, 10);
        assert_eq!(taken.trace(&reads, "t.log", "a").unwrap(), "{}");
        let e = taken.trace(&reads, "./t.log", "b").unwrap_err();
        assert!(e.contains("flow \"a\"'s trace"), "{e}");
    }
}
