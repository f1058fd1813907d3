// Before an upload: records, in its window's capture phase (before the page's own handlers),
// how many files each `input` and `change` event of the file input carried, so that the
// read-back after it (file_count.js) counts what the page was given, also when its handler
// empties the input as it reads the files (`this.value = ''`, to let the same file be chosen
// again).
(el) => {
  const win = el.ownerDocument.defaultView;
  const seen = (e) => {
    if (e.target === el) el.__runnerFilesSeen = Math.max(el.__runnerFilesSeen || 0, el.files.length);
  };
  delete el.__runnerFilesSeen;
  win.addEventListener('input', seen, true);
  win.addEventListener('change', seen, true);
  el.__runnerFilesWatch = () => {
    win.removeEventListener('input', seen, true);
    win.removeEventListener('change', seen, true);
  };
  return true;
}
