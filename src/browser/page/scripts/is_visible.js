// Whether an element is visible, as Playwright's isVisible reads it (injected domUtils
// `computeBox`): an element with `display: contents` has no box of its own and is visible when
// one of its child nodes is (a child element that is visible, or a text node that is drawn:
// slotted text of a web component whose host is `display: contents`); any other element when
// it is rendered (`checkVisibility`: not under `display: none` or `content-visibility: hidden`),
// its `visibility` is `visible` and its box is not empty.
(e) => {
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && visible(c)) return true;
        if (c.nodeType === 3) {
          const range = c.ownerDocument.createRange();
          range.selectNode(c);
          const r = range.getBoundingClientRect();
          if (r.width > 0 && r.height > 0) return true;
        }
      }
      return false;
    }
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    if (st.visibility !== 'visible') return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0;
  };
  return visible(e);
}
