// The elements iframe CSS `frame` names in the page: matched as an element selector's CSS is
// (`cssElements`), inside open shadow roots too, as Playwright's frameLocator looks (an
// embedded payment or video widget shipped as a web component keeps its iframe in its shadow
// root); null when the page cannot parse the CSS.
(cssElements) => (frame) => cssElements(document, frame, null, false)
