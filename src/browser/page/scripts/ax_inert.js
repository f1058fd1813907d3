// Whether the browser's accessibility tree may leave out elements of a role look-up's reach (the
// page's document or iframe `frame`'s, below the element runner's handle `scope` names): while
// a `<dialog>` is open as a modal (`showModal()`) everything outside it is inert, and so is an
// `inert` subtree, and Chromium's tree drops inert elements, where Playwright's getByRole finds
// them. True when the reach is outside (or holds more than) an open modal dialog, or meets an
// `inert` subtree.
(frameDocument) => (frame, scope) => {
  const doc = frameDocument(frame);
  if (!doc) return false;
  // In open shadow roots too (a web component's modal dialog makes the page behind it inert).
  const find = (root, css) => {
    const out = [...root.querySelectorAll(css)];
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) out.push(...find(host.shadowRoot, css));
    return out;
  };
  const top = frame === null ? [] : find(document, 'dialog:modal');
  const hiders = [...top, ...find(doc, 'dialog:modal, [inert]')];
  if (!hiders.length) return false;
  const el = scope === null ? doc.documentElement : doc.querySelector(scope);
  // Whether `a` holds `b`, across shadow roots.
  const holds = (a, b) => {
    for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
    return false;
  };
  if (!el) return true;
  const frameEl = frame === null ? null : document.querySelector(frame);
  return hiders.some((h) => {
    const at = h.ownerDocument === doc ? el : frameEl;
    if (!at) return true;
    if (h.matches('dialog:modal')) return !holds(h, at);
    return holds(h, at) || holds(at, h);
  });
}
