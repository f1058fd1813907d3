// The elements under `root` labelled `want` (Playwright's getByLabel): a control whose
// `<label for>` or wrapping `<label>` has that text, or an element whose `aria-labelledby`
// elements' text, or whose `aria-label`, has it. The control itself, not its label.
// Whitespace-normalised, case-insensitive substring; equal with `exact` (case too). Inside open
// shadow roots too (`deep`), as Playwright's getByLabel: a label there labels the controls of
// its own shadow root, an `aria-labelledby` names elements of its own tree. A label's text is
// read as a text look-up reads it (`elementText`: the DOM's, not CSS `text-transform`'s).
(deep, elementText) => (root, want, exact) => {
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  want = norm(want);
  const lower = want.toLowerCase();
  const hit = t => exact ? norm(t) === want : norm(t).toLowerCase().includes(lower);
  const text = el => elementText(el, !exact)(el) || el.textContent || '';
  return deep(root).filter(el => {
    if (el.labels && [...el.labels].some(l => hit(text(l)))) return true;
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      const tree = root.getElementById ? root : el.ownerDocument;
      const named = by.trim().split(/\s+/).map(id => tree.getElementById(id)).filter(Boolean);
      if (named.length && hit(named.map(text).join(' '))) return true;
    }
    const aria = el.getAttribute('aria-label');
    return aria !== null && hit(aria);
  });
}
