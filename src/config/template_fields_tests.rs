//! Every string field of every file format — flows and suites, runner.toml, agent profiles — is
//! either rendered as a template or refused by `validate` when it holds one (SPEC 3.4: nothing
//! is ever used literally with `{{` in it). The fields come from walking the JSON schemas, so a
//! field added to a schema fails here until a sample fills it and it is placed on one side.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use super::field_samples::corpus;
use super::schema::{SchemaKind, schema_value};
use super::schema_fields::{fields, strings_of};
use crate::source::Diagnostic;

/// A template valid wherever templates are rendered (every scope has `env`).
const VALID: &str = "{{env.HOME}}";
/// A template that reads a name no scope has: refused wherever templates are checked.
const UNKNOWN: &str = "{{ vars.no_such_var_anywhere }}";

/// The fields whose templates are rendered, by what renders them, with the tests that prove it.
pub(crate) struct Rendered {
    by: &'static str,
    proofs: &'static [&'static str],
    fields: &'static [&'static str],
}

/// The fields of a step's action: rendered as a whole when the step starts.
const ACTION: &[&str] = &[
    "flow class_check:/equals",
    "flow class_check:/has",
    "flow class_check:/matches",
    "flow class_names:",
    "flow class_names:/*",
    "flow command:",
    "flow command:/*",
    "flow env_map:/*",
    "flow http_check:",
    "flow http_check:/**",
    "flow http_check:/contains",
    "flow http_check:/contains/**",
    "flow http_check:/equals",
    "flow http_check:/equals/**",
    "flow http_check:/matches",
    "flow http_check:/not_equals",
    "flow http_check:/not_equals/**",
    "flow js_check:",
    "flow js_check:/args",
    "flow js_check:/args/**",
    "flow js_check:/expr",
    "flow matcher:",
    "flow matcher:/contains",
    "flow matcher:/equals",
    "flow matcher:/matches",
    "flow selector:",
    "flow selector:/*",
    "flow selector_object:/alt",
    "flow selector_object:/css",
    "flow selector_object:/frame",
    "flow selector_object:/label",
    "flow selector_object:/placeholder",
    "flow selector_object:/ref",
    "flow selector_object:/role",
    "flow selector_object:/tag",
    "flow selector_object:/testid",
    "flow selector_object:/text",
    "flow selector_object:/title",
    "flow selector_object:/within",
    "flow step:/act",
    "flow step:/act/intent",
    "flow step:/act/profile",
    "flow step:/act/variant",
    "flow step:/agent/follow_up",
    "flow step:/agent/message",
    "flow step:/agent/profile",
    "flow step:/agent/prompt",
    "flow step:/agent/session",
    "flow step:/agent/variant",
    "flow step:/agent/workspace",
    "flow step:/dialog/text",
    "flow step:/dispatch/event",
    "flow step:/dispatch/init/**",
    "flow step:/download/path",
    "flow step:/eval",
    "flow step:/exec/cwd",
    "flow step:/exec/stdin",
    "flow step:/expect/attribute/contains",
    "flow step:/expect/attribute/equals",
    "flow step:/expect/attribute/matches",
    "flow step:/expect/attribute/name",
    "flow step:/expect/count/equals",
    "flow step:/expect/count/max",
    "flow step:/expect/count/min",
    "flow step:/expect/not/attribute/contains",
    "flow step:/expect/not/attribute/equals",
    "flow step:/expect/not/attribute/matches",
    "flow step:/expect/not/attribute/name",
    "flow step:/expect/not/count/equals",
    "flow step:/expect/not/count/max",
    "flow step:/expect/not/count/min",
    "flow step:/expect/not/text/contains",
    "flow step:/expect/not/text/equals",
    "flow step:/expect/not/text/matches",
    "flow step:/expect/not/value/contains",
    "flow step:/expect/not/value/equals",
    "flow step:/expect/not/value/matches",
    "flow step:/expect/request/count",
    "flow step:/expect/request/method",
    "flow step:/expect/request/url",
    "flow step:/expect/tabs/count",
    "flow step:/expect/text/contains",
    "flow step:/expect/text/equals",
    "flow step:/expect/text/matches",
    "flow step:/expect/value/contains",
    "flow step:/expect/value/equals",
    "flow step:/expect/value/matches",
    "flow step:/fill/value",
    "flow step:/keyboard/insert_text",
    "flow step:/keyboard/press",
    "flow step:/keyboard/press/*",
    "flow step:/keyboard/type",
    "flow step:/link_state",
    "flow step:/link_state/action",
    "flow step:/link_state/atlas",
    "flow step:/log",
    "flow step:/log/**",
    "flow step:/open",
    "flow step:/open/url",
    "flow step:/press",
    "flow step:/press/key",
    "flow step:/request",
    "flow step:/request/body",
    "flow step:/request/form/*",
    "flow step:/request/headers/*",
    "flow step:/request/json",
    "flow step:/request/json/**",
    "flow step:/request/query/*",
    "flow step:/request/url",
    "flow step:/route/body",
    "flow step:/route/body/**",
    "flow step:/route/content_type",
    "flow step:/route/headers/*",
    "flow step:/route/url",
    "flow step:/run_flow/vars/**",
    "flow step:/screenshot/path",
    "flow step:/select/value",
    "flow step:/select/value/*",
    "flow step:/set/*",
    "flow step:/set/*/**",
    "flow step:/state/save",
    "flow step:/stop_agent",
    "flow step:/tab/switch/url",
    "flow step:/type/value",
    "flow step:/upload/files",
    "flow step:/upload/files/*",
    "flow step:/wait/text",
    "flow step:/wait/url",
    "flow strings:",
    "flow strings:/*",
    "flow contained_strings:",
    "flow contained_strings:/*",
];

const RENDERED: &[Rendered] = &[
    Rendered {
        by: "the step's action, when the step starts (engine::render::render_action)",
        proofs: &["every_string_of_an_action_renders_when_its_step_starts"],
        fields: ACTION,
    },
    Rendered {
        by: "a step's `name` and `if`, `expect.that`, an `each`'s `in`, a `group`'s `name`",
        proofs: &["a_steps_name_condition_list_and_group_name_render"],
        fields: &[
            "flow step:/name",
            "flow step:/if",
            "flow step:/expect/that",
            "flow step:/each/in",
            "flow step:/each/in/**",
            "flow step:/group/name",
        ],
    },
    Rendered {
        by: "`vars:`, in order (engine::start::prepare)",
        proofs: &["server_templates_see_the_flows_env_and_vars_and_later_vars_see_the_server"],
        fields: &["flow file:/vars/**", "flow flow:/vars/**"],
    },
    Rendered {
        by: "`env:` (engine::start::render_env)",
        proofs: &["env_and_web_server_strings_are_rendered_not_taken_literally"],
        fields: &["flow env_map:/*"],
    },
    Rendered {
        by: "`atlas:`, before the first step",
        proofs: &["explore_teleports_through_recorded_edges_that_keep_only_page_steps"],
        fields: &["flow file:/atlas", "flow flow:/atlas"],
    },
    Rendered {
        by: "`outputs:`, after the last step",
        proofs: &["secrets_are_masked_in_every_form_they_travel"],
        fields: &["flow file:/outputs/**", "flow flow:/outputs/**"],
    },
    Rendered {
        by: "a flow's `web_server:`, when it starts (engine::server)",
        proofs: &[
            "server_settings_render_their_templates",
            "env_and_web_server_strings_are_rendered_not_taken_literally",
        ],
        fields: &[
            "flow web_server:/cwd",
            "flow web_server:/env/*",
            "flow web_server:/ready_url",
            "flow web_server:/static",
            "flow web_server:/url",
            "flow command:",
            "flow command:/*",
        ],
    },
    Rendered {
        by: "runner.toml's `[[web_server]]`, when the run starts (engine::server::shared)",
        proofs: &["server_settings_render_their_templates"],
        fields: &[
            "config file:/web_server/*/cwd",
            "config file:/web_server/*/env/*",
            "config file:/web_server/*/ready_url",
            "config file:/web_server/*/static",
            "config file:/web_server/*/url",
            "config command:",
            "config command:/*",
        ],
    },
    Rendered {
        by: "`browser:`'s `device`, `locale`, `timezone`, `headers`, before the context is made",
        proofs: &["browser_settings_render_their_templates_and_mask_the_secrets_in_them"],
        fields: &[
            "flow browser:/device",
            "flow browser:/locale",
            "flow browser:/timezone",
            "flow browser:/headers/*",
        ],
    },
];

/// The fields of the action group (what the engine's proof templates).
pub(crate) fn action_fields() -> &'static [&'static str] {
    ACTION
}

/// What `validate` says about `doc` as a file of `kind`, written in `dir` (beside what the
/// samples refer to: `site/`, `sub.yaml`).
fn validate(kind: SchemaKind, dir: &Path, doc: &Value) -> Vec<Diagnostic> {
    let text = serde_json::to_string_pretty(doc).expect("a sample is JSON");
    // JSON is YAML.
    let name = match kind {
        SchemaKind::Flow => "flow.yaml",
        SchemaKind::Config => "runner.yaml",
        SchemaKind::Profile => "profile.yaml",
    };
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the sample");
    match kind {
        SchemaKind::Flow => {
            static REGISTRY: std::sync::OnceLock<super::profiles::Registry> =
                std::sync::OnceLock::new();
            let registry = REGISTRY.get_or_init(|| super::profiles::Registry::load(&[]).0);
            let mut loader = super::flows::Loader::new(registry);
            loader.load_tests(&path);
            loader.diagnostics
        }
        SchemaKind::Config => super::project::load(&path).err().unwrap_or_default(),
        SchemaKind::Profile => super::profiles::load_file(&path).err().unwrap_or_default(),
    }
}

fn sample_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir_all(d.path().join("site")).expect("site/");
    std::fs::write(
        d.path().join("sub.yaml"),
        "name: sub\nvars: { a: 1 }\nsteps: [{ log: x }]\n",
    )
    .expect("sub.yaml");
    d
}

fn with(doc: &Value, ptr: &str, s: &str) -> Value {
    let mut d = doc.clone();
    *d.pointer_mut(ptr).expect("the pointer is in the sample") = Value::String(s.to_string());
    d
}

/// Whether `validate` treats a template in the string at `ptr` of `doc` as it must: in a
/// field that renders, it checks the names the template reads (one it does not know is
/// refused) and takes a valid one; anywhere else, it refuses a template in all of the value,
/// or before or after the text.
fn as_it_must(kind: SchemaKind, dir: &Path, doc: &Value, ptr: &str, rendered: bool) -> bool {
    let refused = |s: &str| !validate(kind, dir, &with(doc, ptr, s)).is_empty();
    if rendered {
        return refused(UNKNOWN) && !refused(VALID);
    }
    let orig = doc.pointer(ptr).and_then(Value::as_str).unwrap_or_default();
    [
        VALID.to_string(),
        format!("{VALID}{orig}"),
        format!("{orig}{VALID}"),
    ]
    .iter()
    .all(|s| refused(s))
}

/// Where each field is filled: (sample, JSON pointer) by field.
type Places = BTreeMap<String, Vec<(usize, String)>>;

/// The samples of `kind`, and the places each field of its schema is filled at in them (once
/// per kind of place: `/steps/*/click` of every step sample is one).
fn places(kind: SchemaKind, dir: &Path) -> (Vec<Value>, Places) {
    let kind_of = |p: &str| {
        p.split('/')
            .map(|t| if t.parse::<usize>().is_ok() { "*" } else { t })
            .collect::<Vec<_>>()
            .join("/")
    };
    let samples = corpus(kind);
    let mut filled = Places::new();
    for (i, doc) in samples.iter().enumerate() {
        let said: Vec<String> = validate(kind, dir, doc)
            .iter()
            .map(|d| format!("{} {}", d.pointer, d.message))
            .collect();
        assert!(
            said.is_empty(),
            "{kind:?} sample {i} is not valid: {said:#?}\n{doc}"
        );
        for (field, ptr) in strings_of(schema_value(kind), doc) {
            let places = filled.entry(field).or_default();
            if !places.iter().any(|(_, p)| kind_of(p) == kind_of(&ptr)) {
                places.push((i, ptr));
            }
        }
    }
    (samples, filled)
}

/// What is wrong with the fields of one file format (`prefix` names it in `RENDERED`).
fn problems_of(kind: SchemaKind, prefix: &str) -> Vec<String> {
    let rendered: BTreeSet<&str> = RENDERED.iter().flat_map(|r| r.fields).copied().collect();
    let (samples, filled) = places(kind, sample_dir().path());
    let mut problems = Vec::new();
    let mut jobs = Vec::new();
    for field in fields(schema_value(kind)) {
        let name = format!("{prefix} {field}");
        match filled.get(&field) {
            None => problems.push(format!("{name}: no sample fills it")),
            Some(places) => jobs.extend(places.iter().map(|(i, p)| (name.clone(), *i, p))),
        }
    }
    // A few hundred validations: on every core, each with a directory of its own.
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = jobs.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs
            .chunks(chunk)
            .map(|part| {
                let (samples, rendered) = (&samples, &rendered);
                s.spawn(move || {
                    let dir = sample_dir();
                    let mut out = Vec::new();
                    for (name, i, ptr) in part {
                        let renders = rendered.contains(name.as_str());
                        if !as_it_must(kind, dir.path(), &samples[*i], ptr, renders) {
                            let how = if renders {
                                "renders, but validate does not check its templates"
                            } else {
                                "takes a template as written"
                            };
                            out.push(format!("{name} (sample {i} {ptr}): {how}"));
                        }
                    }
                    out
                })
            })
            .collect();
        for h in handles {
            problems.extend(h.join().expect("a checking thread"));
        }
    });
    problems
}

#[test]
fn every_string_field_is_rendered_or_refuses_templates() {
    let problems: Vec<String> = [
        (SchemaKind::Flow, "flow"),
        (SchemaKind::Config, "config"),
        (SchemaKind::Profile, "profile"),
    ]
    .into_iter()
    .flat_map(|(kind, prefix)| problems_of(kind, prefix))
    .collect();
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Each group of rendered fields names tests that exist (a proof renamed or deleted fails here),
/// and each field its file format.
#[test]
fn every_rendered_field_has_a_proof_that_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources: String = ["src", "tests"]
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(root.join(d)))
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    for r in RENDERED {
        assert!(!r.proofs.is_empty(), "{}: no proof", r.by);
        for proof in r.proofs {
            assert!(
                sources.contains(&format!("fn {proof}()")),
                "{}: the proof `{proof}` is not a test of this crate",
                r.by
            );
        }
        for f in r.fields {
            assert!(
                ["flow ", "config ", "profile "]
                    .iter()
                    .any(|k| f.starts_with(k)),
                "{f}: which file format?"
            );
        }
    }
}

/// Every duration of every file format has its value checked, as the flag that takes one: zero
/// (which would turn a timeout off) and more than 7 days are refused wherever the schema takes
/// a duration. The places come from the schemas, so a duration field added later is covered.
#[test]
fn every_duration_field_refuses_zero_and_too_long() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for kind in [SchemaKind::Flow, SchemaKind::Config, SchemaKind::Profile] {
        let dir = sample_dir();
        let (samples, filled) = places(kind, dir.path());
        for (i, ptr) in filled.get("duration:").into_iter().flatten() {
            checked += 1;
            for bad in ["0s", "200h"] {
                if validate(kind, dir.path(), &with(&samples[*i], ptr, bad)).is_empty() {
                    problems.push(format!(
                        "{kind:?} sample {i} {ptr}: `{bad}` passes validate"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Timeouts, delays, waits, a server's ready and stop timeouts, runner.toml's own.
    assert!(checked >= 10, "only {checked} duration places were found");
}
