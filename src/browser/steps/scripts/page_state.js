// Which document and history entry the page shows — a new document has a new time origin, a
// history entry of the same document (pushState, a #hash) its own URL and Navigation API entry
// — and whether it has loaded.
() => {
  const entry = window.navigation && navigation.currentEntry ? navigation.currentEntry.id : '';
  return { id: String(performance.timeOrigin) + ' ' + location.href + ' ' + entry, ready: document.readyState };
}
