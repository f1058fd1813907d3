//! Whether an atlas is whole: every node's `meta.json` readable, every link a link to a node
//! of the atlas, every edge's `meta.json` JSON. A command that reads the whole atlas (`atlas
//! show`, `atlas diff`) refuses a damaged one, saying where, rather than show part of it.

use super::links::EdgeMeta;
use super::{Atlas, AtlasError};

impl Atlas {
    /// Checks the atlas is whole: the one problem found, or every problem in one error.
    pub(crate) fn check(&self) -> Result<(), AtlasError> {
        let ids = self.node_ids()?;
        let mut damage: Vec<AtlasError> = Vec::new();
        for id in &ids {
            if let Err(e) = self.meta(id) {
                damage.push(e);
            }
            let links = match self.links(id) {
                Ok(l) => l,
                Err(e) => {
                    damage.push(e);
                    continue;
                }
            };
            for l in links {
                if !ids.contains(&l.target) {
                    damage.push(AtlasError::Broken {
                        path: self
                            .node_dir(id)
                            .join("links")
                            .join(&l.safe)
                            .display()
                            .to_string(),
                        message: format!(
                            "link `{}` of node {id} leads to {}, which is not in the atlas",
                            l.action, l.target
                        ),
                    });
                }
                let meta = self.edge_dir(id, &l.safe).join("meta.json");
                // An edge without one names itself by its link (`links`); one that is there
                // must be whole.
                if let Err(e) = self.read_json_if_any::<EdgeMeta>(&meta) {
                    damage.push(e);
                }
            }
        }
        if damage.len() <= 1 {
            return damage.pop().map_or(Ok(()), Err);
        }
        Err(AtlasError::Broken {
            path: self.root.display().to_string(),
            message: damage
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        })
    }
}
