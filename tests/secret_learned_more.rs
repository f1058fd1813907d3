//! What runner learns of values a template makes of a secret over a long output (issue 27,
//! tenth attack): a template whose result hangs on the secret's punctuation (`.split('-')`,
//! `.find('-')`) learns what the secret became, and a value longer than runner learns whole
//! whose second evaluation with the secrets hidden tells nothing (`| int`, `| fromjson` of a
//! secret) is still masked. Each test greps everything the run printed and wrote.

use crate::common::{Ran, flow_run, write};
use crate::secret_search::nowhere_shown;

const TOKEN: &str = "Kestrel-Vault-9931-Zulu";

/// A step printing the token after `user=`, then 300 lines of log (some 8 KB): a value made of
/// all of it is too long to be learned whole.
const BIG: &str = r#"  - id: big
    exec: ["sh", "-c", "printf 'user=%s\\n' \"$TOKEN\"; for i in $(seq 1 300); do echo \"line $i of the build log\"; done"]
"#;

/// A run of `flow` in `dir` with every report, as on GitHub Actions, with `secrets` set; only
/// its last step fails.
fn run_failing_last(dir: &std::path::Path, flow: &str, secrets: &[(&str, &str)]) -> Ran {
    let mut run = flow_run(dir)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .args([flow, "--report", "junit=r.xml", "--report", "html=html"]);
    for (name, value) in secrets {
        run = run.env(name, value);
    }
    let ran = run.run();
    for f in ["report.json", "r.xml", "html/index.html", "summary.md"] {
        assert!(dir.join(f).is_file(), "no {f}: {}", ran.stderr);
    }
    assert_eq!(ran.code, 1, "only the last step fails: {}", ran.stderr);
    ran
}

/// The log lines of `stderr` that start with `label` (after the `│ `), each cut at its first
/// line break: what a `log` step printed.
fn logged<'a>(stderr: &'a str, label: &str) -> Vec<&'a str> {
    stderr
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("│ "))
        .filter(|l| l.starts_with(label))
        .collect()
}

/// The token split at its dashes and joined again with spaces, a slice from its first dash, and
/// its dashes made `+`, each in a value made of the whole 8 KB output: what the secret became
/// shows as `***`, the lines around it as they are.
#[test]
fn what_a_template_makes_of_a_secret_by_its_punctuation_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "punct.yaml",
        &format!(
            r#"name: punctuation
secrets: [TOKEN]
steps:
{BIG}  - log: "A {{{{ (steps.big.stdout ~ secrets.TOKEN).split('-')[1:] | join(' ') }}}}"
  - log: "B {{{{ steps.big.stdout.split('-')[1:] | join(' ') }}}}"
  - log: "C {{{{ steps.big.stdout[steps.big.stdout.find('-'):] }}}}"
  - log: "D {{{{ steps.big.stdout.split('-') | join('+') }}}}"
  - exec: ["sh", "-c", "echo \"failing on $0\" >&2; exit 3", "{{{{ (steps.big.stdout.split('-')[2:] | join(' '))[:20] }}}}"]
"#
        ),
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "punct.yaml", &[("TOKEN", TOKEN)]);
    // Each value was printed, masked where the token was, the output around it as it is (C's
    // slice from the token's first dash holds it whole: `find` counts bytes, and a sentinel's
    // characters are 3 bytes each, so the dash is in what differs).
    for (label, shown) in [
        ("A ", "A ***"),
        ("B ", "B ***"),
        ("C ", "C ***"),
        ("D ", "D user=***"),
    ] {
        assert_eq!(logged(&stderr, label).first(), Some(&shown), "{stderr}");
    }
    assert!(stderr.contains("│ line 300 of the build log"), "{stderr}");
    assert!(stderr.contains("failing on ***"), "{stderr}");
    assert!(report.to_string().contains("line 299 of the build log"));
    let forms = vec![
        ("the token", TOKEN.to_string()),
        ("its head", "Kestrel".to_string()),
        ("a piece of it", "Vault".to_string()),
        ("its digits", "9931".to_string()),
        ("its tail", "Zulu".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// A PIN made a number and counted on, and the password inside a secret that is JSON, each
/// after the whole 8 KB output: evaluated again with the secrets hidden, `| int` and
/// `| fromjson` fail (a hidden character is no digit, and no key of the JSON is left), so what
/// the secret became cannot be told. It is masked all the same, and so is the value short.
#[test]
fn a_long_value_whose_second_evaluation_tells_nothing_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "untold.yaml",
        &format!(
            r#"name: untold
secrets: [TOKEN, PIN, CREDS]
steps:
{BIG}  - log: "A {{{{ steps.big.stdout ~ 'next=' ~ (secrets.PIN | int + 1) }}}}"
  - log: "B {{{{ steps.big.stdout ~ 'pw=' ~ ((secrets.CREDS | fromjson).pw | upper) }}}}"
  - log: "C {{{{ 'next=' ~ (secrets.PIN | int + 1) }}}}"
  - exec: ["sh", "-c", "echo \"failing on $0\" >&2; exit 3", "{{{{ (secrets.CREDS | fromjson).pw | upper }}}}"]
"#
        ),
    );
    let creds = r#"{"user":"bob","pw":"Osprey-Harbor-4417-Yank"}"#;
    let Ran { stdout, stderr, .. } = run_failing_last(
        d.path(),
        "untold.yaml",
        &[("TOKEN", TOKEN), ("PIN", "48213977"), ("CREDS", creds)],
    );
    // What the secret became in it cannot be told: the whole value is masked.
    for label in ["A ", "B ", "C "] {
        let shown = format!("{label}***");
        assert_eq!(logged(&stderr, label), [shown.as_str()], "{stderr}");
    }
    assert!(stderr.contains("failing on ***"), "{stderr}");
    let forms = vec![
        ("the PIN counted on", "48213978".to_string()),
        (
            "the password made upper-case",
            "OSPREY-HARBOR-4417-YANK".to_string(),
        ),
        ("a piece of it", "HARBOR".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// Pieces of the token set as vars (each learned whole: `Kestrel`, `Vault+9931+Zulu`), then put
/// together again beside the whole output and made upper-case, URL-encoded, split and joined:
/// evaluated again, those vars are hidden as the token is, so what they became is told and
/// masked (`USER=***`), the output around it shown as it is. Each var was learned whole, and so
/// was never hidden: nothing was told of them, and `KESTREL+VAULT+9931+ZULU` showed.
#[test]
fn values_learned_whole_are_hidden_as_secrets_when_evaluated_again() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "whole.yaml",
        &format!(
            r#"name: learned whole
secrets: [TOKEN]
steps:
{BIG}  - set: {{ first: "{{{{ secrets.TOKEN.split('-')[0] }}}}", rest: "{{{{ secrets.TOKEN.split('-')[1:] | join('+') }}}}" }}
  - log: "A {{{{ ('user=' ~ vars.first ~ '+' ~ vars.rest ~ '\n' ~ steps.big.stdout) | upper }}}}"
  - log: "B {{{{ ('user=' ~ vars.first ~ '-' ~ vars.rest ~ '\n' ~ steps.big.stdout) | urlencode }}}}"
  - log: "C {{{{ ('user=' ~ vars.first ~ '+' ~ vars.rest ~ '\n' ~ steps.big.stdout).split('+') | join(' ') | title }}}}"
  - exec: ["sh", "-c", "echo \"failing on $0\" >&2; exit 3", "{{{{ vars.first | upper }}}}"]
"#
        ),
    );
    let Ran { stdout, stderr, .. } = run_failing_last(d.path(), "whole.yaml", &[("TOKEN", TOKEN)]);
    for (label, shown) in [
        ("A ", "A USER=***"),
        // The two are one difference (less than 16 bytes apart), masked together.
        ("B ", "B user%3D***%0Aline%201%20of%20the%20build%20log"),
        ("C ", "C User=***"),
    ] {
        let first = logged(&stderr, label)
            .first()
            .map(|l| &l[..l.len().min(shown.len())]);
        assert_eq!(first, Some(shown), "{stderr}");
    }
    assert!(stderr.contains("│ LINE 300 OF THE BUILD LOG"), "{stderr}");
    assert!(stderr.contains("failing on ***"), "{stderr}");
    let forms = vec![
        ("its head", "KESTREL".to_string()),
        ("its head as a title", "Kestrel".to_string()),
        ("a piece of it", "VAULT".to_string()),
        ("its tail", "Zulu".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
