// `href` resolved against the page's URL; null when it is not a URL.
(href) => { try { return new URL(href, location.href).href; } catch (e) { return null; } }
