// Where a role selector looks in the browser's accessibility tree: the page's document or that
// of iframe `frame`, or (`scope`, runner's handle on the element a `within` found) that element,
// also inside an open shadow root (the tree crosses them, so a `within` found there is one);
// null when the frame or the scope element is missing (a re-render replaced it).
(frameDocument) => (frame, scope) => {
  const doc = frameDocument(frame);
  if (!doc) return null;
  if (scope === null) return doc;
  const deep = root => {
    const hit = root.querySelector(scope);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      const inner = el.shadowRoot && deep(el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };
  return deep(doc);
}
