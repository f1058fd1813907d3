//! What runner says, before a run, about a secret in `browser.headers`: the browser sends those
//! headers with every request a page makes, to every origin it loads from (a CDN, an analytics
//! script, an ad), as Playwright's `extraHTTPHeaders` do, so a token there reaches third parties.
//! Masking hides it in runner's outputs, not on the wire.

use std::sync::Arc;

use crate::config::flows::LoadedFlow;
use crate::report::Reporter;

/// Warns (the run goes on) once per flow whose `browser.headers` (its own, or runner.toml's
/// `[browser] headers` it takes) has a value that reads a secret, naming the headers.
pub(super) fn warn_about_secret_headers(flows: &[Arc<LoadedFlow>], reporter: &Reporter) {
    for f in flows {
        let Some(headers) = f.flow.browser.as_ref().and_then(|b| b.headers.as_ref()) else {
            continue;
        };
        let named: Vec<&str> = headers
            .iter()
            .filter(|(_, v)| reads_a_secret(v))
            .map(|(k, _)| k.as_str())
            .collect();
        if !named.is_empty() {
            reporter.warn(&format!(
                "flow `{}`: browser.headers {} read a secret: the browser sends them with every request its pages make, to every origin they load from (third-party scripts, images), so the secret reaches those too; sign in with a saved `state`, or send it with `request` steps (their headers stay on one origin)",
                f.flow.name,
                named.join(", ")
            ));
        }
    }
}

/// Whether a template reads `secrets` (`{{ secrets.T }}`, `secrets['T']`), as the template
/// lexer names what it reads (a template that does not parse is validate's to refuse).
fn reads_a_secret(value: &str) -> bool {
    crate::template::names_read(value).is_ok_and(|names| names.iter().any(|n| n == "secrets"))
}

#[cfg(test)]
mod tests {
    use super::reads_a_secret;

    #[test]
    fn a_template_that_reads_secrets_is_told_apart() {
        assert!(reads_a_secret("Bearer {{ secrets.API_TOKEN }}"));
        assert!(reads_a_secret("{{ secrets['T'] | b64encode }}"));
        assert!(!reads_a_secret("Bearer {{ vars.secrets_note }}"));
        assert!(!reads_a_secret("secrets.T"));
        assert!(!reads_a_secret("nightly"));
    }
}
