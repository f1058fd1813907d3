// A plain field (an input or a textarea) made ready for the text a fill inserts, as Playwright's
// fill prepares one: the action's check (`check(el, ...args)`: visible, enabled, editable,
// focused), then all its text selected, so the text inserted next replaces it as typing over a
// selection does. true, or why not.
(check) => (el, ...args) => {
  const ok = check(el, ...args);
  if (ok !== true) return ok;
  el.select();
  return true;
}
