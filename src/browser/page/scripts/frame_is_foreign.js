// Whether iframe `frame` (CSS in the page) is there and shows a page of another origin.
(frameDocument) => (frame) => !!document.querySelector(frame) && !frameDocument(frame)
