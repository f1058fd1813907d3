// Whether `el` or an element inside it has the focus (through shadow roots).
(el) => {
  let a = el.ownerDocument.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return !!a && (a === el || el.contains(a));
}
