//! `atlas.json`: how an atlas tells its states apart, fixed when its first state is recorded
//! (node ids made one way cannot be compared with ids made the other).

use serde::{Deserialize, Serialize};

use super::dir::Atlas;
use super::error::AtlasError;
use super::files::{read_json, write_json};
use crate::config::project::Fingerprint;

/// `atlas.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    fingerprint: Fingerprint,
}

impl Atlas {
    /// How the atlas tells states apart: as its `atlas.json` says; without one, by text when it
    /// has nodes (runner recorded them so before it wrote the file), else by structure.
    pub(crate) fn fingerprint(&self) -> Result<Fingerprint, AtlasError> {
        let p = self.root.join("atlas.json");
        if p.exists() {
            return read_json::<Settings>(&p).map(|s| s.fingerprint);
        }
        Ok(if self.has_nodes() {
            Fingerprint::Text
        } else {
            Fingerprint::Structure
        })
    }

    /// Fixes how the atlas tells states apart before a state is recorded into it: `wanted`
    /// (the project's `[atlas] fingerprint`, or `explore --fingerprint`) for a new atlas, else
    /// the way it was made, written to `atlas.json`. An atlas made the other way than `wanted`
    /// is an error: its nodes could not be told from new ones.
    pub(crate) fn settle_fingerprint(
        &self,
        wanted: Option<Fingerprint>,
    ) -> Result<Fingerprint, AtlasError> {
        let _lock = self.lock()?;
        let p = self.root.join("atlas.json");
        let has = if p.exists() || self.has_nodes() {
            self.fingerprint()?
        } else {
            wanted.unwrap_or_default()
        };
        if let Some(w) = wanted
            && w != has
        {
            return Err(AtlasError::Fingerprint {
                path: self.root.display().to_string(),
                has: has.as_str(),
                wanted: w.as_str(),
            });
        }
        if !p.exists() {
            write_json(&p, &Settings { fingerprint: has })?;
        }
        Ok(has)
    }

    fn has_nodes(&self) -> bool {
        std::fs::read_dir(self.root.join("nodes"))
            .is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.path().join("meta.json").exists())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_atlas_keeps_the_fingerprint_it_was_made_with() {
        let d = tempfile::tempdir().unwrap();
        let a = Atlas::open(&d.path().join("a")).unwrap();
        assert_eq!(a.fingerprint().unwrap(), Fingerprint::Structure);
        assert_eq!(
            a.settle_fingerprint(Some(Fingerprint::Text)).unwrap(),
            Fingerprint::Text
        );
        assert_eq!(a.settle_fingerprint(None).unwrap(), Fingerprint::Text);
        let e = a
            .settle_fingerprint(Some(Fingerprint::Structure))
            .unwrap_err();
        assert!(
            e.to_string().contains("tells states apart by `text`"),
            "{e}"
        );
        // An atlas recorded before `atlas.json` existed was recorded by text.
        let old = Atlas::open(&d.path().join("old")).unwrap();
        std::fs::create_dir_all(old.node_dir("n1")).unwrap();
        std::fs::write(old.node_dir("n1").join("meta.json"), "{}").unwrap();
        assert_eq!(old.fingerprint().unwrap(), Fingerprint::Text);
        assert_eq!(old.settle_fingerprint(None).unwrap(), Fingerprint::Text);
        assert!(d.path().join("old/atlas.json").exists());
        // A new one, by structure unless asked otherwise.
        let new = Atlas::open(&d.path().join("new")).unwrap();
        assert_eq!(
            new.settle_fingerprint(None).unwrap(),
            Fingerprint::Structure
        );
    }
}
