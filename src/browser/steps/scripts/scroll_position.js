// The window's scroll position, in whole pixels.
() => ({ x: Math.round(window.scrollX), y: Math.round(window.scrollY) })
