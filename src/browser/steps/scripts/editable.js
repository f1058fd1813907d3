// Whether `el` can be typed into: true, or why not. The element-state checks are the ones
// actions use (`isDisabled`, `isReadOnly`).
(isDisabled, isReadOnly) => (el) => {
  if (el.isContentEditable) return true;
  const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName);
  const role = el.getAttribute('role');
  if (!field && !['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(role)) return 'it is not a form field';
  if (isDisabled(el)) return 'it is disabled';
  if (isReadOnly(el)) return 'it is read-only';
  return true;
}
