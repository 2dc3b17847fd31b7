//! Cache keys: a stable SHA-256 over everything that determines an answer, and nothing else.
//!
//! # Canonical serialization (version 2)
//!
//! A prompt's digest is the lower-case hex SHA-256 of this UTF-8 text, lines joined by `\n`,
//! no trailing newline:
//!
//! ```text
//! concord-cache-v2
//! provider=<slug>                      e.g. openai, lmstudio (ProviderId::slug)
//! base_url=<normalized base URL>       scheme and host lower-cased, no trailing slash
//! model=<model id, trimmed>
//! params=<JSON array>                  [temperature, top_p, max_tokens, top_logprobs, [stop…]]
//! messages=<JSON array>                [[role, content], …] in order
//! ```
//!
//! and the key of sample `s` is the hex SHA-256 of `<digest>\nsample=<s>` (decimal). Hashing
//! the long prompt once and each sample's 80-byte line after it keeps planning a 20-sample run
//! cheap (version 1 hashed the whole prompt once per sample).
//!
//! JSON is serde_json's compact form of arrays only (no objects, so no key-order question);
//! absent options are `null`; numbers use serde_json's shortest round-trip formatting. The
//! parameters are the ones the *user asked for*, not what was finally sent: a parameter the
//! API rejected and Concord dropped does not change the key, so re-running the same
//! configuration still hits the cache. The API key never enters the key. `n` does not either:
//! a sample is identified by its index, whether it was drawn in a batch or alone.
//!
//! A Gemini 2.5 Flash request whose thinking the user turned on ([`prompt_digest_for`]) adds
//! the line `thinking=on` at the end.
//!
//! Changing any of this changes every key; bump the version line when you do.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::judge::ChatRequest;
use crate::run::provider::{Capabilities, Endpoint, Thinking};

/// The canonical text of a prompt, hashed into its [`prompt_digest`] (see the module docs).
pub fn canonical_text(endpoint: &Endpoint, req: &ChatRequest) -> String {
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
    let mut text = format!(
        "concord-cache-v2\nprovider={}\nbase_url={}\nmodel={}\nparams={}\nmessages={}",
        endpoint.provider.slug(),
        endpoint.normalized_base_url(),
        endpoint.model.trim(),
        params,
        Value::Array(messages),
    );
    // Only when there is one: the keys of requests without a schema stay what they were.
    if let Some(schema) = &req.schema {
        text.push_str(&format!("\nschema={schema}"));
    }
    text
}

fn hex_sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of `bytes` (a digest: this runs 800,000 times when a 10,000-item run with 20
/// samples per prompt is planned, so no `format!` per byte).
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// The digest of a prompt sent to an endpoint: 64 lower-case hex digits.
pub fn prompt_digest(endpoint: &Endpoint, req: &ChatRequest) -> String {
    hex_sha256(canonical_text(endpoint, req).as_bytes())
}

/// [`prompt_digest`] of a prompt sent with `caps`: a model's optional thinking turned on
/// (`Thinking::GeminiOn`) changes the answer, so it adds the line `thinking=on` to the
/// canonical text (the keys of every other request stay what they were).
pub fn prompt_digest_for(endpoint: &Endpoint, caps: &Capabilities, req: &ChatRequest) -> String {
    if caps.thinking == Thinking::GeminiOn {
        let text = format!("{}\nthinking=on", canonical_text(endpoint, req));
        hex_sha256(text.as_bytes())
    } else {
        prompt_digest(endpoint, req)
    }
}

/// The cache key of sample `sample_index` of the prompt with this digest: the hex SHA-256 of
/// `<digest>\nsample=<index>`, hashed piecewise (no intermediate string).
pub fn sample_key(digest: &str, sample_index: u32) -> String {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = sample_index;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digest = Sha256::new()
        .chain_update(digest.as_bytes())
        .chain_update(b"\nsample=")
        .chain_update(&digits[at..])
        .finalize();
    hex(&digest)
}

/// The cache key of sample `sample_index` of `req` sent to `endpoint`: 64 lower-case hex digits.
pub fn cache_key(endpoint: &Endpoint, req: &ChatRequest, sample_index: u32) -> String {
    sample_key(&prompt_digest(endpoint, req), sample_index)
}

/// [`cache_key`] of a request sent with `caps` (through [`prompt_digest_for`]): what every
/// screen that calls a model keys its samples with, so an answer given with a model's optional
/// thinking on never serves a request with it off, or the other way round.
pub fn cache_key_for(
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    sample_index: u32,
) -> String {
    sample_key(&prompt_digest_for(endpoint, caps, req), sample_index)
}
