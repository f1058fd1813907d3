// The document a selector looks in: the page's (`frame` null), or that of the one iframe
// `frame` names (`frames`: CSS in the page, open shadow roots included); null when no iframe
// or several match, or it shows a page of another origin (see frame_state.js for which).
(frames) => (frame) => {
  if (frame === null) return document;
  const found = frames(frame);
  if (!found || found.length !== 1) return null;
  let doc; try { doc = found[0].contentDocument } catch (e) {}
  return doc || null;
}
