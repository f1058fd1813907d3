//! The page predicate `js` (`expect: { js }` and `wait: { js }`, Playwright's
//! `waitForFunction`): a JavaScript expression evaluated in the page, with `args` in scope, until
//! it is truthy. Each round evaluates it again; an exception it throws fails the step at once
//! with its message (a broken expression never turns into a timeout).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::outcome::Outcome;
use crate::browser::driver::script::call;
use crate::browser::driver::session::Session;
use crate::config::model::JsCheck;
use crate::step::{ErrorKind, Masker, StepError};

/// The most characters of a value a message shows (once masked).
const MAX_VALUE: usize = 200;

/// The most characters of what an exception says a message shows (once masked).
const MAX_THREW: usize = 2000;

/// `async (expr, args, ms) => { truthy, value } | { threw } | { pending } | { csp }`.
const PREDICATE_JS: &str = include_str!("../scripts/predicate.js");

/// What one evaluation gave.
pub(crate) struct Verdict {
    pub(crate) truthy: bool,
    /// A preview of the value (JSON, masked, then cut at `MAX_VALUE` characters).
    pub(crate) value: String,
}

/// Evaluates the expression once. `Err`: it threw (or cannot be evaluated here), which fails
/// the step at once; a navigation under it is the caller's to retry (`Poll::settle`).
pub(crate) async fn evaluate(
    session: &mut Session,
    j: &JsCheck,
    deadline: Instant,
) -> Result<Verdict, StepError> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    let ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
    let js = call(PREDICATE_JS, &[json!(j.expr()), j.args(), json!(ms)]);
    let v = session.eval(&js, left + Duration::from_secs(1)).await?;
    // The page sends a value or a message whole (up to a bound: `more`): masked, then cut.
    let more = v.get("more").and_then(Value::as_bool) == Some(true);
    let m = session.masker.clone();
    if let Some(threw) = v.get("threw").and_then(Value::as_str) {
        return Err(threw_error(
            &m,
            j,
            &m.mask_cut_held(threw, more, false, MAX_THREW),
        ));
    }
    if v.get("pending").and_then(Value::as_bool) == Some(true) {
        return Ok(Verdict {
            truthy: false,
            value: format!("a promise still pending after {ms} ms"),
        });
    }
    if let Some(csp) = v.get("csp").and_then(Value::as_str) {
        return by_devtools(session, j, csp, left).await;
    }
    let value = v
        .get("value")
        .and_then(Value::as_str)
        .unwrap_or("undefined");
    Ok(Verdict {
        truthy: v.get("truthy").and_then(Value::as_bool) == Some(true),
        value: m.mask_cut_held(value, more, false, MAX_VALUE),
    })
}

/// A page whose Content-Security-Policy forbids `new Function`: the expression is evaluated as
/// it is, as `eval` evaluates one (DevTools is not bound by the page's policy); it cannot be
/// given `args` there.
async fn by_devtools(
    session: &mut Session,
    j: &JsCheck,
    csp: &str,
    left: Duration,
) -> Result<Verdict, StepError> {
    if !j.args().is_null() {
        return Err(StepError::new(
            ErrorKind::CommandFailed,
            format!(
                "js `{}`: the page's Content-Security-Policy forbids evaluating code with `args` ({csp}); write the values into the expression",
                short(&session.masker, j.expr())
            ),
        ));
    }
    let m = session.masker.clone();
    match session.eval(j.expr(), left).await {
        Ok(v) => Ok(Verdict {
            truthy: truthy(&v),
            value: m.mask_cut(&v.to_string(), MAX_VALUE),
        }),
        Err(e) if e.message.starts_with("Evaluation error") => Err(threw_error(
            &m,
            j,
            &m.mask_cut(
                e.message.trim_start_matches("Evaluation error: "),
                MAX_THREW,
            ),
        )),
        Err(e) => Err(e),
    }
}

/// JavaScript's truthiness of a value that came back as JSON.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn threw_error(m: &Masker, j: &JsCheck, threw: &str) -> StepError {
    StepError::new(
        ErrorKind::CommandFailed,
        format!("js `{}` threw: {threw}", short(m, j.expr())),
    )
}

/// The expression on one line, masked (it may be rendered from a secret), then cut at 80
/// characters, for messages.
pub(crate) fn short(m: &Masker, expr: &str) -> String {
    m.mask_cut_line(expr, 80)
}

/// `expect: { js }`: truthy now, or what it gave.
pub(crate) async fn js_outcome(
    session: &mut Session,
    j: &JsCheck,
    deadline: Instant,
) -> Result<Outcome, StepError> {
    let what = format!("js `{}` to be truthy", short(&session.masker, j.expr()));
    let v = evaluate(session, j, deadline).await?;
    let failure = (!v.truthy).then(|| format!("expected {what}, got {}", v.value));
    Ok(Outcome::new(what, failure))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::browser::driver::script::node_run;

    /// The page script as the check calls it, in node: an expression with `args` in scope, a
    /// function called with them, a promise awaited, an exception reported, a promise that
    /// does not settle cut off.
    #[test]
    fn the_predicate_evaluates_the_expression_with_its_args() {
        let run = |expr: &str, args: Value, ms: u64| {
            let js = call(PREDICATE_JS, &[json!(expr), args, json!(ms)]);
            // node prints `{}` (the promise), then its value once it settles.
            let then = format!("{js}.then(v => process.stdout.write(JSON.stringify(v)))");
            node_run("", &then).unwrap()
        };
        assert!(run("args.n + 1 === 3", json!({"n": 2}), 100).contains("\"truthy\":true"));
        assert!(run("n => n > 5", json!(3), 100).contains("\"truthy\":false"));
        assert!(run("Promise.resolve([1, 2])", Value::Null, 100).contains("\"value\":\"[1,2]\""));
        assert!(
            run("(() => { throw new Error('boom') })()", Value::Null, 100)
                .contains("\"threw\":\"Error: boom\"")
        );
        assert!(run("a b c", Value::Null, 100).contains("\"threw\":\"SyntaxError"));
        assert!(run("new Promise(() => {})", Value::Null, 50).contains("\"pending\":true"));
    }

    #[test]
    fn truthiness_is_javascripts() {
        for (v, t) in [
            (json!(null), false),
            (json!(0), false),
            (json!(""), false),
            (json!(false), false),
            (json!(0.5), true),
            (json!("0"), true),
            (json!([]), true),
        ] {
            assert_eq!(truthy(&v), t, "{v}");
        }
    }
}
