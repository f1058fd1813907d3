//! Static checks of template strings: syntax, and the names they read.

use std::collections::HashSet;

use super::render::single_expression;
use super::{ROOTS, Templates};

/// A problem in a template string; `offset` is a byte offset inside the string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateIssue {
    pub(crate) offset: usize,
    pub(crate) len: usize,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

/// What a template may name.
pub(crate) struct Scope<'a> {
    pub(crate) vars: &'a HashSet<String>,
    pub(crate) secrets: &'a HashSet<String>,
    /// Step ids that have run before this string is rendered.
    pub(crate) steps_before: &'a HashSet<String>,
    /// Every step id of the flow (to tell "later" from "unknown").
    pub(crate) all_steps: &'a HashSet<String>,
}

/// Parses `src` as a template and checks the names it reads.
pub(crate) fn check_template(t: &Templates, src: &str, scope: &Scope<'_>) -> Vec<TemplateIssue> {
    if let Some(expr) = single_expression(src) {
        // Same result, but a better column for errors inside the expression.
        let start = src.find(expr).unwrap_or(0);
        return check_expression(t, expr, scope)
            .into_iter()
            .map(|mut i| {
                i.offset += start;
                i
            })
            .collect();
    }
    match t.env().template_from_str(src) {
        Err(e) => vec![syntax(src, &e)],
        Ok(tmpl) => names(src, tmpl.undeclared_variables(true), scope),
    }
}

/// Parses `src` as a bare expression (`if:` without braces) and checks its names.
pub(crate) fn check_expression(t: &Templates, src: &str, scope: &Scope<'_>) -> Vec<TemplateIssue> {
    match t.env().compile_expression(src) {
        Err(e) => vec![syntax(src, &e)],
        Ok(expr) => names(src, expr.undeclared_variables(true), scope),
    }
}

fn syntax(src: &str, e: &minijinja::Error) -> TemplateIssue {
    let range = e.range().unwrap_or(0..src.len().min(2));
    let detail = e.detail().unwrap_or("invalid syntax");
    TemplateIssue {
        offset: range.start.min(src.len()),
        len: range.end.saturating_sub(range.start).max(1),
        message: format!("template syntax error: {detail}"),
        help: Some("templates use minijinja (Jinja2) syntax: `{{ vars.name }}`".into()),
    }
}

fn names(src: &str, used: HashSet<String>, scope: &Scope<'_>) -> Vec<TemplateIssue> {
    let mut used: Vec<String> = used.into_iter().collect();
    used.sort();
    let mut out = Vec::new();
    for name in used {
        let mut parts = name.splitn(3, '.');
        let root = parts.next().unwrap_or("");
        let second = parts.next();
        let issue = |what: &str, message: String, help: Option<String>| {
            let offset = src.find(what).unwrap_or(0);
            TemplateIssue {
                offset,
                len: what.len().max(1),
                message,
                help,
            }
        };
        if !ROOTS.contains(&root) {
            let help = crate::source::did_you_mean(root, ROOTS.iter().copied())
                .map(|s| format!("did you mean `{s}`?"))
                .or_else(|| Some(format!("a template can read: {}", ROOTS.join(", "))));
            out.push(issue(
                root,
                format!("unknown name `{root}` in template"),
                help,
            ));
            continue;
        }
        let Some(key) = second else { continue };
        match root {
            "vars" if !scope.vars.contains(key) => {
                let help = suggest(key, scope.vars)
                    .unwrap_or_else(|| "declare it under `vars:` (or define it with `set`)".into());
                out.push(issue(&name, format!("unknown var `{key}`"), Some(help)));
            }
            "secrets" if !scope.secrets.contains(key) => {
                let help = suggest(key, scope.secrets)
                    .unwrap_or_else(|| format!("list `{key}` under `secrets:`"));
                out.push(issue(&name, format!("unknown secret `{key}`"), Some(help)));
            }
            "steps" if !scope.steps_before.contains(key) => {
                if scope.all_steps.contains(key) {
                    out.push(issue(
                        &name,
                        format!("step `{key}` has not run yet at this point"),
                        Some("a step can only read the outputs of steps before it".into()),
                    ));
                } else {
                    let help = suggest(key, scope.all_steps)
                        .unwrap_or_else(|| "give the step an `id:` to read its outputs".into());
                    out.push(issue(&name, format!("unknown step id `{key}`"), Some(help)));
                }
            }
            _ => {}
        }
    }
    out
}

fn suggest(key: &str, known: &HashSet<String>) -> Option<String> {
    crate::source::did_you_mean(key, known.iter().map(String::as_str))
        .map(|s| format!("did you mean `{s}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> HashSet<String> {
        items.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn finds_syntax_errors_and_unknown_names() {
        let t = Templates::new();
        let vars = set(&["user"]);
        let none = set(&[]);
        let steps = set(&["build"]);
        let scope = Scope {
            vars: &vars,
            secrets: &none,
            steps_before: &steps,
            all_steps: &steps,
        };
        assert!(
            check_template(&t, "hi {{ vars.user }} {{ steps.build.stdout }}", &scope).is_empty()
        );
        let i = check_template(&t, "hi {{ vars.usr }}", &scope);
        assert_eq!(i[0].message, "unknown var `usr`");
        assert_eq!(i[0].help.as_deref(), Some("did you mean `user`?"));
        assert_eq!(i[0].offset, 6);
        let i = check_template(&t, "x {{ vars.user }", &scope);
        assert!(i[0].message.starts_with("template syntax error"), "{i:?}");
        let i = check_template(&t, "{{ step.build }}", &scope);
        assert_eq!(i[0].help.as_deref(), Some("did you mean `steps`?"));
        assert!(check_expression(&t, "steps.build.exit_code == 0", &scope).is_empty());
    }
}
