// The elements the browser's accessibility tree gives for a role (`els`, in its order), kept
// when they match, then answered as `markPicked` answers a look-up's matches (`kept`: the
// indexes in `els` of those kept). Not one removed from the page since the tree was read, nor
// the element a `within` found (`scope`, its handle): only what is inside it. `named[i]` says
// whether els[i]'s accessible name matches the name asked (`want`; null: none asked, all
// match): true, false, or 'empty' when it has no name (an alert, a list item, a paragraph:
// roles whose name is not their text), and then its rendered text is compared instead, read
// and compared as a text selector does (`elementText`: the DOM's text, not CSS
// `text-transform`'s; whitespace-normalised; contained, without case, or equal with `exact`).
//
// With `exact`, a name the tree gives equal to the one asked but for case (`named[i]`: 'case')
// or equal (`'same'`) is judged by the name as the DOM has it: the tree's name carries CSS
// `text-transform` (a button Material UI upper-cases is "SUBMIT ORDER" there), Playwright's
// does not (review 28). It is read where the name comes from (`aria-labelledby`'s elements,
// `aria-label`, the labels, the content), as the look-ups read text; when that is not the
// tree's name but for case, the name came from elsewhere (`title`, `alt`: not transformed) and
// the tree's is taken.
// `MARK_PICKED` comes unbound (`pickedWith`) and is given the reader of texts here: one copy.
(pickedWith, reach, elementText, isVisible) => {
  const markPicked = pickedWith(reach, elementText, isVisible);
  return (scope, want, exact, named, nth, read, ...els) => {
    const normt = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
    const w = want === null ? null : normt(want);
    const textOf = n => elementText(n, false)(n) || n.textContent || '';
    const domName = (el) => {
      const by = (el.getAttribute('aria-labelledby') || '').trim();
      if (by) {
        const root = el.getRootNode();
        const tree = root.getElementById ? root : el.ownerDocument;
        return by.split(/\s+/).map(id => tree.getElementById(id)).filter(Boolean).map(textOf).join(' ');
      }
      const aria = el.getAttribute('aria-label');
      if (aria && aria.trim()) return aria;
      if (el.labels && el.labels.length) return [...el.labels].map(textOf).join(' ');
      return textOf(el);
    };
    const hit = (el, i) => {
      if (!el.isConnected || (scope !== null && el.matches(scope))) return false;
      if (w === null || named[i] === true) return true;
      if (named[i] === 'case' || named[i] === 'same') {
        const d = normt(domName(el));
        return d.toLowerCase() === w.toLowerCase() ? d === w : named[i] === 'same';
      }
      if (named[i] !== 'empty') return false;
      const t = normt(elementText(el, !exact)(el) || el.textContent);
      return exact ? t === w : t.toLowerCase().includes(w.toLowerCase());
    };
    const kept = [];
    els.forEach((el, i) => { if (hit(el, i)) kept.push(i); });
    const out = markPicked(kept.map(i => els[i]), nth, read);
    out.kept = kept;
    return out;
  };
}
