// Run in every new document of a context: puts back the localStorage a saved state holds for
// the document's origin (`saved`: origin -> [[key, value], ...]), once per tab (sessionStorage
// remembers it), never over a key the page has set since.
(saved) => {
  const items = saved[location.origin]; if (!items) return;
  try { if (sessionStorage.getItem('__runner_state_applied')) return;
    for (const [k, v] of items) if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
    sessionStorage.setItem('__runner_state_applied', '1'); } catch (e) {}
}
