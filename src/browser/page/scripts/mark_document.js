// Marks the document a `select` acts in, before the action (see same_document.js).
() => { window.__runnerSelecting = true; return true; }
