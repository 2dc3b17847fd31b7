//! Classifying failed calls from (status, headers, body) into what the run should do next,
//! with an explanation a user can act on.
//!
//! The browser reports a CORS rejection or a dropped connection as a `TypeError` without a
//! status; the edge passes status 0 for those. Everything else is read from the response.

use std::fmt;

use serde_json::Value;

use crate::run::provider::{Param, ProviderId};
use crate::run::time::{parse_duration_ms, parse_http_date_ms, parse_rfc3339_ms};

/// What went wrong with a call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// 429: too many requests. Retry after the wait.
    RateLimited,
    /// 5xx other than 529, or 408/409: the server failed. Retry with backoff.
    ServerError,
    /// 529 (Anthropic) or an `overloaded_error`: retry with backoff.
    Overloaded,
    /// 401/403: the key is wrong, revoked or lacks access. Never retried.
    Auth,
    /// The organization forbids browser (CORS) access. Never retried.
    BrowserAccessDenied,
    /// Out of credit, spend limit or billing quota reached. Never retried.
    Quota,
    /// The prompt does not fit the model's context. Never retried.
    ContextLength,
    /// The API rejected a parameter; drop it once and retry (see `Capabilities::drop_param`).
    BadParameter(Param),
    /// Any other 400/422 the request itself caused. Never retried.
    BadRequest,
    /// The model does not exist or the key cannot see it. Never retried.
    ModelNotFound,
    /// 404 for something other than a model: the base URL is wrong. Never retried.
    EndpointNotFound,
    /// No HTTP status: network down, server not running, or CORS refused. Retried.
    Network,
    /// No complete answer within the client's time limit (the call was cancelled). Retried.
    Timeout,
    /// A 2xx body that is not what the API returns (cut short, not JSON). Retried.
    Malformed,
}

/// A classified failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub kind: ErrorKind,
    /// HTTP status, 0 when there was none.
    pub status: u16,
    /// The provider's own message (or the edge's description for network failures).
    pub message: String,
    /// How long the provider asked us to wait, when it said so in a readable header or body.
    pub retry_after_ms: Option<u64>,
    /// Requests per minute the provider reported (`x-ratelimit-limit-requests`), if any.
    pub limit_requests_per_minute: Option<u32>,
}

impl ApiError {
    /// A status-less failure (fetch `TypeError`, aborted connection).
    pub fn network(detail: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Network,
            status: 0,
            message: detail.into(),
            retry_after_ms: None,
            limit_requests_per_minute: None,
        }
    }

    /// No complete answer within the client's time limit.
    pub fn timeout(detail: impl Into<String>) -> ApiError {
        ApiError { kind: ErrorKind::Timeout, ..ApiError::network(detail) }
    }

    /// A 2xx response whose body could not be parsed.
    pub fn malformed(detail: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Malformed,
            status: 200,
            message: detail.into(),
            retry_after_ms: None,
            limit_requests_per_minute: None,
        }
    }

    /// Whether retrying the same request can succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::RateLimited
                | ErrorKind::ServerError
                | ErrorKind::Overloaded
                | ErrorKind::Network
                | ErrorKind::Timeout
                | ErrorKind::Malformed
        )
    }

    /// Whether the whole run must stop (every later call would fail the same way).
    pub fn stops_run(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Auth
                | ErrorKind::BrowserAccessDenied
                | ErrorKind::Quota
                | ErrorKind::ContextLength
                | ErrorKind::ModelNotFound
                | ErrorKind::EndpointNotFound
        )
    }

    /// What the user should do, specific to the provider where it matters.
    pub fn advice(&self, provider: ProviderId) -> String {
        let preset = provider.preset();
        match &self.kind {
            ErrorKind::RateLimited => "The provider is limiting requests. Concord waits and retries \
                 with fewer parallel requests; lower the concurrency or set a requests-per-minute \
                 limit to avoid it."
                .into(),
            ErrorKind::ServerError => {
                "The provider had a server error. Concord retries with backoff.".into()
            }
            ErrorKind::Overloaded => {
                "The provider is overloaded. Concord retries with backoff; try later if it persists."
                    .into()
            }
            ErrorKind::Auth => format!(
                "{} rejected the API key. Check that it is complete, not revoked, and has access \
                 to this model.",
                preset.name
            ),
            ErrorKind::BrowserAccessDenied => format!(
                "{} refuses calls from a browser for this organization. An admin can allow \
                 browser (CORS) access, or use another key.",
                preset.name
            ),
            ErrorKind::Quota => format!(
                "{}: out of credit or a spend limit was reached. Add credit or raise the limit; \
                 the run stopped so nothing more is spent.",
                preset.name
            ),
            ErrorKind::ContextLength => "The prompt is longer than the model's context window. Use \
                 a model with a longer context or shorten the inputs."
                .into(),
            ErrorKind::BadParameter(p) => {
                format!("The API rejected `{p}`; Concord drops it once and continues without it.")
            }
            ErrorKind::BadRequest => {
                "The API rejected the request; see its message. The run stopped for this item."
                    .into()
            }
            ErrorKind::ModelNotFound => format!(
                "{} does not know this model (or the key cannot use it). Pick one from Test \
                 connection's list.",
                preset.name
            ),
            ErrorKind::EndpointNotFound => format!(
                "The server has no such endpoint: check the base URL ({}'s is usually {}).",
                preset.name, preset.base_url
            ),
            ErrorKind::Network => format!(
                "The browser got no answer (network error or CORS refusal). {}",
                preset.cors_advice
            ),
            ErrorKind::Timeout => "The server did not answer within the time limit; Concord \
                 retries the call. If it keeps happening, raise “Timeout per request” under Limits \
                 (slow or busy models need longer) or lower the parallel requests."
                .into(),
            ErrorKind::Malformed => "The response was cut short or was not valid JSON. Concord \
                 retries the call; if it persists, check that the base URL points at the API \
                 itself and not at a proxy or web page."
                .into(),
        }
    }
}

impl ApiError {
    /// What went wrong, in a few words ("rate limited", "timed out", …), without the status or
    /// the provider's message.
    pub fn what(&self) -> String {
        match &self.kind {
            ErrorKind::RateLimited => "rate limited".to_string(),
            ErrorKind::ServerError => "server error".to_string(),
            ErrorKind::Overloaded => "provider overloaded".to_string(),
            ErrorKind::Auth => "authentication failed".to_string(),
            ErrorKind::BrowserAccessDenied => "browser access denied".to_string(),
            ErrorKind::Quota => "quota or spend limit reached".to_string(),
            ErrorKind::ContextLength => "prompt too long for the model".to_string(),
            ErrorKind::BadParameter(p) => format!("parameter `{p}` rejected"),
            ErrorKind::BadRequest => "request rejected".to_string(),
            ErrorKind::ModelNotFound => "model not found".to_string(),
            ErrorKind::EndpointNotFound => "no such endpoint".to_string(),
            ErrorKind::Network => "network or CORS failure".to_string(),
            ErrorKind::Timeout => "timed out".to_string(),
            ErrorKind::Malformed => "malformed response".to_string(),
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.what();
        if self.status == 0 {
            write!(f, "{what}: {}", self.message)
        } else {
            write!(f, "{what} (HTTP {}): {}", self.status, self.message)
        }
    }
}

impl std::error::Error for ApiError {}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
}

/// The wait the response asks for, in ms from `now_unix_ms`: `retry-after` (seconds or an HTTP
/// date), `retry-after-ms`, OpenAI's `x-ratelimit-reset-requests` (`6m0s`), Anthropic's
/// `anthropic-ratelimit-requests-reset` (RFC 3339), or Gemini's `RetryInfo.retryDelay`.
pub fn retry_after_ms(headers: &[(String, String)], body: &str, now_unix_ms: u64) -> Option<u64> {
    if let Some(ms) = header(headers, "retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(ms.ceil() as u64);
    }
    if let Some(v) = header(headers, "retry-after") {
        if let Ok(secs) = v.parse::<f64>()
            && secs.is_finite()
            && secs >= 0.0
        {
            return Some((secs * 1000.0).ceil() as u64);
        }
        if let Some(at) = parse_http_date_ms(v) {
            return Some(at.saturating_sub(now_unix_ms));
        }
    }
    for name in ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"] {
        if let Some(ms) = header(headers, name).and_then(parse_duration_ms) {
            return Some(ms);
        }
    }
    for name in ["anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset"] {
        if let Some(at) = header(headers, name).and_then(parse_rfc3339_ms) {
            return Some(at.saturating_sub(now_unix_ms));
        }
    }
    // Gemini: error.details[] with "@type": "...RetryInfo", "retryDelay": "37s".
    let value: Option<Value> = serde_json::from_str(body).ok();
    let details =
        value.as_ref().and_then(|v| v.pointer("/error/details")).and_then(Value::as_array);
    if let Some(delay) = details.and_then(|d| {
        d.iter()
            .filter_map(|x| x.get("retryDelay").and_then(Value::as_str))
            .find_map(parse_duration_ms)
    }) {
        return Some(delay);
    }
    // OpenAI's message: "… Please try again in 20s." (or "in 1.5s", "in 120ms").
    let lower = body.to_ascii_lowercase();
    let at = lower.find("try again in ")? + "try again in ".len();
    let token: String =
        lower[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '.').collect();
    parse_duration_ms(token.trim_end_matches('.'))
}

/// Classifies a failed call. `status` 0 means the browser saw no response (see module docs).
pub fn classify_error(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_unix_ms: u64,
) -> ApiError {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let err = parsed.as_ref().map(|v| v.get("error").unwrap_or(v));
    let text_at = |key: &str| -> String {
        err.and_then(|e| e.get(key))
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    let mut message = text_at("message");
    if message.is_empty() {
        message = text_at("detail");
    }
    if message.is_empty() {
        // llama.cpp and some proxies answer with plain text.
        message = body.trim().chars().take(300).collect();
    }
    let code = text_at("code");
    let etype = format!("{} {}", text_at("type"), text_at("status"));
    let param = text_at("param");
    let spend_code = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/details/error_code"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let haystack = format!("{message} {code} {etype} {spend_code}").to_ascii_lowercase();
    let has = |needle: &str| haystack.contains(needle);

    let retry_after_ms = retry_after_ms(headers, body, now_unix_ms);
    let quota_like = has("insufficient_quota")
        || has("credit_balance")
        || has("enforced_spend_limit")
        || has("spend limit")
        || has("exceeded your current quota")
        || has("insufficient balance")
        || status == 402;
    // Gemini words per-minute limits like a billing quota, but says RESOURCE_EXHAUSTED and
    // tells how long to wait: that is a rate limit, worth waiting for.
    let gemini_rate_limit = status == 429 && has("resource_exhausted") && retry_after_ms.is_some();
    let kind = if status == 0 {
        ErrorKind::Network
    } else if quota_like && !gemini_rate_limit {
        ErrorKind::Quota
    } else if has("context_length_exceeded")
        || has("context length")
        || has("context_length")
        || has("prompt is too long")
        || has("exceed context limit")
        || has("exceeds the available context")
        || has("exceed_context_size")
        || has("too many tokens")
        || has("input is too long")
    {
        ErrorKind::ContextLength
    } else if status == 429 {
        ErrorKind::RateLimited
    } else if status == 529 || has("overloaded") {
        ErrorKind::Overloaded
    } else if status >= 500 || status == 408 || status == 409 {
        ErrorKind::ServerError
    } else if has("cors requests") {
        ErrorKind::BrowserAccessDenied
    } else if status == 401 || (status == 403 && !has("model")) {
        ErrorKind::Auth
    } else if has("model_not_found")
        || (has("model") && (has("not found") || has("does not exist") || has("not_found")))
        || (status == 404 && has("model"))
    {
        ErrorKind::ModelNotFound
    } else if let Some(p) = rejected_param(&param, &message, &code) {
        ErrorKind::BadParameter(p)
    } else if status == 403 {
        ErrorKind::Auth
    } else if status == 404 {
        ErrorKind::EndpointNotFound
    } else {
        ErrorKind::BadRequest
    };
    let limit_requests_per_minute = header(headers, "x-ratelimit-limit-requests")
        .and_then(|v| v.parse::<u32>().ok())
        .filter(|&v| v > 0);
    ApiError { kind, status, message, retry_after_ms, limit_requests_per_minute }
}

/// Finds the parameter a 400/422 complains about: OpenAI's `param` field with
/// `unsupported_parameter`/`unsupported_value`, or well-known messages of other servers.
fn rejected_param(param: &str, message: &str, code: &str) -> Option<Param> {
    let lower = message.to_ascii_lowercase();
    let code = code.to_ascii_lowercase();
    let unsupported = code.contains("unsupported")
        || lower.contains("unsupported")
        || lower.contains("not supported")
        || lower.contains("does not support")
        || lower.contains("not allowed")
        || lower.contains("extra inputs are not permitted")
        || lower.contains("unrecognized request argument")
        || lower.contains("unknown field")
        || lower.contains("only one completion choice")
        || lower.contains("cannot both be specified")
        || lower.contains("invalid")
        || lower.contains("not permitted");
    if !unsupported {
        return None;
    }
    if let Some(p) = Param::from_api_name(param) {
        return Some(p);
    }
    // llama-server: "Only one completion choice is allowed".
    if lower.contains("completion choice") {
        return Some(Param::N);
    }
    // Anthropic: "`temperature` and `top_p` cannot both be specified": keep temperature.
    if lower.contains("top_p") {
        return Some(Param::TopP);
    }
    // Otherwise the first quoted (or backticked) name in the message that is a known parameter.
    for quote in ['\'', '`', '"'] {
        let mut parts = lower.split(quote);
        parts.next();
        for (i, part) in parts.enumerate() {
            if i % 2 == 0
                && let Some(p) = Param::from_api_name(part)
            {
                return Some(p);
            }
        }
    }
    if lower.contains("logprobs") {
        return Some(Param::Logprobs);
    }
    None
}
