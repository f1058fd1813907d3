//! HTTP requests (`request`), their checks, `open`'s expected status, and templates that render
//! to numbers or booleans in fields that take text.

use crate::common::{Ran, flow_run, step, write};

/// A template that renders to a number or a boolean is fine where the schema takes a string:
/// `exec` arguments, env values, the same mechanism for every field.
#[test]
fn templates_rendering_to_numbers_fill_text_fields() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "numbers.yaml",
        r#"
name: numbers in text fields
vars: { port: 8765, on: true, ratio: 1.5 }
steps:
  - id: argv
    exec: [echo, --port, "{{ vars.port }}", "{{ vars.on }}", "{{ vars.ratio }}"]
  - id: full
    exec:
      command: [sh, -c, 'echo "$PORT $ON" "$1"', sh, "{{ vars.port + 1 }}"]
      env: { PORT: "{{ vars.port }}", ON: "{{ vars.on }}" }
      cwd: "."
      stdin: "{{ vars.port }}"
"#,
    );
    let report = flow_run(d.path()).arg("numbers.yaml").passes();
    assert_eq!(
        step(&report, "argv")["outputs"]["stdout"],
        "--port 8765 true 1.5"
    );
    assert_eq!(step(&report, "full")["outputs"]["stdout"], "8765 true 8766");
}

/// A flow file against the fixture API (tests/fixtures/api_server.py) on a free port.
fn api_flow(name: &str, port: u16, steps: &str) -> String {
    format!(
        r#"name: {name}
web_server:
  command: ["python3", "{api}", "{port}"]
  url: "http://127.0.0.1:{port}/items"
  ready_timeout: 20s
vars: {{ api: "http://127.0.0.1:{port}" }}
steps:
{steps}"#,
        api = crate::common::fixture("api_server.py").display()
    )
}

/// The message of a failed step.
fn error_of(s: &serde_json::Value) -> String {
    s["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `file:line:col` of a failed step's error.
fn at_of(s: &serde_json::Value) -> String {
    s["error"]["location"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Every check kind passes on what the API answers; the request's method, headers, query and
/// each kind of body arrive as written; outputs and `fromjson` read the response.
#[test]
fn request_sends_what_it_says_and_its_checks_pass() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: items
    request:
      url: "{{ vars.api }}/items"
      expect:
        status: 200
        headers:
          Content-Type: { contains: json }
          x-request-id: r-1
          X-Missing: { exists: false }
        json:
          $.name: widget
          $.id: { equals: 7, min: 1, max: 7 }
          $.price: 12.5
          $.tags: { contains: sale, count: 2 }
          $.items: { count: 3 }
          $.items[*].sku: [a1, b2, c3]
          $.items[?@.qty > 0].sku: { count: 2 }
          $.items[0]: { equals: { sku: a1, qty: 2 } }
          $.deleted_at: { equals: null, exists: true }
          $.nope: { exists: false }
          $['name']: { matches: "^wid", not_equals: gadget }
        body: { contains: '"widget"' }
        duration_ms: { min: 0 }
  - id: short
    request: "{{ vars.api }}/items"
  - expect: { that: "{{ steps.short.status == 200 and steps.short.json.id == 7 and (steps.short.body | fromjson).name == 'widget' }}" }
  - expect: { that: "{{ steps.short.json.items[0] == {'sku': 'a1', 'qty': 2} and steps.short.json.items[0] != {'sku': 'a1', 'qty': 3} and [steps.short.json.id] in [[7]] }}" }
  - expect: { that: "{{ steps.items.headers['x-request-id'] == 'r-1' and steps.items.url.endswith('/items') }}" }
  - id: post
    request:
      method: POST
      url: "{{ vars.api }}/echo"
      headers: { X-Count: "{{ steps.short.json.id }}" }
      query: { page: 2, q: a b }
      json: { name: "{{ steps.short.json.name }}", n: "{{ steps.short.json.id }}" }
      expect:
        json:
          $.method: POST
          $.query: { equals: { page: "2", q: a b } }
          $.headers['x-count']: "7"
          $.json: { equals: { name: widget, n: 7 } }
          $.headers['content-type']: application/json
  - id: form
    request:
      method: PUT
      url: "{{ vars.api }}/echo"
      form: { a: "1", b: x&y }
      expect: { json: { $.method: PUT, $.form: { equals: { a: "1", b: x&y } } } }
  - id: raw
    request:
      method: PATCH
      url: "{{ vars.api }}/echo"
      headers: { Content-Type: text/plain }
      body: just text
      expect: { json: { $.body: just text, $.method: PATCH } }
  - id: text
    request:
      url: "{{ vars.api }}/text"
      expect: { body: { matches: "^hello, w.rld$" }, headers: { content-type: text/plain } }
  - expect: { that: "{{ steps.text.json is none and steps.text.body == 'hello, world' }}" }
"#;
    write(d.path(), "api.yaml", &api_flow("api passes", port, steps));
    let report = flow_run(d.path()).arg("api.yaml").passes();
    let items = step(&report, "items");
    assert_eq!(items["outcome"], "passed", "{items}");
    assert_eq!(items["outputs"]["status"], 200);
    assert_eq!(items["outputs"]["json"]["name"], "widget");
    assert_eq!(items["outputs"]["headers"]["x-request-id"], "r-1");
    assert!(items["outputs"]["duration_ms"].is_u64(), "{items}");
}

/// Each check kind fails with what it expected and what it found, at its own line; a failed
/// request keeps its outputs for the steps after it.
#[test]
fn each_request_check_fails_at_its_line_with_expected_and_actual() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: status
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        status: 201
  - id: header
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        headers:
          Content-Type: { contains: xml }
  - id: json
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          $.name: widget
          $.id: 8
  - id: count
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          $.items: { count: 2 }
  - id: exists
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          $.owner: { exists: true }
  - id: matches
    continue_on_error: true
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          $.name: { matches: "^gad" }
  - id: body
    continue_on_error: true
    request:
      url: "{{ vars.api }}/text"
      expect:
        body: { contains: goodbye }
  - id: notjson
    continue_on_error: true
    request:
      url: "{{ vars.api }}/text"
      expect:
        json:
          $.a: 1
  - id: error_status
    continue_on_error: true
    request: "{{ vars.api }}/missing"
  - expect: { that: "{{ steps.json.status == 200 and steps.json.json.id == 7 and steps.error_status.status == 404 }}" }
"#;
    write(d.path(), "fails.yaml", &api_flow("api fails", port, steps));
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("fails.yaml").run();
    assert_eq!(
        code, 0,
        "continue_on_error: the flow goes on and passes\n{stderr}"
    );
    let cases = [
        (
            "status",
            "status: expected 201, actual 200",
            "fails.yaml:13:9",
        ),
        (
            "header",
            r#"header `Content-Type`: expected it to contain "xml", actual "application/json""#,
            "fails.yaml:20:11",
        ),
        (
            "json",
            "json `$.id`: expected 8, actual 7",
            "fails.yaml:28:11",
        ),
        (
            "count",
            "json `$.items`: expected 2 item(s), actual 3",
            "fails.yaml:35:11",
        ),
        (
            "exists",
            "json `$.owner`: expected it to exist, found nothing",
            "fails.yaml:42:11",
        ),
        (
            "matches",
            r#"json `$.name`: expected it to match `^gad`, actual "widget""#,
            "fails.yaml:49:11",
        ),
        (
            "body",
            r#"body: expected it to contain "goodbye", actual "hello, world""#,
            "fails.yaml:55:9",
        ),
        (
            "notjson",
            "json `$.a`: the body is not JSON (text/plain: \"hello, world\")",
            "fails.yaml:62:11",
        ),
        (
            "error_status",
            "HTTP 404 from GET http://127.0.0.1:",
            "fails.yaml:65:5",
        ),
    ];
    for (id, message, at) in cases {
        let s = step(&report, id);
        assert_eq!(s["outcome"], "failed", "{s}");
        assert_eq!(s["error"]["kind"], "assertion", "{s}");
        assert!(error_of(s).contains(message), "{id}: {}", error_of(s));
        assert!(at_of(s).ends_with(at), "{id}: {} (want {at})", at_of(s));
        assert!(
            s["outputs"]["status"].is_u64(),
            "{id} keeps its outputs: {s}"
        );
    }
    assert!(
        // The hint says how to expect the status, not that the step expected it.
        error_of(step(&report, "error_status"))
            .contains("(to expect it, write `expect: { status: 404 }`)"),
        "{report}"
    );
}

/// A JSON value equals only a value of its type, as in Hurl: the string "false" is not the
/// boolean `false` and "12" is not the number 12 (numbers compare as numbers: 12 is 12.0); a
/// header's text equals a number or a boolean written without quotes when it reads as it.
#[test]
fn json_checks_compare_values_of_their_own_type() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let request = |id: &str, expect: &str| {
        format!(
            "  - id: {id}\n    continue_on_error: true\n    request:\n      method: POST\n      url: \"{{{{ vars.api }}}}/echo\"\n      headers: {{ X-Flag: \"true\" }}\n      json: {{ private: false, flag: \"false\", n: 12 }}\n      expect: {expect}\n"
        )
    };
    let steps = [
        request(
            "same",
            r##"{ json: { $.json.private: false, $.json.flag: "false", $.json.n: 12.0, "$.headers['x-flag']": "true" }, headers: { Content-Length: { min: 1 } } }"##,
        ),
        request("text_is_not_bool", r#"{ json: { $.json.private: "false" } }"#),
        request("bool_is_not_text", "{ json: { $.json.flag: false } }"),
        request("text_is_not_number", r#"{ json: { $.json.n: "12" } }"#),
        request("not_equals", r#"{ json: { $.json.private: { not_equals: "false" } } }"#),
        request("in_a_list", r#"{ json: { $.json.*: { contains: "12" } } }"#),
    ]
    .concat();
    write(d.path(), "types.yaml", &api_flow("types", port, &steps));
    let Ran { stderr, report, .. } = flow_run(d.path()).arg("types.yaml").run();
    for id in ["same", "not_equals"] {
        assert_eq!(step(&report, id)["outcome"], "passed", "{id}: {stderr}");
    }
    for (id, message) in [
        (
            "text_is_not_bool",
            r#"json `$.json.private`: expected "false", actual false"#,
        ),
        (
            "bool_is_not_text",
            r#"json `$.json.flag`: expected false, actual "false""#,
        ),
        (
            "text_is_not_number",
            r#"json `$.json.n`: expected "12", actual 12"#,
        ),
        (
            "in_a_list",
            r#"json `$.json.*`: expected it to contain "12""#,
        ),
    ] {
        let s = step(&report, id);
        assert_eq!(s["outcome"], "failed", "{id}: {s}");
        assert!(error_of(s).contains(message), "{id}: {}", error_of(s));
    }
}

/// A request that gets no answer within the step's timeout fails as a timeout; redirects are
/// followed by default, and `follow_redirects: false` gives the 3xx itself.
#[test]
fn request_times_out_and_follows_redirects_or_not() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: slow
    continue_on_error: true
    timeout: 300ms
    request: "{{ vars.api }}/slow?ms=5000"
  - id: followed
    request:
      url: "{{ vars.api }}/redirect"
      expect: { status: 200, json: { $.name: widget } }
  - id: stayed
    request:
      url: "{{ vars.api }}/redirect"
      follow_redirects: false
      expect: { status: 302, headers: { location: /items }, body: "" }
  - id: waited
    request:
      url: "{{ vars.api }}/slow"
      query: { ms: 200 }
      expect: { duration_ms: { min: 200 }, json: { $.waited: 200 } }
  - id: too_slow
    continue_on_error: true
    request:
      url: "{{ vars.api }}/slow?ms=300"
      expect: { duration_ms: { max: 100 } }
"#;
    write(d.path(), "net.yaml", &api_flow("network", port, steps));
    let report = flow_run(d.path()).arg("net.yaml").passes();
    let slow = step(&report, "slow");
    assert_eq!(slow["outcome"], "failed", "{slow}");
    assert_eq!(slow["error"]["kind"], "timeout", "{slow}");
    assert!(
        error_of(slow).contains("/slow?ms=5000: no response within 300ms"),
        "{slow}"
    );
    let followed = step(&report, "followed");
    assert!(
        followed["outputs"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/items"),
        "{followed}"
    );
    let too_slow = step(&report, "too_slow");
    assert_eq!(too_slow["error"]["kind"], "assertion", "{too_slow}");
    assert!(
        error_of(too_slow).starts_with("duration_ms: expected at most 100, actual "),
        "{too_slow}"
    );
    assert!(
        too_slow["outputs"]["duration_ms"].as_u64().unwrap() >= 300,
        "{too_slow}"
    );
    let stayed = step(&report, "stayed");
    assert_eq!(stayed["outputs"]["status"], 302, "{stayed}");
    assert!(
        stayed["outputs"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/redirect"),
        "{stayed}"
    );
}

/// A secret in a header reaches the server, and neither the report, the console nor a failed
/// check's message shows it.
#[test]
fn a_secret_header_is_masked_everywhere() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: auth
    request:
      url: "{{ vars.api }}/echo"
      headers: { Authorization: "Bearer {{ secrets.API_TOKEN }}" }
      expect:
        json:
          $.headers.authorization: "Bearer {{ secrets.API_TOKEN }}"
  - id: wrong
    continue_on_error: true
    request:
      url: "{{ vars.api }}/echo"
      headers: { Authorization: "Bearer {{ secrets.API_TOKEN }}" }
      expect:
        json:
          $.headers.authorization: Bearer nothing
"#;
    let flow =
        api_flow("secrets", port, steps).replace("steps:\n", "secrets: [API_TOKEN]\nsteps:\n");
    write(d.path(), "secret.yaml", &flow);
    let Ran {
        code,
        stdout,
        stderr,
        report,
    } = flow_run(d.path())
        .env("API_TOKEN", "tok-5ecr3t-9f8e")
        .arg("secret.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(step(&report, "auth")["outcome"], "passed", "{report}");
    let wrong = step(&report, "wrong");
    assert_eq!(wrong["outcome"], "failed", "{wrong}");
    assert!(error_of(wrong).contains("actual \"Bearer ***\""), "{wrong}");
    let text = report.to_string();
    assert!(text.contains("Bearer ***"), "{text}");
    for shown in [text.as_str(), stdout.as_str(), stderr.as_str()] {
        assert!(!shown.contains("5ecr3t"), "the secret leaked: {shown}");
    }
}

/// `validate` refuses a `request` with an unknown key, a method HTTP has not, a broken
/// JSONPath, a broken regex and two bodies: exit 2, each at its line.
#[test]
fn validate_checks_the_request_step() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "bad.yaml",
        r#"name: bad requests
steps:
  - request:
      url: http://127.0.0.1:1/
      methd: GET
  - request:
      method: FETCH
      url: http://127.0.0.1:1/
  - request:
      url: http://127.0.0.1:1/
      expect:
        json:
          $.items[: 1
          $.name: { matches: "(" }
  - request:
      url: http://127.0.0.1:1/
      json: { a: 1 }
      body: a=1
  - request:
      url: http://127.0.0.1:1/
      expect: { json: { name: 1 } }
"#,
    );
    let (code, _, stderr) = crate::common::output({
        let mut c = crate::common::runner(d.path());
        c.args(["validate", "bad.yaml"]);
        c
    });
    assert_eq!(code, 2, "{stderr}");
    for (line, what) in [
        ("bad.yaml:5:7", "methd"),
        ("bad.yaml:7:15", "FETCH"),
        ("bad.yaml:13:11", "not a JSONPath"),
        ("bad.yaml:14:30", "invalid regular expression"),
        ("bad.yaml:18:7", "give one"),
        ("bad.yaml:21:25", "`name` is not a valid name"),
    ] {
        assert!(
            stderr.lines().any(|l| l.contains(line) && l.contains(what)),
            "no `{what}` at {line}:\n{stderr}"
        );
    }
}

/// `open: { url, status }` passes on a page that answers with that status and fails, naming
/// both, on another; a failed `open` (an unexpected status, a 404 without `status`) keeps its
/// outputs for the steps after it.
#[test]
fn open_expects_a_status_and_a_failed_open_keeps_its_outputs() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    write(
        d.path(),
        "statuses.yaml",
        &format!(
            r#"name: statuses
web_server:
  command: ["python3", "{echo}", "{port}", "{site}"]
  url: "http://127.0.0.1:{port}/index.html"
  ready_timeout: 20s
steps:
  - id: missing
    open: {{ url: "http://127.0.0.1:{port}/nope.html", status: 404 }}
  - id: wrong
    continue_on_error: true
    open:
      url: "http://127.0.0.1:{port}/index.html"
      status: 404
  - id: plain
    continue_on_error: true
    open: "http://127.0.0.1:{port}/nope.html"
  - expect: {{ that: "{{{{ steps.missing.status == 404 and steps.wrong.status == 200 and steps.wrong.title == 'Runner fixture' and steps.plain.status == 404 }}}}" }}
"#,
            echo = crate::common::fixture("echo_server.py").display(),
            site = crate::common::fixture("site").display(),
        ),
    );
    let report = flow_run(d.path()).arg("statuses.yaml").passes();
    assert_eq!(step(&report, "missing")["outcome"], "passed", "{report}");
    let wrong = step(&report, "wrong");
    assert_eq!(wrong["outcome"], "failed", "{wrong}");
    assert!(
        error_of(wrong).contains(&format!(
            "expected HTTP status 404 for http://127.0.0.1:{port}/index.html, got 200"
        )),
        "{wrong}"
    );
    assert!(at_of(wrong).ends_with("statuses.yaml:13:7"), "{wrong}");
    assert_eq!(wrong["outputs"]["status"], 200, "{wrong}");
    let plain = step(&report, "plain");
    assert_eq!(plain["outcome"], "failed", "{plain}");
    assert!(error_of(plain).contains("HTTP 404 for"), "{plain}");
    assert!(
        error_of(plain).ends_with("(to expect it, write `open: { url, status: 404 }`)"),
        "{plain}"
    );
    assert_eq!(plain["outputs"]["status"], 404, "{plain}");
}

/// A body over 1 MiB: the outputs (and so the reports) keep its first MiB and say `truncated`
/// (`json` is null then), as `exec` does; the checks still see the whole body.
#[test]
fn a_big_body_is_cut_in_the_outputs_but_checked_whole() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: big
    request:
      url: "{{ vars.api }}/big?mb=2"
      expect:
        json: { $.end: last, $.rows: { count: 2048 } }
        body: { contains: '"end": "last"' }
  - id: small
    request: "{{ vars.api }}/items"
"#;
    write(d.path(), "big.yaml", &api_flow("big", port, steps));
    let report = flow_run(d.path()).arg("big.yaml").passes();
    let big = &step(&report, "big")["outputs"];
    let body = big["body"].as_str().unwrap();
    assert_eq!(body.len(), 1024 * 1024, "the first MiB is kept");
    assert!(body.starts_with("{\"rows\": [\"xxx"), "{}", &body[..40]);
    assert_eq!(big["truncated"], true);
    assert_eq!(big["json"], serde_json::Value::Null);
    assert_eq!(big["status"], 200);
    let small = &step(&report, "small")["outputs"];
    assert_eq!(small["truncated"], false);
    assert_eq!(small["json"]["id"], 7);
}

/// A template error inside a step that only the data shows (a key missing from an output) is
/// that step's error, kind `template`, at its file:line:col, exit 1 (README: exit 2 is for those
/// outside a step); `continue_on_error` applies to it.
#[test]
fn a_step_template_error_found_at_run_time_is_the_steps_error_at_its_place() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "t.yaml",
        r#"name: data-dependent
steps:
  - id: a
    exec: [echo, '{"x": 1}']
  - id: soft
    log: "{{ (steps.a.stdout | fromjson).y.z }}"
    continue_on_error: true
  - log: "value {{ (steps.a.stdout | fromjson).y.z }}"
  - id: never
    log: never
"#,
    );
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path()).arg("t.yaml").run();
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("at t.yaml:8:47"), "{stderr}");
    let soft = step(&report, "soft");
    assert_eq!(soft["error"]["kind"], "template", "{soft}");
    assert!(error_of(soft).contains("`.y.z` is undefined"), "{soft}");
    assert_eq!(at_of(soft), "t.yaml:6:41", "{soft}");
    assert!(
        report["flows"][0]["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["id"] != "never" || s["status"] == "skipped"),
        "{report}"
    );
}

/// `"$.items[*].qty": { not_equals: 0 }` compared the list of every `qty` with 0, so it held
/// although an item has qty 0: a check that cannot fail (and `equals: 0` one that cannot
/// hold). `validate` refuses `equals`/`not_equals` of one value on a path that can select
/// several nodes, at the value, saying what to write; a value a template gives fails the step
/// at run time with the same words. A list (`equals: [..]`) and a path naming one node still
/// compare.
#[test]
fn one_value_compared_with_a_path_of_several_nodes_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    for (path, check, at) in [
        ("$.items[*].qty", "{ not_equals: 0 }", "f.yaml:12:"),
        ("$..sku", "a1", "f.yaml:12:"),
        (
            "$.items[?@.qty > 1].sku",
            "{ equals: c3, exists: true }",
            "f.yaml:12:",
        ),
        // A regular expression would test the list's JSON text: any one node matching.
        ("$.items[*].sku", "{ matches: a1 }", "f.yaml:12:"),
    ] {
        let steps = format!(
            "  - request:\n      url: \"{{{{ vars.api }}}}/items\"\n      expect:\n        json:\n          \"{path}\": {check}\n"
        );
        write(d.path(), "f.yaml", &api_flow("many", port, &steps));
        let (code, out) = crate::common::validate(d.path());
        assert_eq!(code, 2, "{path}: {out}");
        assert!(
            out.contains(&format!(
                "`{path}` can select several nodes, so it finds a list"
            )),
            "{path}: {out}"
        );
        assert!(
            out.contains(at) && out.contains("count: 0"),
            "{path}: {out}"
        );
    }
    let steps = r#"  - id: lists
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          "$.items[*].qty": { equals: [2, 0, 5], not_equals: [2, 5] }
          "$.items[?@.qty == 0]": { count: 1 }
          "$.items[1].qty": { equals: 0, not_equals: 2 }
  - id: templated
    request:
      url: "{{ vars.api }}/items"
      expect:
        json:
          "$.items[*].qty": { not_equals: "{{ 0 }}" }
"#;
    write(d.path(), "f.yaml", &api_flow("many", port, steps));
    let ran = flow_run(d.path()).arg("f.yaml").run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let templated = step(&ran.report, "templated");
    assert_eq!(templated["outcome"], "failed", "{templated}");
    assert!(
        error_of(templated).contains(
            "json `$.items[*].qty`: the path can select several nodes, so it finds a list ([2,0,5]), which `not_equals: 0` compares whole"
        ),
        "{templated}"
    );
    assert_eq!(step(&ran.report, "lists")["outcome"], "passed");
}

/// A body of more JSON values than runner parses (a million) is kept as text: a 16 MiB list of
/// numbers took 667 MB parsed (attack 25 B17). A JSON check on it fails saying so, as
/// `fromjson` of such a text does; a body of fewer values is parsed and checked as before.
#[test]
fn a_body_of_too_many_json_values_is_not_parsed() {
    let d = tempfile::tempdir().unwrap();
    let port = crate::common::free_port();
    let steps = r#"  - id: few
    request:
      url: "{{ vars.api }}/many?n=1000"
      expect:
        json: { "$[999]": 1 }
  - expect: { that: "{{ steps.few.json | length == 1000 }}" }
  - id: many
    continue_on_error: true
    request:
      url: "{{ vars.api }}/many?n=1000001"
      expect:
        json: { "$[0]": 1 }
  - id: parsed
    continue_on_error: true
    log: "{{ ('[' ~ ('1,' * 1000001) ~ '1]') | fromjson | length }}"
"#;
    write(d.path(), "many.yaml", &api_flow("many", port, steps));
    let Ran { report, stderr, .. } = flow_run(d.path()).arg("many.yaml").run();
    let many = step(&report, "many");
    assert!(
        error_of(many).contains("more than 1000000 JSON values"),
        "{}\n{stderr}",
        error_of(many)
    );
    assert_eq!(many["outputs"]["json"], serde_json::Value::Null);
    assert!(
        error_of(step(&report, "parsed")).contains("more than 1000000 JSON values"),
        "{}",
        error_of(step(&report, "parsed"))
    );
    assert_eq!(step(&report, "few")["outcome"], "passed");
}
