//! `browser.locale` and `browser.timezone` the browser refuses are found before it is asked
//! (attack 26, C22): a literal one by `validate` at its `file:line:col` (a flow's, runner.toml's
//! `[browser]`), a templated one when it renders, with the same words.

use crate::common::{Ran, flow_run, output, runner, write};

/// `Mars/Base`, `utc` (the browser reads names case and all) and `not a locale` are refused
/// at their line by `validate` and by `run`, before any browser starts; the names Chromium
/// takes (`UTC`, `Etc/UTC`, `US/Eastern`, `PST`, `GMT+05:30`, `de-DE`, `en`, `zh-Hant-TW`)
/// pass.
#[test]
fn validate_refuses_a_locale_or_time_zone_the_browser_refuses() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "bad.yaml",
        "name: bad\nbrowser:\n  timezone: Mars/Base\n  locale: \"not a locale\"\nsteps:\n  - log: x\n",
    );
    write(
        d.path(),
        "utc.yaml",
        "name: utc\nbrowser: { timezone: utc }\nsteps:\n  - log: x\n",
    );
    for args in [["validate", "bad.yaml"], ["run", "bad.yaml"]] {
        let mut c = runner(d.path());
        c.args(args);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains("bad.yaml:3:13: error: `browser.timezone`: `Mars/Base` is not a time zone the browser knows"),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("bad.yaml:4:11: error: `browser.locale`: `not a locale` is not a locale the browser takes"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("help: a BCP 47 language tag"), "{stderr}");
    }
    let mut c = runner(d.path());
    c.args(["validate", "utc.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "utc.yaml:2:22: error: `browser.timezone`: `utc` is not a time zone the browser knows"
        ) && stderr.contains("did you mean `UTC`?"),
        "{stderr}"
    );
    for (i, (tz, locale)) in [
        ("UTC", "de-DE"),
        ("Etc/UTC", "en"),
        ("US/Eastern", "zh-Hant-TW"),
        ("PST", "de_DE"),
        ("GMT+05:30", "es-419"),
    ]
    .iter()
    .enumerate()
    {
        write(
            d.path(),
            &format!("ok{i}.yaml"),
            &format!(
                "name: ok{i}\nbrowser: {{ timezone: \"{tz}\", locale: \"{locale}\" }}\nsteps:\n  - log: x\n"
            ),
        );
    }
    let mut c = runner(d.path());
    c.args([
        "validate", "ok0.yaml", "ok1.yaml", "ok2.yaml", "ok3.yaml", "ok4.yaml",
    ]);
    let (code, stdout, stderr) = output(c);
    assert_eq!(code, 0, "{stdout}{stderr}");
    // runner.toml's `[browser]` the same way.
    write(
        d.path(),
        "runner.toml",
        "[browser]\ntimezone = \"Mars/Base\"\nlocale = \"de DE\"\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "ok0.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("runner.toml:2:12: error: `browser.timezone`: `Mars/Base` is not a time zone the browser knows"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "runner.toml:3:10: error: `browser.locale`: `de DE` is not a locale the browser takes"
        ),
        "{stderr}"
    );
}

/// A templated setting is checked once rendered: the flow fails before its first step at the
/// setting's line, with the words `validate` gives a literal one.
#[test]
fn a_rendered_locale_or_time_zone_is_checked_with_the_same_words() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        (
            "timezone",
            "`browser.timezone` (`{{ vars.v }}`): `Mars/Base` is not a time zone the browser knows",
        ),
        (
            "locale",
            "`browser.locale` (`{{ vars.v }}`): `not a locale` is not a locale the browser takes",
        ),
    ];
    for (key, want) in cases {
        let v = if key == "locale" {
            "not a locale"
        } else {
            "Mars/Base"
        };
        write(
            d.path(),
            "t.yaml",
            &format!(
                "name: t\nvars: {{ v: \"{v}\" }}\nbrowser:\n  {key}: \"{{{{ vars.v }}}}\"\nsteps:\n  - open: \"data:text/html,<p>x</p>\"\n"
            ),
        );
        let mut c = runner(d.path());
        c.args(["validate", "t.yaml"]);
        let (code, stdout, stderr) = output(c);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let Ran { code, stderr, .. } = flow_run(d.path()).arg("t.yaml").run();
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(stderr.contains("at t.yaml:4:3"), "{stderr}");
        assert!(!stderr.contains("Emulation."), "{stderr}");
    }
}

/// A literal `browser.device` agent-browser does not know is refused by `validate` at its
/// line, naming the devices it knows; it passed validate and failed the flow at run time
/// (attack 27, L4). The names agent-browser takes pass, in any case; `ipadpro`, which it
/// refuses (it takes `iphone16pro`), is refused.
#[test]
fn validate_refuses_a_device_agent_browser_does_not_know() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "d.yaml",
        "name: dev\nbrowser: { device: \"iPhone 99 Ultra\" }\nsteps:\n  - log: x\n",
    );
    let mut c = runner(d.path());
    c.args(["validate", "d.yaml"]);
    let (code, _, stderr) = output(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("d.yaml:2:20: error: `browser.device`: `iPhone 99 Ultra` is not a device agent-browser knows")
            && stderr.contains("iPhone 15"),
        "{stderr}"
    );
    for ok in [
        "iPhone 14",
        "iphone 16 pro",
        "Pixel 7",
        "iPad Pro",
        "Galaxy S25",
    ] {
        write(
            d.path(),
            "d.yaml",
            &format!("name: dev\nbrowser: {{ device: \"{ok}\" }}\nsteps:\n  - log: x\n"),
        );
        let mut c = runner(d.path());
        c.args(["validate", "d.yaml"]);
        let (code, _, stderr) = output(c);
        assert_eq!(code, 0, "{ok}: {stderr}");
    }
}
