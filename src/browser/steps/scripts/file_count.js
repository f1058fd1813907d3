// How many files the file input runner's handle `handle` names holds.
(handle) => document.querySelector(handle).files.length
