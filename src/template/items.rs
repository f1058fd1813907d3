//! The items a filter goes through and the attributes it reads of them: shared by the filters
//! that order ([`super::filters`]) and those that read an attribute ([`super::attrs`]).

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind};

use super::order::shown;

/// `value` as a list when it is an iterable (one that can be gone through once, as `map`'s, is
/// gone through here, and the library is given its items), as it is otherwise (the library's
/// error then, an undefined as the library takes it).
pub(crate) fn listed(value: Value) -> Value {
    if value.kind() == ValueKind::Iterable {
        value.try_iter().map_or(value, Value::from_iter)
    } else {
        value
    }
}

/// `v`'s attribute at the dotted `path` (a part made of digits an index), as `sort` reads it;
/// undefined when there is none.
pub(crate) fn path(v: &Value, path: &str) -> Value {
    let mut rv = v.clone();
    for part in path.split('.') {
        rv = match part.parse::<usize>() {
            Ok(n) => rv.get_item(&Value::from(n)),
            Err(_) => rv.get_attr(part),
        }
        .unwrap_or_default();
    }
    rv
}

/// Nothing when each of `items` has the attribute at the dotted `attr` (as `path` reads it);
/// the error of `filter` naming the first item without it otherwise, with `hint`.
pub(crate) fn each_has(filter: &str, items: &Value, attr: &str, hint: &str) -> Result<(), Error> {
    for item in items.try_iter().into_iter().flatten() {
        if path(&item, attr).is_undefined() {
            return Err(Error::new(
                ErrorKind::UndefinedError,
                format!(
                    "`{filter}`: the item {} has no attribute `{attr}`{hint}",
                    shown(&item)
                ),
            ));
        }
    }
    Ok(())
}
