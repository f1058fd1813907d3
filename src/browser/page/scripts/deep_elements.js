// Every element under `root` (a document, an element: its descendants, or a shadow root),
// looking inside OPEN shadow roots as Playwright's selector engines do (a closed one stays
// out), in the order Playwright sorts them: an element, its own children, then what its
// shadow root holds. Without shadow roots, `querySelectorAll('*')` (the page's own walk, the
// fast one).
(root) => {
  const light = root.querySelectorAll('*');
  let hosts = !!root.shadowRoot;
  for (let i = 0; !hosts && i < light.length; i++) hosts = !!light[i].shadowRoot;
  if (!hosts) return [...light];
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
