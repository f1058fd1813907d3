// Runs `fn(el, ...args)` on the element runner's handle `handle` names, in the page or in
// iframe `frame`; null when the element is gone.
(frameDocument, fn) => (frame, handle, args) => {
  const doc = frameDocument(frame);
  const el = doc && doc.querySelector(handle);
  if (!el) return null;
  return fn(el, ...args);
}
