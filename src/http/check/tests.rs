use super::*;
use serde_json::json;

fn failed(p: &Predicates, actual: Option<&Value>, kind: Kind) -> Option<String> {
    super::failed(p, &Queried::of(actual.cloned()), kind, &Masker::default())
}

fn p(v: Value) -> Predicates {
    serde_json::from_value(v).unwrap()
}

#[test]
fn predicates_pass_and_fail_with_expected_and_actual() {
    assert_eq!(
        failed(&p(json!({"equals": 3})), Some(&json!(3)), Kind::Typed),
        None
    );
    assert_eq!(
        failed(&p(json!({"equals": 3})), Some(&json!("3")), Kind::Text),
        None
    );
    assert_eq!(
        failed(&p(json!({"equals": "a"})), Some(&json!("b")), Kind::Typed).unwrap(),
        r#"expected "a", actual "b""#
    );
    assert_eq!(
        failed(
            &p(json!({"contains": 2})),
            Some(&json!([1, 2])),
            Kind::Typed
        ),
        None
    );
    assert!(
        failed(
            &p(json!({"contains": "x"})),
            Some(&json!("abc")),
            Kind::Typed
        )
        .is_some()
    );
    assert_eq!(
        failed(&p(json!({"count": 2})), Some(&json!([1, 2])), Kind::Typed),
        None
    );
    assert!(failed(&p(json!({"count": 2})), Some(&json!("ab")), Kind::Typed).is_some());
    assert_eq!(
        failed(
            &p(json!({"min": 1, "max": 5})),
            Some(&json!("4")),
            Kind::Typed
        ),
        None
    );
    assert!(failed(&p(json!({"max": 5})), Some(&json!(6)), Kind::Typed).is_some());
    assert_eq!(
        failed(
            &p(json!({"matches": "^a.c$"})),
            Some(&json!("abc")),
            Kind::Typed
        ),
        None
    );
    assert_eq!(
        failed(&p(json!({"exists": false})), None, Kind::Typed),
        None
    );
    assert!(failed(&p(json!({"exists": true})), None, Kind::Typed).is_some());
    assert!(failed(&p(json!({"equals": 1})), None, Kind::Typed).is_some());
    assert!(failed(&p(json!({"not_equals": 1})), Some(&json!(1)), Kind::Typed).is_some());
}

#[test]
fn typed_values_equal_only_their_own_type_and_text_reads_as_numbers_and_booleans() {
    let eq = |a: Value, e: Value, kind| same(&a, &e, kind);
    assert!(eq(json!(false), json!(false), Kind::Typed));
    assert!(!eq(json!(false), json!("false"), Kind::Typed));
    assert!(!eq(json!("false"), json!(false), Kind::Typed));
    assert!(!eq(json!(12), json!("12"), Kind::Typed));
    assert!(eq(json!(12), json!(12.0), Kind::Typed));
    assert!(eq(
        json!({"a": [1, 2.0]}),
        json!({"a": [1.0, 2]}),
        Kind::Typed
    ));
    assert!(!eq(json!({"a": [1]}), json!({"a": ["1"]}), Kind::Typed));
    assert!(!eq(json!(null), json!("null"), Kind::Typed));
    // A header is text: a number or a boolean written without quotes reads against it.
    assert!(eq(json!("12"), json!(12), Kind::Text));
    assert!(eq(json!("true"), json!(true), Kind::Text));
    assert!(!eq(json!("yes"), json!(true), Kind::Text));
    assert!(contains(&json!([false, 12]), &json!(12.0)));
    assert!(!contains(&json!([false, 12]), &json!("false")));
}

#[test]
fn paths_that_select_many_give_a_list() {
    for many in [
        "$.items[*]",
        "$..name",
        "$.items[?@.n > 1]",
        "$.a[0:2]",
        "$.a[0,1]",
    ] {
        assert!(selects_many(many), "{many}");
    }
    for one in ["$.items", "$.items[0].name", "$['a.b']", "$['x:y']"] {
        assert!(!selects_many(one), "{one}");
    }
    let doc = json!({"items": [{"n": 1}]});
    let all = JsonPath::parse("$.items[*].n").unwrap();
    assert_eq!(query(&all, "$.items[*].n", &doc).value, Some(json!([1])));
    let one = JsonPath::parse("$.items[0].n").unwrap();
    assert_eq!(query(&one, "$.items[0].n", &doc).value, Some(json!(1)));
    let none = JsonPath::parse("$.nope").unwrap();
    assert_eq!(query(&none, "$.nope", &doc).value, None);
}

/// A path that can select several nodes and selects none found nothing, as `exists` asks:
/// `exists: true` fails on it and `exists: false` holds; `count: 0` and `equals: []` still read
/// the empty list (before, the empty list was "something": a filter that matched nothing
/// passed `exists: true`).
#[test]
fn a_query_of_several_nodes_that_selects_none_found_nothing() {
    let doc =
        json!({"items": [{"name": "a", "price": 5}, {"name": "b", "price": 50}], "empty": []});
    let q = |path: &str| query(&JsonPath::parse(path).unwrap(), path, &doc);
    let check = |path: &str, pred: Value| {
        super::failed(&p(pred), &q(path), Kind::Typed, &Masker::default())
    };
    for path in [
        "$.items[?@.price > 100]",
        "$.items[?@.price > 100].name",
        "$.empty[*].name",
    ] {
        assert!(check(path, json!({"exists": true})).is_some(), "{path}");
        assert_eq!(check(path, json!({"exists": false})), None, "{path}");
        assert_eq!(check(path, json!({"count": 0})), None, "{path}");
        assert_eq!(check(path, json!({"equals": []})), None, "{path}");
    }
    assert_eq!(
        check("$.items[?@.price > 10]", json!({"exists": true})),
        None
    );
    assert!(check("$.items[?@.price > 10]", json!({"exists": false})).is_some());
    // A single node that is an empty list exists.
    assert_eq!(check("$.empty", json!({"exists": true})), None);
}

/// Integers compare exactly, past 2^53 too (64-bit ids); a whole float equals its integer;
/// `min`/`max` bound exactly; a header's text reads as the number it spells.
#[test]
fn numbers_compare_exactly() {
    let big = json!(9_007_199_254_740_993_u64);
    let near = 9_007_199_254_740_992_u64;
    assert!(failed(&p(json!({"equals": near})), Some(&big), Kind::Typed).is_some());
    assert_eq!(
        failed(&p(json!({"not_equals": near})), Some(&big), Kind::Typed),
        None
    );
    let huge = json!(12_345_678_901_234_567_890_u64);
    assert!(
        failed(
            &p(json!({"max": 12_345_678_901_234_567_000_u64})),
            Some(&huge),
            Kind::Typed
        )
        .is_some()
    );
    assert!(
        failed(
            &p(json!({"min": 12_345_678_901_234_567_891_u64})),
            Some(&huge),
            Kind::Typed
        )
        .is_some()
    );
    assert_eq!(
        failed(
            &p(json!({"min": 12_345_678_901_234_567_890_u64})),
            Some(&huge),
            Kind::Typed
        ),
        None
    );
    assert_eq!(
        failed(&p(json!({"equals": 12.0})), Some(&json!(12)), Kind::Typed),
        None
    );
    assert_eq!(
        failed(&p(json!({"max": 12.5})), Some(&json!(12)), Kind::Typed),
        None
    );
    assert!(failed(&p(json!({"max": 11.5})), Some(&json!(12)), Kind::Typed).is_some());
    assert_eq!(
        failed(&p(json!({"equals": 12})), Some(&json!("12")), Kind::Text),
        None
    );
    assert!(
        failed(
            &p(json!({"equals": near})),
            Some(&json!("9007199254740993")),
            Kind::Text
        )
        .is_some()
    );
}
