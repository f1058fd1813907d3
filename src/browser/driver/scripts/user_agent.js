// The browser's user agent.
() => navigator.userAgent
