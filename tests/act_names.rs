//! `act`'s own resolver acts only on an element whose name is the one the instruction gives
//! (case and spaces aside, and what decorates a name's ends): a name that merely holds the instruction's words —
//! "Unsubscribe from all emails" for "click Subscribe", "I disagree with the terms" for "check
//! Agree", 退出登录 for 点击“登录” — is not it, and the step fails naming what came close
//! instead of acting on the opposite of what was asked (attack 29, A12).

use serde_json::Value;

use crate::common::{Ran, flow_run, step, write};

const PAGE: &str = r##"<!doctype html><meta charset="utf-8"><title>names</title>
<p id="log"></p>
<script>function hit(n){document.getElementById('log').textContent+=' '+n}</script>
<button onclick="hit('credit-card')">Credit card</button>
<button onclick="hit('unsubscribe')">Unsubscribe from all emails</button>
<a href="#" onclick="hit('logout')">Log out</a>
<button onclick="hit('cancel-order')">Cancel order #123</button>
<button onclick="hit('delete-account')">Delete account</button>
<button onclick="hit('zh-logout')">退出登录</button>
<button onclick="hit('jp-unsub')">購読を解除</button>
<label><input type="checkbox" id="dis"> I disagree with the terms</label>
<label>Username <input id="u"></label>
"##;

/// Each instruction names only a part of an element's name, and the element it names in part.
const PARTIAL: &[(&str, &str)] = &[
    ("click Edit", "Credit card"),
    ("click Subscribe", "Unsubscribe from all emails"),
    ("click Log", "Log out"),
    ("click Order", "Cancel order #123"),
    ("click Account", "Delete account"),
    ("点击“登录”按钮", "退出登录"),
    ("購読をクリック", "購読を解除"),
    ("check Agree", "I disagree with the terms"),
    ("fill Name with Ada", "Username"),
];

#[test]
fn an_instruction_naming_part_of_an_element_does_not_act_on_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    write(&d.path().join("site"), "index.html", PAGE);
    let mut steps = String::new();
    for (i, (intent, _)) in PARTIAL.iter().enumerate() {
        steps.push_str(&format!(
            "  - {{ id: p{i}, act: \"{}\", continue_on_error: true }}\n",
            intent.replace('"', "\\\"")
        ));
    }
    // The whole name, in another case and spacing, is the element's own: that one acts.
    steps.push_str("  - { id: whole, act: \"click delete   ACCOUNT\" }\n");
    steps.push_str(
        "  - id: seen\n    eval: \"document.getElementById('log').textContent + '|' + document.getElementById('dis').checked + '|' + document.getElementById('u').value\"\n",
    );
    write(
        d.path(),
        "f.yaml",
        &format!(
            "name: names\nweb_server: {{ static: ./site }}\ndefaults: {{ timeout: 2s }}\nsteps:\n  - open: \"{{{{ web_server.url }}}}/index.html\"\n{steps}"
        ),
    );
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("f.yaml").run();
    for (i, (intent, near)) in PARTIAL.iter().enumerate() {
        let s = step(&report, &format!("p{i}"));
        assert_eq!(s["outcome"], "failed", "{intent}: {s}\n{stderr}");
        assert_eq!(s["error"]["kind"], "skill", "{intent}: {s}");
        let m = s["error"]["message"].as_str().unwrap_or_default();
        assert!(
            m.contains(&format!("\"{near}\"")) && m.contains("no element"),
            "{intent}: the message names what came close: {m}"
        );
    }
    let whole = &step(&report, "whole")["outputs"];
    assert_eq!(whole["source"], "local", "{whole}");
    assert_eq!(
        whole["selector"],
        serde_json::json!({"role": "button", "text": "Delete account", "exact": true})
    );
    // The page saw only the one click the flow named in full.
    assert_eq!(
        step(&report, "seen")["outputs"]["value"],
        Value::from(" delete-account|false|"),
        "{stderr}"
    );
}
