// Whether `el` is disabled: natively (`:disabled`, a disabled fieldset included) or by
// `aria-disabled` on it or an ancestor (Playwright's rule).
(el) => el.matches(':disabled') || !!el.closest('[aria-disabled="true"]')
