// Whether `el` is checked, as Playwright reads it (injectedScript's `elementState` 'checked' /
// 'unchecked' / 'mixed': `retarget(el, 'follow-label')`, then roleUtils' `getChecked`):
// 'checked', 'unchecked', 'mixed' or null (not a box).
// - the element read: text inside a `role=checkbox|radio|switch|...` is that control; inside a
//   `<label>`, the label's control;
// - an input that is `indeterminate` is 'mixed', whatever its `checked` (a box shows a dash);
//   a native checkbox or radio otherwise by `checked`;
// - an ARIA box by `aria-checked`: "true" checked, "mixed" mixed, anything else unchecked.
(el) => {
  const ROLES = ['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'];
  const roleOf = (e) => (e.getAttribute('role') || '').split(' ').map((r) => r.trim()).find((r) => r) || '';
  if (!el.matches('input')) {
    const sel = ROLES.map((r) => `[role=${r}]`).join(', ');
    el = el.closest(sel) || el;
    if (!el.matches('input') && !ROLES.includes(roleOf(el))) {
      const label = el.closest('label');
      if (label && label.control) el = label.control;
    }
  }
  const tag = String(el.tagName || '').toUpperCase();
  if (tag === 'INPUT' && el.indeterminate) return 'mixed';
  if (tag === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? 'checked' : 'unchecked';
  if (ROLES.includes(roleOf(el))) {
    const a = el.getAttribute('aria-checked');
    if (a === 'true') return 'checked';
    if (a === 'mixed') return 'mixed';
    return 'unchecked';
  }
  return null;
}
