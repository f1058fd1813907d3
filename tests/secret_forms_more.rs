//! Secrets end to end in more forms other programs write them in: a URL as a URL parser (a
//! browser, the `url` crate under `request`) escapes it, base64 wrapped at 76 and 64 columns,
//! shell-quoted and with quotes doubled, a number as a JSON parser writes it back. Each test
//! greps everything the run printed and wrote: the console, the JSON, JUnit and HTML reports,
//! the artifacts, GitHub annotations and the job summary.

use crate::common::{Ran, step, write};
use crate::secret_search::{everything, nowhere_shown, run_everywhere_with, run_failing_last};

/// A password a generator makes: `^ " { $ @` are each kept by some part of a URL and escaped by
/// another, and by none of the encoders a program calls in the same way.
const URL_SECRET: &str = "Rk9^vT\"q2{Lm@x$y";

/// A secret in a page's URL (its query, `location.href`, a failed `open`'s message), in a
/// `request`'s path and query (its message and its `url` output) and in a URL's password (the
/// browser's requests in the trace): masked as the URL parser wrote it, nowhere shown.
#[test]
fn a_secret_in_a_url_as_a_url_parser_writes_it_is_masked() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/index.html",
        "<!doctype html><title>x</title><p>hi</p><img src=\"missing.png\">",
    );
    write(
        d.path(),
        "u.yaml",
        r#"name: url forms
secrets: [URL_SECRET]
web_server: { static: "site" }
steps:
  - open: "{{ web_server.url }}/index.html?k={{ secrets.URL_SECRET }}"
  - id: href
    eval: "location.href"
  - id: r
    request:
      url: "{{ web_server.url }}/nope/{{ secrets.URL_SECRET }}?k={{ secrets.URL_SECRET }}"
      expect: { status: 404 }
  - exec: ["echo", "{{ steps.r.url }}"]
  - open: "http://u:{{ secrets.URL_SECRET }}@127.0.0.1:{{ web_server.port }}/index.html"
  - open: "{{ web_server.url }}/nope?k={{ secrets.URL_SECRET }}"
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "u.yaml", "URL_SECRET", URL_SECRET);
    // The steps ran: the page's URL and the request's were there to mask.
    let href = step(&report, "href")["outputs"]["value"].as_str().unwrap();
    assert!(href.ends_with("/index.html?k=***"), "{report}");
    assert!(stderr.contains("/nope?k=***"), "{stderr}");
    let forms = [
        ("the secret", URL_SECRET.to_string()),
        ("its head", "Rk9^vT".to_string()),
        ("its head as a password", "Rk9%5EvT".to_string()),
        ("its middle", "q2{Lm".to_string()),
        ("its middle in a path", "q2%7BLm".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// A key long enough that its base64 wraps.
const LONG_SECRET: &str = "sk_live_51HxQ2eKestrelVault9931ZuluAbCdEfGhIjKlMnOpQrStUvWxYz0123456789";

/// The base64 characters only `secret`'s bytes decide in the base64 of any text that holds it,
/// at each of the three offsets it can start at in a 3-byte group (computed here on its own).
fn base64_pieces(secret: &str) -> Vec<String> {
    use base64::Engine;
    (0..3)
        .map(|offset| {
            let text = format!("{}{secret}", "x".repeat(offset));
            let b = base64::engine::general_purpose::STANDARD.encode(text);
            let first = (8 * offset).div_ceil(6);
            let end = 8 * (offset + secret.len()) / 6;
            b[first..end].to_string()
        })
        .collect()
}

/// The secret's base64, and the base64 of texts that hold it at each offset, wrapped as GNU
/// `base64` (76 columns, and `-w 60`), Python's `encodebytes` with MIME's `\r\n` and an indented
/// YAML block write it: each line a command prints is masked, and no output read without its
/// line breaks holds any piece of the secret's base64.
#[test]
fn wrapped_base64_of_a_secret_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "w.yaml",
        r#"name: wrapped base64
secrets: [LONG_SECRET]
steps:
  - id: w
    exec:
      - sh
      - -c
      - |
        printf %s "$LONG_SECRET" | base64
        printf %s "$LONG_SECRET" | base64 -w 60
        printf 'user:%s' "$LONG_SECRET" | base64
        printf '{"auths":{"r.example.com":{"auth":"%s"}}}' "$LONG_SECRET" | base64
        python3 -c 'import base64, sys; sys.stdout.write(base64.encodebytes(sys.argv[1].encode()).decode().replace(chr(10), chr(13) + chr(10)))' "xy$LONG_SECRET"
        echo "data:"
        printf 'x%s' "$LONG_SECRET" | base64 -w 64 | sed 's/^/  /'
  - exec: ["sh", "-c", "printf 'xy%s' \"$LONG_SECRET\" | base64 -w 64 >&2; exit 1"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "w.yaml", "LONG_SECRET", LONG_SECRET);
    let out = step(&report, "w")["outputs"]["stdout"].as_str().unwrap();
    assert!(out.matches("***").count() >= 6, "not masked: {out}");
    assert!(stderr.contains("stderr: eHl***Q=="), "{stderr}");
    let pieces = base64_pieces(LONG_SECRET);
    for (where_, text) in everything(d.path(), &[("stdout", &stdout), ("stderr", &stderr)]) {
        let joined: String = text
            .replace(['\r', '\n', ' '], "")
            .replace("\\r", "")
            .replace("\\n", "")
            .replace("%0D", "")
            .replace("%0A", "");
        for p in &pieces {
            assert!(!joined.contains(p.as_str()), "{p} is in {where_}:\n{text}");
        }
    }
}

/// `text` as a reader joins the base64 in it: without line breaks (as written, and escaped by
/// JSON or a URL, to any depth), the prefixes of [`wrapped_base64_behind_prefixes_is_masked`]'s
/// lines, and every character that is not base64.
fn joined_base64(text: &str) -> String {
    let mut t = text
        .replace("%0D", "")
        .replace("%0A", "")
        .replace("&gt;", "")
        .replace("app-1", "");
    while let Some(at) = t.find("2026-11-28T10:00:") {
        t.replace_range(at..at + "2026-11-28T10:00:00Z".len(), "");
    }
    let mut out = String::with_capacity(t.len());
    let mut slashes = false;
    for c in t.chars() {
        if c == '\\' {
            slashes = true;
        } else if !(slashes && matches!(c, 'n' | 'r')) {
            slashes = false;
            if c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=') {
                out.push(c);
            }
        }
    }
    out
}

/// Wrapped base64 of a secret with a prefix on each line (a quoted block's `> `, docker
/// compose's `app-1  | `, a timestamp), and inside a JSON string inside a JSON string (its line
/// breaks `\\n`, `\\r\\n`; `\\\\n` a level deeper): masked, and no output read as a reader joins
/// the base64 holds any piece of the secret's base64 (eleventh attack, G10).
#[test]
fn wrapped_base64_behind_prefixes_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "w.yaml",
        r#"name: wrapped base64 behind prefixes
secrets: [LONG_SECRET]
steps:
  - id: w
    exec:
      - sh
      - -c
      - |
        printf %s "$LONG_SECRET" | base64 -w 20 | sed 's/^/> /'
        printf 'user:%s' "$LONG_SECRET" | base64 | sed 's/^/app-1  | /'
        printf 'x%s' "$LONG_SECRET" | base64 -w 64 | awk '{ printf "2026-11-28T10:00:%02dZ %s\n", NR + 8, $0 }'
  - id: j
    exec:
      - python3
      - -c
      - |
        import base64, json, os
        auths = '{"auths":{"r.example.com":{"auth":"%s"}}}' % os.environ["LONG_SECRET"]
        b = base64.encodebytes(auths.encode()).decode()
        print(json.dumps({"k": json.dumps({"data": b})}))
        print(json.dumps({"k": json.dumps({"data": b.replace("\n", "\r\n")})}))
        print(json.dumps(json.dumps({"k": json.dumps({"data": b})})))
  - exec: ["sh", "-c", "printf 'xy%s' \"$LONG_SECRET\" | base64 -w 40 | sed 's/^/> /' >&2; exit 1"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "w.yaml", "LONG_SECRET", LONG_SECRET);
    let out = step(&report, "w")["outputs"]["stdout"].as_str().unwrap();
    assert!(out.matches("***").count() >= 3, "not masked: {out}");
    let json = step(&report, "j")["outputs"]["stdout"].as_str().unwrap();
    assert_eq!(json.lines().count(), 3, "{json}");
    assert!(
        json.lines().all(|l| l.contains("***")),
        "not masked: {json}"
    );
    assert!(stderr.contains("stderr: > eHl***"), "{stderr}");
    let pieces = base64_pieces(LONG_SECRET);
    for (where_, text) in everything(d.path(), &[("stdout", &stdout), ("stderr", &stderr)]) {
        let joined = joined_base64(&text);
        for p in &pieces {
            assert!(!joined.contains(p.as_str()), "{p} is in {where_}:\n{text}");
        }
    }
}

/// The secret's base64 as the shell joins its lines (`echo Basic $B`: word splitting puts a
/// space where `base64` broke the line), with ` \` at each line's end, and behind line numbers
/// that grow a digit (`[9] `, `[10] `): masked, and no output read as a reader joins the base64
/// holds any piece of the secret's base64 (thirteenth attack, B2).
#[test]
fn base64_joined_by_the_shell_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "w.yaml",
        r#"name: base64 joined by the shell
secrets: [LONG_SECRET]
steps:
  - id: w
    exec:
      - sh
      - -c
      - |
        B=$(printf %s "$LONG_SECRET" | base64); echo Authorization: Basic $B
        B=$(printf 'user:%s' "$LONG_SECRET" | base64 -w 20); echo $B
        printf 'xy%s' "$LONG_SECRET" | base64 | sed 's/$/ \\/'
        printf 'x%s' "$LONG_SECRET" | base64 -w 20 | awk '{ printf "[%d] %s\n", NR + 7, $0 }'
  - exec: ["sh", "-c", "B=$(printf 'xy%s' \"$LONG_SECRET\" | base64); echo $B >&2; exit 1"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "w.yaml", "LONG_SECRET", LONG_SECRET);
    let out = step(&report, "w")["outputs"]["stdout"].as_str().unwrap();
    // What a match was made of goes with it, line breaks too.
    assert!(out.starts_with("Authorization: Basic ***"), "{out}");
    assert!(out.matches("***").count() >= 4, "not masked: {out}");
    assert!(stderr.contains("stderr: eHl***"), "{stderr}");
    let pieces = base64_pieces(LONG_SECRET);
    for (where_, text) in everything(d.path(), &[("stdout", &stdout), ("stderr", &stderr)]) {
        // The line numbers out, as a reader leaves them out.
        let mut t = text.clone();
        while let Some(at) = t
            .find('[')
            .filter(|&at| t[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
        {
            let end = t[at..].find(']').map_or(t.len(), |e| at + e + 1);
            t.replace_range(at..end, "");
        }
        let joined = joined_base64(&t);
        for p in &pieces {
            assert!(!joined.contains(p.as_str()), "{p} is in {where_}:\n{text}");
        }
    }
}

/// A secret with a quote of each kind, a space, `&` and `$`.
const SHELL_SECRET: &str = "Vault'99 31&Kes\"trel$x";

/// A secret as `printf %q`, `${x@Q}`, `declare -p`, `shlex.quote` and `set -x` print it, and
/// inside YAML single quotes and CSV double quotes (quotes doubled): masked in each.
#[test]
fn shell_quoted_forms_of_a_secret_are_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "q.yaml",
        r#"name: shell quoting
secrets: [SHELL_SECRET]
steps:
  - id: q
    exec:
      - bash
      - -c
      - |
        printf 'printf: %q\n' "$SHELL_SECRET"
        echo "at: ${SHELL_SECRET@Q}"
        declare -p SHELL_SECRET
        python3 -c 'import shlex, sys; print("shlex:", shlex.quote(sys.argv[1]))' "$SHELL_SECRET"
        printf "yaml: '%s'\n" "$(printf %s "$SHELL_SECRET" | sed "s/'/''/g")"
        printf 'csv: "%s"\n' "$(printf %s "$SHELL_SECRET" | sed 's/"/""/g')"
  - exec: ["bash", "-c", "set -x; curl_like() { :; }; curl_like -u \"admin:$SHELL_SECRET\" http://x; exit 1"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "q.yaml", "SHELL_SECRET", SHELL_SECRET);
    assert_eq!(
        step(&report, "q")["outputs"]["stdout"],
        "printf: ***\nat: '***'\ndeclare -x SHELL_SECRET=\"***\"\nshlex: '***'\nyaml: '***'\ncsv: \"***\"",
        "{report}"
    );
    assert!(
        stderr.contains("curl_like -u 'admin:***' http://x"),
        "{stderr}"
    );
    let forms = [
        ("the secret's head", "Vault".to_string()),
        ("its tail", "trel".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// Secrets that are numbers, in an answer's JSON as a parser writes them back (`00482139` as
/// `482139`, `99317.250` as `99317.25`): masked in the parsed `json` output and wherever a
/// template prints them.
#[test]
fn a_number_secret_is_masked_in_its_canonical_forms() {
    let d = tempfile::tempdir().unwrap();
    // The answer, served from outside the directory searched.
    let site = tempfile::tempdir().unwrap();
    write(
        site.path(),
        "pin.json",
        r#"{"pin": 482139, "amount": 99317.250, "note": "ok"}"#,
    );
    write(
        d.path(),
        "n.yaml",
        &r#"name: numbers
secrets: [PIN, AMT]
web_server: { static: "SITE" }
steps:
  - id: r
    request: { url: "{{ web_server.url }}/pin.json" }
  - exec: ["echo", "pin {{ steps.r.json.pin }} amt {{ steps.r.json.amount }}"]
  - exec: ["sh", "-c", "exit 1"]
"#
        .replace("SITE", &site.path().display().to_string()),
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_everywhere_with(
        d.path(),
        &["n.yaml"],
        &[("PIN", "00482139"), ("AMT", "99317.250")],
    );
    assert_eq!(code, 1, "{stderr}");
    let json = &step(&report, "r")["outputs"]["json"];
    assert_eq!(json["pin"], "***", "{report}");
    assert_eq!(json["amount"], "***", "{report}");
    assert_eq!(json["note"], "ok", "{report}");
    assert!(stderr.contains("pin *** amt ***"), "{stderr}");
    let forms = [
        ("the PIN as a number", "482139".to_string()),
        ("the amount as a number", "99317.25".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// A secret with both quotes, a backslash, a tab and a `$`: Python's `repr` writes it in single
/// quotes with `\'`, `\\` and `\t`; Perl's `Data::Dumper` with `\'` and `\\` (the tab as is).
const REPR_SECRET: &str = "Vault'99\"31\\Kes\ttrel$x";

/// A secret as Python's `repr` (a dict printed, on stdout and in a failing command's stderr)
/// and Perl's `Data::Dumper` print it: masked in each, nowhere shown.
#[test]
fn a_secret_as_repr_and_data_dumper_write_it_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "r.yaml",
        r#"name: repr
secrets: [REPR_SECRET]
steps:
  - id: py
    exec: ["python3", "-c", "import os; print({'password': os.environ['REPR_SECRET']})"]
  - id: pl
    exec: ["perl", "-MData::Dumper", "-e", "$Data::Dumper::Terse=1; $Data::Dumper::Indent=0; print Dumper({password => $ENV{REPR_SECRET}})"]
  - exec: ["python3", "-c", "import os,sys; sys.stderr.write(repr(dict(T=os.environ['REPR_SECRET']))+'\\n'); sys.exit(1)"]
"#,
    );
    let Ran {
        stdout,
        stderr,
        report,
        ..
    } = run_failing_last(d.path(), "r.yaml", "REPR_SECRET", REPR_SECRET);
    assert_eq!(
        step(&report, "py")["outputs"]["stdout"],
        "{'password': '***'}",
        "{report}"
    );
    assert_eq!(
        step(&report, "pl")["outputs"]["stdout"],
        "{'password' => '***'}",
        "{report}"
    );
    assert!(stderr.contains("{'T': '***'}"), "{stderr}");
    let forms = [
        ("the secret's head", "Vault".to_string()),
        ("its tail", "trel$x".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}

/// A secret with an accent, a tab and a `'`; and one with an accent alone (which `set -x`
/// writes in `$'...'`: it writes a word with a tab or a `'` in plain single quotes).
const ANSI_SECRET: &str = "Kestrel-Vault\u{e9}'99\t31";
const XTRACE_SECRET: &str = "Zulu-Vault\u{e9}-9931";

/// A secret as bash's `printf %q`, `${x@Q}` and `set -x` write it as `$'...'`: in the C locale
/// (most CI containers) with each byte of the accent in octal (`\303\251`), in a UTF-8 locale
/// with the accent as is; `'` as `\'`, the tab as `\t`. Masked in each, nowhere shown.
#[test]
fn a_secret_as_bash_writes_it_in_dollar_quotes_is_masked() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "a.yaml",
        r#"name: dollar quotes
secrets: [ANSI_SECRET, XTRACE_SECRET]
steps:
  - id: c
    exec: ["env", "LC_ALL=C", "bash", "-c", "printf '%q\\n' \"$ANSI_SECRET\"; echo \"${ANSI_SECRET@Q}\""]
  - id: u
    exec: ["env", "LC_ALL=C.UTF-8", "bash", "-c", "printf '%q\\n' \"$ANSI_SECRET\"; echo \"${ANSI_SECRET@Q}\""]
  - exec: ["env", "LC_ALL=C", "bash", "-c", "set -x; login() { :; }; login --password \"$XTRACE_SECRET\"; exit 1"]
"#,
    );
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = run_everywhere_with(
        d.path(),
        &["a.yaml"],
        &[
            ("ANSI_SECRET", ANSI_SECRET),
            ("XTRACE_SECRET", XTRACE_SECRET),
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    for id in ["c", "u"] {
        assert_eq!(
            step(&report, id)["outputs"]["stdout"],
            "$'***'\n$'***'",
            "{report}"
        );
    }
    assert!(stderr.contains("login --password $'***'"), "{stderr}");
    let forms = [
        ("the secret's head", "Kestrel".to_string()),
        ("the other's head", "Zulu".to_string()),
        ("their middle", "Vault".to_string()),
    ];
    nowhere_shown(
        d.path(),
        &[("stdout", &stdout), ("stderr", &stderr)],
        &forms,
    );
}
