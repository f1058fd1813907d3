// Puts runner's handle on the innermost element of the page (or of iframe `frame`) whose box is
// x, y, width, height (viewport coordinates, within a pixel) and returns its id; null when no
// element has that box. Inside open shadow roots too (`deep`: the accessibility snapshot a ref
// comes from goes into them), the handle made reachable by CSS there (`reach`). Of several
// elements with that box (a styled switch over its hidden checkbox, two stacked buttons), the
// one whose role and name are the ref's (`role`, `name`: what the snapshot says of it; null
// when not known) comes first, then the innermost (attack 31, G22: the last one was taken, so
// `disabled` on an enabled button read its disabled twin).
(frameDocument, deep, reach) => (frame, x, y, width, height, role, name) => {
  const doc = frameDocument(frame);
  if (!doc) return null;
  const near = q => Math.abs(q.x - x) <= 1 && Math.abs(q.y - y) <= 1 && Math.abs(q.width - width) <= 1 && Math.abs(q.height - height) <= 1;
  if (!doc.body) return null;
  const all = [doc.body, ...deep(doc.body)].filter(e => near(e.getBoundingClientRect()));
  const norm = s => (s || '').replace(/\s+/g, ' ').trim().toLowerCase();
  const implicit = (e) => {
    const t = e.tagName.toLowerCase(), ty = (e.type || '').toLowerCase();
    if (t === 'button') return 'button';
    if (t === 'input') return { checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox' }[ty] || 'textbox';
    if (t === 'a' && e.hasAttribute('href')) return 'link';
    if (t === 'textarea') return 'textbox';
    if (t === 'select') return e.multiple || e.size > 1 ? 'listbox' : 'combobox';
    if (/^h[1-6]$/.test(t)) return 'heading';
    return t === 'option' ? 'option' : t === 'img' ? 'img' : '';
  };
  const roleOf = e => ((e.getAttribute('role') || '').trim().split(/\s+/)[0] || '').toLowerCase() || implicit(e);
  const nameOf = e => norm(e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].innerText) || e.innerText || e.value || e.getAttribute('alt') || e.getAttribute('title'));
  const score = e => (role && roleOf(e) === role.toLowerCase() ? 2 : 0) + (name && nameOf(e) === norm(name) ? 1 : 0);
  let el = null, best = -1;
  for (const e of all) { const s = score(e); if (s >= best) { best = s; el = e; } }
  if (!el) return null;
  reach(el);
  // A handle kept only while it names this element (a copy of a marked element carries it).
  const had = el.dataset.runnerSel;
  if (!had || doc.querySelector(`[data-runner-sel="${had}"]`) !== el) {
    el.dataset.runnerSel = Math.random().toString(36).slice(2);
  }
  return el.dataset.runnerSel;
}
