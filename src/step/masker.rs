//! Masking secret values in everything that leaves the engine: one masker per run (its flows,
//! their sub-flows and its servers share it; a sub-flow adds its secrets to it), seeded with
//! each secret in every form it travels in ([`super::secret_forms`]); values made of a secret by
//! a template are added as they are rendered (GitHub Actions' `add-mask`: what is made of a
//! secret is a secret), with their forms too. Every match is replaced, overlapping ones together, longest first.
//!
//! What a template makes of a secret need not be text: a list of its characters or batches
//! (`| list`, `| batch(4)`, `.split('-')`) is masked as it prints (minijinja's `["a", "b"]` and
//! JSON's `["a","b"]`, its *shape*), a list or map in a report whose JSON shows such a shape is
//! masked whole, and each piece of it of at least `MIN_PART` characters that is a piece of a
//! secret or of a text made of one (also in another case, or reversed) is masked on its own.
//! A piece that is not (a user name beside a token in a response) is left as it is.
//!
//! What is learned is bounded: a value made of a secret is learned whole up to `MAX_LEARNED`
//! bytes (a longer one, a command's whole output read through `| trim` or `| fromjson` beside
//! the token in it, would make the matcher hundreds of megabytes), until `LEARN_BUDGET` bytes of
//! learned forms in a run. Beside it, and past those, what the secrets became in it is learned
//! ([`Masker::add_spans`]): the spans that differ when the template is evaluated again with each
//! secret, and each text a secret became, hidden in its inputs ([`Masker::hidden`]). Each secret
//! is also masked as the common filters make it (its cases and reverses:
//! [`super::secret_forms::transforms`]).
//!
//! A masker that cannot look for its secrets (a matcher that cannot be built, a lock poisoned by
//! a panic) fails closed: every text is masked whole ([`Matcher::All`]).

use std::collections::HashSet;
use std::sync::{Arc, RwLock};

use aho_corasick::AhoCorasick;
use serde_json::Value;

use super::secret_forms::{MIN_PART, forms, plain_forms, transforms};
use super::shown::{View, has_hidden, secret_shown, views};
use spread::{Forms, spread_forms};

/// The most text [`Masker::settled`] holds back to look at as it is shown: past it, an escape
/// sequence inside a secret that is longer than this could split it between two pieces of a
/// stream (its bytes are never together in what is written; a cleaned copy of the whole could
/// join them).
const MAX_HELD: usize = 1024 * 1024;

/// The longest value made of a secret (a text, a list's or map's shape), in bytes, that is
/// learned whole.
pub(crate) const MAX_LEARNED: usize = 4 * 1024;

/// The bytes of learned forms (of values made of a secret) past which a value made of one is not
/// learned whole: only what the secrets became in it (or, where that cannot be told, the value
/// when it shows no secret as it is: a transform of one).
const LEARN_BUDGET: usize = 256 * 1024;

/// The longest value made of a secret, in bytes, whose second evaluation told nothing of what
/// the secrets became ([`Masker::add_untold`]) that is learned whole, as it is and in a JSON
/// string; and the bytes of such forms learned in a run.
const MAX_UNTOLD: usize = 64 * 1024;
const UNTOLD_BUDGET: usize = 256 * 1024;

/// The bytes of forms of spans ([`Masker::add_spans`]), and how many spans, learned with all
/// their forms in a run: past either, a span is learned only as it is and inside a JSON string.
/// An output whose every line holds a secret beside text that varies can make one span per
/// line, each of some eighty forms.
const SPAN_BUDGET: usize = 256 * 1024;
const SPAN_COUNT: usize = 256;

/// The bytes of patterns up to which the matcher may be a DFA.
const DFA_BYTES: usize = 16 * 1024;

/// Replaces every secret value, and its forms, with `***`. Clones share their values: what one
/// learns (a sub-flow's secret, a derived value), all mask.
#[derive(Debug, Clone, Default)]
pub(crate) struct Masker {
    inner: Arc<RwLock<Inner>>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Every form masked, in the order learnt.
    values: Vec<String>,
    known: HashSet<String>,
    /// Every form of each secret, lower-cased, each after a NUL: where a piece of a list made
    /// of a secret is looked for.
    secrets: String,
    /// Whether a shape is masked: then a whole list or map whose JSON shows one is.
    shapes: bool,
    /// Each secret added, with its name when added by name (an atlas keeps the names:
    /// [`Masker::names`]; an agent's cache key names the secrets: [`Masker::mask_named`]).
    added: Vec<(Option<String>, String)>,
    longest: usize,
    /// The bytes of the forms of values made of a secret learned so far.
    learned: usize,
    /// The bytes of the forms of those too long to be learned with all their forms, of which
    /// nothing else could be told ([`Masker::add_untold`]).
    untold: usize,
    /// The bytes of the forms of spans, and the spans, learned with all their forms.
    span_bytes: usize,
    span_count: usize,
    /// The matcher of `values`; none until it is needed after a change.
    matcher: Option<Matcher>,
    /// The forms of the secrets and of what they became (spans, values made of one that are
    /// not known any closer), not of values learned whole around those: what
    /// [`Masker::hidden`] hides. A value learned whole holds text that is no secret (a line of
    /// `a`s beside the token), which hidden would make a difference far beyond the secret.
    made: Vec<String>,
    made_known: HashSet<String>,
    /// The matcher of `made`, as `matcher` is of `values`.
    made_matcher: Option<Matcher>,
    /// Each secret's forms looked for with separators between its characters
    /// ([`spread`]), in `matcher`.
    spread: Vec<String>,
}

/// What a masker looks for its secrets with: the matcher of their forms, or, where it cannot
/// be had (a matcher that could not be built, the lock poisoned by a panic while it was held for
/// writing: what it holds may be half changed), one that finds every text (fails closed: a text
/// is masked whole, never shown as it is).
#[derive(Debug, Clone)]
enum Matcher {
    Forms(Arc<Forms>),
    All,
}

/// A list of patterns in [`Inner`] and the matcher kept of them.
type Patterns = fn(&Inner) -> (&Vec<String>, &Option<Matcher>);
/// [`Patterns`] and the spread forms looked for with them, the matcher to be set.
type PatternsMut = fn(&mut Inner) -> (&Vec<String>, &[String], &mut Option<Matcher>);

/// What a value added is: a secret, what one became (a text made of it, a span of one; `Plain`:
/// one learned only as it is and inside a JSON string, past a budget), a value made of one
/// learned whole with what is around it (`Untold`: a long one, learned as `Plain` is, of which
/// nothing else could be told), or a list's or map's shape.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Secret,
    Derived,
    Plain,
    Whole,
    Untold,
    Shape,
}

impl Masker {
    /// A masker for these secrets (empty ones, or only white space, are ignored: they would
    /// match everywhere).
    #[cfg(test)]
    pub(crate) fn new(values: impl IntoIterator<Item = String>) -> Masker {
        let m = Masker::default();
        m.add_all(values);
        m
    }

    /// Adds values of `kind` with their forms; the matcher is built again when next needed
    /// (many values are added at once, between two uses).
    /// A secret comes as each value it is shown as ([`secret_shown`]) that may be a secret's,
    /// each with its transforms (its cases and reverses) as they show, as values made of it.
    fn learn(&self, values: impl IntoIterator<Item = String>, kind: Kind) {
        let mut new: Vec<(String, Kind)> = Vec::new();
        let mut spread = Vec::new();
        let values = values.into_iter().flat_map(|v| match kind {
            Kind::Secret => secret_shown(&v)
                .into_iter()
                .filter(|f| Masker::is_secret_value(f))
                .collect(),
            _ => vec![v],
        });
        for v in values.filter(|v| !v.is_empty()) {
            let all = if matches!(kind, Kind::Plain | Kind::Untold) {
                plain_forms
            } else {
                forms
            };
            new.extend(all(&v).into_iter().map(|f| (f, kind)));
            if kind == Kind::Secret {
                spread.extend(spread_forms(&v));
                let made = transforms(&v).into_iter().flat_map(|t| plain_forms(&t));
                new.extend(made.map(|f| (f, Kind::Derived)));
            }
        }
        if new.is_empty() {
            return;
        }
        let Ok(mut inner) = self.inner.write() else {
            return;
        };
        for f in spread {
            if !inner.spread.contains(&f) {
                inner.spread.push(f);
                inner.matcher = None;
            }
        }
        for (v, kind) in new {
            if kind == Kind::Secret {
                inner.secrets.push('\0');
                inner.secrets.push_str(&v.to_lowercase());
            }
            let made = matches!(kind, Kind::Secret | Kind::Derived | Kind::Plain);
            if made && inner.made_known.insert(v.clone()) {
                inner.made.push(v.clone());
                inner.made_matcher = None;
            }
            if inner.known.insert(v.clone()) {
                inner.longest = inner.longest.max(v.len());
                match kind {
                    Kind::Secret => {}
                    Kind::Untold => inner.untold += v.len(),
                    _ => inner.learned += v.len(),
                }
                inner.values.push(v);
                inner.matcher = None;
            }
        }
        inner.shapes |= kind == Kind::Shape;
    }

    /// Of values made of a secret, those learned whole: each of at most `MAX_LEARNED` bytes
    /// and `min` characters; past `LEARN_BUDGET`, none when `told` (what the secret became in
    /// them is known, as spans [`Masker::add_spans`] learns), else only those that show no
    /// secret as it is (a transform of one). And whether each value long enough was kept
    /// (else its spans are learned).
    fn learnable(
        &self,
        values: impl IntoIterator<Item = String>,
        min: usize,
        told: bool,
    ) -> (Vec<String>, bool) {
        let spent = self.inner.read().map_or(0, |i| i.learned) >= LEARN_BUDGET;
        let mut whole = true;
        let kept = values
            .into_iter()
            .filter(|v| v.trim().chars().count() >= min)
            .filter(|v| {
                let kept = v.len() <= MAX_LEARNED && (!spent || (!told && !self.holds_secret(v)));
                whole &= kept;
                kept
            })
            .collect();
        (kept, whole)
    }

    /// The matcher of every form (none with no secrets), built once after a change.
    fn matcher(&self) -> Option<Matcher> {
        self.matcher_of(
            |i| (&i.values, &i.matcher),
            |i| (&i.values, &i.spread, &mut i.matcher),
        )
    }

    /// The matcher of the patterns `read` gives (with the matcher kept of them), built once
    /// after a change where `write` keeps it; none with no patterns. [`Matcher::All`] when the
    /// lock is poisoned or the matcher cannot be built.
    fn matcher_of(&self, read: Patterns, write: PatternsMut) -> Option<Matcher> {
        {
            let Ok(inner) = self.inner.read() else {
                return Some(Matcher::All);
            };
            let (patterns, kept) = read(&inner);
            if patterns.is_empty() {
                return None;
            }
            if let Some(m) = kept {
                return Some(m.clone());
            }
        }
        let Ok(mut inner) = self.inner.write() else {
            return Some(Matcher::All);
        };
        let (patterns, spread, kept) = write(&mut inner);
        if kept.is_none() {
            // A DFA (what the builder picks for up to 100 patterns) over hundreds of KiB of
            // learned values takes seconds to build, and is built again after each change; the
            // contiguous NFA is built in milliseconds and searches nearly as fast.
            let bytes: usize = patterns.iter().map(String::len).sum();
            let kind = (bytes > DFA_BYTES).then_some(aho_corasick::AhoCorasickKind::ContiguousNFA);
            let longest = spread.iter().map(String::len).max().unwrap_or(0);
            let spread = match spread {
                [] => Some(None),
                forms => build(forms, None).map(Some),
            };
            let built = build(patterns, kind).zip(spread);
            let built = built.map(|(all, spread)| {
                Matcher::Forms(Arc::new(Forms {
                    all,
                    spread,
                    longest,
                }))
            });
            *kept = Some(built.unwrap_or(Matcher::All));
        }
        kept.clone()
    }

    /// Adds secrets (a sub-flow's); every clone masks them.
    pub(crate) fn add_all(&self, values: impl IntoIterator<Item = String>) {
        let values: Vec<String> = values.into_iter().collect();
        self.learn(values.clone(), Kind::Secret);
        self.note_added(None, values);
    }

    /// Adds one secret.
    pub(crate) fn add(&self, value: &str) {
        self.add_all([value.to_string()]);
    }

    /// Whether `value` may be a secret's: not empty nor only white space (such a value would
    /// mask every space of a text). A run refuses a secret set so; a replay masks nothing
    /// with it.
    pub(crate) fn is_secret_value(value: &str) -> bool {
        !value.trim().is_empty()
    }

    /// Adds the secret `name`, whose value is `value`: masked as [`Masker::add`] masks it, its
    /// name kept.
    pub(crate) fn add_named(&self, name: &str, value: &str) {
        self.learn([value.to_string()], Kind::Secret);
        self.note_added(Some(name), [value.to_string()]);
    }

    /// The names of the secrets added by name, in the order added: what an atlas recorded
    /// with this masker keeps, to mask its replays with (never the values).
    pub(crate) fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        if let Ok(i) = self.inner.read() {
            for name in i.added.iter().filter_map(|(n, _)| n.as_ref()) {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        names
    }

    /// Whether there is nothing to mask (no secrets): derived values need not be looked for.
    /// Not when the lock is poisoned (what it holds cannot be told).
    pub(crate) fn is_empty(&self) -> bool {
        self.inner.read().is_ok_and(|i| i.values.is_empty())
    }

    /// Whether `text` holds a secret, or a form of one, as it is or as it is shown.
    pub(crate) fn holds_secret(&self, text: &str) -> bool {
        match self.matcher() {
            None => false,
            Some(Matcher::All) => true,
            Some(Matcher::Forms(m)) => {
                m.is_match(text)
                    || (has_hidden(text) && views(text).iter().any(|v| m.is_match(&v.text)))
            }
        }
    }

    /// The length of the longest form masked (0 with no secrets): a stream cut into pieces
    /// keeps this much minus one back, so no secret is split between two pieces.
    pub(crate) fn longest(&self) -> usize {
        self.inner.read().map_or(0, |i| i.longest)
    }

    /// `text` with every secret form replaced by `***` (overlapping matches merged).
    pub(crate) fn mask(&self, text: &str) -> String {
        match self.matcher() {
            Some(Matcher::Forms(m)) => mask_with(&m, text),
            Some(Matcher::All) => mask_all(text),
            None => text.to_string(),
        }
    }

    /// `text` masked, then cut at `max` characters (an `…` ends a text cut): the one way
    /// runner shortens a text that may hold a secret, so that a secret across the cut shows
    /// as `***`, never its head.
    pub(crate) fn mask_cut(&self, text: &str, max: usize) -> String {
        self.mask_cut_held(text, false, false, max)
    }

    /// [`Masker::mask_cut`] of `text` on one line: masked as it is (a secret with runs of
    /// white space in it matches only so), then each run of white space made one space, then
    /// cut.
    pub(crate) fn mask_cut_line(&self, text: &str, max: usize) -> String {
        self.mask_cut_held(text, false, true, max)
    }

    /// [`Masker::mask_cut`] (`line`: [`Masker::mask_cut_line`]) of `text`, which is only the
    /// start of a longer text when `more` (a page or a recording held it up to a bound far
    /// above any secret): then it is masked only as far as no secret the rest would complete
    /// can begin ([`Masker::settled`]), and shown cut.
    pub(crate) fn mask_cut_held(&self, text: &str, more: bool, line: bool, max: usize) -> String {
        let held = self.kept_start(text, text.len(), more);
        let masked = self.mask(held);
        let shown = if line {
            masked.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            masked
        };
        match shown.char_indices().nth(max) {
            Some((i, _)) => format!("{}…", &shown[..i]),
            None if more => format!("{shown}…"),
            None => shown,
        }
    }

    /// A copy of `value` with secrets replaced in every string (and map key) and number (as its
    /// text); a list or map whose JSON shows the shape of one made of a secret is `***` whole.
    /// Every text and number when the secrets cannot be looked for ([`Matcher::All`]).
    pub(crate) fn mask_value(&self, value: &Value) -> Value {
        match self.matcher() {
            Some(Matcher::Forms(m)) => {
                let shapes = self.inner.read().is_ok_and(|i| i.shapes);
                mask_value_with(&|t| mask_with(&m, t), shapes.then_some(&m.all), value)
            }
            Some(Matcher::All) => mask_value_with(&mask_all, None, value),
            None => value.clone(),
        }
    }
}

/// The matcher of `patterns`, of `kind` (the builder's pick when none); none when it cannot be
/// built (too many states for its kind).
fn build(patterns: &[String], kind: Option<aho_corasick::AhoCorasickKind>) -> Option<AhoCorasick> {
    #[cfg(test)]
    if FAIL_BUILD.with(std::cell::Cell::get) {
        return None;
    }
    AhoCorasick::builder().kind(kind).build(patterns).ok()
}

#[cfg(test)]
thread_local! {
    /// Whether [`build`] fails on this thread, as it would with too many states.
    static FAIL_BUILD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `text` cut at `max` characters, an `…` after a cut; a text of a page or a server is cut
/// only so once masked ([`Masker::mask_cut`]).
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Where `m` matches `text`, as it is and in each of its [`views`] (a match there is the range
/// of `text` it was made of: the characters taken out between its parts included), and spread
/// with separators between its characters ([`spread`]).
fn matches(m: &Forms, text: &str) -> Vec<(usize, usize)> {
    let views = if has_hidden(text) {
        views(text)
    } else {
        Vec::new()
    };
    matches_in(m, text, &views)
}

/// [`matches`], given the [`views`] of `text` (none when it has nothing hidden).
fn matches_in(m: &Forms, text: &str, views: &[View]) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = m
        .all
        .find_overlapping_iter(text)
        .map(|f| (f.start(), f.end()))
        .collect();
    for v in views {
        spans.extend(
            m.all
                .find_overlapping_iter(&v.text)
                .map(|f| v.original(f.start(), f.end())),
        );
    }
    spans.extend(m.spread_matches(text));
    spans
}

/// `text` with every match of `m` (as it is, and as it is shown) replaced by `***`,
/// overlapping ones together. Where characters are taken out before the text is shown, the text
/// masked is looked at again (a few times at most): a `***` put where part of an escape
/// sequence was changes what the rest of it leaves. A text with no match is left as it is at
/// once (looked at again, it is the same text).
fn mask_with(m: &Forms, text: &str) -> String {
    let spans = matches(m, text);
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = replaced(text, spans);
    if has_hidden(text) {
        for _ in 0..3 {
            let spans = matches(m, &out);
            if spans.is_empty() {
                break;
            }
            out = replaced(&out, spans);
        }
    }
    out
}

/// `text` masked whole ([`Matcher::All`]): `***`, nothing when it is empty.
fn mask_all(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        "***".to_string()
    }
}

/// `text` with `spans` (in any order, overlapping or not) replaced by `***`.
fn replaced(text: &str, spans: Vec<(usize, usize)>) -> String {
    replaced_by(text, spans, &|_| "***".to_string())
}

/// `text` with `spans` (in any order, overlapping ones together) replaced by `with` of what
/// each covers.
fn replaced_by(
    text: &str,
    mut spans: Vec<(usize, usize)>,
    with: &dyn Fn(&str) -> String,
) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut i = 0;
    while i < spans.len() {
        let (start, mut end) = spans[i];
        i += 1;
        while i < spans.len() && spans[i].0 <= end {
            end = end.max(spans[i].1);
            i += 1;
        }
        if start >= at {
            out.push_str(&text[at..start]);
            out.push_str(&with(&text[start..end]));
            at = end;
        } else if end > at {
            at = end;
        }
    }
    out.push_str(&text[at..]);
    out
}

/// [`Masker::mask_value`] with `mask` (a text masked); a list's or map's JSON is looked at
/// with `shapes` only when a shape is masked. A number is masked as its text is (a secret of
/// digits an answer carries as a number): one whose text masks to another is that masked text.
fn mask_value_with(
    mask: &dyn Fn(&str) -> String,
    shapes: Option<&AhoCorasick>,
    value: &Value,
) -> Value {
    let masked = match value {
        Value::String(s) => return Value::String(mask(s)),
        Value::Number(n) => {
            let text = n.to_string();
            let shown = mask(&text);
            return if shown == text {
                value.clone()
            } else {
                Value::String(shown)
            };
        }
        Value::Array(a) => {
            Value::Array(a.iter().map(|v| mask_value_with(mask, shapes, v)).collect())
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (mask(k), mask_value_with(mask, shapes, v)))
                .collect(),
        ),
        other => return other.clone(),
    };
    if shapes.is_some_and(|m| m.is_match(&masked.to_string())) {
        return Value::String("***".into());
    }
    masked
}

mod made;
mod markup;
mod named;
mod spans;
mod spread;
#[cfg(test)]
mod tests;
