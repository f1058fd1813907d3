// Sets the value of an <input> that takes one rather than typed text (a date, a colour, a
// range) as Playwright's `fill` does: the value, then `input` and `change`. A value the browser
// refuses (it reads back differently) is undone: 'refused'.
(el, v) => {
  const before = el.value; el.focus(); el.value = v; if (el.value !== v) { el.value = before; return 'refused'; }
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true })); return true;
}
