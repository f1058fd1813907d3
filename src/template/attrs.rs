//! The filters that read an attribute of each item (`map(attribute=)`, `selectattr`,
//! `rejectattr`, `sum(attribute=)`, `unique(attribute=)`, and `sort` and `groupby` in
//! [`super::filters`]) fail on an item without it, naming the attribute, unless a `default=` is
//! given (`map` and `groupby` take one, as in Jinja2). The environment's strict undefined
//! ([`super::Templates::new`]) makes an undefined value an error where the template's own code
//! prints, compares or tests it, but minijinja's filters read attributes in Rust and keep what
//! is missing as undefined items: `items | map(attribute='price') | sum` added them as 0, `'x'
//! in items | map(attribute='status')` never matched them, and `selectattr('status', 'eq',
//! 'failed')` left them out, so a renamed field made every such check pass.

use std::borrow::Cow;

use minijinja::value::{Kwargs, Rest, Value, ValueKind, from_args};
use minijinja::{Environment, Error, ErrorKind, State};

use super::filters::named;
use super::items::{each_has, listed, path};
use super::order::shown;

/// Puts these in place of minijinja's own in `env`.
pub(crate) fn add_to(env: &mut Environment<'static>) {
    env.add_filter("map", map);
    env.add_filter("selectattr", selectattr);
    env.add_filter("rejectattr", rejectattr);
    env.add_filter("sum", sum);
    env.add_filter("unique", unique);
}

/// minijinja's `map(filter, ...)` or `map(attribute=, default=)`; without `default=`, an item
/// without the attribute is an error.
fn map(state: &State, value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let value = listed(value);
    let (_, kwargs): (&[Value], Kwargs) = from_args(&args)?;
    if !kwargs.has("default") {
        match kwargs.peek::<Option<Value>>("attribute")? {
            Some(attr) if attr.kind() == ValueKind::String => {
                let attr = attr.as_str().unwrap_or_default();
                each_has(
                    "map",
                    &value,
                    attr,
                    " (give `default=` for items without it)",
                )?;
            }
            Some(key) => {
                for item in value.try_iter().into_iter().flatten() {
                    if item.get_item(&key).map_or(true, |v| v.is_undefined()) {
                        return Err(Error::new(
                            ErrorKind::UndefinedError,
                            format!("`map`: the item {} has no item {key:?}", shown(&item)),
                        ));
                    }
                }
            }
            None => {}
        }
    }
    minijinja::filters::map(state, value, args).map(Value::from)
}

/// The hint of `selectattr` and `rejectattr` on an item without the attribute.
const SELECT_HINT: &str = " (to keep only the items that have it, `selectattr('ATTR', 'defined')`)";

/// `selectattr` and `rejectattr`: an item without the attribute is an error unless the test
/// asks whether it is there (`defined`, `undefined`).
fn select(name: &str, value: Value, attr: &str, test: Option<&str>) -> Result<Value, Error> {
    let value = listed(value);
    if !matches!(test, Some("defined" | "undefined")) {
        each_has(name, &value, attr, &SELECT_HINT.replace("ATTR", attr))?;
    }
    Ok(value)
}

fn selectattr(
    state: &State,
    value: Value,
    attr: String,
    test: Option<String>,
    args: Rest<Value>,
) -> Result<Vec<Value>, Error> {
    let value = select("selectattr", value, &attr, test.as_deref())?;
    minijinja::filters::selectattr(state, value, Cow::Owned(attr), test.map(Cow::Owned), args)
}

fn rejectattr(
    state: &State,
    value: Value,
    attr: String,
    test: Option<String>,
    args: Rest<Value>,
) -> Result<Vec<Value>, Error> {
    let value = select("rejectattr", value, &attr, test.as_deref())?;
    minijinja::filters::rejectattr(state, value, Cow::Owned(attr), test.map(Cow::Owned), args)
}

/// Jinja2's `sum(attribute=None, start=0)`: the items (or each one's attribute, which each must
/// have) added to `start`; an undefined item is an error, as a text is (minijinja added it as 0).
fn sum(state: &State, value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let named = named("sum", &["attribute", "start"], &args)?;
    let arg = |p: &str| named.iter().find(|(k, _)| k == p).map(|(_, v)| v.clone());
    let value = listed(value);
    let items: Vec<Value> = match arg("attribute").filter(|a| !a.is_none()) {
        Some(attr) => {
            let attr = attr.as_str().unwrap_or_default().to_string();
            each_has("sum", &value, &attr, "")?;
            value.try_iter()?.map(|i| path(&i, &attr)).collect()
        }
        None => value.try_iter()?.collect(),
    };
    if items.iter().any(Value::is_undefined) {
        return Err(Error::new(
            ErrorKind::UndefinedError,
            "`sum`: can only sum numbers, got undefined",
        ));
    }
    let total = minijinja::filters::sum(state, Value::from(items))?;
    match arg("start") {
        Some(start) if !(start.kind() == ValueKind::Number && start.as_i64() == Some(0)) => {
            minijinja::filters::sum(state, Value::from(vec![start, total]))
        }
        _ => Ok(total),
    }
}

/// minijinja's `unique(attribute=, case_sensitive=)`; an item without the attribute is an error,
/// and so are a text that reads as a number (or a boolean) and a number (or a boolean) among the
/// items compared, as `==` refuses them (`102` and `"102"`, ids from two APIs, would be kept as
/// two).
fn unique(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    let value = listed(value);
    let attr = kwargs.peek::<Option<String>>("attribute")?;
    if let Some(attr) = &attr {
        each_has("unique", &value, attr, "")?;
    }
    let compared: Vec<Value> = value
        .try_iter()
        .into_iter()
        .flatten()
        .map(|i| match &attr {
            Some(a) => path(&i, a),
            None => i,
        })
        .collect();
    // (A text that reads as no number, `'a'` beside `1`, is a value of its own, as before.)
    let text = compared.iter().find(|v| {
        v.as_str().is_some_and(|t| {
            super::read_number(t.trim()).is_some() || matches!(t.trim(), "true" | "false")
        })
    });
    let other = compared
        .iter()
        .find(|v| matches!(v.kind(), ValueKind::Number | ValueKind::Bool));
    if let (Some(t), Some(o)) = (text, other) {
        super::order::equal(t, "==", o).map_err(|e| {
            Error::new(
                ErrorKind::InvalidOperation,
                format!("`unique`: {}", e.detail().unwrap_or_default()),
            )
        })?;
    }
    minijinja::filters::unique(state, value, kwargs)
}
