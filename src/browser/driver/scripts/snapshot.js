// The page as it is now, as HTML to draw again later, offline, in a tab that runs no script (a
// trace's picture after a step: see `recorder`). Evaluated in an isolated world of the page's
// frame: the page's own scripts cannot change what it reads (a prototype's getter, `cloneNode`,
// `innerWidth`). The live state the markup does not hold is written into it: a field's value
// (a password field's as as many dots: its value is never written), a box's checked state, an
// option's selection. Scripts, `<noscript>` (it would show where scripts are off), `<base>` and
// `<meta http-equiv>` (a refresh would navigate the drawing) go. A stylesheet of a `<link>` is
// read once a flow: each is named by its address (`known`: those runner holds already, whose
// text is not sent again), and stands in the markup as `<style data-runner-sheet="ADDRESS">`,
// which runner fills before drawing; one whose rules the page may not read (another origin's)
// stays a `<link>` (drawn offline: without it), and a sheet longer than `sheetCap` characters
// is left empty. With `secrets` (the flow has some), the text the page does not render is
// left out (see `unrendered`).
//
// Returns { html, sheets: { ADDRESS: text }, width, height } (the viewport's CSS pixels), or
// { tooLarge: N } when the HTML and the sheets' texts come to more than `cap` characters (N):
// no answer may come near the DevTools connection's message limit; or { tooSlow: MS } when the
// read of the text the page renders (`secrets`) took more than `budget` ms (a page of hundreds
// of thousands of text nodes): the page's thread is not kept from the flow's next steps.
(known, cap, sheetCap, secrets, budget) => {
  const root = document.documentElement;
  if (!root) return { html: '', sheets: {}, width: innerWidth, height: innerHeight };
  const have = new Set(known);
  const sheets = {};
  let sent = 0;
  const live = 'input, textarea, select, option, script, noscript, base, meta, link, style';
  const from = root.querySelectorAll(live);
  const copy = root.cloneNode(true);
  if (secrets && !unrendered(root, copy, performance.now() + budget)) return { tooSlow: budget };
  const to = copy.querySelectorAll(live);
  for (let i = 0; i < from.length && i < to.length; i++) {
    const a = from[i], b = to[i];
    const tag = a.localName;
    if (tag === 'input') {
      if (a.type === 'checkbox' || a.type === 'radio') {
        if (a.checked) b.setAttribute('checked', ''); else b.removeAttribute('checked');
      } else if (a.type === 'password') {
        b.setAttribute('value', '\u2022'.repeat(a.value.length));
      } else if (a.type !== 'file') {
        b.setAttribute('value', a.value);
      }
    } else if (tag === 'textarea') {
      b.textContent = a.value;
    } else if (tag === 'option') {
      if (a.selected) b.setAttribute('selected', ''); else b.removeAttribute('selected');
    } else if (tag === 'script' || tag === 'noscript' || tag === 'base' ||
               (tag === 'meta' && a.hasAttribute('http-equiv'))) {
      b.remove();
    } else if (tag === 'link' && a.sheet && /(^|\s)stylesheet(\s|$)/i.test(a.rel)) {
      const href = a.href;
      if (!have.has(href)) {
        let text;
        try {
          text = Array.from(a.sheet.cssRules, (r) => r.cssText).join('\n');
        } catch (e) {
          continue;
        }
        if (text.length > sheetCap) text = '';
        sent += href.length + text.length;
        if (sent > cap) return { tooLarge: sent };
        sheets[href] = text;
        have.add(href);
      }
      const style = document.createElement('style');
      style.setAttribute('data-runner-sheet', href);
      if (a.media) style.setAttribute('media', a.media);
      b.replaceWith(style);
    } else if (tag === 'style' && a.sheet && a.sheet.cssRules.length && !a.textContent.trim()) {
      // Rules added by a script (`insertRule`), not in the element's text.
      try {
        b.textContent = Array.from(a.sheet.cssRules, (r) => r.cssText).join('\n');
      } catch (e) {}
    }
  }
  const doctype = document.doctype ? '<!DOCTYPE html>' : '';
  const html = doctype + copy.outerHTML;
  if (sent + html.length > cap) return { tooLarge: sent + html.length };
  return { html, sheets, width: innerWidth, height: innerHeight };

  // Empties the copy's text the page does not render: in a `hidden` or `display: none`
  // element, a closed `<details>`, wholly outside the document (a screen-reader-only span at
  // `left: -9999px`), or in an element clipped to a pixel (a visually-hidden span). It is not
  // drawn, and takes no room where it is (or only the pixel it is clipped to); the masker
  // joins the copy's text nodes as they are shown, and must not read such text between the
  // parts of a secret the page shows split by it. (Not a stylesheet's, a field's or an
  // option's, which have no boxes of their own, nor SVG's.)
  // False when it ran past `until` (a `performance.now()` time) before the end.
  function unrendered(from, to, until) {
    const texts = (r) => {
      const w = document.createTreeWalker(r, NodeFilter.SHOW_TEXT);
      const all = [];
      for (let n = w.nextNode(); n; n = w.nextNode()) all.push(n);
      return all;
    };
    const a = texts(from), b = texts(to);
    if (a.length !== b.length) return true;
    const range = document.createRange();
    const kept = /^(style|script|noscript|textarea|option|optgroup|title)$/;
    const html = 'http://www.w3.org/1999/xhtml';
    const clipped = new Map();
    const pixel = (el) => {
      if (!clipped.has(el)) {
        const b = el.getBoundingClientRect();
        clipped.set(el, (b.width <= 1 || b.height <= 1) && getComputedStyle(el).overflow !== 'visible');
      }
      return clipped.get(el);
    };
    for (let i = 0; i < a.length; i++) {
      if ((i & 255) === 0 && performance.now() > until) return false;
      const p = a[i].parentElement;
      if (!p || p.namespaceURI !== html || kept.test(p.localName) || !a[i].data) continue;
      range.selectNodeContents(a[i]);
      const shown = Array.from(range.getClientRects()).some((r) => r.width > 0 &&
        r.height > 0 && r.right + scrollX > 0 && r.bottom + scrollY > 0);
      if (!shown || pixel(p)) b[i].data = '';
    }
    return true;
  }
}
