// Puts runner's handle on the innermost element of the page (or of iframe `frame`) whose box is
// x, y, width, height (viewport coordinates, within a pixel) and returns its id; null when no
// element has that box. Inside open shadow roots too (`deep`: the accessibility snapshot a ref
// comes from goes into them), the handle made reachable by CSS there (`reach`).
(frameDocument, deep, reach) => (frame, x, y, width, height) => {
  const doc = frameDocument(frame);
  if (!doc) return null;
  const near = q => Math.abs(q.x - x) <= 1 && Math.abs(q.y - y) <= 1 && Math.abs(q.width - width) <= 1 && Math.abs(q.height - height) <= 1;
  if (!doc.body) return null;
  const el = [doc.body, ...deep(doc.body)].filter(e => near(e.getBoundingClientRect())).pop();
  if (!el) return null;
  reach(el);
  // A handle kept only while it names this element (a copy of a marked element carries it).
  const had = el.dataset.runnerSel;
  if (!had || doc.querySelector(`[data-runner-sel="${had}"]`) !== el) {
    el.dataset.runnerSel = Math.random().toString(36).slice(2);
  }
  return el.dataset.runnerSel;
}
