//! README's examples are tests: every fenced `yaml` flow in README.md validates, and the ones
//! that need no browser, web server or agent run and pass. A block whose first line is
//! `# file: PATH` is written to that path first (a sub-flow the examples use).

use crate::common::{Ran, flow_run, output, root, runner};

/// The fenced `yaml` blocks of README.md.
fn yaml_blocks() -> Vec<String> {
    blocks("yaml")
}

/// The fenced blocks of README.md in `lang`.
fn blocks(lang: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let fence = format!("```{lang}");
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for line in text.lines() {
        match &mut block {
            None if line.trim_start() == fence => block = Some(String::new()),
            Some(b) if line.trim_start() == "```" => {
                out.push(std::mem::take(b));
                block = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    out
}

#[test]
fn readme_examples_validate_and_the_self_contained_ones_run() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    std::fs::write(d.path().join("site/index.html"), "<h1>site</h1>").unwrap();
    let mut flows = Vec::new();
    let mut runnable = Vec::new();
    for (i, block) in yaml_blocks().iter().enumerate() {
        if let Some(path) = block
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# file: "))
        {
            let p = d.path().join(path.trim());
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, block).unwrap();
            continue;
        }
        let is_flow = block.lines().any(|l| l.starts_with("name:"))
            && block.lines().any(|l| l.starts_with("steps:"));
        assert!(
            is_flow,
            "README yaml block {i} is not a whole flow:\n{block}"
        );
        let name = format!("readme-{i}.yaml");
        std::fs::write(d.path().join(&name), block).unwrap();
        let needs_more = ["web_server:", "agent:", "open:"]
            .iter()
            .any(|k| block.contains(k));
        if !needs_more {
            runnable.push(name.clone());
        }
        flows.push(name);
    }
    assert!(flows.len() >= 5, "README has {} flows", flows.len());
    assert!(
        runnable.len() >= 2,
        "README has {} runnable flows",
        runnable.len()
    );
    let mut c = runner(d.path());
    c.arg("validate").args(&flows);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "README's flows must validate:\n{stderr}");
    for f in runnable {
        let Ran { code, stderr, .. } = flow_run(d.path())
            .env("DEPLOY_TOKEN", "readme-token")
            .arg(&f)
            .run();
        assert_eq!(code, 0, "README's {f} must run:\n{stderr}");
        assert!(!stderr.contains("readme-token"), "the secret is masked");
    }
}

/// README's project file example is a project file runner takes: it validates, and a run under
/// it uses its vars, jobs and reports.
#[test]
fn readme_project_file_example_is_taken() {
    let toml = blocks("toml");
    let example = toml
        .iter()
        .find(|b| b.contains("flows = "))
        .expect("README shows a runner.toml");
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("runner.toml"), example).unwrap();
    std::fs::create_dir_all(d.path().join("flows")).unwrap();
    std::fs::create_dir_all(d.path().join("agents")).unwrap();
    std::fs::write(
        d.path().join("flows/base.yaml"),
        "name: base url\nsteps:\n  - exec: \"echo {{ vars.base_url }}\"\n",
    )
    .unwrap();
    let mut c = runner(d.path());
    c.arg("validate");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    let mut c = runner(d.path());
    c.arg("run");
    let (code, _, stderr) = output(c);
    assert_eq!(code, 0, "{stderr}");
    let junit = std::fs::read_to_string(d.path().join("reports/junit.xml")).unwrap();
    assert!(junit.contains("base url"), "{junit}");
}

/// README's browser examples that serve `./site` run against the fixture site (the reference
/// card, whose first line says so, is only validated): each passes.
#[test]
fn readme_browser_examples_run_against_the_fixture_site() {
    let d = tempfile::tempdir().unwrap();
    let site = root().join("tests/fixtures/site");
    for e in walkdir::WalkDir::new(&site)
        .into_iter()
        .filter_map(Result::ok)
    {
        let to = d
            .path()
            .join("site")
            .join(e.path().strip_prefix(&site).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
    let mut ran = Vec::new();
    for (i, block) in yaml_blocks().iter().enumerate() {
        let first = block.lines().next().unwrap_or("");
        if first.starts_with("# reference") || !block.contains("web_server: { static: ") {
            continue;
        }
        let path = match first.strip_prefix("# file: ") {
            Some(p) => d.path().join(p.trim()),
            None => d.path().join(format!("readme-browser-{i}.yaml")),
        };
        if !(block.contains("static: ./site") || block.contains("static: ../site")) {
            continue;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, block).unwrap();
        let Ran { code, stderr, .. } = flow_run(d.path()).arg(&path).run();
        assert_eq!(code, 0, "README's {}:\n{block}\n{stderr}", path.display());
        ran.push(path);
    }
    assert!(
        ran.len() >= 4,
        "only {} README browser examples ran",
        ran.len()
    );
}
