//! What the agent's skills decide in a crawl: a new state's todos (`page_analysis`, else
//! explore's own) and the edge a todo made (`trajectory_labeling`, else the todo's name).

use serde_json::{Value, json};

use super::crawler::{Arrived, Crawler};
use super::options::ExploreAgent;
use super::task::Task;
use super::task::fit_task;
use super::todos::own_todos;
use crate::agent::{Answer, Skill, SkillCall, call_skill, keep, keep_item};
use crate::atlas::export::script_name;
use crate::atlas::store::{AtlasError, EdgeLabel};
use crate::step::StepError;

/// A `trajectory_labeling` answer in runner's form: the script name a file name (the seed
/// allows any string: `Open Cart` is `open_cart`), the confidence within 0 and 1.
// A hook: its type is the one `SkillCall` takes.
#[allow(clippy::unnecessary_wraps)]
fn fit_label(answer: &mut Value) -> Result<(), String> {
    if let Some(name) = answer.get("script_name").and_then(Value::as_str) {
        answer["script_name"] = json!(script_name(name));
    }
    if let Some(c) = answer.get("confidence").and_then(Value::as_f64) {
        answer["confidence"] = json!(c.clamp(0.0, 1.0));
    }
    Ok(())
}

impl Crawler<'_> {
    /// The todos of a new state: the agent's (`page_analysis`, by priority; its summary and
    /// test ideas kept beside the node), else the state's own clickable elements.
    pub(super) async fn todos_of(&mut self, at: &Arrived) -> Result<Vec<Value>, StepError> {
        let Some(agent) = self.agent else {
            return Ok(own_todos(&at.refs, &at.text, &at.forms));
        };
        self.analyse(agent, at).await.map_err(|mut e| {
            e.message = format!("page_analysis of {}: {}", at.node, e.message);
            e
        })
    }

    async fn analyse(
        &mut self,
        agent: &ExploreAgent<'_>,
        at: &Arrived,
    ) -> Result<Vec<Value>, StepError> {
        let refs = &at.refs;
        // The seed's string forms made runner's; snapshot refs, which do not outlive the
        // snapshot, become role and name. A task explore cannot do is dropped, named.
        let fit = |list: &str, item: &mut Value| match list {
            "frontier_tasks" => fit_task(item, refs),
            _ => Ok(()),
        };
        let call = SkillCall {
            skill: Skill::PageAnalysis,
            input: json!({
                "url": at.url,
                "title": at.title,
                "snapshot": at.text,
                "screenshot": self.atlas.node_file(&at.node, "screenshot.png"),
            }),
            // The state's fingerprint (its node id): not its origin, not its volatile text.
            key: json!({ "node": at.node }),
            profile: agent.profile.as_deref(),
            variant: None,
            use_cache: true,
            normalize: &keep,
            fit_item: &fit,
        };
        let Answer { value, dropped, .. } = call_skill(&call, &agent.env).await?;
        for item in &dropped {
            let note = format!("{}: page_analysis: {item}", at.node);
            (self.warn)(&format!("dropped from the agent's answer: {note}"));
            self.summary.dropped_answer_items.push(note);
        }
        let answer = value;
        let record = |name: &str, v: &Value| self.atlas.write_node_json(&at.node, name, v);
        record("test_ideas.json", &answer["test_ideas"])?;
        record(
            "analysis.json",
            &json!({
                "summary": answer["summary"],
                "url": at.url,
                "title": at.title,
                "dropped": dropped,
            }),
        )?;
        let mut tasks: Vec<Value> = answer["frontier_tasks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // Highest priority first; equal ones in the agent's order.
        tasks.sort_by_key(|t| std::cmp::Reverse(t["priority"].as_i64().unwrap_or(0)));
        Ok(tasks)
    }

    /// The agent's label of the move from `from` along `task` to `to` (`trajectory_labeling`).
    async fn label(
        &self,
        agent: &ExploreAgent<'_>,
        from: &str,
        task: &Task,
        to: &Arrived,
    ) -> Result<Value, StepError> {
        let before = self.atlas.meta(from)?;
        let shot = |id: &str| self.atlas.node_file(id, "screenshot.png");
        let call = SkillCall {
            skill: Skill::TrajectoryLabeling,
            input: json!({
                "action": task.name,
                "steps": task.steps,
                // As stored: masked as this crawl masks (a node stored before the atlas named
                // a secret holds it).
                "before": {
                    "url": self.masker.mask(&before.url),
                    "title": self.masker.mask(&before.title),
                    "snapshot": self.masker.mask(&self.atlas.snapshot(from)?.unwrap_or_default()),
                    "screenshot": shot(from),
                },
                "after": {
                    "url": to.url,
                    "title": to.title,
                    "snapshot": to.text,
                    "screenshot": shot(&to.node),
                },
            }),
            key: json!({ "from": from, "action": task.name, "to": to.node }),
            profile: agent.profile.as_deref(),
            variant: None,
            use_cache: true,
            normalize: &fit_label,
            fit_item: &keep_item,
        };
        Ok(call_skill(&call, &agent.env).await?.value)
    }

    /// Records the edge `task` made from `node` to `to`: under the agent's label, else under
    /// the task's name. False when the agent says the move meant nothing: no edge.
    pub(super) async fn link(
        &mut self,
        node: &str,
        task: &Task,
        to: &Arrived,
    ) -> Result<bool, StepError> {
        let labelled = match self.agent {
            None => None,
            Some(agent) => Some(self.label(agent, node, task, to).await.map_err(|mut e| {
                e.message = format!(
                    "trajectory_labeling of {node}: {}: {}",
                    task.name, e.message
                );
                e
            })?),
        };
        let Some(l) = labelled else {
            // A link that already exists under this name to another state is kept as recorded,
            // and no edge leads to this one: not kept (see `crawl::visit`), or no root would.
            return Ok(self
                .atlas
                .link_state(node, &task.name, &to.node, &task.steps)
                .is_ok());
        };
        if l["is_meaningful"] == json!(false) {
            self.summary
                .dropped_meaningless
                .push(format!("{node}: {}", task.name));
            return Ok(false);
        }
        // The agent's words name the edge: masked as the task's name is (see `task::kept_todo`).
        let label = EdgeLabel {
            script_name: script_name(
                &self
                    .masker
                    .mask(l["script_name"].as_str().unwrap_or_default()),
            ),
            confidence: l["confidence"].as_f64().unwrap_or_default(),
            performed: task.name.clone(),
        };
        let name = l["semantic_label"]
            .as_str()
            .map(|n| self.masker.mask(n.trim()))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| task.name.clone());
        let name = name.as_str();
        match self
            .atlas
            .link_labelled(node, name, &to.node, &task.steps, Some(label.clone()))
        {
            // Two moves the agent named alike: the second keeps explore's name beside it.
            Err(AtlasError::LinkExists { .. }) => Ok(self
                .atlas
                .link_labelled(
                    node,
                    &format!("{name} ({})", task.name),
                    &to.node,
                    &task.steps,
                    Some(label),
                )
                .is_ok()),
            r => r.map(|_| true).map_err(StepError::from),
        }
    }
}
