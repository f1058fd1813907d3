// Whether the document `document_quiet.js` watched is still the page's, still loaded, and has
// not changed since that script answered (so a snapshot read in between shows it as it was
// then); ends the watch.
() => {
  const watch = window[Symbol.for('runner.quiet')];
  if (!watch) return { unchanged: false };
  watch.stop();
  return { unchanged: watch.answered !== null && watch.changed === watch.answered && document.readyState === 'complete' };
}
