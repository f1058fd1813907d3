//! runner on a real Python web app: Datasette 0.65.5 (`scripts/setup` installs it into
//! `target/pyenv` from the wheels in `tests/fixtures/vendor/wheels`), serving
//! `tests/fixtures/datasette/books.db` as the run's one server (`[[web_server]]` in
//! `tests/fixtures/datasette/runner.toml`, `port = "auto"`). The flows in `flows/` must pass under
//! `--jobs 2`; those in `failing/` must fail, each with its own message at its own line.

use std::path::{Path, PathBuf};

use crate::common::{fixture, output, root, runner};

/// The venv's `datasette`; a missing one fails the test (never a silent skip).
fn installed() {
    let bin = root().join("target/pyenv/bin/datasette");
    assert!(
        bin.is_file(),
        "Datasette is not installed at {}: run scripts/setup (it installs datasette 0.65.5 into \
         target/pyenv from tests/fixtures/vendor/wheels)",
        bin.display()
    );
}

/// What one run of the suite left: its exit code, JSON report and artifacts folder.
struct Suite {
    code: i32,
    report: serde_json::Value,
    art: PathBuf,
}

/// `runner run <paths> --jobs 2 <extra>` in `tests/fixtures/datasette` (where runner.toml is),
/// its report and artifacts in `out`.
fn run_suite(out: &Path, paths: &[&str], extra: &[&str]) -> Suite {
    installed();
    let report = out.join("report.json");
    let art = out.join("art");
    let mut c = runner(&fixture("datasette"));
    c.arg("run")
        .args(paths)
        .args(["--jobs", "2"])
        .args(extra)
        .arg("--report")
        .arg(format!("json={}", report.display()))
        .arg("--artifacts")
        .arg(&art);
    let (code, _, stderr) = output(c);
    assert!(!stderr.contains("panicked"), "runner panicked:\n{stderr}");
    let text = std::fs::read_to_string(&report).expect("the run wrote its JSON report");
    Suite {
        code,
        report: serde_json::from_str(&text).expect("the JSON report parses"),
        art,
    }
}

/// The flows of the report whose file ends with `file` (one per `--repeat-each`).
fn flows_of<'a>(report: &'a serde_json::Value, file: &str) -> Vec<&'a serde_json::Value> {
    let found: Vec<_> = report["flows"]
        .as_array()
        .expect("a list of flows")
        .iter()
        .filter(|f| f["file"].as_str().is_some_and(|p| p.ends_with(file)))
        .collect();
    assert!(!found.is_empty(), "no flow {file} in {report}");
    found
}

/// The flows that must pass, each with the number of steps it has (all must have run).
const PASSING: [(&str, usize); 6] = [
    ("flows/facets.yaml", 5),
    ("flows/sort.yaml", 6),
    ("flows/search.yaml", 5),
    ("flows/sql.yaml", 10),
    ("flows/api.yaml", 5),
    ("flows/missing.yaml", 3),
];

/// Every flow of `PASSING` passed `times` times, every step of it.
fn all_passed(report: &serde_json::Value, times: usize) {
    for (file, steps) in PASSING {
        let flows = flows_of(report, file);
        assert_eq!(flows.len(), times, "{file}: {report}");
        for f in flows {
            assert_eq!(f["status"], "passed", "{file}: {f}");
            let outcomes: Vec<_> = f["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["outcome"].as_str().unwrap_or_default())
                .collect();
            assert_eq!(outcomes, vec!["passed"; steps], "{file}: {f}");
        }
    }
}

/// The run's one server, started by runner (not reused), with its log in the artifacts: its
/// text, which says it started exactly once.
fn one_server_started_once(suite: &Suite) -> String {
    let servers = suite.report["web_servers"].as_array().expect("web_servers");
    assert_eq!(servers.len(), 1, "{}", suite.report);
    let s = &servers[0];
    assert_eq!(s["name"], "datasette", "{s}");
    assert_eq!(s["reused"], false, "CI is set: runner starts its own ({s})");
    assert!(s.get("error").is_none_or(serde_json::Value::is_null), "{s}");
    let log = suite.art.join("web_server/datasette.log");
    assert_eq!(s["log"], log.display().to_string(), "{s}");
    let text = std::fs::read_to_string(&log).expect("the server's log is in the artifacts");
    assert_eq!(text.matches("Started server process").count(), 1, "{text}");
    let url = s["url"].as_str().unwrap();
    assert_eq!(
        text.matches(&format!("Uvicorn running on {url} ")).count(),
        1,
        "{text}"
    );
    text
}

/// The failed step of the one flow of `file`: its error message and location.
fn failure(report: &serde_json::Value, file: &str) -> (String, String) {
    let flows = flows_of(report, file);
    assert_eq!(flows.len(), 1, "{file}");
    assert_eq!(flows[0]["status"], "failed", "{}", flows[0]);
    let failed: Vec<_> = flows[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["outcome"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{}", flows[0]);
    let e = &failed[0]["error"];
    assert_eq!(e["kind"], "assertion", "{e}");
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    (text(&e["message"]), text(&e["location"]))
}

/// The whole suite in one run under `--jobs 2`: the six flows against the real Datasette pass
/// (a facet chosen by `{ css, text }`, a header named with a no-break space, a GET search then a
/// check on the new page, CodeMirror typed into with `keyboard` and filled (the query replaced), the JSON API with `request`
/// checks and `fromjson`, a 404 page by `open: { url, status }`), the two wrong ones fail with
/// what they expected and what the app had, and Datasette started once for all of them.
#[test]
fn the_datasette_suite_passes_and_its_wrong_expectations_fail() {
    let d = tempfile::tempdir().unwrap();
    let suite = run_suite(d.path(), &["flows", "failing"], &[]);
    assert_eq!(suite.code, 1, "two flows fail: {}", suite.report);
    all_passed(&suite.report, 1);
    let (message, at) = failure(&suite.report, "failing/wrong-heading.yaml");
    assert_eq!(
        message, "expected text of css `h1` to equal \"authors\", got \"books\"",
        "{message}"
    );
    assert_eq!(at, "failing/wrong-heading.yaml:7:7");
    let (message, at) = failure(&suite.report, "failing/wrong-jsonpath.yaml");
    assert_eq!(
        message, "json `$[0].title`: expected \"Emma\", actual \"Moby-Dick\"",
        "{message}"
    );
    assert_eq!(at, "failing/wrong-jsonpath.yaml:9:11");
    let summary = &suite.report["summary"];
    assert_eq!(
        (&summary["passed"], &summary["failed"], &summary["errors"]),
        (&6.into(), &2.into(), &0.into()),
        "{summary}"
    );
    let log = one_server_started_once(&suite);
    // The flows reached the app's pages and API through the one server (the paths as written,
    // never `//books`), and the 404s are the ones the flows asked for.
    for line in [
        "\"GET /books/books?_facet=genre",
        "\"GET /books/books?_sort_desc=price HTTP/1.1\" 200",
        // The search form's GET is redirected (302) to its tidy URL: the check waited for it.
        "\"GET /books/books?_search=dune&_sort=id HTTP/1.1\" 200",
        "\"GET /books?sql=select+title%2C+price+from+books+where+genre+%3D+%27classic%27+order+by+price HTTP/1.1\" 200",
        "\"GET /books?sql=select+count%28*%29+as+n+from+books HTTP/1.1\" 200",
        "\"GET /books/books.json?genre=classic&_shape=array&_sort=price HTTP/1.1\" 200",
        "\"GET /books/no_such_table HTTP/1.1\" 404",
    ] {
        assert!(log.contains(line), "{line} not in the log:\n{log}");
    }
    assert!(!log.contains("\"GET //"), "{log}");
}

/// Under load, the passing flows three times each with two workers on one shared server: every
/// run of every flow passes (no flake), and Datasette still started once.
#[test]
fn the_datasette_flows_hold_under_repeat_each_with_two_workers() {
    let d = tempfile::tempdir().unwrap();
    let suite = run_suite(d.path(), &["flows"], &["--repeat-each", "3"]);
    assert_eq!(suite.code, 0, "{}", suite.report);
    all_passed(&suite.report, 3);
    assert_eq!(suite.report["summary"]["passed"], 18, "{}", suite.report);
    one_server_started_once(&suite);
}

/// States that survive data on a real data app: explore Datasette's database page, change a
/// row's title in the database, verify. The database page with its SQL formatted is the page
/// (only the SQL's text changed: before, "Format SQL" made a second `books /books`), the SQL
/// page is named apart from it by its route, and after the edit every state still arrives, its
/// drift reported.
#[test]
fn datasette_states_survive_a_data_edit_and_have_names_apart() {
    installed();
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("datasette/books.db"), d.path().join("books.db")).unwrap();
    std::fs::write(
        d.path().join("runner.toml"),
        format!(
            "[[web_server]]\nname = \"datasette\"\ncommand = [{:?}, \"serve\", \"books.db\", \"--host\", \"127.0.0.1\", \"--port\", \"{{{{ web_server.port }}}}\"]\nport = \"auto\"\nready_timeout = \"30s\"\n",
            root().join("target/pyenv/bin/datasette").display().to_string()
        ),
    )
    .unwrap();
    let atlas = |args: &[&str]| {
        let mut c = runner(d.path());
        c.args(args).args(["--atlas", "atlas"]);
        output(c)
    };
    let (code, stdout, stderr) = atlas(&["explore", "/books", "--max-depth", "1"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let (code, show, _) = atlas(&["atlas", "show"]);
    assert_eq!(code, 0, "{show}");
    let labels: Vec<&str> = show
        .lines()
        .skip_while(|l| *l != "nodes:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim().split_once("  ").unwrap().1)
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = labels.iter().collect();
    assert_eq!(distinct.len(), labels.len(), "{show}");
    // One database page, its SQL formatted or not.
    let db: Vec<&&str> = labels
        .iter()
        .filter(|l| l.starts_with("books /books") && !l.contains('?'))
        .collect();
    assert_eq!(db, [&"books /books"], "{show}");
    assert!(
        labels.iter().any(|l| l.ends_with(" /books?sql=*")),
        "{show}"
    );
    // Short: the route holds no query (the SQL page's title is its SQL, cut when long).
    assert!(labels.iter().all(|l| l.chars().count() <= 70), "{show}");
    let (_, dot, _) = atlas(&["atlas", "graph", "--format", "dot"]);
    assert!(!dot.contains("sql=select"), "{dot}");

    let edit = std::process::Command::new("python3")
        .current_dir(d.path())
        .args([
            "-c",
            "import sqlite3; c = sqlite3.connect('books.db'); c.execute(\"update books set title = 'Dune Messiah' where title = 'Dune'\"); c.commit()",
        ])
        .status()
        .unwrap();
    assert!(edit.success());
    let (code, stdout, stderr) = atlas(&["atlas", "verify"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains(" 0 no longer arrive"), "{stdout}");
    assert!(
        stdout.contains("data drift: \"Dune\" -> \"Dune Messiah\""),
        "{stdout}"
    );
}
