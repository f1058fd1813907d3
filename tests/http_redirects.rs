//! A `request` that is redirected to another origin takes nothing of the flow's along (issue 27,
//! round four: B), as curl's `--location` without `--location-trusted`: no `Referer` (which
//! would carry the first URL, a secret in its query and all), and none of the headers the flow
//! set; a redirect within the origin keeps them, and a 307 keeps its method and body.

use serde_json::Value;

use crate::common::{Ran, flow_run, step, write};

/// A fixture API (tests/fixtures/api_server.py) on `port`, stopped when dropped.
struct Api(std::process::Child);

impl Api {
    fn start(port: u16) -> Api {
        let child = std::process::Command::new("python3")
            .arg(crate::common::fixture("api_server.py"))
            .arg(port.to_string())
            .spawn()
            .expect("python3 starts");
        let up = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                up.elapsed().as_secs() < 20,
                "the API on {port} never listened"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Api(child)
    }
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The names of the headers the echo at the end of a step's redirects received, in lower case.
fn received(report: &Value, id: &str) -> Vec<String> {
    let s = step(report, id);
    s["outputs"]["json"]["headers"]
        .as_object()
        .unwrap_or_else(|| panic!("{id} got no echo: {s}"))
        .keys()
        .map(|k| k.to_ascii_lowercase())
        .collect()
}

#[test]
fn a_redirect_to_another_origin_takes_neither_the_flows_headers_nor_a_referer() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (crate::common::free_port(), crate::common::free_port());
    let _b = Api::start(b);
    let other = format!("http://127.0.0.1:{b}/echo");
    let flow = format!(
        r#"name: redirects
secrets: [TOK]
web_server:
  command: ["python3", "{api}", "{a}"]
  url: "http://127.0.0.1:{a}/items"
  ready_timeout: 20s
steps:
  - id: cross
    request:
      url: "http://127.0.0.1:{a}/redirect?api_key={{{{ secrets.TOK }}}}"
      query: {{ to: "{other}" }}
      headers: {{ X-Api-Key: "{{{{ secrets.TOK }}}}", Authorization: "Bearer {{{{ secrets.TOK }}}}", X-Plain: plain }}
  - id: same
    request:
      url: "http://127.0.0.1:{a}/redirect?api_key={{{{ secrets.TOK }}}}"
      query: {{ to: /echo }}
      headers: {{ X-Api-Key: "{{{{ secrets.TOK }}}}" }}
  - id: kept
    request:
      method: POST
      url: "http://127.0.0.1:{a}/redirect"
      query: {{ to: "{other}", code: 307 }}
      headers: {{ X-Api-Key: "{{{{ secrets.TOK }}}}" }}
      json: {{ a: 1 }}
  - id: seen_other
    request:
      method: POST
      url: "http://127.0.0.1:{a}/redirect"
      query: {{ to: /echo, code: 303 }}
      json: {{ a: 1 }}
"#,
        api = crate::common::fixture("api_server.py").display()
    );
    write(d.path(), "r.yaml", &flow);
    let Ran {
        code,
        stderr,
        report,
        ..
    } = flow_run(d.path())
        .env("TOK", "tok-r3d1rect-77")
        .arg("r.yaml")
        .run();
    assert_eq!(code, 0, "{stderr}");
    // To the other origin: none of the flow's headers, no Referer (it held the secret).
    assert_eq!(step(&report, "cross")["outputs"]["url"], other);
    let got = received(&report, "cross");
    for h in ["referer", "x-api-key", "authorization", "x-plain"] {
        assert!(!got.contains(&h.to_string()), "{h} went along: {got:?}");
    }
    // Within the origin: the flow's headers go along; still no Referer.
    let got = received(&report, "same");
    assert!(got.contains(&"x-api-key".to_string()), "{got:?}");
    assert!(!got.contains(&"referer".to_string()), "{got:?}");
    // A 307 keeps the method and the body (its type too), not the flow's headers.
    let kept = &step(&report, "kept")["outputs"]["json"];
    assert_eq!(kept["method"], "POST", "{kept}");
    assert_eq!(kept["json"], serde_json::json!({ "a": 1 }), "{kept}");
    let got = received(&report, "kept");
    assert!(got.contains(&"content-type".to_string()), "{got:?}");
    assert!(!got.contains(&"x-api-key".to_string()), "{got:?}");
    // A 303 is a GET, without the body.
    let seen = &step(&report, "seen_other")["outputs"]["json"];
    assert_eq!(seen["method"], "GET", "{seen}");
    assert_eq!(seen["body"], "", "{seen}");
}
