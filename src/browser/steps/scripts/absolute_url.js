// `href` resolved against the page's URL; null when it is not a URL, or when following it loads
// nothing (a `javascript:` URL, a fragment of this same page: `#`, `#top`): such a link's
// download, if any, is one its script makes (a Blob), whose URL is not the link's.
(href) => {
  let url;
  try { url = new URL(href, location.href); } catch (e) { return null; }
  if (url.protocol === 'javascript:') return null;
  const here = new URL(location.href);
  if (url.hash !== '' || href.trim().startsWith('#')) {
    url.hash = ''; here.hash = '';
    if (url.href === here.href) return null;
  }
  return new URL(href, location.href).href;
}
