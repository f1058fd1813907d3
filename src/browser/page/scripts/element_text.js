// The text of an element as the look-ups read it, given the scope they look in (`scope`: a
// document or an element) and whether they compare it ignoring case (`caseless`): a reader
// `(el) => text`. An HTML element's `innerText`; an SVG
// element's `textContent` (SVG has no `innerText`: a chart's `<text>`); an `<input>` button's
// value (`type=submit|button|reset`, as Playwright's getByText reads it). An element holding an
// open shadow root, or holding one that does, reads what its shadow root shows too (`innerText`
// stops at a shadow root; Playwright's text engine goes in): its rendered children's texts and
// its shadow root's, joined. Scripts, styles and what is not rendered add nothing; nor does a
// host's light DOM child no `<slot>` assigns (not drawn: Playwright's elementText reads it).
//
// The text is the DOM's, as Playwright's elementText reads it: CSS `text-transform` is left out
// (a button Material UI upper-cases shows "SUBMIT ORDER" and is "Submit order"). `innerText`
// applies it, so an element holding text the page's CSS transforms (`transformed`: found once
// per reader, by computed style) has innerText's words put back in the DOM's case: its
// rendered text nodes are walked in order alongside the innerText, each word found at the next
// place it reads the same ignoring case, a transformed node's word written as the DOM has it.
// No style or layout of the page changes. What else innerText does is kept: hidden children
// add nothing, `<br>` and blocks separate words (Playwright joins those).
//
// Chromium skips the contents of a `content-visibility: auto` element while it is off screen
// (a long list, a docs page's later sections: rendered once they near the viewport), and their
// `innerText` is empty, where Playwright reads their text (the DOM's) and a user scrolling sees
// it. Skipped elements (`checkVisibility()` but not with `contentVisibilityAuto`), and those
// holding one, are read from their child nodes, as a shadow root's holder is: text nodes as
// the DOM has them (under `visibility: visible`), children that are rendered (a box: Chromium
// lays a skipped element out when asked), an inline child joined without a space, `<br>` and
// other children separated by one.
(deep) => {
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  // The elements under `scope` (itself included) whose text the page's CSS transforms (their
  // computed style: inherited from outside too), and those holding one.
  const transformed = (scope) => {
    const found = { own: new Set(), holding: new Set() };
    const doc = scope.nodeType === 9 ? scope : scope.ownerDocument;
    const win = doc && doc.defaultView;
    const top = scope.nodeType === 9 ? scope.body : scope;
    if (!win || !top) return found;
    for (const el of [top, ...deep(top)]) {
      const tt = win.getComputedStyle(el).textTransform;
      if (!tt || tt === 'none') continue;
      found.own.add(el);
      for (let n = el; n && !found.holding.has(n); n = up(n)) found.holding.add(n);
    }
    return found;
  };
  // `t`, the innerText of `el`, with the words of its transformed text nodes in the DOM's case.
  const untransformed = (el, t, own) => {
    const low = t.toLowerCase();
    if (low.length !== t.length) return t;
    const win = el.ownerDocument.defaultView;
    const walk = el.ownerDocument.createTreeWalker(el, 4);
    let out = '', at = 0;
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const p = n.parentElement;
      if (!p || p.getClientRects().length === 0 || win.getComputedStyle(p).visibility !== 'visible') continue;
      for (const word of n.data.split(/\s+/)) {
        if (!word || word.toLowerCase().length !== word.length) continue;
        const i = low.indexOf(word.toLowerCase(), at);
        if (i < 0) continue;
        out += t.slice(at, i) + (own.has(p) ? word : t.slice(i, i + word.length));
        at = i + word.length;
      }
    }
    return out + t.slice(at);
  };
  // `caseless`: the reader's texts are compared ignoring case (a text look-up without
  // `exact`), so innerText's are taken as they are, at no cost.
  return (scope, caseless) => {
    let found = null;
    const holders = new Set();
    const skipped = new Set();
    const start = scope.nodeType === 9 ? [] : [scope];
    for (const el of start.concat(deep(scope))) {
      if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ contentVisibilityAuto: true }) && el.checkVisibility()) skipped.add(el);
      else if (!el.shadowRoot) continue;
      for (let n = el; n && !holders.has(n); n = up(n)) holders.add(n);
    }
    const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE']);
    const rendered = (el) => el.getClientRects().length > 0 || getComputedStyle(el).display === 'contents';
    // What separates a child's text from its neighbours': nothing for an inline skipped element
    // (`Hel<b>lo</b>` is one word, as innerText reads it once shown).
    const gap = (el) => skipped.has(el) && el.tagName !== 'BR' && getComputedStyle(el).display.startsWith('inline') ? '' : ' ';
    const shows = (n) => !skipped.has(n.parentElement) || getComputedStyle(n.parentElement).visibility === 'visible';
    const own = (el) => {
      if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes((el.type || '').toLowerCase())) return el.value || '';
      const t = el.innerText;
      if (t === undefined || t === null) return el.textContent || '';
      if (caseless) return t;
      if (!found) found = transformed(scope);
      return found.holding.has(el) ? untransformed(el, t, found.own) : t;
    };
    // A light DOM child of an element with a shadow root is drawn only where a `<slot>` of
    // that root assigns it: else it is not on the page (GitHub's `<relative-time>` keeps a
    // fallback text there and shows another). A closed root's host reads its `innerText`,
    // which leaves unassigned children out too.
    const unslotted = (n) => !!(n.parentNode && n.parentNode.shadowRoot) && !n.assignedSlot;
    const of = (nodes) => {
      let t = '';
      for (const n of nodes) {
        if (unslotted(n)) continue;
        if (n.nodeType === 3) t += shows(n) ? n.nodeValue || '' : '';
        else if (n.nodeType === 1 && !SKIP.has(n.tagName) && rendered(n)) t += gap(n) + text(n) + gap(n);
      }
      return t;
    };
    const text = (el) => {
      if (!holders.has(el)) return own(el);
      return of(el.childNodes) + (el.shadowRoot ? of(el.shadowRoot.childNodes) : '');
    };
    // What a check reads of `el` (`text`, `texts`): its text, else the DOM's (`textContent`,
    // as agent-browser's `get text` falls back to it: an element under `visibility: hidden`),
    // but not text with no box at all: the light DOM text of a shadow host that no `<slot>`
    // assigns (a closed root's host, whose `innerText` leaves it out) is not on the page.
    const boxless = (c) => {
      const r = c.ownerDocument.createRange();
      r.selectNodeContents(c);
      return r.getClientRects().length === 0;
    };
    const undrawn = (el) => el.getClientRects().length > 0
      && [...el.childNodes].some((c) => c.nodeType === 3 && c.data.trim() && boxless(c));
    text.checked = (el) => text(el) || (undrawn(el) ? '' : el.textContent || '');
    return text;
  };
}
