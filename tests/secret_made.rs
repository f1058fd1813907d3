//! Secrets as other programs write them into URLs, and what a template makes of one beyond a
//! text: each common URL encoder's form of a secret, the pieces of a list split across the
//! secret's edge, what a method call on a map holding one gives, and a slice printed inside a
//! loop over a long output. Each test greps everything the run printed and wrote.

use crate::common::{Ran, step, write};
use crate::secret_search::{nowhere_shown, run_failing_last};

/// A base64-style key: `/`, `+`, `=` and `:` are what the URL encoders disagree on.
const URL_SECRET: &str = "Kes/trel+Vault=9931:Zulu";

/// A command's output holding a secret as Python's `quote` (which keeps `/`), `quote_plus`
/// and `urlencode`, Node's `escape()` and `encodeURIComponent`, and minijinja's `| urlencode`
/// write it (upper- and lower-case hex) is masked: every line shows `***` after its label, on
/// the console, in the reports and in the `.stdout` artifact.
#[test]
fn a_secret_url_encoded_by_any_common_encoder_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "urls.yaml",
        r#"name: secret in urls
secrets: [URL_SECRET]
steps:
  - id: py
    exec:
      - python3
      - -c
      - |
        import os, re, urllib.parse as u
        t = os.environ['URL_SECRET']
        lower = lambda p: re.sub('%[0-9A-F]{2}', lambda m: m.group(0).lower(), p)
        print('quote:', u.quote(t))
        print('quote lower:', lower(u.quote(t)))
        print('quote_plus:', u.quote_plus(t))
        print('urlencode:', u.urlencode({'t': t})[2:])
  - id: js
    exec: ["node", "-e", "const t = process.env.URL_SECRET; console.log('escape: ' + escape(t)); console.log('component: ' + encodeURIComponent(t))"]
  - log: "minijinja: {{ secrets.URL_SECRET | urlencode }}"
  - exec: ["sh", "-c", "echo \"redirect failed: /cb?t=$0\" >&2; exit 3", "{{ secrets.URL_SECRET | urlencode }}"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "urls.yaml", "URL_SECRET", URL_SECRET);
    for (id, lines) in [("py", 4), ("js", 2)] {
        let printed = step(&report, id)["outputs"]["stdout"].as_str().unwrap();
        assert_eq!(printed.lines().count(), lines, "{printed}");
        for line in printed.lines() {
            assert!(line.ends_with(": ***"), "not masked: {printed}");
        }
    }
    assert!(stderr.contains("│ minijinja: ***"), "{stderr}");
    assert!(stderr.contains("redirect failed: /cb?t=***"), "{stderr}");
    let quote = "Kes/trel%2BVault%3D9931%3AZulu";
    let forms = vec![
        ("the secret", URL_SECRET.to_string()),
        ("Python's quote", quote.to_string()),
        (
            "Python's quote, lower-case hex",
            "Kes/trel%2bVault%3d9931%3aZulu".to_string(),
        ),
        (
            "Python's quote_plus",
            "Kes%2Ftrel%2BVault%3D9931%3AZulu".to_string(),
        ),
        (
            "JavaScript's escape",
            "Kes/trel+Vault%3D9931%3AZulu".to_string(),
        ),
        ("minijinja's urlencode", quote.to_string()),
        ("a piece of it", "Vault%3D9931".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

const TOKEN: &str = "Kestrel-Vault-9931-Zulu";

/// A text holding the token split at its dashes gives pieces across the token's edges
/// (`token=Kestrel`, `Zulu user=bob`), pieces of neither the token nor the text around it:
/// an `each` over them, an index of the list set as a var, a command given one, each shows
/// `***`. So does what `.values()` and `.items()` make of a map holding the token (a method,
/// whatever keys `values` and `items` of the map hold), and a slice of the token printed in a
/// loop over a long output's lines.
#[test]
fn what_a_template_makes_of_a_secret_beyond_a_text_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "made.yaml",
        r#"name: made of a secret
secrets: [TOKEN]
vars:
  creds: "admin:{{ secrets.TOKEN }}@db"
  m: { token: "{{ secrets.TOKEN }}", items: "x", values: "y" }
steps:
  - id: d
    exec: ["sh", "-c", "echo \"token=$TOKEN user=bob\""]
  - each:
      in: "{{ steps.d.stdout.split('-') }}"
      as: part
      steps:
        - log: "part: {{ vars.part }}"
        - exec: ["echo", "{{ vars.part }}"]
  - each:
      in: "{{ vars.creds.split('-') }}"
      steps:
        - log: "piece: {{ vars.item }}"
  - set: { parts: "{{ steps.d.stdout.split('-') }}" }
  - log: "first: {{ vars.parts[0] }} last: {{ vars.parts[3] }}"
  - log: "B {{ vars.m.values() | map('replace', '-', '.') | list }}"
  - log: "C {{ vars.m.items() | map('last') | map('replace', '-', '.') | list }}"
  - id: long
    exec: ["sh", "-c", "printf 'token=%s\\n' \"$TOKEN\"; for i in $(seq 1 300); do echo \"line $i of the build log\"; done"]
  - log: "{% for l in steps.long.stdout.split('\n') %}{{ l[6:19] }}|{% endfor %}"
  - exec: ["sh", "-c", "echo \"failing on $0\" >&2; exit 3", "{{ vars.parts[0] }}"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "made.yaml", "TOKEN", TOKEN);
    // Each piece and value was printed, masked.
    let parts = stderr.lines().filter(|l| l.trim() == "│ part: ***").count();
    let pieces = stderr
        .lines()
        .filter(|l| l.trim() == "│ piece: ***")
        .count();
    assert_eq!((parts, pieces), (4, 4), "{stderr}");
    for line in [
        "│ first: *** last: ***",
        "│ B ***",
        "│ C ***",
        "failing on ***",
    ] {
        assert!(stderr.contains(line), "no `{line}` in:\n{stderr}");
    }
    assert!(stderr.contains("│ ***| of the build|"), "{stderr}");
    assert!(report.to_string().contains("line 300 of the build log"));
    let forms = vec![
        ("the token", TOKEN.to_string()),
        ("its head after text", "token=Kestrel".to_string()),
        ("its head", "Kestrel".to_string()),
        ("its tail before text", "Zulu user=bob".to_string()),
        ("its tail", "Zulu".to_string()),
        ("a piece of it", "Vault".to_string()),
        ("its head in the creds", "admin:Kestrel".to_string()),
        ("its tail in the creds", "Zulu@db".to_string()),
        ("its dashes replaced", TOKEN.replace('-', ".")),
        ("a slice of it", "Kestrel-Vault".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
