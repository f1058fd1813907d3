// Puts runner's handle on the innermost element of the page (or of iframe `frame`) whose box is
// x, y, width, height (viewport coordinates, within a pixel) and returns its id; null when no
// element has that box. Inside open shadow roots too (`deep`: the accessibility snapshot a ref
// comes from goes into them), the handle made reachable by CSS there (`reach`). Of several
// elements with that box (a styled switch over its hidden checkbox, two stacked buttons), the
// one whose role and name are the ref's (`role`, `name`: what the snapshot says of it; null
// when not known) comes first, then the innermost (attack 31, G22: the last one was taken, so
// `disabled` on an enabled button read its disabled twin). Of twins (elements with the box and
// the ref's role and name: a "Save" stacked over its disabled twin), the one at the ref's place
// among the snapshot's elements of that role and name (`place`: { at, of }) is the one at that
// place among the page's, in document order, inside the snapshot's scope (`scope`, its handle)
// when it had one; when that cannot tell (the page has another count of them than the
// snapshot: a name the page's side does not read, as CSS generated content), or twins without
// the ref's name are not nested, it says so: { twins, likes, of }, never a guess (review 28, #3:
// the last twin was taken).
(frameDocument, deep, reach) => (frame, x, y, width, height, role, name, place, scope) => {
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
  const text = e => (e ? e.innerText || e.textContent : '');
  const labelled = (e) => {
    const ids = (e.getAttribute('aria-labelledby') || '').trim();
    const tree = e.getRootNode().getElementById ? e.getRootNode() : doc;
    return ids ? ids.split(/\s+/).map(id => text(tree.getElementById(id))).join(' ') : '';
  };
  const nameOf = e => norm(labelled(e) || e.getAttribute('aria-label') || (e.labels && e.labels[0] && e.labels[0].innerText) || e.innerText || e.value || e.getAttribute('alt') || e.getAttribute('title'));
  const score = e => (role && roleOf(e) === role.toLowerCase() ? 2 : 0) + (name && nameOf(e) === norm(name) ? 1 : 0);
  if (!all.length) return null;
  const best = Math.max(...all.map(score));
  const ties = all.filter(e => score(e) === best);
  const up = n => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const holds = (a, b) => { for (let n = up(b); n; n = up(n)) if (n === a) return true; return false; };
  let el = null, likes = null;
  if (ties.length === 1) el = ties[0];
  else if (best === 3 && place) {
    // The page's elements of the ref's role and name the accessibility tree shows, in order.
    const root = scope ? doc.querySelector(scope) : doc.body;
    const shown = e => e.checkVisibility({ visibilityProperty: true }) && !e.closest('[aria-hidden="true"], [inert]');
    const found = root ? [root, ...deep(root)].filter(e => score(e) === 3 && shown(e)) : [];
    likes = found.length;
    const want = likes === place.of ? found[place.at] : null;
    if (ties.includes(want)) el = want;
  } else if (best < 3 && ties.every((a, i) => i === 0 || holds(ties[i - 1], a))) {
    // Nested (a wrapper and what it wraps): the innermost, the last in document order.
    el = ties[ties.length - 1];
  }
  if (!el) return { twins: ties.length, likes, of: likes === null ? null : place.of };
  reach(el);
  // A handle kept only while it names this element (a copy of a marked element carries it).
  const had = el.dataset.runnerSel;
  if (!had || doc.querySelector(`[data-runner-sel="${had}"]`) !== el) {
    el.dataset.runnerSel = Math.random().toString(36).slice(2);
  }
  return el.dataset.runnerSel;
}
