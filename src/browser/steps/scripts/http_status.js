// The HTTP status of the page's document (0 when the browser does not say).
() => { const n = performance.getEntriesByType('navigation')[0]; return n ? n.responseStatus || 0 : 0 }
