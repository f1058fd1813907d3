//! The list checks, `texts` and `classes`: every element a selector matches, in document order,
//! against a list, item by item — as many elements as items, each matching the item at its
//! place (Playwright's `toHaveText([...])` and `toHaveClass([...])`; `contains` and `has` as
//! `toContainText` and `toContainClass` item by item). One check, read in one page call for an
//! element found by CSS or text, and re-read every round like every check; a failure shows the
//! expected and the actual lists side by side.

use serde_json::Value;

use super::outcome::{Outcome, describe};
use crate::browser::driver::script::bind;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::browser::page::selector::{
    Read, Resolved, element_eval, normalize, resolve_now, resolve_now_reading,
};
use crate::config::model::{ClassesMatcher, Selector, SelectorItem, Strings, TextsMatcher};
use crate::step::{ErrorKind, StepError};

/// How an item of the list is compared with what its element reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// The same text (both whitespace-normalised).
    Equals,
    /// The element's text contains the item.
    Contains,
    /// Every class name of the item is one of the element's.
    Has,
}

impl Compare {
    fn holds(self, want: &str, got: &str) -> bool {
        match self {
            Compare::Equals => want == got,
            Compare::Contains => got.contains(want),
            Compare::Has => {
                let have: Vec<&str> = got.split_whitespace().collect();
                want.split_whitespace().all(|c| have.contains(&c))
            }
        }
    }

    fn verb(self) -> &'static str {
        match self {
            Compare::Equals => "equal",
            Compare::Contains => "contain",
            Compare::Has => "have",
        }
    }
}

/// `texts: { target, equals | contains }`.
pub(crate) async fn texts_outcome(
    session: &mut Session,
    t: &TextsMatcher,
) -> Result<Outcome, StepError> {
    let (items, compare, key) = match (&t.equals, &t.contains) {
        (Some(l), _) => (l, Compare::Equals, "texts.equals"),
        (None, Some(l)) => (l, Compare::Contains, "texts.contains"),
        (None, None) => return Err(internal("texts")),
    };
    let want: Vec<String> = list(items, key)?.iter().map(|s| normalize(s)).collect();
    let got = read_each(session, &t.target, Read::Texts).await?;
    let got = got.map(|g| g.iter().map(|s| normalize(s)).collect());
    Ok(outcome("texts", &t.target, compare, &want, got))
}

/// `classes: { target, equals | has }`: an element without a class attribute has class `""`.
pub(crate) async fn classes_outcome(
    session: &mut Session,
    c: &ClassesMatcher,
) -> Result<Outcome, StepError> {
    let (items, compare, key) = match (&c.equals, &c.has) {
        (Some(l), _) => (l, Compare::Equals, "classes.equals"),
        (None, Some(l)) => (l, Compare::Has, "classes.has"),
        (None, None) => return Err(internal("classes")),
    };
    let want: Vec<String> = list(items, key)?.iter().map(|s| normalize(s)).collect();
    if compare == Compare::Has && want.iter().any(String::is_empty) {
        return Err(StepError::new(
            ErrorKind::Template,
            format!("`{key}`: an item renders empty; each item names at least one class"),
        ));
    }
    let got = read_each(session, &c.target, Read::Classes).await?;
    let got = got.map(|g| g.iter().map(|s| normalize(s)).collect());
    Ok(outcome("class attributes", &c.target, compare, &want, got))
}

/// The check's outcome: `got` is `None` when the matches changed while they were read.
fn outcome(
    of: &str,
    target: &Selector,
    compare: Compare,
    want: &[String],
    got: Option<Vec<String>>,
) -> Outcome {
    let what = format!(
        "the {of} of {} to {} {}",
        describe(target),
        compare.verb(),
        shown(want)
    );
    let Some(got) = got else {
        let failure = format!("expected {what}, but the elements changed while they were read");
        return Outcome::new(what, Some(failure));
    };
    let holds = want.len() == got.len() && want.iter().zip(&got).all(|(w, g)| compare.holds(w, g));
    let failure = (!holds).then(|| {
        format!(
            "expected {what}, got {}:\n{}",
            shown(&got),
            side_by_side(compare, want, &got)
        )
    });
    Outcome::new(what, failure)
}

/// `["a", "b"]`.
fn shown(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("\"{s}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The two lists side by side, one row per place, the rows that do not hold marked.
fn side_by_side(compare: Compare, want: &[String], got: &[String]) -> String {
    let cell = |s: Option<&String>| s.map_or_else(|| "-".to_string(), |s| format!("\"{s}\""));
    let rows = want.len().max(got.len());
    let width = (0..rows)
        .map(|i| cell(want.get(i)).chars().count())
        .chain(std::iter::once("expected".len()))
        .max()
        .unwrap_or(0);
    let mut out = format!("  #  {:width$}  actual", "expected");
    for i in 0..rows {
        let (w, g) = (want.get(i), got.get(i));
        let mark = match (w, g) {
            (Some(w), Some(g)) if compare.holds(w, g) => "",
            (Some(_), Some(_)) => "  <- differs",
            (Some(_), None) => "  <- missing",
            (None, _) => "  <- extra",
        };
        out.push_str(&format!("\n  {i:<2} {:width$}  {}{mark}", cell(w), cell(g)));
    }
    out
}

/// The list `items` holds; a template that did not render to one is the step's error.
fn list<'a>(items: &'a Strings, key: &str) -> Result<&'a [String], StepError> {
    items
        .list(key)
        .map_err(|e| StepError::new(ErrorKind::Template, e))
}

fn internal(key: &str) -> StepError {
    StepError::new(
        ErrorKind::Internal,
        format!("internal error: `{key}` has neither of its matchers"),
    )
}

/// What every element `sel` matches reads now (`read`: `Read::Texts` or `Read::Classes`), in
/// document order (the one `nth` picks, when it says); empty when nothing matches. `None` when
/// the matches changed while they were read one by one (elements found through the snapshot).
async fn read_each(
    session: &mut Session,
    sel: &Selector,
    read: Read,
) -> Result<Option<Vec<String>>, StepError> {
    let Some(r) = resolve_now_reading(session, sel, Some(read.clone())).await? else {
        return Ok(Some(Vec::new()));
    };
    // Found by CSS or text: every match read in the look-up's own page call.
    if let Some(Value::Array(items)) = &r.read {
        let texts = items
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string());
        return Ok(Some(texts.collect()));
    }
    // Found through the snapshot (a ref, a role): each match found again by its place, and read.
    if r.count <= 1 || r.has_nth {
        return Ok(read_one(session, &r, &read).await?.map(|one| vec![one]));
    }
    let mut out = Vec::new();
    for i in 0..r.count {
        let Some(nth) = nth_of(sel, r.index, i) else {
            return Ok(None);
        };
        let Some(ri) = resolve_now(session, &nth).await? else {
            return Ok(None);
        };
        match read_one(session, &ri, &read).await? {
            Some(one) => out.push(one),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// `(elementText) => (el, what) => text | class attribute`.
const READ_EACH_JS: &str = include_str!("../scripts/read_each.js");

/// `READ_EACH_JS` given the reader of texts the look-ups use: `(el, what) => text | class`.
fn read_each_js() -> String {
    bind(READ_EACH_JS, &[&scripts::element_text()])
}

/// What one element reads; `None` when it is gone.
async fn read_one(
    session: &mut Session,
    r: &Resolved,
    read: &Read,
) -> Result<Option<String>, StepError> {
    let v = element_eval(session, r, &read_each_js(), &[read.arg()]).await?;
    Ok(v.map(|v| v.as_str().unwrap_or_default().to_string()))
}

/// The alternative at `index` of `sel` (an object: a role), saying it means its match `nth`.
fn nth_of(sel: &Selector, index: usize, nth: usize) -> Option<Selector> {
    let object = match sel {
        Selector::Object(o) => o,
        Selector::List(items) => match items.get(index)? {
            SelectorItem::Object(o) => o,
            SelectorItem::String(_) => return None,
        },
        Selector::String(_) => return None,
    };
    let mut o = object.clone();
    o.nth = Some(i64::try_from(nth).ok()?);
    Some(Selector::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_string()).collect()
    }

    /// Same length, in order, each item at its place; the failure shows both lists side by side.
    #[test]
    fn lists_match_item_by_item_and_show_both_lists() {
        let sel: Selector = serde_json::from_value(serde_json::json!("li")).unwrap();
        let ok = outcome(
            "texts",
            &sel,
            Compare::Equals,
            &v(&["a", "b"]),
            Some(v(&["a", "b"])),
        );
        assert!(ok.failure.is_none());
        let swapped = outcome(
            "texts",
            &sel,
            Compare::Equals,
            &v(&["a", "b"]),
            Some(v(&["b", "a"])),
        );
        assert!(swapped.failure.is_some());
        let longer = outcome(
            "texts",
            &sel,
            Compare::Contains,
            &v(&["a"]),
            Some(v(&["xa", "b"])),
        );
        let msg = longer.failure.unwrap();
        assert_eq!(
            msg,
            "expected the texts of css `li` to contain [\"a\"], got [\"xa\", \"b\"]:\n  #  expected  actual\n  0  \"a\"       \"xa\"\n  1  -         \"b\"  <- extra"
        );
        let fewer = outcome(
            "texts",
            &sel,
            Compare::Equals,
            &v(&["a", "b"]),
            Some(v(&["a"])),
        );
        assert!(
            fewer
                .failure
                .unwrap()
                .ends_with("\"b\"       -  <- missing")
        );
        // No class attribute reads as "": toHaveClass(['completed', '']).
        let classes = outcome(
            "class attributes",
            &sel,
            Compare::Equals,
            &v(&["completed", ""]),
            Some(v(&["completed", ""])),
        );
        assert!(classes.failure.is_none());
        assert!(Compare::Has.holds("b a", "a x b"));
        assert!(!Compare::Has.holds("a c", "a b"));
        let empty = outcome("texts", &sel, Compare::Equals, &[], Some(Vec::new()));
        assert!(empty.failure.is_none());
        assert!(
            outcome("texts", &sel, Compare::Equals, &[], None)
                .failure
                .is_some()
        );
    }
}
