//! What a false `expect that` shows of its operands, and what runner learns of a value made of
//! a secret: the value of each operand is a value a template made, so what it makes of a secret
//! (or of an output that holds one) is masked as a rendered template's value is; and what is
//! learned is what was made of the secret, not a whole answer beside it.

use crate::common::{Ran, write};
use crate::secret_search::{nowhere_shown, run_everywhere, run_failing_last};

const TOKEN: &str = "Kestrel-Vault-9931-Zulu";

/// The token and what the operands below make of it, each as it would show.
fn made_of_token() -> Vec<(&'static str, String)> {
    let reversed: String = TOKEN.chars().rev().collect();
    vec![
        ("the token", TOKEN.to_string()),
        ("its upper case", TOKEN.to_uppercase()),
        ("its lower case", TOKEN.to_lowercase()),
        ("it reversed", reversed.clone()),
        ("it reversed, upper case", reversed.to_uppercase()),
        ("a slice of it", "Kestrel-Vault".to_string()),
        ("its head", "Kestrel".to_string()),
        ("its dashes replaced", TOKEN.replace('-', " ")),
        ("a piece of it", "Vault".to_string()),
    ]
}

/// Each operand of a false `expect that` that makes something of a secret or of an output
/// holding one (`| upper`, `| lower`, a slice, `| reverse`, `| replace`, `.split()`, a field of
/// its JSON, the parts of an `and`) shows as `***`, on the console and in every report.
#[test]
fn a_false_expect_that_shows_no_secret_nor_what_its_operands_make_of_one() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "explained.yaml",
        r#"name: explained
secrets: [T]
steps:
  - id: d
    exec: ["sh", "-c", "echo \"token=$T user=bob\""]
  - id: j
    exec: ["sh", "-c", "echo \"{\\\"token\\\": \\\"$T\\\"}\""]
  - expect: { that: "{{ (steps.d.stdout | upper) == 'X' }}" }
    continue_on_error: true
  - expect: { that: "{{ (secrets.T | upper) == 'X' }}" }
    continue_on_error: true
  - expect: { that: "{{ 'X' == secrets.T | lower }}" }
    continue_on_error: true
  - expect: { that: "{{ steps.d.stdout.split('=')[1][0:13] == 'X' }}" }
    continue_on_error: true
  - expect: { that: "{{ steps.d.stdout | reverse == 'X' }}" }
    continue_on_error: true
  - expect: { that: "{{ (secrets.T | reverse | upper) == 'X' }}" }
    continue_on_error: true
  - expect: { that: "{{ 'nope' in steps.d.stdout | replace('-', ' ') }}" }
    continue_on_error: true
  - expect: { that: "{{ steps.d.stdout.split('-') == [] }}" }
    continue_on_error: true
  - expect: { that: "{{ (steps.j.stdout | fromjson).token[0:7] == 'ghp_' }}" }
    continue_on_error: true
  - expect: { that: "{{ steps.d.stdout.split('-')[1] == 'x' }}" }
    continue_on_error: true
  - expect: { that: "{{ (steps.d.stdout | lower) and (steps.d.stdout | title) == 'x' }}" }
    continue_on_error: true
  - expect: { that: "{{ steps.d.stdout[6:29] | upper == 'x' or (steps.d.stdout | upper)[6:] == 'y' }}" }
"#,
    );
    let Ran { stdout, stderr, .. } = run_failing_last(d.path(), "explained.yaml", "T", TOKEN);
    // Every check was explained, its values masked (nothing of the token in clear).
    assert_eq!(stderr.matches("  FAIL expect that").count(), 12, "{stderr}");
    assert_eq!(
        stderr.matches("    assertion: expected `").count(),
        12,
        "{stderr}"
    );
    for shown in [
        "the left side `(steps.d.stdout | upper)` is \"***\"",
        "the left side `(secrets.T | upper)` is \"***\"",
        "the right side `secrets.T | lower` is \"***\"",
        "the left side `steps.d.stdout | reverse` is \"***\"",
        "the right side `steps.d.stdout | replace('-', ' ')` is \"***\"",
        "the left side `steps.d.stdout.split('-')` is ***",
        "the left side `(steps.j.stdout | fromjson).token[0:7]` is \"***\"",
        "`(steps.d.stdout | lower)` is \"***\"",
    ] {
        assert!(stderr.contains(shown), "no `{shown}` in:\n{stderr}");
    }
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &made_of_token(),
    );
}

/// A text made of a secret that is too long to learn whole (an output of 6 000 characters
/// with a token in it, upper-cased) shows the token masked as the common filters make it:
/// upper case, lower case, reversed.
#[test]
fn a_long_text_made_of_a_secret_shows_the_secret_masked_as_the_filters_made_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "long.yaml",
        r#"name: long
secrets: [T]
steps:
  - id: d
    exec: ["sh", "-c", 'head -c 6000 /dev/zero | tr "\0" a; echo " token=$T user=bob"']
  - set:
      up: "{{ steps.d.stdout | upper }}"
      down: "{{ steps.d.stdout | lower }}"
      back: "{{ steps.d.stdout | reverse }}"
  - id: tails
    exec: ["sh", "-c", 'for v in "$@"; do printf "%s\n" "$v" | sed "s/^[aA]*//; s/[aA]*$//"; done', "-", "{{ vars.up }}", "{{ vars.down }}", "{{ vars.back }}"]
  - exec: ["sh", "-c", "exit 3"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "long.yaml", "T", TOKEN);
    let tails = crate::common::step(&report, "tails")["outputs"]["stdout"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        tails.contains("TOKEN=*** USER=BOB")
            && tails.contains("token=*** user=bob")
            && tails.contains("bob=resu ***=nekot"),
        "{report}"
    );
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &made_of_token()[..5],
    );
}

/// A constant subscript is followed as an attribute is: `vars.data['items']` is that list, not
/// the whole answer beside the token in it, so the list (which holds no secret) is shown as it
/// is and not learned as a secret.
#[test]
fn a_part_of_an_answer_that_holds_no_secret_is_not_learned_as_one() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "items.yaml",
        r#"name: items
secrets: [T]
steps:
  - id: d
    exec: ["sh", "-c", "echo \"{\\\"token\\\": \\\"$T\\\", \\\"items\\\": [\\\"alpha-one\\\", \\\"bravo-two\\\"]}\""]
  - set: { data: "{{ steps.d.stdout | fromjson }}" }
  - log: "items {{ vars.data['items'] }} first {{ vars.data['items'][0] | upper }}"
  - log: "token {{ vars.data['token'] | upper }}"
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        ..
    } = run_everywhere(d.path(), "items.yaml", "T", TOKEN);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains(r#"│ items ["alpha-one", "bravo-two"] first ALPHA-ONE"#),
        "{stderr}"
    );
    assert!(stderr.contains("│ token ***"), "{stderr}");
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &made_of_token()[..2],
    );
}

/// A text longer than what is learned whole (6 000 characters around a token) turned by a
/// transform that changes the inside of the token (`| replace('-', ' ')`, then `| urlencode`)
/// shows nothing of the token nor of what the transform made of it: not where it is logged,
/// not in a var set from it and shown later, not in a slice of such a var, not in a failing
/// `expect that`'s explanation. What the token became is found by evaluating the template
/// again with the token in its inputs replaced by a sentinel.
#[test]
fn a_long_text_transformed_inside_the_secret_shows_nothing_of_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "inside.yaml",
        r#"name: inside
secrets: [T]
steps:
  - id: d
    exec: ["sh", "-c", 'echo "token=$T user=bob"; head -c 6000 /dev/zero | tr "\0" a; echo " last=$T end"']
  - set:
      spaced: "{{ steps.d.stdout | replace('-', ' ') }}"
      coded: "{{ steps.d.stdout | replace('-', ' ') | urlencode }}"
  - log: "spaced {{ vars.spaced }}"
  - log: "head {{ vars.spaced[0:40] }} tail {{ vars.spaced[-30:] }}"
  - log: "coded {{ vars.coded[0:60] }}"
  - log: "under {{ (steps.d.stdout | replace('-', '_'))[0:50] }}"
  - log: "lines {{ vars.spaced[0:60] }}"
  - log: "upper {{ vars.spaced | upper }}"
  - expect: { that: "{{ 'nope' in steps.d.stdout | replace('-', '+') }}" }
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "inside.yaml", "T", TOKEN);
    // Each log and the explanation ran and showed the text around the token.
    for shown in [
        "│ spaced token=*** user=bob",
        "│ head ",
        "│ coded ",
        "│ under ",
        "│ upper TOKEN=*** USER=BOB",
        "the right side `steps.d.stdout | replace('-', '+')` is \"token=*** user=bob",
    ] {
        assert!(stderr.contains(shown), "no `{shown}` in:\n{stderr}");
    }
    assert!(stderr.contains("*** end"), "{stderr}");
    assert!(
        report.to_string().contains("token=*** user=bob"),
        "{report}"
    );
    let mut forms = made_of_token();
    for (what, sep) in [
        ("dashes as spaces", " "),
        ("dashes as underscores", "_"),
        ("dashes as pluses", "+"),
        ("dashes as %20", "%20"),
    ] {
        forms.push((what, TOKEN.replace('-', sep)));
    }
    forms.push(("a slice of it spaced", "Vault 9931".to_string()));
    forms.push((
        "it spaced, upper case",
        TOKEN.replace('-', " ").to_uppercase(),
    ));
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
