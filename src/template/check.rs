//! Static checks of template strings: syntax, and the names they read.

use std::collections::{HashMap, HashSet};

use super::tags::single_expression;
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
    /// The outputs of steps whose outputs are known ahead, by step id.
    pub(crate) outputs: &'a HashMap<String, &'static [&'static str]>,
    /// What `web_server.*` holds here.
    pub(crate) web_server: Servers<'a>,
}

/// What `web_server.*` may read where a template is rendered.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Servers<'a> {
    /// The flow has a server of its own: `web_server.url`, `web_server.port`.
    pub(crate) own: bool,
    /// The run-level servers' names: `web_server.<name>.url`, `web_server.<name>.port`.
    pub(crate) shared: &'a [String],
    /// Not known here (a `_` sub-flow runs with its caller's): nothing is checked.
    pub(crate) any: bool,
    /// The flow's own server has no port to read: a command's without `port:`.
    pub(crate) no_port: bool,
}

/// What a server's entry in `web_server` holds.
const SERVER_FIELDS: [&str; 2] = ["url", "port"];

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
        Ok(tmpl) => {
            let mut out = names(t, src, tmpl.undeclared_variables(true), scope);
            for (start, end) in blocks(src) {
                out.extend(
                    unknown_filters_and_tests(t, &src[start..end])
                        .into_iter()
                        .map(|mut i| {
                            i.offset += start;
                            i
                        }),
                );
            }
            out
        }
    }
}

/// Parses `src` as a bare expression (`if:` without braces) and checks its names.
pub(crate) fn check_expression(t: &Templates, src: &str, scope: &Scope<'_>) -> Vec<TemplateIssue> {
    match t.env().compile_expression(src) {
        Err(e) => vec![syntax(src, &e)],
        Ok(expr) => {
            let mut out = names(t, src, expr.undeclared_variables(true), scope);
            out.extend(unknown_filters_and_tests(t, src));
            out
        }
    }
}

/// The byte ranges of the code of the `{{ ... }}` and `{% ... %}` tags of a template (where
/// filters and tests can be), as minijinja reads them.
fn blocks(src: &str) -> Vec<(usize, usize)> {
    super::tags::tags(src).map_or_else(
        |_| Vec::new(),
        |tags| {
            tags.into_iter()
                .map(|t| (t.code.start, t.code.end))
                .collect()
        },
    )
}

/// Filters (`| name`) and tests (`is name`, `is not name`) that the environment does not have.
/// The static check minijinja does not make: it resolves them only when rendering.
fn unknown_filters_and_tests(t: &Templates, src: &str) -> Vec<TemplateIssue> {
    let code = blank_strings(src);
    let state = t.env().empty_state();
    let mut out = unknown_filters(&state, &code);
    out.extend(unknown_tests(&state, &code));
    out
}

/// `src` with the inside of its string literals blanked out (same width), so a `|` or `is`
/// inside quotes is not taken for syntax.
fn blank_strings(src: &str) -> String {
    let mut code = String::with_capacity(src.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in src.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            // The closing quote stays; what is inside becomes blanks of the same width.
            if quote.is_none() {
                code.push(c);
            } else {
                code.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        } else {
            if c == '\'' || c == '"' {
                quote = Some(c);
            }
            code.push(c);
        }
    }
    code
}

/// The identifier `s` starts with.
fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// `| name` where the environment has no filter `name` (`code` has its strings blanked).
fn unknown_filters(state: &minijinja::State<'_, '_>, code: &str) -> Vec<TemplateIssue> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices('|') {
        let rest = &code[i + 1..];
        let name = ident(rest.trim_start());
        if name.is_empty() {
            continue;
        }
        let unknown = matches!(
            state.apply_filter(&name, &[minijinja::Value::UNDEFINED]),
            Err(e) if e.kind() == minijinja::ErrorKind::UnknownFilter
        );
        if unknown {
            let offset = i + 1 + (rest.len() - rest.trim_start().len());
            out.push(TemplateIssue {
                offset,
                len: name.len(),
                message: format!("unknown filter `{name}`"),
                help: Some(
                    "see https://docs.rs/minijinja/latest/minijinja/filters/ for the filters templates have"
                        .into(),
                ),
            });
        }
    }
    out
}

/// `is name` / `is not name` where the environment has no test `name`.
fn unknown_tests(state: &minijinja::State<'_, '_>, code: &str) -> Vec<TemplateIssue> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(" is ") {
        let rest = code[i + 4..].trim_start();
        let rest = rest.strip_prefix("not ").map_or(rest, str::trim_start);
        let name = ident(rest);
        if name.is_empty() {
            continue;
        }
        let unknown = matches!(
            state.perform_test(&name, &[minijinja::Value::UNDEFINED]),
            Err(e) if e.kind() == minijinja::ErrorKind::UnknownTest
        );
        if unknown {
            out.push(TemplateIssue {
                offset: code.len() - rest.len(),
                len: name.len(),
                message: format!("unknown test `{name}`"),
                help: Some(
                    "tests are `defined`, `none`, `number`, `string`, `in`, `startingwith`, ..."
                        .into(),
                ),
            });
        }
    }
    out
}

fn syntax(src: &str, e: &minijinja::Error) -> TemplateIssue {
    let range = e.range().unwrap_or(0..src.len().min(2));
    let detail = e.detail().unwrap_or("invalid syntax");
    // `a = 'b'` in a condition is almost always a comparison.
    let lone_eq = src.char_indices().any(|(i, c)| {
        c == '=' && !src[..i].ends_with(['=', '!', '<', '>']) && !src[i + 1..].starts_with('=')
    });
    let help = if lone_eq {
        "did you mean `==`? (`=` assigns only in `{% set %}`)".to_string()
    } else {
        "templates use minijinja (Jinja2) syntax: `{{ vars.name }}`".to_string()
    };
    TemplateIssue {
        offset: range.start.min(src.len()),
        len: range.end.saturating_sub(range.start).max(1),
        message: format!("template syntax error: {detail}"),
        help: Some(help),
    }
}

/// The names a template reads (`used`) that do not exist where it is rendered.
fn names(t: &Templates, src: &str, used: HashSet<String>, scope: &Scope<'_>) -> Vec<TemplateIssue> {
    let mut used: Vec<String> = used.into_iter().collect();
    used.sort();
    used.iter()
        .filter_map(|name| name_issue(t, src, name, scope))
        .collect()
}

/// What is wrong with one name a template reads (`root.key.field...`), if anything.
fn name_issue(t: &Templates, src: &str, name: &str, scope: &Scope<'_>) -> Option<TemplateIssue> {
    let mut parts = name.splitn(3, '.');
    let root = parts.next().unwrap_or("");
    let key = parts.next();
    // The output a `steps.<id>.<output>...` path reads.
    let field = parts
        .next()
        .map(|f| f.split(['.', '[', '(']).next().unwrap_or(f));
    // The environment's own globals (`range`, `dict`, `namespace`, `cycler`, ...).
    if t.env().globals().any(|(g, _)| g == root) {
        return None;
    }
    if !ROOTS.contains(&root) {
        let help = crate::source::did_you_mean(root, ROOTS.iter().copied())
            .map(|s| format!("did you mean `{s}`?"))
            .or_else(|| Some(format!("a template can read: {}", ROOTS.join(", "))));
        return Some(issue(
            src,
            root,
            format!("unknown name `{root}` in template"),
            help,
        ));
    }
    if root == "web_server" && !scope.web_server.any && !guarded(src, name) {
        // `web_server['port']`, `web_server | attr('port')`: read as `web_server` alone.
        let servers = scope.web_server;
        let port = || servers.own && servers.no_port && super::tags::reads_key(src, root, "port");
        let key = key.or_else(|| port().then_some("port"));
        return server_issue(src, name, key, field, servers);
    }
    let key = key?;
    // `vars.get('K')` may read a var that is not there (it gives none, or its default), as a
    // guarded read may; `vars.items()` reads what there is.
    if guarded(src, name) || (root == "vars" && super::var_reads::is_method_call(src, key)) {
        return None;
    }
    match root {
        "vars" if !scope.vars.contains(key) => {
            let help = suggest(key, scope.vars)
                .unwrap_or_else(|| "declare it under `vars:` (or define it with `set`)".into());
            Some(issue(src, name, format!("unknown var `{key}`"), Some(help)))
        }
        "secrets" if !scope.secrets.contains(key) => {
            let help = suggest(key, scope.secrets)
                .unwrap_or_else(|| format!("list `{key}` under `secrets:`"));
            Some(issue(
                src,
                name,
                format!("unknown secret `{key}`"),
                Some(help),
            ))
        }
        "steps" => step_issue(src, name, key, field, scope),
        _ => None,
    }
}

/// `web_server`, `web_server.<key>` or `web_server.<name>.<field>`: the flow's own server's
/// `url` and `port`, or a run-level server's.
fn server_issue(
    src: &str,
    name: &str,
    key: Option<&str>,
    field: Option<&str>,
    servers: Servers<'_>,
) -> Option<TemplateIssue> {
    let shared = || {
        servers
            .shared
            .iter()
            .map(|n| format!("`web_server.{n}.url`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let none = || {
        let help = if servers.shared.is_empty() {
            "add `web_server: { static: DIR }` (or `command` + `url`), or use a var for the URL"
                .to_string()
        } else {
            format!("the run's servers (runner.toml) are {}", shared())
        };
        Some(issue(
            src,
            "web_server",
            "`web_server` is not defined: this flow has no `web_server:`".to_string(),
            Some(help),
        ))
    };
    let Some(key) = key else {
        return (!servers.own && servers.shared.is_empty())
            .then(none)
            .flatten();
    };
    if SERVER_FIELDS.contains(&key) {
        return match servers.own {
            true if key == "port" && servers.no_port => Some(issue(
                src,
                name,
                "`web_server.port` is not set: this flow's server has no `port:`".to_string(),
                Some(
                    "give it `port: auto` (a free port, also given as $PORT) or the port its command listens on"
                        .to_string(),
                ),
            )),
            true => None,
            false => none(),
        };
    }
    if servers.shared.iter().any(|n| n == key) {
        return match field {
            Some(f) if !SERVER_FIELDS.contains(&f) => Some(issue(
                src,
                name,
                format!("`web_server.{key}` has no `{f}`"),
                Some(format!(
                    "a server has `url` and `port`: `web_server.{key}.url`"
                )),
            )),
            _ => None,
        };
    }
    let mut known: Vec<&str> = Vec::new();
    if servers.own {
        known.extend(SERVER_FIELDS);
    }
    known.extend(servers.shared.iter().map(String::as_str));
    let help = match crate::source::did_you_mean(key, known.iter().copied()) {
        Some(s) => format!("did you mean `web_server.{s}`?"),
        None if servers.shared.is_empty() => "a flow's server has `web_server.url` and `web_server.port`; run-level servers are `[[web_server]]` in runner.toml".into(),
        None => format!("the run's servers are {}", shared()),
    };
    Some(issue(
        src,
        name,
        format!("unknown `web_server.{key}`: no such server or field"),
        Some(help),
    ))
}

/// `steps.<key>.<field>`: a step that has run before, and an output it has.
fn step_issue(
    src: &str,
    name: &str,
    key: &str,
    field: Option<&str>,
    scope: &Scope<'_>,
) -> Option<TemplateIssue> {
    if !scope.steps_before.contains(key) {
        if scope.all_steps.contains(key) {
            return Some(issue(
                src,
                name,
                format!("step `{key}` has not run yet at this point"),
                Some("a step can only read the outputs of steps before it".into()),
            ));
        }
        let help = suggest(key, scope.all_steps)
            .unwrap_or_else(|| "give the step an `id:` to read its outputs".into());
        return Some(issue(
            src,
            name,
            format!("unknown step id `{key}`"),
            Some(help),
        ));
    }
    let field = field?;
    let known = scope.outputs.get(key)?;
    if known.contains(&field) {
        return None;
    }
    let help = crate::source::did_you_mean(field, known.iter().copied())
        .map(|s| format!("did you mean `{s}`?"))
        .or_else(|| {
            Some(if known.is_empty() {
                format!("step `{key}` has no outputs")
            } else {
                format!("its outputs: {}", known.join(", "))
            })
        });
    Some(issue(
        src,
        &format!("steps.{key}.{field}"),
        format!("step `{key}` has no output `{field}`"),
        help,
    ))
}

/// An issue at the first place `what` appears in `src`.
fn issue(src: &str, what: &str, message: String, help: Option<String>) -> TemplateIssue {
    TemplateIssue {
        offset: src.find(what).unwrap_or(0),
        len: what.len().max(1),
        message,
        help,
    }
}

/// Whether some use of `name` in `src` is guarded, so the name is optional by design:
/// `name is defined`, `name is not defined`, `name is undefined`, `name | default(...)`,
/// `name | d(...)`.
fn guarded(src: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    src.match_indices(name).any(|(i, _)| {
        let before_ok = src[..i].chars().next_back().is_none_or(|c| !ident(c));
        let rest = &src[i + name.len()..];
        if !before_ok || rest.chars().next().is_some_and(ident) {
            return false;
        }
        let rest = rest.trim_start();
        if let Some(test) = rest.strip_prefix("is") {
            let test = test.trim_start();
            let test = test.strip_prefix("not").map_or(test, str::trim_start);
            return test.starts_with("defined") || test.starts_with("undefined");
        }
        rest.strip_prefix('|').is_some_and(|f| {
            let f = f.trim_start();
            f.starts_with("default") || f.starts_with("d(") || f.starts_with("d ")
        })
    })
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
            outputs: &HashMap::new(),
            web_server: Servers::default(),
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

    #[test]
    fn guarded_names_are_optional_and_unknown_filters_and_tests_are_refused() {
        let t = Templates::new();
        let none = set(&[]);
        let scope = Scope {
            vars: &none,
            secrets: &none,
            steps_before: &none,
            all_steps: &none,
            outputs: &HashMap::new(),
            web_server: Servers::default(),
        };
        for ok in [
            "{{ vars.base_url | default('http://localhost') }}",
            "{{ vars.base_url|d('x') }}",
            "{% if vars.flag is defined %}{{ vars.flag }}{% endif %}",
            "{{ 'a|b' | upper }} {{ env.HOME is not none }}",
            "plain text | with a bar",
            "{{ range(3) | list }} {{ dict(a=1).items() | list }} {{ namespace(x=1).x }}",
        ] {
            assert!(
                check_template(&t, ok, &scope).is_empty(),
                "{ok}: {:?}",
                check_template(&t, ok, &scope)
            );
        }
        let i = check_template(&t, "{{ vars.name }}", &scope);
        assert_eq!(i[0].message, "unknown var `name`");
        let i = check_template(&t, "{{ 'x' | uper }}", &scope);
        assert_eq!(i[0].message, "unknown filter `uper`");
        assert_eq!(i[0].offset, 9);
        let i = check_expression(&t, "env.X is definedd", &scope);
        assert_eq!(i[0].message, "unknown test `definedd`");
    }
}
