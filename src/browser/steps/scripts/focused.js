// Whether `el` has the focus (through shadow roots): true, or what has it.
(el) => {
  let a = el.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (a === el) return true;
  if (!a || a === el.ownerDocument.body) return 'nothing has the focus';
  return 'the focus is on ' + a.tagName.toLowerCase() + (a.id ? '#' + a.id : '');
}
