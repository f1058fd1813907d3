//! The server of `--web-server CMD` (with `--web-server-url` and/or `--web-server-port`): read as
//! if runner.toml said it (`[[web_server]]` named `server`, with `command`, `url`, `port`) and
//! checked by the same rules, its problems told in the options' words: the option, not a place
//! in a file runner made up.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::document;
use super::project::{Origin, ServersSpec, checked};
use crate::source::Diagnostic;

/// The option a node of the made-up document stands for.
pub(crate) fn option_at(pointer: &str) -> &'static str {
    let key = pointer.split('/').nth(3).unwrap_or("");
    match key {
        "url" => "--web-server-url",
        "port" => "--web-server-port",
        _ => "--web-server",
    }
}

/// The server of the options, checked; each problem names its option.
pub(crate) fn flag_server(
    command: &str,
    url: Option<&str>,
    port: Option<&str>,
) -> Result<ServersSpec, Vec<Diagnostic>> {
    let mut problems = Vec::new();
    if url.is_none() && port.is_none() {
        problems.push(
            Diagnostic::file_error(
                "--web-server",
                "--web-server needs --web-server-url or --web-server-port",
            )
            .with_help("--web-server-url URL: ready when the URL answers with a status below 404; --web-server-port PORT (or `auto`, a free one given as $PORT): the port it listens on, ready when it takes connections"),
        );
    }
    let port_value = port.and_then(|p| {
        let value = port_of(p);
        if value.is_none() {
            problems.push(Diagnostic::file_error(
                "--web-server-port",
                format!("`{p}` is not a port: give one from 1-65535, or `auto` (a free one)"),
            ));
        }
        value
    });
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut ws = serde_json::json!({ "name": "server", "command": command });
    if let Some(u) = url {
        ws["url"] = Value::String(u.to_string());
    }
    if let Some(p) = port_value {
        ws["port"] = p;
    }
    // JSON is YAML: the document reads (and is checked) as any project file is.
    let text = serde_json::json!({ "web_server": [ws] }).to_string();
    let in_words = |ds: Vec<Diagnostic>| ds.into_iter().map(in_options).collect::<Vec<_>>();
    let doc = document::parse_bytes(
        Path::new("--web-server"),
        text.into_bytes(),
        document::Format::Yaml,
    )
    .map_err(in_words)?;
    let project = checked(doc, PathBuf::new()).map_err(in_words)?;
    let mut spec = project
        .servers()
        .ok_or_else(|| vec![Diagnostic::file_error("--web-server", "no server")])?;
    spec.origin = Origin::Flags;
    Ok(spec)
}

/// `--web-server-port`: `auto`, or a port (1-65535); `None` for anything else.
fn port_of(p: &str) -> Option<Value> {
    match p.trim() {
        "auto" => Some(Value::String("auto".into())),
        n => n.parse::<u16>().ok().filter(|n| *n > 0).map(Value::from),
    }
}

/// A problem of the made-up document, told at the option it is about (with no source: the
/// document is runner's, not the user's); a help that speaks of runner.toml is left out.
fn in_options(d: Diagnostic) -> Diagnostic {
    let out = Diagnostic::file_error(option_at(&d.pointer), d.message);
    match d.help {
        Some(h) if !h.contains("runner.toml") && !h.contains("[[web_server]]") => out.with_help(h),
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_name_the_options() {
        let e = flag_server("app", None, None).unwrap_err();
        assert_eq!(e[0].file_name, "--web-server");
        assert!(
            e[0].message
                .contains("--web-server-url or --web-server-port")
        );
        for bad in ["0", "70000", "any", "-1"] {
            let e = flag_server("app", None, Some(bad)).unwrap_err();
            assert_eq!(e[0].file_name, "--web-server-port", "{bad}");
            assert!(e[0].message.contains("1-65535"), "{bad}: {}", e[0].message);
        }
        let e = flag_server("app", Some("{{ web_server.nope }}"), None).unwrap_err();
        assert_eq!(e[0].file_name, "--web-server-url");
        assert!(e[0].span.is_none());
        let e = flag_server("app {{ nope }}", None, Some("auto")).unwrap_err();
        assert_eq!(e[0].file_name, "--web-server");
        let ok = flag_server("app", None, Some("8080")).unwrap();
        assert_eq!(ok.origin, Origin::Flags);
        assert_eq!(ok.names(), ["server"]);
    }
}
