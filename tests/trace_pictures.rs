//! What the pictures of a trace show (issue 29): each the page after its own step — not the
//! step before's (the browser draws a change a frame or so after it is made), nor a later one's;
//! after a navigation to another site and in a popup too. Looked at in Chromium by runner
//! itself: the report is served, and a flow reads each filmstrip picture's colour.

use std::path::Path;

use crate::common::{Ran, fixture, flow_run, step, write};

/// The colours of each flow's filmstrip in the HTML report at `report`, in the report's order
/// (see `filmstrip_colours`).
pub(crate) fn filmstrips(dir: &Path, report: &str) -> Vec<Vec<String>> {
    let joined = filmstrip_colours(dir, report).join(" ");
    joined
        .split('|')
        .map(|f| f.split_whitespace().map(String::from).collect())
        .collect()
}

/// The colour of each picture of the flows' filmstrips in the HTML report at `report`
/// (its pixel near the bottom right corner, each channel as 1 or 0: `100` is red; `+` after it
/// when the picture is marked as drawn after the next step that acts began; `|` between two
/// flows), read by a flow runner runs on the report served over HTTP (a canvas reads a picture
/// of its own origin).
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
        for (const f of document.querySelectorAll('details.flow .filmstrip .frame, details.flow + details.flow')) {{
          if (f.matches('details.flow')) {{ out.push('|'); continue; }}
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

/// The fixture that paints the page `colour` and says `name` in its console and in a request
/// that gets a 404 (again 300 ms later with `late`).
fn painted(colour: &str, name: &str) -> String {
    format!("painted.html?colour=%23{colour}&name={name}")
}

/// Two flows one after the other in one browser (one worker, a context each), each on a page
/// that logs and requests under its own name, and again 300 ms after it loads (when its flow
/// may be over and the next one running): each trace holds its own flow's messages and failed
/// requests and none of the other's, and each flow's pictures are of its own page (red, then
/// blue).
#[test]
fn a_flows_trace_holds_nothing_of_the_flow_before_it() {
    let d = tempfile::tempdir().unwrap();
    for (file, colour, name) in [("a.yaml", "ff0000", "alpha"), ("b.yaml", "0000ff", "beta")] {
        write(
            d.path(),
            file,
            &format!(
                "name: {name}\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/{}&late=1\"\n  - expect: {{ visible: {{ text: {name} }} }}\n",
                fixture("trace").display(),
                painted(colour, name)
            ),
        );
    }
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args([
            ".",
            "--jobs",
            "1",
            "--trace",
            "on",
            "--report",
            "html=report",
        ])
        .run();
    assert_eq!(code, 0, "{stderr}");
    for (flow, own, other) in [
        ("001-alpha", "alpha", "beta"),
        ("002-beta", "beta", "alpha"),
    ] {
        let path = d.path().join("art").join(flow).join("trace/trace.json");
        let text = std::fs::read_to_string(&path).unwrap();
        for said in [format!("hello from {own}"), format!("missing-{own}")] {
            assert!(text.contains(&said), "{said} not in {flow}'s trace: {text}");
        }
        assert!(!text.contains(other), "{other} in {flow}'s trace: {text}");
    }
    let strips = filmstrips(d.path(), "report");
    assert_eq!(strips, [["100", "100"], ["001", "001"]], "{strips:?}");
}

/// The trace goes on after a navigation to another site (another renderer process) and in a
/// popup the flow switches to: their pictures are of the new page and of the popup, and what
/// they log and the requests that fail there are in the steps they happened in.
#[test]
fn the_trace_goes_on_across_sites_and_into_a_popup() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "travels.yaml",
        &format!(
            r##"name: travels
web_server: {{ static: "{}" }}
steps:
  - open: "{{{{ web_server.url }}}}/{}"
  - open: "{{{{ web_server.url | replace('127.0.0.1', 'localhost') }}}}/{}"
  - wait: 300ms
  - click: "#green"
  - wait: 300ms
  - click: "#popup"
  - tab: {{ switch: last }}
  - expect: {{ text: {{ target: h1, equals: popup }} }}
  - wait: 300ms
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 1s
"##,
            fixture("trace").display(),
            painted("ff0000", "first"),
            painted("0000ff", "second"),
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args(["travels.yaml", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    let text = std::fs::read_to_string(d.path().join("art/001-travels/trace/trace.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = trace["steps"].as_array().unwrap();
    let said = |i: usize| steps[i].to_string();
    assert!(
        said(1).contains("hello from second") || said(2).contains("hello from second"),
        "{text}"
    );
    assert!(
        said(1).contains("missing-second") || said(2).contains("missing-second"),
        "{text}"
    );
    let popup: String = steps[5..].iter().map(ToString::to_string).collect();
    assert!(popup.contains("hello from popup"), "{text}");
    assert!(popup.contains("missing-popup"), "{text}");
    let strips = filmstrips(d.path(), "report");
    let own = [
        "100", "001", "001", "010", "010", "010", "110", "110", "110", "110",
    ];
    let shown = &strips[0];
    assert_eq!(shown.len(), own.len(), "{shown:?}");
    for (i, s) in shown.iter().enumerate() {
        match s.strip_suffix('+') {
            None => assert_eq!(s, own[i], "picture {i} of {shown:?}"),
            Some(c) => assert!(own[i..].contains(&c), "picture {i} of {shown:?}"),
        }
    }
    for i in [2, 4, 7, 8] {
        assert_eq!(shown[i], own[i], "picture {i} of {shown:?}");
    }
}

/// `retain-on-failure` (the default): a failed flow's pictures are snapshots of its page drawn
/// at its end, each the page's live state after its step — a value typed in a field and a box
/// checked (which its stylesheet, a file of its own, colours: red, then green), a class a
/// click added (blue) — and never what the page shows where scripts do not run (its
/// `<noscript>`, yellow), nor what its script would undo if it ran again. A step that only
/// reads the page shows the page of the step before. A passing flow beside it writes nothing.
#[test]
fn a_failed_flows_snapshots_show_the_live_state_after_each_step() {
    let d = tempfile::tempdir().unwrap();
    let server = format!(
        "web_server: {{ static: \"{}\" }}",
        fixture("trace").display()
    );
    write(
        d.path(),
        "a.yaml",
        &format!(
            r##"name: state
{server}
steps:
  - open: "{{{{ web_server.url }}}}/state.html"
  - fill: {{ target: "#field", value: typed }}
  - check: "#box"
  - expect: {{ visible: {{ text: Box }} }}
  - click: "#paint"
  - expect: {{ visible: {{ text: "Nothing like this" }} }}
    timeout: 300ms
"##
        ),
    );
    write(
        d.path(),
        "b.yaml",
        &format!(
            "name: fine\n{server}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/state.html\"\n  - check: \"#box\"\n"
        ),
    );
    let Ran { code, stderr, .. } = flow_run(d.path())
        .args([".", "--jobs", "1", "--report", "html=report"])
        .run();
    assert_eq!(code, 1, "{stderr}");
    assert!(d.path().join("art/001-state/trace/trace.json").is_file());
    assert!(!d.path().join("art/002-fine/trace").exists());
    let strips = filmstrips(d.path(), "report");
    assert_eq!(
        strips[0],
        ["111", "100", "010", "010", "001", "001"],
        "{strips:?}"
    );
}
