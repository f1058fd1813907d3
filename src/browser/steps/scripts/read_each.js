// What a list check reads of one element: its text (`'texts'`: as the look-ups read it,
// `elementText`: the DOM's text, not CSS `text-transform`'s; else its textContent where it is
// drawn) or its class
// attribute (`'classes'`: '' when it has none).
(elementText) => (el, what) => what === 'texts' ? elementText(el).checked(el) : (el.getAttribute('class') || '')
