//! A flow's device settings (`browser:` of the flow), applied to its own context: the ones
//! agent-browser's `set` applies to the flow's tab.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::browser::driver::command::{Command, ReducedMotion};

/// A flow's device settings, applied to its own context.
#[derive(Debug, Clone, Default)]
pub(crate) struct Emulation {
    /// A device agent-browser knows (`iPhone 14`, `Pixel 7`): viewport, scale, touch, user agent.
    pub(crate) device: Option<String>,
    pub(crate) viewport: Option<(u32, u32)>,
    pub(crate) locale: Option<String>,
    pub(crate) timezone: Option<String>,
    /// `light` or `dark`.
    pub(crate) color_scheme: Option<String>,
    pub(crate) geolocation: Option<(f64, f64)>,
    pub(crate) offline: bool,
    /// Extra HTTP headers sent with every request.
    pub(crate) headers: Option<Value>,
    /// A saved state (cookies, storage) to load (an absolute path).
    pub(crate) state: Option<PathBuf>,
}

/// The agent-browser commands that apply a flow's device settings (sent in one batch).
pub(super) fn settings(e: &Emulation) -> Vec<Command> {
    let mut commands: Vec<Command> = Vec::new();
    if let Some(d) = &e.device {
        commands.push(Command::Device { device: d.clone() });
    }
    if let Some((w, h)) = e.viewport {
        commands.push(Command::Viewport {
            width: w.into(),
            height: h.into(),
        });
    }
    if let Some(c) = &e.color_scheme {
        commands.push(Command::EmulateMedia {
            color_scheme: c.clone(),
            reduced_motion: ReducedMotion::NoPreference,
        });
    }
    if let Some((lat, lng)) = e.geolocation {
        commands.push(Command::Geolocation {
            latitude: lat,
            longitude: lng,
        });
    }
    if e.offline {
        commands.push(Command::Offline { offline: true });
    }
    if let Some(h) = &e.headers {
        commands.push(Command::Headers { headers: h.clone() });
    }
    commands
}

/// The DevTools call that gives a tab a touch screen with five touch points: every `device`
/// runner takes is a phone or a tablet (`config::browser_values`), as Playwright's devices of
/// them have `hasTouch`.
pub(super) fn touch() -> (&'static str, Value) {
    (
        "Emulation.setTouchEmulationEnabled",
        json!({ "enabled": true, "maxTouchPoints": 5 }),
    )
}

/// The DevTools calls (method, parameters) that give a tab the flow's pages open (a popup, a
/// new tab) the flow's settings, as its first tab has them (see `driver::new_tabs`);
/// `user_agent` is the one the first tab keeps with its locale. A `device` is agent-browser's
/// to apply, by its own list, to the flow's first tab only: a new tab gets the flow's
/// `viewport`, not the device's, but the device's touch screen.
pub(crate) fn new_tab_calls(e: &Emulation, user_agent: Option<&str>) -> Vec<(String, Value)> {
    let mut calls: Vec<(&str, Value)> = Vec::new();
    if e.device.is_some() {
        calls.push(touch());
    }
    if let Some((w, h)) = e.viewport {
        let metrics = json!({ "width": w, "height": h, "deviceScaleFactor": 0, "mobile": false });
        calls.push(("Emulation.setDeviceMetricsOverride", metrics));
    }
    if let Some(c) = &e.color_scheme {
        let features = json!([{ "name": "prefers-color-scheme", "value": c }]);
        calls.push((
            "Emulation.setEmulatedMedia",
            json!({ "features": features }),
        ));
    }
    if let Some((lat, lng)) = e.geolocation {
        let at = json!({ "latitude": lat, "longitude": lng, "accuracy": 1 });
        calls.push(("Emulation.setGeolocationOverride", at));
    }
    if let Some(l) = &e.locale {
        calls.push(("Emulation.setLocaleOverride", json!({ "locale": l })));
        if let Some(ua) = user_agent {
            let ua = json!({ "userAgent": ua, "acceptLanguage": l });
            calls.push(("Emulation.setUserAgentOverride", ua));
        }
    }
    if let Some(tz) = &e.timezone {
        calls.push(("Emulation.setTimezoneOverride", json!({ "timezoneId": tz })));
    }
    // Always: the tab's requests are recorded over this session from its first one on (see
    // `driver::request_log`), and so are those of the dedicated workers it starts, held by this
    // session alone until they are recorded and have the flow's language (`driver::new_tabs`).
    calls.push((
        "Network.enable",
        crate::browser::driver::request_log::network_enable(),
    ));
    calls.push((
        "Target.setAutoAttach",
        crate::browser::driver::cdp::worker_auto_attach(),
    ));
    if let Some(h) = &e.headers {
        calls.push(("Network.setExtraHTTPHeaders", json!({ "headers": h })));
    }
    if e.offline {
        let conditions = json!({ "offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1 });
        calls.push(("Network.emulateNetworkConditions", conditions));
    }
    calls.into_iter().map(|(m, p)| (m.to_string(), p)).collect()
}

/// The DevTools calls for a dedicated worker a flow's page starts, in the one session of
/// runner's that holds it, before it runs: with a locale, the flow's language
/// (`navigator.language`, and its requests' Accept-Language), with `user_agent` the one its tab
/// keeps; with `headers`, those on its requests, as on its page's (the same rendered values,
/// to every origin); always, its requests recorded (they are its page's, see
/// `driver::request_log`), and the workers it starts in turn held the same way.
pub(crate) fn worker_calls(e: &Emulation, user_agent: Option<&str>) -> Vec<(String, Value)> {
    let mut calls = Vec::new();
    if let (Some(l), Some(ua)) = (&e.locale, user_agent) {
        calls.push((
            "Network.setUserAgentOverride".to_string(),
            json!({ "userAgent": ua, "acceptLanguage": l }),
        ));
    }
    if let Some(h) = &e.headers {
        calls.push((
            "Network.setExtraHTTPHeaders".to_string(),
            json!({ "headers": h }),
        ));
    }
    calls.push((
        "Network.enable".to_string(),
        crate::browser::driver::request_log::network_enable(),
    ));
    calls.push((
        "Target.setAutoAttach".to_string(),
        crate::browser::driver::cdp::worker_auto_attach(),
    ));
    calls
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Emulation, new_tab_calls, worker_calls};

    /// A new tab gets each setting the flow has, as DevTools calls; a device does not follow
    /// (agent-browser's own list) but for its touch screen, nor a user agent without a locale. Every new tab turns on
    /// its requests' events.
    #[test]
    fn a_new_tab_gets_the_flows_settings() {
        let e = Emulation {
            device: Some("iPhone 14".into()),
            viewport: Some((500, 400)),
            locale: Some("de-DE".into()),
            timezone: Some("Asia/Tokyo".into()),
            color_scheme: Some("dark".into()),
            headers: Some(json!({ "X-Team": "blue" })),
            ..Emulation::default()
        };
        let calls = new_tab_calls(&e, Some("UA"));
        let methods: Vec<&str> = calls.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            methods,
            [
                "Emulation.setTouchEmulationEnabled",
                "Emulation.setDeviceMetricsOverride",
                "Emulation.setEmulatedMedia",
                "Emulation.setLocaleOverride",
                "Emulation.setUserAgentOverride",
                "Emulation.setTimezoneOverride",
                "Network.enable",
                "Target.setAutoAttach",
                "Network.setExtraHTTPHeaders",
            ]
        );
        assert_eq!(calls[0].1["maxTouchPoints"], 5);
        assert_eq!(calls[1].1["width"], 500);
        assert_eq!(
            calls[4].1,
            json!({ "userAgent": "UA", "acceptLanguage": "de-DE" })
        );
        assert_eq!(calls[7].1["filter"][0]["type"], "worker");
        assert_eq!(calls[7].1["waitForDebuggerOnStart"], true);
        assert_eq!(calls[8].1, json!({ "headers": { "X-Team": "blue" } }));
        // Without settings, a new tab still records its requests and its workers' (see
        // `driver::request_log`).
        let bare = new_tab_calls(&Emulation::default(), None);
        let bare: Vec<&str> = bare.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(bare, ["Network.enable", "Target.setAutoAttach"]);
        // A worker's: its requests recorded and its own workers held, with or without a locale.
        let methods = |e: &Emulation, ua| -> Vec<String> {
            worker_calls(e, ua).into_iter().map(|(m, _)| m).collect()
        };
        let held = ["Network.enable", "Target.setAutoAttach"];
        assert_eq!(methods(&Emulation::default(), None), held);
        let with_settings = worker_calls(&e, Some("UA"));
        let names: Vec<&str> = with_settings.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            names,
            [
                "Network.setUserAgentOverride",
                "Network.setExtraHTTPHeaders",
                "Network.enable",
                "Target.setAutoAttach",
            ]
        );
        assert_eq!(
            with_settings[1].1,
            json!({ "headers": { "X-Team": "blue" } })
        );
    }
}
