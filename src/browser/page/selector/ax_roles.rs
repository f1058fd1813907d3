//! A role level (`role`, with `text` its accessible name) answered from the browser's own
//! accessibility tree, as Playwright's `getByRole` answers it from its role computation: every
//! role, implicit (`<li>`, `<dialog open>`, `<img alt>`) or written (`role=alert`), not only the
//! roles agent-browser's snapshot gives a ref to. DevTools' `Accessibility.queryAXTree` over
//! runner's own session on the flow's tab, below the page's document (an iframe's, or the
//! element a `within` found), crossing shadow roots; an element hidden from the tree
//! (`display: none`, `visibility: hidden`, `aria-hidden`, a closed `<dialog>`) is not in it, so
//! it matches nothing. Each element found is resolved (`DOM.resolveNode`) and handed to one page
//! call that keeps those whose name matches (a nameless one by its text), puts runner's handle
//! on the one `nth` picks and reads what the check asks of it (`mark_picked.js`), as a CSS or
//! text look-up does: from there on the element is acted on and checked as one found by CSS.
//!
//! Without a session of runner's own on the tab (`RUNNER_OWN_EVAL=off`), the role is looked up
//! in a snapshot's refs (`refs::by_role`), which agent-browser gives to some roles only: a role
//! it gives none to cannot be told absent there, and that is an error, never "not on the page".

use std::time::Duration;

use serde_json::{Value, json};

use super::alternative::{Alt, Find};
use super::found::{Found, Read};
use super::lookup::frame_ready;
use crate::browser::driver::script::{bind, call};
use crate::browser::driver::session::{LeftOut, Session};
use crate::browser::page::described;
use crate::browser::page::element_kind::ElementKind;
use crate::browser::page::scripts;
use crate::step::{ErrorKind, StepError};

/// The DevTools object group the look-up's remote objects live in, released when it is done.
const GROUP: &str = "runner-roles";

/// The roles agent-browser's snapshot gives a ref to (its interactive roles, and headings,
/// cells and some landmarks): the ones a snapshot's refs can tell absent.
const REF_ROLES: [&str; 24] = [
    "button",
    "link",
    "textbox",
    "checkbox",
    "radio",
    "combobox",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "searchbox",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "treeitem",
    "heading",
    "cell",
    "gridcell",
    "columnheader",
    "rowheader",
    "region",
    "navigation",
];

/// A role level's elements (inside the element runner's handle `scope` names, when given): the
/// one its `nth` picks, marked, with what `read` asks of it; `None` when none matches now.
///
/// The tree leaves out what an open modal dialog or an `inert` subtree makes inert, and the
/// skipped contents of a `content-visibility: auto` element while it is off screen (Playwright's
/// getByRole finds both): a check (`read`) whose answer could be short of such elements — none
/// found, a count or list of them, or the one `nth` picks — is an error there, never "not on
/// the page" (attack 31, G11: every `hidden` by role held behind a `showModal()` dialog; G15:
/// `count: 0` by role held on a button in a section below the fold). The same holds where the
/// snapshot's refs answer (`RUNNER_OWN_EVAL=off`): they come from the same tree. An action's
/// element found is taken (an inert one cannot take input).
pub(super) async fn by_role(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    read: Option<&Read>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let found = looked_up(session, level, scope, read, t).await;
    let Some(read) = read else {
        return found;
    };
    let checked = not_short(session, level, scope, read, found, t).await;
    // The look-up's remote objects and the inert check's are let go together.
    if session.own_page() {
        let release = json!({ "objectGroup": GROUP });
        let _ = session
            .call_own("Runtime.releaseObjectGroup", release, t)
            .await;
    }
    checked
}

/// What a check's look-up `found`, or an error when the tree's answer could be short of
/// elements it leaves out as inert (see `by_role`).
async fn not_short(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    read: &Read,
    found: Result<Option<Found>, StepError>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let found = found?;
    // (`nth` counts the elements the tree left out too, as Playwright's does: review 27, F6.)
    let short = found.is_none()
        || level.nth.is_some()
        || matches!(read, Read::Count | Read::Texts | Read::Classes);
    if short && let Some(why) = tree_short(session, level.frame(), scope, t).await? {
        return Err(inert(level, &why));
    }
    Ok(found)
}

/// Why the tree may leave out elements of the look-up's reach: `inert` (an open modal dialog
/// or an `inert` subtree), `skipped` (`content-visibility: auto` contents off screen); `None`
/// when it shows them all. A page script (`ax_inert.js`) sees an `inert` element and skipped
/// contents in reach; the tree itself says whether the reach's root element is inert
/// (`Session::left_out`: a modal dialog open anywhere in its document, a closed shadow root's
/// too, or an `inert` part around it or around its frame, which no page script of the frame
/// sees): one call more than the look-up's own, the tree asked of the one root element. Without
/// runner's own session on the tab, the page script alone tells.
async fn tree_short(
    session: &mut Session,
    frame: Option<&str>,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<String>, StepError> {
    let frame_document = scripts::frame_document(frame);
    let ax_root = bind(scripts::AX_ROOT, &[&frame_document]);
    let js = call(
        &bind(scripts::AX_INERT, &[&frame_document, &ax_root]),
        &[json!(frame), json!(scope)],
    );
    if !session.own_page() {
        let v = session.eval(&js, t).await?;
        return Ok(v.as_str().map(str::to_string));
    }
    let params = json!({ "expression": js, "objectGroup": GROUP });
    let v = own(session, "Runtime.evaluate", params, t).await?;
    if let Some(why) = value(&v)?.as_str() {
        return Ok(Some(why.to_string()));
    }
    let Some(root) = v.pointer("/result/objectId").and_then(Value::as_str) else {
        return Ok(None);
    };
    let left = session
        .left_out(&[root.to_string()], t)
        .await
        .unwrap_or_else(|| Err(gone("Accessibility.getPartialAXTree")))?;
    Ok((left.first() == Some(&Some(LeftOut::Inert))).then(|| "inert".to_string()))
}

/// What the error of a role check the tree cannot answer while part of the page is inert or
/// skipped says (checks poll on past it: `Poll::settle`).
const INERT: &str = "cannot be told by role";

/// Whether `e` is a role check's that the tree could not answer while part of the page was
/// inert or skipped (see `inert`).
pub(super) fn is_inert(e: &StepError) -> bool {
    e.kind == ErrorKind::CommandFailed && e.message.contains(INERT)
}

/// The error for a role check the tree cannot answer while part of the page is inert (`why`:
/// `inert`) or skipped (`skipped`).
fn inert(level: &Alt, why: &str) -> StepError {
    let message = if why == "skipped" {
        format!(
            "{}: part of the page in reach is styled `content-visibility: auto` and off screen, and the browser renders it only once it nears the viewport: its accessibility tree leaves out what it holds until then, so whether and how often it is on the page {INERT}; select it by css, text or test id, or scroll to it first",
            level.describe_level()
        )
    } else {
        format!(
            "{}: a modal dialog is open (or an `inert` part of the page is in reach), and the browser's accessibility tree leaves out what it makes inert, so whether and how often it is on the page {INERT}; look inside the dialog (`within: {{ role: dialog }}`), or select it by css, text or test id",
            level.describe_level()
        )
    };
    StepError::new(ErrorKind::CommandFailed, message)
}

/// `by_role`'s look-up itself.
async fn looked_up(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    read: Option<&Read>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    if !session.own_page() {
        return by_refs(session, level, scope, t).await;
    }
    if let Some(f) = level.frame() {
        frame_ready(session, f, t).await?;
    }
    // An action's element of a role the snapshot gives refs to (a button, a link, a field) is
    // the snapshot's, as before the tree was asked, when the snapshot shows one: the tree's
    // look-up on top of it cost each such click ~15 ms (TodoMVC's 50 flows: 7.6 s -> 8.4 s).
    // A check reads the tree: the snapshot shows no element of most roles (a dialog, an alert).
    if read.is_none()
        && let Find::Role { role, .. } = &level.find
        && REF_ROLES.contains(&role.to_ascii_lowercase().as_str())
        && let Some(r) = super::refs::by_role(session, level, scope, t).await?
    {
        return Ok(Some(r));
    }
    let found = in_tree(session, level, scope, read, t).await;
    // Whatever the look-up came to, its remote objects are let go (a check's after its inert
    // check: `by_role`).
    if read.is_none() {
        let release = json!({ "objectGroup": GROUP });
        let _ = session
            .call_own("Runtime.releaseObjectGroup", release, t)
            .await;
    }
    let found = match found {
        // A page the browser does not render (a tab in the background of a browser
        // agent-browser launched) may leave the tree unanswered: the snapshot's refs instead.
        Err(e) if e.kind == ErrorKind::Timeout && e.message.contains(QUERY) => {
            return by_refs(session, level, scope, t).await;
        }
        Err(e) => return Err(e),
        Ok(None) => return Ok(None),
        Ok(Some(f)) => f,
    };
    // An action's element (nothing read with it) is given by the snapshot's ref when the
    // snapshot shows as many of its role and name, as before the tree was asked: agent-browser
    // finds a ref again by role and name when the page re-renders it between the look-up and
    // the action (a list rebuilt on every change), and reaches one inside a shadow root, where
    // runner's handle is out of reach of the page scripts an action runs.
    if read.is_none() {
        let by_ref = super::refs::by_role(session, level, scope, t).await?;
        if let Some(r) = by_ref.filter(|r| r.count == found.count) {
            return Ok(Some(r));
        }
    }
    Ok(Some(found))
}

/// The method that reads the tree.
const QUERY: &str = "Accessibility.queryAXTree";

/// How long the tree is given to answer before the snapshot's refs are asked instead (at
/// least: half of a longer step's time).
const TREE_TIME: Duration = Duration::from_secs(3);

/// A role level looked up in the snapshot's refs: a role they cannot show (none of its
/// elements gets a ref) is an error when none is found, never "not on the page".
async fn by_refs(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let Find::Role { role, .. } = &level.find else {
        return Ok(None);
    };
    let found = super::refs::by_role(session, level, scope, t).await?;
    if found.is_none() && !REF_ROLES.contains(&role.to_ascii_lowercase().as_str()) {
        return Err(unseen(level));
    }
    Ok(found)
}

/// The error for a role that runner cannot look up without the browser's tree.
fn unseen(level: &Alt) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!(
            "{}: the browser's accessibility tree cannot be read here (RUNNER_OWN_EVAL=off, or the tab did not answer), and agent-browser's snapshot gives no ref to this role, so whether it is on the page cannot be told; select it by css, text or test id",
            level.describe_level()
        ),
    )
}

/// One element of the tree with the role asked: its DOM node, its role and accessible name as
/// the browser computes them, and whether that name matches the one asked.
struct Node {
    backend: u64,
    role: String,
    name: String,
    named: Value,
}

/// The look-up itself (see the module's notes).
async fn in_tree(
    session: &mut Session,
    level: &Alt,
    scope: Option<&str>,
    read: Option<&Read>,
    t: Duration,
) -> Result<Option<Found>, StepError> {
    let Find::Role { role, name, exact } = &level.find else {
        return Ok(None);
    };
    let frame = level.frame();
    let Some(root) = root(session, frame, scope, t).await? else {
        return Ok(None);
    };
    let query = json!({ "objectId": root, "role": tree_role(role) });
    // A big page's tree takes its time: half of a long step's time is the tree's.
    let tree = own(session, QUERY, query, t.min(TREE_TIME.max(t / 2))).await?;
    let nodes = nodes(&tree, name.as_deref(), *exact);
    // A count of the whole page's elements whose names the tree matched (or no name asked)
    // is the tree's answer: nothing is to be read of them, and resolving each costs the
    // browser most of a millisecond (a list of 20,000 items: seconds).
    if read == Some(&Read::Count)
        && scope.is_none()
        && level.nth.is_none()
        && nodes.iter().all(|n| n.named == json!(true))
    {
        return Ok((!nodes.is_empty()).then(|| counted(&nodes)));
    }
    let mut els = Vec::new();
    let mut kept = Vec::new();
    // Each element resolved, all asked at once (one round trip each made a list of 2,000 items
    // take seconds).
    let params = nodes
        .iter()
        .map(|n| json!({ "backendNodeId": n.backend, "objectGroup": GROUP }))
        .collect();
    let answers = session
        .call_own_all("DOM.resolveNode", params, t)
        .await
        .ok_or_else(|| gone("DOM.resolveNode"))?;
    for (node, answer) in nodes.into_iter().zip(answers) {
        let v = match answer {
            Ok(v) => v,
            // An element the browser let go of since the tree was read is not on the page; any
            // other failure (the step's time ran out) is the look-up's, never "not there".
            Err(e) if e.message.contains("No node with given id found") => continue,
            Err(e) => return Err(e),
        };
        if let Some(id) = v.pointer("/object/objectId").and_then(Value::as_str) {
            els.push(json!({ "objectId": id }));
            kept.push(node);
        }
    }
    let Some(first) = els.first().cloned() else {
        return Ok(None);
    };
    let named: Vec<Value> = kept.iter().map(|n| n.named.clone()).collect();
    let mut args = vec![
        json!({ "value": scope }),
        json!({ "value": name }),
        json!({ "value": exact }),
        json!({ "value": named }),
        json!({ "value": level.nth }),
        json!({ "value": read.map(Read::arg) }),
    ];
    args.extend(els);
    let pick = json!({
        "functionDeclaration": scripts::ax_pick(),
        "objectId": first["objectId"],
        "arguments": args,
        "returnByValue": true,
    });
    let v = own(session, "Runtime.callFunctionOn", pick, t).await?;
    let v = value(&v)?;
    Ok(picked(session, frame, &kept, &v))
}

/// What a count read from the tree alone found: how many, described by role and name (no
/// element is marked: a count reads nothing else).
fn counted(nodes: &[Node]) -> Found {
    Found {
        target: String::new(),
        count: nodes.len(),
        matches: nodes
            .iter()
            .take(5)
            .map(|n| format!("{} \"{}\"", n.role, n.name))
            .collect(),
        kind: ElementKind::default(),
        read: None,
    }
}

/// The role as the browser's tree names it: ARIA's `img` is its `image` (the snapshot's word).
fn tree_role(role: &str) -> String {
    let role = role.trim().to_ascii_lowercase();
    match role.as_str() {
        "img" => "image".to_string(),
        _ => role,
    }
}

/// The elements of the tree's answer, in its order (the page's, as the snapshot shows it): not
/// those it ignores (hidden from it), and not those whose name is another than the one asked
/// (`named`: true, "empty" for a nameless one whose text the page call compares, or with
/// `exact` "same" / "case" for a name equal to the one asked (but for case) whose DOM form the
/// page call compares: the tree's carries CSS `text-transform`).
fn nodes(tree: &Value, name: Option<&str>, exact: bool) -> Vec<Node> {
    let text = |n: &Value, k: &str| {
        n.pointer(&format!("/{k}/value"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let all = tree.get("nodes").and_then(Value::as_array);
    all.into_iter()
        .flatten()
        .filter(|n| n.get("ignored").and_then(Value::as_bool) != Some(true))
        .filter_map(|n| {
            let backend = n.get("backendDOMNodeId").and_then(Value::as_u64)?;
            let (role, have) = (text(n, "role"), text(n, "name"));
            let named = match name {
                None => json!(true),
                Some(_) if super::normalize(&have).is_empty() => json!("empty"),
                // Equal but for case: the page call reads the name as the DOM has it (the
                // tree's carries CSS `text-transform`).
                Some(want) if exact && super::refs::name_matches(&have, want, false) => {
                    let same = super::refs::name_matches(&have, want, true);
                    let caseless = |s: &str| super::normalize(s).to_lowercase();
                    if caseless(&have) == caseless(want) {
                        json!(if same { "same" } else { "case" })
                    } else {
                        json!(same)
                    }
                }
                Some(want) => json!(super::refs::name_matches(&have, want, exact)),
            };
            (named != json!(false)).then_some(Node {
                backend,
                role,
                name: have,
                named,
            })
        })
        .collect()
}

/// The remote object of where the look-up looks (`ax_root.js`); `None` when the frame or the
/// scope element is not there now.
async fn root(
    session: &mut Session,
    frame: Option<&str>,
    scope: Option<&str>,
    t: Duration,
) -> Result<Option<String>, StepError> {
    let js = call(
        &bind(scripts::AX_ROOT, &[&scripts::frame_document(frame)]),
        &[json!(frame), json!(scope)],
    );
    let params = json!({ "expression": js, "objectGroup": GROUP });
    let v = own(session, "Runtime.evaluate", params, t).await?;
    value(&v)?;
    Ok(v.pointer("/result/objectId")
        .and_then(Value::as_str)
        .map(str::to_string))
}

/// `method` over runner's own session on the tab; an error when that session is gone meanwhile.
async fn own(
    session: &mut Session,
    method: &str,
    params: Value,
    t: Duration,
) -> Result<Value, StepError> {
    session
        .call_own(method, params, t)
        .await
        .unwrap_or_else(|| Err(gone(method)))
}

/// The error of a call whose session (runner's own, on the tab) went away meanwhile.
fn gone(method: &str) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!("{method}: runner's session on the tab is gone"),
    )
}

/// The value a page call returned, or the exception it threw as the page's error (the one
/// reading of own page calls: `session::page_value`).
fn value(v: &Value) -> Result<Value, StepError> {
    crate::browser::driver::session::page_value(v.clone())
        .map_err(|why| StepError::new(ErrorKind::CommandFailed, why))
}

/// What the page call answered: the element it marked (`None`: no match, or none where `nth`
/// says), described by role and name (a nameless one by its element and text).
fn picked(session: &mut Session, frame: Option<&str>, nodes: &[Node], v: &Value) -> Option<Found> {
    let id = v.get("id").and_then(Value::as_str)?;
    let kept: Vec<&Node> = v
        .get("kept")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| nodes.get(usize::try_from(i.as_u64()?).ok()?))
        .collect();
    let shown = described::elements(&session.masker, v.get("matches"));
    let matches = kept
        .iter()
        .zip(shown)
        .map(|(n, d)| {
            if n.name.is_empty() {
                format!("{} ({d})", n.role)
            } else {
                format!("{} \"{}\"", n.role, n.name)
            }
        })
        .collect();
    let count = v
        .get("count")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    let target = format!("[data-runner-sel=\"{id}\"]");
    if let Some(f) = frame {
        session.frame_of.insert(target.clone(), f.to_string());
    }
    let mut kind = ElementKind::from_page(v.get("kind").unwrap_or(&Value::Null));
    if let Some(n) = kept.first() {
        kind.role.clone_from(&n.role);
    }
    Some(Found {
        target,
        count,
        matches,
        kind,
        read: v.get("read").cloned(),
    })
}
