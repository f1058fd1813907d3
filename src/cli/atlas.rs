//! `runner atlas show|path|graph|export|replay|verify`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::args::{AtlasCommand, ExportFormat, GraphFormat};
use super::exit;
use crate::atlas::fingerprint::without_origin;
use crate::atlas::store::{Atlas, AtlasError};
use crate::report::Reporter;

/// Runs an atlas subcommand; returns the exit code.
pub fn run(cmd: &AtlasCommand, dir: &Path, reporter: &Reporter) -> i32 {
    if !dir.join("nodes").is_dir() {
        reporter.error(&format!(
            "no atlas at {} (record one with `link_state` steps, or pass --atlas DIR)",
            dir.display()
        ));
        return exit::INVALID_INPUT;
    }
    let atlas = Atlas {
        root: dir.to_path_buf(),
    };
    let r = match cmd {
        AtlasCommand::Show => show(&atlas).map(|t| (t, exit::SUCCESS)),
        AtlasCommand::Path { node } => path(&atlas, node).map(|t| (t, exit::SUCCESS)),
        AtlasCommand::Graph { format } => graph(&atlas, *format).map(|t| (t, exit::SUCCESS)),
        AtlasCommand::Export {
            node,
            format,
            base_url,
        } => export(&atlas, node, *format, base_url.as_deref()).map(|t| (t, exit::SUCCESS)),
        AtlasCommand::Replay { node, base_url } => {
            replay(&atlas, node, base_url.as_deref(), reporter)
        }
        AtlasCommand::Verify { base_url, report } => {
            verify(&atlas, base_url.as_deref(), report, reporter)
        }
    };
    match r {
        Ok((text, code)) => {
            reporter.out(&text);
            code
        }
        Err(AtlasError::NotFound(n)) => {
            reporter.error(&format!("no node `{n}` in the atlas at {}", dir.display()));
            exit::INVALID_INPUT
        }
        Err(e) => {
            reporter.error(&e.to_string());
            exit::INVALID_INPUT
        }
    }
}

fn label(atlas: &Atlas, id: &str) -> String {
    let m = atlas.meta(id).unwrap_or(Value::Null);
    let title = m.get("title").and_then(Value::as_str).unwrap_or("");
    let url = m.get("url").and_then(Value::as_str).unwrap_or("");
    let path = url
        .split_once("://")
        .and_then(|(_, r)| r.find('/').map(|i| &r[i..]))
        .unwrap_or("/");
    format!("{title} {path}").trim().to_string()
}

fn show(atlas: &Atlas) -> Result<String, AtlasError> {
    let ids = atlas.node_ids()?;
    let roots = atlas.roots()?;
    let mut reachable = std::collections::HashSet::new();
    let mut s = format!(
        "atlas {}: {} node(s)\n\nnodes:\n",
        atlas.root.display(),
        ids.len()
    );
    for id in &ids {
        s.push_str(&format!("  {id}  {}\n", label(atlas, id)));
    }
    s.push_str("\nedges:\n");
    for id in &ids {
        for (action, to, _) in atlas.links(id)? {
            s.push_str(&format!("  {id} --[{action}]--> {to}\n"));
        }
    }
    for r in &roots {
        let mut stack = vec![r.clone()];
        while let Some(n) = stack.pop() {
            if reachable.insert(n.clone()) {
                stack.extend(atlas.links(&n)?.into_iter().map(|(_, t, _)| t));
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

fn path(atlas: &Atlas, node: &str) -> Result<String, AtlasError> {
    let steps = atlas.path_to_node(node)?;
    let mut s = String::new();
    for p in steps {
        match p.action {
            Some(a) => s.push_str(&format!(
                "{}  {}\n  --[{a}]-->\n",
                p.node_id,
                label(atlas, &p.node_id)
            )),
            None => s.push_str(&format!("{}  {}\n", p.node_id, label(atlas, &p.node_id))),
        }
    }
    Ok(s)
}

fn graph(atlas: &Atlas, format: GraphFormat) -> Result<String, AtlasError> {
    let ids = atlas.node_ids()?;
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut s = String::new();
    match format {
        GraphFormat::Dot => {
            s.push_str("digraph atlas {\n  rankdir=LR;\n");
            for id in &ids {
                s.push_str(&format!(
                    "  \"{id}\" [label=\"{}\"];\n",
                    esc(&label(atlas, id))
                ));
            }
            for id in &ids {
                for (action, to, _) in atlas.links(id)? {
                    s.push_str(&format!(
                        "  \"{id}\" -> \"{to}\" [label=\"{}\"];\n",
                        esc(&action)
                    ));
                }
            }
            s.push_str("}\n");
        }
        GraphFormat::Mermaid => {
            s.push_str("flowchart LR\n");
            let m = |t: &str| t.replace('"', "#quot;");
            for id in &ids {
                s.push_str(&format!("  n{id}[\"{}\"]\n", m(&label(atlas, id))));
            }
            for id in &ids {
                for (action, to, _) in atlas.links(id)? {
                    s.push_str(&format!("  n{id} -->|\"{}\"| n{to}\n", m(&action)));
                }
            }
        }
    }
    Ok(s)
}

/// `http://host:port` of a URL.
fn origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split('/').next()?;
    Some(format!("{scheme}://{host}"))
}

/// The flow that reaches `node`, optionally pointed at another origin.
fn export_flow(atlas: &Atlas, node: &str, base_url: Option<&str>) -> Result<Value, AtlasError> {
    let steps = atlas.steps_to(node)?;
    let root = &atlas.path_to_node(node)?[0].node_id;
    let mut text = serde_json::to_string(&json!({
        "name": format!("reach {} ({node})", label(atlas, node)),
        "steps": steps,
    }))
    .unwrap_or_default();
    if let (Some(base), Some(recorded)) = (
        base_url,
        atlas
            .meta(root)?
            .get("url")
            .and_then(Value::as_str)
            .and_then(origin),
    ) {
        text = text.replace(&recorded, base.trim_end_matches('/'));
    }
    let mut flow: Value = serde_json::from_str(&text).map_err(|e| AtlasError::Broken {
        path: node.into(),
        message: e.to_string(),
    })?;
    // Recorded steps keep secrets as references: the flow declares them.
    let re = regex::Regex::new(r"\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
        .expect("a valid pattern");
    let mut secrets: Vec<String> = re.captures_iter(&text).map(|c| c[1].to_string()).collect();
    secrets.sort();
    secrets.dedup();
    if !secrets.is_empty() {
        flow["secrets"] = json!(secrets);
    }
    Ok(flow)
}

fn export(
    atlas: &Atlas,
    node: &str,
    format: ExportFormat,
    base_url: Option<&str>,
) -> Result<String, AtlasError> {
    let flow = export_flow(atlas, node, base_url)?;
    Ok(match format {
        ExportFormat::Flow => serde_json::to_string_pretty(&flow).unwrap_or_default() + "\n",
        ExportFormat::PlaywrightPython => playwright(&flow, node),
    })
}

fn py(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn locator(sel: &Value) -> String {
    let sel = match sel {
        Value::Array(a) => a.first().cloned().unwrap_or(Value::Null),
        other => other.clone(),
    };
    match &sel {
        Value::String(s) => format!("page.locator({})", py(s)),
        Value::Object(o) => {
            let g = |k: &str| o.get(k).and_then(Value::as_str);
            if let Some(c) = g("css") {
                format!("page.locator({})", py(c))
            } else if let Some(r) = g("role") {
                match g("text") {
                    Some(t) => format!("page.get_by_role({}, name={})", py(r), py(t)),
                    None => format!("page.get_by_role({})", py(r)),
                }
            } else if let Some(t) = g("text") {
                format!("page.get_by_text({})", py(t))
            } else {
                "page.locator(\"body\")".into()
            }
        }
        _ => "page.locator(\"body\")".into(),
    }
}

fn playwright(flow: &Value, node: &str) -> String {
    let mut s = format!(
        "\"\"\"Replays the path to atlas node {node}.\n\nGenerated by `runner atlas export {node} --format playwright-python`.\nRun: pip install playwright && python this_file.py\n\"\"\"\nfrom playwright.sync_api import sync_playwright\n\n\ndef main():\n    with sync_playwright() as p:\n        browser = p.chromium.launch()\n        page = browser.new_page()\n"
    );
    for step in flow
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let Some(obj) = step.as_object() else {
            continue;
        };
        for (k, v) in obj {
            let line = match k.as_str() {
                "open" => format!("page.goto({})", py(v.as_str().unwrap_or(""))),
                "click" => format!("{}.click()", locator(v)),
                "dblclick" => format!("{}.dblclick()", locator(v)),
                "hover" => format!("{}.hover()", locator(v)),
                "check" => format!("{}.check()", locator(v)),
                "uncheck" => format!("{}.uncheck()", locator(v)),
                "fill" | "type" => format!(
                    "{}.fill({})",
                    locator(&v["target"]),
                    py(&v["value"]
                        .as_str()
                        .map_or_else(|| v["value"].to_string(), str::to_string))
                ),
                "press" => format!("page.keyboard.press({})", py(v.as_str().unwrap_or(""))),
                "select" => format!("{}.select_option({})", locator(&v["target"]), v["value"]),
                "wait" => "page.wait_for_load_state()".into(),
                "name" => continue,
                other => format!("# `{other}` has no Playwright equivalent here"),
            };
            s.push_str(&format!("        {line}\n"));
        }
    }
    s.push_str("        browser.close()\n\n\nif __name__ == \"__main__\":\n    main()\n");
    s
}

/// Replays the path to `node` in a browser and checks the state it arrives at.
fn replay_one(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
) -> Result<(bool, String), AtlasError> {
    let mut flow = export_flow(atlas, node, base_url)?;
    let tmp = std::env::temp_dir().join(format!("runner-replay-{}-{node}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| AtlasError::Io {
        path: tmp.display().to_string(),
        message: e.to_string(),
    })?;
    // The arrival is fingerprinted by recording it into a scratch atlas.
    if let Some(steps) = flow.get_mut("steps").and_then(Value::as_array_mut) {
        steps.push(json!({ "id": "arrived", "link_state": { "action": "replay", "atlas": tmp.join("scratch").display().to_string() } }));
    }
    let file = tmp.join("replay.yaml");
    std::fs::write(
        &file,
        serde_json::to_string_pretty(&flow).unwrap_or_default(),
    )
    .map_err(|e| AtlasError::Io {
        path: file.display().to_string(),
        message: e.to_string(),
    })?;
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("runner"));
    let out = std::process::Command::new(exe)
        .arg("run")
        .arg(&file)
        .arg("--report")
        .arg(format!("json={}", tmp.join("report.json").display()))
        .arg("--artifacts")
        .arg(tmp.join("artifacts"))
        .env("CI", "true")
        .output()
        .map_err(|e| AtlasError::Io {
            path: "runner".into(),
            message: e.to_string(),
        })?;
    let report: Value = std::fs::read_to_string(tmp.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let steps = report
        .pointer("/flows/0/steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let arrived = steps
        .iter()
        .find(|s| s["id"] == "arrived")
        .and_then(|s| s.pointer("/outputs/node_id"))
        .and_then(Value::as_str);
    // Compare fingerprints without their origins: the replay may run against another server.
    let fp_of = |a: &Atlas, id: &str| {
        a.meta(id).ok().and_then(|m| {
            m.get("fingerprint")
                .and_then(Value::as_str)
                .map(without_origin)
        })
    };
    let scratch = Atlas {
        root: tmp.join("scratch"),
    };
    let same = arrived.is_some_and(|id| {
        fp_of(&scratch, id).is_some() && fp_of(&scratch, id) == fp_of(atlas, node)
    });
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(match arrived {
        Some(_) if same => (true, format!("arrived at {node}")),
        Some(id) => (
            false,
            format!("arrived at {id}, not {node} (the page changed)"),
        ),
        None => {
            let failed = steps.iter().find(|s| s["conclusion"] == "failed");
            let why = failed.map_or_else(
                || {
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("replay failed")
                        .to_string()
                },
                |s| {
                    format!(
                        "step `{}` failed: {}",
                        s["name"].as_str().unwrap_or("?"),
                        s.pointer("/error/message")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                    )
                },
            );
            (false, why)
        }
    })
}

fn replay(
    atlas: &Atlas,
    node: &str,
    base_url: Option<&str>,
    reporter: &Reporter,
) -> Result<(String, i32), AtlasError> {
    let (ok, msg) = replay_one(atlas, node, base_url)?;
    if !ok {
        reporter.error(&msg);
    }
    Ok((
        format!("{} {node}: {msg}\n", if ok { "ok" } else { "FAIL" }),
        if ok { exit::SUCCESS } else { exit::FLOW_FAILED },
    ))
}

fn verify(
    atlas: &Atlas,
    base_url: Option<&str>,
    reports: &[String],
    reporter: &Reporter,
) -> Result<(String, i32), AtlasError> {
    let mut s = String::new();
    let mut results = Vec::new();
    for id in atlas.node_ids()? {
        let started = std::time::Instant::now();
        let (ok, msg) = replay_one(atlas, &id, base_url)?;
        s.push_str(&format!(
            "{} {id} {}: {msg}\n",
            if ok { "ok  " } else { "FAIL" },
            label(atlas, &id)
        ));
        results.push((id, ok, msg, started.elapsed()));
    }
    let failed = results.iter().filter(|r| !r.1).count();
    s.push_str(&format!(
        "\nnodes: {} verified, {failed} no longer arrive\n",
        results.len() - failed
    ));
    for r in reports {
        let written = match r.split_once('=') {
            Some(("junit", p)) => {
                let mut suite = quick_junit::TestSuite::new("atlas verify");
                for (id, ok, msg, d) in &results {
                    let status = if *ok {
                        quick_junit::TestCaseStatus::success()
                    } else {
                        let mut st = quick_junit::TestCaseStatus::non_success(quick_junit::NonSuccessKind::Failure);
                        st.set_message(msg.clone());
                        st
                    };
                    let mut tc = quick_junit::TestCase::new(format!("{id} {}", label(atlas, id)), status);
                    tc.set_time(*d);
                    suite.add_test_case(tc);
                }
                let mut rep = quick_junit::Report::new("runner atlas verify");
                rep.add_test_suite(suite);
                std::fs::write(p, rep.to_string().unwrap_or_default())
            }
            Some(("json", p)) => std::fs::write(
                p,
                serde_json::to_string_pretty(&json!({
                    "nodes": results.iter().map(|(id, ok, msg, d)| json!({"node_id": id, "arrived": ok, "message": msg, "duration_ms": d.as_millis() as u64})).collect::<Vec<_>>(),
                    "summary": {"verified": results.len() - failed, "failed": failed},
                }))
                .unwrap_or_default(),
            ),
            _ => {
                reporter.error(&format!("invalid --report `{r}`: expected junit=PATH or json=PATH"));
                return Ok((s, exit::INVALID_INPUT));
            }
        };
        if let Err(e) = written {
            reporter.error(&format!("cannot write {r}: {e}"));
        }
    }
    Ok((
        s,
        if failed == 0 {
            exit::SUCCESS
        } else {
            exit::FLOW_FAILED
        },
    ))
}

/// `runner explore URL`.
pub fn explore(
    url: &str,
    max_depth: usize,
    max_nodes: usize,
    allow_destructive: bool,
    dir: &Path,
    reporter: &Reporter,
) -> i32 {
    let rt = match super::runtime(reporter) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let host = crate::browser::host::BrowserHost::new(false);
    let adapter = match host.adapter() {
        Ok(a) => a,
        Err(e) => {
            reporter.error(&e.message);
            return exit::ENVIRONMENT;
        }
    };
    let run_id = format!("explore-{}", std::process::id());
    let opts = crate::atlas::explore::Options {
        url: url.to_string(),
        max_depth,
        max_nodes,
        allow_destructive,
        atlas: crate::config::flows::absolute(dir),
        artifacts: std::env::temp_dir().join(&run_id),
        run_id,
    };
    let status = crate::report::Status::new(*reporter);
    let result = rt.block_on(async {
        let r = crate::atlas::explore::explore(adapter, &opts, &|line| status.update(line)).await;
        host.wait_closed().await;
        r
    });
    status.finish();
    let _ = std::fs::remove_dir_all(&opts.artifacts);
    match result {
        Ok(summary) => {
            reporter.out(&(serde_json::to_string_pretty(&summary).unwrap_or_default() + "\n"));
            exit::SUCCESS
        }
        Err(e) => {
            reporter.error(&e.message);
            if e.kind == crate::engine::ErrorKind::Environment {
                exit::ENVIRONMENT
            } else {
                exit::FLOW_FAILED
            }
        }
    }
}
