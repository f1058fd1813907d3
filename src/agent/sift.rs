//! An answer's lists sifted item by item (`page_analysis`'s `frontier_tasks` and `test_ideas`):
//! an item that breaks its part of the skill's schema, or that the caller cannot use, is
//! dropped and named with the reason; the rest of the answer stands. Only an answer whose items
//! were all dropped is refused as a whole (by the caller of [`sift`]).

use serde_json::Value;

use super::answer::describe;
use crate::step::Masker;

/// What became of an answer's items.
#[derive(Debug, Default)]
pub(crate) struct Sifted {
    /// The items dropped: `frontier_tasks[3] (drag text=Add to cart): why`.
    pub(crate) dropped: Vec<String>,
    /// How many items the answer's lists held, and how many are kept.
    pub(crate) given: usize,
    pub(crate) kept: usize,
}

/// Puts one item of list `list` in the form runner uses it in, or says why runner cannot.
pub(crate) type FitItem<'a> = dyn Fn(&str, &mut Value) -> Result<(), String> + Send + Sync + 'a;

/// Takes an item as it is.
// A hook: its type is the one `SkillCall` takes.
#[allow(clippy::unnecessary_wraps)]
pub(crate) fn keep_item(_: &str, _: &mut Value) -> Result<(), String> {
    Ok(())
}

/// The lists of an answer whose items stand alone, each with the validator of one item.
pub(crate) type ItemLists = [(&'static str, jsonschema::Validator)];

/// Drops from each list of `lists` the items that break its schema or that `fit` refuses
/// (`fit` gets the others, to put them in runner's form); each named as `masker` masks it
/// before it is cut ([`describe`]).
pub(crate) fn sift(
    lists: &ItemLists,
    answer: &mut Value,
    fit: &FitItem<'_>,
    masker: &Masker,
) -> Sifted {
    let mut out = Sifted::default();
    for (list, validator) in lists {
        let Some(items) = answer.get_mut(*list).and_then(Value::as_array_mut) else {
            continue;
        };
        out.given += items.len();
        let mut kept = Vec::with_capacity(items.len());
        for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
            let name = describe(&item, masker);
            let why = match validator {
                v if !v.is_valid(&item) => Err(v
                    .iter_errors(&item)
                    .map(|e| {
                        let at = e.instance_path().to_string();
                        if at.is_empty() {
                            e.to_string()
                        } else {
                            format!("{at}: {e}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("; ")),
                _ => fit(list, &mut item),
            };
            match why {
                Ok(()) => kept.push(item),
                Err(why) => out.dropped.push(format!("{list}[{i}] ({name}): {why}")),
            }
        }
        out.kept += kept.len();
        *items = kept;
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::Skill;

    #[test]
    fn an_item_that_breaks_the_schema_or_does_not_fit_is_dropped_and_named() {
        let mut a = json!({
            "summary": "s",
            "frontier_tasks": [
                {"selector": "text=Cart", "action": "click", "reason": "r", "priority": 5, "is_destructive": false},
                {"selector": "text=Cart", "action": "click", "reason": "r", "priority": "high", "is_destructive": false},
                {"selector": "//a", "action": "drag", "reason": "r", "priority": 1, "is_destructive": false},
            ],
            "test_ideas": [
                {"name": "smoke", "description": "d", "type": "smoke"},
                {"description": "no name", "type": "smoke"},
            ],
        });
        let fit = |list: &str, item: &mut Value| {
            if list == "frontier_tasks" && item["action"] == "drag" {
                return Err("runner cannot drag".to_string());
            }
            Ok(())
        };
        let s = sift(
            Skill::PageAnalysis.item_lists(),
            &mut a,
            &fit,
            &Masker::default(),
        );
        assert_eq!((s.given, s.kept), (5, 2), "{:?}", s.dropped);
        assert!(
            s.dropped[0].starts_with("frontier_tasks[1] (click text=Cart): /priority"),
            "{:?}",
            s.dropped
        );
        assert_eq!(
            s.dropped[1],
            "frontier_tasks[2] (drag //a): runner cannot drag"
        );
        assert!(
            s.dropped[2].starts_with("test_ideas[1] ("),
            "{:?}",
            s.dropped
        );
        assert!(s.dropped[2].contains("name"), "{:?}", s.dropped);
        assert_eq!(a["frontier_tasks"].as_array().unwrap().len(), 1);
        assert!(
            Skill::PageAnalysis.check(&a).is_empty(),
            "{:?}",
            Skill::PageAnalysis.check(&a)
        );
    }
}
