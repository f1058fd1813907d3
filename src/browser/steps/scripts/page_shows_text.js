// Whether the page's text holds `text`.
(text) => document.body ? document.body.innerText.includes(text) : false
