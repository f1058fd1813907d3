// `check(...args)` as a step of a batch of commands: throws (failing the batch) with `prefix`
// and why, unless the check gives true. A check that gives null found no element.
(check) => (prefix, ...args) => {
  const ok = check(...args);
  if (ok !== true) throw new Error(prefix + (ok || 'it is gone from the page'));
  return true;
}
