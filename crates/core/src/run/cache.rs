//! Cache keys: a stable SHA-256 over everything that determines an answer, and nothing else.
//!
//! # Canonical serialization (version 1)
//!
//! The key is the lower-case hex SHA-256 of this UTF-8 text, lines joined by `\n`, no trailing
//! newline:
//!
//! ```text
//! concord-cache-v1
//! provider=<slug>                      e.g. openai, lmstudio (ProviderId::slug)
//! base_url=<normalized base URL>       scheme and host lower-cased, no trailing slash
//! model=<model id, trimmed>
//! params=<JSON array>                  [temperature, top_p, max_tokens, top_logprobs, [stop…]]
//! messages=<JSON array>                [[role, content], …] in order
//! sample=<sample index>                decimal
//! ```
//!
//! JSON is serde_json's compact form of arrays only (no objects, so no key-order question);
//! absent options are `null`; numbers use serde_json's shortest round-trip formatting. The
//! parameters are the ones the *user asked for*, not what was finally sent: a parameter the
//! API rejected and Concord dropped does not change the key, so re-running the same
//! configuration still hits the cache. The API key never enters the key. `n` does not either:
//! a sample is identified by its index, whether it was drawn in a batch or alone.
//!
//! Changing any of this changes every key; bump the version line when you do.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::judge::ChatRequest;
use crate::run::provider::Endpoint;

/// The canonical text hashed by [`cache_key`] (see the module docs).
pub fn canonical_text(endpoint: &Endpoint, req: &ChatRequest, sample_index: u32) -> String {
    let number = |v: Option<f64>| {
        v.and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
    };
    let params = Value::Array(vec![
        number(req.temperature),
        number(req.top_p),
        req.max_tokens.map_or(Value::Null, |v| json!(v)),
        req.logprobs.map_or(Value::Null, |v| json!(v)),
        json!(req.stop),
    ]);
    let messages: Vec<Value> = req.messages.iter().map(|m| json!([m.role, m.content])).collect();
    format!(
        "concord-cache-v1\nprovider={}\nbase_url={}\nmodel={}\nparams={}\nmessages={}\nsample={}",
        endpoint.provider.slug(),
        endpoint.normalized_base_url(),
        endpoint.model.trim(),
        params,
        Value::Array(messages),
        sample_index
    )
}

/// The cache key of sample `sample_index` of `req` sent to `endpoint`: 64 lower-case hex digits.
pub fn cache_key(endpoint: &Endpoint, req: &ChatRequest, sample_index: u32) -> String {
    let digest = Sha256::digest(canonical_text(endpoint, req, sample_index).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
