//! The templates of a flow and the names they read, each checked against what exists when it is
//! rendered: vars in order, then `env`, `atlas` and the `browser:` keys that take templates, the
//! web server (before vars), each step (after the steps before it), and the flow's outputs
//! (after every step).

use std::collections::HashSet;

use serde_json::Value;

use super::context::{Ctx, Declared};
use crate::config::model::RENDERED_KEYS;
use crate::source::{Diagnostic, pointer_push};
use crate::template::check::{Scope, Servers};
use crate::template::{TemplateIssue, check_expression, check_template, is_template};

/// The names templates may read, gathered once for the whole flow.
pub(super) struct TemplateNames<'a> {
    d: &'a Declared<'a>,
    /// Every var: declared, set by a `set` step, or given on the command line.
    vars_all: HashSet<String>,
    secrets: HashSet<String>,
    none: HashSet<String>,
}

impl<'a> TemplateNames<'a> {
    pub(super) fn new(c: &Ctx<'_>, d: &'a Declared<'a>) -> TemplateNames<'a> {
        let vars_all = c
            .flow
            .vars
            .keys()
            .cloned()
            .chain(d.steps.iter().flat_map(|(_, s)| match &s.action {
                crate::config::model::Action::Set(m) => m.keys().cloned().collect::<Vec<_>>(),
                _ => Vec::new(),
            }))
            .chain(c.extra_vars.iter().cloned())
            .collect();
        TemplateNames {
            d,
            vars_all,
            secrets: c.flow.secrets.iter().cloned().collect(),
            none: HashSet::new(),
        }
    }

    /// `vars:`, in order: each may read the vars above it (and those of the command line).
    pub(super) fn vars(&self, c: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
        let mut vars_before: HashSet<String> = c.extra_vars.iter().cloned().collect();
        for (k, v) in &c.flow.vars {
            let scope = Scope {
                vars: &vars_before,
                secrets: &self.secrets,
                steps_before: &self.none,
                all_steps: &self.none,
                outputs: &self.d.outputs,
                web_server: self.d.web_server,
            };
            strings(c, &pointer_push("/vars", k), v, &scope, out);
            vars_before.insert(k.clone());
        }
    }

    /// `env:`, `atlas:` and the `browser:` keys that take templates, rendered after the vars,
    /// before any step runs.
    pub(super) fn before_steps(&self, c: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
        let scope = Scope {
            vars: &self.vars_all,
            secrets: &self.secrets,
            steps_before: &self.none,
            all_steps: &self.d.all_steps,
            outputs: &self.d.outputs,
            web_server: self.d.web_server,
        };
        for key in ["env", "atlas"] {
            if let Some(v) = c.value.get(key) {
                strings(c, &format!("/{key}"), v, &scope, out);
            }
        }
        for key in RENDERED_KEYS {
            if let Some(v) = c.value.get("browser").and_then(|b| b.get(key)) {
                strings(c, &format!("/browser/{key}"), v, &scope, out);
            }
        }
    }

    /// The web server starts after the vars before the first one that reads `web_server` (the
    /// others may read its URL): it sees those vars, the secrets, `env`, `flow` and `run`, its
    /// own `web_server.port` / `web_server.url` and the run's servers.
    pub(super) fn web_server(&self, c: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
        let Some(v) = c.value.get("web_server") else {
            return;
        };
        let early: HashSet<String> = c
            .extra_vars
            .iter()
            .cloned()
            .chain(c.flow.early_vars().map(str::to_string))
            .collect();
        let scope = Scope {
            vars: &early,
            secrets: &self.secrets,
            steps_before: &self.none,
            all_steps: &self.none,
            outputs: &self.d.outputs,
            web_server: Servers {
                own: true,
                ..self.d.web_server
            },
        };
        let mut found = Vec::new();
        strings(c, "/web_server", v, &scope, &mut found);
        late_env(c, "/web_server", v, &c.flow.late_env(), &mut found);
        out.extend(found.into_iter().map(|mut d| {
            if ["unknown var", "unknown step"]
                .iter()
                .any(|p| d.message.starts_with(p))
            {
                d.message = format!(
                    "{} here: the web server starts before the steps and before the first var that reads `web_server`",
                    d.message
                );
                d.help = Some(
                    "`web_server` can read `env`, `secrets`, `flow`, `run` and the vars above the first one that reads `web_server`"
                        .into(),
                );
            }
            d
        }));
    }

    /// The step at `ptr`, which may read the steps in `before`: its condition (`if`, and
    /// `expect.that`) as an expression, its other values as templates.
    pub(super) fn step(
        &self,
        c: &Ctx<'_>,
        ptr: &str,
        before: &HashSet<String>,
        out: &mut Vec<Diagnostic>,
    ) {
        // Inside an `each`, its item and index too.
        let around = super::control::loop_vars(c.value, ptr);
        let with_loops;
        let vars = if around.is_empty() {
            &self.vars_all
        } else {
            with_loops = self.vars_all.iter().cloned().chain(around).collect();
            &with_loops
        };
        let scope = Scope {
            vars,
            secrets: &self.secrets,
            steps_before: before,
            all_steps: &self.d.all_steps,
            outputs: &self.d.outputs,
            web_server: self.d.web_server,
        };
        let Some(raw) = c.value.pointer(ptr).and_then(Value::as_object) else {
            return;
        };
        for (k, v) in raw {
            let p = pointer_push(ptr, k);
            match (k.as_str(), v) {
                ("if", Value::String(s)) if not_one_expression(c, &p, s, out) => {}
                ("if", Value::String(s)) if !is_template(s) => {
                    expression(c, &p, s, &scope, out);
                }
                ("id" | "timeout" | "retry" | "continue_on_error" | "frame", _) => {}
                // The steps inside are checked as steps of their own, with their loops' vars.
                ("each", _) => {
                    if let Some(items) = v.get("in") {
                        strings(c, &pointer_push(&p, "in"), items, &scope, out);
                    }
                }
                ("group", _) => {
                    if let Some(name) = v.get("name") {
                        strings(c, &pointer_push(&p, "name"), name, &scope, out);
                    }
                }
                _ => strings(c, &p, v, &scope, out),
            }
        }
        if let Some(Value::String(s)) = raw.get("expect").and_then(|e| e.get("that")) {
            let p = format!("{ptr}/expect/that");
            if !not_one_expression(c, &p, s, out) && !is_template(s) {
                expression(c, &p, s, &scope, out);
            }
        }
    }

    /// The flow's `outputs:`, rendered after every step.
    pub(super) fn outputs(&self, c: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
        let Some(flow_outputs) = c.value.get("outputs") else {
            return;
        };
        let scope = Scope {
            vars: &self.vars_all,
            secrets: &self.secrets,
            steps_before: &self.d.all_steps,
            all_steps: &self.d.all_steps,
            outputs: &self.d.outputs,
            web_server: self.d.web_server,
        };
        strings(c, "/outputs", flow_outputs, &scope, out);
    }
}

/// Whether the condition `src` (an `if`, an `expect.that`) at `ptr` is a template that is not
/// one expression, which is then an error in `out`: it renders to a text, always true.
fn not_one_expression(c: &Ctx<'_>, ptr: &str, src: &str, out: &mut Vec<Diagnostic>) -> bool {
    let Some((why, one)) = c.templates.not_one_expression(src) else {
        return false;
    };
    let help = match one {
        Some(one) => format!("write it as one expression: `{one}`"),
        None => "write the whole condition inside one `{{ }}` (`{{ vars.a == 5 and vars.b == 7 }}`), or bare (`vars.a == 5 and vars.b == 7`)".to_string(),
    };
    out.push(located(
        c,
        ptr,
        TemplateIssue {
            offset: 0,
            len: src.len(),
            message: why,
            help: Some(help),
        },
    ));
    true
}

fn expression(c: &Ctx<'_>, ptr: &str, src: &str, scope: &Scope<'_>, out: &mut Vec<Diagnostic>) {
    for issue in check_expression(c.templates, src, scope) {
        out.push(located(c, ptr, issue));
    }
}

/// Checks every template string inside `v`.
fn strings(c: &Ctx<'_>, ptr: &str, v: &Value, scope: &Scope<'_>, out: &mut Vec<Diagnostic>) {
    match v {
        Value::String(s) if is_template(s) => {
            for issue in check_template(c.templates, s, scope) {
                out.push(located(c, ptr, issue));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                strings(c, &pointer_push(ptr, &i.to_string()), item, scope, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                strings(c, &pointer_push(ptr, k), item, scope, out);
            }
        }
        _ => {}
    }
}

/// Turns an issue inside a string into a diagnostic at the right column when the string maps to
/// the source one to one, or at the string otherwise.
fn located(c: &Ctx<'_>, ptr: &str, issue: TemplateIssue) -> Diagnostic {
    let span = match c.spans.get(ptr) {
        Some(s) => match s.content_start {
            Some(start) => start + issue.offset..start + issue.offset + issue.len,
            None => s.value.clone(),
        },
        None => c.spans.nearest(ptr).map_or(0..0, |s| s.value.clone()),
    };
    let mut d = Diagnostic::error(c.file, span, issue.message).with_pointer(ptr);
    if let Some(h) = issue.help {
        d = d.with_help(h);
    }
    d
}

/// The templates of a run-level server (`[[web_server]]` at `ptr` of the project file): they
/// may read `env`, `run` and the server's own `web_server.port` / `web_server.url`.
pub(crate) fn server_templates(
    file: &crate::source::SourceFile,
    spans: &crate::source::SpanMap,
    ptr: &str,
    v: &Value,
    out: &mut Vec<Diagnostic>,
) {
    match v {
        Value::String(s) if is_template(s) => {
            let none = HashSet::new();
            let outputs = std::collections::HashMap::new();
            let scope = Scope {
                vars: &none,
                secrets: &none,
                steps_before: &none,
                all_steps: &none,
                outputs: &outputs,
                web_server: Servers {
                    own: true,
                    ..Servers::default()
                },
            };
            let templates = crate::template::Templates::new();
            for issue in check_template(&templates, s, &scope) {
                let span = match spans.get(ptr) {
                    Some(sp) => match sp.content_start {
                        Some(start) => start + issue.offset..start + issue.offset + issue.len,
                        None => sp.value.clone(),
                    },
                    None => spans.nearest(ptr).map_or(0..0, |sp| sp.value.clone()),
                };
                let mut d = Diagnostic::error(file, span, issue.message).with_pointer(ptr);
                if let Some(h) = issue.help {
                    d = d.with_help(h);
                }
                out.push(d);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                server_templates(file, spans, &pointer_push(ptr, &i.to_string()), item, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                server_templates(file, spans, &pointer_push(ptr, k), item, out);
            }
        }
        _ => {}
    }
}

/// `env.K` in the web server's strings, where the flow's `env:` key `K` reads `web_server` (or
/// a var rendered once it is up): the server starts before it has a value.
fn late_env(c: &Ctx<'_>, ptr: &str, v: &Value, late: &[&str], out: &mut Vec<Diagnostic>) {
    match v {
        Value::String(s) if is_template(s) => {
            for k in late {
                let read = regex::Regex::new(&format!(
                    r#"\benv\s*(\.\s*{0}\b|\[\s*['"]{0}['"])"#,
                    regex::escape(k)
                ))
                .is_ok_and(|r| r.is_match(s));
                if read {
                    let d = crate::config::schema::at_value(
                        c.file,
                        c.spans,
                        ptr,
                        format!(
                            "`env.{k}` has no value here: the flow's `env.{k}` reads `web_server` (or a var rendered after it), and the web server starts before it"
                        ),
                    );
                    out.push(d.with_help("give the server what it needs without `web_server`: its own `web_server.port` / `web_server.url` are there"));
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                late_env(c, &pointer_push(ptr, &i.to_string()), item, late, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                late_env(c, &pointer_push(ptr, k), item, late, out);
            }
        }
        _ => {}
    }
}
