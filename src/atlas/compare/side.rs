//! One side of an atlas diff: an atlas read whole — each state with what identifies it (its
//! fingerprint made again from its recording, as this runner makes it, origin left out), its
//! route and its structure — and its edges. A damaged atlas is refused, naming the file.

use std::collections::BTreeMap;

use crate::atlas::fingerprint::{Fingerprint, fingerprint, without_origin};
use crate::atlas::identity::{Element, path_of, route, structure};
use crate::atlas::label::Labels;
use crate::atlas::store::{Atlas, AtlasError};
use crate::step::Masker;

/// A state of one atlas.
#[derive(Debug, Clone, Default)]
pub(super) struct Node {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) url: String,
    pub(super) title: String,
    /// What identifies the state: its fingerprint without its origin.
    pub(super) key: String,
    /// Its route without origin (`/books/:id?q=*`).
    pub(super) route: String,
    /// Its recorded snapshot (empty when the atlas lost it).
    pub(super) snapshot: String,
    pub(super) elements: Vec<Element>,
}

/// An edge: from the state at `source` (an index into the nodes) by `action` to `target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edge {
    pub(super) source: usize,
    /// Its name.
    pub(super) action: String,
    /// What tells it from the state's other edges, in both atlases: what explore did (`click
    /// link Cart`) when an agent named the edge (its names may differ from run to run), else
    /// its name.
    pub(super) via: String,
    pub(super) target: usize,
}

/// An atlas read for comparing: its nodes in id order, its edges in source and action order.
#[derive(Debug, Clone, Default)]
pub(super) struct Side {
    pub(super) nodes: Vec<Node>,
    pub(super) edges: Vec<Edge>,
    /// Each node's outgoing edges by `via`: the index of the edge.
    by_via: BTreeMap<(usize, String), usize>,
}

impl Side {
    /// Reads a whole atlas, whose states are told apart by `mode`, its recorded text masked
    /// with `masker`.
    pub(super) fn read(
        atlas: &Atlas,
        mode: Fingerprint,
        masker: &Masker,
    ) -> Result<Side, AtlasError> {
        atlas.check()?;
        let labels = Labels::of(atlas);
        let ids = atlas.node_ids()?;
        let mut nodes = Vec::new();
        for id in &ids {
            let meta = atlas.meta(id)?;
            let url = masker.mask(&meta.url);
            let snapshot = atlas.snapshot(id)?.map(|s| masker.mask(&s));
            let key = without_origin(&match &snapshot {
                Some(s) => fingerprint(mode, &url, s).0,
                None => masker.mask(&meta.fingerprint),
            });
            let snapshot = snapshot.unwrap_or_default();
            nodes.push(Node {
                id: id.clone(),
                label: masker.mask(labels.get(id)),
                route: path_of(&route(&url)).to_string(),
                elements: structure(&url, &snapshot).elements,
                key,
                snapshot,
                url,
                title: masker.mask(&meta.title),
            });
        }
        let mut edges = Vec::new();
        for (source, id) in ids.iter().enumerate() {
            for l in atlas.links(id)? {
                // `check` saw every link lead to a node of the atlas.
                if let Some(target) = ids.iter().position(|t| *t == l.target) {
                    let via = atlas
                        .edge_meta(id, &l.safe)
                        .and_then(|m| m.label)
                        .map_or_else(|| l.action.clone(), |label| label.performed);
                    edges.push(Edge {
                        source,
                        action: masker.mask(&l.action),
                        via: masker.mask(&via),
                        target,
                    });
                }
            }
        }
        Ok(Side::new(nodes, edges))
    }

    /// A side of these nodes and edges.
    pub(super) fn new(nodes: Vec<Node>, mut edges: Vec<Edge>) -> Side {
        edges.sort_by(|x, y| (x.source, &x.via).cmp(&(y.source, &y.via)));
        let by_via = edges
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.source, e.via.clone()), i))
            .collect();
        Side {
            nodes,
            edges,
            by_via,
        }
    }

    /// The edge from the state `source` that does `via`, if it has one.
    pub(super) fn edge(&self, source: usize, via: &str) -> Option<&Edge> {
        self.by_via
            .get(&(source, via.to_string()))
            .map(|&i| &self.edges[i])
    }
}
