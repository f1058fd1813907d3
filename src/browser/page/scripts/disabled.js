// Whether `el` is disabled, as Playwright reads it (injectedScript's `elementState` 'enabled' /
// 'disabled': `retarget(el, 'follow-label')`, then roleUtils' `getAriaDisabled`):
// - the element read: text inside a button (or a `role=button|checkbox|radio`) is that control;
//   inside a `<label>`, the label's control;
// - natively: a button, input, select, textarea, option or optgroup with `disabled`, an option in
//   a disabled optgroup, or one in a disabled fieldset but not in that fieldset's first legend
//   (a `<fieldset disabled>` itself, a custom element with `disabled` are not);
// - by `aria-disabled`, for the roles that take it (button, link, textbox, option, group, row,
//   ...; a plain `<div>` or `<span>` does not): the nearest `aria-disabled` of "true" or "false"
//   (without case) on it or an ancestor, up through shadow hosts (a slotted element's is its
//   host's light-DOM parent's), decides; none is enabled.
(el) => {
  const tag = (e) => String(e.tagName || '').toUpperCase();
  const parentOf = (e) =>
    e.parentElement || (e.parentNode && e.parentNode.nodeType === 11 ? e.parentNode.host || null : null);
  if (!el.matches('input, textarea, select') && !el.isContentEditable)
    el = el.closest('button, [role=button], [role=checkbox], [role=radio]') || el;
  if (!el.matches('a, input, textarea, button, select, [role=link], [role=button], [role=checkbox], [role=radio]') &&
      !el.isContentEditable) {
    const label = el.closest('label');
    if (label && label.control) el = label.control;
  }
  const natively = (e) => {
    if (!['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP'].includes(tag(e))) return false;
    if (e.hasAttribute('disabled')) return true;
    if (tag(e) === 'OPTION' && e.closest('optgroup[disabled]')) return true;
    const fieldset = e.closest('fieldset[disabled]');
    if (!fieldset) return false;
    const legend = fieldset.querySelector(':scope > legend');
    return !legend || !legend.contains(e);
  };
  if (natively(el)) return true;
  // The element's ARIA role, as far as telling whether it takes `aria-disabled` needs it
  // (roleUtils' `getAriaRole`): its first valid `role` token, else the one its tag implies; a
  // `none`/`presentation` that a global ARIA attribute or focusability overrides gives way to
  // the implied one, and table parts under a `none`/`presentation` table take that role.
  const TAKES = ['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link', 'menuitem',
    'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu',
    'menubar', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader',
    'searchbox', 'select', 'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree',
    'treegrid', 'treeitem'];
  const VALID = TAKES.concat(['alert', 'alertdialog', 'article', 'banner', 'blockquote', 'caption', 'cell',
    'code', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document',
    'emphasis', 'feed', 'figure', 'form', 'generic', 'heading', 'img', 'insertion', 'list', 'listitem', 'log',
    'main', 'mark', 'marquee', 'math', 'meter', 'navigation', 'none', 'note', 'paragraph', 'presentation',
    'progressbar', 'region', 'rowgroup', 'search', 'status', 'strong', 'subscript', 'superscript',
    'tabpanel', 'term', 'time', 'timer', 'tooltip']);
  const explicit = (e) => (e.getAttribute('role') || '').split(' ').map((r) => r.trim()).find((r) => VALID.includes(r)) || null;
  const NAMING = ['caption', 'code', 'deletion', 'emphasis', 'generic', 'insertion', 'paragraph', 'presentation',
    'strong', 'subscript', 'superscript'];
  const GLOBAL = [['aria-atomic'], ['aria-busy'], ['aria-controls'], ['aria-current'], ['aria-describedby'],
    ['aria-details'], ['aria-dropeffect'], ['aria-flowto'], ['aria-grabbed'], ['aria-hidden'],
    ['aria-keyshortcuts'], ['aria-label', NAMING], ['aria-labelledby', NAMING], ['aria-live'], ['aria-owns'],
    ['aria-relevant'], ['aria-roledescription', ['generic']]];
  const hasGlobal = (e, role) => GLOBAL.some(([a, no]) => !(no && no.includes(role || '')) && e.hasAttribute(a));
  const hasTabIndex = (e) => !Number.isNaN(Number(String(e.getAttribute('tabindex'))));
  const focusable = (e) => !natively(e) && (hasTabIndex(e) ||
    ['BUTTON', 'DETAILS', 'SELECT', 'TEXTAREA'].includes(tag(e)) ||
    ((tag(e) === 'A' || tag(e) === 'AREA') && e.hasAttribute('href')) || (tag(e) === 'INPUT' && !e.hidden));
  const givesWay = (e, role) => hasGlobal(e, role) || focusable(e);
  const closestTable = (e) => {
    for (let n = e; n; n = n.getRootNode().host) {
      const t = n.closest('table');
      if (t) return t;
    }
    return null;
  };
  const th = (e) => {
    const scope = e.getAttribute('scope');
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    const [next, prev] = [e.nextElementSibling, e.previousElementSibling];
    if (!next && !prev) {
      const row = e.parentElement && tag(e.parentElement) === 'TR' ? e.parentElement : null;
      const table = row && closestTable(row);
      return table && table.rows.length <= 1 ? null : 'columnheader';
    }
    const isTh = (n) => !!n && tag(n) === 'TH';
    const fullTd = (n) => !!n && tag(n) === 'TD' && !!((n.textContent || '').trim() || n.children.length > 0);
    if (isTh(next) && isTh(prev)) return 'columnheader';
    return fullTd(next) || fullTd(prev) ? 'rowheader' : 'columnheader';
  };
  // The implied roles that take `aria-disabled` ('other' for one that does not).
  const implied = (e) => {
    const t = tag(e);
    if (t === 'A' || t === 'AREA') return e.hasAttribute('href') ? 'link' : null;
    if (t === 'INPUT') return e.type === 'hidden' ? null : 'textbox';
    if (t === 'SELECT') return e.hasAttribute('multiple') || e.size > 1 ? 'listbox' : 'combobox';
    if (t === 'TD') {
      const table = closestTable(e);
      const role = table ? explicit(table) : '';
      return role === 'grid' || role === 'treegrid' ? 'gridcell' : 'cell';
    }
    if (t === 'TH') return th(e);
    const roles = { BUTTON: 'button', DATALIST: 'listbox', DETAILS: 'group', FIELDSET: 'group', HR: 'separator',
      OPTGROUP: 'group', OPTION: 'option', TEXTAREA: 'textbox', TR: 'row' };
    return roles[t] || 'other';
  };
  const INHERIT = { TBODY: ['TABLE'], TD: ['TR'], TFOOT: ['TABLE'], TH: ['TR'], THEAD: ['TABLE'],
    TR: ['THEAD', 'TBODY', 'TFOOT', 'TABLE'] };
  const impliedRole = (e) => {
    const role = implied(e);
    if (!role) return null;
    for (let a = e; a;) {
      const parent = parentOf(a);
      const parents = INHERIT[tag(a)];
      if (!parents || !parent || !parents.includes(tag(parent))) break;
      const pr = explicit(parent);
      if ((pr === 'none' || pr === 'presentation') && !givesWay(parent, pr)) return pr;
      a = parent;
    }
    return role;
  };
  const role = (() => {
    const r = explicit(el);
    if (!r) return impliedRole(el);
    if (r === 'none' || r === 'presentation') {
      const i = impliedRole(el);
      if (givesWay(el, i)) return i;
    }
    return r;
  })();
  if (!TAKES.includes(role || '')) return false;
  for (let e = el; e; e = parentOf(e)) {
    const a = (e.getAttribute('aria-disabled') || '').toLowerCase();
    if (a === 'true') return true;
    if (a === 'false') return false;
  }
  return false;
}
