//! Filters and functions that take arguments, taking them as Jinja2 does: by place or by name.
//! minijinja-contrib's `truncate` takes names only (Jinja2's `truncate(5)` failed every run that
//! `validate` let through), and its `pluralize`, `joiner` and `filesizeformat` and minijinja's
//! `batch` and `slice` take places only: a keyword argument reached them as one more place,
//! a map (`joiner(sep='-')` joined with `{"sep": "-"}`, `batch(2, fill_with='x')` filled with
//! `{"fill_with": "x"}`: greens that are not true). Each is the library's own, called with the
//! arguments named.

use minijinja::value::{Kwargs, Rest, Value, from_args};
use minijinja::{Environment, Error, ErrorKind, State};
use minijinja_contrib::{filters, globals};

use super::items::{each_has, listed, path};
use super::order::same_kinds;

/// Puts these in place of the libraries' own in `env` (which has minijinja's and contrib's).
pub(crate) fn add_to(env: &mut Environment<'static>) {
    env.add_filter("truncate", truncate);
    env.add_filter("filesizeformat", filesizeformat);
    env.add_filter("pluralize", pluralize);
    env.add_filter("batch", batch);
    env.add_filter("slice", slice);
    env.add_function("joiner", joiner);
    env.add_function("cycler", cycler);
    env.add_filter("list", list);
    env.add_filter("min", min);
    env.add_filter("max", max);
    env.add_filter("sort", sort);
    env.add_filter("dictsort", dictsort);
    env.add_filter("groupby", groupby);
}

/// minijinja's `min`, refused when its items are not of one kind.
fn min(state: &State, value: Value) -> Result<Value, Error> {
    let value = listed(value);
    same_kinds("min", value.try_iter().into_iter().flatten())?;
    minijinja::filters::min(state, value)
}

/// minijinja's `max`, refused when its items are not of one kind.
fn max(state: &State, value: Value) -> Result<Value, Error> {
    let value = listed(value);
    same_kinds("max", value.try_iter().into_iter().flatten())?;
    minijinja::filters::max(state, value)
}

/// minijinja's `sort(reverse=, case_sensitive=, attribute=)`, refused when what it sorts by
/// (the items, or each of the comma-separated attributes) is not of one kind.
fn sort(state: &State, value: Value, kwargs: Kwargs) -> Result<Value, Error> {
    let value = listed(value);
    let items: Vec<Value> = value.try_iter().into_iter().flatten().collect();
    match kwargs.peek::<Option<String>>("attribute")? {
        Some(attr) => {
            for key in attr.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                each_has("sort", &value, key, "")?;
                same_kinds("sort", items.iter().map(|i| path(i, key)))?;
            }
        }
        None => same_kinds("sort", items.into_iter())?,
    }
    minijinja::filters::sort(state, value, kwargs)
}

/// minijinja's `dictsort(by=, reverse=, case_sensitive=)`, refused when the keys (or, `by='value'`,
/// the values) are not of one kind.
fn dictsort(value: &Value, kwargs: Kwargs) -> Result<Value, Error> {
    if value.kind() == minijinja::value::ValueKind::Map {
        let by_value = kwargs.peek::<Option<String>>("by")?.as_deref() == Some("value");
        let keys = value.try_iter()?;
        if by_value {
            same_kinds(
                "dictsort",
                keys.map(|k| value.get_item(&k).unwrap_or_default()),
            )?;
        } else {
            same_kinds("dictsort", keys)?;
        }
    }
    minijinja::filters::dictsort(value, kwargs)
}

/// minijinja's `groupby(attribute, default=, case_sensitive=)`, refused when what it groups by
/// (each item's attribute, or `default` where it has none) is not of one kind: it sorts by it;
/// an item without the attribute is an error unless `default=` is given.
fn groupby(value: Value, attribute: Option<&str>, kwargs: Kwargs) -> Result<Value, Error> {
    let value = listed(value);
    let attr = match attribute {
        Some(a) => Some(a.to_string()),
        None => kwargs.peek::<Option<String>>("attribute")?,
    };
    if let Some(attr) = attr {
        if !kwargs.has("default") {
            each_has(
                "groupby",
                &value,
                &attr,
                " (give `default=` for items without it)",
            )?;
        }
        let default = kwargs.peek::<Option<Value>>("default")?.unwrap_or_default();
        let keys = value.try_iter().into_iter().flatten().map(|item| {
            let key = path(&item, &attr);
            if key.is_undefined() {
                default.clone()
            } else {
                key
            }
        });
        same_kinds("groupby", keys)?;
    }
    minijinja::filters::groupby(value, attribute, kwargs)
}

/// Jinja2's `truncate(s, length=255, killwords=False, end='...', leeway=None)`.
fn truncate(state: &State, value: &Value, args: Rest<Value>) -> Result<Value, Error> {
    let named = named("truncate", &["length", "killwords", "end", "leeway"], &args)?;
    // `None` is the default, as in Jinja2 (`leeway=None`).
    let given = named.into_iter().filter(|(_, v)| !v.is_none());
    filters::truncate(state, value, given.collect::<Kwargs>())
}

/// Jinja2's `filesizeformat(value, binary=False)`.
fn filesizeformat(value: f64, args: Rest<Value>) -> Result<String, Error> {
    let mut named = named("filesizeformat", &["binary"], &args)?;
    let binary = named.pop().map(|(_, v)| v.is_true());
    Ok(filters::filesizeformat(value, binary))
}

/// Contrib's (Django's) `pluralize(singular='', plural='s')`.
fn pluralize(value: &Value, args: Rest<Value>) -> Result<Value, Error> {
    let named = named("pluralize", &["singular", "plural"], &args)?;
    let arg = |name: &str| {
        named
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    filters::pluralize(value, arg("singular"), arg("plural"))
}

/// Jinja2's `batch(value, linecount, fill_with=None)`.
fn batch(state: &State, value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let (count, fill_with) = count_and_fill("batch", "linecount", &args)?;
    minijinja::filters::batch(state, value, count, fill_with)
}

/// Jinja2's `slice(value, slices, fill_with=None)`.
fn slice(state: &State, value: Value, args: Rest<Value>) -> Result<Value, Error> {
    let (count, fill_with) = count_and_fill("slice", "slices", &args)?;
    minijinja::filters::slice(state, value, count, fill_with)
}

/// The arguments of `batch` and `slice`: a count (`count`, required) and `fill_with` (none:
/// no filling, as in Jinja2).
fn count_and_fill(
    name: &str,
    count: &str,
    args: &[Value],
) -> Result<(usize, Option<Value>), Error> {
    let named = named(name, &[count, "fill_with"], args)?;
    let arg = |p: &str| named.iter().find(|(k, _)| k == p).map(|(_, v)| v.clone());
    let Some(n) = arg(count) else {
        return Err(Error::new(
            ErrorKind::MissingArgument,
            format!("`{name}` needs `{count}`"),
        ));
    };
    let (n,): (usize,) = from_args(&[n])?;
    Ok((n, arg("fill_with").filter(|v| !v.is_none())))
}

/// Jinja2's `joiner(sep=', ')`.
fn joiner(args: Rest<Value>) -> Result<Value, Error> {
    let mut named = named("joiner", &["sep"], &args)?;
    Ok(globals::joiner(named.pop().map(|(_, v)| v)))
}

/// Jinja2's `cycler(*items)`; one list is contrib's form, its items cycled.
fn cycler(args: Rest<Value>) -> Result<Value, Error> {
    let (items, kwargs): (&[Value], Kwargs) = from_args(&args)?;
    if let Some(key) = kwargs.args().next() {
        return Err(invalid(format!(
            "`cycler` takes its items by place, not by name (`{key}`)"
        )));
    }
    match items {
        [one] if one.kind() == minijinja::value::ValueKind::Seq => {
            globals::cycler(one.try_iter()?.collect())
        }
        _ => globals::cycler(items.to_vec()),
    }
}

/// The arguments of a call to `name`, whose parameters are `params` in order: each positional
/// one named by its place, then the keyword ones. More positional arguments than it has, a
/// name it has not and a name given twice are errors, as in Python.
pub(crate) fn named(
    name: &str,
    params: &[&str],
    args: &[Value],
) -> Result<Vec<(String, Value)>, Error> {
    let (positional, kwargs): (&[Value], Kwargs) = from_args(args)?;
    if positional.len() > params.len() {
        return Err(invalid(format!(
            "`{name}` takes at most {} argument{} ({}), got {}",
            params.len(),
            if params.len() == 1 { "" } else { "s" },
            params.join(", "),
            positional.len()
        )));
    }
    let mut out: Vec<(String, Value)> = params
        .iter()
        .zip(positional)
        .map(|(p, v)| ((*p).to_string(), v.clone()))
        .collect();
    for key in kwargs.args() {
        if !params.contains(&key) {
            return Err(invalid(format!(
                "`{name}` has no argument `{key}` (it takes {})",
                params.join(", ")
            )));
        }
        if out.iter().any(|(k, _)| k == key) {
            return Err(invalid(format!("`{name}` got `{key}` twice")));
        }
        out.push((key.to_string(), kwargs.peek::<Value>(key)?));
    }
    Ok(out)
}

fn invalid(message: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, message)
}

/// `list`, bounded: one value per character of a text, or per item of what it is given, is
/// made at once where no fuel is spent (`'x' * 50000000 | list` took 1.3 GB), so what it would
/// make past the bounds is an error before it is made.
fn list(state: &minijinja::State, value: Value) -> Result<Value, minijinja::Error> {
    use super::compile::{MAX_ITEMS, too_large};
    let n = match value.as_str() {
        Some(s) => s.chars().take(MAX_ITEMS + 1).count(),
        None => value.len().unwrap_or(0),
    };
    if n > MAX_ITEMS {
        return Err(too_large("items", MAX_ITEMS));
    }
    let made = minijinja::filters::list(state, value)?;
    super::compile::bounded(&made)?;
    Ok(made)
}
