use super::*;

fn page() -> BTreeMap<String, RefInfo> {
    let mut m = BTreeMap::new();
    for (k, role, name) in [
        ("e1", "link", "About us"),
        ("e2", "button", "Sign in"),
        ("e3", "textbox", "Email"),
        ("e4", "checkbox", "Remember me"),
        ("e5", "button", "登录"),
        ("e6", "button", "ログイン"),
        ("e7", "combobox", "Country"),
        ("e8", "button", "Delete"),
        ("e9", "button", "Delete"),
        ("e10", "link", "Sign in help"),
    ] {
        m.insert(
            k.to_string(),
            RefInfo {
                role: role.to_string(),
                name: name.to_string(),
            },
        );
    }
    m
}

fn sel(role: &str, text: &str) -> Value {
    json!({ "role": role, "text": text, "exact": true })
}

#[test]
fn simple_instructions_resolve_in_english_and_cjk() {
    let p = page();
    let cases: Vec<(&str, &str, Value, Option<&str>)> = vec![
        (
            "click the Sign in button",
            "click",
            sel("button", "Sign in"),
            None,
        ),
        (
            "Click on \"About us\"",
            "click",
            sel("link", "About us"),
            None,
        ),
        (
            "press the Sign in button",
            "click",
            sel("button", "Sign in"),
            None,
        ),
        (
            "fill Email with a@b.c",
            "fill",
            sel("textbox", "Email"),
            Some("a@b.c"),
        ),
        (
            "type 'hello world' into the Email field",
            "fill",
            sel("textbox", "Email"),
            Some("hello world"),
        ),
        (
            "check Remember me",
            "check",
            sel("checkbox", "Remember me"),
            None,
        ),
        (
            "uncheck the Remember me checkbox",
            "uncheck",
            sel("checkbox", "Remember me"),
            None,
        ),
        (
            "select France in Country",
            "select",
            sel("combobox", "Country"),
            Some("France"),
        ),
        ("点击登录按钮", "click", sel("button", "登录"), None),
        ("点击“登录”", "click", sel("button", "登录"), None),
        (
            "在Email中输入张三",
            "fill",
            sel("textbox", "Email"),
            Some("张三"),
        ),
        (
            "ログイン をクリック",
            "click",
            sel("button", "ログイン"),
            None,
        ),
        (
            "ログインボタンを押してください",
            "click",
            sel("button", "ログイン"),
            None,
        ),
        (
            "Email に taro@example.jp を入力",
            "fill",
            sel("textbox", "Email"),
            Some("taro@example.jp"),
        ),
        (
            "Remember me を チェック",
            "check",
            sel("checkbox", "Remember me"),
            None,
        ),
    ];
    for (intent, kind, selector, value) in cases {
        let a = resolve_local(intent, &p).unwrap_or_else(|e| panic!("{intent}: no answer: {e}"));
        assert_eq!(a["action_type"], kind, "{intent}: {a}");
        assert_eq!(a["selector"], selector, "{intent}: {a}");
        assert_eq!(
            a.get("value").and_then(Value::as_str),
            value,
            "{intent}: {a}"
        );
    }
}

#[test]
fn keys_and_urls() {
    let p = page();
    let a = resolve_local("press Enter", &p).unwrap();
    assert_eq!(
        a,
        json!({"action_type": "press", "value": "Enter", "confidence": 1.0})
    );
    assert_eq!(
        resolve_local("press Control+a", &p).unwrap()["value"],
        "Control+a"
    );
    let a = resolve_local("open https://example.com/x", &p).unwrap();
    assert_eq!(a["action_type"], "open");
    assert_eq!(a["value"], "https://example.com/x");
}

#[test]
fn it_never_guesses() {
    let p = page();
    // Two buttons share the name.
    assert_eq!(
        resolve_local("click Delete", &p),
        Err("2 elements it can click are named \"Delete\"".to_string())
    );
    // Nothing of that name.
    assert_eq!(
        resolve_local("click Checkout", &p),
        Err("no element it can click is named \"Checkout\"".to_string())
    );
    // Not a phrasing it reads.
    assert_eq!(resolve_local("sign me in please", &p), Err(String::new()));
    // A checkbox verb on a button.
    assert!(resolve_local("check Sign in", &p).is_err());
    // A part of a name is not the name, at its start, end or inside a word (attack 29, A12).
    for (intent, near) in [
        ("click help", "\"Sign in help\""),
        ("click Sign", "\"Sign in\", \"Sign in help\""),
        ("click about", "\"About us\""),
        (
            "click the Sign in help page",
            "\"Sign in\", \"Sign in help\"",
        ),
        ("点击录", "\"登录\""),
        ("fill mail with x", "\"Email\""),
        ("check Remember", "\"Remember me\""),
    ] {
        let why = resolve_local(intent, &p).expect_err(intent);
        assert!(
            why.starts_with("no element it can") && why.contains(&format!("(close: {near};")),
            "{intent}: {why}"
        );
    }
    // "Sign in" matches the button exactly and the link only in part: the exact one wins.
    assert_eq!(
        resolve_local("click Sign in", &p).unwrap()["selector"],
        sel("button", "Sign in")
    );
}

#[test]
fn refs_become_selectors_that_outlive_the_snapshot() {
    let p = page();
    assert_eq!(stable_selector("@e2", &p), Some(sel("button", "Sign in")));
    let mut second = sel("button", "Delete");
    second["nth"] = json!(1);
    assert_eq!(stable_selector("e9", &p), Some(second));
    assert_eq!(stable_selector("e99", &p), None);
}

#[test]
fn answers_become_steps() {
    assert!(matches!(
        to_action(
            &json!({"action_type": "click", "selector": {"role": "button", "text": "A"}, "confidence": 1})
        ),
        Ok(Action::Click(_))
    ));
    assert!(matches!(
        to_action(&json!({"action_type": "press", "value": "Enter", "confidence": 1})),
        Ok(Action::Press(k)) if k.key() == "Enter"
    ));
    let e = to_action(&json!({"action_type": "fill", "selector": {"css": "#a"}, "confidence": 1}))
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Skill);
    assert!(to_action(&json!({"action_type": "click", "confidence": 1})).is_err());
}

#[test]
fn an_answer_opens_only_pages_of_the_app() {
    let pages = ["http://127.0.0.1:8000/shop/cart".to_string()];
    let open = |url: &str| json!({"action_type": "open", "value": url, "confidence": 1});
    for ok in [
        "http://127.0.0.1:8000/",
        "http://127.0.0.1:8000/login?next=/",
        "HTTP://127.0.0.1:8000/x",
    ] {
        assert_eq!(open_refused(&open(ok), &pages), None, "{ok}");
    }
    for bad in [
        "file:///etc/passwd",
        "http://127.0.0.1:8001/",
        "https://127.0.0.1:8000/",
        "http://127.0.0.1:8000@evil.example/",
        "javascript:alert(1)",
        "data:text/html,hi",
        "chrome://settings",
        "/relative",
        "",
    ] {
        let why = open_refused(&open(bad), &pages).unwrap_or_default();
        assert!(
            why.contains("http(s) pages on the origin") && why.contains("http://127.0.0.1:8000"),
            "{bad}: {why}"
        );
    }
    assert_eq!(
        open_refused(
            &json!({"action_type": "click", "selector": {"css": "#a"}}),
            &pages
        ),
        None
    );
}

/// A name whose lower case is longer or shorter than it (`İ`, the Kelvin sign `K`) is cut
/// from its role word at a character, never inside one (it panicked).
#[test]
fn role_words_are_cut_at_characters_whatever_the_case() {
    assert_eq!(
        super::target_words("İ按钮"),
        ("İ".to_string(), Some(&["button"][..]))
    );
    assert_eq!(
        super::target_words("the \u{212A}elvin BUTTON"),
        ("\u{212A}elvin".to_string(), Some(&["button"][..]))
    );
    assert_eq!(super::target_words("İİ").0, "İİ");
    assert_eq!(super::target_words("Link to İ").0, "to İ");
}

/// Punctuation that is part of a name tells names apart: "C++" is not "C", "+" is a name (an
/// icon button's); only what decorates a name at its ends ("Email:", "Next →", "Name *") or
/// joins its words ("Sign-in") is set aside, and only when no name is the instruction's as
/// written.
#[test]
fn punctuation_that_names_an_element_is_kept() {
    let mut p = BTreeMap::new();
    for (k, role, name) in [
        ("e1", "button", "C"),
        ("e2", "button", "C++"),
        ("e3", "button", "C#"),
        ("e4", "button", "+"),
        ("e5", "button", "-"),
        ("e6", "button", "Next →"),
        ("e7", "textbox", "Email:"),
        ("e8", "button", "Sign-in"),
        ("e9", "textbox", "Name *"),
        ("e10", "button", "🛒 Cart"),
        ("e11", "button", "✓ Done"),
        ("e12", "button", "+ Add item"),
        ("e13", "button", "Close ×"),
        ("e14", "button", "Continue ->"),
        ("e15", "button", "Yes, delete it"),
        ("e16", "button", "Save (draft)"),
        ("e17", "button", "-1"),
    ] {
        let info = RefInfo {
            role: role.to_string(),
            name: name.to_string(),
        };
        p.insert(k.to_string(), info);
    }
    for (intent, role, name) in [
        ("click C", "button", "C"),
        ("click C++", "button", "C++"),
        ("click c#", "button", "C#"),
        ("click +", "button", "+"),
        ("click the - button", "button", "-"),
        ("click Next", "button", "Next →"),
        ("fill Email with a@b.c", "textbox", "Email:"),
        ("click sign in", "button", "Sign-in"),
        ("fill Name with Ada", "textbox", "Name *"),
        ("click Cart", "button", "🛒 Cart"),
        ("click Done", "button", "✓ Done"),
        ("click Add item", "button", "+ Add item"),
        ("click Close", "button", "Close ×"),
        ("click Continue", "button", "Continue ->"),
        ("click Yes delete it", "button", "Yes, delete it"),
        ("click Save draft", "button", "Save (draft)"),
        ("click -1", "button", "-1"),
    ] {
        let answer = resolve_local(intent, &p).unwrap_or_else(|e| panic!("{intent}: {e}"));
        assert_eq!(answer["selector"], sel(role, name), "{intent}");
    }
    // With "C" gone, "click C" is not "C++" or "C#"; "click 1" is not "-1".
    p.remove("e1");
    for intent in ["click C", "click 1"] {
        let why = resolve_local(intent, &p).expect_err(intent);
        assert!(
            why.starts_with("no element it can click"),
            "{intent}: {why}"
        );
    }
}
