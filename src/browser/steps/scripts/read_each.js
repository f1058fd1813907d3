// What a list check reads of one element: its text (`'texts'`: innerText, else textContent)
// or its class attribute (`'classes'`: '' when it has none).
(el, what) => what === 'texts' ? (el.innerText || el.textContent || '') : (el.getAttribute('class') || '')
