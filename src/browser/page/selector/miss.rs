//! A selector that matches nothing: the `not_found` error, with up to 5 similar things that do
//! exist where it looks (role and name from the accessibility tree, CSS names from the DOM).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::normalize;
use crate::browser::driver::adapter::RefInfo;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// The accessibility tree each alternative looks in: the page's (`None`) or an iframe's.
type Trees<'a> = HashMap<Option<&'a str>, BTreeMap<String, RefInfo>>;

/// The `not_found` error for a selector, with up to 5 similar things that exist where it looks:
/// in the page, or in the iframe it names (there, suggestions carry the frame: the page's own
/// elements are out of the selector's reach).
pub(super) async fn miss(session: &mut Session, alts: &[Alt]) -> StepError {
    let t = Duration::from_secs(5);
    let wanted: Vec<String> = alts.iter().map(Alt::describe).collect();
    let trees = trees(session, alts, t).await;
    let mut suggestions: Vec<(f64, String)> = Vec::new();
    for alt in alts {
        let found = similar(session, alt, &trees[&alt.frame()], t).await;
        suggestions.extend(found);
    }
    let top = best(suggestions);
    let mut msg = format!("no element matches {}", wanted.join(", or "));
    for alt in alts {
        if let Some(why) = super::scope::missing_level(session, alt, t).await {
            msg.push_str(&format!(" ({why})"));
        }
    }
    for alt in alts {
        if let Find::Ref(r) = &alt.find
            && let Some(info) = session.user_refs.as_ref().and_then(|t| t.refs.get(r))
        {
            msg.push_str(&format!(
                " (@{r} was {} \"{}\" in the last snapshot: no element with that role and name is on the page now; take a new snapshot)",
                info.role, info.name
            ));
        }
    }
    if !top.is_empty() {
        // Where they were found: the one frame every alternative looks in, else the page.
        let place = match trees.keys().collect::<Vec<_>>().as_slice() {
            [Some(f)] => format!("in frame `{f}`"),
            _ => "on the page".to_string(),
        };
        msg.push_str(&format!("; similar elements {place}: {}", top.join("; ")));
    }
    StepError::new(ErrorKind::NotFound, msg)
}

/// The accessibility trees the alternatives look in, each read once.
async fn trees<'a>(session: &mut Session, alts: &'a [Alt], t: Duration) -> Trees<'a> {
    let mut trees: Trees<'a> = HashMap::new();
    for frame in alts.iter().map(Alt::frame) {
        if let std::collections::hash_map::Entry::Vacant(tree) = trees.entry(frame) {
            let refs = match frame {
                Some(f) => session.frame_refs(f, t).await,
                None => session.fresh_refs(t).await,
            };
            tree.insert(refs.map(|r| r.refs).unwrap_or_default());
        }
    }
    trees
}

/// A suggestion's fields, with its frame when the alternative looks in one.
fn within(frame: Option<&str>, fields: String) -> String {
    match frame {
        Some(f) => format!("{{ {fields}, frame: \"{f}\" }}"),
        None => format!("{{ {fields} }}"),
    }
}

/// What exists like `alt` (in `refs`, the tree where it looks; or, for CSS, the DOM), each with
/// how similar it is (0 to 1).
async fn similar(
    session: &mut Session,
    alt: &Alt,
    refs: &BTreeMap<String, RefInfo>,
    t: Duration,
) -> Vec<(f64, String)> {
    let frame = alt.frame();
    let mut suggestions = Vec::new();
    match &alt.find {
        Find::Role { role, name, exact } => {
            for info in refs.values() {
                let have = normalize(&info.name);
                let role_sim = strsim::normalized_levenshtein(&info.role, role);
                let name_sim = name.as_deref().map_or(0.5, |n| {
                    strsim::normalized_levenshtein(
                        &have.to_lowercase(),
                        &normalize(n).to_lowercase(),
                    )
                });
                let why = if super::refs::role_matches(info, role, name.as_deref(), *exact) {
                    // It matches what the alternative finds, but not where or which it says.
                    elsewhere(alt)
                } else {
                    name.as_deref()
                        .map(|n| why_not(&have, n, *exact))
                        .unwrap_or_default()
                };
                suggestions.push((
                    role_sim * 0.4 + name_sim * 0.6,
                    within(frame, format!("role: {}, text: {have}", info.role)) + &why,
                ));
            }
        }
        Find::Text { text, exact, .. } => {
            for info in refs.values() {
                let have = normalize(&info.name);
                let sim = strsim::normalized_levenshtein(
                    &have.to_lowercase(),
                    &normalize(text).to_lowercase(),
                );
                let why = if have == normalize(text) {
                    // Found by name, not by visible text: the name comes from a label or
                    // `aria-label`, or the element is not rendered.
                    " (its accessible name, not a visible text: select it by role and text)"
                        .to_string()
                } else {
                    why_not(&have, text, *exact)
                };
                suggestions.push((
                    sim,
                    within(frame, format!("role: {}, text: {have}", info.role)) + &why,
                ));
            }
        }
        // A ref is its element of the user's last snapshot, found again by role and name: the
        // refs of the snapshot taken now are numbered afresh, so they are not offered for it;
        // the message says what the ref stood for (see `miss`).
        Find::Ref(_) => {}
        Find::Attr { key, value, exact } => {
            suggestions = similar_attr(session, alt, (key, value, *exact), t).await;
        }
        Find::Css { css, .. } => {
            let js = call(&scripts::css_names(frame), &[json!(frame)]);
            if let Ok(Value::Array(cands)) = session.eval(&js, t).await {
                for c in cands.iter().filter_map(Value::as_str) {
                    let sim = strsim::normalized_levenshtein(c, css);
                    let text = match frame {
                        Some(_) => within(frame, format!("css: \"{c}\"")),
                        None => format!("css: \"{c}\""),
                    };
                    suggestions.push((sim, text));
                }
            }
        }
    }
    suggestions
}

/// What exists like an `Attr` alternative (`key`: label, placeholder, ...; `value`; `exact`):
/// the labels or attribute values of the page (or its frame), each with how similar it is.
async fn similar_attr(
    session: &mut Session,
    alt: &Alt,
    (key, value, exact): (&str, &str, bool),
    t: Duration,
) -> Vec<(f64, String)> {
    let frame = alt.frame();
    let testid = session.testid().to_string();
    let js = call(
        &scripts::attr_values(frame),
        &[json!(frame), json!(key), json!(testid)],
    );
    let Ok(Value::Array(cands)) = session.eval(&js, t).await else {
        return Vec::new();
    };
    let want = normalize(value);
    let lower = want.to_lowercase();
    cands
        .iter()
        .filter_map(Value::as_str)
        .map(|c| {
            let sim = strsim::normalized_levenshtein(&c.to_lowercase(), &lower);
            let why = if c == want || (!exact && c.to_lowercase().contains(&lower)) {
                elsewhere(alt)
            } else {
                why_not(c, &want, exact)
            };
            (sim, within(frame, format!("{key}: \"{c}\"")) + &why)
        })
        .collect()
}

/// Why a suggestion that the alternative's own words match was not found: it is outside the
/// alternative's `within`, or not the match its `nth` picks.
fn elsewhere(alt: &Alt) -> String {
    if alt.within.is_some() {
        " (not inside the `within`)".to_string()
    } else if alt.nth.is_some() {
        " (there are fewer matches than `nth` counts)".to_string()
    } else {
        String::new()
    }
}

/// Why a suggested name (whitespace-normalised, `have`) that looks like what the user wrote
/// (`want`) did not match it, so that no suggestion prints the user's own words without a
/// reason; empty when it does not look the same.
fn why_not(have: &str, want: &str, exact: bool) -> String {
    let want = normalize(want);
    if have == want {
        " (the same name, of another role)".to_string()
    } else if exact && have.to_lowercase() == want.to_lowercase() {
        " (differs in case, and `exact: true` compares case)".to_string()
    } else {
        String::new()
    }
}

/// The 5 most similar suggestions, each once; none that is hardly similar at all.
fn best(mut suggestions: Vec<(f64, String)>) -> Vec<String> {
    suggestions.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut seen = HashSet::new();
    suggestions
        .into_iter()
        .filter(|(s, _)| *s > 0.05)
        .map(|(_, t)| t)
        .filter(|t| seen.insert(t.clone()))
        .take(5)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::why_not;

    #[test]
    fn a_name_that_looks_like_the_users_says_why_it_did_not_match() {
        assert_eq!(
            why_not("price \u{25bc}", "price\u{a0}\u{25bc}", false),
            " (the same name, of another role)"
        );
        assert!(why_not("Price", "price", true).contains("case"));
        assert_eq!(why_not("Prices", "price", true), "");
    }
}
