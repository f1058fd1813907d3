//! A session on a fake agent-browser daemon, for unit tests.

use std::sync::Arc;

use serde_json::Value;

use super::Session;
use crate::browser::driver::adapter::AgentBrowser;

/// A session on a fake agent-browser daemon, for unit tests of what a step or a reader does
/// with the daemon's answers: `answer(n, command)` gives the `n`th command's reply, either
/// `Ok(data)` or `Err(agent-browser's error message)`.
pub(crate) fn on_fake_daemon(
    dir: &std::path::Path,
    answer: impl Fn(usize, &Value) -> Result<Value, String> + Send + 'static,
) -> Session {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::UnixListener::bind(dir.join("s.sock")).unwrap();
    tokio::spawn(async move {
        let (s, _) = listener.accept().await.unwrap();
        let mut r = BufReader::new(s);
        for n in 0.. {
            let mut line = String::new();
            if r.read_line(&mut line).await.unwrap() == 0 {
                return;
            }
            let v: Value = serde_json::from_str(&line).unwrap();
            let reply = match answer(n, &v) {
                Ok(data) => serde_json::json!({"id":v["id"],"success":true,"data":data}),
                Err(e) => serde_json::json!({"id":v["id"],"success":false,"error":e}),
            };
            r.get_mut()
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
        }
    });
    let adapter = Arc::new(AgentBrowser::for_tests(dir.to_path_buf()));
    Session::attached(adapter, "s".into(), false, dir.to_path_buf())
}
