// What kind of element `el` is (`{ tag, input_type, editable, role }`), as the look-up says of
// the elements it marks.
(markPicked) => (el) => markPicked([el], null).kind
