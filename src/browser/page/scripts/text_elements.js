// The rendered elements (a box, or `display: contents`) under `root` (a document, or an element: its descendants), of tag `tag`
// when given, whose text (`elementText`: an SVG `<text>`'s, an input button's value, what a
// web component's open shadow root shows) is `want` (`exact`) or contains it, ignoring case; of
// nested ones, the innermost. Inside open shadow roots too (`deep`), as Playwright's getByText.
(deep, elementText) => (root, want, tag, exact) => {
  // Whitespace-normalised as Playwright does (NBSP and newlines are spaces, runs are one).
  const normt = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  want = normt(want);
  const start = root.nodeType === 9 ? root.body : root;
  if (!start) return [];
  const read = elementText(start, !exact);
  const hit = el => { const t = normt(read(el)); return exact ? t === want : t.toLowerCase().includes(want.toLowerCase()); };
  // Rendered: with a box, or `display: contents` (no box of its own: it shows its children's).
  const rendered = el => el.offsetParent || el.getClientRects().length > 0 || getComputedStyle(el).display === 'contents';
  const all = deep(start).filter(el => (!tag || el.matches(tag)) && rendered(el));
  const found = all.filter(hit);
  // An element with a match inside it (through shadow roots) is not the innermost.
  const outer = new Set();
  for (const el of found) {
    for (let n = el.parentElement || (el.parentNode && el.parentNode.host); n && !outer.has(n); n = n.parentElement || (n.parentNode && n.parentNode.host)) outer.add(n);
  }
  // A `display: contents` element has no box to act on: where its parent holds the text too
  // (`<button><span style="display: contents">Save</span></button>`), the parent is the match.
  const up = el => el.parentElement || (el.parentNode && el.parentNode.host);
  const contents = el => !el.offsetParent && el.getClientRects().length === 0 && getComputedStyle(el).display === 'contents';
  const boxed = el => {
    while (contents(el) && up(el) && up(el) !== start && hit(up(el))) el = up(el);
    return el;
  };
  return [...new Set(found.filter(el => !outer.has(el)).map(boxed))];
}
