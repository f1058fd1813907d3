//! `runner atlas test`: every node verified (its recorded path still reaches it), then every
//! test idea `explore --agent` kept beside a node becomes a test: the `test_generation` skill
//! writes its steps, runner's own flow loader checks them, the flow (the path to the node, then
//! those steps) is saved as `<atlas>/tests/<node>/<script>.yaml` and run in a fresh context.
//! Without an agent, the tests saved by an earlier run are run again.

use serde_json::{Value, json};

use super::explore::ExploreAgent;
use super::export::{export_flow, script_name};
use super::fingerprint::origin;
use super::replay::not_run;
use super::replay::{Bounds, Driver, Replayed, bound_steps, environment, failure};
use super::status::StatusFile;
use super::store::{Atlas, AtlasError};
use super::verify::{Checks, verify};
use crate::agent::{Skill, SkillCall, call_skill, keep_item};
use crate::config::stored::{admit_flow, admit_steps};
use crate::step::{ErrorKind, FlowResult, StepError};
use crate::template::{literal_value, unbraced};

/// What `atlas test` did.
pub(crate) struct Tested {
    /// One replay per node.
    pub(crate) verified: Vec<Replayed>,
    /// One result per test idea, named `<idea> (<node>)`.
    pub(crate) tests: Vec<FlowResult>,
}

/// How many test ideas the atlas's nodes hold: the tests `atlas test` would run.
pub(crate) fn test_ideas(atlas: &Atlas) -> Result<usize, AtlasError> {
    let mut n = 0;
    for node in atlas.node_ids()? {
        if let Some(ideas) = atlas.read_node_json(&node, "test_ideas.json")? {
            n += ideas.as_array().map_or(0, Vec::len);
        }
    }
    Ok(n)
}

/// Verifies every node, then runs a test for each test idea; `progress` gets a line per test.
/// Each step of a test gets `checks.timeout`, and its steps all together that for each state
/// on its path and one more.
pub(crate) async fn test(
    driver: &mut dyn Driver,
    atlas: &Atlas,
    agent: Option<&ExploreAgent<'_>>,
    checks: Checks<'_>,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Tested, StepError> {
    let status = StatusFile::start(atlas);
    status.write(atlas, "testing", None);
    let verified = verify(&mut [&mut *driver], atlas, checks).await?;
    let mut tests = Vec::new();
    for node in atlas.node_ids()? {
        let Some(ideas) = atlas.read_node_json(&node, "test_ideas.json")? else {
            continue;
        };
        let mut names: Vec<String> = Vec::new();
        for idea in ideas.as_array().into_iter().flatten() {
            let title = idea["name"].as_str().unwrap_or("test").to_string();
            // Two ideas of one name on a node get two files.
            let mut script = script_name(&title);
            let base = script.clone();
            for n in 2.. {
                if !names.contains(&script) {
                    break;
                }
                script = format!("{base}_{n}");
            }
            names.push(script.clone());
            status.write(atlas, "testing", Some(&node));
            progress(&format!("atlas test: {node}: {title}"));
            let file = atlas
                .root
                .join("tests")
                .join(&node)
                .join(format!("{script}.yaml"));
            let name = format!("{title} ({node})");
            let flow = flow_for(driver, atlas, agent, &node, idea, &file)
                .await
                .and_then(|f| Ok(pointed(f, atlas, &node, checks.base_url)?));
            let result = match flow {
                Ok(mut flow) => {
                    bound_steps(&mut flow, checks.timeout);
                    // The path to the node, then the test's own steps (as one state more).
                    let states = atlas.path_to_node(&node)?.len() + 1;
                    let mut bounds = Bounds::replay(atlas, checks.timeout, states)?;
                    bounds.origins = Some(atlas.allowed_origins(&node, checks.base_url)?);
                    driver.reset().await.ok();
                    match driver.run(&flow, &bounds).await {
                        // The browser failed the test, not the app: no verdict (as a replay).
                        Ok(r) if environment(&r) => return Err(browser_failed(&name, &r)),
                        Ok(mut r) => {
                            r.name = name;
                            r.file = file;
                            r
                        }
                        Err(e) if e.kind == ErrorKind::Environment => return Err(e),
                        Err(e) => not_run(name, file, e),
                    }
                }
                Err(e) => not_run(name, file, e),
            };
            tests.push(result);
        }
    }
    status.write(atlas, "done", None);
    Ok(Tested { verified, tests })
}

/// The error that stops `atlas test` when the browser failed test `name` (it exited, or does
/// not answer): the failed step, and what happened to the browser.
fn browser_failed(name: &str, r: &FlowResult) -> StepError {
    StepError::new(
        ErrorKind::Environment,
        format!(
            "the browser failed while running the test `{name}`: {}",
            failure(r)
        ),
    )
}

/// The flow of one test idea: written by the agent (then checked and saved), or the one an
/// earlier run saved. Neither is the user's own file: its steps may only act on the page
/// (`config::stored`), refused otherwise, naming the file or the answer and the step.
async fn flow_for(
    driver: &mut dyn Driver,
    atlas: &Atlas,
    agent: Option<&ExploreAgent<'_>>,
    node: &str,
    idea: &Value,
    file: &std::path::Path,
) -> Result<Value, StepError> {
    // What its steps may read and open (see `atlas::reach`): the root's origin is the atlas's.
    let home = atlas.home_origin(node)?;
    let reached = |steps: &Value, from: &str| atlas.reach.admits(steps, home.as_deref(), from);
    let Some(agent) = agent else {
        let flow = saved_test(atlas, file)?;
        reached(&flow, &file.display().to_string())
            .map_err(|m| StepError::new(ErrorKind::CommandFailed, m))?;
        return Ok(flow);
    };
    // Saved with the atlas's recorded origin, as `atlas export` writes a path: `pointed` takes
    // it to the server of each run.
    let reach = export_flow(atlas, node, None)?;
    // As a replay reads the node: masked with the atlas's secrets (one stored before the atlas
    // named a secret holds it).
    let masker = super::secrets::atlas_masker(atlas)?;
    let snapshot = masker.mask(&atlas.snapshot(node)?.unwrap_or_default());
    // The agent's steps are text (its `{{` stays `{{`), and act on the page only: an answer
    // that does more is refused, so the agent is asked again, and it is not cached.
    let page_steps = |answer: &mut Value| {
        if let Some(steps) = answer.get_mut("steps") {
            literal_value(steps);
        }
        let steps = answer["steps"].as_array().map_or(&[][..], Vec::as_slice);
        admit_steps(steps, "its steps")?;
        reached(&answer["steps"], "its steps")
    };
    let call = SkillCall {
        skill: Skill::TestGeneration,
        input: json!({ "idea": idea, "flow": reach, "snapshot": snapshot }),
        key: json!({ "node": node, "idea": idea }),
        profile: agent.profile.as_deref(),
        variant: None,
        use_cache: true,
        normalize: &page_steps,
        fit_item: &keep_item,
    };
    let answer = call_skill(&call, &agent.env).await?;
    let steps = answer.value["steps"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let from = match &answer.cached {
        Some(entry) => format!("the cached `test_generation` answer {}", entry.display()),
        None => format!(
            "agent `{}`'s `test_generation` answer",
            agent.profile.as_deref().unwrap_or_default()
        ),
    };
    admit_steps(&steps, &from)
        .and_then(|()| reached(&Value::from(steps.clone()), &from))
        .map_err(|m| StepError::new(ErrorKind::Skill, m))?;
    let mut flow = reach;
    // A flow's name takes no template: the idea's (the agent's words) loses its pairs.
    flow["name"] = json!(unbraced(idea["name"].as_str().unwrap_or("test")));
    flow["steps"]
        .as_array_mut()
        .expect("an exported flow has steps")
        .extend(steps);
    // With the path they run after in one page: no secret given to code (`Reach::admit_all`).
    reached(&flow, &from).map_err(|m| StepError::new(ErrorKind::Skill, m))?;
    // What the agent wrote runs only if runner would run it as a file.
    driver.check(&flow).map_err(|e| {
        StepError::new(
            ErrorKind::Skill,
            format!("the agent's test is not a valid flow: {}", e.message),
        )
    })?;
    let text = serde_json::to_string_pretty(&flow).unwrap_or_default() + "\n";
    atlas.write_file(file, text.as_bytes())?;
    Ok(flow)
}

/// The test an earlier run saved as `file`, if runner runs it.
fn saved_test(atlas: &Atlas, file: &std::path::Path) -> Result<Value, StepError> {
    let text = atlas.read_text(file)?.ok_or_else(|| {
        StepError::new(
            ErrorKind::Skill,
            format!(
                "no test written for this idea yet ({} is missing): give `atlas test` an agent (--agent PROFILE) to write it",
                file.display()
            ),
        )
    })?;
    let flow: Value = serde_json::from_str(&text).map_err(|e| {
        StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "{} is not the JSON `atlas test` writes: {e}",
                file.display()
            ),
        )
    })?;
    admit_flow(&flow, &file.display().to_string())
        .map_err(|m| StepError::new(ErrorKind::CommandFailed, m))?;
    Ok(flow)
}

/// A test's flow pointed at `base_url`: the atlas's recorded origin replaced (see `mount`), as
/// `export_flow` points a path (a saved test holds the recorded origin, and the app may now be
/// served elsewhere: a `port: auto` server is on another port each run).
fn pointed(
    flow: Value,
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
) -> Result<Value, AtlasError> {
    let Some(base) = base_url else {
        return Ok(flow);
    };
    let root = &atlas.path_to_node(node)?[0].node_id;
    let root_url = atlas.meta(root)?.url;
    if origin(&root_url).is_none() {
        return Ok(flow);
    }
    super::mount::Mount::of(atlas, &root_url, base)?.rebase(&flow, node)
}

#[cfg(test)]
mod tests {
    #[test]
    fn script_names_are_file_names() {
        assert_eq!(
            super::script_name("Cart offers a discount!"),
            "cart_offers_a_discount"
        );
        assert_eq!(super::script_name("../../etc/passwd"), "etc_passwd");
        assert_eq!(super::script_name("   "), "test");
        assert_eq!(super::script_name("ログイン できる"), "ログイン_できる");
    }
}
