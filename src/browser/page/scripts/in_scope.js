// Which of `boxes` (agent-browser's boxes of elements found through the accessibility snapshot:
// x, y, width, height in the viewport of the page or of iframe `frame`) are boxes of elements
// inside the element runner's handle `scope` names (not that element itself): for each, whether
// the innermost element with that box (within a pixel) is inside it. Inside open shadow roots
// too (`deep`): the snapshot goes into them, and a web component's host holds what its shadow
// root renders. Null when the scope element is gone.
(frameDocument, deep) => (frame, scope, boxes) => {
  const doc = frameDocument(frame);
  const root = doc && doc.querySelector(scope);
  if (!root || !doc.body) return null;
  const all = [doc.body, ...deep(doc.body)];
  const inside = (el) => {
    for (let n = el.parentElement || (el.parentNode && el.parentNode.host); n; n = n.parentElement || (n.parentNode && n.parentNode.host)) if (n === root) return true;
    return false;
  };
  return boxes.map(b => {
    if (!b) return false;
    const near = q => Math.abs(q.x - b.x) <= 1 && Math.abs(q.y - b.y) <= 1 && Math.abs(q.width - b.width) <= 1 && Math.abs(q.height - b.height) <= 1;
    const el = all.filter(e => near(e.getBoundingClientRect())).pop();
    return !!el && inside(el);
  });
}
