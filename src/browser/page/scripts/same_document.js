// Whether the page is still in the document mark_document.js marked (false: it loaded another).
() => window.__runnerSelecting === true
