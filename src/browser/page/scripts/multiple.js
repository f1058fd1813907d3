// Whether `el` is a <select> that takes several values.
(el) => el.multiple === true
