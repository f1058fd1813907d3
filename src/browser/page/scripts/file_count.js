// How many files a file input took: what it holds, or, when its page emptied it as it read them,
// what its events carried (recorded by file_watch.js before the upload). The input is no longer
// watched after it.
(el) => {
  const seen = el.__runnerFilesSeen || 0;
  delete el.__runnerFilesWatched;
  delete el.__runnerFilesSeen;
  return el.files.length > 0 ? el.files.length : seen;
}
