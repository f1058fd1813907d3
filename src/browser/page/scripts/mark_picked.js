// Given an alternative's matching elements, puts runner's handle (`data-runner-sel`) on the one
// `nth` picks (null: the first; negative: from the end) and describes the first five matches
// (`desc`) and its kind;
// with `read`, also its text (`'text'`: innerText, else textContent), value (`'value'`),
// whether it is visible (`'visible'`, as Playwright's isVisible: rendered, a non-empty box,
// `visibility: visible`; `display: contents` by its child elements and text: `isVisible`) or an attribute
// (`{ attribute: name }`: its text, null when absent), in the same call as the look-up; or
// for the list checks, the texts (`'texts'`) or class attributes (`'classes'`, '' when absent)
// of every match in document order (of the one `nth` picks, when it says). Texts are read as
// the look-ups read them (`elementText`: an SVG element's, what a shadow root shows); a handle
// inside a shadow root is made reachable by CSS (`reach`) when nothing is read (`read` null):
// `'count'` reads nothing and needs no handle.
(reach, elementText, isVisible) => (els, nth, read) => {
  const n = els.length;
  const i = nth === null ? 0 : (nth < 0 ? n + nth : nth);
  // A match as runner's messages describe it: [its tag, id and first two classes, its text
  // (a field's value, never a password's; else its label) as it is, up to BOUND characters,
  // whether there is more]. runner masks the text, then cuts it: never here (a secret across
  // a cut made before masking would show its head).
  const BOUND = 4096;
  const desc = el => {
    let d = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
    for (const c of [...el.classList].slice(0, 2)) d += '.' + c;
    const value = el.type === 'password' ? '' : el.value;
    const t = String(el.innerText || value || el.getAttribute('aria-label') || '');
    return [d, t.slice(0, BOUND), t.length > BOUND];
  };
  const out = { count: n, matches: els.slice(0, 5).map(desc) };
  const el = els[i];
  if (el) {
    // A handle runner or agent-browser finds the element by later: not for what is read here,
    // nor for a count (`'count'`).
    if (read === null || read === undefined) reach(el);
    // A handle the element already has is kept only while it names this element: a copy of an
    // element runner marked (`cloneNode`, an "add another" row) carries the same handle, which
    // names the first of them; the copy gets its own.
    const had = el.dataset.runnerSel;
    if (!had || (el.ownerDocument || document).querySelector(`[data-runner-sel="${had}"]`) !== el) {
      el.dataset.runnerSel = Math.random().toString(36).slice(2);
    }
    out.id = el.dataset.runnerSel;
    const text = (e) => elementText(e).checked(e);
    if (read === 'text') out.read = text(el);
    if (read === 'value') out.read = typeof el.value === 'string' ? el.value : '';
    if (read === 'visible') out.read = isVisible(el);
    if (read && typeof read === 'object') out.read = el.getAttribute(read.attribute);
    if (read === 'texts' || read === 'classes') {
      const each = nth === null ? els : [el];
      out.read = each.map(e => read === 'texts' ? text(e) : (e.getAttribute('class') || ''));
    }
    out.kind = { tag: el.tagName.toLowerCase(), input_type: (el.type || '').toLowerCase(), editable: !!el.isContentEditable, role: (r => ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio', 'textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'listbox'].includes(r) ? r : '')(((el.getAttribute('role') || '').trim().split(/\s+/)[0] || '').toLowerCase()) };
  }
  return out;
}
