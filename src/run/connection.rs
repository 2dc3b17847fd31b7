//! Where a run's calls go: the endpoint, the key (in memory only), the model's capabilities
//! and the limits ([`Connection`]). A screen builds it from its own form and hands it to
//! [`super::runner::execute`]; the runner reads no screen's state.

use concord_core::run::{Capabilities, Endpoint, Price};

/// Where calls go, with what key and limits. The key lives only in this value (memory).
#[derive(Clone, PartialEq)]
pub struct Connection {
    pub endpoint: Endpoint,
    pub api_key: String,
    pub caps: Capabilities,
    pub max_concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub spend_cap_usd: Option<f64>,
    pub price: Option<Price>,
    /// Per-request time limit.
    pub timeout_ms: u32,
    /// Prompts an earlier run of these calls found too long for the model: not sent again
    /// (their calls fail at once), so a resumed run does not stop on them again.
    pub known_overflow: std::collections::BTreeSet<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key, even in a debug dump.
        f.debug_struct("Connection")
            .field("endpoint", &self.endpoint)
            .field("api_key", &if self.api_key.is_empty() { "(none)" } else { "(set)" })
            .finish_non_exhaustive()
    }
}
