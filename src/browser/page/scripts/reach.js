// Runner's handle (`[data-runner-sel="…"]`) on an element inside a shadow root, made reachable
// by CSS: agent-browser finds the element of a command by `document.querySelector`, which
// stops at shadow roots, and so do the page scripts that run on a handle. Once, for the
// element's document, that document's own `querySelector` and `querySelectorAll` look through
// open shadow roots for a handle (and only for one: every other selector, and a handle in the
// document's own tree, is answered as before). The document goes with its page, and a handle
// with its document. A no-op for an element in the document's own tree. On a page that made
// those properties of its document unchangeable (an anti-tamper script's `configurable:
// false`, a frozen document) it throws saying so: a look-up that reads what it asks in its own
// call does not ask for it (`markPicked`).
(el) => {
  const doc = el.ownerDocument;
  if (!doc || el.getRootNode() === doc || Object.prototype.hasOwnProperty.call(doc, '__runnerReach')) return;
  const fixed = ['querySelector', 'querySelectorAll'].find((name) => {
    const d = Object.getOwnPropertyDescriptor(doc, name);
    return d ? !d.configurable : !Object.isExtensible(doc);
  });
  if (fixed) {
    throw new Error(`runner cannot act on an element inside a shadow root on this page: the page made \`document.${fixed}\` unchangeable (a property of the document defined with \`configurable: false\`, or a frozen document), which runner's handle on such an element needs; its reads (visible, hidden, text, count) work, an action does not`);
  }
  const one = doc.querySelector;
  const all = doc.querySelectorAll;
  const handle = /^\[data-runner-sel="[a-z0-9]+"\]$/;
  // The first shadow root under `root` that holds `sel`, as its NodeList; null when none.
  const inside = (root, sel) => {
    for (const host of (root === doc ? all.call(doc, '*') : root.querySelectorAll('*'))) {
      const sr = host.shadowRoot;
      if (!sr) continue;
      const got = sr.querySelectorAll(sel);
      if (got.length) return got;
      const deeper = inside(sr, sel);
      if (deeper) return deeper;
    }
    return null;
  };
  const define = (name, value) => Object.defineProperty(doc, name, { value, configurable: true, writable: true });
  define('querySelector', function (sel) {
    const got = one.call(this, sel);
    if (got || typeof sel !== 'string' || !handle.test(sel)) return got;
    const deep = inside(this, sel);
    return deep ? deep[0] : null;
  });
  define('querySelectorAll', function (sel) {
    const got = all.call(this, sel);
    if (got.length || typeof sel !== 'string' || !handle.test(sel)) return got;
    return inside(this, sel) || got;
  });
  define('__runnerReach', true);
}
