//! `atlas.json`: how an atlas tells its states apart, fixed when its first state is recorded
//! (node ids made one way cannot be compared with ids made the other), and the web server its
//! explore started on (replays go to that server's origin of their own run).

use serde::{Deserialize, Serialize};

use super::dir::Atlas;
use super::error::AtlasError;
use crate::config::project::Fingerprint;

/// `atlas.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    fingerprint: Fingerprint,
    /// The name of the web server (runner.toml's `[[web_server]]`, `server` for
    /// `--web-server`'s) the last explore's URL was on; none when it was on none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server: Option<String>,
    /// That server's URL then: an app served under a path (`http://host:port/app/`) has it in
    /// its server's URL, which replays and exports put in the place of `<origin>/app/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server_url: Option<String>,
    /// The names of the secrets the runs that recorded into the atlas declared (never their
    /// values): replays mask the pages they find with them, read from the environment, as the
    /// recording masked the pages it kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    secrets: Vec<String>,
}

impl Atlas {
    /// How the atlas tells states apart: as its `atlas.json` says; without one, by text when it
    /// has nodes (runner recorded them so before it wrote the file), else by structure.
    pub(crate) fn fingerprint(&self) -> Result<Fingerprint, AtlasError> {
        let p = self.root.join("atlas.json");
        if let Some(s) = self.read_json_if_any::<Settings>(&p)? {
            return Ok(s.fingerprint);
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
            self.write_json(
                &p,
                &Settings {
                    fingerprint: has,
                    server: None,
                    server_url: None,
                    secrets: Vec::new(),
                },
            )?;
        }
        Ok(has)
    }

    /// The web server the atlas was recorded on (`atlas.json`'s `server`), when known.
    pub(crate) fn server(&self) -> Result<Option<String>, AtlasError> {
        let p = self.root.join("atlas.json");
        Ok(self
            .read_json_if_any::<Settings>(&p)?
            .and_then(|s| s.server))
    }

    /// The path of that server's URL as it was (`/app/`, `/`), empty when it had none or is
    /// not known: where the app was served.
    pub(crate) fn server_path(&self) -> Result<String, AtlasError> {
        let p = self.root.join("atlas.json");
        let url = self
            .read_json_if_any::<Settings>(&p)?
            .and_then(|s| s.server_url)
            .unwrap_or_default();
        let path = url
            .split_once("://")
            .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
            .unwrap_or_default();
        Ok(path
            .split(['?', '#'])
            .next()
            .unwrap_or_default()
            .to_string())
    }

    /// Notes that states are recorded on the web server `name` (at `url`, when known):
    /// `atlas.json` (with the fingerprint settled as [`Atlas::settle_fingerprint`] does) names
    /// it from now on. Returns the server it named before, when that was another.
    pub(crate) fn settle_server(
        &self,
        name: &str,
        url: Option<&str>,
        wanted: Option<Fingerprint>,
    ) -> Result<Option<String>, AtlasError> {
        self.settle_fingerprint(wanted)?;
        let _lock = self.lock()?;
        let p = self.root.join("atlas.json");
        let mut s = self.read_json::<Settings>(&p)?;
        let before = s.server.replace(name.to_string());
        let url_before = std::mem::replace(&mut s.server_url, url.map(str::to_string));
        if before.as_deref() != Some(name) || url_before != s.server_url {
            self.write_json(&p, &s)?;
        }
        Ok(before.filter(|b| b != name))
    }

    /// The names of the secrets the recording runs declared (`atlas.json`'s `secrets`; none in
    /// an atlas made before it kept them, or by `explore`). An atlas may come from anywhere: a
    /// name that is no secret's name (`[A-Za-z_][A-Za-z0-9_]*`) breaks it there.
    pub(crate) fn secrets(&self) -> Result<Vec<String>, AtlasError> {
        let p = self.root.join("atlas.json");
        let names = self
            .read_json_if_any::<Settings>(&p)?
            .map(|s| s.secrets)
            .unwrap_or_default();
        if let Some(bad) = names.iter().find(|n| !is_name(n)) {
            return Err(AtlasError::Broken {
                path: p.display().to_string(),
                message: format!(
                    "`secrets` holds `{}`, which is no secret's name",
                    bad.escape_debug()
                ),
            });
        }
        Ok(names)
    }

    /// Adds `names` (the secrets of a run that records into the atlas) to `atlas.json`'s
    /// `secrets`, after the fingerprint was settled ([`Atlas::settle_fingerprint`] writes the
    /// file); written only when one is new.
    pub(crate) fn note_secrets(&self, names: &[String]) -> Result<(), AtlasError> {
        let p = self.root.join("atlas.json");
        if names.is_empty() || !p.exists() {
            return Ok(());
        }
        let _lock = self.lock()?;
        let mut s = self.read_json::<Settings>(&p)?;
        let new: Vec<&String> = names.iter().filter(|n| !s.secrets.contains(n)).collect();
        if new.is_empty() {
            return Ok(());
        }
        s.secrets.extend(new.into_iter().cloned());
        self.write_json(&p, &s)
    }

    fn has_nodes(&self) -> bool {
        self.node_ids().is_ok_and(|ids| !ids.is_empty())
    }
}

/// Whether `n` is a secret's name, as a flow's `secrets` lists it.
fn is_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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
        std::fs::create_dir_all(old.node_dir("00000000000000a1")).unwrap();
        std::fs::write(old.node_dir("00000000000000a1").join("meta.json"), "{}").unwrap();
        assert_eq!(old.fingerprint().unwrap(), Fingerprint::Text);
        assert_eq!(old.settle_fingerprint(None).unwrap(), Fingerprint::Text);
        assert!(d.path().join("old/atlas.json").exists());
        // The server an explore started on is kept beside the fingerprint; another one later
        // replaces it, saying which it was.
        assert_eq!(a.server().unwrap(), None);
        assert_eq!(a.settle_server("app", None, None).unwrap(), None);
        assert_eq!(a.settle_server("app", None, None).unwrap(), None);
        assert_eq!(a.server().unwrap().as_deref(), Some("app"));
        assert_eq!(a.server_path().unwrap(), "");
        assert_eq!(a.fingerprint().unwrap(), Fingerprint::Text);
        let url = Some("http://127.0.0.1:8000/app/?x=1");
        assert_eq!(
            a.settle_server("web", url, None).unwrap().as_deref(),
            Some("app")
        );
        assert_eq!(a.server().unwrap().as_deref(), Some("web"));
        assert_eq!(a.server_path().unwrap(), "/app/");
        // The names of the recording runs' secrets, each once; none before a state is recorded.
        assert_eq!(a.secrets().unwrap(), Vec::<String>::new());
        a.note_secrets(&["T".into(), "U_2".into()]).unwrap();
        a.note_secrets(&["U_2".into()]).unwrap();
        assert_eq!(a.secrets().unwrap(), ["T", "U_2"]);
        assert_eq!(a.server().unwrap().as_deref(), Some("web"));
        let none = Atlas::open(&d.path().join("none")).unwrap();
        none.note_secrets(&["T".into()]).unwrap();
        assert!(!d.path().join("none/atlas.json").exists());
        // One from anywhere names no secret that is no name.
        let text = std::fs::read_to_string(d.path().join("a/atlas.json")).unwrap();
        let bad = text.replace("\"U_2\"", "\"a b\\n\"");
        std::fs::write(d.path().join("a/atlas.json"), bad).unwrap();
        let e = a.secrets().unwrap_err().to_string();
        assert!(e.contains("`a b\\n`, which is no secret's name"), "{e}");
        // A new one, by structure unless asked otherwise.
        let new = Atlas::open(&d.path().join("new")).unwrap();
        assert_eq!(
            new.settle_fingerprint(None).unwrap(),
            Fingerprint::Structure
        );
    }
}
