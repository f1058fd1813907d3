//! A flow's `browser.locale` in the Web Workers its pages start (attack 26, C20).

use crate::common::{flow_run, write};

/// A page's dedicated worker sees the flow's locale in `navigator.language` and
/// `navigator.languages` as the page does, with the flow's time zone and `Intl` locale; so does
/// the worker of a tab the page opens. (The worker had `en-US`, the browser's default.)
#[test]
fn a_pages_worker_sees_the_flows_locale() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("site")).unwrap();
    write(
        d.path(),
        "site/worker.html",
        r#"<!doctype html><title>Worker</title>
<p id="wk">none</p>
<a href="worker.html" target="_blank">Open a copy</a>
<script>
const report = "postMessage([navigator.language, navigator.languages.join('+'), Intl.DateTimeFormat().resolvedOptions().locale, Intl.DateTimeFormat().resolvedOptions().timeZone].join(','))";
const w = new Worker(URL.createObjectURL(new Blob([report])));
w.onmessage = (e) => { document.getElementById('wk').textContent = 'worker:' + e.data; };
</script>
"#,
    );
    write(
        d.path(),
        "f.yaml",
        r##"name: workers
web_server: { static: ./site }
browser:
  timeout: 5s
  locale: de-DE
  timezone: Asia/Tokyo
steps:
  - open: "{{ web_server.url }}/worker.html"
  - expect: { text: { target: "#wk", equals: "worker:de-DE,de-DE,de-DE,Asia/Tokyo" } }
  - click: { role: link, text: Open a copy }
  - tab: { switch: last }
  - expect: { text: { target: "#wk", equals: "worker:de-DE,de-DE,de-DE,Asia/Tokyo" } }
"##,
    );
    flow_run(d.path()).arg("f.yaml").passes();
}
