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
    /// The prompt does not fit the model's context. Never retried; the item fails and the run
    /// goes on (the scheduler stops it when several different prompts overflow).
    ContextLength,
    /// The provider refused to answer this prompt (Gemini's `promptFeedback.blockReason`).
    /// Never retried; the item fails and the run goes on.
    Blocked,
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

    /// A prompt the provider refused to answer (Gemini's `promptFeedback.blockReason`).
    pub fn blocked(detail: impl Into<String>) -> ApiError {
        ApiError { kind: ErrorKind::Blocked, ..ApiError::malformed(detail) }
    }

    /// Whether the whole run must stop (every later call would fail the same way). A prompt
    /// too long for the model is that item's failure, not the run's.
    pub fn stops_run(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::Auth
                | ErrorKind::BrowserAccessDenied
                | ErrorKind::Quota
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
                "{}: out of credit or a spend limit was reached. Add credit (or raise the spend \
                 limit) in your {} account, then Run again; the run stopped so nothing more is \
                 spent, and nothing stored is paid twice.",
                preset.name, preset.name
            ),
            ErrorKind::ContextLength => "The prompt is longer than the model's context window: \
                 this item fails and the run goes on. Use a model with a longer context (or start \
                 the local server with a larger context) or shorten the inputs."
                .into(),
            ErrorKind::Blocked => format!(
                "{} refused to answer this prompt (its safety filter blocked it): this item \
                 fails and is not retried, the run goes on. Rephrase the prompt or exclude the \
                 item if every method is blocked on it.",
                preset.name
            ),
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
            ErrorKind::Blocked => "prompt blocked by the provider".to_string(),
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

/// What an error body says, read once: its own fields first (`code`, `type`, Gemini's `status`,
/// `param`, Gemini's `details`), then its words.
#[derive(Debug, Default)]
struct Reading {
    message: String,
    /// `code`, lower-cased (OpenAI `unsupported_parameter`, Gemini's numeric `400`).
    code: String,
    /// `type` and Gemini's `status`, lower-cased (`invalid_request_error`, `invalid_argument`).
    kind: String,
    /// The parameter the body names: OpenAI's `param`, Gemini's `fieldViolations[].field`,
    /// vLLM's `loc`.
    params: Vec<String>,
    /// Anthropic's `details.error_code` and Gemini's `ErrorInfo.reason`, lower-cased.
    reasons: Vec<String>,
    /// The message, lower-cased, with everything above (for the wording checks).
    haystack: String,
}

impl Reading {
    fn of(body: &str) -> Reading {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let err = parsed.as_ref().map(|v| v.get("error").unwrap_or(v));
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let field = |key: &str| err.and_then(|e| e.get(key)).map(text).unwrap_or_default();
        let mut message = field("message");
        // vLLM/FastAPI: `message: {detail: [{loc, msg}]}`, or a bare `detail`.
        if message.is_empty() {
            message = field("detail");
        }
        if message.is_empty() {
            // llama.cpp and some proxies answer with plain text.
            message = body.trim().chars().take(300).collect();
        }
        let mut params: Vec<String> = Vec::new();
        if let Some(p) = err.and_then(|e| e.get("param")).and_then(Value::as_str) {
            params.push(p.to_owned());
        }
        let mut reasons = Vec::new();
        // Anthropic: `error.details.error_code`; Gemini: `error.details[]` with BadRequest's
        // field violations and ErrorInfo's reason.
        if let Some(code) = parsed
            .as_ref()
            .and_then(|v| v.pointer("/error/details/error_code"))
            .and_then(Value::as_str)
        {
            reasons.push(code.to_ascii_lowercase());
        }
        let details = err.and_then(|e| e.get("details")).and_then(Value::as_array);
        for d in details.into_iter().flatten() {
            for v in d.get("fieldViolations").and_then(Value::as_array).into_iter().flatten() {
                if let Some(f) = v.get("field").and_then(Value::as_str) {
                    params.push(f.to_owned());
                }
            }
            if let Some(r) = d.get("reason").and_then(Value::as_str) {
                reasons.push(r.to_ascii_lowercase());
            }
        }
        // vLLM: `{"message": {"detail": [{"loc": ["body", "seed"], "msg": …}]}}`.
        let loc_lists = err
            .and_then(|e| e.pointer("/message/detail").or_else(|| e.get("detail")))
            .and_then(Value::as_array);
        for d in loc_lists.into_iter().flatten() {
            if let Some(last) = d.get("loc").and_then(Value::as_array).and_then(|l| l.last())
                && let Some(name) = last.as_str()
            {
                params.push(name.to_owned());
            }
        }
        let code = field("code").to_ascii_lowercase();
        let kind = format!("{} {}", field("type"), field("status")).trim().to_ascii_lowercase();
        let haystack =
            format!("{message} {code} {kind} {}", reasons.join(" ")).to_ascii_lowercase();
        Reading { message, code, kind, params, reasons, haystack }
    }

    fn has(&self, needle: &str) -> bool {
        self.haystack.contains(needle)
    }

    /// Out of money: by structure (OpenAI `insufficient_quota`, Anthropic
    /// `enforced_spend_limit_reached`, 402), then by words (Anthropic's "Your credit balance is
    /// too low…", DeepSeek's "Insufficient Balance").
    fn out_of_money(&self, status: u16) -> bool {
        status == 402
            || ["insufficient_quota", "billing_hard_limit_reached", "credit_balance_exhausted"]
                .contains(&self.code.as_str())
            || self.reasons.iter().any(|r| r.contains("spend_limit") || r.contains("billing"))
            || [
                "insufficient_quota",
                "credit_balance",
                "credit balance",
                "enforced_spend_limit",
                "spend limit",
                "exceeded your current quota",
                "insufficient balance",
                "insufficient account balance",
                "billing_error",
                "purchase credits",
            ]
            .iter()
            .any(|w| self.has(w))
    }

    /// The prompt does not fit: OpenAI's `context_length_exceeded`, llama.cpp's
    /// `exceed_context_size_error`, then the words of OpenAI, Anthropic, Gemini ("The input
    /// token count (N) exceeds the maximum number of tokens allowed (M)"), vLLM, llama.cpp.
    fn context_overflow(&self) -> bool {
        self.code == "context_length_exceeded"
            || self.kind.contains("exceed_context_size")
            || [
                "context_length_exceeded",
                "context length",
                "context_length",
                "context window",
                "prompt is too long",
                "exceed context limit",
                "exceeds the available context",
                "exceed_context_size",
                "exceeds the maximum number of tokens",
                "input token count",
                "maximum prompt length",
                "too many tokens",
                "input is too long",
            ]
            .iter()
            .any(|w| self.has(w))
    }
}

/// Classifies a failed call. `status` 0 means the browser saw no response (see module docs).
pub fn classify_error(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_unix_ms: u64,
) -> ApiError {
    let r = Reading::of(body);
    let retry_after_ms = retry_after_ms(headers, body, now_unix_ms);
    // Gemini words per-minute limits like a billing quota, but says RESOURCE_EXHAUSTED and
    // tells how long to wait: that is a rate limit, worth waiting for.
    let gemini_rate_limit =
        status == 429 && r.has("resource_exhausted") && retry_after_ms.is_some();
    let kind = if status == 0 {
        ErrorKind::Network
    } else if r.out_of_money(status) && !gemini_rate_limit {
        ErrorKind::Quota
    } else if r.context_overflow() {
        ErrorKind::ContextLength
    } else if status == 429 {
        ErrorKind::RateLimited
    } else if status == 529 || r.has("overloaded") {
        ErrorKind::Overloaded
    } else if status >= 500 || status == 408 || status == 409 {
        ErrorKind::ServerError
    } else if r.has("cors requests") {
        ErrorKind::BrowserAccessDenied
    } else if status == 401 || (status == 403 && !r.has("model")) {
        ErrorKind::Auth
    } else if r.code == "model_not_found"
        || (r.has("model") && (r.has("not found") || r.has("does not exist") || r.has("not_found")))
        || (status == 404 && r.has("model"))
    {
        ErrorKind::ModelNotFound
    } else if let Some(p) = rejected_param(&r) {
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
    ApiError { kind, status, message: r.message, retry_after_ms, limit_requests_per_minute }
}

/// Words with which providers refuse a parameter (or a value of it): OpenAI's "Unsupported
/// parameter/value", Gemini's "… is not enabled for models/…" and "Unknown name", DeepSeek's
/// "This response_format type is unavailable now", Anthropic's "cannot both be specified",
/// llama.cpp's "Only one completion choice is allowed", vLLM's "Extra inputs are not permitted".
const REFUSALS: &[&str] = &[
    "unsupported",
    "not supported",
    "does not support",
    "not enabled",
    "unavailable",
    "not available",
    "not allowed",
    "not permitted",
    "extra inputs",
    "unrecognized request argument",
    "unknown field",
    "unknown name",
    "cannot find field",
    "only one completion choice",
    "cannot both be specified",
    "only the default",
    "invalid",
];

/// Parameters as providers name them in their words, most specific first (a message naming
/// `top_logprobs` is about log-probabilities, not `top_p`).
const NAMED: &[(&str, Param)] = &[
    ("top_logprobs", Param::Logprobs),
    ("toplogprobs", Param::Logprobs),
    ("response_logprobs", Param::Logprobs),
    ("responselogprobs", Param::Logprobs),
    ("logprobs", Param::Logprobs),
    ("response_format", Param::ResponseFormat),
    ("responsemimetype", Param::ResponseFormat),
    ("response_mime_type", Param::ResponseFormat),
    ("responsejsonschema", Param::ResponseFormat),
    ("response_json_schema", Param::ResponseFormat),
    ("response_schema", Param::ResponseFormat),
    ("responseschema", Param::ResponseFormat),
    ("json_schema", Param::ResponseFormat),
    ("json mode", Param::ResponseFormat),
    ("structured output", Param::ResponseFormat),
    ("tool_choice", Param::ResponseFormat),
    ("candidatecount", Param::N),
    ("candidate_count", Param::N),
    ("multiple candidates", Param::N),
    ("completion choice", Param::N),
    ("top_p", Param::TopP),
    ("topp", Param::TopP),
    ("temperature", Param::Temperature),
    ("random_seed", Param::Seed),
    ("seed", Param::Seed),
    ("stop_sequences", Param::Stop),
    ("stopsequences", Param::Stop),
];

/// Whether `word` occurs in `text` on its own (not inside a longer identifier).
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return true;
        }
        from = end;
    }
    false
}

/// Finds the parameter a 400/422 refuses: the body's own fields first (`param`, Gemini's field
/// violations, vLLM's `loc`) when the error is a refusal, then the parameter its words name.
fn rejected_param(r: &Reading) -> Option<Param> {
    let lower = r.message.to_ascii_lowercase();
    let refusal = r.code.contains("unsupported")
        || r.kind.contains("extra_forbidden")
        || REFUSALS.iter().any(|w| lower.contains(w));
    if !refusal {
        return None;
    }
    // Anthropic (Claude 4.5 and later): "`temperature` and `top_p` cannot both be specified for
    // this model": keep the temperature, drop top_p.
    if lower.contains("cannot both be specified") && has_word(&lower, "top_p") {
        return Some(Param::TopP);
    }
    if let Some(p) = r.params.iter().find_map(|p| Param::from_api_name(p)) {
        return Some(p);
    }
    // A quoted (or backticked) name that is a known parameter: "Unsupported parameter:
    // 'max_tokens' …".
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
    // The parameter the words name: "Logprobs is not enabled for models/gemini-2.5-flash",
    // "Multiple candidates is not enabled for this model", "This response_format type is
    // unavailable now".
    NAMED.iter().find(|(word, _)| has_word(&lower, word)).map(|&(_, p)| p)
}
