//! "Did you mean" suggestions.

/// The candidate closest to `input`, when one is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = input.to_lowercase();
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let close = candidates
        .iter()
        .map(|c| (*c, strsim::damerau_levenshtein(&lower, &c.to_lowercase())))
        .filter(|(c, d)| *d <= (c.len().max(input.len()) / 3).max(1))
        .min_by_key(|(_, d)| *d)
        .map(|(c, _)| c);
    // A different ending of the same word (`retries` for `retry`, `headless` for `headed`).
    close.or_else(|| {
        candidates
            .iter()
            .map(|c| {
                let common = lower
                    .chars()
                    .zip(c.to_lowercase().chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                (*c, common)
            })
            .filter(|(c, common)| {
                let shorter = c.chars().count().min(input.chars().count());
                *common >= 4 && *common * 10 >= shorter * 6
            })
            .max_by_key(|(_, common)| *common)
            .map(|(c, _)| c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        assert_eq!(did_you_mean("clik", ["click", "check"]), Some("click"));
        assert_eq!(did_you_mean("exce", ["exec", "eval"]), Some("exec"));
        assert_eq!(did_you_mean("zzzzzz", ["click"]), None);
        assert_eq!(did_you_mean("retries", ["retry", "timeout"]), Some("retry"));
        assert_eq!(did_you_mean("stepz", ["steps", "vars"]), Some("steps"));
        assert_eq!(did_you_mean("timeouts", ["timeout"]), Some("timeout"));
        assert_eq!(did_you_mean("timezone", ["timeout"]), None);
    }
}
