//! Runner's handle on an element (`data-runner-sel`, what agent-browser is told to act on)
//! names the element the selector picked, even when the page copies an element runner marked
//! before (attack 31, G4: the copy carried the same handle, which names the first of them, so
//! `fill` of the second address row overwrote the first, and a click on the copied button
//! clicked the original, each reported `ok`). `tests/fixtures/clones/index.html`.

use crate::common::{Ran, fixture, flow_run, write};

/// A flow serving `tests/fixtures` that opens the clones page, with `steps` appended.
fn flow(steps: &str) -> String {
    format!(
        "name: clones\nweb_server: {{ static: \"{}\" }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/clones/index.html\"\n{steps}",
        fixture("").display()
    )
}

/// The copy of a filled row is filled as the copy, the original keeps its value; a click on a
/// copied button (by `nth`, from the start and from the end) reaches that button.
#[test]
fn an_element_the_page_copied_is_acted_on_not_its_original() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - fill: { target: input.street, value: 1 Main St }
  - click: "#more"
  - fill: { target: { css: input.street, nth: 1 }, value: 2 Side Rd }
  - click: "#more"
  - fill: { target: { css: input.street, nth: -1 }, value: 3 Far Lane }
  - expect: { value: { target: { css: input.street, nth: 0 }, equals: 1 Main St } }
  - expect: { value: { target: { css: input.street, nth: 1 }, equals: 2 Side Rd } }
  - expect: { value: { target: { css: input.street, nth: 2 }, equals: 3 Far Lane } }
  - click: .pick
  - expect: { text: { target: "#out", equals: clicked 1 } }
  - click: "#another"
  - click: { css: .pick, nth: 1 }
  - expect: { text: { target: "#out", equals: clicked 2 } }
  - click: "#another"
  - click: { css: .pick, nth: -1 }
  - expect: { text: { target: "#out", equals: clicked 3 } }
  - click: { role: button, text: Pick, nth: 1 }
  - expect: { text: { target: "#out", equals: clicked 2 } }
  - click: { css: .pick, nth: 0 }
  - expect: { text: { target: "#out", equals: clicked 1 } }
"##;
    write(d.path(), "f.yaml", &flow(steps));
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    let all = report["flows"][0]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no report:\n{stderr}"));
    assert_eq!(all.len(), 21, "{stderr}");
    for s in all {
        assert_eq!(s["outcome"], "passed", "{s}\n{stderr}");
    }
}
