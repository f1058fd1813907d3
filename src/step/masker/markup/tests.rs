use super::super::Masker;

fn masker() -> Masker {
    Masker::new(["Kestrel-Vault-9931-Zulu".to_string()])
}

#[test]
fn a_secret_split_by_tags_is_masked_in_the_nodes_it_spans() {
    let m = masker();
    let html = "<p>API key: <span>Kestrel-</span><span>Vault-9931-Zulu</span> ok</p>";
    // As text, the HTML holds no secret: the text masker leaves it as it is.
    assert_eq!(m.mask(html), html);
    assert_eq!(
        m.mask_markup(html),
        "<p>API key: <span>***</span><span></span> ok</p>"
    );
    // A `<wbr>`, a highlight, a comment and a character reference inside it.
    let html = "<p>Kestrel-<wbr>Va<mark class=\"a>b\">ult</mark>-99<!-- x -->31&#45;Zulu!</p>";
    assert_eq!(
        m.mask_markup(html),
        "<p>***<wbr><mark class=\"a>b\"></mark><!-- x -->!</p>"
    );
}

#[test]
fn what_is_not_shown_does_not_join_a_secret_and_text_around_it_stays() {
    let m = masker();
    // A script's or a stylesheet's text is not between the parts on the screen.
    let html = "<b>Kestrel-</b><script>x</script><style>p{}</style><i>Vault-9931-Zulu</i>";
    assert_eq!(
        m.mask_markup(html),
        "<b>***</b><script>x</script><style>p{}</style><i></i>"
    );
    let html = "<b>Kestrel-</b><script>Vault</script><i>-9931-Zulu</i>";
    assert_eq!(m.mask_markup(html), html);
    // A secret whole in one node, and one in an attribute, are masked as text is.
    let html = "<input value=\"Kestrel-Vault-9931-Zulu\"><p>x Kestrel-Vault-9931-Zulu y</p>";
    assert_eq!(m.mask_markup(html), "<input value=\"***\"><p>x *** y</p>");
    assert_eq!(Masker::default().mask_markup("<b>a</b>"), "<b>a</b>");
}

#[test]
fn the_markup_of_a_split_secret_is_learned_and_masked_wherever_it_shows() {
    let m = masker();
    let html = "<p>API key: <span>Kestrel-</span><span>Vault-9931-Zulu</span></p>";
    m.learn_markup(html);
    assert_eq!(m.mask(html), "<p>API key: <span>***</span></p>");
    // As a report writes it: in a JSON string, and escaped in HTML.
    let json = serde_json::to_string(html).unwrap();
    assert!(!m.mask(&json).contains("Vault"), "{}", m.mask(&json));
    let escaped = html.replace('<', "&lt;").replace('>', "&gt;");
    assert!(!m.mask(&escaped).contains("Vault"), "{}", m.mask(&escaped));
}

#[test]
fn text_the_browser_does_not_render_does_not_hide_a_split_secret() {
    let m = masker();
    // A `hidden` element, an inline `display: none` (nested elements of its name inside it
    // too), a hidden field: not between the parts on the screen.
    for (html, masked) in [
        (
            "<b>Kestrel-</b><span hidden>copy</span><i>Vault-9931-Zulu</i>",
            "<b>***</b><span hidden>copy</span><i></i>",
        ),
        (
            "<p>Kestrel-<span style=\"color: red; DISPLAY: none !important\">x<span>y</span>z</span>Vault-9931-Zulu</p>",
            "<p>***<span style=\"color: red; DISPLAY: none !important\">x<span>y</span>z</span></p>",
        ),
        (
            "<b>Kestrel-</b><textarea style=display:none>q</textarea><input hidden><i>Vault-9931-Zulu</i>",
            "<b>***</b><textarea style=display:none>q</textarea><input hidden><i></i>",
        ),
    ] {
        assert_eq!(m.mask_markup(html), masked, "{html}");
    }
    // Placed off the page, or clipped to nothing, by an inline style (a screen-reader-only
    // span): not seen between the parts.
    for style in [
        "position:absolute;left:-9999px",
        "position: fixed; top: -10000px",
        "position:absolute;clip:rect(0 0 0 0);width:1px;height:1px",
        "position:absolute; clip: rect(1px, 1px, 1px, 1px)",
    ] {
        let html = format!("<b>Kestrel-</b><i style=\"{style}\">(copy)</i><b>Vault-9931-Zulu</b>");
        let masked = format!("<b>***</b><i style=\"{style}\">(copy)</i><b></b>");
        assert_eq!(m.mask_markup(&html), masked, "{style}");
    }
    // `aria-hidden`, a `data-hidden` attribute and a `hidden` word in a value are rendered, and
    // so is text moved a little, or far but not placed (a `!` between: a `.` is a separator, and
    // the secret with one between its characters is masked).
    for style in [
        "position:absolute;left:-20px",
        "left:-9999px",
        "clip:rect(0 0 0 0)",
    ] {
        let html = format!("<b>Kestrel-</b><i style=\"{style}\">!</i><b>Vault-9931-Zulu</b>");
        assert_eq!(m.mask_markup(&html), html, "{style}");
    }
    for html in [
        "<b>Kestrel-</b><i aria-hidden=\"true\">!</i><b>Vault-9931-Zulu</b>",
        "<b>Kestrel-</b><i data-hidden title=\"hidden\">!</i><b>Vault-9931-Zulu</b>",
        "<b>Kestrel-</b><i style=\"display:inline\">!</i><b>Vault-9931-Zulu</b>",
    ] {
        assert_eq!(m.mask_markup(html), html);
    }
}

#[test]
fn a_secret_a_page_shows_in_pieces_is_found_and_its_pieces_learned() {
    let m = masker();
    let texts = [
        "Recovery key",
        "API: Kestrel-",
        "Vault-",
        "99",
        "31-Zulu",
        "ok",
    ]
    .map(String::from);
    assert!(m.learn_shown(&texts));
    // Each piece of a node the secret spans, of at least four characters, is masked now; the
    // rest of those nodes is not, nor a piece shorter than that.
    assert_eq!(
        m.mask("API: Kestrel- | Vault- | 99 | 31-Zulu | ok"),
        "API: *** | *** | 99 | *** | ok"
    );
    assert_eq!(m.mask("\"Vault-\""), "\"***\"");
    let plain = ["Kestrel-", "Vault"].map(String::from);
    assert!(!masker().learn_shown(&plain));
    assert!(!Masker::default().learn_shown(&texts));
}

#[test]
fn white_space_between_elements_is_looked_past() {
    let m = masker();
    // Between flex items (or blocks) white space is not rendered.
    let html = "<div style=\"display:flex\">\n  <span>Kestrel-</span>\n  <span>Vault-9931-Zulu</span>\n</div>";
    assert_eq!(
        m.mask_markup(html),
        "<div style=\"display:flex\">\n  <span>***</span><span></span>\n</div>"
    );
}

#[test]
fn the_text_of_learned_markup_is_masked_with_white_space_between_its_pieces() {
    let m = masker();
    m.learn_markup("<div><span>Kestrel-</span><span>Vault-</span><span>9931-Zulu</span></div>");
    for text in [
        "Kestrel-\nVault-\n9931-Zulu",
        "key: Kestrel- Vault- 9931-Zulu.",
        "\"Kestrel-\\nVault-\\n9931-Zulu\"",
    ] {
        assert!(!m.mask(text).contains("Vault"), "{text}: {}", m.mask(text));
    }
    // Its pieces alone are not learned: they would be masked wherever they are.
    assert_eq!(m.mask("Vault- and 9931-Zulu"), "Vault- and 9931-Zulu");
    // An off-screen span between the pieces is in the element's `innerText`.
    let m = masker();
    m.learn_markup(
        "<p>p6: <span>Kestrel-</span><span style=\"position:absolute;left:-9999px\">(a&amp;b)</span><span>Vault-9931-Zulu</span></p>",
    );
    for text in [
        "p6: Kestrel- (a&b) Vault-9931-Zulu",
        "p6: Kestrel-(a&b)Vault-9931-Zulu",
        "p6: Kestrel-\n(a&b)\nVault-9931-Zulu",
    ] {
        assert_eq!(m.mask(text), "p6: ***", "{text}");
    }
}
