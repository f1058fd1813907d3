//! The page layer's page scripts, one per `.js` file in `scripts/` (see `driver::script`): each
//! a function expression, called with JSON arguments. The element-state checks (`DISABLED`,
//! `READ_ONLY`, `HAS_FOCUS`) and the frame-document helper are shared: scripts that use them
//! take them as their first arguments (`script::bind`).

use crate::browser::driver::script::bind;

/// `(frames) => (frame) => document | null`: the page's document (`frame` null) or that of the
/// one iframe `frame` names; null when none or several match or it shows a page of another
/// origin. The one copy of that rule (`FRAME_STATE` says which).
const FRAME_DOCUMENT: &str = include_str!("scripts/frame_document.js");

/// `(cssElements) => (frame) => elements | null`: what iframe CSS `frame` names, open shadow
/// roots included, as an element selector's CSS.
const FRAMES: &str = include_str!("scripts/frames.js");

/// `(frames) => (frame) => null | { missing } | { strict, matches } | ...`: what keeps a
/// selector out of iframe `frame`.
const FRAME_STATE: &str = include_str!("scripts/frame_state.js");

/// `FRAMES` given the CSS look-up element selectors use: `(frame) => elements | null`.
fn frames() -> String {
    bind(
        FRAMES,
        &[&bind(CSS_ELEMENTS, &[DEEP_ELEMENTS, &element_text()])],
    )
}

/// `(frame) => throws`: stands for `FRAMES` in a script composed for the page's own document
/// (`frame` null), which never asks it. A script composed so and then called with a frame fails
/// loudly, never answers as if that frame were missing.
const NO_FRAMES: &str = include_str!("scripts/no_frames.js");

/// `FRAMES` when a script will be called with iframe CSS `frame`; else (the page's document, as
/// nearly every step looks) `NO_FRAMES`. The frames rule carries the whole CSS engine (`:has`,
/// open shadow roots): sent with every script, it made each step's scripts several times larger
/// and slower to send and compile (s28: a click 20 -> 29 ms).
fn frames_for(frame: Option<&str>) -> String {
    match frame {
        Some(_) => frames(),
        None => NO_FRAMES.to_string(),
    }
}

/// `FRAME_DOCUMENT` given `FRAMES`, for a script to be called with `frame` (the page's
/// document when `None`; see `frames_for`): `(frame) => document | null`.
pub(crate) fn frame_document(frame: Option<&str>) -> String {
    bind(FRAME_DOCUMENT, &[&frames_for(frame)])
}

/// `FRAME_STATE` given `FRAMES`: `(frame) => null | why the frame cannot be looked in`.
pub(crate) fn frame_state() -> String {
    bind(FRAME_STATE, &[&frames()])
}

/// `FIND` given its helpers, for a look-up in `frame` (the page's document when `None`): the
/// frames rule bound once, shared by `FRAME_STATE` and `FRAME_DOCUMENT`, and only when there is
/// a frame. `(frame, scope, levels, read) => answer`.
pub(crate) fn find(frame: Option<&str>) -> String {
    bind(
        FIND,
        &[
            FRAME_STATE,
            FRAME_DOCUMENT,
            &frames_for(frame),
            &elements(),
            &mark_picked(),
        ],
    )
}

/// `(frameState, frameDocument, frames, elements, markPicked) => (frame, scope, levels, read) =>
/// answer`: the look-up of a selector's levels found in the page's DOM (`elements`: see
/// `elements()`), each inside the one element the level before picked; `frameState` and
/// `frameDocument` unbound (`(frames) => ...`), given `frames` in the page.
const FIND: &str = include_str!("scripts/find.js");

/// `(cssElements, textElements, attrElements, labelElements) => (root, level) => elements |
/// null`: what one level of a selector finds under a document or an element.
pub(crate) const ELEMENTS: &str = include_str!("scripts/elements.js");

/// `ELEMENTS` given its finders, each looking inside open shadow roots:
/// `(root, level) => elements | null`.
pub(crate) fn elements() -> String {
    let deep = [DEEP_ELEMENTS];
    let texts = [DEEP_ELEMENTS, &element_text()];
    bind(
        ELEMENTS,
        &[
            &bind(CSS_ELEMENTS, &texts),
            &bind(TEXT_ELEMENTS, &texts),
            &bind(ATTR_ELEMENTS, &deep),
            &bind(LABEL_ELEMENTS, &texts),
        ],
    )
}

/// `(root) => elements`: every element under a document, an element or a shadow root, open
/// shadow roots included (Playwright's order).
pub(crate) const DEEP_ELEMENTS: &str = include_str!("scripts/deep_elements.js");

/// `(deep) => (scope, caseless) => (el) => text`: an element's text as the look-ups read it (an
/// SVG element's, an input button's value, what an open shadow root shows; without CSS
/// `text-transform`, unless `caseless`).
pub(crate) const ELEMENT_TEXT: &str = include_str!("scripts/element_text.js");

/// `ELEMENT_TEXT` given `DEEP_ELEMENTS`: `(scope, caseless) => (el) => text`.
pub(crate) fn element_text() -> String {
    bind(ELEMENT_TEXT, &[DEEP_ELEMENTS])
}

/// `(el) => undefined`: runner's handle on an element inside a shadow root made reachable by
/// CSS (its document's `querySelector` then looks through open shadow roots for a handle).
pub(crate) const REACH: &str = include_str!("scripts/reach.js");

/// `(deep, elementText) => (root, css, text, exact) => elements | null`: what CSS matches,
/// inside open shadow roots too; null for CSS the page cannot parse.
pub(crate) const CSS_ELEMENTS: &str = include_str!("scripts/css_elements.js");

/// `(deep, elementText) => (root, want, tag, exact) => elements`: the innermost rendered
/// elements with that text.
pub(crate) const TEXT_ELEMENTS: &str = include_str!("scripts/text_elements.js");

/// `(deep) => (root, name, want, exact) => elements`: the elements whose attribute `name` has
/// that text.
pub(crate) const ATTR_ELEMENTS: &str = include_str!("scripts/attr_elements.js");

/// `(deep, elementText) => (root, want, exact) => elements`: the elements labelled so
/// (getByLabel), labels' texts read as the look-ups read them.
pub(crate) const LABEL_ELEMENTS: &str = include_str!("scripts/label_elements.js");

/// `(frameDocument, deep) => (frame, key, testid) => values`: what a label or attribute
/// selector could name there (open shadow roots included), for suggestions.
pub(crate) const ATTR_VALUES: &str = include_str!("scripts/attr_values.js");

/// `ATTR_VALUES` given its helpers: `(frame, key, testid) => values`.
pub(crate) fn attr_values(frame: Option<&str>) -> String {
    bind(ATTR_VALUES, &[&frame_document(frame), DEEP_ELEMENTS])
}

/// `(frameDocument, deep) => (frame, scope, boxes) => [bool] | null`: which boxes are of
/// elements inside the element a handle names.
pub(crate) const IN_SCOPE: &str = include_str!("scripts/in_scope.js");

/// `IN_SCOPE` given its helpers: `(frame, scope, boxes) => [bool] | null`.
pub(crate) fn in_scope(frame: Option<&str>) -> String {
    bind(IN_SCOPE, &[&frame_document(frame), DEEP_ELEMENTS])
}

/// `(frameDocument, deep) => (frame, boxes) => [row text | '' | null]`: the row each ref'd
/// element (by its box) sits in, to tell a re-render from a replacement (see the script).
pub(crate) const REF_CONTEXT: &str = include_str!("scripts/ref_context.js");

/// `REF_CONTEXT` given its helpers: `(frame, boxes) => [string | null]`.
pub(crate) fn ref_context(frame: Option<&str>) -> String {
    bind(REF_CONTEXT, &[&frame_document(frame), DEEP_ELEMENTS])
}

/// `(reach, elementText) => (els, nth, read) => { count, matches, id, kind, read }`: runner's
/// handle on the match `nth` picks.
pub(crate) const MARK_PICKED: &str = include_str!("scripts/mark_picked.js");

/// `MARK_PICKED` given its helpers: `(els, nth, read) => { count, matches, id, kind, read }`.
pub(crate) fn mark_picked() -> String {
    bind(MARK_PICKED, &[REACH, &element_text(), IS_VISIBLE])
}

/// `(el) => bool`: whether an element is visible, as Playwright's isVisible reads it
/// (`display: contents` by its child elements and text nodes).
pub(crate) const IS_VISIBLE: &str = include_str!("scripts/is_visible.js");

/// `(frameDocument) => (frame, scope) => document | element | null`: where a role selector
/// looks in the accessibility tree (`selector::ax_roles`).
pub(crate) const AX_ROOT: &str = include_str!("scripts/ax_root.js");

/// `(pickedWith, reach, elementText, isVisible) => (scope, want, exact, named, nth, read,
/// ...els) => { ..., kept }`: the elements the accessibility tree gave for a role, kept when
/// their name (or, nameless, their text as the look-ups read it) matches, the one `nth` picks
/// marked with runner's handle (`pickedWith`: `MARK_PICKED`, given its helpers there, so the
/// reader of texts is sent once).
pub(crate) const AX_PICK: &str = include_str!("scripts/ax_pick.js");

/// `AX_PICK` given its helpers: `(scope, want, exact, named, nth, read, ...els) => { ..., kept }`.
pub(crate) fn ax_pick() -> String {
    bind(AX_PICK, &[MARK_PICKED, REACH, &element_text(), IS_VISIBLE])
}

/// `(frameDocument, axRoot) => (frame, scope) => 'inert' | 'skipped' | false | element`:
/// 'inert' when an `inert` subtree in a role look-up's reach may hide elements of it from the
/// accessibility tree, 'skipped' when the off-screen contents of a `content-visibility: auto`
/// element meet it, false when its frame is not there, else the element to ask the tree about
/// (`selector::ax_roles`).
pub(crate) const AX_INERT: &str = include_str!("scripts/ax_inert.js");

/// `(frameDocument, deep, reach) => (frame, x, y, width, height, role, name, place, scope) =>
/// id | null | { twins, likes, of }`: runner's handle on the element with that box (of twins,
/// the one at the ref's place), or why its twins cannot be told apart.
pub(crate) const MARK_BOX: &str = include_str!("scripts/mark_box.js");

/// `MARK_BOX` given its helpers: `(frame, x, y, width, height, role, name, place, scope) => id
/// | null | { twins, likes, of }`.
pub(crate) fn mark_box(frame: Option<&str>) -> String {
    bind(MARK_BOX, &[&frame_document(frame), DEEP_ELEMENTS, REACH])
}

/// `(frameDocument, deep) => (frame) => names`: what CSS could name there (open shadow roots
/// included), for suggestions.
pub(crate) const CSS_NAMES: &str = include_str!("scripts/css_names.js");

/// `CSS_NAMES` given its helpers: `(frame) => names`.
pub(crate) fn css_names(frame: Option<&str>) -> String {
    bind(CSS_NAMES, &[&frame_document(frame), DEEP_ELEMENTS])
}

/// `(frameDocument, fn) => (frame, handle, args) => fn(el, ...args) | null`: a script about one
/// element, run on the element runner's handle names.
pub(crate) const ON_ELEMENT: &str = include_str!("scripts/on_element.js");

/// `(check) => (prefix, ...args) => true`, else throws: a check as a command of a batch.
pub(crate) const THROWING: &str = include_str!("scripts/throwing.js");

/// `(el) => bool`: the element is still in its document.
pub(crate) const ATTACHED: &str = include_str!("scripts/attached.js");

/// `(el) => bool`: disabled, natively or by `aria-disabled`, as Playwright's `getAriaDisabled`
/// reads it (see the script).
pub(crate) const DISABLED: &str = include_str!("scripts/disabled.js");

/// `(el) => 'checked' | 'unchecked' | 'mixed' | null`: a box's state, as Playwright's
/// `getChecked` reads it: an indeterminate box or `aria-checked="mixed"` is neither (see the script).
pub(crate) const CHECKED: &str = include_str!("scripts/checked.js");

/// `(el) => bool`: read-only, natively or by `aria-readonly`.
pub(crate) const READ_ONLY: &str = include_str!("scripts/read_only.js");

/// `(el) => bool`: the element or one inside it has the focus.
pub(crate) const HAS_FOCUS: &str = include_str!("scripts/has_focus.js");

/// `(isDisabled, isReadOnly, hasFocus) => (el, enabled, typing, focus, hit, visible) => true |
/// why not`: whether an element can take an action now.
pub(crate) const ACTIONABLE: &str = include_str!("scripts/actionable.js");

/// `ACTIONABLE` given the element-state checks `expect` uses too: `(el, enabled, typing,
/// focus, hit, visible) => true | why not`, as the element actions and the pointer actions check it.
pub(crate) fn actionable() -> String {
    bind(ACTIONABLE, &[DISABLED, READ_ONLY, HAS_FOCUS])
}

/// `(el, value) => true | 'refused'`: sets the value of a date, colour or range input.
pub(crate) const SET_VALUE: &str = include_str!("scripts/set_value.js");

/// `(el, values) => values chosen`: chooses a <select>'s options as Playwright's selectOption
/// does (options in order, by value or label; a single-choice select takes the first).
pub(crate) const SELECT_SET: &str = include_str!("scripts/select_set.js");

/// `(el) => bool`: a `<select>` that takes several values.
pub(crate) const MULTIPLE: &str = include_str!("scripts/multiple.js");

/// `(frameDocument, cssElements, textElements) => (targets, depth, budget, withStyles, format)
/// => { elements, count, total, truncated }`: what `inspect` reads, every match of each target.
pub(crate) const INSPECT: &str = include_str!("scripts/inspect.js");

/// `(frameDocument, actionable) => async (prefix, frame, handle, command) => true`, else
/// throws: a pointer action's element able to take it and hit at its click point; arms the
/// guard `HIT_SETTLE` and `HIT_VERIFY` read.
pub(crate) const HIT_ARM: &str = include_str!("scripts/hit_arm.js");

/// `(frameDocument) => (frame, handle) => Promise<true>`: the element `HIT_ARM` armed kept its
/// box over an animation frame, or its guard stops the action (it is moving).
pub(crate) const HIT_SETTLE: &str = include_str!("scripts/hit_settle.js");

/// `(frameDocument) => (prefix, frame, handle, want) => true`, else throws: the pointer action
/// reached its element and no other.
pub(crate) const HIT_VERIFY: &str = include_str!("scripts/hit_verify.js");

/// `(markPicked) => (el) => { id, kind } | null`: a label's control, marked.
pub(crate) const LABEL_CONTROL: &str = include_str!("scripts/label_control.js");

/// `(el, value) => true`: fills a contenteditable element through the editing commands.
pub(crate) const FILL_EDITABLE: &str = include_str!("scripts/fill_editable.js");

/// `(check, editorOf) => (el, ...args) => true | { editor } | why not`: a plain field checked
/// (`check`, the action's check) and all its text selected, for the text a fill inserts; the
/// input of a code editor (`EDITOR_OF`) only checked and focused.
pub(crate) const SELECT_FIELD: &str = include_str!("scripts/select_field.js");

/// `() => true`: marks the document a `select` acts in.
pub(crate) const MARK_DOCUMENT: &str = include_str!("scripts/mark_document.js");

/// `() => bool`: whether the page is still in the document `MARK_DOCUMENT` marked.
pub(crate) const SAME_DOCUMENT: &str = include_str!("scripts/same_document.js");

/// `(editorOf) => (el) => text | { editor, text }`: what a field holds (an input's value, a
/// contenteditable's text; the text of the code editor whose input it is).
pub(crate) const FIELD_TEXT: &str = include_str!("scripts/field_text.js");

/// `FIELD_TEXT` given `EDITOR_OF`: `(el) => text | { editor, text }`.
pub(crate) fn field_text() -> String {
    bind(FIELD_TEXT, &[EDITOR_OF])
}

/// `(el) => { name, text() } | null`: the code editor `el` is the input of, when that editor
/// keeps its text elsewhere (CodeMirror 5's hidden textarea, Monaco's, Ace's).
pub(crate) const EDITOR_OF: &str = include_str!("scripts/editor_of.js");

/// `(markPicked) => (el) => { tag, input_type, editable, role }`: what kind of element it is.
pub(crate) const KIND_OF: &str = include_str!("scripts/kind_of.js");

/// `(isDisabled) => (el, values) => true | why not`: the options `values` name in a `<select>`
/// exist and are enabled (see `read_back`).
pub(crate) const SELECT_OPTIONS: &str = include_str!("scripts/select_options.js");

/// `SELECT_OPTIONS` given the element-state check `expect: enabled` uses.
pub(crate) fn select_options() -> String {
    bind(SELECT_OPTIONS, &[DISABLED])
}

/// `(el) => [{ value, label }]`: the options a `<select>` holds selected.
pub(crate) const SELECTED: &str = include_str!("scripts/selected.js");

/// `(el) => n`: how many files a file input took (held, or carried by its events when its page
/// emptied it: see [`FILE_WATCH`]).
pub(crate) const FILE_COUNT: &str = include_str!("scripts/file_count.js");
/// `(el) => true`: before an upload, records the files the input's events carry.
pub(crate) const FILE_WATCH: &str = include_str!("scripts/file_watch.js");

#[cfg(test)]
mod tests {
    use crate::browser::driver::script::{call, node_run};
    use serde_json::json;

    /// How many times `part` (a script file) is in `script`.
    fn copies(script: &str, part: &str) -> usize {
        script.matches(part.trim().trim_end_matches(';')).count()
    }

    /// The scripts a step sends for an element of the page's own document carry no frames rule
    /// (its CSS engine made every click's scripts several times larger: s28, a click 20 -> 29
    /// ms), and a look-up in an iframe carries it once, shared by the frame's state and its
    /// document (it was bound twice).
    #[test]
    fn the_frames_rule_goes_only_with_scripts_for_a_frame_and_once() {
        let page = [
            super::frame_document(None),
            super::find(None),
            super::mark_box(None),
            super::in_scope(None),
            super::attr_values(None),
            super::css_names(None),
        ];
        for script in &page {
            assert_eq!(copies(script, super::FRAMES), 0, "{}", &script[..200]);
        }
        // The look-up's own CSS finder is the one copy of the CSS engine it carries.
        assert_eq!(copies(&super::find(None), super::CSS_ELEMENTS), 1);
        let framed = super::find(Some("iframe"));
        assert_eq!(copies(&framed, super::FRAMES), 1);
        assert_eq!(copies(&framed, super::FRAME_STATE), 1);
        assert_eq!(copies(&framed, super::FRAME_DOCUMENT), 1);
        assert_eq!(
            copies(&super::frame_document(Some("iframe")), super::FRAMES),
            1
        );
    }

    /// A stand-in page: a document with one iframe (`#f`), whose document is `inner`.
    const FRAMED: &str = "const inner = { name: 'inner' };
const frame = { tagName: 'IFRAME', id: 'f', classList: [], contentWindow: {}, contentDocument: inner,
  getAttribute: () => null };
const document = { name: 'page', querySelectorAll: (css) => css === '#f' ? [frame] : [] };";

    /// The document helper composed for the page's document answers it without the frames
    /// rule, and fails loudly (never "no such frame") when called with a frame after all; the
    /// one composed for a frame finds it.
    #[test]
    fn a_script_composed_for_the_page_refuses_a_frame() {
        let page = super::frame_document(None);
        let out = node_run(FRAMED, &format!("{}.name", call(&page, &[json!(null)]))).unwrap();
        assert_eq!(out, "\"page\"");
        let err = node_run(FRAMED, &call(&page, &[json!("#f")])).unwrap_err();
        assert!(err.contains("composed for the page's document"), "{err}");
        let framed = super::frame_document(Some("#f"));
        let out = node_run(FRAMED, &format!("{}.name", call(&framed, &[json!("#f")]))).unwrap();
        assert_eq!(out, "\"inner\"");
    }

    /// A stand-in window that keeps the listeners it is given, a file input in it, and `fire`
    /// (an event carrying `n` files, after which the page empties the input).
    const PAGE: &str = "const listeners = [];
const win = {
  addEventListener: (t, f, c) => listeners.push([t, f, c]),
  removeEventListener: (t, f, c) => {
    const i = listeners.findIndex((l) => l[0] === t && l[1] === f && l[2] === c);
    if (i >= 0) listeners.splice(i, 1);
  },
};
const input = () => ({ ownerDocument: { defaultView: win }, files: { length: 0 } });
const el = input(); const other = input();
const fire = (type, target, n) => {
  target.files = { length: n };
  const e = { type, target, composedPath: () => [target] };
  listeners.filter((l) => l[0] === type).forEach((l) => l[1](e));
  target.files = { length: 0 };
};";

    /// Uploads whose action failed before the read-back (three watches, no count) leave one
    /// listener per event type on the window, not two per upload; the count still reads what
    /// the events carried, and after it the input is no longer watched (addendum to C16).
    #[test]
    fn the_file_watch_leaves_one_listener_set_however_many_uploads_fail() {
        let watch = format!("({}\n)", super::FILE_WATCH);
        let count = format!("({}\n)", super::FILE_COUNT);
        let script = format!(
            "(() => {{ const watch = {watch}; const count = {count};
  watch(el); watch(el); watch(other); watch(el);
  const held = listeners.length;
  fire('change', el, 2);
  const counted = count(el);
  fire('change', el, 5);
  return [held, counted, el.__runnerFilesSeen === undefined, count(other)];
}})()"
        );
        let out = node_run(PAGE, &script).unwrap();
        assert_eq!(out, "[2,2,true,0]");
    }
}
