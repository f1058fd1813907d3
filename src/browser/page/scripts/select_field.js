// A plain field (an input or a textarea) made ready for the text a fill inserts, as Playwright's
// fill prepares one: the action's check (`check(el, ...args)`: visible, enabled, editable,
// focused), then all its text selected, so the text inserted next replaces it as typing over a
// selection does. true, or why not; for the input of a code editor that keeps its text elsewhere
// (`editorOf`), `{ editor }` with the input focused and nothing selected: the editor selects its
// own text on its select-all key.
(check, editorOf) => (el, ...args) => {
  const ok = check(el, ...args);
  if (ok !== true) return ok;
  const editor = editorOf(el);
  if (editor) return { editor: editor.name, mac: /Mac/.test(navigator.platform) };
  el.select();
  return true;
}
