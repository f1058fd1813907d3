//! Which flows a run runs: the filters (`--tag`, `--exclude-tag`, `--grep`, `--grep-invert`),
//! then the shard (`--shard I/N`).

use std::sync::Arc;

use super::args::RunArgs;
use super::error::CliError;
use crate::config::flows::LoadedFlow;
use crate::config::numbers::whole_in;

/// `--shard`, parsed.
pub(super) fn shard(args: &RunArgs) -> Result<Option<(usize, usize)>, CliError> {
    args.shard
        .as_deref()
        .map(parse_shard)
        .transpose()
        .map_err(CliError::Usage)
}

/// `I/N` with 1 <= I <= N.
pub(crate) fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let err = || format!("invalid --shard `{s}`: expected I/N with 1 <= I <= N, like 1/3");
    let (i, n) = s.split_once('/').ok_or_else(err)?;
    let n = whole_in::<u32>(n, 1..=MAX_SHARDS)
        .map_err(|why| format!("invalid --shard `{s}`: N {why}"))?;
    let i = whole_in::<u32>(i, 1..=n).map_err(|why| format!("invalid --shard `{s}`: I {why}"))?;
    Ok((i as usize, n as usize))
}

/// The most slices `--shard` cuts a run into (CI systems run a few hundred jobs at most).
pub(super) const MAX_SHARDS: u32 = 1000;

/// Which flows run: tags and names.
pub(super) struct Filter<'a> {
    tags: &'a [String],
    exclude: &'a [String],
    grep: Option<regex::Regex>,
    grep_invert: Option<regex::Regex>,
}

impl Filter<'_> {
    pub(super) fn new(args: &RunArgs) -> Result<Filter<'_>, CliError> {
        let re = |flag: &str, p: &Option<String>| {
            p.as_deref()
                .map(|p| {
                    regex::Regex::new(p).map_err(|e| {
                        CliError::Usage(format!("{flag} `{p}` is not a regular expression: {e}"))
                    })
                })
                .transpose()
        };
        Ok(Filter {
            tags: &args.tags,
            exclude: &args.exclude_tags,
            grep: re("--grep", &args.grep)?,
            grep_invert: re("--grep-invert", &args.grep_invert)?,
        })
    }

    fn keeps(&self, f: &LoadedFlow) -> bool {
        let name = &f.flow.name;
        (self.tags.is_empty() || f.flow.tags.iter().any(|t| self.tags.contains(t)))
            && !f.flow.tags.iter().any(|t| self.exclude.contains(t))
            && self.grep.as_ref().is_none_or(|r| r.is_match(name))
            && !self.grep_invert.as_ref().is_some_and(|r| r.is_match(name))
    }
}

/// The filters, then the shard: tests sorted by path (a suite's in its order), the I-th of
/// every N groups (a flow alone is a group; flows joined by a saved state are one, see
/// `engine::state_groups`), the groups in the order of their first flow.
pub(super) fn select(
    mut flows: Vec<Arc<LoadedFlow>>,
    filter: &Filter<'_>,
    shard: Option<(usize, usize)>,
) -> Vec<Arc<LoadedFlow>> {
    flows.retain(|f| filter.keeps(f));
    flows.sort_by(|a, b| (&a.path, a.ordinal).cmp(&(&b.path, b.ordinal)));
    flows.dedup_by(|a, b| (&a.path, a.ordinal) == (&b.path, b.ordinal));
    if let Some((i, n)) = shard {
        let groups = crate::engine::state_groups(&flows);
        let mut firsts = groups.clone();
        firsts.sort_unstable();
        firsts.dedup();
        flows = flows
            .into_iter()
            .zip(groups)
            .filter(|(_, g)| firsts.binary_search(g).is_ok_and(|k| k % n == i - 1))
            .map(|(f, _)| f)
            .collect();
    }
    flows
}

/// What to say when `--shard I/N` cannot share `selected` (the filtered flows) out evenly:
/// flows joined by a saved state run in one shard (see `select`), and their group is larger
/// than a shard's share.
pub(super) fn uneven(
    selected: &[Arc<LoadedFlow>],
    shard: Option<(usize, usize)>,
) -> Option<String> {
    let (_, n) = shard?;
    let groups = crate::engine::state_groups(selected);
    let size = |g: usize| groups.iter().filter(|&&x| x == g).count();
    let (first, biggest) = groups
        .iter()
        .map(|&g| (g, size(g)))
        .max_by_key(|&(g, k)| (k, std::cmp::Reverse(g)))?;
    (biggest > 1 && biggest > selected.len().div_ceil(n)).then(|| {
        format!(
            "--shard: {biggest} of the {} flows selected are joined by a saved browser.state with `{}` (a flow that loads a state runs in the shard of the flow that saves it): one shard runs them all, and the shards are uneven",
            selected.len(),
            selected[first].flow.name
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards() {
        assert_eq!(parse_shard("2/3"), Ok((2, 3)));
        assert!(parse_shard("0/3").is_err());
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("x").is_err());
    }
}
