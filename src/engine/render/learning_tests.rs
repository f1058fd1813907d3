//! What the masker learns of values templates make of a secret stays bounded, and masks them.

use serde_json::json;

use crate::step::Masker;
use crate::template::Templates;

const SECRET: &str = "Kestrel-Vault-9931-Zulu";

/// Learns what `template` makes of a secret in a context with `stdout` as `steps.d.stdout`.
fn learn(m: &Masker, template: &str, stdout: &str) {
    let t = Templates::new();
    let ctx = minijinja::Value::from_serialize(json!({
        "secrets": { "T": SECRET },
        "steps": { "d": { "stdout": stdout } },
    }));
    super::learn_secrets(&t, &ctx, &json!({ "x": template }), m);
}

/// An output where the token shows twice on each line with a counter between (an audit log, a
/// dump with a row id): what `| replace` made of the token is learned, not each line as one
/// span with the counter inside (one pattern per line, each with all its forms: hundreds of
/// megabytes for a 1 MiB output).
#[test]
fn a_counter_between_two_tokens_is_not_learned_with_them() {
    let m = Masker::new([SECRET.to_string()]);
    let out: String = (0..2000)
        .map(|i| format!("token={SECRET} id={i:06} {SECRET}\npadding padding padding\n"))
        .collect();
    learn(&m, "{{ steps.d.stdout | replace('-', ' ') }}", &out);
    let learned = m.learned();
    assert!(learned < 64 * 1024, "{learned} bytes learned");
    let shown = m.mask(&out.replace('-', " "));
    assert!(
        shown.starts_with("token=*** id=000000 ***\n"),
        "{}",
        &shown[..80]
    );
    assert!(!shown.contains("Vault"));
}

/// Where the text between two differences cannot be told apart (a counter of three digits),
/// each line is a span of its own: past a budget, those are learned only as they are (and in a
/// JSON string), so what is learned grows with the text, not eighty times over.
#[test]
fn spans_past_their_budget_are_learned_as_they_are() {
    let m = Masker::new([SECRET.to_string()]);
    let out: String = (0..3000)
        .map(|i| format!("{SECRET}{i:03}{SECRET}\n{}\n", "p".repeat(20)))
        .collect();
    learn(&m, "{{ steps.d.stdout | replace('-', ' ') }}", &out);
    let learned = m.learned();
    assert!(learned < 1024 * 1024, "{learned} bytes learned");
    let shown = m.mask(&out.replace('-', " "));
    assert!(!shown.contains("Vault"), "{}", &shown[..200]);
}
