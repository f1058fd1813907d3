// Whether `el` refuses typed text: read-only, natively or by `aria-readonly`.
(el) => el.readOnly === true || el.getAttribute('aria-readonly') === 'true'
