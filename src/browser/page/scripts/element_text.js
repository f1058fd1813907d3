// The text of an element as the look-ups read it, given the scope they look in (`scope`: a
// document or an element): a reader `(el) => text`. An HTML element's `innerText`; an SVG
// element's `textContent` (SVG has no `innerText`: a chart's `<text>`); an `<input>` button's
// value (`type=submit|button|reset`, as Playwright's getByText reads it). An element holding an
// open shadow root, or holding one that does, reads what its shadow root shows too (`innerText`
// stops at a shadow root; Playwright's text engine goes in): its rendered children's texts and
// its shadow root's, joined. Scripts, styles and what is not rendered add nothing.
(deep) => (scope) => {
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const holders = new Set();
  const start = scope.nodeType === 9 ? [] : [scope];
  for (const el of start.concat(deep(scope))) {
    if (!el.shadowRoot) continue;
    for (let n = el; n && !holders.has(n); n = up(n)) holders.add(n);
  }
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
  const rendered = (el) => el.getClientRects().length > 0 || getComputedStyle(el).display === 'contents';
  const own = (el) => {
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes((el.type || '').toLowerCase())) return el.value || '';
    const t = el.innerText;
    return t === undefined || t === null ? el.textContent || '' : t;
  };
  const of = (nodes) => {
    let t = '';
    for (const n of nodes) {
      if (n.nodeType === 3) t += n.nodeValue || '';
      else if (n.nodeType === 1 && !SKIP.has(n.tagName) && rendered(n)) t += ' ' + text(n) + ' ';
    }
    return t;
  };
  const text = (el) => {
    if (!holders.has(el)) return own(el);
    return of(el.childNodes) + (el.shadowRoot ? of(el.shadowRoot.childNodes) : '');
  };
  return text;
}
