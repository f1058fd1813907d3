use super::*;

#[test]
fn json_escapes_as_each_encoder_writes_them() {
    let v = "Tøp \"q\" & <'ö'>/+\n\u{1}\u{7f}😀";
    let std = serde_json::to_string(v).unwrap();
    assert_eq!(json_escape(v, STD), std[1..std.len() - 1]);
    // DEL is no control character to JSON: it stays as it is.
    let [_, go, python, php, dotnet] =
        JSON_STYLES.map(|s| json_escape(v, s).replace('\u{7f}', "<DEL>"));
    assert_eq!(
        go, r#"Tøp \"q\" \u0026 \u003c'ö'\u003e/+\n\u0001<DEL>😀"#,
        "Go"
    );
    assert_eq!(
        python,
        r#"T\u00f8p \"q\" & <'\u00f6'>/+\n\u0001<DEL>\ud83d\ude00"#
    );
    assert_eq!(
        php,
        r#"T\u00f8p \"q\" & <'\u00f6'>\/+\n\u0001<DEL>\ud83d\ude00"#
    );
    assert_eq!(
        dotnet,
        r"T\u00F8p \u0022q\u0022 \u0026 \u003C\u0027\u00F6\u0027\u003E/\u002B\n\u0001<DEL>\uD83D\uDE00"
    );
    let twice = json_forms(v);
    assert!(
        twice.contains(&json_escape(&json_escape(v, python_style()), STD)),
        "{twice:?}"
    );
    assert!(twice.contains(&json_escape(&std[1..std.len() - 1], python_style())));
}

fn python_style() -> JsonStyle {
    JSON_STYLES[2]
}

#[test]
fn the_transforms_of_a_secret_are_its_cases_and_their_reverses() {
    assert_eq!(
        transforms("Kestrel-vault"),
        [
            "KESTREL-VAULT",
            "Kestrel-Vault",
            "TLUAV-LERTSEK",
            "kestrel-vault",
            "tluaV-lertseK",
            "tluav-lertseK",
            "tluav-lertsek",
        ]
    );
    assert!(transforms("abc").is_empty());
}

#[test]
fn html_and_percent_forms() {
    let f = forms("a&b \"c\" <'d'>/+");
    for form in [
        "a&amp;b &quot;c&quot; &lt;&#x27;d&#x27;&gt;/+",
        "a&amp;b &quot;c&quot; &lt;&#x27;d&#x27;&gt;&#x2f;+",
        "a&amp;b &#34;c&#34; &lt;&#39;d&#39;&gt;/&#43;",
        "a&amp;b &quot;c&quot; &lt;&#039;d&#039;&gt;/+",
        "a&amp;b \"c\" &lt;'d'&gt;/+",
        "a&amp;b &quot;c&quot; <'d'>/+",
        "a&amp;b \\&quot;c\\&quot; &lt;&#x27;d&#x27;&gt;/+",
        "a%26b%20%22c%22%20%3c%27d%27%3e%2f%2b",
        "%61%26%62%20%22%63%22%20%3C%27%64%27%3E%2F%2B",
        "%61%26%62%20%22%63%22%20%3c%27%64%27%3e%2f%2b",
    ] {
        assert!(f.iter().any(|x| x == form), "no {form} in {f:#?}");
    }
    assert_eq!(lower_hex("A%2FB%C3%A9"), "A%2fB%c3%a9");
    // A plain value has few forms: most encodings leave it as it is.
    assert_eq!(forms("plainvalue").len(), 10, "{:?}", forms("plainvalue"));
    let long = format!("\"{}\"", "x".repeat(LONG));
    assert_eq!(
        forms(&long),
        [long.clone(), format!("\\{}\\\"", &long[..=LONG])]
    );
}

/// A value with every character some URL encoder keeps and another escapes, and non-ASCII
/// ones (two UTF-8 bytes, three), as each common encoder writes it.
#[test]
fn each_url_encoder_writes_a_masked_form() {
    let v = "a-b.c~d(e)/f g*h+i=j:k@l$m&n,o;p?q#r!s'tét€u";
    let encoded = [
        // Python 3: `urllib.parse.quote(v)`, `quote_plus(v)` and `urlencode`'s value, `quote(v, safe='')`.
        "a-b.c~d%28e%29/f%20g%2Ah%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        "a-b.c~d%28e%29%2Ff+g%2Ah%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        "a-b.c~d%28e%29%2Ff%20g%2Ah%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        // JavaScript: `encodeURIComponent`, `encodeURI`, `escape`, `URLSearchParams`.
        "a-b.c~d(e)%2Ff%20g*h%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r!s't%C3%A9t%E2%82%ACu",
        "a-b.c~d(e)/f%20g*h+i=j:k@l$m&n,o;p?q#r!s't%C3%A9t%E2%82%ACu",
        "a-b.c%7Ed%28e%29/f%20g*h+i%3Dj%3Ak@l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%E9t%u20ACu",
        "a-b.c%7Ed%28e%29%2Ff+g*h%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        // Go: `url.PathEscape` (`QueryEscape` is Python's `quote_plus`).
        "a-b.c~d%28e%29%2Ff%20g%2Ah+i=j:k@l$m&n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        // PHP's `urlencode`; .NET's `HttpUtility.UrlEncode` (lower-case hex).
        "a-b.c%7Ed%28e%29%2Ff+g%2Ah%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu",
        "a-b.c%7ed(e)%2ff+g*h%2bi%3dj%3ak%40l%24m%26n%2co%3bp%3fq%23r!s%27t%c3%a9t%e2%82%acu",
        // RFC 3986: the unreserved set kept; the path characters (`pchar`) kept.
        "a-b.c~d(e)%2Ff%20g*h+i=j:k@l$m&n,o;p%3Fq%23r!s't%C3%A9t%E2%82%ACu",
    ];
    // minijinja's own `| urlencode`, as runner's templates write it.
    let t = crate::template::Templates::new();
    let ctx = minijinja::Value::from_serialize(serde_json::json!({ "v": v }));
    let minijinja = t.render_str("{{ v | urlencode }}", &ctx).unwrap();
    assert_eq!(
        minijinja,
        "a-b.c%7Ed%28e%29/f%20g%2Ah%2Bi%3Dj%3Ak%40l%24m%26n%2Co%3Bp%3Fq%23r%21s%27t%C3%A9t%E2%82%ACu"
    );
    let f = forms(v);
    for e in encoded.iter().copied().chain([minijinja.as_str()]) {
        for form in [e.to_string(), lower_hex(e)] {
            assert!(f.contains(&form), "no {form} in {f:#?}");
        }
    }
    assert_eq!(lower_hex("%u20AC%E9"), "%u20ac%e9");
    assert_eq!(js_escape("~😀"), "%7E%uD83D%uDE00");
}

/// A secret in each part of a URL, as the `url` crate (under `reqwest`, and the WHATWG URL
/// Standard browsers follow) writes it: every part's form is among the masked ones.
#[test]
fn a_url_parser_writes_each_part_of_a_url_in_a_masked_form() {
    let v = "Rk9^vT\"q2{Lm|a b`c#d'e@f:g/h\\i?j[k]l;m=n%o&p$q+r,s}t<u>vé€";
    let mut url = reqwest::Url::parse("http://h/").unwrap();
    url.set_password(Some(v)).unwrap();
    url.set_username("u").unwrap();
    url.path_segments_mut().unwrap().push(v);
    // In a URL given whole, `#` ends a query, and `?`, `/` and `\` a path segment.
    let vq = v.replace('#', "");
    let vp = vq.replace(['?', '/', '\\'], "");
    let path = reqwest::Url::parse(&format!("http://h/p/{vp}")).unwrap();
    let special = reqwest::Url::parse(&format!("http://h/p?k={vq}")).unwrap();
    let opaque = reqwest::Url::parse(&format!("x:/p?k={vq}#{v}")).unwrap();
    let query = |u: &reqwest::Url| u.query().unwrap()["k=".len()..].to_string();
    let parts = [
        ("userinfo", v, url.password().unwrap().to_string()),
        ("path segment", v, url.path()[1..].to_string()),
        ("path", &vp, path.path()["/p/".len()..].to_string()),
        ("special query", &vq, query(&special)),
        ("query", &vq, query(&opaque)),
        ("fragment", v, opaque.fragment().unwrap().to_string()),
    ];
    for (part, v, form) in parts {
        let f = forms(v);
        assert_ne!(form, v, "{part}: nothing escaped");
        assert!(f.contains(&form), "{part}: no {form} in {f:#?}");
    }
    // The attack's password in a query, as Chromium and the `url` crate write it.
    assert!(forms("Rk9^vT\"q2{Lm").contains(&"Rk9^vT%22q2{Lm".to_string()));
}

/// A secret as shells quote it (checked against bash 5.2's `set -x`, `printf %q`, `${x@Q}`,
/// `declare -p` and Python's `shlex.quote`) and with quotes doubled; a secret of letters,
/// digits and dashes has no such form.
#[test]
fn shell_quoted_and_doubled_forms() {
    let f = forms("Vault'9 $`\\\"z");
    for form in [
        r#"Vault'\''9 $`\"z"#,
        r#"Vault'"'"'9 $`\"z"#,
        r#"Vault\'9\ \$\`\\\"z"#,
        r#"Vault'9 \$\`\\\"z"#,
        r#"Vault''9 $`\"z"#,
        r#"Vault'9 $`\""z"#,
        // Inside a JSON string, as runner's reports hold them.
        r#"Vault'\\''9 $`\\\"z"#,
    ] {
        assert!(f.iter().any(|x| x == form), "no {form} in {f:#?}");
    }
    assert_eq!(
        shell::shell_forms("a b!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~z")[4],
        r##"a\ b\!\"#\$%\&\'\(\)\*+\,-./:\;\<=\>\?@\[\\\]\^_\`\{\|\}~z"##
    );
    assert_eq!(shell::shell_forms("#x~y"), [r"\#x~y"]);
    assert!(shell::shell_forms("Kestrel-Vault-9931").is_empty());
}

/// A secret as Python's `repr` (checked against Python 3's), Perl's `Data::Dumper` and bash's
/// `$'...'` (checked against bash 5.2's `printf %q` under `LC_ALL=C` and `C.UTF-8`) write it.
#[test]
fn repr_and_dollar_quoted_forms() {
    let f = forms("Vault'99\"31\\Kes\ttrel$x");
    for form in [
        // Python's `repr`; Perl's `Data::Dumper`; each inside a JSON string.
        r#"Vault\'99"31\\Kes\ttrel$x"#,
        "Vault\\'99\"31\\\\Kes\ttrel$x",
        r#"Vault\\'99\"31\\\\Kes\\ttrel$x"#,
    ] {
        assert!(f.iter().any(|x| x == form), "no {form} in {f:#?}");
    }
    assert_eq!(
        shell::python_repr(
            "a\\b'c\"d \u{e9}\t\u{1}\u{1b}\u{7f}\u{20ac} z\u{a0}\u{2028}\u{200b}\u{ad}\u{1f600}"
        ),
        r#"a\\b\'c"d é\t\x01\x1b\x7f€ z\xa0\u2028\u200b\xad😀"#
    );
    // With one kind of quote `repr` quotes with the other and escapes neither.
    assert_eq!(shell::python_repr("a'b\\"), r"a'b\\");
    let dollar = "a\\b'c\"d \u{e9}\t\u{1}\u{1b}\u{7f}\u{20ac} z";
    assert_eq!(
        shell::ansi_c(dollar, true),
        r#"a\\b\'c"d \303\251\t\001\E\177\342\202\254 z"#
    );
    assert_eq!(
        shell::ansi_c(dollar, false),
        r#"a\\b\'c"d é\t\001\E\177€ z"#
    );
    let f = forms("Zulu-Vault\u{e9}-9931");
    assert!(f.iter().any(|x| x == r"Zulu-Vault\303\251-9931"), "{f:#?}");
    // A secret of letters, digits and `-` still has no shell form.
    assert!(shell::shell_forms("Kestrel-Vault-9931").is_empty());
}

/// A secret that is a number, in the forms a parser writes it back; none shorter than
/// `MIN_PART`, none for what is no decimal number.
#[test]
fn a_number_secret_in_its_canonical_forms() {
    for (v, canonical) in [
        ("9931.50", &["9931.5"][..]),
        ("004217", &["4217"]),
        ("9931.00", &["9931", "9931.0"]),
        ("-0042.10", &["-42.1"]),
        ("+12345", &["12345"]),
        ("4217", &[]),
        ("0042", &[]),
        ("-0.000", &[]),
        ("1e5", &[]),
        ("12.", &[]),
        (".5", &[]),
        ("1.2.3", &[]),
        ("12a4", &[]),
    ] {
        assert_eq!(numbers::number_forms(v), canonical, "{v}");
    }
    assert!(forms("9931.50").contains(&"9931.5".to_string()));
    // An integer a float parser rounds, as the float is written back (review 27, F8).
    assert_eq!(
        numbers::number_forms("987654321098765432109876"),
        [
            "9.876543210987654e+23",
            "9.876543210987654e23",
            "987654321098765400000000"
        ]
    );
}

/// base64 wrapped at 76 columns (GNU `base64`, Python's `encodebytes`), at 64 with `\r\n`
/// (MIME, `openssl`), indented in a YAML block: a long secret's base64 and the base64 of a text
/// that holds a secret at each of the three offsets in a 3-byte group are masked whole.
#[test]
fn wrapped_base64_is_masked() {
    use base64::Engine;
    let wrap = |text: &str, width: usize, brk: &str| {
        let b = base64::engine::general_purpose::STANDARD.encode(text);
        let lines: Vec<&str> = b
            .as_bytes()
            .chunks(width)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        lines.join(brk)
    };
    let long = "sk_live_51HxQ2eKestrelVault9931ZuluAbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
    let short = "Kestrel-Vault-9931-Zulu";
    let m = super::super::masker::Masker::new([long.to_string(), short.to_string()]);
    let mut texts = vec![
        wrap(long, 76, "\n"),
        wrap(long, 64, "\r\n"),
        wrap(long, 60, "\n  "),
    ];
    for pad in ["", "x", "xy"] {
        let auths = format!(r#"{pad}{{"auths":{{"registry.example.com":{{"auth":"{short}"}}}}}}"#);
        texts.push(wrap(&auths, 76, "\n"));
        texts.push(wrap(&auths, 64, "\r\n"));
    }
    let pieces: Vec<String> = [long, short]
        .iter()
        .flat_map(|s| base64_inside(s.as_bytes()))
        .collect();
    assert_eq!(pieces.len(), 6);
    for text in texts {
        let masked = m.mask(&format!("data:\n  {text}\n"));
        let joined: String = masked.split_whitespace().collect();
        assert!(masked.contains("***"), "not masked: {masked}");
        for piece in &pieces {
            assert!(
                !joined.contains(piece.as_str()),
                "{piece} shows in {masked}"
            );
        }
        // Unwrapped, the same text shows the pieces.
        assert!(pieces.iter().any(|p| {
            text.split_whitespace()
                .collect::<String>()
                .contains(p.as_str())
        }));
    }
}
