// The elements CSS `css` matches in `doc`; null when the page cannot parse it.
(doc, css) => {
  try { return [...doc.querySelectorAll(css)] } catch (e) { return null }
}
