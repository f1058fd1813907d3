// Scrolls the page to its top, or (`bottom`) to its bottom.
(bottom) => document.scrollingElement.scrollTo(0, bottom ? document.scrollingElement.scrollHeight : 0)
