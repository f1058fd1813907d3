//! Dialogs in either order: a `dialog` step before the action that opens the dialog arms the
//! answer for the next one (as Playwright's `page.once('dialog')`); after it, it answers the
//! dialog that opened. For alert, confirm, prompt (with text) and beforeunload.

use serde_json::Value;

use crate::common::{Ran, fixture, flow_run, write};

/// A flow file serving `tests/fixtures/dialogs`, opening its page, with `steps` appended.
fn flow(name: &str, steps: &str) -> String {
    format!(
        "name: {name}\nweb_server: {{ static: \"{}\" }}\nbrowser: {{ timeout: 5s }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{steps}",
        fixture("dialogs").display()
    )
}

fn by_name<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["flows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("{name}: {report:#}"))
}

/// The steps of flow `name`, each of which must have passed.
fn all_passed<'a>(report: &'a Value, name: &str) -> &'a Vec<Value> {
    let f = by_name(report, name);
    assert_eq!(f["status"], "passed", "{f:#}");
    let steps = f["steps"].as_array().unwrap();
    for s in steps {
        assert_eq!(s["outcome"], "passed", "{s:#}");
    }
    steps
}

#[test]
fn a_dialog_step_answers_the_dialog_before_or_after_the_action_that_opens_it() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "before.yaml",
        &flow(
            "before",
            r##"  - id: arm_alert
    dialog: accept
  - click: { role: button, text: Tell }
  - expect: { text: { target: "#r", equals: alert returned } }
  - expect: { dialog: { type: alert, message: Saved., accepted: true } }
  - id: arm_confirm
    dialog: dismiss
  - click: { role: button, text: Delete }
  - expect: { dialog: { type: confirm, message: Delete it?, accepted: false } }
  - expect: { text: { target: "#r", equals: confirm no } }
  - dialog: accept
  - click: { role: button, text: Delete }
  - expect: { text: { target: "#r", equals: confirm yes } }
  - dialog: { text: Ada Lovelace }
  - click: { role: button, text: Ask }
  - expect: { text: { target: "#r", equals: prompt Ada Lovelace } }
  - expect: { dialog: { type: prompt, message: Name?, accepted: true } }
  - click: { role: button, text: Guard }
  - expect: { text: { target: "#r", equals: guarded } }
  - dialog: accept
  - click: { role: link, text: Leave }
  - wait: { url: left.html }
  - expect: { text: { target: h1, equals: You left the page } }
  - expect: { dialog: { type: beforeunload, accepted: true } }
"##,
        ),
    );
    write(
        d.path(),
        "after.yaml",
        &flow(
            "after",
            r##"  - click: { role: button, text: Tell }
  - id: alert
    dialog: accept
  - expect: { text: { target: "#r", equals: alert returned } }
  - click: { role: button, text: Delete }
  - id: confirm
    dialog: dismiss
  - expect: { text: { target: "#r", equals: confirm no } }
  - click: { role: button, text: Ask }
  - id: prompt
    dialog: { text: Ada Lovelace }
  - expect: { text: { target: "#r", equals: prompt Ada Lovelace } }
  - click: { role: button, text: Guard }
  - expect: { text: { target: "#r", equals: guarded } }
  - click: { role: link, text: Leave }
  - id: leave
    dialog: accept
  - wait: { url: left.html }
  - expect: { text: { target: h1, equals: You left the page } }
"##,
        ),
    );
    // agent-browser accepts a beforeunload dialog as it opens: an armed dismissal that comes
    // second fails the flow instead of passing for done.
    write(
        d.path(),
        "stay.yaml",
        &flow(
            "dismiss before a beforeunload",
            r##"  - click: { role: button, text: Guard }
  - expect: { text: { target: "#r", equals: guarded } }
  - dialog: dismiss
  - click: { role: link, text: Leave }
  - expect: { dialog: { type: beforeunload, accepted: false } }
  - expect: { text: { target: "#r", equals: guarded } }
"##,
        ),
    );
    // A beforeunload dialog is accepted as it opens: a `dialog: dismiss` after the step that
    // opened it cannot keep the page, and says where to put it.
    write(
        d.path(),
        "late.yaml",
        &flow(
            "dismiss after a beforeunload",
            r##"  - click: { role: button, text: Guard }
  - expect: { text: { target: "#r", equals: guarded } }
  - click: { role: link, text: Leave }
  - dialog: dismiss
"##,
        ),
    );
    // An answer armed for a dialog that never opens fails the flow at its end.
    write(
        d.path(),
        "unused.yaml",
        &flow(
            "armed, no dialog",
            r##"  - dialog: accept
  - click: { role: button, text: Guard }
"##,
        ),
    );
    // (`wait: { url }` before reading the page it left for: a read racing the navigation is
    // another matter than dialogs.)
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .args([
            "before.yaml",
            "after.yaml",
            "stay.yaml",
            "late.yaml",
            "unused.yaml",
        ])
        .run();
    assert_eq!(code, 1, "{stderr}");

    let before = all_passed(&report, "before");
    // Armed at once, not after waiting for a dialog.
    for i in [1, 5] {
        assert!(
            before[i]["duration_ms"].as_u64().unwrap() < 1000,
            "{:#}",
            before[i]
        );
    }

    let after = all_passed(&report, "after");
    let out = |i: usize| &after[i]["outputs"];
    assert_eq!(out(2)["type"], "alert", "{:#}", after[2]);
    assert_eq!(out(2)["message"], "Saved.", "{:#}", after[2]);
    assert_eq!(out(5)["type"], "confirm", "{:#}", after[5]);
    assert_eq!(out(5)["accepted"], false, "{:#}", after[5]);
    assert_eq!(out(8)["type"], "prompt", "{:#}", after[8]);
    // The beforeunload dialog opens as the navigation starts, which may be after the click
    // returned: the step answers the one accepted, or arms `accept` for it; the page left.
    assert!(
        (out(13)["type"] == "beforeunload" && out(13)["accepted"] == true)
            || out(13)["armed"] == true,
        "{:#}",
        after[13]
    );

    // Either the dismissal took and the page stayed, or the flow says it did not.
    let stay = by_name(&report, "dismiss before a beforeunload");
    if stay["status"] != "passed" {
        let failed: Vec<_> = stay["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["outcome"] == "failed")
            .collect();
        assert_eq!(failed.len(), 1, "{stay:#}");
        let message = failed[0]["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains("was accepted as it opened, before runner could dismiss it"),
            "{message}"
        );
    }

    // (Unless the dialog opened only after the click returned: then the step armed its
    // dismissal, as in "dismiss before a beforeunload".)
    let late = by_name(&report, "dismiss after a beforeunload");
    let last = &late["steps"][4];
    if last["outputs"]["armed"] != true {
        assert_eq!(late["status"], "failed", "{late:#}");
        assert_eq!(last["outcome"], "failed", "{late:#}");
        let message = last["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains("the beforeunload dialog was accepted as it opened")
                && message.contains("before the step that opens it"),
            "{message}"
        );
    }

    let unused = by_name(&report, "armed, no dialog");
    assert_eq!(unused["status"], "failed", "{unused:#}");
    assert!(
        unused["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["outcome"] == "passed"),
        "{unused:#}"
    );
    let message = unused["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("`dialog: accept` armed an answer for the next dialog")
            && message.contains("none opened"),
        "{message}"
    );
}

/// A step gives up within 0.5 s of its timeout also when agent-browser is stuck: an `eval`
/// whose promise never settles (agent-browser stays busy with it), and the steps after it,
/// whose commands wait on that busy daemon. (Failure artifacts that cannot be had from a busy
/// daemon are not waited for.)
#[test]
fn steps_give_up_within_half_a_second_of_their_timeout() {
    let d = tempfile::tempdir().unwrap();
    let steps = [
        ("eval: \"new Promise(() => {})\"", 2000),
        ("eval: \"new Promise(() => {})\"", 3000),
        ("click: \"#never\"", 1500),
    ];
    let body: String = steps
        .iter()
        .map(|(s, ms)| format!("  - {s}\n    timeout: {ms}ms\n    continue_on_error: true\n"))
        .collect();
    write(d.path(), "f.yaml", &flow("timeouts", &body));
    let report = flow_run(d.path()).arg("f.yaml").passes();
    let got = report["flows"][0]["steps"].as_array().unwrap();
    let mut late = Vec::new();
    for (i, (s, ms)) in steps.iter().enumerate() {
        let step = &got[i + 1];
        assert_eq!(step["outcome"], "failed", "{s}: {step:#}");
        let took = step["duration_ms"].as_u64().unwrap();
        if took + 500 < *ms || took > ms + 500 {
            late.push(format!(
                "`{s}` with timeout {ms} ms took {took} ms: {}",
                step["error"]["message"]
            ));
        }
    }
    assert!(late.is_empty(), "{}", late.join("\n"));
}

/// A second `dialog` step while the answer of the first is still armed (no dialog opened
/// between them) fails saying so, instead of replacing the first answer unseen; the first
/// answer stays armed and answers the next dialog.
#[test]
fn a_second_armed_answer_fails_and_keeps_the_first() {
    let d = tempfile::tempdir().unwrap();
    let steps = r##"  - dialog: accept
  - id: second
    dialog: dismiss
    continue_on_error: true
  - click: { role: button, text: Delete }
  - expect: { text: { target: "#r", equals: confirm yes } }
"##;
    write(d.path(), "f.yaml", &flow("twice", steps));
    let Ran { code, report, .. } = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(code, 0, "{report:#}");
    let second = &by_name(&report, "twice")["steps"][2];
    assert_eq!(second["outcome"], "failed", "{second:#}");
    let message = second["error"]["message"].as_str().unwrap_or("");
    assert!(
        message.contains("an answer armed by an earlier `dialog: accept` step is still waiting"),
        "{message}"
    );
}

/// A confirm the last flow's page opens as that flow ends — before, during or after its browser
/// moves on to the next flow's tab — is none of the next flow's business: each next flow (one
/// browser, `--jobs 1`) opens its page, answers its own confirm and passes. (agent-browser
/// records the dialogs of the tab it acts on only; runner then asks it once, before the next
/// flow's first step, and that step does not ask again: see `TabUse::Untouched`.)
#[test]
fn a_confirm_the_last_flows_page_opens_as_it_ends_is_not_the_next_flows() {
    let d = tempfile::tempdir().unwrap();
    for (i, ms) in [0, 5, 15, 40, 100].iter().enumerate() {
        let steps = format!(
            r##"  - dialog: accept
  - click: {{ role: button, text: Delete }}
  - expect: {{ text: {{ target: "#r", equals: confirm yes }} }}
  - eval: "setTimeout(() => confirm('Late?'), {ms}); 'armed'"
    continue_on_error: true
"##
        );
        write(
            d.path(),
            &format!("f{i}.yaml"),
            &flow(&format!("late {ms}"), &steps),
        );
    }
    let Ran { code, report, .. } = flow_run(d.path()).args([".", "--jobs", "1"]).run();
    assert_eq!(code, 0, "{report:#}");
    for ms in [0, 5, 15, 40, 100] {
        let f = by_name(&report, &format!("late {ms}"));
        let steps = f["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 5, "{steps:#?}");
        // Its own steps, up to the one that arms the confirm, pass: the last flow's confirm
        // reached none of them. (The arming step itself may see its own confirm open, when it
        // comes before its step ends: that one is the flow's own business.)
        for s in &steps[..4] {
            assert_eq!(s["outcome"], "passed", "{s:#}");
        }
        let armed = &steps[4];
        if armed["outcome"] != "passed" {
            let m = armed["error"]["message"].as_str().unwrap_or_default();
            assert!(m.contains("\"Late?\""), "{armed:#}");
        }
    }
}

/// A confirm the last flow left open in its page, which agent-browser still counts as open
/// once that flow's tab has gone (the headless shell does not say it closed), is none of the
/// next flow's: runner answers it before the next flow's first step (agent-browser's answer to
/// the switch to the new tab tells whether it holds one). Else a step of the next flow that
/// fails shows the last flow's dialog as what blocks its page, instead of its own page.
#[test]
fn a_dialog_the_last_flow_left_open_is_not_what_the_next_flows_failure_shows() {
    let d = tempfile::tempdir().unwrap();
    // Opened while the flow's last step waits; agent-browser records it when it next acts
    // (the switch to the next flow's tab), as that tab is still its current one.
    let left =
        "  - eval: \"setTimeout(() => confirm('Left open?'), 300); 'armed'\"\n  - wait: 1s\n";
    write(d.path(), "1-left.yaml", &flow("left", left));
    let fails = "  - click: { role: button, text: No such button }\n    timeout: 1s\n";
    write(d.path(), "2-fails.yaml", &flow("fails", fails));
    let Ran { code, report, .. } = flow_run(d.path()).args([".", "--jobs", "1"]).run();
    assert_eq!(code, 1, "{report:#}");
    all_passed(&report, "left");
    let step = &by_name(&report, "fails")["steps"][1];
    assert_eq!(step["error"]["kind"], "not_found", "{step:#}");
    let arts = &step["failure_artifacts"];
    assert!(arts.get("dialog").is_none(), "{arts:#}");
    let shot = arts["screenshot"]
        .as_str()
        .unwrap_or_else(|| panic!("{arts:#}"));
    assert!(std::path::Path::new(shot).is_file(), "{arts:#}");
}

/// A confirm a click's handler opens a moment later (a timer, as an async handler does) may
/// open while runner still reads the page after the click: the click is done (the element got
/// it), and the `dialog` step after it answers the confirm — at once, not after the step's
/// timeout. Each delay from 0 to 20 ms, three times, with a trace kept (more reads around each
/// step). Before: the click failed after its whole timeout ("agent-browser eval timed out")
/// about one time in three.
#[test]
fn a_confirm_a_timer_opens_just_after_the_click_is_answered_by_the_next_step() {
    let d = tempfile::tempdir().unwrap();
    let mut steps = String::new();
    for round in 0..3 {
        for ms in [0, 2, 5, 10, 20] {
            let (answer, said) = if (round + ms) % 2 == 0 {
                ("accept", "yes")
            } else {
                ("dismiss", "no")
            };
            steps.push_str(&format!(
                "  - open: \"{{{{ web_server.url }}}}/later.html?ms={ms}\"\n  - click: \"#later\"\n  - dialog: {answer}\n  - expect: {{ text: {{ target: \"#r\", equals: \"{said} 1\" }} }}\n"
            ));
        }
    }
    write(d.path(), "f.yaml", &flow("later", &steps));
    let Ran { code, report, .. } = flow_run(d.path()).args(["f.yaml", "--trace", "on"]).run();
    assert_eq!(code, 0, "{report:#}");
    for s in all_passed(&report, "later") {
        let took = s["duration_ms"].as_u64().unwrap();
        assert!(took < 4000, "{s:#}");
    }
}

/// C7 (attack 26): `expect: { dialog }` passed on a dialog answered earlier in the flow, so a
/// second "delete" that no longer asks passed the same check as the first. Now it is met only by
/// a dialog open now or answered since the last step that acts on the page began (an `expect`,
/// `wait`, `eval` or `dialog` step between them aside), and not met by an earlier
/// `expect: { dialog }`: with the flow's default answer and with an armed one, the check after
/// the second click fails and says why, as does a second check of one dialog; the first
/// passes, also with a check and a wait between.
/// An `expect` that checks a dialog beside something the page shows later retries the whole
/// step: the dialog it met on the first round still meets it on the next (it is spent only once
/// the step passes; the review of session 23 saw such a step fail, blaming the dialog).
#[test]
fn an_expect_of_a_dialog_and_a_later_text_passes_on_a_retry() {
    let d = tempfile::tempdir().unwrap();
    let page = r#"data:text/html,<p id=r>-</p><button onclick="if(confirm('Delete it?'))setTimeout(()=>document.getElementById('r').textContent='deleted',1500)">Delete</button>"#;
    write(
        d.path(),
        "retry.yaml",
        &format!(
            "name: retry\nbrowser: {{ dialogs: accept, timeout: 5s }}\nsteps:\n  - open: '{}'\n  - click: {{ role: button, text: Delete }}\n  - wait: 300ms\n  - expect: {{ dialog: {{ type: confirm, message: \"Delete it?\", accepted: true }}, text: {{ target: \"#r\", equals: deleted }} }}\n  - expect: {{ dialog: {{ type: confirm }} }}\n    timeout: 1s\n    continue_on_error: true\n",
            page.replace('\'', "''")
        ),
    );
    let Ran { code, report, .. } = flow_run(d.path()).arg("retry.yaml").run();
    let steps = report["flows"][0]["steps"].as_array().unwrap();
    assert_eq!(steps[3]["outcome"], "passed", "{report:#}");
    // The dialog met that step: a second check of it still fails.
    assert_eq!(steps[4]["outcome"], "failed", "{report:#}");
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn an_expect_dialog_is_not_met_by_a_dialog_of_an_earlier_step() {
    let d = tempfile::tempdir().unwrap();
    let page = r#"data:text/html,<p id=r>-</p><button id=a onclick="if(confirm('Delete it?'))this.textContent='gone'">Delete A</button><button id=b onclick="this.textContent='gone'">Delete B</button>"#;
    let open = format!("  - open: '{}'\n", page.replace('\'', "''"));
    let expect = "  - expect: { dialog: { type: confirm, message: \"Delete it?\" } }\n";
    let click = |b: &str| format!("  - click: {{ role: button, text: Delete {b} }}\n");
    let steps = format!(
        "{}  - expect: {{ text: {{ target: \"#r\", equals: \"-\" }} }}\n  - wait: {{ text: Delete B }}\n{expect}  - eval: \"1 + 1\"\n{}{expect}",
        click("A"),
        click("B")
    );
    let flows = [
        (
            "default",
            "dialogs: dismiss, ",
            String::new(),
            steps.clone(),
        ),
        ("armed", "", "  - dialog: accept\n".to_string(), steps),
        (
            "twice",
            "dialogs: dismiss, ",
            String::new(),
            format!("{}{expect}{expect}", click("A")),
        ),
    ];
    for (name, browser, arm, steps) in &flows {
        write(
            d.path(),
            &format!("{name}.yaml"),
            &format!(
                "name: {name}\nbrowser: {{ {browser}timeout: 5s }}\nsteps:\n{open}{arm}{steps}"
            ),
        );
    }
    let Ran { code, report, .. } = flow_run(d.path())
        .args(["default.yaml", "armed.yaml", "twice.yaml"])
        .run();
    assert_eq!(code, 1, "{report:#}");
    for (name, ..) in &flows {
        let f = by_name(&report, name);
        assert_eq!(f["status"], "failed", "{f:#}");
        let steps = f["steps"].as_array().unwrap();
        let last = steps.last().unwrap();
        for s in &steps[..steps.len() - 1] {
            assert_eq!(s["outcome"], "passed", "{name}: {s:#}");
        }
        assert_eq!(last["outcome"], "failed", "{name}: {last:#}");
        let message = last["error"]["message"].as_str().unwrap_or("");
        assert!(
            message.contains("no dialog opened since the step before it")
                && message.contains("Delete it?"),
            "{name}: {message}"
        );
    }
}

/// A dialog runner answers over its own connection (one that held the click, answered by the
/// `dialog` step after it) closes before agent-browser's daemon hears so: it reads the browser's
/// events only while it handles a command, and refused the next step's command as "a confirm
/// dialog "Delete it?" is blocking the page" (a false red, 5 of 6 runs of two such flows side by
/// side before). runner now asks the daemon until it has heard the dialog closed, before the
/// next command; a refused command is never sent again.
#[test]
fn the_step_after_a_dialog_runner_answered_is_never_refused_for_it() {
    let d = tempfile::tempdir().unwrap();
    let round = "  - click: { role: button, text: Delete }\n  - dialog: dismiss\n  - expect: { text: { target: \"#r\", equals: confirm no } }\n  - click: { role: button, text: Delete }\n  - dialog: accept\n  - expect: { text: { target: \"#r\", equals: confirm yes } }\n  - click: { role: button, text: Ask }\n  - dialog: { text: Ada }\n  - expect: { text: { target: \"#r\", equals: prompt Ada } }\n";
    for name in ["a", "b"] {
        write(
            d.path(),
            &format!("{name}.yaml"),
            &flow(name, &round.repeat(12)),
        );
    }
    let report = flow_run(d.path())
        .args(["a.yaml", "b.yaml", "--jobs", "2"])
        .passes();
    for name in ["a", "b"] {
        assert_eq!(all_passed(&report, name).len(), 1 + 9 * 12);
    }
}
