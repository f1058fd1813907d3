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
        error_of(step(&report, "error_status")).contains("expects it"),
        "{report}"
    );
}
