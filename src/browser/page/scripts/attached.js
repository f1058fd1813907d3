// Whether the element is still in its document (`on_element` gives null when it is not there).
(el) => el.isConnected
