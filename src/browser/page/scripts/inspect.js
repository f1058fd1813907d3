// `inspect`: each target's outerHTML pruned to `depth` (scripts, event handlers and
// `javascript:` URLs removed) or its text, its metadata and (`withStyles`) a few computed
// styles, all under `budget` characters. A target is { name, frame, scope, level }: every
// element `levelElements(root, level)` gives (`root`: the element runner's handle `scope` names,
// else the document), or the one `level.nth` picks; each target says how many it matched
// (`count`).
(frameDocument, levelElements) => (targets, depth, budget, withStyles, format) => {
  const STYLES = ['display', 'visibility', 'position', 'color', 'background-color', 'font-size',
    'font-weight', 'width', 'height', 'margin', 'padding', 'border', 'opacity', 'z-index', 'overflow', 'cursor'];
  const SKIP = new Set(['SCRIPT', 'NOSCRIPT', 'TEMPLATE']);
  const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction', 'xlink:href']);
  const cleanAttrs = (el, copy) => {
    for (const a of [...el.attributes]) {
      const n = a.name.toLowerCase();
      if (n.startsWith('on') || n === 'data-runner-sel') continue;
      if (URL_ATTRS.has(n) && /^\s*javascript:/i.test(a.value)) continue;
      copy.setAttribute(a.name, a.value);
    }
  };
  const prune = (el, d) => {
    const copy = document.createElement(el.tagName.toLowerCase());
    cleanAttrs(el, copy);
    let hidden = 0;
    for (const child of el.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) { copy.appendChild(document.createTextNode(child.textContent)); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE || SKIP.has(child.tagName)) continue;
      if (d > 0) copy.appendChild(prune(child, d - 1)); else hidden++;
    }
    if (hidden) copy.appendChild(document.createComment(` ${hidden} child element(s) not shown `));
    return copy;
  };
  const meta = el => {
    const attributes = {};
    for (const a of el.attributes) {
      const n = a.name.toLowerCase();
      if (!n.startsWith('on') && n !== 'data-runner-sel') attributes[a.name] = a.value;
    }
    // The text as it is, up to 4096 characters (`text_more`: there was more): runner masks
    // it, then puts it on one line and cuts it; never here (a secret across a cut made before
    // masking would show its head).
    const text = el.innerText || '';
    return { tag: el.tagName.toLowerCase(), attributes, text: text.slice(0, 4096), text_more: text.length > 4096, size: el.outerHTML.length };
  };
  let total = 0, count = 0, truncated = false;
  const elements = [];
  for (const t of targets) {
    const doc = frameDocument(t.frame || null);
    if (!doc) { elements.push({ target: t.name, error: 'frame ' + t.frame + ' is missing or shows a page of another origin' }); continue; }
    const root = t.scope ? doc.querySelector(t.scope) : doc;
    let els = root ? levelElements(root, t.level) : [];
    if (els === null) { elements.push({ target: t.name, error: 'invalid CSS selector' }); continue; }
    const nth = t.level.nth;
    if (nth !== null && nth !== undefined) {
      const el = els[nth < 0 ? els.length + nth : nth];
      els = el ? [el] : [];
    }
    if (!els.length) { elements.push({ target: t.name, found: false, count: 0 }); continue; }
    count += els.length;
    for (const el of els) {
      if (total >= budget) { truncated = true; break; }
      elements.push(read(t, el, els.length));
    }
  }
  return { elements, count, total, truncated };

  function read(t, el, n) {
    let html = format === 'text' ? (el.innerText || '') : prune(el, depth).outerHTML;
    const left = Math.max(0, budget - total);
    // Cut at the budget: runner masks it only as far as a secret the cut could split cannot
    // begin (`cut`).
    const cut = html.length > left;
    if (cut) { html = html.slice(0, left); truncated = true; }
    total += html.length;
    const entry = { target: t.name, found: true, count: n, html, cut, metadata: meta(el), children: el.children.length };
    if (withStyles) {
      const cs = getComputedStyle(el); entry.styles = {};
      for (const k of STYLES) entry.styles[k] = cs.getPropertyValue(k);
    }
    return entry;
  }
}
