// The page as it is now, as HTML to draw again later in a tab that runs no script (a trace's
// picture after a step: see `recorder`). The live state the markup does not hold is written into
// it: a field's value, a box's checked state, an option's selection. Scripts, `<noscript>`
// (it would show where scripts are off) and `<base>` go; a `<base>` of the page's address comes
// first in `<head>`, so its links, pictures and fonts load from where the page's do. A
// stylesheet of a `<link>` is read once a flow: each is named by its address (`known`: those
// runner holds already, whose text is not sent again), and stands in the markup as
// `<style data-runner-sheet="ADDRESS">`, which runner fills before drawing; one whose rules the
// page may not read (another origin's) stays a `<link>`.
//
// Returns { html, sheets: { ADDRESS: text }, width, height } (the viewport's CSS pixels).
(known) => {
  const root = document.documentElement;
  if (!root) return { html: '', sheets: {}, width: innerWidth, height: innerHeight };
  const have = new Set(known);
  const sheets = {};
  const live = 'input, textarea, select, option, script, noscript, base, meta, link, style';
  const from = root.querySelectorAll(live);
  const copy = root.cloneNode(true);
  const to = copy.querySelectorAll(live);
  for (let i = 0; i < from.length && i < to.length; i++) {
    const a = from[i], b = to[i];
    const tag = a.localName;
    if (tag === 'input') {
      if (a.type === 'checkbox' || a.type === 'radio') {
        if (a.checked) b.setAttribute('checked', ''); else b.removeAttribute('checked');
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
      let text = null;
      if (!have.has(href)) {
        try {
          text = Array.from(a.sheet.cssRules, (r) => r.cssText).join('\n');
        } catch (e) {
          continue;
        }
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
  let head = copy.querySelector('head');
  if (!head) {
    head = document.createElement('head');
    copy.prepend(head);
  }
  const base = document.createElement('base');
  base.setAttribute('href', document.baseURI);
  head.prepend(base);
  const doctype = document.doctype ? '<!DOCTYPE html>' : '';
  return { html: doctype + copy.outerHTML, sheets, width: innerWidth, height: innerHeight };
}
