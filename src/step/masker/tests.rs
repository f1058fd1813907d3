use super::*;
use base64::Engine;

#[test]
fn cuts_after_masking_on_char_boundaries() {
    let m = Masker::new(["Kestrel-Vault".to_string()]);
    let text = format!("{}Kestrel-Vault tail", "x".repeat(8));
    assert_eq!(m.mask_cut(&text, 12), "xxxxxxxx*** …");
    assert_eq!(m.mask_cut(&text, 100), "xxxxxxxx*** tail");
    assert_eq!(m.mask_cut_line("a \n\t Kestrel-Vault  é b", 8), "a *** é …");
    let held = format!("{}Kestrel-Va", "x".repeat(60));
    let shown = m.mask_cut_held(&held, true, false, 100);
    assert!(
        shown.starts_with("xxxx") && shown.ends_with("x…"),
        "{shown}"
    );
    assert_eq!(m.mask_cut_held(&held, false, false, 100), held);
    assert_eq!(cut("ééé", 2), "éé…");
    assert_eq!(cut("ééé", 3), "ééé");
}

#[test]
fn masks_longest_first_and_overlaps_together() {
    let m = Masker::new(["abc".to_string(), "abcdef".to_string(), String::new()]);
    assert_eq!(m.mask("x abcdef y abc"), "x *** y ***");
    assert_eq!(
        m.mask_value(&serde_json::json!({"a": ["abc"], "abc": 1})),
        serde_json::json!({"a": ["***"], "***": 1})
    );
    let m = Masker::new(["abcXYZ".to_string(), "XYZdef".to_string()]);
    assert_eq!(m.mask("1 abcXYZdef 2"), "1 *** 2");
}

#[test]
fn masks_lines_and_encodings() {
    let pem = "-----BEGIN KEY-----\nMIIBVwIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----";
    let m = Masker::new([pem.to_string(), "p@ss word\"\\é".to_string()]);
    assert_eq!(m.mask("line: hkiG9w0BAQEFAASC"), "line: ***");
    assert_eq!(m.mask("MIIBVwIBADANBgkq | hkiG9w0BAQEFAASC"), "*** | ***");
    assert_eq!(m.mask(r#"{"v":"p@ss word\"\\é"}"#), r#"{"v":"***"}"#);
    assert_eq!(m.mask("?pw=p%40ss%20word%22%5C%C3%A9"), "?pw=***");
    assert_eq!(m.mask("?pw=p%40ss+word%22%5C%C3%A9"), "?pw=***");
    let b64 = base64::engine::general_purpose::STANDARD.encode("p@ss word\"\\é");
    assert_eq!(m.mask(&format!("basic {b64}")), "basic ***");
    // Each encoder leaves its own set unescaped.
    let m = Masker::new(["a-b.c~d(e)/f g*h".to_string()]);
    for encoded in [
        "a-b.c~d(e)%2Ff%20g*h",     // encodeURIComponent
        "a-b.c~d(e)/f%20g*h",       // encodeURI
        "a-b.c%7Ed%28e%29%2Ff+g*h", // URLSearchParams, HTML forms
        "a-b.c~d%28e%29%2Ff+g%2Ah", // Go's QueryEscape, Python's quote_plus
        "a%2Db%2Ec%7Ed%28e%29%2Ff%20g%2Ah",
    ] {
        assert_eq!(m.mask(&format!("?q={encoded}&x")), "?q=***&x", "{encoded}");
    }
}

#[test]
fn the_base64_of_a_text_holding_a_secret_is_masked_where_the_secret_is() {
    use base64::engine::general_purpose::{STANDARD, URL_SAFE, URL_SAFE_NO_PAD};
    let secret = "hunter2>?~s3?cret";
    let m = Masker::new([secret.to_string()]);
    // At each offset in a 3-byte group, before and after other text, in every alphabet.
    for prefix in ["", "u", "us", "user:", "Authorization: Basic user:"] {
        for suffix in ["", "!", "\n", "!!!!"] {
            let text = format!("{prefix}{secret}{suffix}");
            let b = STANDARD.encode(&text);
            let in_url = b
                .replace('+', "%2B")
                .replace('/', "%2F")
                .replace('=', "%3D");
            for b in [
                b,
                in_url,
                URL_SAFE.encode(&text),
                URL_SAFE_NO_PAD.encode(&text),
            ] {
                let masked = m.mask(&format!("[{b}]"));
                assert!(masked.contains("***"), "{text}: {b} -> {masked}");
                // What is left is the text around, and the character at either end of the
                // secret that it shares with it.
                let left = masked.replace("***", "").replace("%3D", "=");
                let around = STANDARD.encode(prefix).len() + STANDARD.encode(suffix).len() + 6;
                assert!(left.len() <= around, "{text}: {b} -> {masked}");
            }
        }
    }
    // A secret too short for its inner parts is masked by its own forms only.
    assert!(super::super::secret_forms::base64_inside(b"ab").is_empty());
    assert_eq!(
        super::super::secret_forms::base64_inside(b"abcdef").len(),
        3
    );
}

#[test]
fn a_secret_split_by_what_is_taken_out_where_it_is_shown_is_masked_whole() {
    let m = Masker::new(["kestrel-Vault-9931".to_string()]);
    for between in [
        "\u{1}",
        "\u{1b}[0m",
        "\r",
        "\u{1b}]0;title\u{7}",
        "\u{1b}",
        "\u{200b}",
        "\u{9b}",
        "\u{7f}",
        "\u{202e}",
    ] {
        let text = format!("a kestrel-{between}Vault-9931 b");
        assert_eq!(m.mask(&text), "a *** b", "{text:?}");
        assert!(m.holds_secret(&text), "{text:?}");
    }
    // A `***` put after an ESC changes what the escape takes with it (`ESC * * * C`, where
    // `ESC z` took only the `z`): the text masked is looked at again.
    let m = Masker::new(["zz".to_string(), "kestrel-Vault".to_string()]);
    assert_eq!(m.mask("kestrel-\u{1b}zzCVault"), "***");
    // Text without such characters is not looked at twice (nor changed).
    assert_eq!(m.mask("x\ty\n"), "x\ty\n");
}

#[test]
fn derived_values_are_masked_from_four_characters() {
    let m = Masker::default();
    assert!(m.is_empty() && !m.holds_secret("x"));
    m.add_derived(["11".to_string(), " ab ".to_string(), "S3CR".to_string()]);
    assert_eq!(m.mask("11 ab S3CR"), "11 ab ***");
    assert!(!m.is_empty() && m.holds_secret("xS3CRx") && !m.holds_secret("s3cr"));
    // A secret itself is masked whatever its length.
    m.add("q");
    assert_eq!(m.mask("q"), "***");
}

#[test]
fn clones_learn_what_one_adds() {
    let m = Masker::new(["s3cret".to_string()]);
    let c = m.clone();
    m.add("S3CRET");
    assert_eq!(c.mask("S3CRET s3cret"), "*** ***");
}

#[test]
fn pieces_of_a_secret_are_masked_and_other_texts_beside_them_are_not() {
    let m = Masker::new(["kestrel-Vault-9931".to_string()]);
    m.add_derived(["user:kestrel-Vault-9931".to_string()]);
    m.add_shapes([r#"["kestrel","Vault","9931"]"#.to_string()], false);
    m.add_pieces(["KESTREL", "9931", "1399", "lert", "alice", "Vau", "user"].map(String::from));
    assert_eq!(
        m.mask("KESTREL 9931 1399 lert alice Vau user"),
        "*** *** *** *** alice Vau user"
    );
    // A list or map whose JSON shows a shape is masked whole; one that does not, by piece.
    let chars = serde_json::json!({"c": ["k", "e", "y", "s"], "who": "alice"});
    let m = Masker::new(["keys".to_string()]);
    assert_eq!(m.mask_value(&chars), chars, "no shape: single letters stay");
    m.add_shapes([r#"["k","e","y","s"]"#.to_string()], false);
    assert_eq!(
        m.mask_value(&chars),
        serde_json::json!({"c": "***", "who": "alice"})
    );
}

#[test]
fn many_forms_mask_a_large_output_quickly() {
    // 100 secrets and 100 values made of them, each with characters every encoding writes
    // differently (some 60 forms each), over 4 MB of output.
    let m = Masker::default();
    for i in 0..100 {
        m.add(&format!("s3cr\"t&<{i}>/+ö'x"));
        m.add_derived([format!("DERIVED \"{i}\" & <Ö>")]);
    }
    let line = "an ordinary line of output with \"quotes\" & <tags> and 100% of it plain\n";
    let text = format!(
        "{}s3cr\"t&<42>/+ö'x",
        line.repeat(4 * 1024 * 1024 / line.len())
    );
    let started = std::time::Instant::now();
    assert!(m.holds_secret("DERIVED \"7\" & <Ö>"));
    let built = started.elapsed();
    let started = std::time::Instant::now();
    let masked = m.mask(&text);
    let took = started.elapsed();
    assert!(
        masked.ends_with("plain\n***"),
        "{}",
        &masked[masked.len() - 40..]
    );
    // Unoptimised (debug) code on a shared machine: the bound is loose, the point is that
    // it does not grow with the number of forms (one pass of the automaton).
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    let forms = m.inner.read().unwrap().values.len();
    eprintln!("{forms} forms: matcher built in {built:?}, 4 MB masked in {took:?}");
}

/// The bytes of every form the masker matches.
fn pattern_bytes(m: &Masker) -> usize {
    m.inner.read().unwrap().values.iter().map(String::len).sum()
}

#[test]
fn a_secret_is_masked_in_the_cases_and_reverses_the_filters_make_of_it() {
    let m = Masker::new(["Kestrel-Vault-9931".to_string()]);
    assert_eq!(
        m.mask("KESTREL-VAULT-9931 kestrel-vault-9931 1399-tluaV-lertseK 1399-TLUAV-LERTSEK"),
        "*** *** *** ***"
    );
    // As a JSON string holds them.
    assert_eq!(m.mask(r#"{"a":"1399-TLUAV-LERTSEK"}"#), r#"{"a":"***"}"#);
    // Only the secret is looked for in pieces (any case, reversed, as before).
    m.add_pieces(["Vault".to_string(), "tluav".to_string(), "bob".to_string()]);
    assert_eq!(m.mask("Vault tluav bob"), "*** *** bob");
}

#[test]
fn what_is_learned_of_values_made_of_a_secret_is_bounded() {
    let secret = "Kestrel-Vault-9931";
    let m = Masker::new([secret.to_string()]);
    let before = pattern_bytes(&m);
    // A megabyte made of a command's output that holds the token (`| trim`, `| upper`), and
    // its list shape: not learned whole; the token in it is masked as it shows.
    let big = format!("{} token={secret}", "abcdefghij".repeat(100_000));
    let upper = big.to_uppercase();
    m.add_derived([big.clone(), upper.clone()]);
    m.add_shapes([format!("[\"{big}\"]")], false);
    assert_eq!(
        pattern_bytes(&m),
        before,
        "nothing of a megabyte is learned"
    );
    assert!(m.mask(&big).ends_with("abcdefghij token=***"));
    assert!(m.mask(&upper).ends_with("ABCDEFGHIJ TOKEN=***"));
    // A small value made of one is learned whole, with its forms.
    m.add_derived(["token=Kestrel Vault 9931".to_string()]);
    assert_eq!(m.mask("[token=Kestrel Vault 9931]"), "[***]");
    // A loop of values of a few KiB each holding the token: learned up to the budget, then
    // only those that show no secret as it is (a transform of one) are learned.
    for i in 0..2000 {
        let around = format!("{i:>5} {} token={secret}", "x".repeat(3000));
        m.add_derived([around]);
    }
    let spent = pattern_bytes(&m);
    assert!(
        spent < before + LEARN_BUDGET + 100 * MAX_LEARNED,
        "{spent} bytes learned"
    );
    m.add_derived([format!("{} token=kestrel+vault+9931", "y".repeat(3000))]);
    assert!(m.mask(&format!("{} token=kestrel+vault+9931", "y".repeat(3000))) == "***");
    // With separators only between its characters it is the secret, masked as it shows.
    let spaced = m.mask(&format!("{} token=kestrel vault 9931", "y".repeat(3000)));
    assert!(spaced.ends_with("y token=***"), "{}", &spaced[2990..]);
}

#[test]
fn pieces_a_secret_made_are_masked_and_of_long_ones_the_secrets_ends() {
    let m = Masker::new(["Kestrel-Vault-9931-Zulu".to_string()]);
    // `.split('-')` of `token=Kestrel-Vault-9931-Zulu user=bob`: pieces across its edges.
    m.add_made_pieces(["token=Kestrel", "Vault", "Zulu user=bob"].map(String::from));
    assert_eq!(
        m.mask("token=Kestrel | Vault | Zulu user=bob | bob"),
        "*** | *** | *** | bob"
    );
    // Of a piece too long to learn whole, the secret's end at either end of it, in any case.
    let long = |head: &str, tail: &str| format!("{head} {} {tail}", "a".repeat(5000));
    m.add_made_pieces([long("ZULU", "x=kestrel-v"), long("ulu", "Kes")]);
    let shown = m.mask(&long("ZULU", "x=kestrel-v"));
    assert!(
        shown.starts_with("*** aaa") && shown.ends_with("aaa x=***"),
        "{shown}"
    );
    // Fewer than MIN_PART characters: left as they are.
    assert_eq!(m.mask(&long("ulu", "Kes")), long("ulu", "Kes"));
}

#[test]
fn past_the_budget_of_a_piece_a_secret_made_only_the_secrets_ends_are_learned() {
    let m = Masker::new(["Kestrel-Vault-9931-Zulu".to_string()]);
    for i in 0..40 {
        m.add_derived([format!("{i} {} Kestrel-Vault-9931-Zulu", "<".repeat(3000))]);
    }
    assert!(m.learned() >= LEARN_BUDGET, "{}", m.learned());
    let learned = m.learned();
    for i in 0..100 {
        m.add_made_pieces([format!("{i} {} token=Kestrel", "y".repeat(1000))]);
    }
    assert!(
        m.learned() < learned + 1000,
        "{} after {learned}",
        m.learned()
    );
    let shown = m.mask(&format!("7 {} token=Kestrel", "y".repeat(1000)));
    assert!(shown.ends_with("yy token=***"), "{shown}");
}

#[test]
fn a_secret_is_hidden_with_its_punctuation_where_it_is() {
    let m = Masker::new(["Kestrel-Vault-9931-Zulu".to_string()]);
    let h = m.hidden("user=Kestrel-Vault-9931-Zulu\nnext").unwrap();
    // Split at its dashes as the secret is; nothing of its letters or digits is left.
    let parts: Vec<&str> = h.split('-').collect();
    assert_eq!(parts.len(), 4, "{h:?}");
    assert!(parts[0].starts_with("user=") && parts[3].ends_with("\nnext"));
    assert_eq!(
        h.chars().count(),
        "user=Kestrel-Vault-9931-Zulu\nnext".len()
    );
    let inside: String = h.chars().skip(5).take(23).collect();
    assert!(
        inside
            .chars()
            .all(|c| c == '-' || ('\u{e000}'..='\u{e03f}').contains(&c)),
        "{h:?}"
    );
    // Each character another than the one before: what differs is found character by
    // character.
    let chars: Vec<char> = inside.chars().filter(|c| *c != '-').collect();
    assert!(chars.windows(2).all(|w| w[0] != w[1]), "{h:?}");
    // At its ends, in a run longer than 7 and in a secret of fewer than 4 other characters,
    // its punctuation is hidden too.
    for secret in ["-Kestrel.Vault-", "Kestrel........Vault", "(!ab-c!)"] {
        let m = Masker::new([secret.to_string()]);
        let h = m.hidden(secret).unwrap();
        let kept: String = h.chars().filter(char::is_ascii).collect();
        let want = match secret {
            "-Kestrel.Vault-" => ".",
            _ => "",
        };
        assert_eq!(kept, want, "{secret}: {h:?}");
    }
}

/// A panic while the masker's lock was held for writing (poisoned), or a matcher that cannot
/// be built: the masker masks everything, never nothing.
#[test]
fn a_masker_that_cannot_look_for_its_secrets_masks_everything() {
    let secret = "Kestrel-Vault-9931";
    let m = Masker::new([secret.to_string()]);
    let held = m.clone();
    let poisoned = std::thread::spawn(move || {
        let _w = held.inner.write();
        panic!("a panic while the lock is held");
    })
    .join();
    assert!(poisoned.is_err() && m.inner.is_poisoned());
    let broken = Masker::new([secret.to_string()]);
    FAIL_BUILD.with(|f| f.set(true));
    let shown = [m.clone(), broken.clone()].map(|m| {
        let value = serde_json::json!({"t": format!("token={secret}"), "n": [1]});
        (
            m.mask(&format!("token={secret}")),
            m.mask_cut(&format!("token={secret} and more"), 10),
            m.mask_value(&value).to_string(),
            m.holds_secret("token=x"),
            m.is_empty(),
        )
    });
    FAIL_BUILD.with(|f| f.set(false));
    for (masked, cut, value, holds, empty) in shown {
        assert_eq!(masked, "***");
        assert_eq!(cut, "***");
        assert!(!value.contains("Kestrel"), "{value}");
        assert!(holds && !empty);
    }
    // A secret added to a poisoned masker: masked too.
    m.add("Osprey-Harbor");
    assert_eq!(m.mask("Osprey-Harbor"), "***");
    // Nothing to mask: a text stays as it is.
    assert_eq!(Masker::default().mask("plain"), "plain");
}

/// A value made of a secret too long to learn with all its forms, whose second evaluation
/// told nothing (`| int + 1` of a PIN after a whole output): learned whole, within its bounds.
#[test]
fn a_long_value_of_which_nothing_could_be_told_is_learned_whole_within_a_bound() {
    let m = Masker::new(["48213977".to_string()]);
    let value = |i: usize, lines: usize| {
        format!(
            "{}next={}",
            "a line of the build log\n".repeat(lines),
            48_213_978 + i
        )
    };
    m.add_made([value(0, 300)], false);
    assert_eq!(m.mask(&value(0, 300)), "***");
    assert_eq!(m.mask(&format!("\"{}\"", value(0, 300))), "\"***\"");
    // Told: what the secret became is learned as spans instead.
    m.add_made([value(1, 300)], true);
    assert_eq!(m.mask(&value(1, 300)), value(1, 300));
    // Past `MAX_UNTOLD` bytes, and past the budget: not learned.
    m.add_made([value(2, 4000)], false);
    assert_eq!(m.mask(&value(2, 4000)), value(2, 4000));
    for i in 3..100 {
        m.add_made([value(i, 2000)], false);
    }
    let untold = m.inner.read().unwrap().untold;
    assert!(untold < UNTOLD_BUDGET + 2 * MAX_UNTOLD, "{untold}");
    assert_eq!(m.mask(&value(99, 2000)), value(99, 2000));
}

/// A value learned whole that is all a secret became in it (`Kestrel` of `.split('-')[0]`) is
/// hidden where a later template reads it, as a span of it would be.
#[test]
fn a_span_learned_whole_before_is_hidden_as_what_a_secret_became() {
    let m = Masker::new(["Kestrel-Vault-9931-Zulu".to_string()]);
    m.add_made(["Kestrel".to_string(), "Vault".to_string()], true);
    assert_eq!(m.mask("user=Kestrel+Vault"), "user=***+***");
    m.add_spans(["Kestrel".to_string()]);
    m.add_pieces(["Vault".to_string()]);
    let h = m.hidden("user=Kestrel+Vault").unwrap_or_default();
    assert!(h.starts_with("user=") && !h.contains("Kestrel"), "{h:?}");
    assert!(!h.contains("Vault"), "{h:?}");
}

/// A secret read from a file or pasted into a CI settings page ends in a line break (attack 28's
/// E8): a command printing it without the break (`printf %s "$T" | tr -d '\n'`, `$(cat f)`) and
/// an `<input>` filled with it (which drops the break) show it without one. Before the fix the
/// masker looked only for the value with its break.
#[test]
fn a_secret_ending_in_a_line_break_is_masked_without_it() {
    let m = Masker::new([
        "trailing-Secret-4242\n".to_string(),
        "crlf-Secret-88\r\n".to_string(),
        "\r\nleading-Secret-51".to_string(),
    ]);
    for (text, shown) in [
        ("token: trailing-Secret-4242", "token: ***"),
        ("[crlf-Secret-88]", "[***]"),
        (r#"{"stdout":"crlf-Secret-88\r"}"#, r#"{"stdout":"***\r"}"#),
        ("x leading-Secret-51 y", "x *** y"),
        ("TRAILING-SECRET-4242", "***"),
        ("?t=trailing-Secret-4242&x", "?t=***&x"),
    ] {
        assert_eq!(m.mask(text), shown, "{text:?}");
    }
    // With its break, as before.
    assert_eq!(m.mask("trailing-Secret-4242\nnext"), "***next");
    // A secret of only line breaks is no secret (`is_secret_value`): nothing to mask.
    let m = Masker::new(["\r\n".to_string(), "abc".to_string()]);
    assert_eq!(m.mask("a\r\nb abc"), "a\r\nb ***");
}

/// A secret with a run of white space inside (`pass  word`, a tab: a passphrase) is shown with
/// one space where runner compares a page's text (`expect: text` says what it got
/// whitespace-normalised) and in agent-browser's snapshot (attack 28's E9). Before the fix only
/// the value as set was looked for.
#[test]
fn a_secret_with_runs_of_white_space_is_masked_normalised() {
    let m = Masker::new([
        "pass  word-Secret-77".to_string(),
        "pass\tword-Secret-78".to_string(),
        " nb\u{a0}\u{a0}sp-Secret-79\u{200b}x ".to_string(),
    ]);
    for (text, shown) in [
        (r#"got "token: pass word-Secret-77""#, r#"got "token: ***""#),
        (
            "- StaticText \"pass word-Secret-78\"",
            "- StaticText \"***\"",
        ),
        ("nb sp-Secret-79x!", "***!"),
        ("PASS WORD-SECRET-77", "***"),
        ("pass%20word-Secret-78", "***"),
    ] {
        assert_eq!(m.mask(text), shown, "{text:?}");
    }
    // As set, as before.
    assert_eq!(m.mask("pass\tword-Secret-78"), "***");
    // One space that is no run of the secret's is not masked as one.
    assert_eq!(m.mask("pass word"), "pass word");
}
