// An `eval` step's value, measured in the page before it is sent: called with the value of
// the step's expression (a promise is awaited). A string longer than C characters, or a value
// whose JSON text is, is sent as its first C characters (`c`) and its length (`n`); any other
// as it is (`v`), as `returnByValue` sends it. See `steps::reads::eval`.
async (p) => {
  const v = await p;
  const C = 1048576;
  if (typeof v === 'string') {
    return v.length > C ? { c: v.slice(0, C), n: v.length } : { v };
  }
  let t;
  try {
    t = JSON.stringify(v);
  } catch (e) {
    return { v };
  }
  return typeof t === 'string' && t.length > C ? { c: t.slice(0, C), n: t.length } : { v };
}
