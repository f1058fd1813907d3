// After a pointer action armed by `hit_arm`: the guard comes off, and the action must have
// reached the element (`want`: the event that says it did) and no other. Throws `prefix` +
// what happened instead (or, for an element armed as agent-browser named it, the arm's own
// message when it could not take the action). A page that navigated away (the guard is gone
// with its window) took the action: the click led somewhere. `want` '' only takes the guard
// off, and returns the arm's message when the element could not take the action (else true).
(frameDocument) => (prefix, frame, handle, want) => {
  const doc = frameDocument(frame);
  const win = doc && doc.defaultView;
  const rec = win && win.__runnerHit;
  if (!rec || rec.handle !== handle) return true;
  rec.off();
  if (want === '') return rec.notReady || true;
  if (rec.notReady) throw new Error(rec.notReady);
  if (!rec.el) throw new Error(prefix + 'it is gone from the page');
  if (rec.missed) throw new Error(prefix + rec.missed + ' would receive the ' + rec.noun + ' instead');
  if (rec.moved) throw new Error(prefix + 'it is moving (its box changed between two animation frames)');
  const el = rec.el;
  const reached = want === 'hover'
    ? rec.got.length > 0 || (el.isConnected && el.matches(':hover'))
    : rec.got.includes(want);
  if (!reached) throw new Error(prefix + 'the ' + rec.noun + ' did not reach it');
  return true;
}
