//! What the pictures of a trace show (issue 29): each the page after its own step — not the
//! step before's (the browser draws a change a frame or so after it is made), nor a later one's;
//! after a navigation to another site and in a popup too. Looked at in Chromium by runner
//! itself: the report is served, and a flow reads each filmstrip picture's colour.

use std::path::Path;

use crate::common::{Ran, fixture, flow_run, step, write};

/// The colour of each picture of the first flow's filmstrip in the HTML report at `report`
/// (its pixel near the bottom right corner, each channel as 1 or 0: `100` is red; `+` after it
/// when the picture is marked as drawn after the next step that acts began), read by a flow
/// runner runs on the report served over HTTP (a canvas reads a picture of its own origin).
fn filmstrip_colours(dir: &Path, report: &str) -> Vec<String> {
    write(
        dir,
        "look.yaml",
        &format!(
            r##"name: look at the pictures
web_server: {{ static: "{report}" }}
steps:
  - open: "{{{{ web_server.url }}}}/index.html"
  - id: colours
    eval: |
      (async () => {{
        const out = [];
        for (const f of document.querySelectorAll('details.flow .filmstrip .frame')) {{
          const i = f.querySelector('img');
          if (!i) {{ out.push('none'); continue; }}
          await i.decode();
          const c = document.createElement('canvas');
          c.width = i.naturalWidth;
          c.height = i.naturalHeight;
          const g = c.getContext('2d');
          g.drawImage(i, 0, 0);
          const d = g.getImageData(c.width - 4, c.height - 4, 1, 1).data;
          const later = f.classList.contains('later') ? '+' : '';
          out.push([d[0], d[1], d[2]].map(v => (v > 128 ? '1' : '0')).join('') + later);
        }}
        return out.join(' ');
      }})()
"##
        ),
    );
    let report = flow_run(dir).arg("look.yaml").passes();
    step(&report, "colours")["outputs"]["value"]
        .as_str()
        .unwrap()
        .split(' ')
        .map(String::from)
        .collect()
}

/// Each picture shows the page after its own step, whatever the action (a click, a fill, a
/// key, a wait or an assertion after them): white after the page opens, red and green after
/// the clicks (green after the wait and the check of the count), magenta after the fill, black
/// after Enter, blue after the last click, and the failure screenshot blue. Never the colour
/// of a step before (the frame the browser had drawn when the step ended). When the browser
/// drew no frame between a step and the next one that acts (they follow at once; it skips
/// frames when busy), the picture is marked, and shows its step's colour or a later one's. The
/// click followed by a wait, the wait and the assertion after it have a frame of their own
/// (the page's spinner keeps the browser drawing): never marked.
#[test]
fn each_picture_shows_the_page_after_its_own_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "colours.yaml",
        &format!(
            r##"name: colours
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/colours.html"
  - click: "#next"
  - click: "#next"
  - wait: 300ms
  - expect: {{ text: {{ target: "#clicks", equals: "2" }} }}
  - fill: {{ target: "#colour", value: magenta }}
  - press: Enter
  - click: "#next"
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##,
            fixture("trace").display()
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args(["colours.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let shown = filmstrip_colours(d.path(), "report");
    let own = [
        "111", "100", "010", "010", "010", "101", "000", "001", "001",
    ];
    assert_eq!(shown.len(), own.len(), "{shown:?}");
    for (i, s) in shown.iter().enumerate() {
        match s.strip_suffix('+') {
            None => assert_eq!(s, own[i], "picture {i} of {shown:?}"),
            Some(c) => assert!(
                own[i..].contains(&c),
                "picture {i} of {shown:?}: not its step's colour nor a later one's"
            ),
        }
    }
    for i in [2, 3, 4] {
        assert_eq!(shown[i], own[i], "picture {i} of {shown:?}");
    }
}
