// A selector's look-up in the page's document or in iframe `frame`'s, below the element
// runner's handle `scope` names (null: the whole document): each of `levels` (see `elements`)
// looked for inside the one element the level before picked, the last one's matches answered as
// `markPicked` answers them, with what it reads when `read` says. A level before the last is
// strict: it must match one element, or its `nth` say which (else `{ strict: i, count,
// matches }`); `{ missed: i }` when one matches nothing. `{ gone: true }`: the scope element is
// gone (a re-render), `{ invalid: i }`: CSS the page cannot parse. `{ frame: state }`: what
// keeps the look-up out of iframe `frame` (`frameState`: it is missing, ambiguous, of another
// origin, ...): never "no element", so a negative check on a frame that is not there fails.
// `frameState` and `frameDocument` come unbound, to share the one copy of the frames rule
// (`frames`) the look-up carries.
(frameState, frameDocument, frames, elements, markPicked) => (frame, scope, levels, read) => {
  const state = frameState(frames)(frame);
  if (state) return { frame: state };
  const doc = frameDocument(frames)(frame);
  if (!doc) return { frame: { missing: true } };
  let root = doc;
  if (scope !== null) {
    root = doc.querySelector(scope);
    if (!root) return { gone: true };
  }
  for (let i = 0; i < levels.length; i++) {
    const els = elements(root, levels[i]);
    if (els === null) return { invalid: i };
    const last = i === levels.length - 1;
    const picked = markPicked(els, levels[i].nth, last ? read : null);
    if (last) return picked;
    if (els.length > 1 && levels[i].nth === null) return { strict: i, count: picked.count, matches: picked.matches };
    if (!picked.id) return { missed: i };
    // The element `nth` picked (a copy of it may carry the same handle: not the handle).
    const nth = levels[i].nth;
    root = els[nth === null ? 0 : (nth < 0 ? els.length + nth : nth)];
  }
}
