// Whether what has the focus (through shadow roots and same-origin iframes) takes text: true,
// or what has it. Text fields, contenteditable (ProseMirror, CodeMirror 6, Lexical) and the
// hidden textarea CodeMirror 5 and Monaco type into all do; so do widgets that say they take
// keys (a textbox, combobox, spinbutton or grid cell role, or role=application).
() => {
  let a = document.activeElement;
  for (;;) {
    if (a && a.shadowRoot && a.shadowRoot.activeElement) {
      a = a.shadowRoot.activeElement;
      continue;
    }
    if (a && (a.tagName === 'IFRAME' || a.tagName === 'FRAME')) {
      let inner = null;
      try { inner = a.contentDocument; } catch (e) { inner = null; }
      // A frame of another origin cannot be read from here: what it focused is its own.
      if (!inner) return true;
      a = inner.activeElement;
      continue;
    }
    break;
  }
  const doc = a && a.ownerDocument;
  if (!a || a === doc.body || a === doc.documentElement) return 'nothing has the focus';
  const name = a.tagName.toLowerCase() + (a.id ? '#' + a.id : '');
  if (a.isContentEditable) return true;
  const noText = ['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden', 'range', 'color'];
  const field = a.tagName === 'TEXTAREA' || (a.tagName === 'INPUT' && !noText.includes(a.type));
  if (field) return a.readOnly ? 'the focus is on ' + name + ', which is read-only' : true;
  const role = a.getAttribute('role');
  if (['textbox', 'searchbox', 'combobox', 'spinbutton', 'gridcell', 'application'].includes(role)) {
    if (a.getAttribute('aria-readonly') === 'true') return 'the focus is on ' + name + ', which is read-only';
    if (a.getAttribute('aria-disabled') === 'true') return 'the focus is on ' + name + ', which is disabled';
    return true;
  }
  return 'the focus is on ' + name + ', which takes no text';
}
