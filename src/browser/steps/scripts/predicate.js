// The `js` check (`expect: { js }`, `wait: { js }`): the user's expression `expr` evaluated in
// the page's global scope with `args` (JSON) in scope as `args`; an expression that gives a
// function is called with `args` (as Playwright's waitForFunction does with a function's
// text); a promise is awaited up to `ms`. Answers { truthy, value } (a preview of the value),
// { threw } with what an exception says (each with `more`: see `bounded`), { pending } for a promise still unsettled after `ms`,
// or { csp } when the page's Content-Security-Policy forbids evaluating text as code.
async (expr, args, ms) => {
  // A value or a message as it is, up to BOUND characters (`more`: there was more). runner
  // masks it, then cuts it: never here (a secret across a cut made before masking would show
  // its head).
  const BOUND = 65536;
  let more = false;
  const bounded = s => { if (s.length > BOUND) { more = true; return s.slice(0, BOUND); } return s; };
  const preview = v => {
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return 'a function';
    let s;
    try { s = JSON.stringify(v) } catch (e) { s = undefined }
    if (s === undefined) s = String(v);
    return bounded(s);
  };
  const said = e => (e instanceof Error ? bounded(String(e)) : 'threw ' + preview(e));
  let f;
  try {
    f = new Function('args', 'return (' + expr + '\n)');
  } catch (e) {
    return e instanceof EvalError ? { csp: String(e.message || e) } : { threw: said(e), more };
  }
  let v;
  try {
    v = f(args);
    if (typeof v === 'function') v = v(args);
    const late = {};
    v = await Promise.race([v, new Promise(r => setTimeout(() => r(late), ms))]);
    if (v === late) return { pending: true };
  } catch (e) {
    return { threw: said(e), more };
  }
  return { truthy: !!v, value: preview(v), more };
}
