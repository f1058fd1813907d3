//! Compiling and running templates with two guards minijinja has no setting for, put in its
//! bytecode (minijinja's `unstable_machinery`; Cargo.toml pins the minor version):
//!
//! - An ordering comparison (`<`, `<=`, `>`, `>=`) between values of different kinds is an
//!   error, as Jinja2's `TypeError` is. minijinja orders across kinds (every number before every
//!   text), so `steps.count.stdout >= 1` would be true for a stdout of `0`: a check that always
//!   passes. Each comparison instruction becomes a call of a function that compares the same
//!   two values after checking their kinds; the instruction keeps its place (jumps are
//!   unchanged) and its span (an error points at the comparison). Two lists are checked item by
//!   item; a comparison of literals, which minijinja works out when it compiles, is checked in
//!   the syntax tree ([`super::folded`]).
//! - `==`, `!=` and `in` between a text and a number (or a boolean) are errors, where minijinja
//!   (and Jinja2) make them false: an `exec`'s stdout is always text, so
//!   `steps.code.stdout != 500` held whatever the command printed. They become calls of the
//!   same kind, to [`super::order`]'s `equal` and `contains`.
//! - `*` that repeats a list or a text is bounded ([`MAX_ITEMS`], [`MAX_BYTES`]): minijinja
//!   repeats a list lazily, and what is made of it later (its JSON, its printing) would take it
//!   all at once (`[x] * 10**13` aborted runner).

use std::collections::BTreeMap;

use minijinja::machinery::{
    CodeGenerator, Instruction, Instructions, Vm, WhitespaceConfig, make_string_output, parse,
    parse_expr,
};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::ValueKind;
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State, Value};

use super::folded;
use super::order::{compare, contains, equal, same_as};

/// The most items one value a template makes may hold (at any depth): as many as minijinja's
/// `range` gives. Each item costs about 270 bytes once the value is JSON.
pub(crate) const MAX_ITEMS: usize = 100_000;
/// The most bytes of text one value a template makes may hold.
pub(crate) const MAX_BYTES: usize = 16 << 20;

/// The functions the comparison instructions become: `(name, instruction's operator)`.
const COMPARE: [(&str, &str); 4] = [
    ("__runner_lt", "<"),
    ("__runner_le", "<="),
    ("__runner_gt", ">"),
    ("__runner_ge", ">="),
];
const MUL: &str = "__runner_mul";
/// The functions `==`, `!=` and `in` become (`item in container` calls `IN(item, container)`).
const EQ: &str = "__runner_eq";
const NE: &str = "__runner_ne";
const IN: &str = "__runner_in";

/// Adds the functions the guarded instructions call, and the `lt`/`gt`/... tests that compare
/// as the operators do.
pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_function(COMPARE[0].0, |a: Value, b: Value| compare(&a, "<", &b));
    env.add_function(COMPARE[1].0, |a: Value, b: Value| compare(&a, "<=", &b));
    env.add_function(COMPARE[2].0, |a: Value, b: Value| compare(&a, ">", &b));
    env.add_function(COMPARE[3].0, |a: Value, b: Value| compare(&a, ">=", &b));
    env.add_function(MUL, mul);
    env.add_function(EQ, |a: Value, b: Value| equal(&a, "==", &b));
    env.add_function(NE, |a: Value, b: Value| equal(&a, "!=", &b));
    env.add_function(IN, |a: Value, b: Value| contains(&a, &b));
    for name in ["eq", "equalto", "=="] {
        env.add_test(name, |a: Value, b: Value| equal(&a, "==", &b));
    }
    for name in ["ne", "!="] {
        env.add_test(name, |a: Value, b: Value| equal(&a, "!=", &b));
    }
    env.add_test("in", |a: Value, b: Value| contains(&a, &b));
    env.add_test("sameas", |a: Value, b: Value| same_as(&a, &b));
    for (names, op) in [
        (&["lt", "lessthan", "<"][..], "<"),
        (&["le", "<="][..], "<="),
        (&["gt", "greaterthan", ">"][..], ">"),
        (&["ge", ">="][..], ">="),
    ] {
        for name in names {
            env.add_test(*name, move |a: Value, b: Value| compare(&a, op, &b));
        }
    }
}

/// `a * b`, refused when it repeats a text or a list past the bounds.
fn mul(state: &State, a: Value, b: Value) -> Result<Value, Error> {
    for (x, n) in [(&a, &b), (&b, &a)] {
        let Some(n) = n.as_usize().filter(|_| n.kind() == ValueKind::Number) else {
            continue;
        };
        let (per, limit, what) = match x.kind() {
            ValueKind::String => (x.as_str().map_or(0, str::len), MAX_BYTES, "bytes"),
            ValueKind::Seq | ValueKind::Iterable => (x.len().unwrap_or(0), MAX_ITEMS, "items"),
            _ => continue,
        };
        if per.checked_mul(n).is_none_or(|total| total > limit) {
            return Err(too_large(what, limit));
        }
    }
    let expr = state.env().compile_expression("a * b")?;
    expr.eval(minijinja::context! { a => a, b => b })
}

/// The error of a value past a bound.
pub(crate) fn too_large(what: &str, limit: usize) -> Error {
    let limit = if what == "bytes" {
        format!("{} MiB of text", limit >> 20)
    } else {
        format!("{limit} items")
    };
    Error::new(
        ErrorKind::InvalidOperation,
        format!("the value is too large: a template's value holds at most {limit}"),
    )
}

/// Whether `v` is within the bounds (items and bytes, at any depth), looking at no more of it
/// than the bounds: a lazily repeated list is measured by its length, not walked.
pub(crate) fn bounded(v: &Value) -> Result<(), Error> {
    fn walk(v: &Value, items: &mut usize, bytes: &mut usize, depth: usize) -> Result<(), Error> {
        match v.kind() {
            ValueKind::String => *bytes += v.as_str().map_or(0, str::len),
            ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => {
                *items += v.len().unwrap_or(0);
                if *items > MAX_ITEMS {
                    return Err(too_large("items", MAX_ITEMS));
                }
                if depth > 100 {
                    return Ok(());
                }
                let is_map = v.kind() == ValueKind::Map;
                for item in v.try_iter()? {
                    if is_map {
                        *bytes += item.as_str().map_or(0, str::len);
                        walk(&v.get_item(&item)?, items, bytes, depth + 1)?;
                    } else {
                        walk(&item, items, bytes, depth + 1)?;
                    }
                    if *items > MAX_ITEMS || *bytes > MAX_BYTES {
                        break;
                    }
                }
            }
            _ => *bytes += 8,
        }
        if *items > MAX_ITEMS {
            return Err(too_large("items", MAX_ITEMS));
        }
        if *bytes > MAX_BYTES {
            return Err(too_large("bytes", MAX_BYTES));
        }
        Ok(())
    }
    walk(v, &mut 0, &mut 0, 0)
}

/// The comparisons, memberships and repetitions of `instructions` made calls of the guards. A constant past
/// the bounds is an error: minijinja works out an operation of literals when it compiles
/// (`'x' * 50000000` is one 50 MB text), where no guard of the operation runs.
fn guard(instructions: &mut Instructions<'_>) -> Result<(), Error> {
    for i in 0..instructions.len() {
        let Ok(i) = u32::try_from(i) else { break };
        let Some(instr) = instructions.get_mut(i) else {
            break;
        };
        let name = match instr {
            Instruction::LoadConst(v) => {
                bounded(v)?;
                continue;
            }
            Instruction::Lt => COMPARE[0].0,
            Instruction::Lte => COMPARE[1].0,
            Instruction::Gt => COMPARE[2].0,
            Instruction::Gte => COMPARE[3].0,
            Instruction::Mul => MUL,
            Instruction::Eq => EQ,
            Instruction::Ne => NE,
            Instruction::In => IN,
            _ => continue,
        };
        *instr = Instruction::CallFunction(name, Some(2));
    }
    Ok(())
}

/// Renders the template `src` as `Environment::render_str` does, with the guards.
pub(crate) fn render(env: &Environment<'static>, src: &str, ctx: &Value) -> Result<String, Error> {
    let ws = WhitespaceConfig {
        keep_trailing_newline: true,
        ..WhitespaceConfig::default()
    };
    // A unit struct unless minijinja's `custom_syntax` is on (a dependency may turn it on).
    #[allow(clippy::default_constructed_unit_structs)]
    let ast = parse(src, "<string>", SyntaxConfig::default(), ws)?;
    folded::check_stmt(&ast)?;
    let mut g = CodeGenerator::new("<string>", src);
    g.compile_stmt(&ast);
    let (mut instructions, mut blocks) = g.finish();
    guard(&mut instructions)?;
    for b in blocks.values_mut() {
        guard(b)?;
    }
    let mut out = String::new();
    Vm::new(env).eval(
        &instructions,
        ctx.clone(),
        &blocks,
        &mut make_string_output(&mut out),
        AutoEscape::None,
    )?;
    Ok(out)
}

/// Evaluates the expression `src` as `Environment::compile_expression` and `eval` do, with the
/// guards.
pub(crate) fn eval(env: &Environment<'static>, src: &str, ctx: &Value) -> Result<Value, Error> {
    let ast = parse_expr(src)?;
    folded::check_expr(&ast)?;
    let mut g = CodeGenerator::new("<expression>", src);
    g.compile_expr(&ast);
    let mut instructions = g.finish().0;
    guard(&mut instructions)?;
    let mut out = String::new();
    let (v, _) = Vm::new(env).eval(
        &instructions,
        ctx.clone(),
        &BTreeMap::new(),
        &mut make_string_output(&mut out),
        AutoEscape::None,
    )?;
    Ok(v.unwrap_or(Value::UNDEFINED))
}

#[cfg(test)]
mod tests {
    use super::super::Templates;
    use serde_json::json;

    fn ctx() -> minijinja::Value {
        minijinja::Value::from_serialize(json!({
            "s": "0", "n": 1, "nothing": null, "l": [1, 2], "big": 10_000_000_000_000_i64
        }))
    }

    #[test]
    fn ordering_across_kinds_is_an_error_everywhere_a_template_compares() {
        let t = Templates::new();
        for src in [
            "{{ s >= 1 }}",
            "{{ n < s }}",
            "{{ nothing < 500 }}",
            "{{ l > 1 }}",
            "{% if s > 0 %}x{% endif %}",
            "{% for i in [1] %}{{ s <= i }}{% endfor %}",
            "{{ 0 < s < 2 }}",
            "{{ s is gt 0 }}",
            "{{ [s] | select('lessthan', 5) | list }}",
            // Lists whose first items that differ are of two kinds.
            "{{ [1, s] < [1, 2] }}",
            "{{ [[1, s], [1, 2]] | sort }}",
            "{{ [{'k': s}, {'k': 1}] | groupby('k') }}",
            // Literals minijinja works out when it compiles, wherever they are.
            "{{ 1 < 'a' }}",
            "{{ [1, 'a'] > [1, 2] }}",
            "{% set x = 0 < 1 < 'a' %}{{ x }}",
            "{% macro m(x=('5' >= 3)) %}{{ x }}{% endmacro %}{{ m() }}",
            "{% for i in [1] if 1 < none %}{% endfor %}",
            "{{ [1] | map('string') | select('ne', 1 < 'a') | list }}",
        ] {
            let e = t
                .render_str(src, &ctx())
                .map(|ok| format!("{src} gave {ok}"));
            let e = e.unwrap_err();
            assert!(e.message.contains("cannot compare"), "{src}: {}", e.message);
        }
        let e = t.condition(&json!("s >= 1"), &ctx()).unwrap_err();
        assert_eq!(
            e.message,
            "template error: cannot compare \"0\" (text) >= 1 (number): use `| int` or `| float` on the text"
        );
        for (src, want) in [
            ("{{ (s | int) < n }}", "true"),
            ("{{ s < 'a' }}", "true"),
            ("{{ l < [1, 3] }}", "true"),
            ("{{ n >= 1.5 }}", "false"),
            ("{{ s == '0' }}", "true"),
            ("{{ n is gt 0 }}", "true"),
            ("{{ [1, 'a'] < [2, 'b'] }}", "true"),
            ("{{ l < [1, 2, 'a'] }}", "true"),
            ("{{ 2 < 1 < 'a' }}", "false"),
            ("{{ [[2, 'x'], [1, 'y']] | sort | first | last }}", "y"),
        ] {
            assert_eq!(t.render_str(src, &ctx()).unwrap(), want, "{src}");
        }
    }

    #[test]
    fn equality_and_membership_of_a_text_with_a_number_are_errors() {
        let t = Templates::new();
        for src in [
            "{{ s == 0 }}",
            "{{ s != 0 }}",
            "{{ 0 != s }}",
            "{{ s in [0, 1] }}",
            "{{ s not in [0, 1] }}",
            "{{ n in ['1'] }}",
            "{{ n in {'1': 1} }}",
            "{{ n in '1' }}",
            "{{ s is eq 0 }}",
            "{{ s is ne 0 }}",
            "{{ s is in [0] }}",
            "{{ ['0'] | select('equalto', 0) | list }}",
            "{{ 'x' in [{'a': 1}] | map('attr', 'b') }}",
            "{% if s == 0 %}x{% endif %}",
            // Literals minijinja works out when it compiles.
            "{{ '0' == 0 }}",
            "{{ 1 == 1 == '1' }}",
            "{{ '0' not in [0] }}",
            // Two texts that read as numbers do not order.
            "{{ '9' >= '10' }}",
            "{{ s < ' 1 ' }}",
            "{{ ['9', '10'] | max }}",
        ] {
            let e = t
                .render_str(src, &ctx())
                .map(|ok| format!("{src} gave {ok}"));
            let e = e.unwrap_err();
            let want = if src.contains("map(") {
                "cannot look for"
            } else {
                "cannot compare"
            };
            assert!(e.message.contains(want), "{src}: {}", e.message);
        }
        // Undefined as minijinja's own `==` makes it under strict undefined.
        let e = t.render_str("{{ nope == 1 }}", &ctx()).unwrap_err();
        assert!(e.message.ends_with("is undefined"), "{}", e.message);
        for (src, want) in [
            ("{{ s == '0' and s != '1' and n == 1 and n != 2 }}", "true"),
            ("{{ nothing == 1 or nothing != none }}", "false"),
            ("{{ true == 1 and l == [1, 2] and l != 1 }}", "true"),
            (
                "{{ s in ['0'] and 1 in l and 'x' not in ['a'] and '0' in 'a0' }}",
                "true",
            ),
            ("{{ 'k' in {'k': 1} and 'j' not in {'k': 1} }}", "true"),
            ("{{ ('v' ~ '9') > ('v' ~ '10') and '9a' < 'a' }}", "true"),
            ("{{ [1, 2] | select('eq', 2) | list }}", "[2]"),
        ] {
            assert_eq!(t.render_str(src, &ctx()).unwrap(), want, "{src}");
        }
    }

    /// Inside lists and maps too (each two items at one index, each two values of one key, at
    /// any depth), where they were silently unequal: `[s] != [0]` held.
    #[test]
    fn equality_of_a_text_with_a_number_inside_lists_and_maps_is_an_error() {
        let t = Templates::new();
        for (src, want) in [
            (
                "{{ [s] != [0] }}",
                "cannot compare [\"0\"] (list) != [0] (list): their items \"0\" (text) and 0 (number) are of different kinds: use `| int`",
            ),
            (
                "{{ {'k': s} == {'k': 0} }}",
                "their values of \"k\" \"0\" (text) and 0 (number) are of different kinds",
            ),
            (
                "{{ {'a': [1, {'b': '1'}]} != {'a': [1, {'b': n}]} }}",
                "their values of \"b\" \"1\" (text) and 1 (number)",
            ),
            ("{{ [[s]] != [[true]] }}", "compare the text with a text"),
            ("{{ [s, 1] != [0] }}", "their items \"0\" (text) and 0"),
            (
                "{{ [s] in [[0]] }}",
                "cannot compare [\"0\"] (list) in [[0]] (list): its items include [0] (list): their items \"0\" (text) and 0 (number)",
            ),
            ("{{ [s] is eq [0] }}", "their items"),
            (
                "{{ l | map('string') != l }}",
                "their items \"1\" (text) and 1 (number)",
            ),
            ("{{ [[s]] | select('ne', [0]) | list }}", "their items"),
            // Literals minijinja works out when it compiles.
            ("{{ ['0'] == [0] }}", "their items"),
            ("{{ [{'k': 1}] != [{'k': '1'}] }}", "their values of \"k\""),
        ] {
            let e = t
                .render_str(src, &ctx())
                .map(|ok| format!("{src} gave {ok}"));
            let e = e.unwrap_err();
            assert!(e.message.contains(want), "{src}: {}", e.message);
        }
        for (src, want) in [
            (
                "{{ [s] == ['0'] and [n] == [1] and [true] == [1] }}",
                "true",
            ),
            (
                "{{ [nothing] != [1] and {'k': nothing} != {'k': s} }}",
                "true",
            ),
            ("{{ {'k': 1, 'j': 2} == {'j': 2, 'k': 1} }}", "true"),
            ("{{ {'k': s} != {'j': 0} and [1, 2] != [1, 2, 3] }}", "true"),
            ("{{ [[1, 'a']] != [[1, 'b']] and l == [1, 2] }}", "true"),
            ("{{ [s] in [['0']] and [0] not in [[1]] }}", "true"),
        ] {
            assert_eq!(t.render_str(src, &ctx()).unwrap(), want, "{src}");
        }
    }

    /// `sameas` refuses a text and a number (or a boolean) as `==` does: `'5' is sameas 5` was
    /// false whatever the text held (thirteenth attack, B18).
    #[test]
    fn sameas_of_a_text_and_a_number_is_an_error() {
        let t = Templates::new();
        for (src, want) in [
            (
                "{{ s is sameas 0 }}",
                "cannot compare \"0\" (text) sameas 0 (number): use `| int`",
            ),
            ("{{ '5' is sameas 5 }}", "\"5\" (text) sameas 5 (number)"),
            (
                "{{ not (n is sameas s) }}",
                "1 (number) sameas \"0\" (text)",
            ),
            ("{{ s is sameas true }}", "compare the text with a text"),
            (
                "{{ [{'c': '500'}] | selectattr('c', 'sameas', 500) | list | length }}",
                "\"500\" (text) sameas 500 (number)",
            ),
            ("{{ [s] | reject('sameas', 0) | list }}", "(text) sameas 0"),
        ] {
            let e = t
                .render_str(src, &ctx())
                .map(|ok| format!("{src} gave {ok}"));
            let e = e.unwrap_err();
            assert!(e.message.contains(want), "{src}: {}", e.message);
        }
        for (src, want) in [
            ("{{ s is sameas '0' and n is sameas 1 }}", "true"),
            (
                "{{ nothing is sameas none and true is sameas true }}",
                "true",
            ),
            (
                "{{ n is sameas 2 or n is sameas 1.0 or n is sameas true }}",
                "false",
            ),
            ("{{ l is sameas l and not (l is sameas [1, 2]) }}", "true"),
        ] {
            assert_eq!(t.render_str(src, &ctx()).unwrap(), want, "{src}");
        }
    }

    #[test]
    fn repetitions_and_values_past_the_bounds_are_errors() {
        let t = Templates::new();
        for src in [
            "{{ ['x'] * big }}",
            "{{ ['x'] * 200000 }}",
            "{{ 'ab' * 10000000 }}",
            "{{ [['x'] * 1000] * 1000 }}",
        ] {
            let e = t.render_string_value(src, &ctx()).unwrap_err();
            assert!(e.message.contains("too large"), "{src}: {}", e.message);
        }
        assert_eq!(
            t.render_string_value("{{ (['x'] * 3) | join('') ~ 'ab' * 2 }}", &ctx())
                .unwrap(),
            json!("xxxabab")
        );
        assert_eq!(
            t.render_string_value("{{ range(100000) | list | length }}", &ctx())
                .unwrap(),
            json!(100_000)
        );
    }
}
