// Whether `el` is hidden: no box, or `visibility: hidden` (as actionability reads it).
(el) => {
  const box = el.getBoundingClientRect();
  return !(box.width > 0 && box.height > 0) || getComputedStyle(el).visibility !== 'visible';
}
