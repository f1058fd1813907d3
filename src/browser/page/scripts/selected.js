// The options a <select> holds selected: `[{ value, label }]`.
(el) => [...el.selectedOptions].map((o) => ({ value: o.value, label: o.label }))
