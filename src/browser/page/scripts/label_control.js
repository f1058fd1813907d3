// The control a <label> labels (its `for=`, or the control it wraps), marked with runner's
// handle as `markPicked` marks a match; null when the label labels nothing.
(markPicked) => (el) => (el.control ? markPicked([el.control], null) : null)
