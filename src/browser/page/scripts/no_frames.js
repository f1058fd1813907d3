// Stands for the frames rule (frames.js) in a script composed for the page's own document: such
// a script never looks for an iframe, so being asked for one is runner's mistake, said loudly.
(frame) => {
  throw new Error('runner: a script composed for the page\'s document was asked for iframe ' + frame);
}
