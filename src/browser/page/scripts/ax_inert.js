// Where to ask the browser's accessibility tree whether it leaves out elements of a role
// look-up's reach (the page's document or iframe `frame`'s, below the element runner's handle
// `scope` names): while a `<dialog>` is open as a modal (`showModal()`) everything outside it is
// inert, and so is an `inert` subtree and a frame inside one, and Chromium's tree drops inert
// elements, where Playwright's getByRole finds them. The tree says whether the reach's root
// element is inert (a modal dialog open anywhere in its document, its closed shadow roots too;
// an `inert` part around it or around its frame); what it holds is looked at here: true when
// an `inert` element is in reach (in open shadow roots too), else the root element to ask the
// tree about (the document's when `scope` is gone); false when the frame is not there.
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
  if (inert(root)) return true;
  return root.nodeType === 9 ? root.documentElement : root;
}
