// Whether the browser's accessibility tree may leave out elements of a role look-up's reach (the
// page's document or iframe `frame`'s, below the element runner's handle `scope` names), and
// why, as far as a page script can tell; else where to ask the tree itself.
// 'inert': while a `<dialog>` is open as a modal (`showModal()`) everything outside it is
// inert, and so is an `inert` subtree and a frame inside one, and Chromium's tree drops inert
// elements, where Playwright's getByRole finds them. An `inert` element in reach (in open shadow
// roots too) is seen here; whether the reach's root element is inert (a modal dialog open
// anywhere in its document, its closed shadow roots too; an `inert` part around it or around its
// frame) the tree says, asked about the element returned.
// 'skipped': Chromium skips the contents of a `content-visibility: auto` element while it is
// off screen (not rendered until it nears the viewport: a long list, a docs page's later
// sections), and its tree has none of them, where Playwright's getByRole finds them (they are on
// the page, a user scrolling sees them): the reach meets such skipped contents (holds them, or
// is inside them, or its iframe is).
// false: the frame is not there. Else the root element to ask the tree about (the document's
// when `scope` is gone).
(frameDocument, axRoot) => (frame, scope) => {
  const doc = frameDocument(frame);
  if (!doc) return false;
  const root = axRoot(frame, scope) || doc;
  const inert = (r) => {
    if (r.shadowRoot && inert(r.shadowRoot)) return true;
    if (r.querySelector('[inert]')) return true;
    for (const host of r.querySelectorAll('*')) if (host.shadowRoot && inert(host.shadowRoot)) return true;
    return false;
  };
  if (inert(root)) return 'inert';
  const el = root.nodeType === 9 ? root.documentElement : root;
  // Skipped by `content-visibility: auto`: rendered (`checkVisibility()`: not under
  // `display: none` nor `content-visibility: hidden`, which hide it from Playwright too) but
  // not shown (`checkVisibility({ contentVisibilityAuto: true })`).
  const skipped = (n) => typeof n.checkVisibility === 'function'
    && !n.checkVisibility({ contentVisibilityAuto: true }) && n.checkVisibility();
  // Whether `r` holds skipped elements (a skipped element's children are skipped too).
  const holdsSkipped = (r) => {
    for (let n = r.firstElementChild; n; n = n.nextElementSibling) {
      if (skipped(n)) return true;
      if (n.shadowRoot && holdsSkipped(n.shadowRoot)) return true;
      if (holdsSkipped(n)) return true;
    }
    return false;
  };
  if (skipped(el) || holdsSkipped(el)) return 'skipped';
  // Inside skipped contents: `scope`'s own (an ancestor skipped while it is not cannot be), or
  // its iframe's, up the frames.
  for (let w = doc.defaultView; w && w.frameElement; w = w.frameElement.ownerDocument.defaultView) {
    if (skipped(w.frameElement)) return 'skipped';
  }
  return el;
}
