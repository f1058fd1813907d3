//! The look-ups of labels, attributes and `within` levels as composed from their page scripts,
//! run in node on a stand-in DOM (one page call for the DOM levels, as in a browser).

use serde_json::{Value, json};

use crate::browser::driver::script::node_run;
use crate::browser::driver::session::{Session, on_fake_daemon};
use crate::browser::page::selector::{element_eval, resolve_now};
use crate::config::model::Selector;

/// A stand-in DOM for node: elements that answer `querySelectorAll` for `*`, a tag, `.class`,
/// `#id` and runner's handle (each element carries one already, its id: every call runs on a
/// fresh copy of the page); a list of three items (each a `.toggle` labelled "Toggle" and a
/// label), a field labelled by `<label for>`, one by `aria-labelledby`, one by its placeholder,
/// an image by its alt and a button by its test id.
const PAGE: &str = r#"
const matches = (x, sel) => {
  if (sel === '*' || sel === 'body *') return true;
  const h = sel.match(/^\[data-runner-sel="(.*)"\]$/);
  if (h) return x.dataset.runnerSel === h[1];
  if (sel.startsWith('.')) return x.classList.includes(sel.slice(1));
  if (sel.startsWith('#')) return x.id === sel.slice(1);
  return x.tagName === sel.toUpperCase();
};
const el = (tag, attrs = {}, kids = [], text = '') => {
  const e = { tagName: tag.toUpperCase(), id: attrs.id || '', attrs, children: kids, dataset: { runnerSel: attrs.id },
    classList: (attrs.class || '').split(' ').filter(Boolean), type: attrs.type || '', value: '',
    isContentEditable: false, offsetParent: {}, labels: null };
  e.innerText = text || kids.map(k => k.innerText).filter(Boolean).join(' ');
  e.getAttribute = n => (n in attrs ? attrs[n] : null);
  e.all = () => kids.flatMap(k => [k, ...k.all()]);
  e.contains = o => o === e || e.all().includes(o);
  e.querySelectorAll = sel => e.all().filter(x => matches(x, sel));
  e.querySelector = sel => e.querySelectorAll(sel)[0] || null;
  e.matches = sel => matches(e, sel);
  e.nodeType = 1;
  e.firstElementChild = kids[0] || null;
  kids.forEach((k, i) => { k.nextElementSibling = kids[i + 1] || null; k.parentElement = e; });
  e.getRootNode = () => document;
  return e;
};
const item = (i, title) => el('li', { id: 'li' + i }, [
  el('input', { id: 'toggle' + i, class: 'toggle', type: 'checkbox', 'aria-label': 'Toggle' }),
  el('label', {}, [], title)]);
const forEmail = el('label', { for: 'email' }, [], 'Email\u00a0 address');
const email = el('input', { id: 'email' });
email.labels = [forEmail];
const body = el('body', {}, [
  el('ul', { class: 'list' }, [item(0, 'milk'), item(1, 'cat'), item(2, 'table')]),
  forEmail, email,
  el('span', { id: 'pl' }, [], 'Phone'), el('input', { id: 'phone', 'aria-labelledby': 'pl' }),
  el('input', { id: 'name', placeholder: 'Jane\n  Doe' }),
  el('img', { id: 'logo', alt: 'Company logo' }),
  el('button', { id: 'go', 'data-testid': 'go' }, [], 'Go'),
]);
globalThis.document = { nodeType: 9, body, firstElementChild: body, getRootNode: () => document,
  querySelectorAll: body.querySelectorAll, querySelector: body.querySelector,
  getElementById: id => body.all().find(x => x.id === id) || null };
"#;

/// A session whose page scripts run in node, on `PAGE`.
fn session(dir: &std::path::Path) -> Session {
    on_fake_daemon(dir, |_, v| {
        let script = v["script"].as_str().unwrap_or_default();
        let out = node_run(PAGE, script)?;
        Ok(json!({ "result": serde_json::from_str::<Value>(&out).unwrap_or(Value::Null) }))
    })
}

/// The id of the element `sel` finds now, with how many its last level matched; `None` when
/// nothing matches.
async fn found(s: &mut Session, sel: Value) -> Option<(String, usize)> {
    let sel: Selector = serde_json::from_value(sel).unwrap();
    let r = resolve_now(s, &sel).await.unwrap()?;
    let id = element_eval(s, &r, "(el) => el.id", &[]).await.unwrap();
    Some((id.unwrap().as_str().unwrap().to_string(), r.count))
}

#[tokio::test]
async fn labels_and_attributes_find_their_elements() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let f = |id: &str, n: usize| Some((id.to_string(), n));
    // The control, not its label; by `for`, by `aria-labelledby`, by `aria-label`.
    assert_eq!(
        found(&mut s, json!({ "label": "email ADDRESS" })).await,
        f("email", 1)
    );
    assert_eq!(
        found(&mut s, json!({ "label": "Email address", "exact": true })).await,
        f("email", 1)
    );
    assert_eq!(
        found(&mut s, json!({ "label": "email address", "exact": true })).await,
        None
    );
    assert_eq!(
        found(&mut s, json!({ "label": "phone" })).await,
        f("phone", 1)
    );
    assert_eq!(
        found(&mut s, json!({ "label": "toggle", "nth": -1 })).await,
        f("toggle2", 3)
    );
    assert_eq!(
        found(&mut s, json!({ "placeholder": "jane doe" })).await,
        f("name", 1)
    );
    assert_eq!(
        found(&mut s, json!({ "placeholder": "Jane Doe", "exact": true })).await,
        f("name", 1)
    );
    assert_eq!(found(&mut s, json!({ "alt": "LOGO" })).await, f("logo", 1));
    assert_eq!(found(&mut s, json!({ "title": "logo" })).await, None);
    // A test id is compared whole.
    assert_eq!(found(&mut s, json!({ "testid": "go" })).await, f("go", 1));
    assert_eq!(found(&mut s, json!({ "testid": "g" })).await, None);
}

#[tokio::test]
async fn within_looks_inside_one_element_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = session(dir.path());
    let f = |id: &str, n: usize| Some((id.to_string(), n));
    let second = json!({ "css": ".toggle", "within": { "css": "li", "nth": 1 } });
    assert_eq!(found(&mut s, second).await, f("toggle1", 1));
    let deep =
        json!({ "label": "toggle", "within": { "text": "table", "tag": "li", "within": ".list" } });
    assert_eq!(found(&mut s, deep).await, f("toggle2", 1));
    // A `within` that matches nothing is an error, never "no element" (attack 32, F5).
    let past: Selector =
        serde_json::from_value(json!({ "css": ".toggle", "within": { "css": "li", "nth": 3 } }))
            .unwrap();
    let e = resolve_now(&mut s, &past).await.unwrap_err();
    assert!(super::is_missing_within(&e.message), "{}", e.message);
    assert!(
        e.message
            .contains("the `within` css `li` (nth 3) matches nothing on the page"),
        "{}",
        e.message
    );
    let outside = json!({ "css": "#email", "within": { "css": "li", "nth": 0 } });
    assert_eq!(found(&mut s, outside).await, None);
    // Several matches of a `within` without `nth`: an error naming them, at once.
    let sel: Selector =
        serde_json::from_value(json!({ "css": ".toggle", "within": "li" })).unwrap();
    let e = resolve_now(&mut s, &sel).await.unwrap_err();
    assert!(
        e.message
            .contains("strict mode: the `within` css `li` matches 3 elements")
            && e.message
                .contains("[0] li#li0 \"milk\", [1] li#li1 \"cat\", [2] li#li2 \"table\""),
        "{}",
        e.message
    );
}
