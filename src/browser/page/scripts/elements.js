// The elements one level of a selector finds under `root` (a document, or an element: then its
// descendants only), in document order: `level` is { kind: 'css', css, text, exact },
// { kind: 'text', text, tag, exact }, { kind: 'label', value, exact } or
// { kind: 'attr', name, value, exact } (placeholder, alt, title, the test id); null for CSS the
// page cannot parse.
(cssElements, textElements, attrElements, labelElements) => (root, level) => {
  switch (level.kind) {
    case 'css': return cssElements(root, level.css, level.text, level.exact);
    case 'text': return textElements(root, level.text, level.tag, level.exact);
    case 'label': return labelElements(root, level.value, level.exact);
    default: return attrElements(root, level.name, level.value, level.exact);
  }
}
