// What a field holds after a fill: an input's or textarea's value, a contenteditable's text.
(el) => (el.isContentEditable ? el.innerText.replace(/\u00a0/g, ' ').replace(/\n$/, '') : el.value)
