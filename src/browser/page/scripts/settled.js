// The turn a page's handlers take after an action, given before what the action did is read
// back (a user sees the control after it too): the next animation frame (a re-render, or the old
// state put back in `requestAnimationFrame`), then a timer turn (put back in `setTimeout(…, 0)`,
// or in a timer the frame set). A page that draws no frames (a tab in the background) gets
// 100 ms instead of the frame. Resolves to `out` (what the command it follows answered).
(out) => new Promise((resolve) => {
  let done = false;
  const next = () => {
    if (done) return;
    done = true;
    setTimeout(() => resolve(out), 0);
  };
  requestAnimationFrame(next);
  setTimeout(next, 100);
})
