// The document's ready state, and the validation messages of its form controls (the bubble
// Chromium shows for one of them is browser UI, not a state of the page).
() => ({
  ready: document.readyState,
  invalid: Array.from(document.querySelectorAll('input, select, textarea'), e => e.validationMessage).filter(Boolean),
})
