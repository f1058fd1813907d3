//! What runner learns of values a template makes of a secret once its learning budget is spent:
//! a value whose second evaluation, with the secrets hidden, tells nothing of what the secret
//! became (its inputs are single characters or numbers, which are not hidden) is learned whole.

use crate::common::{Ran, write};
use crate::secret_search::{nowhere_written, run_everywhere};

const TOKEN: &str = "Kestrel-Vault-9931-Zulu";

/// After a step whose `fromjson` spends the budget (a 2.6 KB login answer beside the token),
/// the characters of the token joined, its 3-character pieces joined, a per-character rendering
/// and a number made of its digits show as `***`, on the console and in every report.
#[test]
fn what_tells_nothing_of_the_secret_again_is_learned_whole_past_the_budget() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "told.yaml",
        r#"name: told
secrets: [T]
steps:
  - id: login
    exec: ["python3", "-c", "import json,os; print(json.dumps({'token': os.environ['T'], 'user': {'name': 'bob', 'roles': ['a/b','c&d'], 'bio': 'x'*3500}}))"]
  - set: { session: "{{ steps.login.stdout | fromjson }}" }
  - set: { chars: "{{ secrets.T | list }}" }
  - log: "A {{ vars.chars | join('.') }}"
  - set: { b3: "{{ secrets.T | batch(3) | map('join') | list }}" }
  - log: "B3 {{ vars.b3 | join('|') }}"
  - log: "F {% for c in secrets.T %}<i value='{{ c }}'>{% endfor %}"
  - set: { pin: "{{ secrets.T[14:18] | int }}" }
  - log: "P {{ (vars.pin * 7) ~ '-' ~ (vars.pin + 1) }}"
"#,
    );
    let Ran { stdout, stderr, .. } = run_everywhere(d.path(), "told.yaml", "T", TOKEN);
    for shown in ["│ A ***", "│ B3 ***", "│ P ***"] {
        assert!(stderr.contains(shown), "no `{shown}` in:\n{stderr}");
    }
    let joined: String = TOKEN.chars().map(|c| format!("{c}.")).collect();
    let forms = [
        (
            "its characters joined",
            joined[..joined.len() - 1].to_string(),
        ),
        ("its pieces joined", "Kes|tre|l-V".to_string()),
        (
            "a character rendered",
            "<i value='K'><i value='e'>".to_string(),
        ),
        ("a number made of its digits", "69517-9932".to_string()),
    ];
    nowhere_written(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
