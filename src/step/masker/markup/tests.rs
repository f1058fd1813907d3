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
