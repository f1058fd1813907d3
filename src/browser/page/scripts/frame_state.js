// What keeps a selector out of iframe `frame` (CSS in the page, open shadow roots included:
// `frames`): null when nothing does (no frame, or one iframe showing a page of this origin);
// else `{ invalid }` (CSS the page cannot parse), `{ missing }` (nothing matches it),
// `{ strict, matches }` (it matches several, as Playwright's frameLocator refuses),
// `{ not_frame }` (it names an element that shows no page) or `{ foreign }` (another origin).
// A match is described as runner's messages describe elements: [tag#id.classes, its name,
// title or src, false].
(frames) => (frame) => {
  if (frame === null) return null;
  const found = frames(frame);
  if (found === null) return { invalid: true };
  if (found.length === 0) return { missing: true };
  const desc = (el) => {
    let d = el.tagName.toLowerCase() + (el.id ? '#' + el.id : '');
    for (const c of [...el.classList].slice(0, 2)) d += '.' + c;
    const t = el.getAttribute('name') || el.getAttribute('title') || el.getAttribute('src') || '';
    return [d, t.slice(0, 200), false];
  };
  if (found.length > 1) return { strict: found.length, matches: found.slice(0, 5).map(desc) };
  const f = found[0];
  if (!('contentWindow' in f)) return { not_frame: [desc(f)] };
  let doc; try { doc = f.contentDocument } catch (e) {}
  return doc ? null : { foreign: true };
}
