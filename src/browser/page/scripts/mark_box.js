// Puts runner's handle on the innermost element of the page (or of iframe `frame`) whose box is
// x, y, width, height (viewport coordinates, within a pixel) and returns its id; null when no
// element has that box.
(frameDocument) => (frame, x, y, width, height) => {
  const doc = frameDocument(frame);
  if (!doc) return null;
  const near = q => Math.abs(q.x - x) <= 1 && Math.abs(q.y - y) <= 1 && Math.abs(q.width - width) <= 1 && Math.abs(q.height - height) <= 1;
  const el = [...doc.querySelectorAll('body, body *')].filter(e => near(e.getBoundingClientRect())).pop();
  if (!el) return null;
  if (!el.dataset.runnerSel) el.dataset.runnerSel = Math.random().toString(36).slice(2);
  return el.dataset.runnerSel;
}
