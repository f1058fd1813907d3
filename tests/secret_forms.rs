//! Secrets end to end, in the shapes and encodings they travel in: a secret turned into a list
//! (and back into text), and a secret and a value made of it HTML-, JSON- and percent-encoded
//! as other programs and the page write them. Each test greps everything the run printed and
//! wrote: the console, the JSON, JUnit and HTML reports, the artifacts, GitHub annotations and
//! the job summary.

use crate::common::{Ran, fixture, step, write};
use crate::secret_search::{nowhere_written, run_failing_last};

/// The secret: split at its dashes, and in batches of six, each piece is long enough to mask
/// (four characters or more).
const SHAPE_SECRET: &str = "kestrel-Vault-9931";

/// A secret turned into a list (its characters, batches of them, its words) and what is made
/// of that list (reversed, sliced and joined back, its pieces printed one by one by a command,
/// an `each` over its words) is masked: the list as it prints, each piece of four characters
/// or more, and every text joined from it; a user name beside it in a map is not. What only
/// single characters show (a list of them printed one per report entry) is the documented
/// limit.
#[test]
fn a_secret_turned_into_a_list_is_masked_in_every_shape() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "shapes.yaml",
        r#"name: secret shapes
secrets: [SHAPE_SECRET]
steps:
  - log: "{{ secrets.SHAPE_SECRET | list }}"
  - log: "batched {{ secrets.SHAPE_SECRET | batch(4) }}"
  - set:
      chars: "{{ secrets.SHAPE_SECRET | list }}"
      parts: "{{ secrets.SHAPE_SECRET | batch(6) | map('join') | list }}"
      words: "{{ secrets.SHAPE_SECRET.split('-') }}"
      account: "{{ {'user': 'alice-smith', 'token': secrets.SHAPE_SECRET} }}"
  - log: "user {{ vars.account.user }} of {{ vars.account }}"
  - log: "rev {{ vars.chars | reverse | join }}"
  - log: "tail {{ vars.chars[3:] | join }}"
  - log: "thirds {{ vars.chars | slice(3) | list }}"
  - log: "{{ vars.words }}"
  - log: "{{ vars.chars | reverse }}"
  - id: pieces
    exec: ["sh", "-c", "for p in $0; do echo \"piece $p\"; done", "{{ vars.parts | join(' ') }}"]
  - each:
      in: "{{ vars.words }}"
      as: word
      steps:
        - log: "word {{ vars.word | upper }}"
  - exec: ["sh", "-c", "echo \"backwards $0\" >&2; exit 3", "{{ vars.words | reverse | join('.') }}"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "shapes.yaml", "SHAPE_SECRET", SHAPE_SECRET);
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 12, "{report}");
    // The steps ran and printed, masked.
    for line in [
        "│ ***",
        "│ batched ***",
        "│ rev ***",
        "│ tail ***",
        "│ thirds ***",
        "│ word ***",
    ] {
        assert!(stderr.contains(line), "no `{line}` in:\n{stderr}");
    }
    // What sits beside the secret in a map is no piece of it: it shows.
    assert!(stderr.contains("│ user alice-smith of ***"), "{stderr}");
    assert_eq!(
        step(&report, "pieces")["outputs"]["stdout"],
        "piece ***\npiece ***\npiece ***",
        "{report}"
    );
    assert!(
        stdout.contains("::error ") && stdout.contains("backwards ***"),
        "{stdout}"
    );

    let s = SHAPE_SECRET;
    let chars: Vec<String> = s.chars().map(String::from).collect();
    let rev: String = s.chars().rev().collect();
    let words: Vec<&str> = s.split('-').collect();
    let mut forms = vec![
        ("the secret", s.to_string()),
        ("it reversed", rev),
        ("its tail", s[3..].to_string()),
        (
            "its characters as JSON",
            serde_json::to_string(&chars).unwrap(),
        ),
        ("its characters as a list prints", format!("{chars:?}")),
        (
            "its characters reversed, as JSON",
            serde_json::to_string(&chars.iter().rev().collect::<Vec<_>>()).unwrap(),
        ),
        (
            "its words joined backwards",
            words.iter().rev().copied().collect::<Vec<_>>().join("."),
        ),
    ];
    for w in &words {
        forms.push(("a word", (*w).to_string()));
        forms.push(("a word upper-cased", w.to_uppercase()));
    }
    for piece in chars.chunks(6) {
        forms.push(("a batch of six", piece.concat()));
    }
    for piece in chars.chunks(4).filter(|p| p.len() == 4) {
        forms.push((
            "a batch of four as JSON",
            serde_json::to_string(piece).unwrap(),
        ));
        forms.push(("a batch of four as a list prints", format!("{piece:?}")));
    }
    nowhere_written(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// The secret: HTML-special characters, quotes, a slash, a plus and non-ASCII letters, so each
/// encoding below writes it differently.
pub(crate) const ENC_SECRET: &str = "Tøp \"s3cret\" & <'ö'>/+x";

/// A secret and a value made of it (`made`, upper-cased) in the encodings other programs and
/// pages write: HTML-escaped (Python's `html.escape`, Go's and markupsafe's `&#34;`/`&#39;`, a
/// page's text and attribute), JSON with `\u0026`-style escapes (Go) and `\u00f6`-style ones
/// (Python), JSON inside JSON, every byte percent-encoded, lower-case percent encoding. Every
/// line a command prints is `***` after its label, and no form is anywhere.
#[test]
fn a_secret_and_what_is_made_of_it_are_masked_in_other_encodings() {
    let d = tempfile::tempdir().unwrap();
    let flow = r##"name: secret encodings
secrets: [ENC_SECRET]
web_server: { static: "FIXTURES" }
vars:
  made: "{{ secrets.ENC_SECRET | upper }}"
steps:
  - id: encoded
    exec:
      - python3
      - -c
      - |
        import html, json, re, sys, urllib.parse
        lower = lambda p: re.sub('%[0-9A-F]{2}', lambda m: m.group(0).lower(), p)
        for name, v in zip(['secret', 'made'], sys.argv[1:]):
            every = ''.join('%%%02X' % b for b in v.encode())
            forms = {
                'html': html.escape(v),
                'html-go': html.escape(v, quote=False).replace('"', '&#34;').replace("'", '&#39;'),
                'json-ascii': json.dumps(v)[1:-1],
                'json-go': json.dumps(v, ensure_ascii=False)[1:-1].replace('&', '\\u0026').replace('<', '\\u003c').replace('>', '\\u003e'),
                'json-twice': json.dumps(json.dumps(v, ensure_ascii=False))[3:-3],
                'json-twice-ascii': json.dumps(json.dumps(v))[3:-3],
                'percent-lower': lower(urllib.parse.quote(v, safe='')),
                'percent-every': every,
                'percent-every-lower': every.lower(),
            }
            for k, f in forms.items():
                print(name, k + ':', f)
      - "{{ secrets.ENC_SECRET }}"
      - "{{ vars.made }}"
  - open: "{{ web_server.url }}/echo.html"
  - fill: { target: "#in", value: "{{ secrets.ENC_SECRET }}" }
  - click: { role: button, text: Show }
  - id: page
    eval: "document.querySelector('#out').outerHTML"
  - log: "the page holds {{ steps.page.value }}"
  - exec: ["sh", "-c", "printf 'failing on %s' \"$0\" >&2; exit 3", "{{ vars.made | escape }}"]
"##
    .replace("FIXTURES", &fixture("secrets").display().to_string());
    write(d.path(), "enc.yaml", &flow);
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "enc.yaml", "ENC_SECRET", ENC_SECRET);
    let printed = step(&report, "encoded")["outputs"]["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(printed.lines().count(), 18, "{printed}");
    for line in printed.lines() {
        assert!(line.ends_with(": ***"), "not all masked: {printed}");
    }
    // The page wrote the value in its text and in an attribute; both are masked.
    let page = step(&report, "page")["outputs"]["value"].as_str().unwrap();
    assert_eq!(page, r#"<p id="out" data-v="***">***</p>"#, "{report}");
    assert!(
        stdout.contains("::error ") && stdout.contains("failing on ***"),
        "{stdout}"
    );

    let made = ENC_SECRET.to_uppercase();
    let mut forms = Vec::new();
    for v in [ENC_SECRET, made.as_str()] {
        forms.extend(encodings(v));
    }
    nowhere_written(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// `v` in the encodings the flow above prints, and as a page writes it into a text node and
/// into an attribute, computed here on their own.
pub(crate) fn encodings(v: &str) -> Vec<(&'static str, String)> {
    let html = |quot: &str, apos: &str| {
        v.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', quot)
            .replace('\'', apos)
    };
    let json = |s: &str| {
        let j = serde_json::to_string(s).unwrap();
        j[1..j.len() - 1].to_string()
    };
    let ascii = |s: &str| {
        s.chars()
            .map(|c| match c {
                c if c.is_ascii() => c.to_string(),
                c => format!("\\u{:04x}", c as u32),
            })
            .collect::<String>()
    };
    let every: String = v.bytes().map(|b| format!("%{b:02X}")).collect();
    let component: String = v
        .bytes()
        .map(|b| match b {
            b if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => (b as char).to_string(),
            b => format!("%{b:02x}"),
        })
        .collect();
    vec![
        ("HTML-escaped", html("&quot;", "&#x27;")),
        ("HTML-escaped as Go does", html("&#34;", "&#39;")),
        ("a page's text", html("\"", "'")),
        (
            "a page's attribute",
            v.replace('&', "&amp;").replace('"', "&quot;"),
        ),
        (
            "a page's attribute, `<` and `>` escaped",
            html("&quot;", "'"),
        ),
        ("JSON with \\u00f6", ascii(&json(v))),
        (
            "JSON with \\u0026",
            json(v)
                .replace('&', "\\u0026")
                .replace('<', "\\u003c")
                .replace('>', "\\u003e"),
        ),
        ("JSON in JSON", json(&json(v))),
        ("JSON with \\u00f6 in JSON", json(&ascii(&json(v)))),
        ("JSON in JSON with \\u00f6", ascii(&json(&json(v)))),
        ("every byte percent-encoded", every.clone()),
        (
            "every byte percent-encoded, lower case",
            every.to_lowercase(),
        ),
        ("percent-encoded in lower case", component),
    ]
}

/// The secret of the tests on template syntax below.
const TAG_SECRET: &str = "kestrel-Vault-9931";

/// What a template makes of a secret is masked however its tags are written: a map literal
/// inside `{{ }}` (whose `}}` closes the map, not the tag), a string literal holding `}}` or
/// `{{`, an expression inside a `{% if %}` and one that reads a name only a `{% set %}` gives
/// (it cannot be evaluated on its own: the whole rendering is masked).
#[test]
fn values_made_of_a_secret_are_masked_whatever_the_tags_hold() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "tags.yaml",
        r#"name: derived through tags
secrets: [TAG_SECRET]
steps:
  - log: "A {{ {'a': {'b': secrets.TAG_SECRET | reverse}} }}"
  - log: "B {{ (secrets.TAG_SECRET ~ '}}') | reverse }}"
  - log: "C {{ '{{' ~ secrets.TAG_SECRET | lower ~ '}}' }}"
  - id: env
    exec:
      command: ["sh", "-c", "echo F $X"]
      env: { X: "k={{ {'k': {'v': secrets.TAG_SECRET | upper}} }}" }
  - log: "D {% if secrets.TAG_SECRET %}{{ secrets.TAG_SECRET | title }}{% endif %}"
  - log: "E {% set n = 3 %}{{ secrets.TAG_SECRET[n:] | replace('-', '+') }}"
  - exec: ["sh", "-c", "echo \"failing on $0\" >&2; exit 3", "{% set n = 2 %}{{ secrets.TAG_SECRET[n:] | replace('-', '/') }}"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "tags.yaml", "TAG_SECRET", TAG_SECRET);
    for line in ["│ A ***", "│ B ***", "│ C ***"] {
        assert!(stderr.contains(line), "no `{line}` in:\n{stderr}");
    }
    // With a block, the whole rendering is the value made of the secret.
    let whole = stderr.lines().filter(|l| l.trim() == "│ ***").count();
    assert_eq!(whole, 2, "D and E are not masked whole:\n{stderr}");
    assert_eq!(
        step(&report, "env")["outputs"]["stdout"],
        "F k=***",
        "{report}"
    );
    assert!(
        stdout.contains("::error ") && stdout.contains("failing on ***"),
        "{stdout}"
    );
    let s = TAG_SECRET;
    let rev: String = s.chars().rev().collect();
    let forms = vec![
        ("the secret", s.to_string()),
        ("it reversed", rev),
        ("it upper-cased", s.to_uppercase()),
        ("it lower-cased", s.to_lowercase()),
        ("it title-cased", "Kestrel-Vault-9931".to_string()),
        ("its tail, dashes replaced", s[3..].replace('-', "+")),
        (
            "its tail, dashes replaced by slashes",
            s[2..].replace('-', "/"),
        ),
    ];
    nowhere_written(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
