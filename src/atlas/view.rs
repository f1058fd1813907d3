//! Reading an atlas as people do: `atlas show`, `atlas path` and `atlas graph`.

use super::label::{Labels, ellipsize};
use super::store::{Atlas, AtlasError};
use crate::step::shown::one_line;

/// How `atlas graph` draws the graph.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum GraphFormat {
    /// Graphviz dot.
    Dot,
    /// A Mermaid flowchart.
    Mermaid,
}

/// A node as people read it: its title and route, and what tells it from a node that shares
/// them (see `label`).
pub(crate) fn label(atlas: &Atlas, id: &str) -> String {
    Labels::one(atlas, id)
}

/// The most characters of an edge's name in a graph.
const EDGE: usize = 40;

/// `atlas show`: nodes, edges, roots and unreachable nodes.
pub(crate) fn show(atlas: &Atlas) -> Result<String, AtlasError> {
    // A damaged atlas is reported, not shown as if whole: unreadable nodes, links to nowhere.
    atlas.check()?;
    let ids = atlas.node_ids()?;
    let roots = atlas.roots()?;
    let labels = Labels::of(atlas);
    let mut reachable = std::collections::HashSet::new();
    let mut s = format!(
        "atlas {}: {} node(s)\n\nnodes:\n",
        atlas.root.display(),
        ids.len()
    );
    for id in &ids {
        s.push_str(&format!("  {id}  {}\n", one_line(labels.get(id))));
        if let Some(why) = atlas.meta(id)?.screenshot_left_out {
            s.push_str(&format!("    screenshot left out: {}\n", one_line(&why)));
        }
    }
    s.push_str("\nedges:\n");
    for id in &ids {
        for l in atlas.links(id)? {
            s.push_str(&format!(
                "  {id} --[{}]--> {}\n",
                one_line(&l.action),
                l.target
            ));
        }
    }
    for r in &roots {
        let mut stack = vec![r.clone()];
        while let Some(n) = stack.pop() {
            if reachable.insert(n.clone()) {
                stack.extend(atlas.links(&n)?.into_iter().map(|l| l.target));
            }
        }
    }
    s.push_str(&format!(
        "\nroots: {}\n",
        if roots.is_empty() {
            "-".into()
        } else {
            roots.join(", ")
        }
    ));
    let unreachable: Vec<&String> = ids.iter().filter(|i| !reachable.contains(*i)).collect();
    s.push_str(&format!(
        "unreachable: {}\n",
        if unreachable.is_empty() {
            "-".to_string()
        } else {
            unreachable
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    ));
    Ok(s)
}

/// `atlas path NODE`: the actions from a root to the node.
pub(crate) fn path(atlas: &Atlas, node: &str) -> Result<String, AtlasError> {
    let steps = atlas.path_to_node(node)?;
    let labels = Labels::of(atlas);
    let mut s = String::new();
    for p in steps {
        match p.action {
            Some(a) => s.push_str(&format!(
                "{}  {}\n  --[{}]-->\n",
                p.node_id,
                one_line(labels.get(&p.node_id)),
                one_line(&a)
            )),
            None => s.push_str(&format!(
                "{}  {}\n",
                p.node_id,
                one_line(labels.get(&p.node_id))
            )),
        }
    }
    Ok(s)
}

/// `atlas graph`: the graph as Graphviz dot or a Mermaid flowchart. Node ids are 16 hex digits
/// (`node_ids` and `links` refuse any other name); labels go through `esc` (DOT) or `m`
/// (Mermaid): one line, their quotes escaped.
pub(crate) fn graph(atlas: &Atlas, format: GraphFormat) -> Result<String, AtlasError> {
    let ids = atlas.node_ids()?;
    let labels = Labels::of(atlas);
    let esc = |s: &str| one_line(s).replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = String::new();
    match format {
        GraphFormat::Dot => {
            s.push_str("digraph atlas {\n  rankdir=LR;\n");
            for id in &ids {
                s.push_str(&format!(
                    "  \"{id}\" [label=\"{}\"];\n",
                    esc(labels.get(id))
                ));
            }
            for id in &ids {
                for l in atlas.links(id)? {
                    s.push_str(&format!(
                        "  \"{id}\" -> \"{}\" [label=\"{}\"];\n",
                        l.target,
                        esc(&ellipsize(&l.action, EDGE))
                    ));
                }
            }
            s.push_str("}\n");
        }
        GraphFormat::Mermaid => {
            s.push_str("flowchart LR\n");
            let m = |t: &str| one_line(t).replace('"', "#quot;");
            for id in &ids {
                s.push_str(&format!("  n{id}[\"{}\"]\n", m(labels.get(id))));
            }
            for id in &ids {
                for l in atlas.links(id)? {
                    s.push_str(&format!(
                        "  n{id} -->|\"{}\"| n{}\n",
                        m(&ellipsize(&l.action, EDGE)),
                        l.target
                    ));
                }
            }
        }
    }
    Ok(s)
}
