//! Provider batch APIs — OpenAI's Batch API and Anthropic's Message Batches — as values: the
//! lines of a batch, splitting them under the provider's limits, the requests that upload,
//! create, poll, cancel and download a batch, and reading what comes back. No I/O.
//!
//! A batch line carries the same chat body an interactive call would send (built by
//! [`build_chat`]), so its answers are stored under the same cache keys and Results, bundles
//! and the CLI score them as any answer; only the cost tells (a line's first answer carries the
//! line's reported usage, [`BatchAnswer::line`], priced at the batch discount). A line's
//! `custom_id` is the cache key of its first sample (64 hex digits: within both providers'
//! rules), and a [`BatchRecord`] keeps every line's keys, so collecting a batch needs nothing
//! but the record and the results.
//!
//! | Step | OpenAI | Anthropic |
//! |---|---|---|
//! | submit | `POST /files` (multipart, purpose `batch`), then `POST /batches` | `POST /messages/batches` |
//! | poll | `GET /batches/{id}` | `GET /messages/batches/{id}` |
//! | results | `GET /files/{output}/content` and `/files/{error}/content` | `GET /messages/batches/{id}/results` |
//! | cancel | `POST /batches/{id}/cancel` | `POST /messages/batches/{id}/cancel` |

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::judge::ChatRequest;
use crate::run::cost::{CallSize, Price};
use crate::run::error::ErrorKind;
use crate::run::error::{ApiError, classify_error};
use crate::run::provider::{Api, Capabilities, Endpoint, Param, ProviderId, SampleBatch};
use crate::run::request::{BuildError, CallOptions, HttpRequest, Method, build_chat};
use crate::run::response::{FinishReason, Usage, parse_chat_response};

/// What a batch costs against an interactive call: both providers charge half.
pub const BATCH_DISCOUNT: f64 = 0.5;

/// A provider's batch API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchApi {
    /// OpenAI's Batch API (a JSONL file uploaded through the Files API).
    OpenAi,
    /// Anthropic's Message Batches (the requests in one JSON body).
    Anthropic,
}

/// How much one batch may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    pub max_requests: usize,
    /// Bytes of the uploaded file (OpenAI) or the request body (Anthropic).
    pub max_bytes: usize,
}

impl BatchApi {
    /// The batch API of a provider, `None` for providers without one Concord can use.
    pub fn for_provider(provider: ProviderId) -> Option<BatchApi> {
        match provider {
            ProviderId::OpenAi => Some(BatchApi::OpenAi),
            ProviderId::Anthropic => Some(BatchApi::Anthropic),
            _ => None,
        }
    }

    /// The provider's published limits per batch: OpenAI 50,000 requests in a file of at most
    /// 200 MB; Anthropic 100,000 requests or 256 MB.
    pub fn limits(self) -> BatchLimits {
        match self {
            BatchApi::OpenAi => BatchLimits { max_requests: 50_000, max_bytes: 200_000_000 },
            BatchApi::Anthropic => BatchLimits { max_requests: 100_000, max_bytes: 256_000_000 },
        }
    }

    /// The provider's name.
    pub fn name(self) -> &'static str {
        match self {
            BatchApi::OpenAi => "OpenAI",
            BatchApi::Anthropic => "Anthropic",
        }
    }

    /// What a browser needs for this batch API to answer it (`../shared/LLM_PROVIDERS.md` §5).
    pub fn cors_note(self) -> &'static str {
        match self {
            BatchApi::OpenAi => {
                "OpenAI's batch endpoints (/files, /batches) are called from this page like the \
                 chat endpoint; if the browser reports a network error, OpenAI did not answer its \
                 CORS preflight: use a base URL of a proxy that does."
            }
            BatchApi::Anthropic => {
                "Anthropic's /messages/batches does not answer browser preflights (CORS): set the \
                 base URL to a proxy that adds CORS headers and forwards to api.anthropic.com."
            }
        }
    }
}

/// Why a provider has no batch mode here, in words.
pub fn no_batch_api(provider: ProviderId) -> String {
    format!(
        "{provider} has no batch API Concord can use: batch mode is available for OpenAI and \
         Anthropic. Run interactively instead."
    )
}

/// The price of a batch call: [`BATCH_DISCOUNT`] of the interactive price.
pub fn batch_price(price: Price) -> Price {
    Price {
        input_per_million: price.input_per_million * BATCH_DISCOUNT,
        output_per_million: price.output_per_million * BATCH_DISCOUNT,
    }
}

/// One request of a batch: an interactive call's body and the cache keys of its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchLine {
    /// The cache key of the call's first sample.
    pub custom_id: String,
    /// The cache keys of the samples the call asks for, in order.
    pub keys: Vec<String>,
    /// The chat body (JSON text), exactly what an interactive call sends.
    pub body: String,
    /// What the call's cost depends on (for the spend cap).
    pub size: CallSize,
}

/// Builds the batch line of a call: `samples` of `req`, whose cache keys are `keys`.
pub fn batch_line(
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    samples: SampleBatch,
    keys: &[String],
    api_key: &str,
) -> Result<BatchLine, BuildError> {
    let built = build_chat(endpoint, caps, req, samples, api_key, CallOptions::default())?;
    let count = (built.samples.count as usize).min(keys.len());
    let keys: Vec<String> = keys[..count].to_vec();
    let Some(custom_id) = keys.first().cloned() else {
        return Err(BuildError::Unsupported { what: "a batch line needs a cache key".into() });
    };
    let size = CallSize {
        prompt_chars: req.messages.iter().map(|m| m.content.chars().count()).sum(),
        samples: built.samples.count,
        max_tokens: req.max_tokens,
    };
    Ok(BatchLine { custom_id, keys, body: built.http.body, size })
}

/// The lines with distinct `custom_id`s, in order, and how many repeats were left out. Two calls
/// share a custom id when they share their first sample's cache key (two methods whose prompts
/// and parameters are the same): a batch with a repeated custom id is refused whole, and one
/// answer fills both.
pub fn dedupe(lines: Vec<BatchLine>) -> (Vec<BatchLine>, usize) {
    let mut seen = std::collections::HashSet::new();
    let before = lines.len();
    let kept: Vec<BatchLine> =
        lines.into_iter().filter(|l| seen.insert(l.custom_id.clone())).collect();
    let repeats = before - kept.len();
    (kept, repeats)
}

/// How long a batch API call may take for a body (or a download) of `bytes`: a minute, plus a
/// second for every 250 KB (a 200 MB file gets about 14 minutes), at most an hour.
pub fn transfer_timeout_ms(bytes: usize) -> u32 {
    let ms = 60_000u64 + (bytes as u64 / 250_000) * 1000;
    ms.min(3_600_000) as u32
}

/// Whether a failed batch was refused because the model's queue is full (OpenAI's
/// `token_limit_exceeded`: "Enqueued token limit reached for … Please try again once some
/// in_progress batches have been completed"): its lines can be submitted again once the
/// earlier batches end.
pub fn queue_full(phase: &BatchPhase) -> bool {
    matches!(phase, BatchPhase::Failed { reason } if reason.contains("token_limit_exceeded") || reason.to_ascii_lowercase().contains("enqueued token limit"))
}

/// The line as the provider reads it: a JSONL line of OpenAI's input file, or one element of
/// Anthropic's `requests`.
pub fn line_json(api: BatchApi, line: &BatchLine) -> String {
    let body: Value = serde_json::from_str(&line.body).unwrap_or(Value::Null);
    match api {
        BatchApi::OpenAi => json!({
            "custom_id": line.custom_id,
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": body,
        }),
        BatchApi::Anthropic => json!({"custom_id": line.custom_id, "params": body}),
    }
    .to_string()
}

/// Splits lines into batches within `limits` (count and bytes), keeping their order.
pub fn split(api: BatchApi, lines: Vec<BatchLine>, limits: BatchLimits) -> Vec<Vec<BatchLine>> {
    let mut out: Vec<Vec<BatchLine>> = Vec::new();
    let mut current: Vec<BatchLine> = Vec::new();
    let mut bytes = 0usize;
    for line in lines {
        // A line and its separator; the file's or body's frame is small beside the limit.
        let size = line_json(api, &line).len() + 1;
        let full = current.len() >= limits.max_requests || bytes + size > limits.max_bytes;
        if full && !current.is_empty() {
            out.push(std::mem::take(&mut current));
            bytes = 0;
        }
        bytes += size;
        current.push(line);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// How many of `lines`, in order, fit under a spend cap at the batch price: each line's largest
/// cost ([`Price::reserve_usd`]) is counted until the next would pass the cap.
pub fn fit_under_cap(lines: &[BatchLine], price: Price, cap_usd: f64) -> usize {
    let batch = batch_price(price);
    let mut spent = 0.0;
    for (i, line) in lines.iter().enumerate() {
        spent += batch.reserve_usd(line.size);
        if spent > cap_usd {
            return i;
        }
    }
    lines.len()
}

fn base_of(endpoint: &Endpoint) -> Result<String, BuildError> {
    let base = endpoint.normalized_base_url();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(BuildError::BadBaseUrl { url: endpoint.base_url.clone() });
    }
    Ok(base)
}

fn auth_headers(api: BatchApi, api_key: &str, json: bool) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if json {
        headers.push(("content-type".to_string(), "application/json".to_string()));
    }
    let key = api_key.trim();
    match api {
        BatchApi::OpenAi => {
            if !key.is_empty() {
                headers.push(("authorization".into(), format!("Bearer {key}")));
            }
        }
        BatchApi::Anthropic => {
            headers.push(("x-api-key".into(), key.to_string()));
            headers.push(("anthropic-version".into(), "2023-06-01".into()));
            headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
        }
    }
    headers
}

/// OpenAI: the upload of a batch's input file (`POST /files`, multipart, purpose `batch`).
pub fn upload_request(
    endpoint: &Endpoint,
    api_key: &str,
    lines: &[BatchLine],
) -> Result<HttpRequest, BuildError> {
    let base = base_of(endpoint)?;
    let mut jsonl = String::new();
    for line in lines {
        jsonl.push_str(&line_json(BatchApi::OpenAi, line));
        jsonl.push('\n');
    }
    // A boundary that occurs nowhere in the file (JSON escapes line breaks, so a line can only
    // contain it by chance; a counter settles that).
    let mut n = 0u32;
    let boundary = loop {
        let b = format!("concord-batch-{n:08x}");
        if !jsonl.contains(&b) {
            break b;
        }
        n += 1;
    };
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"concord-batch.jsonl\"\r\n\
         Content-Type: application/jsonl\r\n\r\n{jsonl}\r\n--{boundary}--\r\n"
    );
    let mut headers = auth_headers(BatchApi::OpenAi, api_key, false);
    headers.insert(0, ("content-type".into(), format!("multipart/form-data; boundary={boundary}")));
    Ok(HttpRequest { method: Method::Post, url: format!("{base}/files"), headers, body })
}

/// The request that creates a batch: OpenAI's from an uploaded file's id, Anthropic's with the
/// lines in its body (`file_id` unused).
pub fn create_request(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    file_id: &str,
    lines: &[BatchLine],
) -> Result<HttpRequest, BuildError> {
    let base = base_of(endpoint)?;
    let (url, body) = match api {
        BatchApi::OpenAi => (
            format!("{base}/batches"),
            json!({"input_file_id": file_id, "endpoint": "/v1/chat/completions", "completion_window": "24h"})
                .to_string(),
        ),
        BatchApi::Anthropic => {
            let mut body = String::from("{\"requests\":[");
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    body.push(',');
                }
                body.push_str(&line_json(api, line));
            }
            body.push_str("]}");
            (format!("{base}/messages/batches"), body)
        }
    };
    Ok(HttpRequest { method: Method::Post, url, headers: auth_headers(api, api_key, true), body })
}

fn batch_url(api: BatchApi, base: &str, id: &str) -> String {
    let id = encode(id);
    match api {
        BatchApi::OpenAi => format!("{base}/batches/{id}"),
        BatchApi::Anthropic => format!("{base}/messages/batches/{id}"),
    }
}

/// A bodiless request about batch `id` (its URL plus `suffix`).
fn batch_call(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    id: &str,
    method: Method,
    suffix: &str,
) -> Result<HttpRequest, BuildError> {
    let base = base_of(endpoint)?;
    Ok(HttpRequest {
        method,
        url: format!("{}{suffix}", batch_url(api, &base, id)),
        headers: auth_headers(api, api_key, false),
        body: String::new(),
    })
}

/// The request that reads a batch's status.
pub fn status_request(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    id: &str,
) -> Result<HttpRequest, BuildError> {
    batch_call(api, endpoint, api_key, id, Method::Get, "")
}

/// The request that cancels a batch.
pub fn cancel_request(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    id: &str,
) -> Result<HttpRequest, BuildError> {
    batch_call(api, endpoint, api_key, id, Method::Post, "/cancel")
}

/// The requests that download an ended batch's results: OpenAI's output and error files,
/// Anthropic's results.
pub fn results_requests(
    api: BatchApi,
    endpoint: &Endpoint,
    api_key: &str,
    state: &BatchState,
) -> Result<Vec<HttpRequest>, BuildError> {
    let base = base_of(endpoint)?;
    let get = |url: String| HttpRequest {
        method: Method::Get,
        url,
        headers: auth_headers(api, api_key, false),
        body: String::new(),
    };
    Ok(match api {
        BatchApi::OpenAi => [&state.output_file_id, &state.error_file_id]
            .into_iter()
            .flatten()
            .map(|f| get(format!("{base}/files/{}/content", encode(f))))
            .collect(),
        // The results of the batch at the address the API gives; the same path on this base
        // URL (a proxy) when the two differ in origin.
        BatchApi::Anthropic => {
            vec![get(format!("{}/results", batch_url(api, &base, &state.id)))]
        }
    })
}

/// Percent-encodes everything but unreserved characters: an id never changes a URL's shape.
fn encode(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Why a batch answer could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BatchError {
    /// The provider refused the request.
    #[error("{}: {}", .0.what(), .0.message)]
    Api(ApiError),
    /// The body is not what the batch API returns.
    #[error("the batch API's answer is not what it should return: {0}")]
    Malformed(String),
}

/// Reads a batch API reply: the provider's error for a non-2xx status, else the JSON.
fn reply_json(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_ms: u64,
) -> Result<Value, BatchError> {
    if !(200..300).contains(&status) {
        return Err(BatchError::Api(classify_error(status, headers, body, now_ms)));
    }
    serde_json::from_str(body).map_err(|e| BatchError::Malformed(format!("invalid JSON: {e}")))
}

/// OpenAI: the id of an uploaded file.
pub fn parse_upload(
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_ms: u64,
) -> Result<String, BatchError> {
    let v = reply_json(status, headers, body, now_ms)?;
    v.get("id")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| BatchError::Malformed("the uploaded file has no `id`".into()))
}

/// Where a batch is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "phase")]
pub enum BatchPhase {
    /// Queued or being processed; `status` as the provider says it.
    Running { status: String },
    /// Done: its results can be downloaded.
    Ended,
    /// The 24 hours ran out: the lines answered by then can be downloaded, the rest expired.
    Expired,
    /// Cancelled: the lines answered before can be downloaded.
    Cancelled,
    /// The provider refused the whole batch (e.g. its input file was invalid).
    Failed { reason: String },
}

impl BatchPhase {
    /// Whether the batch will not change any more.
    pub fn is_over(&self) -> bool {
        !matches!(self, BatchPhase::Running { .. })
    }

    /// In words.
    pub fn describe(&self) -> String {
        match self {
            BatchPhase::Running { status } => status.replace('_', " "),
            BatchPhase::Ended => "ended".into(),
            BatchPhase::Expired => "expired (its 24 hours ran out)".into(),
            BatchPhase::Cancelled => "cancelled".into(),
            BatchPhase::Failed { reason } => format!("failed: {reason}"),
        }
    }
}

/// A batch's request counts as the provider reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct BatchCounts {
    pub total: u64,
    pub succeeded: u64,
    pub failed: u64,
}

/// A batch as the provider last described it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchState {
    pub id: String,
    pub phase: BatchPhase,
    pub counts: BatchCounts,
    #[serde(default)]
    pub output_file_id: Option<String>,
    #[serde(default)]
    pub error_file_id: Option<String>,
}

/// Reads a batch object (the answer to create, status and cancel requests).
pub fn parse_batch(
    api: BatchApi,
    status: u16,
    headers: &[(String, String)],
    body: &str,
    now_ms: u64,
) -> Result<BatchState, BatchError> {
    let v = reply_json(status, headers, body, now_ms)?;
    let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_owned) else {
        return Err(BatchError::Malformed("the batch has no `id`".into()));
    };
    let n = |path: &str| v.pointer(path).and_then(Value::as_u64).unwrap_or(0);
    let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    match api {
        BatchApi::OpenAi => {
            let status = text("status").unwrap_or_default();
            let phase = match status.as_str() {
                "completed" => BatchPhase::Ended,
                "expired" => BatchPhase::Expired,
                "cancelled" => BatchPhase::Cancelled,
                "failed" => {
                    // Every `errors.data[]` entry, with its `code` (e.g. `token_limit_exceeded`).
                    let reasons: Vec<String> = v
                        .pointer("/errors/data")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .map(|e| {
                            let code = e.get("code").and_then(Value::as_str);
                            let message = e.get("message").and_then(Value::as_str).unwrap_or("");
                            let line = e.get("line").and_then(Value::as_u64);
                            let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
                            match code {
                                Some(c) => format!("{c}: {message}{at}"),
                                None => format!("{message}{at}"),
                            }
                        })
                        .collect();
                    BatchPhase::Failed {
                        reason: if reasons.is_empty() {
                            "the provider gave no reason".to_owned()
                        } else {
                            reasons.join("; ")
                        },
                    }
                }
                "" => return Err(BatchError::Malformed("the batch has no `status`".into())),
                _ => BatchPhase::Running { status },
            };
            Ok(BatchState {
                id,
                phase,
                counts: BatchCounts {
                    total: n("/request_counts/total"),
                    succeeded: n("/request_counts/completed"),
                    failed: n("/request_counts/failed"),
                },
                output_file_id: text("output_file_id"),
                error_file_id: text("error_file_id"),
            })
        }
        BatchApi::Anthropic => {
            let status = text("processing_status").unwrap_or_default();
            let counts = BatchCounts {
                total: ["processing", "succeeded", "errored", "canceled", "expired"]
                    .iter()
                    .map(|k| n(&format!("/request_counts/{k}")))
                    .sum(),
                succeeded: n("/request_counts/succeeded"),
                failed: n("/request_counts/errored")
                    + n("/request_counts/canceled")
                    + n("/request_counts/expired"),
            };
            let phase = match status.as_str() {
                "ended" if n("/request_counts/expired") > 0 => BatchPhase::Expired,
                "ended" if n("/request_counts/canceled") > 0 => BatchPhase::Cancelled,
                "ended" => BatchPhase::Ended,
                "" => {
                    return Err(BatchError::Malformed(
                        "the batch has no `processing_status`".into(),
                    ));
                }
                _ => BatchPhase::Running { status },
            };
            Ok(BatchState { id, phase, counts, output_file_id: None, error_file_id: None })
        }
    }
}

/// One answered sample of a batch, to be stored under its cache key.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchAnswer {
    pub key: String,
    pub text: String,
    pub model: String,
    /// The provider cut it off at the token limit.
    pub cut_off: bool,
    /// Its digit-bearing tokens with their log-probabilities, when the line asked for them.
    pub tokens: Vec<crate::judge::aggregate::ScoreToken>,
    /// The reasoning tokens it cost (its line's reported count shared among its samples).
    pub reasoning_tokens: Option<u64>,
    /// On the first sample of its line only: the line as one call — how many samples it
    /// answered and the tokens the provider reported for it (the usage [`Collected::usage`]
    /// adds up, so the Results' cost of these answers is what the batch card says was spent).
    pub line: Option<AnsweredLine>,
}

/// One answered line of a batch as a call (see [`BatchAnswer::line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnsweredLine {
    pub samples: u32,
    /// `usage` of the line's answer (OpenAI `response.body.usage`, Anthropic
    /// `result.message.usage`); `None` when it has none.
    pub usage: Option<Usage>,
}

/// A line that brought no answer, with its cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineFailure {
    pub custom_id: String,
    pub cause: String,
}

/// What a batch's results gave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Collected {
    pub answers: Vec<BatchAnswer>,
    pub failures: Vec<LineFailure>,
    /// Tokens of the answered lines, as the provider counted them.
    pub usage: Usage,
    /// Result lines that could not be read (line number in its file, what was wrong).
    pub unreadable: Vec<String>,
    /// Parameters the API refused in failed lines (read as an interactive refusal is), with
    /// the provider's words: a re-run is built without them.
    pub rejected: Vec<(Param, String)>,
}

/// Reads the downloaded result files of a batch whose lines are `lines` (custom id → keys):
/// every answered sample under its key, every line without an answer with its cause (a line the
/// results do not mention at all is one: "no result").
pub fn collect(
    api: BatchApi,
    lines: &[LineRef],
    files: &[String],
    phase: &BatchPhase,
) -> Collected {
    let mut out = Collected::default();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let by_id: std::collections::HashMap<&str, &LineRef> =
        lines.iter().map(|l| (l.custom_id.as_str(), l)).collect();
    for (f, file) in files.iter().enumerate() {
        for (n, raw) in file.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let Ok(v) = serde_json::from_str::<Value>(raw) else {
                out.unreadable.push(format!("file {}, line {}: not JSON", f + 1, n + 1));
                continue;
            };
            let Some(id) = v.get("custom_id").and_then(Value::as_str) else {
                out.unreadable.push(format!("file {}, line {}: no custom_id", f + 1, n + 1));
                continue;
            };
            let Some(line) = by_id.get(id) else {
                out.unreadable.push(format!(
                    "file {}, line {}: custom_id {id} is not in this batch",
                    f + 1,
                    n + 1
                ));
                continue;
            };
            if !seen.insert(line.custom_id.as_str()) {
                continue;
            }
            match line_result(api, &v) {
                Ok((body, anthropic)) => {
                    let wire = if anthropic { Api::Anthropic } else { Api::OpenAiCompatible };
                    match parse_chat_response(wire, &body) {
                        Ok(response) => {
                            if let Some(u) = response.usage {
                                out.usage.add(u);
                            }
                            let model = response.model.clone().unwrap_or_default();
                            let reasoning = response
                                .usage
                                .and_then(|u| u.reasoning_per_sample(response.choices.len()));
                            let answered = line.keys.len().min(response.choices.len());
                            for (i, (key, choice)) in
                                line.keys.iter().zip(&response.choices).enumerate()
                            {
                                out.answers.push(BatchAnswer {
                                    key: key.clone(),
                                    text: choice.text.clone(),
                                    model: model.clone(),
                                    cut_off: choice.finish_reason == Some(FinishReason::Length),
                                    tokens: choice
                                        .top_logprobs
                                        .as_deref()
                                        .map(crate::judge::aggregate::score_tokens)
                                        .unwrap_or_default(),
                                    reasoning_tokens: reasoning,
                                    line: (i == 0).then_some(AnsweredLine {
                                        samples: u32::try_from(answered).unwrap_or(u32::MAX),
                                        usage: response.usage,
                                    }),
                                });
                            }
                            if response.choices.len() < line.keys.len() {
                                out.failures.push(LineFailure {
                                    custom_id: line.custom_id.clone(),
                                    cause: format!(
                                        "answered {} of {} samples",
                                        response.choices.len(),
                                        line.keys.len()
                                    ),
                                });
                            }
                        }
                        Err(e) => out.failures.push(LineFailure {
                            custom_id: line.custom_id.clone(),
                            cause: e.to_string(),
                        }),
                    }
                }
                Err((cause, refusal)) => {
                    if let Some((p, words)) = refusal
                        && !out.rejected.iter().any(|(q, _)| *q == p)
                    {
                        out.rejected.push((p, words));
                    }
                    out.failures.push(LineFailure { custom_id: line.custom_id.clone(), cause })
                }
            }
        }
    }
    let missing = match phase {
        BatchPhase::Expired => "expired: the batch's 24 hours ran out before it was answered",
        BatchPhase::Cancelled => "cancelled before it was answered",
        BatchPhase::Failed { .. } => "the provider refused the batch",
        _ => "no result: the batch ended without one for this request",
    };
    for line in lines {
        if !seen.contains(line.custom_id.as_str()) {
            out.failures
                .push(LineFailure { custom_id: line.custom_id.clone(), cause: missing.to_owned() });
        }
    }
    out
}

/// A result line's answer body (and whether it is Anthropic's message), or why it has none.
fn line_result(api: BatchApi, v: &Value) -> Result<(String, bool), (String, Refusal)> {
    match api {
        BatchApi::OpenAi => {
            if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
                let code = e.get("code").and_then(Value::as_str).unwrap_or("error");
                let message = e.get("message").and_then(Value::as_str).unwrap_or("");
                return Err((
                    match code {
                        "batch_expired" => {
                            "expired: the batch's 24 hours ran out before it was answered"
                                .to_owned()
                        }
                        "batch_cancelled" => "cancelled before it was answered".to_owned(),
                        _ => format!("{code}: {message}"),
                    },
                    None,
                ));
            }
            let Some(response) = v.get("response").filter(|r| !r.is_null()) else {
                return Err(("the result line has neither a response nor an error".into(), None));
            };
            let status = response.get("status_code").and_then(Value::as_u64).unwrap_or(0);
            let body = response.get("body").cloned().unwrap_or(Value::Null);
            if status != 200 {
                let message =
                    body.pointer("/error/message").and_then(Value::as_str).unwrap_or("no message");
                return Err((format!("HTTP {status}: {message}"), refusal(status as u16, &body)));
            }
            Ok((body.to_string(), false))
        }
        BatchApi::Anthropic => {
            let result = v.get("result").cloned().unwrap_or(Value::Null);
            match result.get("type").and_then(Value::as_str) {
                Some("succeeded") => {
                    Ok((result.get("message").cloned().unwrap_or(Value::Null).to_string(), true))
                }
                Some("errored") => {
                    let e = result.pointer("/error/error").or_else(|| result.get("error"));
                    let kind = e.and_then(|e| e.get("type")).and_then(Value::as_str);
                    let message = e.and_then(|e| e.get("message")).and_then(Value::as_str);
                    let refused = result.get("error").and_then(|body| refusal(400, body));
                    Err((
                        format!("{}: {}", kind.unwrap_or("error"), message.unwrap_or("no message")),
                        refused,
                    ))
                }
                Some("expired") => Err((
                    "expired: the batch's 24 hours ran out before it was answered".into(),
                    None,
                )),
                Some("canceled") => Err(("cancelled before it was answered".into(), None)),
                other => Err((format!("unknown result type {}", other.unwrap_or("(none)")), None)),
            }
        }
    }
}

/// A parameter a failed line's body refuses, with the provider's words.
type Refusal = Option<(Param, String)>;

/// Reads a failed line's error body as an interactive refusal is read.
fn refusal(status: u16, body: &Value) -> Refusal {
    let error = classify_error(status, &[], &body.to_string(), 0);
    match error.kind {
        ErrorKind::BadParameter(p) => Some((p, error.message)),
        _ => None,
    }
}

/// A line of a submitted batch: its custom id and the cache keys its answer fills.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineRef {
    pub custom_id: String,
    pub keys: Vec<String>,
}

impl From<&BatchLine> for LineRef {
    fn from(line: &BatchLine) -> LineRef {
        LineRef { custom_id: line.custom_id.clone(), keys: line.keys.clone() }
    }
}

/// A submitted batch as the page keeps it (in IndexedDB, from the moment the provider accepts
/// it): enough to poll it, collect it and say what it cost, days later. Never the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchRecord {
    pub api: BatchApi,
    /// Provider slug, base URL (without credentials) and model the lines were built for.
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// Unix ms when the provider accepted it.
    pub submitted_at: u64,
    /// What was run, in words ("4 methods × 2 attributes on SummEval").
    pub label: String,
    /// How the lines were planned: the first N items only, and the length probe's variant
    /// (by name), so the answers can be collected into the same runs.
    #[serde(default)]
    pub item_limit: Option<usize>,
    #[serde(default)]
    pub probe: Option<String>,
    pub lines: Vec<LineRef>,
    /// The largest cost of its lines at the batch price (what the spend cap counted).
    #[serde(default)]
    pub reserved_usd: Option<f64>,
    /// The provider's last word on it.
    pub state: BatchState,
    /// Set once its results are stored.
    #[serde(default)]
    pub collected: Option<CollectedSummary>,
    /// Requests of its study were left to submit after it (chunks go one after another, under
    /// the model's enqueued-token limit): once it is collected, what is still unanswered is
    /// submitted next.
    #[serde(default)]
    pub follow_up: bool,
    /// The base URL is a proxy for the provider's API: answers are keyed to the provider's own
    /// address (see `cache.rs`).
    #[serde(default)]
    pub proxy: bool,
}

/// What collecting a batch gave, kept with its record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CollectedSummary {
    pub at: u64,
    /// Samples stored.
    pub answers: usize,
    pub failures: Vec<LineFailure>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Result lines that could not be read.
    #[serde(default)]
    pub unreadable: Vec<String>,
    /// Parameters the API refused in its failed lines (API spelling) with the provider's
    /// words: a re-run of the batch is built without them.
    #[serde(default)]
    pub rejected: Vec<(String, String)>,
}

impl BatchRecord {
    /// The key its record is stored under.
    pub fn store_key(&self) -> String {
        format!("batch/{:013}/{}", self.submitted_at, self.state.id)
    }

    /// Whether it still needs the provider: running, or over but not collected.
    pub fn is_pending(&self) -> bool {
        self.collected.is_none()
    }

    /// The parameters its lines were refused for: a re-run does not send them.
    pub fn rejected_params(&self) -> Vec<Param> {
        self.collected
            .iter()
            .flat_map(|c| &c.rejected)
            .filter_map(|(p, _)| Param::from_api_name(p))
            .collect()
    }

    /// The tokens its answers used.
    pub fn usage(&self) -> Usage {
        self.collected.as_ref().map_or_else(Usage::default, |c| Usage {
            prompt_tokens: c.prompt_tokens,
            completion_tokens: c.completion_tokens,
            reasoning_tokens: 0,
        })
    }

    /// What its answers cost at the batch price, and what they would have cost interactively.
    pub fn cost(&self, price: Option<Price>) -> Option<(f64, f64)> {
        let price = price?;
        let usage = self.usage();
        Some((batch_price(price).cost_usd(usage), price.cost_usd(usage)))
    }
}

/// Failures grouped by cause, in order of first appearance: (cause, how many).
pub fn failure_causes(failures: &[LineFailure]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in failures {
        match out.iter_mut().find(|(c, _)| *c == f.cause) {
            Some((_, n)) => *n += 1,
            None => out.push((f.cause.clone(), 1)),
        }
    }
    out
}
