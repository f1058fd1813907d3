// The elements CSS `css` matches under `root` (a document, or an element: its descendants),
// and with `text` only those whose text contains it (Playwright's `hasText`:
// whitespace-normalised, case-insensitive; equal to it with `exact`); null when the page cannot
// parse the CSS. As Playwright's CSS engine, it looks inside open shadow roots (`deep`): an
// element there matches when its last compound selector does and the ones before it match its
// ancestors (or siblings) with a shadow root's host taken as its parent, so `my-card .title`
// finds the title a web component renders. The document's own tree answers as the page's CSS
// does.
(deep, elementText) => (root, css, text, exact) => {
  let els;
  try { els = [...root.querySelectorAll(css)] } catch (e) { return null }
  const all = deep(root);
  if (root.shadowRoot || all.some(el => el.shadowRoot)) {
    const tree = root.getRootNode();
    const light = new Set(els);
    const list = complexes(css);
    els = all.filter(el => light.has(el) || (el.getRootNode() !== tree && list.some(c => matches(el, c, c.length - 1))));
  }
  if (text === null || text === undefined) return els;
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const want = norm(text);
  const read = elementText(root);
  return els.filter(el => {
    const t = norm(read(el));
    return exact ? t === want : t.toLowerCase().includes(want.toLowerCase());
  });

  // Whether `el` matches compound `c[i]` and, through the combinators before it, the rest.
  function matches(el, c, i) {
    try { if (!el.matches(c[i])) return false; } catch (e) { return false; }
    if (i === 0) return true;
    const up = n => n.parentElement || (n.parentNode && n.parentNode.host) || null;
    const comb = c[i - 1];
    if (comb === '>') { const p = up(el); return !!p && matches(p, c, i - 2); }
    if (comb === '+') { const s = el.previousElementSibling; return !!s && matches(s, c, i - 2); }
    const next = comb === '~' ? n => n.previousElementSibling : up;
    for (let n = next(el); n; n = next(n)) if (matches(n, c, i - 2)) return true;
    return false;
  }

  // A selector list as its complex selectors, each [compound, combinator, compound, ...]
  // (' ', '>', '+' or '~'), split outside strings, brackets and parentheses.
  function complexes(s) {
    const out = [];
    let cur = [], buf = '', depth = 0, quote = null;
    const take = () => { if (buf) { cur.push(buf); buf = ''; } };
    const comb = (c) => {
      take();
      if (cur.length === 0) return;
      if (cur.length % 2 === 1) cur.push(c);
      else if (c !== ' ') cur[cur.length - 1] = c;
    };
    const end = () => { take(); if (cur.length % 2 === 0) cur.pop(); if (cur.length) out.push(cur); cur = []; };
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      if (ch === '\\') { buf += ch + (s[i + 1] || ''); i++; continue; }
      if (quote) { buf += ch; if (ch === quote) quote = null; continue; }
      if (ch === '"' || ch === "'") { quote = ch; buf += ch; continue; }
      if (ch === '(' || ch === '[') depth++;
      if (ch === ')' || ch === ']') depth--;
      if (depth > 0 || ch === ')' || ch === ']') { buf += ch; continue; }
      if (ch === ',') end();
      else if (/\s/.test(ch)) comb(' ');
      else if (ch === '>' || ch === '+' || ch === '~') comb(ch);
      else buf += ch;
    }
    end();
    return out;
  }
}
