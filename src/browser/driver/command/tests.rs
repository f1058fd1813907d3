use std::path::Path;

use serde_json::{Value, json};

use super::*;

fn s(x: &str) -> String {
    x.to_string()
}

fn sel(x: &str) -> String {
    x.to_string()
}

/// Checks each case: the JSON the daemon gets for the command (paths made absolute against
/// `/run/here`, as for a flow there), and the CLI argv that makes the same request. The cases
/// are what agent-browser 0.41.2's CLI writes to the daemon for each command runner sends
/// (recorded through a socket proxy; `id`, `pinTab` and `plugins` are added when sent).
fn check(cases: Vec<(Command, &[&str], Value)>) {
    for (command, argv, want) in cases {
        let sent = serde_json::to_value(command.absolute(Path::new("/run/here"))).unwrap();
        assert_eq!(sent, want, "{argv:?}");
        assert_eq!(command.argv(), argv, "{want}");
    }
}

#[test]
fn navigation_tabs_and_dialogs_become_the_clis_requests() {
    check(vec![
        (
            Command::Navigate {
                url: s("http://127.0.0.1:1/x"),
            },
            &["open", "http://127.0.0.1:1/x"],
            json!({"action":"navigate","url":"http://127.0.0.1:1/x"}),
        ),
        (
            Command::Navigate {
                url: s("localhost:1"),
            },
            &["open", "localhost:1"],
            json!({"action":"navigate","url":"https://localhost:1"}),
        ),
        (
            Command::Navigate {
                url: s("about:blank"),
            },
            &["open", "about:blank"],
            json!({"action":"navigate","url":"about:blank"}),
        ),
        (
            Command::TabSwitch { tab_id: s("F8AC") },
            &["tab", "F8AC"],
            json!({"action":"tab_switch","tabId":"F8AC"}),
        ),
        (
            Command::Dialog {
                response: DialogResponse::Accept,
                prompt_text: Some(s("Ada")),
            },
            &["dialog", "accept", "Ada"],
            json!({"action":"dialog","response":"accept","promptText":"Ada"}),
        ),
        (
            Command::Dialog {
                response: DialogResponse::Status,
                prompt_text: None,
            },
            &["dialog", "status"],
            json!({"action":"dialog","response":"status"}),
        ),
        (
            Command::TabList,
            &["tab", "list"],
            json!({"action":"tab_list"}),
        ),
        (
            Command::TabClose { tab_id: s("T1") },
            &["tab", "close", "T1"],
            json!({"action":"tab_close","tabId":"T1"}),
        ),
    ]);
}

#[test]
fn scripts_frames_keys_and_scrolls_become_the_clis_requests() {
    check(vec![
        (
            Command::eval("1+1"),
            &["eval", "-b", "MSsx"],
            json!({"action":"evaluate","script":"1+1"}),
        ),
        (
            Command::Press {
                key: s("Control+a"),
            },
            &["press", "Control+a"],
            json!({"action":"press","key":"Control+a"}),
        ),
        (
            Command::Keyboard {
                subaction: KeyboardInput::Type,
                text: s("select 1"),
            },
            &["keyboard", "type", "select 1"],
            json!({"action":"keyboard","subaction":"type","text":"select 1"}),
        ),
        (
            Command::Keyboard {
                subaction: KeyboardInput::InsertText,
                text: s("héllo"),
            },
            &["keyboard", "inserttext", "héllo"],
            json!({"action":"keyboard","subaction":"insertText","text":"héllo"}),
        ),
        (
            Command::Scroll {
                direction: s("down"),
                amount: 500,
            },
            &["scroll", "down", "500"],
            json!({"action":"scroll","direction":"down","amount":500}),
        ),
        (
            Command::ScrollIntoView {
                selector: sel("#l"),
            },
            &["scrollintoview", "#l"],
            json!({"action":"scrollintoview","selector":"#l"}),
        ),
        (
            Command::Dispatch {
                selector: sel("@e5"),
                event: s("runner-arm"),
                event_init: json!({"bubbles": true, "composed": true}),
            },
            &["dispatch", "@e5", "runner-arm"],
            json!({"action":"dispatch","selector":"@e5","event":"runner-arm","eventInit":{"bubbles":true,"composed":true}}),
        ),
        (
            Command::Frame {
                selector: sel("#f"),
            },
            &["frame", "#f"],
            json!({"action":"frame","selector":"#f"}),
        ),
        (
            Command::MainFrame,
            &["frame", "main"],
            json!({"action":"mainframe"}),
        ),
    ]);
}

#[test]
fn element_actions_become_the_clis_requests() {
    check(vec![
        (
            Command::Fill {
                selector: sel(".x"),
                value: s("hello"),
            },
            &["fill", ".x", "hello"],
            json!({"action":"fill","selector":".x","value":"hello"}),
        ),
        (
            Command::Type {
                selector: sel(".x"),
                text: s("abc"),
            },
            &["type", ".x", "abc"],
            json!({"action":"type","selector":".x","text":"abc"}),
        ),
        (
            Command::Select {
                selector: sel("#s"),
                values: vec![s("a"), s("b")],
            },
            &["select", "#s", "a", "b"],
            json!({"action":"select","selector":"#s","values":["a","b"]}),
        ),
        (
            Command::Click {
                selector: sel("@e1"),
            },
            &["click", "@e1"],
            json!({"action":"click","selector":"@e1"}),
        ),
        (
            Command::DoubleClick { selector: sel("a") },
            &["dblclick", "a"],
            json!({"action":"dblclick","selector":"a"}),
        ),
        (
            Command::Hover { selector: sel("a") },
            &["hover", "a"],
            json!({"action":"hover","selector":"a"}),
        ),
        (
            Command::Focus {
                selector: sel(".x"),
            },
            &["focus", ".x"],
            json!({"action":"focus","selector":".x"}),
        ),
        (
            Command::Check {
                selector: sel(".x"),
            },
            &["check", ".x"],
            json!({"action":"check","selector":".x"}),
        ),
        (
            Command::Uncheck {
                selector: sel(".x"),
            },
            &["uncheck", ".x"],
            json!({"action":"uncheck","selector":".x"}),
        ),
        (
            Command::Upload {
                selector: sel("#f"),
                files: vec![s("/a.txt"), s("/b.txt")],
            },
            &["upload", "#f", "/a.txt", "/b.txt"],
            json!({"action":"upload","selector":"#f","files":["/a.txt","/b.txt"]}),
        ),
    ]);
}

#[test]
fn network_and_state_become_the_clis_requests() {
    check(vec![
        (
            // The CLI's `--body B` sends this `response`; runner's `--response` sends it whole.
            Command::Route {
                url: s("**/api/x"),
                abort: false,
                response: Some(json!({"body":"{}"})),
            },
            &[
                "network",
                "route",
                "**/api/x",
                "--response",
                r#"{"body":"{}"}"#,
            ],
            json!({"action":"route","url":"**/api/x","abort":false,"response":{"body":"{}"}}),
        ),
        (
            Command::Route {
                url: s("**/api/y"),
                abort: true,
                response: None,
            },
            &["network", "route", "**/api/y", "--abort"],
            json!({"action":"route","url":"**/api/y","abort":true}),
        ),
        (
            Command::Unroute { url: None },
            &["network", "unroute"],
            json!({"action":"unroute"}),
        ),
        (
            Command::Unroute {
                url: Some(s("**/a")),
            },
            &["network", "unroute", "**/a"],
            json!({"action":"unroute","url":"**/a"}),
        ),
        (
            Command::Requests { clear: false },
            &["network", "requests"],
            json!({"action":"requests","clear":false}),
        ),
        (
            Command::StateSave {
                path: "auth.json".into(),
            },
            &["state", "save", "auth.json"],
            json!({"action":"state_save","path":"/run/here/auth.json"}),
        ),
    ]);
}

#[test]
fn settings_become_the_clis_requests() {
    check(vec![
        (
            Command::Viewport {
                width: 800,
                height: 600,
            },
            &["set", "viewport", "800", "600"],
            json!({"action":"viewport","width":800,"height":600}),
        ),
        (
            Command::Device {
                device: s("iPhone 14"),
            },
            &["set", "device", "iPhone 14"],
            json!({"action":"device","device":"iPhone 14"}),
        ),
        (
            Command::EmulateMedia {
                color_scheme: s("dark"),
                reduced_motion: ReducedMotion::NoPreference,
            },
            &["set", "media", "dark"],
            json!({"action":"emulatemedia","colorScheme":"dark","reducedMotion":"no-preference"}),
        ),
        (
            Command::Geolocation {
                latitude: 48.85,
                longitude: 2.35,
            },
            &["set", "geo", "48.85", "2.35"],
            json!({"action":"geolocation","latitude":48.85,"longitude":2.35}),
        ),
        (
            Command::Offline { offline: true },
            &["set", "offline", "on"],
            json!({"action":"offline","offline":true}),
        ),
        (
            Command::Headers {
                headers: json!({"X-A":"1"}),
            },
            &["set", "headers", "{\"X-A\":\"1\"}"],
            json!({"action":"headers","headers":{"X-A":"1"}}),
        ),
    ]);
}

#[test]
fn reads_become_the_clis_requests() {
    check(vec![
        (Command::GetUrl, &["get", "url"], json!({"action":"url"})),
        (
            Command::GetAttribute {
                selector: sel("#l"),
                attribute: s("href"),
            },
            &["get", "attr", "#l", "href"],
            json!({"action":"getattribute","selector":"#l","attribute":"href"}),
        ),
        (
            Command::GetTitle,
            &["get", "title"],
            json!({"action":"title"}),
        ),
        (
            Command::CdpUrl,
            &["get", "cdp-url"],
            json!({"action":"cdp_url"}),
        ),
        (
            Command::GetText { selector: sel("a") },
            &["get", "text", "a"],
            json!({"action":"gettext","selector":"a"}),
        ),
        (
            Command::GetValue {
                selector: sel(".x"),
            },
            &["get", "value", ".x"],
            json!({"action":"inputvalue","selector":".x"}),
        ),
        (
            Command::GetBox { selector: sel("a") },
            &["get", "box", "a"],
            json!({"action":"boundingbox","selector":"a"}),
        ),
        (
            Command::IsVisible { selector: sel("a") },
            &["is", "visible", "a"],
            json!({"action":"isvisible","selector":"a"}),
        ),
        (
            Command::IsChecked {
                selector: sel(".x"),
            },
            &["is", "checked", ".x"],
            json!({"action":"ischecked","selector":".x"}),
        ),
        (
            Command::IsEnabled {
                selector: sel(".x"),
            },
            &["is", "enabled", ".x"],
            json!({"action":"isenabled","selector":".x"}),
        ),
    ]);
}

#[test]
fn snapshots_screenshots_and_close_become_the_clis_requests() {
    check(vec![
        (
            Command::snapshot(),
            &["snapshot"],
            json!({"action":"snapshot"}),
        ),
        (
            Command::Snapshot(SnapshotOptions {
                interactive: true,
                compact: true,
                max_depth: Some(3),
                selector: Some(s("main")),
            }),
            &["snapshot", "-i", "-c", "-d", "3", "-s", "main"],
            json!({"action":"snapshot","compact":true,"interactive":true,"maxDepth":3,"selector":"main"}),
        ),
        (
            Command::screenshot("/tmp/a.png"),
            &["screenshot", "/tmp/a.png"],
            json!({"action":"screenshot","annotate":false,"fullPage":false,"path":"/tmp/a.png","selector":null}),
        ),
        (
            Command::Screenshot {
                annotate: Off,
                full_page: true,
                path: "rel.png".into(),
                selector: Some(s("a")),
            },
            &["screenshot", "--full", "a", "rel.png"],
            json!({"action":"screenshot","annotate":false,"fullPage":true,"path":"/run/here/rel.png","selector":"a"}),
        ),
        (Command::Close, &["close"], json!({"action":"close"})),
    ]);
}

/// An action on an element is built from its CLI name, and refused without what it needs.
#[test]
fn element_actions_come_from_their_names() {
    let x = || ".x".to_string();
    assert_eq!(
        Command::on_element("fill", x(), &[s("v")]),
        Some(Command::Fill {
            selector: x(),
            value: s("v")
        })
    );
    assert_eq!(
        Command::on_element("click", x(), &[]),
        Some(Command::Click { selector: x() })
    );
    assert_eq!(Command::on_element("fill", x(), &[]), None);
    assert_eq!(Command::on_element("select", x(), &[]), None);
    assert_eq!(Command::on_element("frobnicate", x(), &[]), None);
}
