//! A secret a page formats as it is typed (a card number in groups of 4, a key with dashes) or
//! cuts (`maxlength`, also on a password field), in what a run writes (attack 26's C2): the
//! `fill`/`type` read-back and `expect value` still fail, but say what is wrong without what the
//! field holds, and the masker finds the secret with separators between its characters.
//! Pages: `tests/fixtures/formatted-secrets` (`index.html`: `#card` groups digits by 4 with
//! spaces, `#dash` characters by 4 with `-`; `max.html`: `maxlength=12` text and password).

use crate::common::{fixture, flow_run, write};

const CARD: &str = "4929173650218342";
const TOK: &str = "Kx7Wq2Rn8Lp5Vb3M";

/// Whether `text` shows a piece of [`CARD`] or [`TOK`] of 4 characters or more, in any
/// grouping (separators out) or case.
fn shows_a_piece(text: &str) -> Option<String> {
    let joined: String = text
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '.' | '/' | '_'))
        .collect::<String>()
        .to_lowercase();
    for secret in [CARD, TOK] {
        let s = secret.to_lowercase();
        for at in (0..s.len() - 4).step_by(4) {
            let piece = &s[at..at + 8.min(s.len() - at)];
            if joined.contains(piece) {
                return Some(piece.to_string());
            }
        }
    }
    None
}

/// Every text file under `dir`, with its path.
fn texts(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(texts(&p));
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out.push((p.display().to_string(), t));
        }
    }
    out
}

/// How many files under `dir` have a name ending in `end`.
fn files_named(dir: &std::path::Path, end: &str) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            n += files_named(&p, end);
        } else if p.to_string_lossy().ends_with(end) {
            n += 1;
        }
    }
    n
}

/// Before the fix the console and report.json quoted `4929 1736 5021 8342`,
/// `Kx7W-q2Rn-8Lp5-Vb3M`, and `Kx7Wq2Rn8Lp5` (the 12 characters a `maxlength` kept, from a
/// password field too); `expect value` quoted the formatted and the cut values. Now the
/// steps still fail (a page that changes what it is given is a failure), saying how many
/// characters the field holds, and nothing runner writes shows a piece of either secret.
#[test]
fn a_secret_the_page_formats_or_cuts_is_not_shown() {
    let d = tempfile::tempdir().unwrap();
    let site = fixture("formatted-secrets");
    let on_error = "    continue_on_error: true\n";
    let mut steps = String::new();
    for (target, secret) in [("#card", "CARD"), ("#dash", "TOK")] {
        for command in ["fill", "type"] {
            steps.push_str(&format!(
                "  - {command}: {{ target: \"{target}\", value: \"{{{{ secrets.{secret} }}}}\" }}\n{on_error}"
            ));
        }
    }
    steps.push_str(&format!("  - expect: {{ value: {{ target: \"#dash\", equals: \"{{{{ secrets.TOK }}}}\" }} }}\n    timeout: 1s\n{on_error}"));
    steps.push_str("  - open: \"{{ web_server.url }}/max.html\"\n");
    for target in ["#pw", "#t"] {
        steps.push_str(&format!(
            "  - fill: {{ target: \"{target}\", value: \"{{{{ secrets.TOK }}}}\" }}\n{on_error}"
        ));
    }
    steps.push_str(&format!("  - expect: {{ value: {{ target: \"#t\", equals: \"{{{{ secrets.TOK }}}}\" }} }}\n    timeout: 1s\n{on_error}"));
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: formatted\nsecrets: [CARD, TOK]\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{steps}",
            site.display()
        ),
    );
    let ran = flow_run(d.path())
        .env("CARD", CARD)
        .env("TOK", TOK)
        .args(["f.yaml", "--trace", "on", "--report", "html=h"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let console = format!("{}{}", ran.stdout, ran.stderr);
    let steps = ran.report["flows"][0]["steps"].as_array().unwrap();
    let failed: Vec<String> = steps
        .iter()
        .filter(|s| s["outcome"] == "failed")
        .map(|s| {
            s["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    // The four on the formatting fields, the two on max.html and both checks: still failures.
    assert_eq!(failed.len(), 8, "{failed:#?}\n{console}");
    let typed = failed
        .iter()
        .filter(|m| m.contains("characters, not the 16 typed"));
    assert_eq!(typed.count(), 6, "{failed:#?}");
    assert!(failed[4].contains("got 39 characters"), "{}", failed[4]);
    assert!(failed[7].contains("got 12 characters"), "{}", failed[7]);
    // The page shows the secret (formatted, or the part a maxlength kept): no screenshot is
    // kept, but of the password field (its dots).
    let shots: Vec<&serde_json::Value> = steps
        .iter()
        .filter(|s| s["outcome"] == "failed" && s["name"] != "fill css `#pw`")
        .filter(|s| s["failure_artifacts"]["screenshot_left_out"] != "the page showed a secret")
        .collect();
    assert!(shots.is_empty(), "{shots:#?}");
    let pngs = files_named(&d.path().join("art"), "-failure.png");
    assert_eq!(pngs, 1);
    let mut all = vec![("console".to_string(), console)];
    all.extend(
        texts(d.path())
            .into_iter()
            .filter(|(p, _)| !p.ends_with("/f.yaml")),
    );
    for (path, text) in all {
        let piece = shows_a_piece(&text);
        let at = piece
            .as_ref()
            .and_then(|p| text.to_lowercase().find(&p[..4]));
        let near = at.map(|a| {
            text.get(a.saturating_sub(200)..a + 200)
                .unwrap_or(&text[a..])
        });
        assert_eq!(piece, None, "{path}: {near:?}");
    }
}

/// Session 23's review (F4): with `PIN=12345678`, a page showing `Order 1234-5678` lost its
/// failure screenshot ("the page showed a secret"), and lines that only hold a short secret's
/// characters in order with separators between them were `***` in the console and the report.
/// A formatted secret on the same page still leaves the screenshot out.
#[test]
fn a_page_showing_a_number_like_a_short_secret_keeps_its_screenshot() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/order.html",
        "<!doctype html><html><body><h1>Order 1234-5678</h1><p id=\"s\">pending</p></body></html>",
    );
    write(
        d.path(),
        "site/card.html",
        "<!doctype html><html><body><h1>Card 1234 5678 9012 3456</h1><p id=\"s\">pending</p></body></html>",
    );
    let lines = "date 1234-5678 | version 1.2.3.4.5.6.7.8 | order 12-34-56-78 | build 8765.4321 | test_user_login | pass word ok";
    for (name, page) in [("order", "order"), ("card", "card")] {
        write(
            d.path(),
            &format!("{name}.yaml"),
            &format!(
                "name: {name}\nsecrets: [PIN, PW, USERPW, CARD]\nweb_server: {{ static: site }}\nsteps:\n  - log: \"{lines}\"\n  - open: \"{{{{ web_server.url }}}}/{page}.html\"\n  - expect: {{ text: {{ target: \"#s\", equals: shipped }} }}\n    timeout: 1s\n"
            ),
        );
    }
    let ran = flow_run(d.path())
        .env("PIN", "12345678")
        .env("PW", "password")
        .env("USERPW", "testuser")
        .env("CARD", "1234567890123456")
        .args(["order.yaml", "card.yaml"])
        .run();
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let flows = ran.report["flows"].as_array().unwrap();
    let arts = |name: &str| {
        let flow = flows.iter().find(|f| f["name"] == name).unwrap();
        flow["steps"][2]["failure_artifacts"].clone()
    };
    let (order, card) = (arts("order"), arts("card"));
    assert!(order["screenshot"].is_string(), "{order}");
    assert!(order["screenshot_left_out"].is_null(), "{order}");
    assert_eq!(
        card["screenshot_left_out"], "the page showed a secret",
        "{card}"
    );
    assert!(card["screenshot"].is_null(), "{card}");
    let console = format!("{}{}", ran.stdout, ran.stderr);
    assert!(console.contains(lines), "{console}");
}
