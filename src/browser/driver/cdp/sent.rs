//! A call whose answer is waited for apart from its sending: sent in order with what the
//! caller does next (a trace's snapshot after a step, before the next step's commands), its
//! answer taken later, off the caller's path.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::SinkExt;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

use super::{CdpError, Link, Unanswered};

impl Link {
    /// Sends `method` (in `session`, when given), waiting up to `timeout` for the sending
    /// only; the answer, waited for up to `timeout` more, is what the future it gives yields.
    pub(crate) async fn sent_in(
        self: &Arc<Self>,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<impl Future<Output = Result<Value, CdpError>> + use<>, CdpError> {
        let name = method.to_string();
        // A connection runner let go of (see `Cdp::drop`) still takes what is sent, though no
        // answer can be read: a context's disposal sent through it (see `snapshots::draw`)
        // still reaches a browser that runs (a remote one).
        if self.closed.load(Ordering::SeqCst) && !self.let_go.load(Ordering::SeqCst) {
            return Err(self.closed_error(method));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            p.insert(id, tx);
        }
        let forget = move |link: &Link| {
            if let Ok(mut p) = link.pending.lock() {
                p.remove(&id);
            }
        };
        let mut request = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            request["sessionId"] = Value::String(s.to_string());
        }
        let send = async {
            self.sink
                .lock()
                .await
                .send(Message::text(request.to_string()))
                .await
        };
        let sent = tokio::time::timeout(timeout, send).await;
        let closed = self.closed.load(Ordering::SeqCst);
        if closed || !matches!(sent, Ok(Ok(()))) {
            forget(self);
            return Err(self.closed_error(method));
        }
        let link = self.clone();
        Ok(async move {
            let answer = match tokio::time::timeout(timeout, rx).await {
                Ok(Ok(Ok(v))) => return Ok(v),
                Ok(Ok(Err(Unanswered::Refused(message)))) => CdpError::Refused {
                    method: name,
                    message,
                },
                Ok(Ok(Err(Unanswered::Silent))) => CdpError::Silent { method: name },
                Ok(Ok(Err(Unanswered::Closed)) | Err(_)) => link.closed_error(&name),
                Err(_) => CdpError::NoAnswer {
                    method: name,
                    timeout,
                },
            };
            forget(&link);
            Err(answer)
        })
    }
}
