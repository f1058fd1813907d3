//! The servers a flow's steps run against — its own and the run's — watched for an exit: a step
//! that fails once one has exited failed because of it, and says so first, when it fails (so
//! the console's block of the step, the reports and JUnit all say the same).

use std::future::Future;
use std::pin::Pin;

use super::process::Server;
use super::shared::RunServers;
use crate::engine::runtime::ServerWatch;
use crate::step::{ErrorKind, Masker, StepError};

/// The servers of one flow.
pub(crate) struct Watch<'a> {
    own: Option<&'a Server>,
    run: &'a RunServers,
}

impl<'a> Watch<'a> {
    /// The flow's own server (if it has one) and the run's.
    pub(crate) fn new(own: Option<&'a Server>, run: &'a RunServers) -> Watch<'a> {
        Watch { own, run }
    }

    /// Why a server the flow runs against is gone, if one exited by itself (its own first):
    /// its name, exit status and last lines. Cheap while they live: a look at each exit watch.
    pub(crate) async fn died(&self) -> Option<String> {
        if let Some(s) = self.own
            && let Some(why) = s.died().await
        {
            return Some(why);
        }
        self.run.died().await
    }

    /// A step's error, starting with why a server is gone when one is (the step's own error
    /// after it); an interrupt, or an error that says it already, stays as it is.
    async fn blamed(&self, mut e: StepError, masker: &Masker) -> StepError {
        if e.kind == ErrorKind::Interrupted {
            return e;
        }
        if let Some(why) = self.died().await {
            let why = masker.mask(&why);
            if !e.message.contains(&why) {
                e.message = format!("{why}\n(the step's own error: {})", e.message);
            }
        }
        e
    }
}

impl ServerWatch for Watch<'_> {
    fn blame<'s>(
        &'s self,
        e: StepError,
        masker: &'s Masker,
    ) -> Pin<Box<dyn Future<Output = StepError> + Send + 's>> {
        Box::pin(self.blamed(e, masker))
    }
}
