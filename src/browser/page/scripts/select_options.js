// Whether the options `values` name in the <select> `el` can be chosen now, as Playwright's
// selectOption decides: each value names the first option whose value or label it is, and that
// option must be enabled (`isDisabled`, the check `expect: enabled` uses: an option that is
// disabled itself, in a disabled <optgroup>, or aria-disabled). true, or why not (the action
// waits while an option is missing or disabled).
(isDisabled) => (el, values) => {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const options = [...el.options];
  for (const v of values) {
    const o = options.find((o) => o.value === v || o.label === v || norm(o.label) === norm(v));
    if (!o) return 'it has no option `' + v + '`';
    if (isDisabled(o)) return 'its option `' + v + '` is disabled';
  }
  return true;
}
