//! A secret whose value ends in a line break (`token\n`, `token\r\n`: how a secret file ends,
//! what a CI settings page keeps of a paste) or holds a run of white space (`pass  word`, a
//! tab: a passphrase), in what a run writes (issue 27, attack 28's E8 and E9): a page's
//! `<input>` drops the break, a command prints the value without it, and runner (the text an
//! `expect: text` failure says it got) and agent-browser's snapshot show the text with its
//! runs of white space as one space. Each of these forms is masked.

use std::path::Path;

use crate::common::write;
use crate::secret_search::{nowhere_shown, run_everywhere_with};

/// The secrets: (name, value, a part of it no output may show in any form).
const SECRETS: [(&str, &str, &str); 4] = [
    ("NL", "trailing-Secret-4242\n", "Secret-4242"),
    ("CRLF", "crlf-Secret-88\r\n", "Secret-88"),
    ("TWO", "pass  word-Secret-77", "word-Secret-77"),
    ("TAB", "pass\tword-Secret-78", "word-Secret-78"),
];

/// A page whose `#o` echoes what is typed into the `<input id=t>`.
const ECHO: &str = r#"<!doctype html><input id=t><p id=o></p><script>document.getElementById("t").addEventListener("input",e=>document.getElementById("o").textContent="token: "+e.target.value)</script>"#;

/// For each secret, a flow that fills the input with it, reads the field back, and fails an
/// `expect: text` on the echo; and a flow whose command prints each without its line break
/// (and `$TWO`, `$TAB` unquoted: split into words, printed with one space).
fn flows(dir: &Path) -> Vec<String> {
    std::fs::create_dir(dir.join("site")).unwrap();
    write(dir, "site/index.html", ECHO);
    let mut files = Vec::new();
    for (name, _, _) in SECRETS {
        let file = format!("{}.yaml", name.to_lowercase());
        write(
            dir,
            &file,
            &format!(
                "name: {name}\nsecrets: [{name}]\nweb_server: {{ static: site }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n  - fill: {{ target: \"#t\", value: \"{{{{ secrets.{name} }}}}\" }}\n  - eval: \"document.getElementById('t').value\"\n  - expect: {{ text: {{ target: \"#o\", equals: nope }} }}\n    timeout: 2s\n"
            ),
        );
        files.push(file);
    }
    write(
        dir,
        "printed.yaml",
        r#"name: printed
secrets: [NL, CRLF, TWO, TAB]
steps:
  - exec: [sh, -c, 'printf "%s" "$NL" | tr -d "\n"; echo; printf "[%s]" $CRLF; echo; echo $TWO; echo $TAB']
"#,
    );
    files.push("printed.yaml".to_string());
    files
}

/// Before the fix, the value without its break was raw in the console, the `::error`
/// annotation, report.json (the `eval`'s value, the failure message, the command's stdout),
/// JUnit, the HTML report, the trace, the `.stdout` artifact and the failure snapshot; the
/// value with one space where it has two, or a tab, in the failure message (runner compares a
/// page's text whitespace-normalised) and the snapshot. Now every one is `***`, and the `fill`
/// of a value ending in a line break into an input (which drops it) passes, as a user typing
/// it would.
#[test]
fn a_secret_ending_in_a_line_break_or_holding_runs_of_white_space_is_masked() {
    let d = tempfile::tempdir().unwrap();
    let files = flows(d.path());
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--trace", "on"]);
    let secrets: Vec<(&str, &str)> = SECRETS.iter().map(|(n, v, _)| (*n, *v)).collect();
    let ran = run_everywhere_with(d.path(), &args, &secrets);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let flows = ran.report["flows"].as_array().unwrap();
    for (name, _, _) in SECRETS {
        let flow = flows.iter().find(|f| f["name"] == name).unwrap();
        let steps = &flow["steps"];
        assert_eq!(steps[1]["outcome"], "passed", "{name}: {}", steps[1]);
        assert_eq!(steps[2]["outputs"]["value"], "***", "{name}: {}", steps[2]);
        assert_eq!(
            steps[3]["error"]["message"],
            "expected text of css `#o` to equal \"nope\", got \"token: ***\"",
            "{name}"
        );
        assert!(
            steps[3]["failure_artifacts"]["snapshot"].is_string(),
            "{name}: {}",
            steps[3]
        );
    }
    let printed = flows.iter().find(|f| f["name"] == "printed").unwrap();
    let stdout = printed["steps"][0]["outputs"]["stdout"].as_str().unwrap();
    assert_eq!(stdout.matches("***").count(), 4, "{stdout:?}");
    let artifact = walkdir::WalkDir::new(d.path().join("art"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().ends_with("-exec.stdout"))
        .expect("the command's .stdout artifact");
    let kept = std::fs::read_to_string(artifact.path()).unwrap();
    assert_eq!(kept.matches("***").count(), 4, "{kept:?}");
    let parts: Vec<(&str, String)> = SECRETS
        .iter()
        .map(|(n, _, part)| (*n, (*part).to_string()))
        .collect();
    nowhere_shown(
        d.path(),
        &[("stdout", &ran.stdout), ("stderr", &ran.stderr)],
        &parts,
    );
}
