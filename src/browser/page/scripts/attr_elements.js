// The elements under `root` whose attribute `name` contains `want` (Playwright's getByPlaceholder,
// getByAltText, getByTitle): both whitespace-normalised, case-insensitive; equal to it with
// `exact` (case too). Inside open shadow roots too (`deep`), as Playwright's.
(deep) => (root, name, want, exact) => {
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  want = norm(want);
  const lower = want.toLowerCase();
  return deep(root).filter(el => {
    const v = el.getAttribute(name);
    if (v === null) return false;
    return exact ? norm(v) === want : norm(v).toLowerCase().includes(lower);
  });
}
