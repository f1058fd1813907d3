//! `expect: { enabled | disabled }` and the actions' wait for an enabled element read
//! `disabled` as Playwright does (its `elementState`: `retarget(el, 'follow-label')`, then
//! roleUtils' `getAriaDisabled`), case by case (review 26, F7).

use crate::common::{Ran, flow_run, step, write};

/// The page: each element a case of Playwright's rule.
const PAGE: &str = r##"<!doctype html><title>disabled</title>
<div aria-disabled="true"><button id="override" aria-disabled="false">Override</button>
  <a id="link" href="#x">Link</a><span id="plain">Plain</span></div>
<div aria-disabled="true" id="divonly" onclick="this.textContent = 'clicked'">Div</div>
<button id="upper" aria-disabled="TRUE">Upper</button>
<div aria-disabled="true"><div aria-disabled="FALSE"><button id="lowfalse">Low</button></div></div>
<div role="button" aria-disabled="true" id="divbtn">Div button</div>
<button id="nat" disabled aria-disabled="false">Native</button>
<fieldset disabled id="fs"><legend><button id="inlegend">In legend</button></legend>
  <legend><button id="second">Second legend</button></legend><button id="infs">In fieldset</button></fieldset>
<select id="sel" size="4"><optgroup label="G" disabled id="og"><option id="ingroup">In group</option></optgroup>
  <option id="free">Free</option></select>
<button id="textbtn" disabled><span id="btnspan">Inner text</span></button>
<label><span id="labspan">Name</span> <input id="labinput" disabled></label>
<my-host id="host" aria-disabled="true"></my-host>
<my-slot id="slothost"><button id="slotted">Slotted</button></my-slot>
<script>
document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
  '<button id="shadowbtn">Shadow</button>';
document.getElementById('slothost').attachShadow({ mode: 'open' }).innerHTML =
  '<div aria-disabled="true"><slot></slot></div>';
</script>"##;

/// Each case as Playwright's `toBeEnabled`/`toBeDisabled` reads it. Before, runner's rule was
/// `:disabled` or an ancestor's `aria-disabled="true"` (exact case): an explicit "false" nearer
/// did not count, nor "TRUE", a shadow host's, a button's text or a label's control; a plain
/// `<div aria-disabled>` (a role that takes no `aria-disabled`) and a `<fieldset disabled>`
/// itself were disabled, and a click on that div waited for it to be enabled.
#[test]
fn enabled_and_disabled_follow_playwrights_get_aria_disabled() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::fs::write(site.join("index.html"), PAGE).unwrap();
    let cases = [
        // The nearest explicit aria-disabled decides, without case, for the roles that take it.
        ("override_enabled", "enabled: \"#override\""),
        ("link_disabled", "disabled: \"#link\""),
        ("plain_span_enabled", "enabled: \"#plain\""),
        ("div_enabled", "enabled: \"#divonly\""),
        ("upper_disabled", "disabled: \"#upper\""),
        ("lower_false_enabled", "enabled: \"#lowfalse\""),
        ("role_button_disabled", "disabled: \"#divbtn\""),
        ("native_wins", "disabled: \"#nat\""),
        // A disabled fieldset: not itself; not its first legend's controls.
        ("fieldset_itself_enabled", "enabled: \"#fs\""),
        ("legend_enabled", "enabled: \"#inlegend\""),
        ("second_legend_disabled", "disabled: \"#second\""),
        ("in_fieldset_disabled", "disabled: \"#infs\""),
        // Options and groups.
        ("optgroup_disabled", "disabled: \"#og\""),
        ("option_in_group_disabled", "disabled: \"#ingroup\""),
        ("free_option_enabled", "enabled: \"#free\""),
        // The control a text stands for.
        ("button_text_disabled", "disabled: \"#btnspan\""),
        ("label_text_disabled", "disabled: \"#labspan\""),
        // Across a shadow host; a slotted element by its light-DOM parent, not the slot's.
        ("shadow_disabled", "disabled: \"#shadowbtn\""),
        ("slotted_enabled", "enabled: \"#slotted\""),
    ];
    let mut steps = String::new();
    for (id, check) in cases {
        steps.push_str(&format!(
            "  - id: {id}\n    expect: {{ {check} }}\n    continue_on_error: true\n"
        ));
    }
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: disabled\nweb_server: {{ static: ./site }}\ndefaults: {{ timeout: 500ms }}\nsteps:
  - open: \"{{{{ web_server.url }}}}/index.html\"
{steps}  - id: click_div
    click: \"#divonly\"
    timeout: 2s
    continue_on_error: true
  - id: clicked
    expect: {{ text: {{ target: \"#divonly\", equals: clicked }} }}
    continue_on_error: true
"
        ),
    );
    let Ran { report, .. } = flow_run(d.path()).arg("f.yaml").run();
    let failed: Vec<String> = cases
        .iter()
        .map(|(id, _)| *id)
        .chain(["click_div", "clicked"])
        .filter(|id| step(&report, id)["outcome"] != "passed")
        .map(|id| format!("{id}: {}", step(&report, id)["error"]["message"]))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
}
