// `dispatch`: an event of type `type` dispatched on `el`, made with the constructor its type
// calls for (MouseEvent for click, FocusEvent for blur, KeyboardEvent for keydown, ...), its
// init `bubbles`, `cancelable` and `composed` by default, as Playwright's dispatchEvent does;
// another type is an Event (a CustomEvent when `init` gives a `detail`).
(el, type, init) => {
  const kinds = {
    MouseEvent: ['auxclick', 'click', 'contextmenu', 'dblclick', 'mousedown', 'mouseenter', 'mouseleave', 'mousemove', 'mouseout', 'mouseover', 'mouseup'],
    KeyboardEvent: ['keydown', 'keyup', 'keypress'],
    PointerEvent: ['pointerover', 'pointerout', 'pointerenter', 'pointerleave', 'pointerdown', 'pointerup', 'pointermove', 'pointercancel', 'gotpointercapture', 'lostpointercapture'],
    FocusEvent: ['focus', 'blur', 'focusin', 'focusout'],
    DragEvent: ['drag', 'dragstart', 'dragend', 'dragover', 'dragenter', 'dragleave', 'dragexit', 'drop'],
    WheelEvent: ['wheel'],
    InputEvent: ['input', 'beforeinput'],
    TouchEvent: ['touchstart', 'touchmove', 'touchend', 'touchcancel'],
  };
  const name = Object.keys(kinds).find(k => kinds[k].includes(type));
  const other = init && 'detail' in init ? CustomEvent : Event;
  const Make = name && typeof window[name] === 'function' ? window[name] : other;
  const event = new Make(type, { bubbles: true, cancelable: true, composed: true, ...init });
  el.dispatchEvent(event);
  return true;
}
