//! What of a flow's data runner cut, or was made from a cut (docs/steps.md, "A cut output"): an
//! output kept in part (an `exec`'s stream past 1 MiB, a `request`'s body, an agent's answer),
//! and every value made from one — a var `set` from it, a sub-flow's `outputs`. (An `each`
//! over it, a `run_flow` given it as a var, an action that reads it: those steps do not run,
//! see below; so an `each`'s item and a sub-flow's vars are never made from a cut.)
//! As what is made of a secret is a secret (GitHub's `add-mask` model, `template::derived`),
//! what is made of a cut is cut: a check that reads it fails, naming the cut it came from, and so
//! does a step that would act on it ([`refusal`]), before it runs.
//!
//! What a template reads is found by evaluating it again in a context that records each read of
//! a cut value ([`Cuts::watching`]): templates are pure, so that does nothing twice.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};

/// The outputs that are cut text when a step says `truncated: true` and does not say which (a
/// `request`'s `body` and `json`, an agent's `result`, an `eval`'s `value`, an `inspect`'s
/// `html`, `text` and `elements`, which its size budget cuts: review of session 24, F2); an
/// `exec` says which of its streams was cut (`stdout_truncated`, `stderr_truncated`).
const CUT_FIELDS: &[&str] = &[
    "stdout", "stderr", "body", "json", "result", "value", "html", "text", "elements",
];

/// The cut outputs a value was made from, each named as a check's message names it
/// (`steps.build.stdout`, `steps.build.stdout of _build.yaml` once it left its flow).
pub(crate) type MadeFrom = BTreeSet<String>;

/// What a template read that is cut or made from a cut: where it read (`vars.out`,
/// `steps.build.stdout`), with the cut outputs that came from.
pub(crate) type Reads = BTreeMap<String, MadeFrom>;

/// What a step's outputs were made from, of cut outputs.
#[derive(Debug, Clone)]
pub(crate) enum StepCut {
    /// All of them: its inputs read a cut value.
    All(MadeFrom),
    /// These of them (a sub-flow's `outputs`).
    Outputs(BTreeMap<String, MadeFrom>),
}

/// What of a scope was made from a cut output (the cut outputs themselves say so in their
/// `truncated` outputs).
#[derive(Debug, Clone, Default)]
pub(crate) struct Cuts {
    pub(crate) vars: BTreeMap<String, MadeFrom>,
    pub(crate) steps: BTreeMap<String, StepCut>,
    /// What the inputs of the step being run were made from, once rendered: its outputs' when it
    /// ends (taken by `attempts::keep_outputs`).
    pub(crate) pending: Option<StepCut>,
}

/// `from` with each name not yet of a flow named as of `file` (what a value made in one flow
/// was made from, named in another).
pub(crate) fn of_file(from: MadeFrom, file: &str) -> MadeFrom {
    from.into_iter()
        .map(|o| {
            if o.contains(" of ") {
                o
            } else {
                format!("{o} of {file}")
            }
        })
        .collect()
}

/// What all of `reads` were made from.
pub(crate) fn made_from(reads: &Reads) -> MadeFrom {
    reads.values().flatten().cloned().collect()
}

/// What `reads` read, each with what it was made from, and how runner cuts each kind of output.
fn named(reads: &Reads) -> String {
    let named: Vec<String> = reads
        .iter()
        .map(|(at, from)| {
            if from.len() == 1 && from.contains(at) {
                at.clone()
            } else {
                let from: Vec<&str> = from.iter().map(String::as_str).collect();
                format!("{at}, made from {}", from.join(" and "))
            }
        })
        .collect();
    named.join("; ")
}

/// How runner cuts each kind of output (what a message about a cut says after its names).
const HOW_CUT: &str = "truncated: true; an `exec` keeps the first 1 MiB of its stdout and of its stderr, a `request` the first 1 MiB of its body, an agent the first 1 MiB of its answer, an `eval` the first 1 MiB of its value, an `inspect` what its size budget holds";

/// Why a check that made `reads` is no check (attack 26, C15: `'ERROR' not in
/// steps.build.stdout` held on the first MiB kept, the error printed after it; review of
/// session 23, F2: the same through `set: { out: "{{ steps.build.stdout }}" }`).
pub(crate) fn message(reads: &Reads) -> String {
    format!(
        "this check reads an output that was cut ({}: {HOW_CUT}), so whatever it finds is about a part of it: check the whole in the command itself (`grep`), or read `exit_code`, `status` or `truncated`",
        named(reads)
    )
}

/// The parts of a step's action `raw` (its key `key`) that are its inputs, each with the field
/// it is (`""`: the whole action, written as one value): every field but what a step that holds
/// steps holds (an `each`'s `in` only; a `group` has none).
pub(crate) fn inputs<'a>(key: &str, raw: Option<&'a Value>) -> Vec<(&'a str, &'a Value)> {
    match (key, raw) {
        (_, None) | ("group", _) => Vec::new(),
        ("each", Some(v)) => v
            .as_object()
            .and_then(|m| m.get_key_value("in"))
            .map(|(k, v)| (k.as_str(), v))
            .into_iter()
            .collect(),
        (_, Some(Value::Object(m))) => m.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        (_, Some(v)) => vec![("", v)],
    }
}

/// Why a step (its key `key`) whose inputs made `reads` (each of a field of [`inputs`]) does
/// not run, with the field to point at; `None` when it runs. An action that reads a cut value
/// acts on a part of it (attack 28, E7: an `exec` whose `stdin` was the cut build log found no
/// `FATAL` in it and passed; a `request` sent the first MiB, its server found nothing and
/// answered 200): it fails before it runs, nothing sent, no command started. A check made from
/// one (an `expect`, a `request`'s `expect`) is no check: it fails the same. A `set` makes a cut
/// var of it, and a `log` shows it saying it was cut (`builtins`): neither decides anything.
pub(crate) fn refusal(key: &str, reads: &[(&str, Reads)]) -> Option<(String, String)> {
    if matches!(key, "set" | "log") {
        return None;
    }
    let checks = |field: &str| key == "expect" || (key == "request" && field == "expect");
    let merged = |checked: bool| {
        let mut all = Reads::new();
        let mut first = None;
        for (field, r) in reads
            .iter()
            .filter(|(f, r)| checks(f) == checked && !r.is_empty())
        {
            if first.is_none() {
                first = Some((*field).to_string());
            }
            for (at, from) in r {
                all.entry(at.clone())
                    .or_default()
                    .extend(from.iter().cloned());
            }
        }
        first.map(|f| (f, all))
    };
    if let Some((field, all)) = merged(false) {
        let not = if key == "request" { "sent" } else { "run" };
        return Some((
            field,
            format!(
                "this `{key}` reads an output that was cut ({}: {HOW_CUT}), so it would act on a part of it: it was not {not}. Give it what is whole (have the command that made the output write all of it to a file, and read the file), or read `exit_code`, `status` or `truncated`",
                named(&all)
            ),
        ));
    }
    merged(true).map(|(field, all)| (field, message(&all)))
}

/// What `log` says after a text made from `reads` of cut outputs: that it shows a part.
pub(crate) fn log_note(reads: &Reads) -> String {
    format!(
        "(this text reads an output that was cut, and shows a part of it: {})",
        named(reads)
    )
}

/// A map of a template's context whose reads of some keys are recorded.
#[derive(Debug)]
struct Watched {
    out: Map<String, Value>,
    /// Where the map is (`vars`, `steps.build`): a read of `key` is of `<at>.<key>`.
    at: String,
    /// The keys watched, each with what it was made from.
    keys: BTreeMap<String, MadeFrom>,
    /// Every key is watched, made from this.
    all: Option<MadeFrom>,
    reads: Arc<Mutex<Reads>>,
}

impl minijinja::value::Object for Watched {
    fn get_value(self: &Arc<Self>, key: &minijinja::Value) -> Option<minijinja::Value> {
        let key = key.as_str()?;
        let value = self.out.get(key)?;
        if let Some(from) = self.keys.get(key).or(self.all.as_ref()) {
            let mut reads = self
                .reads
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let at = format!("{}.{key}", self.at);
            reads.entry(at).or_default().extend(from.iter().cloned());
        }
        Some(minijinja::Value::from_serialize(value))
    }

    fn enumerate(self: &Arc<Self>) -> minijinja::value::Enumerator {
        let keys = self.out.keys().map(|k| minijinja::Value::from(k.as_str()));
        minijinja::value::Enumerator::Values(keys.collect())
    }
}

/// The outputs of the step `id` that are cut in `out`, each made from itself.
fn cut_outputs(id: &str, out: &Map<String, Value>) -> BTreeMap<String, MadeFrom> {
    let said = |k: &str| out.get(k) == Some(&Value::Bool(true));
    let per_stream = out.contains_key("stdout_truncated") || out.contains_key("stderr_truncated");
    let cut: Vec<&str> = if per_stream {
        ["stdout", "stderr"]
            .into_iter()
            .filter(|s| said(&format!("{s}_truncated")))
            .collect()
    } else if said("truncated") {
        CUT_FIELDS.to_vec()
    } else {
        Vec::new()
    };
    cut.into_iter()
        .filter(|k| out.contains_key(*k))
        .map(|k| (k.to_string(), BTreeSet::from([format!("steps.{id}.{k}")])))
        .collect()
}

impl Cuts {
    /// A var set: made from `from` (none: from nothing cut).
    pub(crate) fn set_var(&mut self, name: &str, from: MadeFrom) {
        if from.is_empty() {
            self.vars.remove(name);
        } else {
            self.vars.insert(name.to_string(), from);
        }
    }

    /// A step's outputs recorded: made from `cut` (none: from nothing cut).
    pub(crate) fn set_outputs(&mut self, id: &str, cut: Option<StepCut>) {
        let cut = match cut {
            Some(StepCut::All(from)) if !from.is_empty() => Some(StepCut::All(from)),
            Some(StepCut::Outputs(mut m)) => {
                m.retain(|_, from| !from.is_empty());
                (!m.is_empty()).then_some(StepCut::Outputs(m))
            }
            _ => None,
        };
        match cut {
            Some(c) => {
                self.steps.insert(id.to_string(), c);
            }
            None => {
                self.steps.remove(id);
            }
        }
    }

    /// `vars` and `steps` as a template sees them, with each read of what is cut or made from
    /// a cut recorded in the map returned; `None` when nothing is.
    pub(crate) fn watching(
        &self,
        vars: &Map<String, Value>,
        steps: &Map<String, Value>,
    ) -> Option<(Arc<Mutex<Reads>>, minijinja::Value, minijinja::Value)> {
        // What of each step is watched, found before anything is copied.
        let watched: Vec<_> = steps
            .iter()
            .map(|(id, value)| {
                let map = value.as_object()?;
                let mut keys = cut_outputs(id, map);
                let mut all = None;
                match self.steps.get(id) {
                    Some(StepCut::All(from)) => all = Some(from.clone()),
                    Some(StepCut::Outputs(m)) => {
                        for (k, from) in m {
                            keys.entry(k.clone())
                                .or_default()
                                .extend(from.iter().cloned());
                        }
                    }
                    None => {}
                }
                (!keys.is_empty() || all.is_some()).then_some((map, keys, all))
            })
            .collect();
        if self.vars.is_empty() && watched.iter().all(Option::is_none) {
            return None;
        }
        let reads = Arc::new(Mutex::new(Reads::new()));
        let watched_vars = minijinja::Value::from_object(Watched {
            out: vars.clone(),
            at: "vars".into(),
            keys: self.vars.clone(),
            all: None,
            reads: reads.clone(),
        });
        let out = steps.iter().zip(watched).map(|((id, value), w)| {
            let v = match w {
                None => minijinja::Value::from_serialize(value),
                Some((map, keys, all)) => minijinja::Value::from_object(Watched {
                    out: map.clone(),
                    at: format!("steps.{id}"),
                    keys,
                    all,
                    reads: reads.clone(),
                }),
            };
            (id.clone(), v)
        });
        let out: BTreeMap<String, minijinja::Value> = out.collect();
        Some((reads, watched_vars, minijinja::Value::from_iter(out)))
    }
}

/// What the templates in `raw` read of `ctx` (a context from [`Cuts::watching`], whose reads go
/// to `reads`): each text evaluated on its own, as a condition when `condition` says so (an
/// `expect`'s `that`). A template that fails there reads what it read before it failed.
pub(crate) fn reads_of(
    t: &crate::template::Templates,
    raw: &Value,
    ctx: &minijinja::Value,
    condition: bool,
) {
    match raw {
        Value::String(_) if condition => {
            let _ = t.condition(raw, ctx);
        }
        Value::String(_) => {
            let _ = t.render_value(raw, ctx);
        }
        Value::Array(a) => a.iter().for_each(|v| reads_of(t, v, ctx, condition)),
        Value::Object(m) => m.values().for_each(|v| reads_of(t, v, ctx, condition)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{BTreeSet, Cuts, StepCut, cut_outputs, message, of_file};

    /// An `exec` says which stream was cut: only that one is; a step that says only
    /// `truncated` (a `request`, an agent) has each of its cut texts cut.
    #[test]
    fn the_cut_outputs_of_a_step_are_the_streams_it_says() {
        let exec = json!({"stdout": "a", "stderr": "b", "truncated": true,
            "stdout_truncated": true, "stderr_truncated": false});
        let cut = cut_outputs("big", exec.as_object().unwrap());
        assert_eq!(cut.keys().collect::<Vec<_>>(), ["stdout"]);
        let request = json!({"body": "a", "json": null, "status": 200, "truncated": true});
        let cut = cut_outputs("r", request.as_object().unwrap());
        assert_eq!(cut.keys().collect::<Vec<_>>(), ["body", "json"]);
        let whole = json!({"stdout": "a", "truncated": false});
        assert!(cut_outputs("w", whole.as_object().unwrap()).is_empty());
    }

    /// A var set from nothing cut, and a step's outputs made from nothing cut, are whole again.
    #[test]
    fn a_value_set_again_from_what_is_whole_is_whole() {
        let mut cuts = Cuts::default();
        let from = BTreeSet::from(["steps.build.stdout".to_string()]);
        cuts.set_var("out", from.clone());
        cuts.set_outputs("count", Some(StepCut::All(from.clone())));
        let vars = json!({"out": "aaa"});
        let steps = json!({"count": {"stdout": "3"}});
        let (vars, steps) = (vars.as_object().unwrap(), steps.as_object().unwrap());
        assert!(cuts.watching(vars, steps).is_some());
        cuts.set_var("out", BTreeSet::new());
        cuts.set_outputs(
            "count",
            Some(StepCut::Outputs([("n".into(), BTreeSet::new())].into())),
        );
        assert!(cuts.watching(vars, steps).is_none());
        // Named once it left its flow, not twice.
        let named = of_file(of_file(from, "_build.yaml"), "parent.yaml");
        assert_eq!(
            named,
            BTreeSet::from(["steps.build.stdout of _build.yaml".to_string()])
        );
        let reads = [("vars.out".to_string(), named)].into();
        assert!(
            message(&reads).contains(
                "(vars.out, made from steps.build.stdout of _build.yaml: truncated: true;"
            )
        );
    }
}
