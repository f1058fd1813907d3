//! The docs are tests, so they cannot drift from what runner does. Every fenced `yaml` flow in
//! README.md and docs/*.md validates; the ones that need no browser, web server or agent run and
//! pass; the ones serving `./site` run against a real site (README's against the demo's
//! `workflows/site`, the others against `tests/fixtures/site`). A block whose first line is
//! `# file: PATH` is written to that path first (a sub-flow the examples of its page use).
//! docs/steps.md lists exactly the actions, selector keys and `expect` checks of the flow
//! schema, docs/flows.md its top-level keys, and every test the docs name exists.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::{Ran, flow_run, output, root, runner};

/// README.md, then docs/*.md in name order.
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 5, "docs/ has {} pages", docs.len());
    let mut all = vec![root().join("README.md")];
    all.extend(docs);
    all
}

/// `docs/steps.md` for a page's path (for messages).
fn label(page: &Path) -> String {
    page.strip_prefix(root()).unwrap().display().to_string()
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()))
}

/// The fenced blocks of `text` in `lang`.
fn blocks(text: &str, lang: &str) -> Vec<String> {
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

/// The path a `# file: PATH` block is written to, if it is one.
fn file_block(block: &str) -> Option<&str> {
    block
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# file: "))
        .map(str::trim)
}

fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from)
        .into_iter()
        .filter_map(Result::ok)
    {
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[test]
fn doc_examples_validate_and_the_self_contained_ones_run() {
    let (mut flows_seen, mut runs_seen) = (0, 0);
    for page in pages() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("site")).unwrap();
        std::fs::write(d.path().join("site/index.html"), "<h1>site</h1>").unwrap();
        let mut flows = Vec::new();
        let mut runnable = Vec::new();
        for (i, block) in blocks(&read(&page), "yaml").iter().enumerate() {
            if let Some(path) = file_block(block) {
                let p = d.path().join(path);
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(p, block).unwrap();
                continue;
            }
            let is_flow = block.lines().any(|l| l.starts_with("name:"))
                && block.lines().any(|l| l.starts_with("steps:"))
                || block.lines().any(|l| l.starts_with("flows:"));
            assert!(
                is_flow,
                "{} yaml block {i} is not a whole flow:\n{block}",
                label(&page)
            );
            let name = format!("doc-{i}.yaml");
            std::fs::write(d.path().join(&name), block).unwrap();
            let needs_more = ["web_server:", "agent:", "open:"]
                .iter()
                .any(|k| block.contains(k));
            if !needs_more {
                runnable.push(name.clone());
            }
            flows.push(name);
        }
        if flows.is_empty() {
            continue;
        }
        let mut c = runner(d.path());
        c.arg("validate").args(&flows);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 0, "{}'s flows must validate:\n{stderr}", label(&page));
        for f in &runnable {
            let Ran { code, stderr, .. } = flow_run(d.path())
                .env("DEPLOY_TOKEN", "readme-token")
                .arg(f)
                .run();
            assert_eq!(code, 0, "{}'s {f} must run:\n{stderr}", label(&page));
            assert!(!stderr.contains("readme-token"), "the secret is masked");
        }
        flows_seen += flows.len();
        runs_seen += runnable.len();
    }
    assert!(flows_seen >= 10, "the docs have {flows_seen} flows");
    assert!(runs_seen >= 2, "the docs have {runs_seen} runnable flows");
}

/// The project file example of docs/flows.md is a project file runner takes: it validates, and
/// a run under it uses its vars, jobs and reports.
#[test]
fn project_file_example_is_taken() {
    let toml = blocks(&read(&root().join("docs/flows.md")), "toml");
    let example = toml
        .iter()
        .find(|b| b.contains("flows = "))
        .expect("docs/flows.md shows a runner.toml");
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

/// The browser examples that serve `./site` (or `../site` from a `# file:` block) pass, each in
/// a run of its own: README's first flow against the demo site it says it serves, the others
/// against the fixture site. The reference card, whose first line says so, is only validated.
#[test]
fn doc_browser_examples_run_against_the_fixture_site() {
    let mut ran = Vec::new();
    for page in pages() {
        let site = if page.ends_with("README.md") {
            root().join("workflows/site")
        } else {
            root().join("tests/fixtures/site")
        };
        let d = tempfile::tempdir().unwrap();
        copy_dir(&site, &d.path().join("site"));
        let mut flows = Vec::new();
        for (i, block) in blocks(&read(&page), "yaml").iter().enumerate() {
            let first = block.lines().next().unwrap_or("");
            let serves_site = block.contains("web_server: { static: ./site }")
                || block.contains("web_server: { static: ../site }");
            if first.starts_with("# reference") || !serves_site {
                continue;
            }
            let path = match file_block(block) {
                Some(p) => d.path().join(p),
                None => d.path().join(format!("doc-browser-{i}.yaml")),
            };
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, block).unwrap();
            flows.push(path);
        }
        for f in flows {
            let Ran { code, stderr, .. } = flow_run(d.path()).arg(&f).run();
            assert_eq!(code, 0, "{}: {}\n{stderr}", label(&page), f.display());
            ran.push(format!("{}: {}", label(&page), f.display()));
        }
    }
    assert!(
        ran.iter().any(|r| r.starts_with("README.md")),
        "README's first flow ran: {ran:?}"
    );
    assert!(
        ran.len() >= 6,
        "only {} browser examples ran: {ran:?}",
        ran.len()
    );
}

/// The first cells (backticks removed) of the rows of the table whose header line starts with
/// `header` in `text`.
fn table_keys(text: &str, header: &str) -> BTreeSet<String> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with(header));
    assert!(lines.next().is_some(), "no table `{header}`");
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .trim()
                .trim_matches('`')
                .to_string()
        })
        .collect()
}

fn keys(v: &serde_json::Value) -> BTreeSet<String> {
    v.as_object()
        .expect("an object of properties")
        .keys()
        .cloned()
        .collect()
}

/// docs/steps.md's tables of actions, common keys, selector keys and `expect` checks, and
/// docs/flows.md's table of a flow's keys, list exactly the keys of `schemas/flow.schema.json`:
/// a key added to the schema must be documented, and a documented key must exist.
#[test]
fn the_step_reference_matches_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&read(&root().join("schemas/flow.schema.json"))).unwrap();
    let step = &schema["$defs"]["step"];
    let actions: BTreeSet<String> = step["oneOf"]
        .as_array()
        .expect("a step is one of its actions")
        .iter()
        .map(|one| one["required"][0].as_str().unwrap().to_string())
        .collect();
    assert!(actions.len() >= 30, "{actions:?}");
    let common: BTreeSet<String> = keys(&step["properties"])
        .difference(&actions)
        .cloned()
        .collect();
    let selector = keys(&schema["$defs"]["selector_object"]["properties"]);
    let checks = keys(&step["properties"]["expect"]["properties"]);
    let mut flow = keys(&schema["properties"]);
    flow.remove("$schema");

    let steps = read(&root().join("docs/steps.md"));
    let flows = read(&root().join("docs/flows.md"));
    for (what, documented, schema) in [
        ("action", table_keys(&steps, "| action |"), &actions),
        ("common key", table_keys(&steps, "| common key |"), &common),
        (
            "selector key",
            table_keys(&steps, "| key | what it matches |"),
            &selector,
        ),
        ("expect check", table_keys(&steps, "| check |"), &checks),
        (
            "flow key",
            table_keys(&flows, "| key | what it is |"),
            &flow,
        ),
    ] {
        let missing: Vec<_> = schema.difference(&documented).collect();
        let unknown: Vec<_> = documented.difference(schema).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "{what}s: in the schema but not documented: {missing:?}; documented but not in the \
             schema: {unknown:?}"
        );
    }
}

/// The reference card of docs/steps.md shows every browser-family action of its table.
#[test]
fn the_reference_card_shows_every_browser_step() {
    let steps = read(&root().join("docs/steps.md"));
    let card = blocks(&steps, "yaml")
        .into_iter()
        .find(|b| b.starts_with("# reference card"))
        .expect("docs/steps.md has a reference card");
    let browser_actions = steps
        .lines()
        .skip_while(|l| !l.starts_with("| action |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[2] == "browser").then(|| cells[1].trim_matches('`').to_string())
        })
        .collect::<Vec<_>>();
    assert!(browser_actions.len() >= 20, "{browser_actions:?}");
    let missing: Vec<_> = browser_actions
        .iter()
        .filter(|a| {
            !card.lines().any(|l| {
                let key = l.trim_start();
                key.strip_prefix("- ")
                    .unwrap_or(key)
                    .starts_with(&format!("{a}:"))
            })
        })
        .collect();
    assert!(missing.is_empty(), "not on the reference card: {missing:?}");
}

/// Every test the README and the docs name (`module::test_name`) exists, so a guarantee never
/// points at a test that was renamed or removed.
#[test]
fn every_test_the_docs_name_exists() {
    let modules: BTreeSet<String> = std::fs::read_dir(root().join("tests"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "rs").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut named = 0;
    for page in pages() {
        let text = read(&page);
        for (at, _) in text.match_indices("::") {
            let before = &text[..at];
            let module = &before[before.trim_end_matches(ident).len()..];
            let after = &text[at + 2..];
            let test = &after[..after.len() - after.trim_start_matches(ident).len()];
            let path_goes_on = before[..before.len() - module.len()].ends_with(':');
            let is_test_name = !test.is_empty()
                && test
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if path_goes_on || !modules.contains(module) || !is_test_name {
                continue;
            }
            let source = read(&root().join("tests").join(format!("{module}.rs")));
            assert!(
                source.contains(&format!("fn {test}(")),
                "{} names `{module}::{test}`, which tests/{module}.rs does not have",
                label(&page)
            );
            named += 1;
        }
    }
    assert!(named >= 10, "the docs name {named} tests");
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every relative link of the README and the docs leads to a file that exists and, with a
/// `#fragment`, to one of its headings.
#[test]
fn every_link_between_the_docs_leads_somewhere() {
    let mut links = 0;
    for page in pages() {
        let text = read(&page);
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let target = &rest[..rest.find(')').unwrap_or(0)];
            if target.is_empty() || target.contains("://") {
                continue;
            }
            let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
            let dest = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            assert!(
                dest.exists(),
                "{} links to {target}, which is not there",
                label(&page)
            );
            if !fragment.is_empty() {
                let headings: Vec<String> = read(&dest)
                    .lines()
                    .filter(|l| l.starts_with('#') && l.contains("# "))
                    .map(|l| anchor(l.trim_start_matches('#')))
                    .collect();
                assert!(
                    headings.iter().any(|h| h == fragment),
                    "{} links to {target}: no such heading in {}",
                    label(&page),
                    label(&dest)
                );
            }
            links += 1;
        }
    }
    assert!(links >= 20, "the docs have {links} links");
}
