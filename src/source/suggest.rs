//! "Did you mean" suggestions.

/// The candidate closest to `input`, when one is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = input.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (c, strsim::damerau_levenshtein(&lower, &c.to_lowercase())))
        .filter(|(c, d)| *d <= (c.len().max(input.len()) / 3).max(1))
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("clik", ["click", "check"]), Some("click"));
        assert_eq!(did_you_mean("exce", ["exec", "eval"]), Some("exec"));
        assert_eq!(did_you_mean("zzzzzz", ["click"]), None);
    }
}
