// Chooses the options `values` name in the <select> `el`, as Playwright's selectOption does
// (injectedScript `selectOptions`): the options are walked in order, and an option is chosen when
// one of the values still unchosen is its value or its label (whitespace-normalised, as runner's
// check before it finds them: `select_options.js`); a single-choice select takes the first such
// option, so a value that is one option's value and a later one's label is the earlier option.
// Then `input` and `change`, as a user's choice sends them. Returns the values chosen.
(el, values) => {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const names = (o, v) => o.value === v || o.label === v || norm(o.label) === norm(v);
  let left = values.slice();
  const chosen = [];
  for (const o of el.options) {
    if (!left.some((v) => names(o, v))) continue;
    chosen.push(o);
    if (!el.multiple) break;
    left = left.filter((v) => !names(o, v));
  }
  el.value = undefined;
  chosen.forEach((o) => { o.selected = true; });
  el.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return chosen.map((o) => o.value);
}
