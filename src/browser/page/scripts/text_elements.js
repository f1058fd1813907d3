// The rendered elements under `root` (a document, or an element: its descendants), of tag `tag`
// when given, whose text is `want` (`exact`) or contains it, ignoring case; of nested ones, the
// innermost.
(root, want, tag, exact) => {
  // Whitespace-normalised as Playwright does (NBSP and newlines are spaces, runs are one).
  const normt = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  want = normt(want);
  const hit = el => { const t = normt(el.innerText); return exact ? t === want : t.toLowerCase().includes(want.toLowerCase()); };
  const all = [...root.querySelectorAll(tag || 'body *')].filter(el => el.offsetParent !== null || el.getClientRects().length);
  const found = all.filter(hit);
  return found.filter(el => !found.some(o => o !== el && el.contains(o)));
}
