//! Policies for calling LLM providers: request building, response parsing, error
//! classification, retries, scheduling, cache keys and cost. No I/O happens here.
//!
//! The browser edge (in the app) and the CLI carry these decisions out: they send the
//! [`HttpRequest`] values built here, feed status, headers and body back, store every response
//! under its [`cache_key`] the moment it arrives, and drive the [`Scheduler`] with the current
//! time. Everything in this module is deterministic given its inputs (time and randomness are
//! passed in), so it is tested natively and runs unchanged in wasm32.
//!
//! | Concern | Where |
//! |---|---|
//! | presets, base URLs, capabilities per provider/model | [`provider`] |
//! | `ChatRequest` → HTTP request (OpenAI-compatible, Anthropic, Gemini) | [`request`] |
//! | HTTP body → [`ChatResponse`] | [`response`] |
//! | (status, headers, body) → [`ApiError`] with advice | [`error`] |
//! | backoff with jitter, `retry-after` | [`retry`] |
//! | queue, concurrency (AIMD), pacing, pause/cancel, progress | [`scheduler`] |
//! | stable cache keys | [`cache`] |
//! | price table, estimates, spend | [`cost`] |
//! | prompt tokens counted with OpenAI's encodings | [`tokens`] |
//! | Test connection (the model list) | [`connection`] |
//! | Check this model: one tiny request per capability a study needs | [`check`] |
//! | provider batch APIs (half price, results within 24 h) | [`batch`] |

pub mod batch;
pub mod cache;
pub mod check;
pub mod connection;
pub mod cost;
pub mod error;
pub mod provider;
pub mod request;
pub mod response;
pub mod retry;
pub mod scheduler;
pub mod time;
pub mod tokens;

pub use cache::{
    cache_key, cache_key_for, canonical_text, prompt_digest, prompt_digest_for, sample_key,
};
pub use connection::{
    ConnectionReport, ConnectionStatus, NetworkCause, classify_connection, classify_unreachable,
};
pub use cost::{
    CallSize, CostMeter, Estimate, EstimateInput, Price, PriceDiagnostic, PriceTable,
    PriceTableError, estimate_run, estimate_tokens,
};
pub use error::{ApiError, ErrorKind, classify_error};
pub use provider::{
    Api, Capabilities, Endpoint, EndpointEntry, EntryPrice, PRESETS, Param, Preset, ProviderId,
    SampleBatch, public_url, sample_batches,
};
pub use request::{
    BuildError, BuiltCall, CallOptions, HttpRequest, Method, build_chat, build_list_models,
};
pub use response::{
    ChatResponse, Choice, FinishReason, ParseError, Usage, parse_chat_response, parse_model_list,
};
pub use retry::{GiveUpReason, RetryDecision, RetryPolicy};
pub use scheduler::{
    Action, FailureOutcome, Finish, FinishMessage, Job, JobId, LogEntry, NETWORK_PAUSE_MS,
    Progress, PromptRef, Scheduler, SchedulerConfig, SchedulerError, StopReason,
};
