// Whether `el` can take an action now: visible (unless `visible` is false: a file input takes
// files while the page hides it behind a styled label), not inert; enabled (`isDisabled`; an
// aria-disabled element stays focusable, so `focus` alone asks for native `:disabled` only);
// for typing, not read-only; with `hit`, the element that gets events at the centre of its box
// (scrolled into view), not a veil or a card over it; for typing and `focus`, focused (it is
// focused here, and must then have the focus). true, or why not.
(isDisabled, isReadOnly, hasFocus) => (el, enabled, typing, focus, hit = false, visible = true) => {
  if (!el.isConnected) return 'it is gone from the page';
  const box = el.getBoundingClientRect();
  if (visible && (!(box.width > 0 && box.height > 0) || getComputedStyle(el).visibility !== 'visible')) return 'it is not visible';
  if (el.closest('[inert]')) return 'it is inert';
  if (enabled && (focus && !typing ? el.matches(':disabled') : isDisabled(el))) return 'it is disabled';
  if (typing && isReadOnly(el)) return 'it is read-only';
  if (hit) {
    if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true);
    const b = el.getBoundingClientRect();
    const x = b.x + b.width / 2;
    const y = b.y + b.height / 2;
    let at = el.ownerDocument.elementFromPoint(x, y);
    while (at && at.shadowRoot) {
      const inner = at.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === at) break;
      at = inner;
    }
    if (!at) return 'its centre is outside the page';
    let inside = false;
    for (let n = at; n && !inside; n = n.parentNode || n.host || null) inside = n === el;
    if (!inside) {
      let d = at.tagName.toLowerCase() + (at.id ? '#' + at.id : '');
      for (const c of [...at.classList].slice(0, 2)) d += '.' + c;
      return d + ' would receive the events instead';
    }
  }
  if (focus) {
    el.focus();
    if (!hasFocus(el)) return 'it cannot take the focus';
  }
  return true;
}
