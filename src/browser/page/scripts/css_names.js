// What CSS could name in the page (or iframe `frame`): ids, classes, tags, named fields; up to
// 500, for the suggestions of a selector that matches nothing. Inside open shadow roots too
// (`deep`), where the selectors look.
(frameDocument, deep) => (frame) => {
  const doc = frameDocument(frame);
  if (!doc || !doc.body) return [];
  const out = new Set();
  for (const el of deep(doc.body)) {
    if (el.id) out.add('#' + el.id);
    for (const c of el.classList) out.add('.' + c);
    out.add(el.tagName.toLowerCase());
    if (el.name) out.add(el.tagName.toLowerCase() + '[name="' + el.name + '"]');
  }
  return [...out].slice(0, 500);
}
