//! A flow's `matrix:` read as GitHub Actions reads one: every combination of its keys'
//! values (the first key varying slowest), then `exclude`, then `include`; each combination
//! is a test, named after its values.

use serde_json::{Map, Value};

use crate::source::pointer_push;
use crate::template::is_template;

/// One combination: each var, its value, and where that value is written (a JSON pointer).
pub(crate) type Combination = Vec<(String, Value, String)>;

/// The most tests one matrix may make (as GitHub Actions).
pub(crate) const MAX_TESTS: usize = 256;

/// What is wrong with a matrix, and where.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Problem {
    pub(crate) pointer: String,
    pub(crate) message: String,
    pub(crate) help: String,
}

fn problem(pointer: String, message: String, help: impl Into<String>) -> Problem {
    Problem {
        pointer,
        message,
        help: help.into(),
    }
}

/// The combinations of the matrix `m`, written at `at`.
pub(crate) fn combinations(m: &Map<String, Value>, at: &str) -> Result<Vec<Combination>, Problem> {
    literal_values(m, at)?;
    let axes: Vec<(&String, &Vec<Value>)> = m
        .iter()
        .filter(|(k, _)| *k != "include" && *k != "exclude")
        .filter_map(|(k, v)| Some((k, v.as_array()?)))
        .collect();
    let count = axes
        .iter()
        .try_fold(1usize, |n, (_, vals)| n.checked_mul(vals.len()))
        .filter(|n| *n <= MAX_TESTS);
    if count.is_none() {
        return Err(too_many(at));
    }
    let mut combos: Vec<Combination> = if axes.is_empty() {
        Vec::new()
    } else {
        vec![Vec::new()]
    };
    for (k, vals) in &axes {
        let at_key = pointer_push(at, k);
        let at_key = at_key.as_str();
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().enumerate().map(move |(i, v)| {
                    let mut c = c.clone();
                    c.push(((*k).clone(), v.clone(), format!("{at_key}/{i}")));
                    c
                })
            })
            .collect();
    }
    let keys: Vec<&str> = axes.iter().map(|(k, _)| k.as_str()).collect();
    for (j, e) in entries(m, "exclude") {
        if let Some(k) = e.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(problem(
                pointer_push(&format!("{at}/exclude/{j}"), k),
                format!("`matrix.exclude` names `{k}`, which is not a key of the matrix"),
                format!("the matrix's keys: {}", keys.join(", ")),
            ));
        }
        combos.retain(|c| !e.iter().all(|(k, v)| value_of(c, k) == Some(v)));
    }
    include(&mut combos, m, at, &keys);
    if combos.len() > MAX_TESTS {
        return Err(too_many(at));
    }
    if combos.is_empty() {
        let why = if m.contains_key("exclude") {
            "`exclude` leaves out every combination"
        } else {
            "it has no values"
        };
        return Err(problem(
            at.to_string(),
            format!("the matrix makes no test: {why}"),
            "give its keys values, or add combinations with `include`",
        ));
    }
    Ok(combos)
}

fn too_many(at: &str) -> Problem {
    problem(
        at.to_string(),
        format!("the matrix makes more than {MAX_TESTS} tests"),
        "give its keys fewer values, or split the flow",
    )
}

/// GitHub Actions' `include`: an entry whose values of the matrix's own `keys` match a
/// combination (of those the keys made) adds its other keys to it; one that matches none is a
/// combination of its own.
fn include(combos: &mut Vec<Combination>, m: &Map<String, Value>, at: &str, keys: &[&str]) {
    let made = combos.len();
    for (j, e) in entries(m, "include") {
        let base = format!("{at}/include/{j}");
        let own = |k: &str| keys.contains(&k);
        let mut matched = false;
        for c in combos.iter_mut().take(made) {
            if e.iter()
                .filter(|(k, _)| own(k))
                .all(|(k, v)| value_of(c, k) == Some(v))
            {
                matched = true;
                for (k, v) in e.iter().filter(|(k, _)| !own(k)) {
                    let ptr = pointer_push(&base, k);
                    match c.iter_mut().find(|(ck, _, _)| ck == k) {
                        Some(slot) => *slot = (k.clone(), v.clone(), ptr),
                        None => c.push((k.clone(), v.clone(), ptr)),
                    }
                }
            }
        }
        if !matched {
            combos.push(
                e.iter()
                    .map(|(k, v)| (k.clone(), v.clone(), pointer_push(&base, k)))
                    .collect(),
            );
        }
    }
}

/// The entries of `include` or `exclude`, with their indexes.
fn entries<'a>(
    m: &'a Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = (usize, &'a Map<String, Value>)> {
    m.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(j, e)| Some((j, e.as_object()?)))
}

fn value_of<'a>(c: &'a Combination, key: &str) -> Option<&'a Value> {
    c.iter().find(|(k, _, _)| k == key).map(|(_, v, _)| v)
}

/// Matrix values are shown in tests' names as written: a template there is refused.
fn literal_values(m: &Map<String, Value>, at: &str) -> Result<(), Problem> {
    fn walk(v: &Value, ptr: &str) -> Option<String> {
        match v {
            Value::String(s) if is_template(s) => Some(ptr.to_string()),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, &format!("{ptr}/{i}"))),
            Value::Object(o) => o.iter().find_map(|(k, v)| walk(v, &pointer_push(ptr, k))),
            _ => None,
        }
    }
    match walk(&Value::Object(m.clone()), at) {
        Some(ptr) => Err(problem(
            ptr,
            "matrix values are taken as written: templates are not rendered here".into(),
            "write the value itself (it is part of the test's name); a var may build on it with a template",
        )),
        None => Ok(()),
    }
}

/// What a combination adds to its test's name: ` [user=ada, size=s]` (a string as it is,
/// anything else as JSON).
pub(crate) fn name_suffix(c: &Combination) -> String {
    let parts: Vec<String> = c
        .iter()
        .map(|(k, v, _)| match v {
            Value::String(s) => format!("{k}={s}"),
            v => format!("{k}={v}"),
        })
        .collect();
    format!(" [{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(m: Value) -> Vec<String> {
        combinations(m.as_object().unwrap(), "/matrix")
            .unwrap()
            .iter()
            .map(name_suffix)
            .collect()
    }

    #[test]
    fn every_combination_the_first_key_slowest() {
        assert_eq!(
            names(json!({"user": ["ada", "bob"], "size": ["s", 2]})),
            [
                " [user=ada, size=s]",
                " [user=ada, size=2]",
                " [user=bob, size=s]",
                " [user=bob, size=2]"
            ]
        );
        let c = combinations(json!({"a": [1, 2]}).as_object().unwrap(), "/m").unwrap();
        assert_eq!(c[1][0].2, "/m/a/1", "each value keeps where it is written");
    }

    #[test]
    fn exclude_then_include_as_github_actions() {
        // GitHub Actions' documented example: include extends matching combinations, and adds
        // the ones that match none.
        let m = json!({
            "fruit": ["apple", "pear"], "animal": ["cat", "dog"],
            "include": [
                {"color": "green"}, {"color": "pink", "animal": "cat"},
                {"fruit": "apple", "shape": "circle"}, {"fruit": "banana"},
                {"fruit": "banana", "animal": "cat"}
            ],
            "exclude": [{"fruit": "pear", "animal": "dog"}]
        });
        assert_eq!(
            names(m),
            [
                " [fruit=apple, animal=cat, color=pink, shape=circle]",
                " [fruit=apple, animal=dog, color=green, shape=circle]",
                " [fruit=pear, animal=cat, color=pink]",
                " [fruit=banana]",
                " [fruit=banana, animal=cat]"
            ]
        );
        assert_eq!(names(json!({"include": [{"a": 1}]})), [" [a=1]"]);
    }

    #[test]
    fn problems_say_where() {
        let bad = |m: Value| combinations(m.as_object().unwrap(), "/matrix").unwrap_err();
        let p = bad(json!({"a": [1], "exclude": [{"a": 1}]}));
        assert_eq!(p.pointer, "/matrix");
        assert!(p.message.contains("makes no test"), "{p:?}");
        let p = bad(json!({"a": [1], "exclude": [{"b": 1}]}));
        assert_eq!(p.pointer, "/matrix/exclude/0/b");
        let p = bad(json!({"a": ["x", "{{ env.A }}"]}));
        assert_eq!(p.pointer, "/matrix/a/1");
        let big: Vec<u32> = (0..20).collect();
        let p = bad(json!({"a": big, "b": big}));
        assert!(p.message.contains("more than 256"), "{p:?}");
        let p = bad(
            json!({"a": big, "b": big, "c": big, "d": big, "e": big, "f": big,
            "g": big, "h": big, "i": big, "j": big, "k": big, "l": big, "m": big, "n": big,
            "o": big, "p": big}),
        );
        assert!(
            p.message.contains("more than 256"),
            "an overflow is too many: {p:?}"
        );
    }
}
