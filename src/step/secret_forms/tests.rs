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
