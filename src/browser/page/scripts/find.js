// A CSS or text alternative's look-up: its elements (`elements(doc, ...query)`, null for CSS
// the page cannot parse) in the page's document or in iframe `frame`'s, then the one `nth`
// picks marked (`markPicked`), with what it reads when `read` says ('text' or 'value': what
// agent-browser's `get text` and `get value` read), so a check finds and reads in one call.
(frameDocument, elements, markPicked) => (frame, nth, query, read) => {
  if (frame !== null && !document.querySelector(frame)) return { count: 0, matches: [] };
  const doc = frameDocument(frame);
  if (!doc) return { foreign: true };
  const els = elements(doc, ...query);
  if (els === null) return { invalid: true };
  return markPicked(els, nth, read);
}
