// Every element under `root` (a document, an element: its descendants, or a shadow root),
// looking inside OPEN shadow roots as Playwright's selector engines do (a closed one stays
// out), in the order Playwright sorts them: an element, its own children, then what its
// shadow root holds. Without shadow roots, the order of `querySelectorAll('*')`.
(root) => {
  const out = [];
  const walk = (node) => {
    for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
      out.push(c);
      walk(c);
    }
    if (node.shadowRoot) walk(node.shadowRoot);
  };
  walk(root);
  return out;
}
