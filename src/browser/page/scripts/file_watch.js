// Before an upload: records, in its window's capture phase (before the page's own handlers),
// how many files each `input` and `change` event of the file input carried, so that the
// read-back after it (file_count.js) counts what the page was given, also when its handler
// empties the input as it reads the files (`this.value = ''`, to let the same file be chosen
// again). One pair of listeners per window, put there once and recording only for an input
// marked as watched (file_count.js unmarks it): an upload that fails before its read-back
// leaves no listener behind it.
(el) => {
  const win = el.ownerDocument.defaultView;
  if (!Object.prototype.hasOwnProperty.call(win, '__runnerFilesWatch')) {
    const seen = (e) => {
      const t = e.composedPath ? e.composedPath()[0] : e.target;
      if (t && t.__runnerFilesWatched) t.__runnerFilesSeen = Math.max(t.__runnerFilesSeen || 0, t.files ? t.files.length : 0);
    };
    win.addEventListener('input', seen, true);
    win.addEventListener('change', seen, true);
    Object.defineProperty(win, '__runnerFilesWatch', { value: seen });
  }
  delete el.__runnerFilesSeen;
  el.__runnerFilesWatched = true;
  return true;
}
