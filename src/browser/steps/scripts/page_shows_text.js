// Whether the page's text holds `text`, both whitespace-normalised as Playwright compares
// texts (a no-break space, a newline and a run of spaces are one space).
(text) => {
  const norm = s => (s || '').replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
  return document.body ? norm(document.body.innerText).includes(norm(text)) : false;
}
