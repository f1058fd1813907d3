// A read-back (`fn`, a script about one element: `on_element`'s) run once the page had the turn
// `settled` gives it after the action, and the element looked up then.
(settled, fn) => async (...args) => {
  await settled(true);
  return fn(...args);
}
