//! The vars a template reads, as the template parser names them: `vars.K`, `vars['K']`,
//! `vars | attr('K')`, and through a method of `vars` (`vars.get('K')`, `vars.get('K', 1)`); a
//! read of `vars` that names no var (`vars[name]`, `vars['K' ~ n]`, `vars | items`,
//! `vars.items()`, `vars.get(name)`) reads `*`, any var.
//! What the checks of the vars given to runner (`--var`, var files) look at.

use super::Templates;
use super::tags::{Kind, single_expression, tags};

/// The methods of `vars` (a mapping, with Python's methods) that read its entries.
const METHODS: [&str; 4] = ["get", "items", "keys", "values"];

/// The vars `src` reads (`vars.K`, `vars['K']`, `vars.get('K')`), each once with the byte
/// range of its first use in `src`: a template, or a bare expression when `expression` (`if:`
/// without braces). A template that does not parse reads none (it is refused on its own).
pub(crate) fn vars_read(t: &Templates, src: &str, expression: bool) -> Vec<(String, usize, usize)> {
    let names = if expression {
        t.env()
            .compile_expression(src)
            .map(|e| e.undeclared_variables(true))
    } else {
        t.env()
            .template_from_str(src)
            .map(|t| t.undeclared_variables(true))
    };
    let mut names: Vec<String> = names.map(|n| n.into_iter().collect()).unwrap_or_default();
    names.sort();
    let mut out: Vec<(String, usize, usize)> = Vec::new();
    if names.iter().any(|n| n == "vars") {
        subscripts(src, &mut out);
    }
    for name in names {
        let mut parts = name.splitn(3, '.');
        let (Some("vars"), Some(key)) = (parts.next(), parts.next()) else {
            continue;
        };
        if is_method_call(src, key) {
            methods(src, expression, key, &mut out);
        } else if !out.iter().any(|(k, ..)| k == key) {
            let at = src.find(&name).unwrap_or(0);
            out.push((key.to_string(), at, name.len().max(1)));
        }
    }
    out
}

/// The vars `src` reads where their type matters: [`vars_read`] but for a read that is a tag
/// of its own in a template that is text (`"build {{ vars.BUILD }}"`, `"{{- vars['K'] }}"`):
/// the text printed is the same whether the var is the text `"123"` or the number 123, the
/// text `"false"` or the boolean. A template that is one expression keeps its value's type
/// (`"{{ vars.N }}"` is the number), and a bare expression, a comparison, a test, a filter, a
/// block (`{% if vars.K %}`) read the type: those reads stay.
pub(crate) fn typed_vars_read(
    t: &Templates,
    src: &str,
    expression: bool,
) -> Vec<(String, usize, usize)> {
    if expression || single_expression(src).is_some() {
        return vars_read(t, src, expression);
    }
    let Ok(tags) = tags(src) else {
        return Vec::new();
    };
    let mut code = src.to_string();
    for tag in tags.iter().filter(|t| t.kind == Kind::Expression) {
        if plain(&src[tag.code.clone()]) {
            // The same width, so the places of the other reads stay (`0` prints as text does).
            let width = tag.code.len();
            code.replace_range(tag.code.clone(), &format!("0{}", " ".repeat(width - 1)));
        }
    }
    vars_read(t, &code, false)
}

/// Whether `code` (a tag's) is only a read of one var: `vars.K`, `vars['K']`, `vars["K"]`.
fn plain(code: &str) -> bool {
    static PLAIN: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    PLAIN
        .get_or_init(|| {
            regex::Regex::new(
                r#"^vars\s*(?:\.\s*[A-Za-z_][A-Za-z0-9_]*|\[\s*(?:'[A-Za-z_][A-Za-z0-9_]*'|"[A-Za-z_][A-Za-z0-9_]*")\s*\])$"#,
            )
            .ok()
        })
        .as_ref()
        .is_some_and(|re| re.is_match(code.trim()))
}

/// Whether `vars.<key>` is a call of a method of `vars` in `src` (`vars.get(...)`), not the var
/// named `get`.
pub(crate) fn is_method_call(src: &str, key: &str) -> bool {
    METHODS.contains(&key) && calls(src).any(|c| c.method == key)
}

/// A call of a method of `vars` in `src`: its name, the literal name it is given first (a
/// `get` of one var), and its place.
struct Call<'a> {
    method: &'a str,
    literal: Option<&'a str>,
    start: usize,
    len: usize,
}

fn calls(src: &str) -> impl Iterator<Item = Call<'_>> {
    static CALL: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = CALL.get_or_init(|| {
        regex::Regex::new(
            r#"\bvars\s*\.\s*(get|items|keys|values)\s*\(\s*(?:(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")\s*[,)])?"#,
        )
        .ok()
    });
    re.iter()
        .flat_map(|re| re.captures_iter(src))
        .filter_map(|c| {
            let all = c.get(0)?;
            Some(Call {
                method: c.get(1)?.as_str(),
                literal: c.get(2).or_else(|| c.get(3)).map(|m| m.as_str()),
                start: all.start(),
                len: all.len(),
            })
        })
}

/// The reads of the calls of `vars.<method>` in `src`: `get` given a literal name reads that
/// var; any other (`items()`, `get(name)`) reads `*`. Only the calls in a template's tags (or
/// in a bare expression) count: not a comment's.
fn methods(src: &str, expression: bool, method: &str, out: &mut Vec<(String, usize, usize)>) {
    let code: Vec<std::ops::Range<usize>> = if expression {
        Vec::new()
    } else {
        tags(src).map_or_else(|_| Vec::new(), |t| t.into_iter().map(|t| t.code).collect())
    };
    for call in calls(src).filter(|c| c.method == method) {
        if !expression && !code.iter().any(|r| r.contains(&call.start)) {
            continue;
        }
        let (key, start, len) = match call.literal.filter(|_| method == "get") {
            Some(k) => (k, call.start, call.len),
            None => ("*", 0, src.len().max(1)),
        };
        if !out.iter().any(|(k, ..)| k == key) {
            out.push((key.to_string(), start, len));
        }
    }
}

/// The vars `src` reads by subscript or `attr`: `vars['K']`, `vars["K"]` and `vars | attr('K')`
/// by name; any other use of `vars` as a whole (`vars[name]`, `vars['K' ~ n]`, `vars | items`,
/// `vars | attr(name)`) as `*`, a read of any var.
fn subscripts(src: &str, out: &mut Vec<(String, usize, usize)>) {
    static SUBSCRIPT: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re = SUBSCRIPT.get_or_init(|| {
        regex::Regex::new(
            r#"\bvars\s*(?:\[\s*(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")\s*\]|\|\s*attr\s*\(\s*(?:'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")\s*\))"#,
        )
        .ok()
    });
    let mut named = 0;
    for c in re.iter().flat_map(|re| re.captures_iter(src)) {
        let key = (1..=4).find_map(|i| c.get(i));
        let (Some(all), Some(key)) = (c.get(0), key) else {
            continue;
        };
        named += 1;
        if !out.iter().any(|(k, ..)| k == key.as_str()) {
            out.push((key.as_str().to_string(), all.start(), all.len()));
        }
    }
    let whole = src.match_indices("vars").filter(|(i, _)| {
        let before = src[..*i].chars().next_back();
        let after = src[i + 4..].chars().next();
        let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
        before.is_none_or(|c| !ident(c)) && after.is_none_or(|c| !ident(c))
    });
    if whole.count() > named {
        out.push(("*".to_string(), 0, src.len().max(1)));
    }
}

#[cfg(test)]
mod tests {
    use super::{Templates, typed_vars_read, vars_read};

    fn keys(read: &[(String, usize, usize)]) -> Vec<&str> {
        read.iter().map(|(k, ..)| k.as_str()).collect()
    }

    #[test]
    fn the_vars_read_are_the_parsers_names() {
        let t = Templates::new();
        let read = |src: &str, expression: bool| vars_read(&t, src, expression);
        assert_eq!(
            keys(&read("{{ vars.BASE_URL }} {# vars.BASE #}", false)),
            ["BASE_URL"]
        );
        assert_eq!(keys(&read("{{ vars['LIMIT'] }}", false)), ["LIMIT"]);
        assert_eq!(keys(&read("{{ vars[name] }}", false)), ["*"]);
        assert_eq!(
            keys(&read("not vars.SKIP and vars.N > 1", true)),
            ["N", "SKIP"]
        );
        let (_, at, len) = read("a {{ vars.X }}", false)[0].clone();
        assert_eq!((at, len), (5, 6));
    }

    /// D4: `vars.get('K', 1)` was a var named `get`, and K no read at all.
    #[test]
    fn a_method_of_vars_given_a_name_reads_that_var_and_any_other_reads_all() {
        let t = Templates::new();
        let read = |src: &str, expression: bool| vars_read(&t, src, expression);
        assert_eq!(keys(&read("{{ vars.get('K') }}", false)), ["K"]);
        assert_eq!(keys(&read("{{ vars.get(\"K\", 1) + 2 }}", false)), ["K"]);
        assert_eq!(keys(&read("not vars.get('SKIP', false)", true)), ["SKIP"]);
        let (_, at, len) = read("x {{ vars.get('K') }}", false)[0].clone();
        assert_eq!((at, len), (5, 13));
        for src in [
            "{% for k, v in vars.items() %}{{ k }}{% endfor %}",
            "{{ vars.keys() | list }}",
            "{{ vars.values() | list }}",
            "{{ vars.get(name) }}",
            "{{ vars.get('K' ~ n) }}",
        ] {
            assert_eq!(keys(&read(src, false)), ["*"], "{src}");
        }
        // C17: `attr` of a literal name reads that var; of a computed one, any.
        assert_eq!(keys(&read("not (vars | attr('SKIP'))", true)), ["SKIP"]);
        assert_eq!(keys(&read("{{ vars|attr(\"K\") > 1 }}", false)), ["K"]);
        assert_eq!(keys(&read("not (vars | attr('SK' ~ 'IP'))", true)), ["*"]);
        assert_eq!(keys(&read("not vars['SK' ~ 'IP']", true)), ["*"]);
        // A var named `get` read as one, and a call in a comment, are not method calls.
        assert_eq!(keys(&read("{{ vars.get }}", false)), ["get"]);
        assert_eq!(
            keys(&read("{{ vars.N }} {# vars.get('K') #}", false)),
            ["N"]
        );
    }

    /// D3: a tag that only prints a var, in a template that is text, does not read its type.
    #[test]
    fn a_var_only_printed_into_a_text_is_not_a_typed_read() {
        let t = Templates::new();
        let typed = |src: &str, expression: bool| typed_vars_read(&t, src, expression);
        assert!(typed("build {{ vars.BUILD }}-{{- vars['A'] -}}", false).is_empty());
        assert_eq!(keys(&typed("{{ vars.BUILD }}", false)), ["BUILD"]);
        assert_eq!(keys(&typed("vars.BUILD", true)), ["BUILD"]);
        assert_eq!(keys(&typed("n {{ vars.N + 1 }}", false)), ["N"]);
        assert_eq!(keys(&typed("{% if vars.N %}y{% endif %}", false)), ["N"]);
        assert_eq!(keys(&typed("a {{ vars.N | int }}", false)), ["N"]);
        // The places of the reads that stay are those in the string.
        let src = "{{ vars.A }} and {{ vars.B > 1 }}";
        assert_eq!(typed(src, false), [("B".to_string(), 20, 6)]);
    }
}
