// Whether the document `document_quiet.js` watched is still the page's, still loaded, and has
// not changed since that script answered (so a snapshot read in between shows it as it was
// then); ends the watch. With the page's URL and title, as agent-browser's `get url` and
// `get title` read them (the main frame's), in the same call.
() => {
  const page = { url: location.href, title: document.title };
  const watch = window[Symbol.for('runner.quiet')];
  if (!watch) return { unchanged: false, ...page };
  watch.stop();
  return { unchanged: watch.answered !== null && watch.changed === watch.answered && document.readyState === 'complete', ...page };
}
