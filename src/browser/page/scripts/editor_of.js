// The code editor `el` is the input of, when it is one whose input is not where the editor keeps
// its text: CodeMirror 5's hidden textarea (or its contenteditable, as the editor's own input
// field), Monaco's and Ace's hidden textareas. `{ name, text() }`, text() being the editor's text
// (through its API, else its rendered lines, what the user sees); null for any other element.
(el) => {
  const lines = (root, css, top) => {
    const all = [...root.querySelectorAll(css)];
    if (top) all.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return all.map((l) => l.textContent.replace(/\u00a0/g, ' ').replace(/\u200b/g, '')).join('\n');
  };
  const cm = el.closest('.CodeMirror');
  const cm5 = cm && cm.CodeMirror;
  if (cm5 && typeof cm5.getInputField === 'function' && cm5.getInputField() === el) {
    return { name: 'CodeMirror', text: () => cm5.getValue('\n') };
  }
  const monaco = el.matches('textarea.inputarea, .native-edit-context') && el.closest('.monaco-editor');
  if (monaco) {
    const api = window.monaco && window.monaco.editor && window.monaco.editor.getEditors;
    const ed = api ? window.monaco.editor.getEditors().find((e) => { const n = e.getDomNode(); return n && (n.contains(monaco) || monaco.contains(n)); }) : null;
    return { name: 'Monaco', text: () => (ed ? ed.getValue() : lines(monaco, '.view-lines .view-line', true)) };
  }
  const ace = el.matches('textarea.ace_text-input') && el.closest('.ace_editor');
  if (ace) {
    const ed = ace.env && ace.env.editor;
    return { name: 'Ace', text: () => (ed ? ed.getValue() : lines(ace, '.ace_line', false)) };
  }
  return null;
}
