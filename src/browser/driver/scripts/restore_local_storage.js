// Run in every new document of a context, one per origin a saved state names: puts back the
// localStorage it holds for `origin` (`items`: the JSON text of [[key, value], ...]) in a
// document of that origin only, once per tab (sessionStorage remembers it), never over a key
// the page has set since. A document of another origin returns before reading the items.
(origin, items) => {
  if (location.origin !== origin) return;
  try { if (sessionStorage.getItem('__runner_state_applied')) return;
    for (const [k, v] of JSON.parse(items)) if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
    sessionStorage.setItem('__runner_state_applied', '1'); } catch (e) {}
}
