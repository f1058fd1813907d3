// The page's text as it is rendered, to tell whether its pixels show a secret (before a
// failure screenshot or a screencast frame is kept): each text node the browser lays out
// with a box of some area, not wholly outside its document, not `visibility: hidden` and not
// clipped to a pixel (a screen-reader-only span), in document order, joined with nothing
// between them (by runner). A secret shown in pieces (flex or inline-block items, a hidden or off-screen
// node between its parts) is one run of text here, as it is on the screen; the accessibility
// snapshot gives each piece as a text of its own. Open shadow roots and same-origin iframes
// are read too; `<template>` content, `display: none`, `hidden`, closed `<details>` and
// scripts and stylesheets have no boxes. Returns { texts } (each shown node's text, to be
// joined), or { tooLarge: N } past `cap` characters (N so far).
(cap) => {
  const out = [];
  let size = 0;
  const hidden = new Map();
  // Whether the element's text is not seen although it has boxes.
  const unseen = (el) => {
    if (!el) return false;
    if (hidden.has(el)) return hidden.get(el);
    const s = el.ownerDocument.defaultView.getComputedStyle(el);
    let no = s.visibility !== 'visible' || s.opacity === '0';
    if (!no) {
      const b = el.getBoundingClientRect();
      no = (b.width <= 1 || b.height <= 1) && s.overflow !== 'visible';
    }
    hidden.set(el, no);
    return no;
  };
  const walk = (doc, root) => {
    const view = doc.defaultView;
    const range = doc.createRange();
    const w = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = w.currentNode; n; n = w.nextNode()) {
      if (size > cap) return;
      if (n.nodeType === 1) {
        if (n.shadowRoot) walk(doc, n.shadowRoot);
        if (n.localName === 'iframe') {
          let inner = null;
          try { inner = n.contentDocument; } catch (e) {}
          if (inner && inner.documentElement) walk(inner, inner.documentElement);
        }
        continue;
      }
      if (n.nodeType !== 3 || !n.data) continue;
      range.selectNodeContents(n);
      const boxes = Array.from(range.getClientRects());
      const laid = boxes.some((r) => r.width > 0 && r.height > 0 &&
        r.right + view.scrollX > 0 && r.bottom + view.scrollY > 0);
      if (!laid || unseen(n.parentElement)) continue;
      out.push(n.data);
      size += n.data.length;
    }
  };
  const root = document.documentElement;
  if (root) walk(document, root);
  if (size > cap) return { tooLarge: size };
  return { texts: out };
}
