// Whether the browser's accessibility tree may leave out elements of a role look-up's reach (the
// page's document or iframe `frame`'s, below the element runner's handle `scope` names), and
// why: null when it shows them all. 'inert': while a `<dialog>` is open as a modal
// (`showModal()`) everything outside it is inert, and so is an `inert` subtree, and Chromium's
// tree drops inert elements, where Playwright's getByRole finds them; true when the reach is
// outside (or holds more than) an open modal dialog, or meets an `inert` subtree. 'skipped':
// Chromium skips the contents of a `content-visibility: auto` element while it is off screen
// (not rendered until it nears the viewport: a long list, a docs page's later sections), and
// its tree has none of them, where Playwright's getByRole finds them (they are on the page, a
// user scrolling sees them); true when the reach meets such skipped contents (holds them, or
// is inside them, or its iframe is).
(frameDocument) => (frame, scope) => {
  const doc = frameDocument(frame);
  if (!doc) return null;
  // In open shadow roots too (a web component's modal dialog makes the page behind it inert).
  const find = (root, css) => {
    const out = [...root.querySelectorAll(css)];
    for (const host of root.querySelectorAll('*')) if (host.shadowRoot) out.push(...find(host.shadowRoot, css));
    return out;
  };
  const el = scope === null ? doc.documentElement : doc.querySelector(scope);
  // Whether `a` holds `b`, across shadow roots.
  const holds = (a, b) => {
    for (let n = b; n; n = n.parentNode || n.host) if (n === a) return true;
    return false;
  };
  const frameEl = frame === null ? null : document.querySelector(frame);
  const top = frame === null ? [] : find(document, 'dialog:modal');
  const hiders = [...top, ...find(doc, 'dialog:modal, [inert]')];
  const inert = hiders.some((h) => {
    if (!el) return true;
    const at = h.ownerDocument === doc ? el : frameEl;
    if (!at) return true;
    if (h.matches('dialog:modal')) return !holds(h, at);
    return holds(h, at) || holds(at, h);
  });
  if (inert) return 'inert';
  // Skipped by `content-visibility: auto`: rendered (`checkVisibility()`: not under
  // `display: none` nor `content-visibility: hidden`, which hide it from Playwright too) but
  // not shown (`checkVisibility({ contentVisibilityAuto: true })`).
  const skipped = (n) => typeof n.checkVisibility === 'function'
    && !n.checkVisibility({ contentVisibilityAuto: true }) && n.checkVisibility();
  // The outermost skipped elements under `root` (a skipped element's children are skipped too).
  const outermost = (root) => {
    const out = [];
    const walk = (r) => {
      for (let n = r.firstElementChild; n; n = n.nextElementSibling) {
        if (skipped(n)) { out.push(n); continue; }
        if (n.shadowRoot) walk(n.shadowRoot);
        walk(n);
      }
    };
    walk(root);
    return out;
  };
  if (!el) return outermost(doc).length ? 'skipped' : null;
  if (skipped(el) || outermost(el).length) return 'skipped';
  // Inside skipped contents: `scope`'s own (an ancestor skipped while it is not cannot be), or
  // its iframe's, up the frames.
  for (let w = doc.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
    if (skipped(w.frameElement)) return 'skipped';
  }
  return null;
}
