// The elements the browser's accessibility tree gives for a role (`els`, in its order), kept
// when they match, then answered as `markPicked` answers a look-up's matches (`kept`: the
// indexes in `els` of those kept). Not one removed from the page since the tree was read, nor
// the element a `within` found (`scope`, its handle): only what is inside it. `named[i]` says
// whether els[i]'s accessible name matches the name asked (`want`; null: none asked, all
// match): true, false, or 'empty' when it has no name (an alert, a list item, a paragraph:
// roles whose name is not their text), and then its rendered text is compared instead, as a
// text selector compares it (whitespace-normalised; contained, without case, or equal with
// `exact`).
(markPicked) => (scope, want, exact, named, nth, read, ...els) => {
  const normt = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  const w = want === null ? null : normt(want);
  const hit = (el, i) => {
    if (!el.isConnected || (scope !== null && el.matches(scope))) return false;
    if (w === null || named[i] === true) return true;
    if (named[i] !== 'empty') return false;
    const t = normt(el.innerText || el.textContent);
    return exact ? t === w : t.toLowerCase().includes(w.toLowerCase());
  };
  const kept = [];
  els.forEach((el, i) => { if (hit(el, i)) kept.push(i); });
  const out = markPicked(kept.map(i => els[i]), nth, read);
  out.kept = kept;
  return out;
}
