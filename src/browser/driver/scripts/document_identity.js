// The identity of the document: a new one after every navigation.
() => String(performance.timeOrigin) + ' ' + location.href
