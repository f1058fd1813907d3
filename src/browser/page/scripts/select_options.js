// Whether the options `values` name in the <select> `el` can be chosen now, as Playwright's
// selectOption decides: each value names the first option whose value or label it is, and that
// option must be enabled (not disabled itself, not in a disabled <optgroup>). true, or why not
// (the action waits while an option is missing or disabled).
(el, values) => {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const options = [...el.options];
  for (const v of values) {
    const o = options.find((o) => o.value === v || o.label === v || norm(o.label) === norm(v));
    if (!o) return 'it has no option `' + v + '`';
    const group = o.parentElement;
    const inDisabledGroup = !!group && group.nodeName === 'OPTGROUP' && group.disabled;
    if (o.disabled || inDisabledGroup) return 'its option `' + v + '` is disabled';
  }
  return true;
}
