// Waits until the document has loaded and nothing on it has changed for `quiet` ms (at most
// `max` ms), then answers its ready state, whether it was quiet, and the validation messages of
// its form controls (the bubble Chromium shows for one of them is browser UI, not a state of
// the page). A change is a DOM mutation (its open shadow roots and same-origin frames too) or a
// fetch or XHR response arriving (the page is about to show what it got). The watch goes on
// after the answer: `document_unchanged.js`, read after the snapshot, says whether anything
// changed since. A navigation that replaces the document ends the call (the browser says the
// context was destroyed), and the next read is of the new document. A hidden page is not waited
// for (the browser slows its timers down): it answers `hidden` at once. Nor is a page off the
// origin `within` (`scheme://host:port`, as runner reads it from the URL; null: any): explore
// does not record it, and answers `elsewhere` at once.
({ quiet, max, within }) => new Promise(resolve => {
  const key = Symbol.for('runner.quiet');
  if (window[key]) window[key].stop();
  const invalid = () => Array.from(document.querySelectorAll('input, select, textarea'), e => e.validationMessage).filter(Boolean);
  const [scheme, rest] = location.href.split('://');
  if (within && (rest === undefined || scheme + '://' + rest.split('/')[0] !== within)) {
    resolve({ ready: document.readyState, quiet: false, hidden: false, elsewhere: true, invalid: [] });
    return;
  }
  if (document.visibilityState === 'hidden') {
    resolve({ ready: document.readyState, quiet: false, hidden: true, invalid: invalid() });
    return;
  }
  const start = performance.now();
  const watch = { changed: start, answered: null };
  const changed = () => { watch.changed = performance.now(); };
  const seen = new WeakSet();
  const observer = new MutationObserver(records => {
    changed();
    for (const r of records) for (const n of r.addedNodes) if (n.nodeType === 1) follow(n);
  });
  const observe = root => {
    seen.add(root);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    follow(root);
  };
  // The shadow roots and same-origin frame documents in and under `root`, watched too.
  const follow = root => {
    const all = root.nodeType === 1 ? [root, ...root.querySelectorAll('*')] : root.querySelectorAll('*');
    for (const el of all) {
      if (el.shadowRoot && !seen.has(el.shadowRoot)) observe(el.shadowRoot);
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && !seen.has(doc)) observe(doc);
      }
    }
  };
  observe(document);
  let responses = null;
  try {
    responses = new PerformanceObserver(list => {
      if (list.getEntries().some(e => e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest')) changed();
    });
    responses.observe({ type: 'resource' });
  } catch (e) { responses = null; }
  watch.stop = () => {
    observer.disconnect();
    if (responses) responses.disconnect();
    if (window[key] === watch) delete window[key];
  };
  window[key] = watch;
  const check = () => {
    const now = performance.now();
    const loaded = document.readyState === 'complete';
    const calm = now - watch.changed >= quiet;
    if ((loaded && calm) || now - start >= max) {
      watch.answered = watch.changed;
      resolve({ ready: document.readyState, quiet: loaded && calm, hidden: false, invalid: invalid() });
    } else {
      const wait = loaded ? quiet - (now - watch.changed) : 10;
      setTimeout(check, Math.max(1, Math.min(wait, max - (now - start))));
    }
  };
  check();
})
