//! A URL glob's host, as the browser requests it: a host with a non-ASCII letter is requested
//! in its punycode form (`xn--`), so a glob naming it otherwise matches no request (review 28,
//! #4). One rule for `validate` and the run (`browser::driver::url_glob`).

/// Why `glob` (a `route`'s or `expect: { request }`'s `url`) cannot match a URL the browser
/// requests: its host has a non-ASCII letter. `None` when it has no `scheme://` or its host is
/// ASCII.
pub(crate) fn host_problem(glob: &str) -> Option<String> {
    let (_, rest) = glob.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    (!host.is_ascii()).then(|| {
        format!(
            "the host `{host}` has a non-ASCII letter: the browser requests its punycode form (`xn--...`), so write that, or start the glob with `**/`"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::host_problem;

    #[test]
    fn a_non_ascii_host_is_refused_an_ascii_one_or_a_path_kept() {
        assert!(host_problem("http://café.example/**").is_some());
        assert!(host_problem("http://xn--caf-dma.example/**").is_none());
        assert!(host_problem("**/café/menu").is_none());
        assert!(host_problem("https://h/café").is_none());
    }
}
