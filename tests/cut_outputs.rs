//! C15 (attack 26): a check on an output runner cut (an `exec`'s past 1 MiB, a `request`'s body
//! past 16 MiB) passed on the part kept: `'ERROR' not in steps.build.stdout` with the error
//! printed after the first MiB, a body `matches: "^a+$"` with ` FATAL ERROR` after 16 MiB. Now a
//! check that reads a cut text fails, naming the cut; one that reads only what is whole
//! (`exit_code`, `status`, `truncated`) is unaffected.

use crate::common::{Ran, flow_run, write};

fn failed_step<'a>(report: &'a serde_json::Value, flow: &str, index: usize) -> &'a str {
    let f = report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == flow)
        .unwrap_or_else(|| panic!("{flow}: {report:#}"));
    let step = &f["steps"][index];
    assert_eq!(step["outcome"], "failed", "{flow}: {step:#}");
    step["error"]["message"].as_str().unwrap_or("")
}

#[test]
fn a_check_on_a_cut_exec_output_fails_naming_the_cut() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "f.yaml",
        r#"name: build log
steps:
  - id: build
    exec: [python3, -c, "import sys; sys.stdout.write('compiling ok\\n' * 120000); print('ERROR: 3 tests failed')"]
  - expect: { that: "{{ steps.build.exit_code == 0 and steps.build.truncated }}" }
  - continue_on_error: true
    expect: { that: "{{ 'ERROR' not in steps.build.stdout }}" }
  - expect: { that: "{{ 'compiling' in steps.build['stdout'] }}" }
"#,
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let steps = &report["flows"][0]["steps"];
    assert_eq!(steps[1]["outcome"], "passed", "{report:#}");
    for i in [2, 3] {
        let message = failed_step(&report, "build log", i);
        assert!(
            message.contains("steps.build") && message.contains("was cut"),
            "{message}"
        );
    }
}

#[test]
fn a_check_on_a_cut_request_body_fails_naming_the_cut() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let mut big = vec![b'a'; 17 * 1024 * 1024];
    big.extend_from_slice(b" FATAL ERROR");
    std::fs::write(site.join("big.txt"), big).unwrap();
    write(
        d.path(),
        "r.yaml",
        &format!(
            r#"name: big body
web_server: {{ static: "{}" }}
steps:
  - id: r
    continue_on_error: true
    request:
      url: "{{{{ web_server.url }}}}/big.txt"
      expect:
        status: 200
        body: {{ not_equals: "x", matches: "^a+$" }}
  - expect: {{ that: "{{{{ steps.r.status == 200 and steps.r.truncated }}}}" }}
  - expect: {{ that: "{{{{ steps.r.body | length > 0 }}}}" }}
"#,
            site.display()
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("r.yaml").run();
    assert_eq!(code, 1, "{report:#}");
    let message = failed_step(&report, "big body", 0);
    assert!(
        message.contains("body") && message.contains("cut at 16 MiB"),
        "{message}"
    );
    assert_eq!(
        report["flows"][0]["steps"][1]["outcome"], "passed",
        "{report:#}"
    );
    let message = failed_step(&report, "big body", 2);
    assert!(
        message.contains("steps.r") && message.contains("was cut"),
        "{message}"
    );
}
