// Focuses `el` for a key press: true once it (or an element inside it) has the focus, else
// why not: 'hidden' (no box, or `visibility: hidden`), 'inert', 'disabled' or 'unfocusable'.
(hasFocus) => (el) => {
  const box = el.getBoundingClientRect();
  if (!(box.width > 0 && box.height > 0) || getComputedStyle(el).visibility !== 'visible') return 'hidden';
  if (el.closest('[inert]')) return 'inert';
  if (el.matches(':disabled')) return 'disabled';
  el.focus();
  return hasFocus(el) || 'unfocusable';
}
