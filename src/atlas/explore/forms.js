// The page's forms, for explore's own form todos: each form's visible fields with a name or an
// id (name, id, type, required, min) and its submit button's text.
() =>
  [...document.forms].map(f => ({
    fields: [...f.elements].filter(e => (e.name || e.id) && (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA')
        && !['hidden', 'submit', 'button', 'reset', 'image', 'file', 'checkbox', 'radio'].includes(e.type)
        && (e.offsetParent !== null || e.getClientRects().length))
      .map(e => ({ name: e.name, id: e.id, type: (e.type || 'text').toLowerCase(), required: e.required, min: e.min || '' })),
    submit: ((f.querySelector('button:not([type=button]):not([type=reset]), input[type=submit]') || {}).innerText
      || (f.querySelector('input[type=submit]') || {}).value || '').trim(),
  }))
