// How many files a file input holds.
(el) => el.files.length
