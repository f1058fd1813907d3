// Before a pointer action (Playwright's actionability and hit-target check): the element
// must be able to take it (`actionable`) and get the event at its click point (the centre of
// its box, scrolled into view as agent-browser scrolls it, which then clicks there). Then a
// one-shot guard is armed on the element's window, in the capture phase: when the element
// moved before the input (`rec.settle`: its box not the same a frame later), or the action's
// first event reaches another element, the whole action is stopped (so a misdirected click
// does nothing) and noted, and `hit_verify` reads what happened (the guard's `handle` names
// it).
//
// The element: the one runner's handle `handle` names (`via` null); the arm throws `prefix` +
// why when it cannot take the action now. Or, for an element runner reaches only through
// agent-browser (a ref, `@e5`), the one agent-browser dispatches an event of type `via` on
// next, in the same batch: the arm then happens as that event arrives, and an element that
// cannot take the action gets a guard that stops every event of the action, and `hit_verify`
// throws why (the `prefix` + why). So a ref costs one command more than a handle, not a
// look-up of its box first.
(frameDocument, actionable) => (prefix, frame, handle, command, via) => {
  const doc = frameDocument(frame);
  const fail = (why) => { throw new Error(prefix + why); };
  if (!doc) fail('it is gone from the page');
  const win = doc.defaultView;
  if (win.__runnerHit) win.__runnerHit.off();
  const types = command === 'hover'
    ? ['pointermove', 'mousemove', 'pointerover', 'mouseover']
    : ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick'];
  const noun = { dblclick: 'double click', hover: 'pointer' }[command] || 'click';
  const last = command === 'dblclick' ? 'dblclick' : 'click';
  const same = (a, b) => a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
  // Up the composed tree, where the browser hit-tests: a slotted node's parent is its slot
  // (as Playwright's `expectHitTarget` climbs), then a shadow root's is its host.
  const up = (n) => n.assignedSlot || n.parentNode || n.host || null;
  // HTML's interactive content: a click on it inside a label does not reach the label's
  // control (the label's activation skips it).
  const interactive = 'a[href], area[href], button, details, embed, iframe, img[usemap], '
    + 'input:not([type=hidden]), label, select, textarea, audio[controls], video[controls]';
  // An element a message names, for runner to describe (`page::described`): between \u0001
  // and \u0002, the JSON of [its tag, id and first two classes, its text (a field's value,
  // never a password's; else its label) as it is up to 4096 characters, whether there is
  // more]. runner masks the text, then cuts it: never here (a secret across a cut made before
  // masking would show its head).
  const describe = (n) => {
    let d = n.tagName.toLowerCase() + (n.id ? '#' + n.id : '');
    for (const c of [...n.classList].slice(0, 2)) d += '.' + c;
    const value = n.type === 'password' ? '' : n.value;
    const t = String(n.innerText || value || n.getAttribute('aria-label') || '');
    return '\u0001' + JSON.stringify([d, t.slice(0, 4096), t.length > 4096]) + '\u0002';
  };
  const rec = { handle, noun, el: null, got: [], missed: null, moved: false, notReady: null };
  let guard = null;
  const unlisten = () => { if (guard) for (const t of types) win.removeEventListener(t, guard, true); };
  rec.off = () => { unlisten(); delete win.__runnerHit; };
  const listen = (g) => { guard = g; for (const t of types) win.addEventListener(t, g, true); };
  // Checks `el` and arms the guard on it; throws `prefix` + why when it cannot take the action.
  const arm = (el) => {
    const ok = actionable(el, command !== 'hover', false, false);
    if (ok !== true) fail(ok);
    if (el.scrollIntoViewIfNeeded) el.scrollIntoViewIfNeeded(true);
    const box = el.getBoundingClientRect();
    const inside = (n) => { for (let m = n; m; m = up(m)) if (m === el) return true; return false; };
    // A click on a label reaches its control: the label is a fine receiver for it, and so is
    // what it holds, but for interactive content (a button in the label takes its own click).
    const viaLabel = (n) => {
      for (let m = n; m && m.nodeType === 1; m = m.parentElement) {
        if (m.tagName === 'LABEL') return m.control === el;
        if (m.matches(interactive)) return false;
      }
      return false;
    };
    const takes = (n) => inside(n) || (n && n.nodeType === 1 && viaLabel(n));
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
    rec.el = el;
    // Stable, as Playwright's: the same box now and a frame later,
    // before the input (`settle`, which the batch awaits right before it). The hit target is
    // judged at the action's first event, and the rest of the action follows that verdict,
    // as Playwright's: what the press itself does to the element (a :active look, a label
    // that changes on pointerdown) is the page's answer to it, never a reason to stop it or
    // send it again. An action that meets a moving element, or whose first event reaches
    // another one, has all its events stopped, and is retried.
    let verdict = null;
    // A page that is not shown (a tab behind another, as a popup leaves it) renders no
    // frames: nothing there moves between them. A frame that does not come within 100 ms
    // (a busy page) is not waited for longer.
    const frame = () => new Promise((resolve) => {
      if (doc.hidden) return resolve();
      requestAnimationFrame(() => resolve());
      setTimeout(resolve, 100);
    });
    // The box read as the guard armed, in this batch, against the box a frame later: the
    // same over that frame is Playwright's "stable" (two rAF samples, one frame apart).
    rec.settle = async () => {
      await frame();
      if (verdict === null && !same(box, el.getBoundingClientRect())) {
        rec.moved = true;
        verdict = false;
      }
      return true;
    };
    listen((e) => {
      const t = (e.composedPath && e.composedPath()[0]) || e.target;
      if (verdict === null) {
        verdict = Boolean(t && t.nodeType === 1 && takes(t));
        if (!verdict) rec.missed = t && t.nodeType === 1 ? describe(t) : String(t);
      }
      if (verdict) {
        rec.got.push(e.type);
        // The action's last event reached the element: the guard stops listening (`hit_verify`
        // still reads `rec`), so nothing after it — a key press on a button, when the action
        // opened a dialog and no verification comes — is ever stopped by it.
        if (command === 'hover' || e.type === last) unlisten();
        return;
      }
      e.preventDefault();
      e.stopImmediatePropagation();
    });
  };
  win.__runnerHit = rec;
  if (via === null) {
    const el = doc.querySelector(handle);
    if (!el) { rec.off(); fail('it is gone from the page'); }
    try { arm(el); } catch (e) { rec.off(); throw e; }
    return true;
  }
  // Armed when agent-browser's event names the element; until then, nothing is guarded.
  const take = (e) => {
    win.removeEventListener(via, take, true);
    e.stopImmediatePropagation();
    const el = (e.composedPath && e.composedPath()[0]) || e.target;
    try {
      arm(el);
    } catch (err) {
      // It cannot take the action now: the action's events are all stopped, and
      // `hit_verify` says why.
      rec.notReady = String(err.message || err);
      unlisten();
      listen((ev) => { ev.preventDefault(); ev.stopImmediatePropagation(); });
    }
  };
  win.addEventListener(via, take, true);
  rec.off = () => { win.removeEventListener(via, take, true); unlisten(); delete win.__runnerHit; };
  return true;
}
