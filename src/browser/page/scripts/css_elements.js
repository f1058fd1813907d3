// The elements CSS `css` matches under `root` (a document, or an element: its descendants),
// and with `text` only those whose text contains it (Playwright's `hasText`:
// whitespace-normalised, case-insensitive; equal to it with `exact`); null when the page cannot
// parse the CSS. As Playwright's CSS engine, it looks inside open shadow roots (`deep`): an
// element there matches when its last compound selector does and the ones before it match its
// ancestors (or siblings) with a shadow root's host taken as its parent, so `my-card .title`
// finds the title a web component renders. The document's own tree answers as the page's CSS
// does, but for `:has()` (and `:is()`, `:where()`, `:not()` holding a combinator or a `:has()`):
// as Playwright's engine, runner evaluates those itself, with the same look through open shadow
// roots, so `form:has(.error)` matches the form whose web component shows `.error` in its
// shadow root (the page's own `:has()` stops at it), and `:is(form .error)` the error there.
(deep, elementText) => (root, css, text, exact) => {
  const parsed = new Map();
  let els;
  try { els = [...root.querySelectorAll(css)] } catch (e) { return null }
  const all = deep(root);
  if (root.shadowRoot || all.some(el => el.shadowRoot)) {
    const tree = root.getRootNode();
    const light = new Set(els);
    const list = complexes(css);
    const ours = /:(has|is|where|not|matches)\(/i.test(css)
      && list.some(c => c.some((p, k) => k % 2 === 0 && parse(p).own.length > 0));
    els = all.filter(el => (!ours && light.has(el))
      || ((ours || el.getRootNode() !== tree) && list.some(c => matches(el, c, c.length - 1, null))));
  }
  if (text === null || text === undefined) return els;
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const want = norm(text);
  const read = elementText(root, !exact);
  return els.filter(el => {
    const t = norm(read(el));
    return exact ? t === want : t.toLowerCase().includes(want.toLowerCase());
  });

  // Whether `el` matches compound `c[i]` and, through the combinators before it, the rest
  // (a shadow root's host taken as its parent; no ancestor at or above `stop`).
  function matches(el, c, i, stop) {
    if (!compound(el, c[i])) return false;
    if (i === 0) return true;
    const up = n => { const p = n.parentElement || (n.parentNode && n.parentNode.host) || null; return p === stop ? null : p; };
    const comb = c[i - 1];
    if (comb === '>') { const p = up(el); return !!p && matches(p, c, i - 2, stop); }
    if (comb === '+') { const s = el.previousElementSibling; return !!s && matches(s, c, i - 2, stop); }
    const next = comb === '~' ? n => n.previousElementSibling : up;
    for (let n = next(el); n; n = next(n)) if (matches(n, c, i - 2, stop)) return true;
    return false;
  }

  // Whether `el` matches a compound: the page's own matching, but for the pseudo-classes
  // `parse` takes out, evaluated here.
  function compound(el, comp) {
    const { base, own } = parse(comp);
    try { if (base && !el.matches(base)) return false; } catch (e) { return false; }
    return own.every(([name, arg]) => {
      if (name === 'has') return complexes(arg).some(c => has(el, c));
      const hit = complexes(arg).some(c => matches(el, c, c.length - 1, null));
      return name === 'not' ? !hit : hit;
    });
  }

  // Whether an element related to `el` as relative selector `c` says (its leading combinator:
  // descendant by default) matches it, descendants and children taken through open shadow
  // roots (Playwright's `:has()`). Left to right, over the set each compound leaves.
  function has(el, c) {
    const kids = n => [...n.children, ...(n.shadowRoot ? n.shadowRoot.children : [])];
    const after = (n, one) => { const o = []; for (let s = n.nextElementSibling; s; s = s.nextElementSibling) { o.push(s); if (one) break; } return o; };
    const related = (n, comb) => comb === '>' ? kids(n) : comb === '+' ? after(n, true) : comb === '~' ? after(n, false) : deep(n);
    let set = related(el, c.lead || ' ').filter(n => compound(n, c[0]));
    for (let i = 2; i < c.length && set.length; i += 2) {
      const next = new Set();
      for (const n of set) for (const m of related(n, c[i - 1])) if (!next.has(m) && compound(m, c[i])) next.add(m);
      set = [...next];
    }
    return set.length > 0;
  }

  // A compound selector as the part the page matches (`base`) and the pseudo-classes runner
  // evaluates (`own`: [name, argument]): every `:has()`, and an `:is()`, `:where()`, `:not()`
  // or `:matches()` whose argument holds a combinator or a `:has()`.
  function parse(comp) {
    if (parsed.has(comp)) return parsed.get(comp);
    let base = '', quote = null, brackets = 0;
    const own = [];
    for (let i = 0; i < comp.length; i++) {
      const ch = comp[i];
      if (ch === '\\') { base += ch + (comp[i + 1] || ''); i++; continue; }
      if (quote) { base += ch; if (ch === quote) quote = null; continue; }
      if (ch === '"' || ch === "'") { quote = ch; base += ch; continue; }
      if (ch === '[') brackets++;
      if (ch === ']') brackets--;
      const m = brackets === 0 && ch === ':' ? /^:(has|is|where|not|matches)\(/i.exec(comp.slice(i)) : null;
      if (!m) { base += ch; continue; }
      const end = closing(comp, i + m[0].length);
      const arg = comp.slice(i + m[0].length, end);
      const name = m[1].toLowerCase();
      if (name === 'has' || /:has\(/i.test(arg) || complexes(arg).some(c => c.length > 1 || c.lead)) own.push([name, arg]);
      else base += comp.slice(i, end + 1);
      i = end;
    }
    parsed.set(comp, { base, own });
    return parsed.get(comp);
  }

  // The index of the `)` closing the parenthesis opened before `from`.
  function closing(s, from) {
    let depth = 1, quote = null;
    for (let i = from; i < s.length; i++) {
      const ch = s[i];
      if (ch === '\\') { i++; continue; }
      if (quote) { if (ch === quote) quote = null; continue; }
      if (ch === '"' || ch === "'") quote = ch;
      else if (ch === '(') depth++;
      else if (ch === ')' && --depth === 0) return i;
    }
    return s.length;
  }

  // A selector list as its complex selectors, each [compound, combinator, compound, ...]
  // (' ', '>', '+' or '~'), split outside strings, brackets and parentheses; a relative one's
  // leading combinator (`:has(> li)`) is its `lead`.
  function complexes(s) {
    const out = [];
    let cur = [], buf = '', depth = 0, quote = null;
    const take = () => { if (buf) { cur.push(buf); buf = ''; } };
    const comb = (c) => {
      take();
      if (cur.length === 0) { if (c !== ' ') cur.lead = c; return; }
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
