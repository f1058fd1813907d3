//! `browser.locale`, `browser.timezone` and `browser.device` (a flow's and runner.toml's
//! `[browser]`): the values the browser (or agent-browser, for a device) refuses, found before
//! it is asked. Chromium parses a locale as a BCP 47 tag with
//! ICU4X (after turning an ICU-style `en_US@calendar=…` into one), and takes a time zone ICU
//! knows: an IANA name or link (`Europe/Paris`, `UTC`, `US/Eastern`), an old ICU id (`PST`,
//! `SystemV/EST5`), or an offset (`GMT+05:30`); anything else fails the flow at its first
//! browser step. Checked by `validate` where the text is written, and again on a rendered value,
//! with the same words.

use serde_json::Value;

use super::schema::at_value;
use crate::source::{Diagnostic, SourceFile, SpanMap};

/// The zone ids ICU (so Chromium) takes that the IANA database does not name (or no longer
/// does): Java's three-letter ids, the `SystemV` zones, and a few removed links. Found by
/// giving Chromium 156 every id its ICU data holds (`Emulation.setTimezoneOverride`) and
/// keeping those `chrono-tz` does not list.
const ICU_ONLY_ZONES: [&str; 42] = [
    "ACT",
    "AET",
    "AGT",
    "ART",
    "AST",
    "BET",
    "BST",
    "CAT",
    "CNT",
    "CST",
    "CTT",
    "EAT",
    "ECT",
    "IET",
    "IST",
    "JST",
    "MIT",
    "NET",
    "NST",
    "PLT",
    "PNT",
    "PRT",
    "PST",
    "SST",
    "VST",
    "Canada/East-Saskatchewan",
    "Etc/Unknown",
    "Factory",
    "US/Pacific-New",
    "SystemV/AST4",
    "SystemV/AST4ADT",
    "SystemV/CST6",
    "SystemV/CST6CDT",
    "SystemV/EST5",
    "SystemV/EST5EDT",
    "SystemV/HST10",
    "SystemV/MST7",
    "SystemV/MST7MDT",
    "SystemV/PST8",
    "SystemV/PST8PDT",
    "SystemV/YST9",
    "SystemV/YST9YDT",
];

/// What is wrong with a time zone, if the browser would refuse it: the problem, and a help
/// (the name spelled as the browser knows it, when only its case is wrong).
pub(crate) fn timezone_problem(tz: &str) -> Option<(String, String)> {
    if tz.parse::<chrono_tz::Tz>().is_ok() || ICU_ONLY_ZONES.contains(&tz) || is_offset_id(tz) {
        return None;
    }
    let problem = format!(
        "`{}` is not a time zone the browser knows",
        tz.escape_debug()
    );
    let known = chrono_tz::TZ_VARIANTS
        .iter()
        .map(|z| z.name())
        .chain(ICU_ONLY_ZONES)
        .find(|z| z.eq_ignore_ascii_case(tz.trim()));
    let help = match known {
        Some(z) => format!("did you mean `{z}`? (the browser reads the name as written, case and all)"),
        None => "an IANA time zone name, as `Europe/Paris`, `America/New_York`, `Asia/Tokyo` or `UTC`, or an offset, as `GMT+05:30`".to_string(),
    };
    Some((problem, help))
}

/// An offset as ICU writes a custom zone: `GMT` (in any case), then `+` or `-`, then `h`, `hh`, `hmm`,
/// `hhmm`, `hhmmss` or `h[h]:mm[:ss]` (hours at most 23).
fn is_offset_id(tz: &str) -> bool {
    let Some(rest) = tz
        .get(..3)
        .filter(|g| g.eq_ignore_ascii_case("GMT"))
        .and_then(|_| tz[3..].strip_prefix(['+', '-']))
    else {
        return false;
    };
    let fields: Vec<&str> = rest.split(':').collect();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !fields.iter().all(|f| digits(f)) {
        return false;
    }
    let num = |s: &str| s.parse::<u32>().unwrap_or(u32::MAX);
    let (h, m, s) = match fields.as_slice() {
        [one] => match one.len() {
            1 | 2 => (num(one), 0, 0),
            3 | 4 => (num(&one[..one.len() - 2]), num(&one[one.len() - 2..]), 0),
            5 | 6 => {
                let n = one.len();
                (
                    num(&one[..n - 4]),
                    num(&one[n - 4..n - 2]),
                    num(&one[n - 2..]),
                )
            }
            _ => return false,
        },
        [h, m] if h.len() <= 2 && m.len() == 2 => (num(h), num(m), 0),
        [h, m, s] if h.len() <= 2 && m.len() == 2 && s.len() == 2 => (num(h), num(m), num(s)),
        _ => return false,
    };
    h <= 23 && m <= 59 && s <= 59
}

/// What is wrong with a locale, if the browser would refuse it: the problem and a help.
pub(crate) fn locale_problem(locale: &str) -> Option<(String, String)> {
    if is_locale(locale) {
        return None;
    }
    Some((
        format!(
            "`{}` is not a locale the browser takes",
            locale.escape_debug()
        ),
        "a BCP 47 language tag, as `de-DE`, `en`, `fr-CA` or `zh-Hant-TW`".to_string(),
    ))
}

/// Whether Chromium takes `locale`: at least 2 characters; an ICU-style id (`en_US`,
/// `de_DE@collation=phonebook`, `en_US.UTF-8`) is read as the tag it stands for (its keywords
/// after `@` are left to the browser); then a BCP 47 tag as ICU4X parses it.
fn is_locale(locale: &str) -> bool {
    if locale.len() < 2 {
        return false;
    }
    let base = locale.split('@').next().unwrap_or_default();
    // A POSIX codeset (`.UTF-8`) is not part of the tag.
    let tag = base.split('.').next().unwrap_or_default().replace('_', "-");
    icu_locale_core::Locale::try_from_str(&tag).is_ok()
}

/// The devices agent-browser 0.41.2 knows (`set device`), as it names them in its error.
const DEVICES: &str = "iPhone 12, iPhone 14, iPhone 15, iPhone 16, iPhone 16 Pro, iPhone 17, iPad, iPad Air, iPad Pro, Pixel 5, Pixel 7, Pixel 9, Galaxy S21, Galaxy S25";

/// The names agent-browser 0.41.2 takes for them, in any case: read from its binary (the
/// names of its `Unknown device` error, the older ones it still takes, `iPhone 14`, `Pixel 7`,
/// and its names without spaces, which only some have: `ipadpro` and `ipadair` are refused).
const DEVICE_NAMES: [&str; 25] = [
    "iphone 12",
    "iphone12",
    "iphone 14",
    "iphone14",
    "iphone 15",
    "iphone15",
    "iphone 16",
    "iphone16",
    "iphone 16 pro",
    "iphone16pro",
    "iphone 17",
    "iphone17",
    "ipad",
    "ipad air",
    "ipad pro",
    "pixel 5",
    "pixel5",
    "pixel 7",
    "pixel7",
    "pixel 9",
    "pixel9",
    "galaxy s21",
    "galaxys21",
    "galaxy s25",
    "galaxys25",
];

/// What is wrong with a device, if agent-browser would not know it: the problem and a help.
pub(crate) fn device_problem(device: &str) -> Option<(String, String)> {
    if DEVICE_NAMES.contains(&device.to_lowercase().as_str()) {
        return None;
    }
    Some((
        format!(
            "`{}` is not a device agent-browser knows",
            device.escape_debug()
        ),
        format!("one of: {DEVICES} (or set `viewport` for a size alone)"),
    ))
}

/// The problems of `locale`, `timezone` and `device` in the `browser` map at `ptr` of a document (a
/// flow's `/browser`, runner.toml's), where they are written without a template.
pub(crate) fn problems(
    file: &SourceFile,
    spans: &SpanMap,
    doc: &Value,
    ptr: &str,
    out: &mut Vec<Diagnostic>,
) {
    for (key, check) in [
        (
            "locale",
            locale_problem as fn(&str) -> Option<(String, String)>,
        ),
        ("timezone", timezone_problem),
        ("device", device_problem),
    ] {
        let at = format!("{ptr}/{key}");
        let Some(v) = doc.pointer(&at).and_then(Value::as_str) else {
            continue;
        };
        if crate::template::is_template(v) {
            continue;
        }
        if let Some((problem, help)) = check(v) {
            out.push(
                at_value(file, spans, &at, format!("`browser.{key}`: {problem}")).with_help(help),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{locale_problem, timezone_problem};

    /// What Chromium 156 took and refused (`Emulation.setTimezoneOverride`,
    /// `Emulation.setLocaleOverride`), tried one by one: the checks agree with it.
    #[test]
    fn the_checks_take_what_chromium_takes() {
        let zones_taken = [
            "UTC",
            "Etc/UTC",
            "US/Eastern",
            "PST",
            "EST",
            "EST5EDT",
            "GMT+5",
            "GMT+05:00",
            "GMT+0530",
            "Europe/Kyiv",
            "Europe/Kiev",
            "America/Ciudad_Juarez",
            "Asia/Calcutta",
            "Zulu",
            "UCT",
            "GMT0",
            "SystemV/AST4",
            "Etc/GMT+5",
            "CET",
            "ACT",
            "IST",
            "Factory",
            "GMT",
            "Etc/Unknown",
            "gmt+5",
            "Gmt+5",
            "GMT+23:59",
            "GMT+5:30",
            "GMT+530",
            "GMT+005",
            "GMT+123456",
            "GMT-5",
            "GMT+23:59:59",
            "America/Nuuk",
            "Pacific/Kanton",
            "Europe/Belfast",
            "Etc/GMT-14",
            "Canada/East-Saskatchewan",
            "US/Pacific-New",
            "ROC",
            "Asia/Tokyo",
        ];
        for z in zones_taken {
            assert_eq!(timezone_problem(z), None, "{z}");
        }
        let zones_refused = [
            "utc",
            "Mars/Base",
            "Z",
            "europe/paris",
            "+05:00",
            "Asia/Tokyo ",
            "Asia/Riyadh87",
            "Asia/Hanoi",
            "",
            "GMT+24",
            "GMT+0:5",
            "GMT+1234567",
            "GMT+5:3",
            "GMT+:30",
        ];
        for z in zones_refused {
            assert!(timezone_problem(z).is_some(), "{z}");
        }
        let (problem, help) = timezone_problem("utc").unwrap();
        assert_eq!(problem, "`utc` is not a time zone the browser knows");
        assert!(help.starts_with("did you mean `UTC`?"), "{help}");
        assert!(
            timezone_problem("europe/paris")
                .unwrap()
                .1
                .contains("`Europe/Paris`")
        );
        let locales_taken = [
            "de-DE",
            "en",
            "zh-Hant-TW",
            "de_DE",
            "xx",
            "xx-YY",
            "en-US-u-ca-buddhist",
            "EN-us",
            "de-DE-1996",
            "fr-150",
            "tlh",
            "de-DE-x-foo",
            "und",
            "en_US.UTF-8",
            "qaa",
            "zz-ZZ",
            "sr-Latn-RS",
            "es-419",
            "de_DE@euro",
            "en_US@calendar=gregorian",
            "en.UTF-8",
            "de-DE.UTF-8",
            "art-lojban",
            "en-US-POSIX",
            "de-CH-1901",
            "en_US.UTF-8@euro",
            "en_US.",
            "ja_JP.eucJP",
        ];
        for l in locales_taken {
            assert_eq!(locale_problem(l), None, "{l}");
        }
        let locales_refused = [
            "not a locale",
            "i-klingon",
            "x-private",
            "123",
            "en-",
            "C",
            "root",
            "a",
            "toolonglanguage",
            "de DE",
            "",
            "en_",
            "_US",
            "zh-min-nan",
            "sgn-BE-FR",
            "en-US-u",
        ];
        for l in locales_refused {
            assert!(locale_problem(l).is_some(), "{l}");
        }
    }
}
