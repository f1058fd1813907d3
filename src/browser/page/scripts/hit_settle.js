// Between `hit_arm` and the input: waits until the armed element has kept its box over an
// animation frame, or notes it moving (the guard then stops the whole action, and
// `hit_verify` says so). Nothing to wait for when no guard of `handle` is armed on an element.
(frameDocument) => (frame, handle) => {
  const doc = frameDocument(frame);
  const rec = doc && doc.defaultView && doc.defaultView.__runnerHit;
  if (!rec || rec.handle !== handle || !rec.el || !rec.settle) return true;
  return rec.settle();
}
