// The document a selector looks in: the page's (`frame` null), or that of the iframe `frame`
// (CSS in the page); null when that iframe is missing or shows a page of another origin.
(frame) => {
  if (frame === null) return document;
  const f = document.querySelector(frame);
  let doc; try { doc = f && f.contentDocument } catch (e) {}
  return doc || null;
}
