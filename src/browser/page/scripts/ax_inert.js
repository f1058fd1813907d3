// Whether the browser's accessibility tree may leave out elements of a role look-up's reach (the
// page's document or iframe `frame`'s, below the element runner's handle `scope` names): while
// a `<dialog>` is open as a modal (`showModal()`) everything outside it is inert, and so is an
// `inert` subtree, and Chromium's tree drops inert elements, where Playwright's getByRole finds
// them. True when the reach is outside (or holds more than) an open modal dialog, or meets an
// `inert` subtree.
(frameDocument) => (frame, scope) => {
  const doc = frameDocument(frame);
  if (!doc) return false;
  const top = frame === null ? [] : [...document.querySelectorAll('dialog:modal')];
  const hiders = [...top, ...doc.querySelectorAll('dialog:modal, [inert]')];
  if (!hiders.length) return false;
  const el = scope === null ? doc.documentElement : doc.querySelector(scope);
  if (!el) return true;
  const frameEl = frame === null ? null : document.querySelector(frame);
  return hiders.some((h) => {
    const at = h.ownerDocument === doc ? el : frameEl;
    if (!at) return true;
    if (h.matches('dialog:modal')) return !h.contains(at);
    return h.contains(at) || at.contains(h);
  });
}
