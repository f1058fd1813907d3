// The row a ref's element sits in, for telling a re-render from a replacement (`refs::follow`):
// for each of `boxes` (agent-browser's boxes of ref'd elements, in the viewport of the page or
// of iframe `frame`), the whitespace-normalised text of the element's nearest ancestor whose
// text is more than the element's own ("alpha Delete" for alpha's Delete button); '' when
// there is none below `<body>` (no row to tell by), null when no element has the box.
(frameDocument, deep) => (frame, boxes) => {
  const doc = frameDocument(frame);
  if (!doc || !doc.body) return boxes.map(() => null);
  const all = [doc.body, ...deep(doc.body)];
  const text = (e) => String(e.innerText === undefined ? e.textContent || '' : e.innerText).replace(/\s+/g, ' ').trim();
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  return boxes.map((b) => {
    if (!b) return null;
    const near = (q) => Math.abs(q.x - b.x) <= 1 && Math.abs(q.y - b.y) <= 1 && Math.abs(q.width - b.width) <= 1 && Math.abs(q.height - b.height) <= 1;
    const el = all.filter((e) => near(e.getBoundingClientRect())).pop();
    if (!el) return null;
    const own = text(el);
    for (let n = up(el); n && n !== doc.body && n !== doc.documentElement; n = up(n)) {
      const t = text(n);
      if (t !== own) return t.slice(0, 500);
    }
    return '';
  });
}
