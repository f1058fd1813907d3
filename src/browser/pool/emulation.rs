//! A flow's device settings (`browser:` of the flow), applied to its own context: the ones
//! agent-browser's `set` applies to the flow's tab.

use std::path::PathBuf;

use serde_json::Value;

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
