// What a field holds after a fill: an input's or textarea's value, a contenteditable's text; for
// the input of a code editor that keeps its text elsewhere (`editorOf`: CodeMirror 5's hidden
// textarea), the editor's text, as `{ editor, text }`.
(editorOf) => (el) => {
  const editor = editorOf(el);
  if (editor) return { editor: editor.name, text: editor.text() };
  return el.isContentEditable ? el.innerText.replace(/\u00a0/g, ' ').replace(/\n$/, '') : el.value;
}
