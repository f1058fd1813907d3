// Where the page has `text`: 'shown' when an element that shows it is visible, 'hidden' when
// only invisible ones have it, 'absent' when the page's text has it nowhere. Texts are
// whitespace-normalised as Playwright compares them (a no-break space, a newline and a run of
// spaces are one space), and read as `{ text }` selectors read them (`elementText`: an SVG
// `<text>`'s, an input button's value, what a web component's open shadow root shows). The
// elements that have it are the innermost rendered ones whose text holds it (the body itself
// for text right in it), as `{ text }` selectors find them; visible is what `expect: { visible }`
// reads (Playwright's isVisible: a non-empty box, `visibility: visible`; `display: contents` by
// its child elements and text): text in a 0x0 box is in `innerText`, not seen.
(elementText, visible) => (text) => {
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const want = norm(text);
  const body = document.body;
  if (!body) return 'absent';
  const read = elementText(body);
  if (!norm(read(body)).includes(want)) return 'absent';
  // Rendered: an element under `display: none` has no box, and its innerText is its whole
  // textContent (it would seem to hold text the page does not show).
  const rendered = el => el.getClientRects().length > 0 || getComputedStyle(el).display === 'contents';
  const holds = el => rendered(el) && norm(read(el)).includes(want);
  // Down from the body, through the children (and a shadow root's) that hold the text, to the
  // innermost ones.
  const innermost = [];
  const down = el => {
    const kids = [...el.children, ...(el.shadowRoot ? el.shadowRoot.children : [])].filter(holds);
    if (kids.length === 0) innermost.push(el);
    else kids.forEach(down);
  };
  down(body);
  return innermost.some(visible) ? 'shown' : 'hidden';
}
