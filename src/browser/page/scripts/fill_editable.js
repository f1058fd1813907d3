// Fills a contenteditable element as typing would: its contents selected, then replaced by
// `value` through the editing commands (deleted for ''), so the page's input handlers see it.
(el, value) => {
  el.focus();
  const doc = el.ownerDocument;
  const range = doc.createRange();
  range.selectNodeContents(el);
  const sel = doc.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  doc.execCommand(value === '' ? 'delete' : 'insertText', false, value);
  return true;
}
