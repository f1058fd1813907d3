// What a `key` selector (label, placeholder, testid, alt, title) could name in the page (or
// iframe `frame`): the texts of its labels (`<label>`s, `aria-label`s, `aria-labelledby`
// texts) or the values of that attribute (`testid`: the attribute `testid` names),
// whitespace-normalised; up to 200, for the suggestions of a selector that matches nothing.
// Inside open shadow roots too (`deep`), where the selectors look.
(frameDocument, deep) => (frame, key, testid) => {
  const doc = frameDocument(frame);
  if (!doc) return [];
  const all = deep(doc);
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const text = el => (el.innerText === undefined ? el.textContent : el.innerText);
  const out = new Set();
  if (key === 'label') {
    for (const l of all.filter(el => el.tagName === 'LABEL')) out.add(norm(text(l)));
    for (const el of all.filter(el => el.hasAttribute('aria-label'))) out.add(norm(el.getAttribute('aria-label')));
    for (const el of all.filter(el => el.hasAttribute('aria-labelledby'))) {
      const ids = el.getAttribute('aria-labelledby').trim().split(/\s+/);
      const tree = el.getRootNode().getElementById ? el.getRootNode() : doc;
      out.add(norm(ids.map(id => tree.getElementById(id)).filter(Boolean).map(text).join(' ')));
    }
  } else {
    const name = key === 'testid' ? testid : key;
    for (const el of all) {
      const v = el.getAttribute(name);
      if (v !== null) out.add(norm(v));
    }
  }
  out.delete('');
  return [...out].slice(0, 200);
}
