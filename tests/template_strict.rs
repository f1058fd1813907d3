//! What a template reads that is not there, and what it compares that cannot be equal: an item
//! without the attribute a filter reads is an error naming the attribute (not an undefined item
//! that `sum` added as 0 and `in` never matched), and `==`, `!=` and `in` between a text and a
//! number, or an ordering of two texts that both hold numbers, are errors (not a check that
//! always holds).

use crate::common::{flow_run, write};

/// A flow whose steps print what the checks read (`cart` has `unit_price`, not `price`; `jobs`
/// have `state`, not `status`; `code` prints 500; the count fell from 10 to 9), then checks
/// `expr`.
fn flow(expr: &str) -> String {
    format!(
        r#"name: f
steps:
  - id: cart
    exec: [echo, '{{"items": [{{"sku": "a1", "unit_price": 70}}, {{"sku": "b2", "unit_price": 90}}]}}']
  - id: jobs
    exec: [echo, '{{"jobs": [{{"name": "build", "state": "failed"}}, {{"name": "test", "state": "ok"}}]}}']
  - id: code
    exec: [sh, -c, "echo 500"]
  - id: before
    exec: [echo, "10"]
  - id: after
    exec: [echo, "9"]
  - expect: {{ that: "{{{{ {expr} }}}}" }}
"#
    )
}

/// Each `(expr, message)` fails its flow (exit 1) with the message in the run's output; the
/// `passing` expressions, together, pass.
fn check(cases: &[(&str, &str)], passing: &[&str]) {
    let d = tempfile::tempdir().unwrap();
    for (i, (expr, want)) in cases.iter().enumerate() {
        write(d.path(), &format!("f{i}.yaml"), &flow(expr));
        let ran = flow_run(d.path()).arg(format!("f{i}.yaml")).run();
        assert_eq!(ran.code, 1, "{expr}: {}{}", ran.stdout, ran.stderr);
        assert!(ran.stderr.contains(want), "{expr}: {}", ran.stderr);
    }
    write(d.path(), "ok.yaml", &flow(&passing.join(" and ")));
    flow_run(d.path()).arg("ok.yaml").passes();
}

/// `map(attribute='price') | sum` over items that have `unit_price` was 0 (within any budget),
/// `'failed' not in jobs | map(attribute='status')` held and `selectattr('status', 'eq',
/// 'failed')` found none, though a job failed: minijinja's filters keep a missing attribute as
/// an undefined item, which the strict undefined does not reach. Each filter that takes an
/// attribute now fails on an item without it, naming it; `default=` (where Jinja2 has one) and
/// the `defined` test still take such items.
#[test]
fn a_filter_that_reads_a_missing_attribute_fails_naming_it() {
    let cart = "(steps.cart.stdout | fromjson).items";
    let jobs = "(steps.jobs.stdout | fromjson).jobs";
    let cases = [
        (
            format!("{cart} | map(attribute='price') | sum <= 100"),
            "`map`: the item {\"sku\": \"a1\", \"unit_price\": 70} has no attribute `price` (give `default=` for items without it)".to_string(),
        ),
        (
            format!("'failed' not in {jobs} | map(attribute='status')"),
            "`map`: the item {\"name\": \"build\", \"state\": \"failed\"} has no attribute `status`".into(),
        ),
        (
            format!("{jobs} | selectattr('status', 'eq', 'failed') | list | length == 0"),
            "`selectattr`: the item {\"name\": \"build\", \"state\": \"failed\"} has no attribute `status`".into(),
        ),
        (
            format!("{jobs} | rejectattr('status', 'ne', 'failed') | list | length == 0"),
            "`rejectattr`: the item".into(),
        ),
        (
            format!("{cart} | sum(attribute='price') <= 100"),
            "`sum`: the item {\"sku\": \"a1\", \"unit_price\": 70} has no attribute `price`".into(),
        ),
        (
            format!("{cart} | unique(attribute='price') | list | length == 1"),
            "`unique`: the item".into(),
        ),
        (
            format!("({cart} | sort(attribute='price') | first).sku == 'a1'"),
            "`sort`: the item".into(),
        ),
        (
            format!("{jobs} | groupby('status') | length == 1"),
            "`groupby`: the item".into(),
        ),
        (
            format!("{jobs} | groupby(attribute='status') | length == 1"),
            "has no attribute `status`".into(),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases
        .iter()
        .map(|(e, w)| (e.as_str(), w.as_str()))
        .collect();
    let passing = [
        format!("({cart} | map(attribute='price', default=0) | sum) == 0"),
        format!("({cart} | map(attribute='unit_price') | sum) == 160"),
        format!("({cart} | sum(attribute='unit_price')) == 160"),
        format!("({cart} | sum(attribute='unit_price', start=5)) == 165"),
        format!("({jobs} | selectattr('status', 'defined') | list | length) == 0"),
        format!("({jobs} | rejectattr('status', 'defined') | list | length) == 2"),
        format!("({jobs} | selectattr('state', 'eq', 'failed') | list | length) == 1"),
        format!("({jobs} | groupby('status', default='none') | length) == 1"),
        format!("({jobs} | unique(attribute='state') | list | length) == 2"),
        format!("({cart} | sort(attribute='unit_price') | last).sku == 'b2'"),
        format!("({jobs} | map(attribute='name') | join(',')) == 'build,test'"),
    ];
    let passing: Vec<&str> = passing.iter().map(String::as_str).collect();
    check(&cases, &passing);
}

/// `steps.code.stdout != 500` held for a stdout of `500` (a text is never equal to a number),
/// and so did `not in [500, 502, 503]`; `"9" >= "10"` held (texts order by their characters),
/// so a count that fell from 10 to 9 passed a check that it did not fall, and `min` picked
/// "10". Each is now an error saying what to write; texts, numbers, none and booleans compare
/// as before among themselves, and texts order as texts behind a letter.
#[test]
fn equality_across_text_and_number_and_ordering_numeric_texts_fail() {
    let num = "use `| int` or `| float` on the text, or `| string` on the number";
    let texts = "both texts read as numbers, and as texts \"9\" > \"10\"";
    let cases = [
        (
            "steps.code.stdout != 500",
            "cannot compare \"500\" (text) != 500 (number): ",
        ),
        ("steps.code.stdout == 500 or true", num),
        (
            "steps.code.stdout not in [500, 502, 503]",
            "cannot compare \"500\" (text) in [500, 502, 503] (list): its items include 500 (number)",
        ),
        (
            "500 not in steps.code.stdout",
            "cannot compare 500 (number) in \"500\" (text)",
        ),
        ("'500' != 500", num),
        (
            "(['200', '500'] | select('eq', 500) | list | length) == 0",
            num,
        ),
        ("steps.code.stdout != true", "compare the text with a text"),
        (
            "steps.after.stdout >= steps.before.stdout",
            "cannot compare \"9\" (text) >= \"10\" (text): ",
        ),
        ("steps.after.stdout >= steps.before.stdout", texts),
        (
            "([steps.after.stdout, steps.before.stdout] | min) == steps.before.stdout",
            "`min`: cannot compare \"9\" (text) with \"10\" (text)",
        ),
        (
            "(['a', '9', '10'] | sort | last) == '9'",
            "`sort`: cannot compare",
        ),
        ("'9' >= '10'", texts),
        (
            "(['2023', '2024', '999'] | sort | last) == '999'",
            "`sort`: cannot compare \"2023\" (text) with \"999\" (text)",
        ),
        ("'-1' > '-2'", texts),
    ];
    let passing = [
        "(steps.code.stdout | int) != 502",
        "steps.code.stdout == '500'",
        "steps.code.stdout != '502'",
        "steps.code.stdout in ['500', '502']",
        "'50' in steps.code.stdout",
        "(steps.code.stdout | int) in [500, 502]",
        "(steps.after.stdout | int) < (steps.before.stdout | int)",
        "('v' ~ steps.after.stdout) > ('v' ~ steps.before.stdout)",
        "'abc' < 'abd'",
        "'a9' > 'a10'",
        "none != 1",
        "true == 1",
        "[1, 2] != [1, 3]",
        "'x' in {'x': 1}",
        // Digits only, as many: the texts order as their numbers do (years, JSON keys, codes).
        "({'2024': 1, '2023': 2} | dictsort | first | first) == '2023'",
        "(['2025', '2023', '2024'] | sort | last) == '2025'",
        "'404' > '200'",
    ];
    check(&cases, &passing);
}

/// `==`, `!=` and `in` between a text and a number were refused only at the top level: inside
/// lists and maps they were silently unequal, so `[steps.code.stdout] != [500]`, a JSON item
/// compared with a map whose price is a text, or a list of texts looked for among lists of
/// numbers held whatever the step gave. Each pair of values at one place (an item, a map's
/// value) is now checked as the top level is; alike kinds, and none with anything, compare as
/// before.
#[test]
fn equality_across_text_and_number_inside_lists_and_maps_fails() {
    let cart = "(steps.cart.stdout | fromjson).items";
    let inner = "their items \"500\" (text) and 500 (number) are of different kinds";
    let cases = [
        (
            "[steps.code.stdout] != [500]".to_string(),
            format!("cannot compare [\"500\"] (list) != [500] (list): {inner}: use `| int`"),
        ),
        (
            format!("{cart} | map(attribute='unit_price') | list != ['70', '90']"),
            "their items 70 (number) and \"70\" (text) are of different kinds".into(),
        ),
        (
            format!("{cart}[0] != {{'sku': 'a1', 'unit_price': '70'}}"),
            "cannot compare {\"sku\": \"a1\", \"unit_price\": 70} (map) != {\"sku\": \"a1\", \"unit_price\": \"70\"} (map): their values of \"unit_price\" 70 (number) and \"70\" (text) are of different kinds".into(),
        ),
        (
            "{'code': steps.code.stdout} == {'code': 500} or true".to_string(),
            "their values of \"code\" \"500\" (text) and 500 (number)".into(),
        ),
        (
            "[[steps.code.stdout]] != [[true]]".to_string(),
            "compare the text with a text".into(),
        ),
        (
            "[steps.code.stdout] not in [[500], [502]]".to_string(),
            format!("cannot compare [\"500\"] (list) in [[500], [502]] (list): its items include [500] (list): {inner}"),
        ),
        (
            // `unique` compares as `==` does: 102 and "102" are not two values.
            "([101, 102] + ['102', '103']) | unique | list | length == 4".to_string(),
            "`unique`: cannot compare \"102\" (text) == 101 (number)".into(),
        ),
    ];
    let cases: Vec<(&str, &str)> = cases
        .iter()
        .map(|(e, w)| (e.as_str(), w.as_str()))
        .collect();
    let passing = [
        format!("{cart}[0] == {{'sku': 'a1', 'unit_price': 70}}"),
        format!("{cart}[1] != {{'sku': 'a1', 'unit_price': 70}}"),
        format!("({cart} | map(attribute='unit_price') | list) == [70, 90]"),
        format!("({cart} | map(attribute='sku') | list) != ['a1']"),
        "[steps.code.stdout] == ['500']".into(),
        "[none, 1] != [1, 1]".into(),
        "{'a': none} != {'a': 'x'}".into(),
        "[[1, 'a']] != [[1, 'b']]".into(),
        "[true] == [1]".into(),
        "[steps.code.stdout] in [['500'], ['502']]".into(),
        "[500] not in [[502]]".into(),
        "([101, 102] + [102, 103]) | unique | list | length == 3".into(),
        "(['a', 'b', 'a'] | unique | list) == ['a', 'b']".into(),
    ];
    let passing: Vec<&str> = passing.iter().map(String::as_str).collect();
    check(&cases, &passing);
}
