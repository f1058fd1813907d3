// Before a pointer action (Playwright's actionability and hit-target check): the element
// `handle` names must be able to take it (`actionable`) and get the event at its click point
// (the centre of its box, scrolled into view as agent-browser scrolls it, which then clicks
// there). Then a one-shot guard is armed on the element's window, in the capture phase: an
// event of the action that reaches another element, or meets the element moved (not stable
// over two animation frames), is stopped (so a misdirected click does nothing) and noted, and
// `hit_verify` reads what happened. Throws `prefix` + why when the element cannot take the
// action now.
(frameDocument, actionable) => (prefix, frame, handle, command) => {
  const doc = frameDocument(frame);
  const el = doc && doc.querySelector(handle);
  const fail = (why) => { throw new Error(prefix + why); };
  if (!el) fail('it is gone from the page');
  const ok = actionable(el, command !== 'hover', false, false);
  if (ok !== true) fail(ok);
  if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true);
  const same = (a, b) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  const box = el.getBoundingClientRect();
  const up = (n) => n.parentNode || n.host || null;
  const inside = (n) => { for (let m = n; m; m = up(m)) if (m === el) return true; return false; };
  // A click on a label reaches its control: the label is a fine receiver for it.
  const takes = (n) => inside(n) || (n && n.closest && (l => l && l.control === el)(n.closest('label')));
  const describe = (n) => {
    let d = n.tagName.toLowerCase() + (n.id ? '#' + n.id : '');
    for (const c of [...n.classList].slice(0, 2)) d += '.' + c;
    const t = (n.innerText || n.value || n.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 40);
    return t ? d + ' "' + t + '"' : d;
  };
  const noun = { dblclick: 'double click', hover: 'pointer' }[command] || 'click';
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  let hit = doc.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) fail('its click point is outside the page');
  if (!takes(hit)) fail(describe(hit) + ' would receive the ' + noun + ' instead');
  const win = doc.defaultView;
  if (win.__runnerHit) win.__runnerHit.off();
  const types = command === 'hover'
    ? ['pointermove', 'mousemove', 'pointerover', 'mouseover']
    : ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick'];
  const rec = { handle, noun, got: [], missed: null, moved: false };
  // Stable: the same box now, at the next animation frame and when the input arrives. The
  // input itself takes a frame, so checking then (rather than waiting a frame before it)
  // adds no frame to a click; an input that meets a moving element is stopped and retried.
  const moved = () => { if (!rec.moved && !same(box, el.getBoundingClientRect())) rec.moved = true; return rec.moved; };
  requestAnimationFrame(moved);
  const guard = (e) => {
    const t = (e.composedPath && e.composedPath()[0]) || e.target;
    const on = t && t.nodeType === 1 && takes(t);
    if (on && !moved()) {
      rec.got.push(e.type);
      // The action's last event reached the element: the guard stops listening (`hit_verify`
      // still reads `rec`), so nothing after it — a key press on a button, when the action
      // opened a dialog and no verification comes — is ever stopped by it.
      if (command === 'hover' || e.type === last) unlisten();
      return;
    }
    if (!on && !rec.missed) rec.missed = t && t.nodeType === 1 ? describe(t) : String(t);
    e.preventDefault();
    e.stopImmediatePropagation();
  };
  const last = command === 'dblclick' ? 'dblclick' : 'click';
  const unlisten = () => { for (const t of types) win.removeEventListener(t, guard, true); };
  for (const t of types) win.addEventListener(t, guard, true);
  rec.off = () => { unlisten(); delete win.__runnerHit; };
  win.__runnerHit = rec;
  return true;
}
