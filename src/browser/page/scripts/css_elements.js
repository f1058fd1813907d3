// The elements CSS `css` matches under `root` (a document, or an element: its descendants),
// and with `text` only those whose text contains it (Playwright's `hasText`:
// whitespace-normalised, case-insensitive; equal to it with `exact`); null when the page cannot
// parse the CSS.
(root, css, text, exact) => {
  let els;
  try { els = [...root.querySelectorAll(css)] } catch (e) { return null }
  if (text === null || text === undefined) return els;
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const want = norm(text);
  return els.filter(el => {
    const t = norm(el.innerText === undefined ? el.textContent : el.innerText);
    return exact ? t === want : t.toLowerCase().includes(want.toLowerCase());
  });
}
