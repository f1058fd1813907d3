//! The checks of one step's action: its `frame`, its selectors (refs with `nth`, Playwright's
//! syntax, broken CSS), the regexes of `expect`, and the agent profiles and steps it names.

use std::collections::HashSet;

use super::agents::{check_agent_step, check_profile, check_stop_agent};
use super::context::{Ctx, Declared};
use crate::config::any_text::{any_text_message, matches_any_text};
use crate::config::model::{
    Action, ExpectAction, KeyboardAction, Matcher, OneOrMany, PressAction, Step, check_key,
};
use crate::config::schema::{at_key, at_value};
use crate::config::selector::{
    css_problem, css_strings, meaningless_objects, refs_with_nth, selectors,
};
use crate::source::Diagnostic;
use crate::template::is_template;

/// The checks of the step at `ptr`; `before` holds the ids of the steps that run before it.
pub(super) fn check_action(
    c: &Ctx<'_>,
    ptr: &str,
    step: &Step,
    d: &Declared<'_>,
    before: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    frame(c, ptr, step, out);
    step_selectors(c, ptr, step, out);
    url_globs(c, ptr, step, out);
    match &step.action {
        Action::Expect(e) => expect_regexes(c, ptr, e, out),
        Action::Act(a) => {
            if let (_, Some(profile), variant) = a.parts() {
                let p = format!("{ptr}/act");
                let (profile_ptr, variant_ptr) = (format!("{p}/profile"), format!("{p}/variant"));
                check_profile(c, &profile_ptr, &variant_ptr, profile, variant, out);
            }
        }
        Action::Agent(a) => check_agent_step(c, ptr, a, d, before, out),
        Action::StopAgent(target) => check_stop_agent(c, ptr, target, d, before, out),
        Action::Press(_) | Action::Keyboard(_) => keys(c, ptr, &step.action, out),
        Action::Request(r) => super::request::check_request(c, ptr, r, out),
        Action::Each(_) | Action::Group(_) => super::control::check_holder(c, ptr, step, out),
        _ => {}
    }
}

/// The URL globs of `route` and `expect: { request }` name hosts as the browser requests them
/// (`config::url_host`).
fn url_globs(c: &Ctx<'_>, ptr: &str, step: &Step, out: &mut Vec<Diagnostic>) {
    let (glob, p) = match &step.action {
        Action::Route(r) => (&r.url, format!("{ptr}/route/url")),
        Action::Expect(e) => match &e.request {
            Some(r) => (&r.url, format!("{ptr}/expect/request/url")),
            None => return,
        },
        _ => return,
    };
    if is_template(glob) {
        return;
    }
    if let Some(why) = crate::config::url_host::host_problem(glob) {
        out.push(at_value(c.file, c.spans, &p, why));
    }
}

/// The keys of `press` and `keyboard: { press }`: each one agent-browser presses as the key it
/// names (another reaches the page as a key event with no key, and the step would pass).
fn keys(c: &Ctx<'_>, ptr: &str, action: &Action, out: &mut Vec<Diagnostic>) {
    let keys: Vec<(String, &str)> = match action {
        Action::Press(PressAction::Key(k)) => vec![(format!("{ptr}/press"), k.as_str())],
        Action::Press(PressAction::On(p)) => vec![(format!("{ptr}/press/key"), p.key.as_str())],
        Action::Keyboard(KeyboardAction::Press(OneOrMany::One(k))) => {
            vec![(format!("{ptr}/keyboard/press"), k.as_str())]
        }
        Action::Keyboard(KeyboardAction::Press(OneOrMany::Many(ks))) => ks
            .iter()
            .enumerate()
            .map(|(i, k)| (format!("{ptr}/keyboard/press/{i}"), k.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    for (p, key) in keys {
        if let Err((what, help)) = check_key(key) {
            out.push(at_value(c.file, c.spans, &p, what).with_help(help));
        }
    }
}

/// What a selector's `frame` takes.
const FRAME_HELP: &str = "`frame` is the CSS of one iframe in the page (open shadow roots included), as `iframe#pay` or `iframe[title=\"Payment\"]`";

/// A step's `frame` scopes its selectors: refused on a step without any, and taken as written;
/// its CSS is checked as a selector's `frame` is.
fn frame(c: &Ctx<'_>, ptr: &str, step: &Step, out: &mut Vec<Diagnostic>) {
    let Some(f) = &step.frame else { return };
    let key = step.action.key();
    let p = format!("{ptr}/frame");
    if selectors(&step.action).is_empty() {
        out.push(
            at_key(
                c.file,
                c.spans,
                &p,
                format!("`frame` scopes a step's selectors to an iframe; `{key}` has none"),
            )
            .with_help("drop `frame`"),
        );
    } else if is_template(f) {
        out.push(
            crate::config::literal::refused(c.file, c.spans, &p, f).with_help(
                "write the iframe's CSS selector (a selector's own `frame` takes templates)",
            ),
        );
    } else if let Some(problem) = css_problem(f) {
        out.push(at_value(c.file, c.spans, &p, problem).with_help(FRAME_HELP));
    }
}

/// Bare strings in selectors are CSS: Playwright's syntax and broken CSS are refused here, and a
/// ref takes no `nth`.
fn step_selectors(c: &Ctx<'_>, ptr: &str, step: &Step, out: &mut Vec<Diagnostic>) {
    let key = step.action.key();
    for (at, sel) in selectors(&step.action) {
        for sub in refs_with_nth(sel) {
            let key_of = sub.rsplit('/').next().unwrap_or("nth").to_string();
            out.push(
                at_key(
                    c.file,
                    c.spans,
                    &format!("{ptr}/{key}{at}{sub}"),
                    format!("a ref names one element: `{key_of}` does not apply to it"),
                )
                .with_help(format!("drop `{key_of}`, or select by role, CSS or text")),
            );
        }
        for (sub, why) in meaningless_objects(sel) {
            out.push(
                at_value(c.file, c.spans, &format!("{ptr}/{key}{at}{sub}"), why).with_help(
                    "the keys a selector takes together are listed in docs/steps.md, \"Selectors\"",
                ),
            );
        }
        for (sub, css) in css_strings(sel) {
            if is_template(css) {
                continue;
            }
            if let Some(problem) = css_problem(css) {
                let help = if sub.ends_with("/frame") {
                    FRAME_HELP
                } else {
                    "a string selector is CSS; other kinds: `@e5` (a ref), { role, text }, { text, tag }, { css, nth }"
                };
                out.push(
                    at_value(c.file, c.spans, &format!("{ptr}/{key}{at}{sub}"), problem)
                        .with_help(help),
                );
            }
        }
    }
}

/// The `matches` regexes of an `expect` (and of its `not`) compile, and each can fail (one that
/// matches any text, `.*`, is a check of nothing).
fn expect_regexes(c: &Ctx<'_>, ptr: &str, e: &ExpectAction, out: &mut Vec<Diagnostic>) {
    let mut matchers = regexes(e, "");
    if let Some(n) = &e.not {
        matchers.extend(regexes(n, "not/"));
    }
    for (key, re) in matchers {
        let Some(re) = re.filter(|re| !is_template(re)) else {
            continue;
        };
        let p = format!("{ptr}/expect/{key}/matches");
        if matches_any_text(&re) {
            let (message, help) = any_text_message(&re);
            out.push(at_value(c.file, c.spans, &p, message).with_help(help));
        } else if let Err(err) = regex::Regex::new(&re) {
            let msg = err.to_string();
            let last = msg.lines().last().unwrap_or("invalid regex").trim();
            let last = last.strip_prefix("error: ").unwrap_or(last).to_string();
            out.push(
                at_value(
                    c.file,
                    c.spans,
                    &p,
                    format!("invalid regular expression: {last}"),
                )
                .with_help("`matches` takes a Rust regex; escape special characters with `\\`"),
            );
        }
    }
}

/// The regexes of `e`'s checks, with their keys below `at`.
fn regexes(e: &ExpectAction, at: &str) -> Vec<(String, Option<String>)> {
    vec![
        (format!("{at}url"), e.url.as_ref().and_then(matcher_regex)),
        (
            format!("{at}title"),
            e.title.as_ref().and_then(matcher_regex),
        ),
        (
            format!("{at}text"),
            e.text.as_ref().and_then(|t| t.matches.clone()),
        ),
        (
            format!("{at}value"),
            e.value.as_ref().and_then(|t| t.matches.clone()),
        ),
        (
            format!("{at}attribute"),
            e.attribute.as_ref().and_then(|t| t.matches.clone()),
        ),
        (
            format!("{at}class"),
            e.class.as_ref().and_then(|t| t.matches.clone()),
        ),
        (
            format!("{at}dialog/message"),
            e.dialog
                .as_ref()
                .and_then(|d| d.message.as_ref())
                .and_then(matcher_regex),
        ),
    ]
}

fn matcher_regex(m: &Matcher) -> Option<String> {
    match m {
        Matcher::Full(o) => o.matches.clone(),
        Matcher::Equals(_) => None,
    }
}
