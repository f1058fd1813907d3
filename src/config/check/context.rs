//! What every check reads: the file and its span map, the flow, and the names the flow declares
//! (step ids, agent steps, outputs), gathered once.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::config::model::{Action, Flow, Step};
use crate::config::profiles::Registry;
use crate::config::schema::at_value;
use crate::source::{Diagnostic, SourceFile, SpanMap};
use crate::template::Templates;
use crate::template::check::Servers;

/// Everything a check needs to point into the file.
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a SourceFile,
    pub(crate) spans: &'a SpanMap,
    pub(crate) value: &'a Value,
    pub(crate) flow: &'a Flow,
    pub(crate) profiles: &'a Registry,
    pub(crate) templates: &'a Templates,
    /// Vars given on the command line.
    pub(crate) extra_vars: &'a [String],
    /// The run-level servers' names (`[[web_server]]` of runner.toml).
    pub(crate) servers: &'a [String],
}

/// What the flow's steps declare, for the checks that refer to them.
pub(super) struct Declared<'a> {
    /// Every step with its JSON pointer, `finally` and the steps inside `each` and `group`
    /// included, in the order they run.
    pub(super) steps: Vec<(String, &'a Step)>,
    /// Step ids, with the byte offset of the first of each.
    pub(super) ids: HashMap<&'a str, usize>,
    /// Ids of `agent` steps, with whether each runs in the background.
    pub(super) agent_steps: HashMap<&'a str, bool>,
    /// Every step id, owned (what templates may name).
    pub(super) all_steps: HashSet<String>,
    /// What `steps.<id>.*` may read, where the outputs are known ahead.
    pub(super) outputs: HashMap<String, &'static [&'static str]>,
    /// What `web_server.*` holds: the flow's own server, the run's; anything in a `_` sub-flow
    /// (which runs with its caller's).
    pub(super) web_server: Servers<'a>,
}

impl<'a> Declared<'a> {
    /// Gathers the declarations of `c`'s flow; a step id used twice goes to `out`.
    pub(super) fn gather(c: &Ctx<'a>, out: &mut Vec<Diagnostic>) -> Declared<'a> {
        // The steps inside `each` and `group` steps too, after the step that holds them.
        let steps: Vec<(String, &'a Step)> = c.flow.pointed_steps();
        let (ids, agent_steps) = unique_ids(c, &steps, out);
        let all_steps: HashSet<String> = ids.keys().map(std::string::ToString::to_string).collect();
        let outputs = steps
            .iter()
            .filter_map(|(_, s)| Some((s.id.clone()?, s.action.outputs()?)))
            .collect();
        let sub_flow = std::path::Path::new(c.file.name())
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('_'));
        Declared {
            steps,
            ids,
            agent_steps,
            all_steps,
            outputs,
            web_server: Servers {
                own: c.flow.web_server.is_some(),
                shared: c.servers,
                any: sub_flow,
                no_port: c
                    .flow
                    .web_server
                    .as_ref()
                    .is_some_and(|w| w.port.is_none() && w.static_dir.is_none()),
            },
        }
    }
}

/// Step ids (unique across steps and finally) and the ids of agent steps.
fn unique_ids<'a>(
    c: &Ctx<'a>,
    steps: &[(String, &'a Step)],
    out: &mut Vec<Diagnostic>,
) -> (HashMap<&'a str, usize>, HashMap<&'a str, bool>) {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut agent_steps: HashMap<&str, bool> = HashMap::new();
    for (ptr, step) in steps {
        let Some(id) = &step.id else { continue };
        let p = format!("{ptr}/id");
        if let Some(first) = ids.get(id.as_str()) {
            let line = c.file.line_col(*first).0;
            out.push(
                at_value(c.file, c.spans, &p, format!("duplicate step id `{id}`")).with_help(
                    format!("`{id}` is already the id of the step on line {line}"),
                ),
            );
        } else {
            let at = c.spans.nearest(&p).map_or(0, |s| s.value.start);
            ids.insert(id, at);
        }
        if let Action::Agent(a) = &step.action {
            agent_steps.insert(id, a.background.unwrap_or(false));
        }
    }
    (ids, agent_steps)
}
