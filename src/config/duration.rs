//! Durations as flows write them: `250ms`, `5s`, `2m`, `1h`.

use std::time::Duration;

use serde_json::Value;

use crate::source::{Diagnostic, SourceFile, SpanMap};

/// The longest duration a flow may ask for: anything longer is a typo, and would overflow the
/// clock arithmetic of deadlines.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Parses a duration; the message says what is wrong.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let d =
        humantime::parse_duration(s.trim()).map_err(|e| format!("invalid duration `{s}`: {e}"))?;
    if d.is_zero() {
        return Err(format!("duration `{s}` must be more than zero"));
    }
    if d > MAX_DURATION {
        return Err(format!("duration `{s}` is longer than 7 days"));
    }
    Ok(d)
}

/// Parses a duration as a flow writes it (the schema's form: a number, then `ms`, `s`, `m` or
/// `h`), with [`parse_duration`]'s limits: the rule for a command-line flag that takes one.
pub(crate) fn parse_written_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let unit = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let number = &t[..t.len() - unit.len()];
    let well_formed = !number.is_empty()
        && !number.starts_with('.')
        && !number.ends_with('.')
        && number.matches('.').count() <= 1
        && matches!(unit.trim_start(), "ms" | "s" | "m" | "h");
    if !well_formed {
        return Err(format!(
            "invalid duration `{s}`: a number followed by ms, s, m or h (`250ms`, `5s`, `2m`)"
        ));
    }
    parse_duration(t)
}

/// The problem with the duration at `ptr` of a document (flow or runner.toml alike), at its
/// place in the file; `None` when there is none there or it is right.
pub(crate) fn problem_at(
    file: &SourceFile,
    spans: &SpanMap,
    value: &Value,
    ptr: &str,
) -> Option<Diagnostic> {
    let s = value.pointer(ptr).and_then(Value::as_str)?;
    let e = parse_duration(s).err()?;
    Some(
        super::schema::at_value(file, spans, ptr, e)
            .with_help("write a number and a unit: `250ms`, `5s`, `2m`, `1h`"),
    )
}

/// Parses a size: bytes, or with `B`, `KB`, `MB`, `KiB`, `MiB` (KB = 1024 bytes, as editors and
/// browsers count page weight).
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| format!("invalid size `{s}`"))?;
    let mult = match unit.trim() {
        "" | "B" => 1.0,
        "KB" | "KiB" => 1024.0,
        "MB" | "MiB" => 1024.0 * 1024.0,
        _ => return Err(format!("invalid size `{s}`")),
    };
    // `n` has only digits and a dot (never negative), and sizes are far below 2^53 bytes.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok((n * mult) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_durations_are_refused() {
        assert!(parse_duration("7d").is_ok());
        assert!(parse_duration("8d").is_err());
        assert!(parse_duration("18446744073709551615s").is_err());
    }

    #[test]
    fn a_flags_duration_is_written_as_in_flows() {
        assert_eq!(
            parse_written_duration("5s").unwrap(),
            Duration::from_secs(5)
        );
        assert_eq!(
            parse_written_duration(" 250 ms ").unwrap(),
            Duration::from_millis(250)
        );
        for bad in [
            "5",
            "5 parsecs",
            "5sec",
            "1s 500ms",
            "s",
            ".5s",
            "0s",
            "8d",
            "9h 1m",
        ] {
            assert!(parse_written_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("5 parsecs").is_err());
        assert_eq!(parse_size("50KB").unwrap(), 51_200);
        assert_eq!(parse_size("1MB").unwrap(), 1_048_576);
        assert_eq!(parse_size("10").unwrap(), 10);
        assert!(parse_size("5 GB").is_err());
    }
}
