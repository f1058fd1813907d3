// Whether `el` can take an action now: visible, not inert; enabled (`isDisabled`; an
// aria-disabled element stays focusable, so `focus` alone asks for native `:disabled` only);
// for typing, not read-only; for typing and `focus`, focused (it is focused here, and must then
// have the focus). true, or why not.
(isDisabled, isReadOnly, hasFocus) => (el, enabled, typing, focus) => {
  if (!el.isConnected) return 'it is gone from the page';
  const box = el.getBoundingClientRect();
  if (!(box.width > 0 && box.height > 0) || getComputedStyle(el).visibility !== 'visible') return 'it is not visible';
  if (el.closest('[inert]')) return 'it is inert';
  if (enabled && (focus && !typing ? el.matches(':disabled') : isDisabled(el))) return 'it is disabled';
  if (typing && isReadOnly(el)) return 'it is read-only';
  if (focus) {
    el.focus();
    if (!hasFocus(el)) return 'it cannot take the focus';
  }
  return true;
}
