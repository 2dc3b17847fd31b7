//! `cargo xtask mock-llm`: a scriptable loopback mock of the OpenAI chat-completions and
//! Anthropic messages APIs, with CORS, for browser and native tests.
//!
//! It binds 127.0.0.1 only. Endpoints:
//!
//! - `POST /v1/chat/completions`, `GET /v1/models` (OpenAI-shaped), `POST /v1/messages`
//!   (Anthropic-shaped); `OPTIONS *` answers CORS preflights.
//! - `POST /__mock/scenario` replaces the scenario (JSON body, see [`Scenario`]);
//!   `GET /__mock/requests` returns the request log and a summary; `GET /__mock/summary` the
//!   summary only; `POST /__mock/reset` clears the log, the rate window and the counters;
//!   `POST /__mock/hold` makes chat answers wait until `POST /__mock/release` (a client that
//!   goes away meanwhile is logged `client_gone`, not answered).
//! - The batch APIs (OpenAI Files + Batch, Anthropic Message Batches) with accelerated time,
//!   expiry and per-line errors: see [`batch`] (scenario field `batch`).
//!
//! **Sample identity.** Concord sends `seed = sample index` (and `n` samples `seed..seed+n`).
//! The mock names each sample `<hash of the messages>:<seed + choice index>` (`-` for no
//! seed), records which samples every request answered, and lists in the summary any sample
//! answered successfully more than once — the "no request is paid twice" check.
//!
//! **Determinism.** Replies derive from a hash of the prompt (FNV-1a, stable across runs and
//! platforms); injected failures are chosen by hashing (seed, request key, how many times this
//! key was seen), so the k-th attempt of a given request always meets the same fate whatever
//! the order in which concurrent requests arrive.
//!
//! A scenario for the flaky-run acceptance test (every field is optional):
//!
//! ```json
//! { "reply": {"mode": "echo_rating", "marker": "RATING="},
//!   "failure_rate": 0.2, "failures": ["rate_limited", "server_error", "overloaded", "drop", "truncate"],
//!   "retry_after_s": 1, "seed": 42, "latency_ms": 20,
//!   "rpm_limit": 600, "rate_window_ms": 60000 }
//! ```
//!
//! More failure kinds: `rate_limited_bare` (429 without `retry-after`), `bad_gateway` (502 with
//! a proxy's HTML page), `unavailable` (503), `hang` (never answers; the connection stays open
//! until the client's timeout closes it) and `malformed_json` (a complete 200 whose JSON is
//! broken). `"storm": {"ms": 4000, "retry_after_s": 1}` refuses every chat request with 429 for
//! the first 4 s after a reset (`retry_after_s` absent: no `retry-after` header).
//!
//! Other fields: `template` (`"Rating: {rating}"`), `scale_min`/`scale_max` (1–5), `models`,
//! A request asking for structured output (OpenAI-style `response_format` with a JSON schema,
//! or an Anthropic forced tool) gets the rating as JSON with the schema's required fields (as
//! the tool's input for Anthropic).
//!
//! Usage: prompts are billed at four characters a token, except OpenAI-style requests to a
//! model named `gpt-4o…`, billed by OpenAI's `o200k_base` as OpenAI bills them (each message's
//! tokens plus the chat format's four, then three priming the reply).
//!
//! `supports_n`, `reject_params`, `require_key`, `usage_cost` (OpenRouter's `usage.cost` on
//! every answer), `reasoning_tokens` (a reasoning model's
//! thinking, spent within the token limit before the answer), `bonus` (`{"contains": "…", "points": 1}`:
//! a known bias added to the rating of prompts containing the text), `script` (`[{"status": 503, "body": {…},
//! "headers": [["retry-after", "2"]]}]`), and `reply` modes `{"mode": "canned", "text": …}`
//! and `{"mode": "hash_rating", "length_cap": 4000}` (the default), and
//! `{"mode": "rules", "rules": [{"contains": "Round 2", "model": "judge", "reply": "…"}],
//! "default": "…"}`: the first rule whose text occurs in the last user message (and whose
//! optional model is the requested one) gives the reply — a script for multi-step protocols.
//! A rule with `"at_end": true` matches only a message ending with its text. `before` holds
//! rules of the same shape tried before any reply mode: `{"before": [{"contains": "Evaluation
//! Steps:", "at_end": true, "reply": "1. …"}], "reply": {"mode": "echo_rating"}}` answers
//! auto-CoT's steps request with scripted steps and every rating prompt (which has the steps
//! in its middle) as `echo_rating` does.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[path = "mock_llm/batch.rs"]
mod batch;
#[path = "mock_llm/providers.rs"]
pub mod providers;
pub use batch::BatchScenario;
pub use providers::Personality;

/// How replies are made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ReplyMode {
    /// Always this text.
    Canned { text: String },
    /// A rating derived from the prompt: 60% from its length (longer ⇒ higher, saturating at
    /// `length_cap` characters), 40% from its hash, plus per-sample noise of at most one point,
    /// so correlations with human ratings are neither zero nor perfect.
    HashRating {
        #[serde(default = "default_length_cap")]
        length_cap: usize,
    },
    /// The number that follows `marker` in the prompt (e.g. `RATING=4`), so a test can plant
    /// the expected answer; prompts without it get an unparseable reply.
    EchoRating {
        #[serde(default = "default_marker")]
        marker: String,
        /// Prompts containing this text get a hash-derived rating instead of the echo: a
        /// deliberately uninformative judge, so a test can compare a good method with a bad
        /// one (e.g. `"scores ONLY"` singles out seed 002's score-only prompt).
        #[serde(default)]
        noisy_when: Option<String>,
    },
    /// Scripted replies for multi-step protocols (pairwise with swap, MDEval debates,
    /// JDEval-i, BSMEval): the first rule whose `contains` occurs in the last user message
    /// (and whose `model`, if given, is the requested model) gives the reply; no match gives
    /// `default`.
    Rules {
        rules: Vec<Rule>,
        #[serde(default = "default_rules_reply")]
        default: String,
    },
}

/// One rule of [`ReplyMode::Rules`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// Text the last user message must contain.
    pub contains: String,
    /// When true, the last user message must end with `contains` (trailing whitespace aside):
    /// auto-CoT's steps request ends with `Evaluation Steps:`, a "+cot" rating prompt only
    /// contains it.
    #[serde(default)]
    pub at_end: bool,
    /// When set, only requests for this model match.
    #[serde(default)]
    pub model: Option<String>,
    pub reply: String,
}

fn default_rules_reply() -> String {
    "No rule matched this prompt.".into()
}

/// The content of the last user message of a chat body (OpenAI or Anthropic shape; Anthropic
/// content blocks are joined).
pub fn last_user_message(body: &Value) -> String {
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return String::new();
    };
    let content = messages
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|m| m.get("content"));
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The reply [`ReplyMode::Rules`] gives `body`: the first matching rule's, else `default`.
pub fn rules_reply(rules: &[Rule], default: &str, body: &Value) -> String {
    rule_reply(rules, body).unwrap_or_else(|| default.to_owned())
}

/// The reply of the first rule matching `body` (its text in the last user message, its model
/// if it names one), if any.
pub fn rule_reply(rules: &[Rule], body: &Value) -> Option<String> {
    let last = last_user_message(body);
    let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
    rules
        .iter()
        .find(|r| {
            let found = if r.at_end {
                last.trim_end().ends_with(r.contains.trim_end())
            } else {
                last.contains(r.contains.as_str())
            };
            found && r.model.as_deref().is_none_or(|m| m == model)
        })
        .map(|r| r.reply.clone())
}

fn default_length_cap() -> usize {
    4000
}

fn default_marker() -> String {
    "RATING=".into()
}

/// A failure the mock can inject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Failure {
    /// 429 with `retry-after`.
    RateLimited,
    /// 500.
    ServerError,
    /// 529 `overloaded_error`.
    Overloaded,
    /// Read the request, then close the connection without answering.
    Drop,
    /// Send the headers and half of the body, then close.
    Truncate,
    /// 429 without any header saying how long to wait.
    RateLimitedBare,
    /// 502 with a proxy's HTML page as the body.
    BadGateway,
    /// 503 `service_unavailable`.
    Unavailable,
    /// Read the request and never answer: the connection stays open until the client gives up
    /// (its timeout) and closes it.
    Hang,
    /// A complete 200 answer whose JSON is broken (full length, not cut short).
    MalformedJson,
}

/// A 429 storm: every chat request within `ms` of the start (or the last reset) is refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Storm {
    pub ms: u64,
    /// `retry-after` sent with the storm's 429s, in seconds; none when absent.
    #[serde(default)]
    pub retry_after_s: Option<u64>,
}

/// One scripted response, served to the next chat request in order before anything else.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scripted {
    pub status: u16,
    #[serde(default)]
    pub body: Value,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
}

/// What the mock does; every field has a default, so `{}` is a valid scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scenario {
    /// Delay before each chat answer.
    pub latency_ms: u64,
    pub reply: ReplyMode,
    /// Reply text; `{rating}` is replaced by the rating.
    pub template: String,
    /// Rating scale (also the logprob alternatives).
    pub scale_min: i64,
    pub scale_max: i64,
    /// Model ids `/v1/models` lists.
    pub models: Vec<String>,
    /// When false, `n > 1` gets llama-server's 400 "Only one completion choice is allowed".
    pub supports_n: bool,
    /// Body fields answered with OpenAI's 400 `unsupported_parameter` (e.g. `["logprobs"]`).
    pub reject_params: Vec<String>,
    /// When set, requests must carry this key (`Authorization: Bearer` or `x-api-key`).
    pub require_key: Option<String>,
    /// Accepted requests per window; more get 429 with `retry-after`.
    pub rpm_limit: Option<u32>,
    /// The rate window; 60 000 ms ("per minute") unless a test wants it shorter.
    pub rate_window_ms: u64,
    /// `retry-after` sent with injected 429s, in seconds.
    pub retry_after_s: u64,
    /// Fraction of chat requests that fail, chosen deterministically from `seed`.
    pub failure_rate: f64,
    /// Which failures to inject, picked deterministically among these.
    pub failures: Vec<Failure>,
    pub seed: u64,
    /// Responses served first, in order, to chat requests.
    pub script: Vec<Scripted>,
    /// Refuse every chat request for a while (after the script, before anything else).
    pub storm: Option<Storm>,
    /// Answer `connection: close` and close after every chat answer. With keep-alive, Chromium
    /// silently resends a request once when a reused connection is dropped, so a page only
    /// sees a dropped connection when it was a fresh one.
    pub close_connections: bool,
    /// A known bias: prompts containing this text get these points added to their rating
    /// (clamped to the scale), e.g. +1 when the length probe's filler is in the prompt.
    pub bonus: Option<Bonus>,
    /// Answers longer than the request's `max_tokens` (4 characters a token) are cut there
    /// and end with `finish_reason: "length"` (Anthropic: `stop_reason: "max_tokens"`), as a
    /// provider does.
    pub cut_at_max_tokens: bool,
    /// The batch APIs' timing, expiry and per-line errors (see [`batch`]).
    pub batch: BatchScenario,
    /// A reasoning model: every OpenAI-shaped answer first spends this many tokens thinking,
    /// within the request's token limit (`usage.completion_tokens_details.reasoning_tokens`);
    /// what is left of the limit bounds the answer (none left: an empty answer cut off with
    /// `finish_reason: length`).
    pub reasoning_tokens: u64,
    /// OpenRouter's usage accounting: every OpenAI-shaped answer reports what it cost
    /// (`usage.cost`, USD).
    pub usage_cost: Option<f64>,
    /// Rules tried before the reply mode (as [`ReplyMode::Rules`]' rules): a matching one
    /// gives the reply, anything else is answered by `reply` — e.g. scripted auto-CoT steps
    /// while ratings still come from `echo_rating` or `hash_rating`.
    pub before: Vec<Rule>,
    /// A real provider to play (see [`providers`]): what it refuses and in which words, how it
    /// answers, thinks and bills.
    pub provider: Option<Personality>,
    /// The context window in tokens of a personality that has a small one
    /// (`llamacpp-small-ctx`: 512 unless set).
    pub context_tokens: Option<u64>,
    /// `anthropic-4.5`: after this many answers, every request gets Anthropic's 400 "Your
    /// credit balance is too low…".
    pub credit_after: Option<u64>,
}

/// [`Scenario::bonus`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bonus {
    pub contains: String,
    pub points: i64,
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            latency_ms: 0,
            reply: ReplyMode::HashRating { length_cap: default_length_cap() },
            template: "Rating: {rating}".into(),
            scale_min: 1,
            scale_max: 5,
            models: vec!["mock-model".into()],
            supports_n: true,
            reject_params: Vec::new(),
            require_key: None,
            rpm_limit: None,
            rate_window_ms: 60_000,
            retry_after_s: 1,
            failure_rate: 0.0,
            failures: vec![Failure::RateLimited, Failure::ServerError, Failure::Drop],
            seed: 0,
            script: Vec::new(),
            storm: None,
            close_connections: false,
            bonus: None,
            cut_at_max_tokens: false,
            batch: BatchScenario::default(),
            reasoning_tokens: 0,
            usage_cost: None,
            before: Vec::new(),
            provider: None,
            context_tokens: None,
            credit_after: None,
        }
    }
}

/// One logged request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub seq: u64,
    /// Milliseconds since the server started (or was reset).
    pub t_ms: u64,
    pub method: String,
    pub path: String,
    /// The samples this request asked for (see the module docs).
    pub samples: Vec<String>,
    /// HTTP status sent; 0 when the connection was dropped or left hanging.
    pub status: u16,
    /// `ok`, `rate_limited`, `server_error`, `overloaded`, `dropped`, `truncated`,
    /// `bad_gateway`, `unavailable`, `hung` (never answered), `malformed`, `unauthorized`, `bad_request`, `scripted`, `not_found`, `client_gone` (the client closed
    /// the connection before the answer was sent).
    pub outcome: String,
    /// Whether a complete successful answer was sent.
    pub answered_ok: bool,
}

/// Figures over the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub total: usize,
    pub answered_ok: usize,
    pub failed: usize,
    /// Samples answered successfully more than once.
    pub duplicate_successes: Vec<String>,
    /// Successful chat answers per minute between the first and last request.
    pub ok_per_minute: f64,
}

struct State {
    scenario: Scenario,
    log: Vec<Record>,
    started: Instant,
    /// Accepted chat requests within the rate window.
    window: VecDeque<Instant>,
    /// Times each request key was seen, for deterministic failure choice.
    seen: HashMap<String, u64>,
    script_pos: usize,
    seq: u64,
    /// Uploaded and generated files (batch input, output and error files) by id.
    files: HashMap<String, String>,
    file_seq: u64,
    batches: Vec<batch::MockBatch>,
    batch_seq: u64,
    /// When the first batch since the scenario was set arrived: other jobs' batches
    /// (`batch.enqueued_elsewhere`) are in progress then and end `batch.elsewhere_ms` later.
    elsewhere_since: Option<Instant>,
}

struct Shared {
    state: Mutex<State>,
    stop: AtomicBool,
    /// While set, chat answers wait before being sent (`/__mock/hold`, `/__mock/release`): a
    /// test can reload the page while requests are certainly in flight.
    hold: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking handler thread must not take the whole mock down with it.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A running mock; dropping it stops the listener.
pub struct MockHandle {
    port: u16,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

// The in-process API is for tests (`xtask/tests/mock_llm.rs`); the command only serves.
#[allow(dead_code)]
impl MockHandle {
    /// The bound port (useful with port 0).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Replaces the scenario (the log is kept).
    pub fn set_scenario(&self, scenario: Scenario) {
        let mut state = self.shared.lock();
        state.scenario = scenario;
        state.script_pos = 0;
    }

    /// A copy of the request log.
    pub fn requests(&self) -> Vec<Record> {
        self.shared.lock().log.clone()
    }

    /// Figures over the log.
    pub fn summary(&self) -> Summary {
        summarize(&self.shared.lock().log)
    }

    /// Stops accepting connections and waits for the listener thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept() so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }

    /// Blocks until the listener stops (it only does through [`MockHandle::stop`]).
    pub fn wait(mut self) {
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for MockHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Starts the mock on 127.0.0.1:`port` (0 picks a free port) in background threads.
pub fn spawn(port: u16, scenario: Scenario) -> Result<MockHandle, String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            scenario,
            log: Vec::new(),
            started: Instant::now(),
            window: VecDeque::new(),
            seen: HashMap::new(),
            script_pos: 0,
            seq: 0,
            files: HashMap::new(),
            file_seq: 0,
            batches: Vec::new(),
            batch_seq: 0,
            elsewhere_since: None,
        }),
        stop: AtomicBool::new(false),
        hold: AtomicBool::new(false),
    });
    let accept_shared = Arc::clone(&shared);
    let accept = thread::Builder::new()
        .name("mock-llm-accept".into())
        .spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let conn_shared = Arc::clone(&accept_shared);
                let _ = thread::Builder::new()
                    .name("mock-llm-conn".into())
                    .spawn(move || serve_connection(stream, &conn_shared));
            }
        })
        .map_err(|e| format!("cannot start the listener thread: {e}"))?;
    Ok(MockHandle { port, shared, accept: Some(accept) })
}

const USAGE: &str = "cargo xtask mock-llm --port P [--scenario FILE] [--provider NAME]\n  \
    NAME: gemini-2.5, gemini-3, deepseek, anthropic-4.5, openrouter-byok, together-legacy, llamacpp-small-ctx";

/// `cargo xtask mock-llm --port P [--scenario FILE] [--provider NAME]`: serves until killed.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut port: Option<u16> = None;
    let mut scenario = Scenario::default();
    let mut provider = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value = || iter.next().ok_or(format!("{arg} needs a value\nusage: {USAGE}"));
        match arg.as_str() {
            "--port" => {
                let v = value()?;
                port = Some(v.parse().map_err(|_| format!("--port: `{v}` is not a port number"))?);
            }
            "--scenario" => {
                let path = value()?;
                let text =
                    std::fs::read_to_string(path).map_err(|e| format!("--scenario {path}: {e}"))?;
                scenario =
                    serde_json::from_str(&text).map_err(|e| format!("--scenario {path}: {e}"))?;
            }
            "--provider" => {
                let name = value()?;
                provider =
                    Some(Personality::from_name(name).ok_or(format!(
                        "--provider: unknown personality `{name}`\nusage: {USAGE}"
                    ))?);
            }
            other => return Err(format!("unknown argument `{other}`\nusage: {USAGE}")),
        }
    }
    let port = port.ok_or(format!("--port is required\nusage: {USAGE}"))?;
    if provider.is_some() {
        scenario.provider = provider;
    }
    let handle = spawn(port, scenario)?;
    println!("mock-llm listening on {}", handle.base_url());
    let _ = std::io::stdout().flush();
    handle.wait();
    Ok(())
}

/// A parsed HTTP/1.1 request.
struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

const MAX_BODY: usize = 32 * 1024 * 1024;

/// Reads one request; `None` at end of stream or on garbage (the connection is then closed).
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_ascii_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.push((k.trim().to_string(), v.trim().to_string()));
        if headers.len() > 200 {
            return None;
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return None;
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, headers, body })
}

/// What to send back.
enum Reply {
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    Drop,
    Truncate {
        status: u16,
        body: String,
    },
    /// Say nothing until the client goes away.
    Hang,
}

fn serve_connection(stream: TcpStream, shared: &Shared) {
    // An idle keep-alive connection is closed after a while so threads do not pile up.
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(write_half) = stream.try_clone() else { return };
    let mut writer = write_half;
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let origin = request.header("origin").unwrap_or("*").to_string();
        let (reply, delay, seq) = handle(&request, shared);
        if !delay.is_zero() {
            thread::sleep(delay);
        }
        if matches!(reply, Reply::Hang) {
            // Bounded: a client without a timeout is let go after ten minutes.
            let until = Instant::now() + Duration::from_secs(600);
            while !client_gone(reader.get_ref())
                && !shared.stop.load(Ordering::SeqCst)
                && Instant::now() < until
            {
                thread::sleep(Duration::from_millis(20));
            }
            break;
        }
        while seq.is_some()
            && shared.hold.load(Ordering::SeqCst)
            && !shared.stop.load(Ordering::SeqCst)
        {
            thread::sleep(Duration::from_millis(10));
        }
        // A client that went away while the answer was being "generated" never receives it:
        // log it as such, so the duplicate check counts only answers that were delivered.
        if let Some(seq) = seq
            && client_gone(reader.get_ref())
        {
            let mut state = shared.lock();
            if let Some(r) = state.log.iter_mut().rev().find(|r| r.seq == seq) {
                r.answered_ok = false;
                r.outcome = "client_gone".into();
            }
            break;
        }
        let client_closes =
            request.header("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"));
        // A scenario may close every chat connection after its answer (no keep-alive reuse).
        let scenario_closes = seq.is_some() && shared.lock().scenario.close_connections;
        let keep_alive = !client_closes && !scenario_closes;
        let ok = match reply {
            Reply::Full { status, headers, body } => {
                write_response(&mut writer, status, &headers, &body, &origin, keep_alive, None)
            }
            Reply::Truncate { status, body } => {
                let cut = body.len() / 2;
                let _ = write_response(&mut writer, status, &[], &body, &origin, false, Some(cut));
                false
            }
            Reply::Drop | Reply::Hang => false,
        };
        if !ok || !keep_alive {
            break;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

const EXPOSED: &str = "retry-after, retry-after-ms, x-ratelimit-limit-requests, \
    x-ratelimit-remaining-requests, x-ratelimit-reset-requests, x-ratelimit-limit-tokens, \
    x-ratelimit-remaining-tokens, x-ratelimit-reset-tokens";

fn write_response(
    w: &mut TcpStream,
    status: u16,
    headers: &[(String, String)],
    body: &str,
    origin: &str,
    keep_alive: bool,
    cut_at: Option<usize>,
) -> bool {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    head.push_str(&format!("access-control-allow-origin: {origin}\r\n"));
    head.push_str("vary: origin\r\n");
    head.push_str(&format!("access-control-expose-headers: {EXPOSED}\r\n"));
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let typed = headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
    if !typed && (!body.is_empty() || status != 204) {
        head.push_str("content-type: application/json\r\n");
    }
    head.push_str(&format!("content-length: {}\r\n", body.len()));
    head.push_str(if keep_alive {
        "connection: keep-alive\r\n\r\n"
    } else {
        "connection: close\r\n\r\n"
    });
    let payload = match cut_at {
        Some(cut) => &body.as_bytes()[..cut.min(body.len())],
        None => body.as_bytes(),
    };
    // One write, so the head and body usually travel together.
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(payload);
    w.write_all(&bytes).is_ok() && w.flush().is_ok()
}

/// FNV-1a, 64 bit: a tiny hash that is the same on every platform and Rust version.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // Separate parts so ("ab","c") and ("a","bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn unit(h: u64) -> f64 {
    (h >> 11) as f64 / (1u64 << 53) as f64
}

fn json_reply(status: u16, body: Value) -> Reply {
    Reply::Full { status, headers: Vec::new(), body: body.to_string() }
}

/// The reply, how long to wait before sending it, and the log sequence number of a chat call
/// (so the sender can correct the record when the client is gone by then).
fn handle(req: &Request, shared: &Shared) -> (Reply, Duration, Option<u64>) {
    let path = req.path.split('?').next().unwrap_or("");
    if req.method == "OPTIONS" {
        let mut headers = vec![
            ("access-control-allow-methods".to_string(), "GET, POST, OPTIONS".to_string()),
            (
                "access-control-allow-headers".to_string(),
                "authorization, content-type, x-api-key, anthropic-version, \
                 anthropic-dangerous-direct-browser-access, x-goog-api-key"
                    .to_string(),
            ),
            ("access-control-max-age".to_string(), "600".to_string()),
        ];
        if req.header("access-control-request-private-network").is_some() {
            headers.push(("access-control-allow-private-network".into(), "true".into()));
        }
        return (Reply::Full { status: 204, headers, body: String::new() }, Duration::ZERO, None);
    }
    let mut state = shared.lock();
    // A CORS proxy in front of the API: `/proxy/v1/…` is served as `/v1/…`.
    let path = path.strip_prefix("/proxy").unwrap_or(path);
    if let Some(reply) = batch::route(req, &mut state, path) {
        return (reply, Duration::ZERO, None);
    }
    // Gemini's native API: `POST {base}/models/{model}:generateContent`, `GET {base}/models`.
    if req.method == "POST"
        && let Some((_, rest)) = path.split_once("/models/")
        && let Some(model) = rest.strip_suffix(":generateContent")
    {
        let latency = Duration::from_millis(state.scenario.latency_ms);
        let reply = gemini_chat(req, &mut state, model);
        return (reply, latency, Some(state.seq));
    }
    if req.method == "GET"
        && path.ends_with("/models")
        && providers::is_gemini(state.scenario.provider)
    {
        let models: Vec<Value> = state
            .scenario
            .models
            .iter()
            .map(|m| json!({"name": format!("models/{m}"), "displayName": m, "supportedGenerationMethods": ["generateContent"]}))
            .collect();
        return (json_reply(200, json!({"models": models})), Duration::ZERO, None);
    }
    let reply = match (req.method.as_str(), path) {
        ("POST", "/__mock/scenario") => match serde_json::from_slice::<Scenario>(&req.body) {
            Ok(scenario) => {
                state.scenario = scenario;
                state.script_pos = 0;
                state.elsewhere_since = None;
                json_reply(200, json!({"ok": true}))
            }
            Err(e) => json_reply(400, json!({"error": {"message": format!("bad scenario: {e}")}})),
        },
        ("GET", "/__mock/requests") => {
            json_reply(200, json!({"requests": state.log, "summary": summarize(&state.log)}))
        }
        ("GET", "/__mock/summary") => json_reply(200, json!(summarize(&state.log))),
        ("POST", "/__mock/hold") => {
            shared.hold.store(true, Ordering::SeqCst);
            json_reply(200, json!({"ok": true}))
        }
        ("POST", "/__mock/release") => {
            shared.hold.store(false, Ordering::SeqCst);
            json_reply(200, json!({"ok": true}))
        }
        ("POST", "/__mock/reset") => {
            shared.hold.store(false, Ordering::SeqCst);
            state.log.clear();
            state.window.clear();
            state.seen.clear();
            state.script_pos = 0;
            state.seq = 0;
            state.started = Instant::now();
            json_reply(200, json!({"ok": true}))
        }
        ("GET", "/v1/models") | ("GET", "/models") => {
            if let Some(denied) = check_key(req, &state.scenario, false) {
                denied
            } else {
                let data: Vec<Value> = state
                    .scenario
                    .models
                    .iter()
                    .map(|m| json!({"id": m, "object": "model", "owned_by": "mock"}))
                    .collect();
                json_reply(200, json!({"object": "list", "data": data}))
            }
        }
        ("POST", "/v1/chat/completions") | ("POST", "/chat/completions") => {
            let latency = Duration::from_millis(state.scenario.latency_ms);
            let reply = chat(req, &mut state, false);
            return (reply, latency, Some(state.seq));
        }
        ("POST", "/v1/messages") | ("POST", "/messages") => {
            let latency = Duration::from_millis(state.scenario.latency_ms);
            let reply = chat(req, &mut state, true);
            return (reply, latency, Some(state.seq));
        }
        _ => json_reply(
            404,
            json!({"error": {"message": format!("no route for {} {path}", req.method), "type": "not_found"}}),
        ),
    };
    (reply, Duration::ZERO, None)
}

/// Whether the client has closed its side of the connection (a reloaded or closed page
/// aborts its fetches): a non-blocking peek that reads end-of-stream.
fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let mut byte = [0u8; 1];
    let gone = matches!(stream.peek(&mut byte), Ok(0));
    let _ = stream.set_nonblocking(false);
    gone
}

fn check_key(req: &Request, scenario: &Scenario, anthropic: bool) -> Option<Reply> {
    let wanted = scenario.require_key.as_deref()?;
    let given = if anthropic {
        req.header("x-api-key").map(str::to_string)
    } else {
        req.header("authorization").map(|v| v.trim_start_matches("Bearer ").to_string())
    };
    if given.as_deref() == Some(wanted) {
        return None;
    }
    Some(if anthropic {
        json_reply(
            401,
            json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        )
    } else {
        json_reply(
            401,
            json!({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
        )
    })
}

fn error_body(anthropic: bool, kind: &str, message: &str) -> Value {
    if anthropic {
        json!({"type": "error", "error": {"type": kind, "message": message}})
    } else {
        json!({"error": {"message": message, "type": kind, "code": kind}})
    }
}

/// The text a rating is derived from: every message's content, in order.
fn prompt_text(body: &Value, anthropic: bool) -> String {
    let mut text = String::new();
    if anthropic && let Some(system) = body.get("system").and_then(Value::as_str) {
        text.push_str(system);
        text.push('\n');
    }
    if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        for m in messages {
            if let Some(c) = m.get("content").and_then(Value::as_str) {
                text.push_str(c);
                text.push('\n');
            }
        }
    }
    text
}

/// A chat body's sample count, seed, sample names (see the module docs) and request key.
fn sample_ids(
    body: &Value,
    messages_hash: u64,
    anthropic: bool,
) -> (u64, Option<u64>, Vec<String>, String) {
    let n = if anthropic { 1 } else { body.get("n").and_then(Value::as_u64).unwrap_or(1).max(1) };
    let seed = body.get("seed").and_then(Value::as_u64);
    // A sample is the same sample only for the same messages asked with the same model and
    // answer-changing parameters (a method and its "+weighted" twin share their prompt text but
    // are different requests, each paid once).
    let params: Vec<String> = [
        "model",
        "logprobs",
        "top_logprobs",
        "response_format",
        "tool_choice",
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
    ]
    .iter()
    .map(|k| body.get(*k).map_or_else(String::new, Value::to_string))
    .collect();
    let identity = fnv(&[&messages_hash.to_le_bytes(), params.join("\u{1f}").as_bytes()]);
    let samples = (0..n)
        .map(|i| match seed {
            Some(s) => format!("{identity:016x}:{}", s + i),
            None => format!("{identity:016x}:-{i}"),
        })
        .collect();
    let request_key = format!("{messages_hash:016x}:{}:{n}", seed.map_or(-1, |s| s as i64));
    (n, seed, samples, request_key)
}

fn chat(req: &Request, state: &mut State, anthropic: bool) -> Reply {
    let now = Instant::now();
    let t_ms = now.duration_since(state.started).as_millis() as u64;
    state.seq += 1;
    let seq = state.seq;
    let mut record = Record {
        seq,
        t_ms,
        method: req.method.clone(),
        path: req.path.clone(),
        samples: Vec::new(),
        status: 0,
        outcome: String::new(),
        answered_ok: false,
    };
    let body: Value = match serde_json::from_slice(&req.body) {
        Ok(v) => v,
        Err(e) => {
            record.status = 400;
            record.outcome = "bad_request".into();
            state.log.push(record);
            return json_reply(
                400,
                error_body(anthropic, "invalid_request_error", &format!("invalid JSON body: {e}")),
            );
        }
    };
    let prompt = prompt_text(&body, anthropic);
    let messages_hash = fnv(&[prompt.as_bytes()]);
    let (n, seed, samples, request_key) = sample_ids(&body, messages_hash, anthropic);
    record.samples = samples;
    let scenario = state.scenario.clone();

    let finish =
        |state: &mut State, mut record: Record, status: u16, outcome: &str, reply: Reply| {
            record.status = if matches!(reply, Reply::Drop | Reply::Hang) { 0 } else { status };
            record.outcome = outcome.to_string();
            record.answered_ok = outcome == "ok";
            state.log.push(record);
            reply
        };

    if let Some(scripted) = scenario.script.get(state.script_pos) {
        state.script_pos += 1;
        let reply = Reply::Full {
            status: scripted.status,
            headers: scripted.headers.clone(),
            body: scripted.body.to_string(),
        };
        return finish(state, record, scripted.status, "scripted", reply);
    }
    if let Some(denied) = check_key(req, &scenario, anthropic) {
        return finish(state, record, 401, "unauthorized", denied);
    }
    if let Some(storm) = &scenario.storm
        && t_ms < storm.ms
    {
        let headers = storm
            .retry_after_s
            .map(|s| vec![("retry-after".to_string(), s.to_string())])
            .unwrap_or_default();
        let kind = if anthropic { "rate_limit_error" } else { "rate_limit_exceeded" };
        let reply = Reply::Full {
            status: 429,
            headers,
            body: error_body(anthropic, kind, "Rate limit reached (storm)").to_string(),
        };
        return finish(state, record, 429, "rate_limited", reply);
    }
    if let Some(limit) = scenario.rpm_limit {
        let window = Duration::from_millis(scenario.rate_window_ms.max(1));
        while state.window.front().is_some_and(|&t| now.duration_since(t) >= window) {
            state.window.pop_front();
        }
        if state.window.len() >= limit as usize {
            let oldest = state.window.front().copied().unwrap_or(now);
            let wait = window.saturating_sub(now.duration_since(oldest));
            let secs = wait.as_millis().div_ceil(1000).max(1);
            let headers = vec![
                ("retry-after".to_string(), secs.to_string()),
                ("x-ratelimit-limit-requests".to_string(), limit.to_string()),
                ("x-ratelimit-remaining-requests".to_string(), "0".to_string()),
                ("x-ratelimit-reset-requests".to_string(), format!("{}ms", wait.as_millis())),
            ];
            let kind = if anthropic { "rate_limit_error" } else { "rate_limit_exceeded" };
            let reply = Reply::Full {
                status: 429,
                headers,
                body: error_body(anthropic, kind, "Rate limit reached for requests").to_string(),
            };
            return finish(state, record, 429, "rate_limited", reply);
        }
        state.window.push_back(now);
    }
    let occurrence = {
        let count = state.seen.entry(request_key.clone()).or_insert(0);
        *count += 1;
        *count
    };
    let fate =
        fnv(&[&scenario.seed.to_le_bytes(), request_key.as_bytes(), &occurrence.to_le_bytes()]);
    if unit(fate) < scenario.failure_rate && !scenario.failures.is_empty() {
        let pick = fnv(&[&fate.to_le_bytes()]) as usize % scenario.failures.len();
        let failure = scenario.failures[pick];
        return match failure {
            Failure::RateLimited => {
                let headers = vec![("retry-after".to_string(), scenario.retry_after_s.to_string())];
                let kind = if anthropic { "rate_limit_error" } else { "rate_limit_exceeded" };
                let reply = Reply::Full {
                    status: 429,
                    headers,
                    body: error_body(anthropic, kind, "Rate limit reached (injected)").to_string(),
                };
                finish(state, record, 429, "rate_limited", reply)
            }
            Failure::ServerError => {
                let reply = json_reply(
                    500,
                    error_body(anthropic, "server_error", "The server had an error (injected)"),
                );
                finish(state, record, 500, "server_error", reply)
            }
            Failure::Overloaded => {
                let reply = json_reply(
                    529,
                    error_body(anthropic, "overloaded_error", "Overloaded (injected)"),
                );
                finish(state, record, 529, "overloaded", reply)
            }
            Failure::Drop => finish(state, record, 0, "dropped", Reply::Drop),
            Failure::RateLimitedBare => {
                let kind = if anthropic { "rate_limit_error" } else { "rate_limit_exceeded" };
                let reply = json_reply(
                    429,
                    error_body(anthropic, kind, "Rate limit reached (injected, no retry-after)"),
                );
                finish(state, record, 429, "rate_limited", reply)
            }
            Failure::BadGateway => {
                let reply = Reply::Full {
                    status: 502,
                    headers: vec![("content-type".into(), "text/html".into())],
                    body: "<html><head><title>502 Bad Gateway</title></head><body>\
                           <center><h1>502 Bad Gateway</h1></center></body></html>"
                        .into(),
                };
                finish(state, record, 502, "bad_gateway", reply)
            }
            Failure::Unavailable => {
                let reply = json_reply(
                    503,
                    error_body(
                        anthropic,
                        "service_unavailable",
                        "The service is temporarily unavailable (injected)",
                    ),
                );
                finish(state, record, 503, "unavailable", reply)
            }
            Failure::Hang => finish(state, record, 0, "hung", Reply::Hang),
            Failure::MalformedJson => {
                let full =
                    success_body(&scenario, &body, &prompt, messages_hash, seed, n, anthropic);
                // Complete, but the closing brace became a comma: no JSON parser accepts it.
                let broken = format!("{},", &full[..full.len().saturating_sub(1)]);
                let reply = Reply::Full { status: 200, headers: Vec::new(), body: broken };
                finish(state, record, 200, "malformed", reply)
            }
            Failure::Truncate => {
                let full =
                    success_body(&scenario, &body, &prompt, messages_hash, seed, n, anthropic);
                finish(state, record, 200, "truncated", Reply::Truncate { status: 200, body: full })
            }
        };
    }
    let answered = state.log.iter().filter(|r| r.answered_ok).count() as u64;
    match answer(&scenario, &body, &prompt, messages_hash, seed, n, anthropic, answered) {
        Ok(full) => finish(
            state,
            record,
            200,
            "ok",
            Reply::Full { status: 200, headers: Vec::new(), body: full },
        ),
        Err((status, refusal)) => {
            let outcome = if status == 200 { "blocked" } else { "bad_request" };
            finish(state, record, status, outcome, json_reply(status, refusal))
        }
    }
}

/// The answer to a chat body (the interactive endpoint's and a batch line's): the success body,
/// or what the scenario refuses — `n` where it is not supported, `reject_params`, and the
/// personality's refusals in its own words — as (status, body). `answered` counts the answers
/// given so far.
#[allow(clippy::too_many_arguments)]
fn answer(
    scenario: &Scenario,
    body: &Value,
    prompt: &str,
    messages_hash: u64,
    seed: Option<u64>,
    n: u64,
    anthropic: bool,
    answered: u64,
) -> Result<String, (u16, Value)> {
    let prompt_tokens = prompt.chars().count().div_ceil(4) as u64;
    let mut scenario = scenario.clone();
    if let Some(p) = scenario.provider {
        if let Some(refusal) = providers::refuse(
            p,
            body,
            prompt,
            prompt_tokens,
            scenario.context_tokens,
            scenario.credit_after,
            answered,
        ) {
            return Err(refusal);
        }
        if providers::is_gemini(Some(p)) && prompt.contains("[[blocked]]") {
            let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
            return Err((200, providers::gemini_blocked(prompt_tokens, model)));
        }
        if let Some(t) = providers::thoughts(p, body) {
            scenario.reasoning_tokens = t;
        }
    }
    if !anthropic {
        if n > 1 && !scenario.supports_n {
            return Err((
                400,
                json!({"error": {"message": "Only one completion choice is allowed", "type": "invalid_request_error"}}),
            ));
        }
        if let Some(param) = scenario.reject_params.iter().find(|p| body.get(p.as_str()).is_some())
        {
            return Err((
                400,
                json!({"error": {
                "message": format!("Unsupported parameter: '{param}' is not supported with this model."),
                "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}}),
            ));
        }
    }
    // JSON mode (`json_object`): the schema is the prompt's to state.
    let mut body = body.clone();
    if body.pointer("/response_format/type").and_then(Value::as_str) == Some("json_object")
        && let Some(schema) = providers::schema_in_prompt(prompt)
    {
        body["response_format"] = json!({"type": "json_schema", "json_schema": {"schema": schema}});
    }
    let full = success_body(&scenario, &body, prompt, messages_hash, seed, n, anthropic);
    Ok(match scenario.provider {
        Some(p) => {
            let mut value: Value = serde_json::from_str(&full).unwrap_or(Value::Null);
            providers::shape(p, &body, &mut value);
            value.to_string()
        }
        None => full,
    })
}

/// Gemini's `generateContent`: the body read into the mock's OpenAI-like form, answered as a
/// chat call is (failures, personality, rating), and the answer or error written in Gemini's
/// shapes.
fn gemini_chat(req: &Request, state: &mut State, model: &str) -> Reply {
    let model = percent_decode(model);
    let body: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
    let translated = providers::from_gemini(&model, &body);
    let inner = Request {
        method: req.method.clone(),
        path: req.path.clone(),
        // Gemini's key header stands in for a bearer token in the key check.
        headers: req
            .headers
            .iter()
            .map(|(k, v)| {
                if k.eq_ignore_ascii_case("x-goog-api-key") {
                    ("authorization".to_owned(), format!("Bearer {v}"))
                } else {
                    (k.clone(), v.clone())
                }
            })
            .collect(),
        body: translated.to_string().into_bytes(),
    };
    match chat(&inner, state, false) {
        Reply::Full { status, headers, body } if status == 200 => {
            let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let out = if value.get("promptFeedback").is_some() {
                value
            } else {
                providers::to_gemini(&value)
            };
            Reply::Full { status, headers, body: out.to_string() }
        }
        Reply::Full { status, headers, body } => {
            Reply::Full { status, headers, body: providers::error_to_gemini(status, &body) }
        }
        Reply::Truncate { status, body } => {
            let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            Reply::Truncate { status, body: providers::to_gemini(&value).to_string() }
        }
        other => other,
    }
}

/// A model id from a URL path segment (`%2F` and friends decoded).
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&segment[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The rating for one sample (see [`ReplyMode`]); `None` when echo mode finds no marker.
fn rating(scenario: &Scenario, prompt: &str, messages_hash: u64, sample: u64) -> Option<i64> {
    let (lo, hi) = (scenario.scale_min, scenario.scale_max.max(scenario.scale_min));
    let plain = plain_rating(scenario, prompt, messages_hash, sample)?;
    Some(match &scenario.bonus {
        Some(b) if prompt.contains(b.contains.as_str()) => (plain + b.points).clamp(lo, hi),
        _ => plain,
    })
}

/// [`rating`] before the scenario's bonus.
fn plain_rating(scenario: &Scenario, prompt: &str, messages_hash: u64, sample: u64) -> Option<i64> {
    let (lo, hi) = (scenario.scale_min, scenario.scale_max.max(scenario.scale_min));
    let span = (hi - lo) as f64;
    match &scenario.reply {
        ReplyMode::Canned { .. } | ReplyMode::Rules { .. } => None,
        ReplyMode::HashRating { length_cap } => {
            let len = prompt.chars().count().min((*length_cap).max(1)) as f64;
            let len_unit = len / (*length_cap).max(1) as f64;
            let hash_unit = unit(messages_hash);
            let noise = match fnv(&[&messages_hash.to_le_bytes(), &sample.to_le_bytes()]) % 4 {
                0 => -1.0,
                3 => 1.0,
                _ => 0.0,
            };
            let raw = lo as f64 + span * (0.6 * len_unit + 0.4 * hash_unit) + noise;
            Some((raw.round() as i64).clamp(lo, hi))
        }
        ReplyMode::EchoRating { noisy_when: Some(text), .. } if prompt.contains(text.as_str()) => {
            let h = fnv(&[&messages_hash.to_le_bytes(), &sample.to_le_bytes()]);
            Some(lo + (h % (hi - lo + 1).max(1) as u64) as i64)
        }
        ReplyMode::EchoRating { marker, .. } => {
            let at = prompt.find(marker.as_str())? + marker.len();
            let digits: String = prompt[at..]
                .chars()
                .skip_while(|c| c.is_whitespace())
                .take_while(|c| c.is_ascii_digit() || *c == '-')
                .collect();
            digits.parse().ok()
        }
    }
}

/// The schema a request asks the answer to follow: OpenAI-style `response_format`, or an
/// Anthropic forced tool's `input_schema`.
fn requested_schema(body: &Value) -> Option<&Value> {
    body.pointer("/response_format/json_schema/schema").or_else(|| {
        body.pointer("/tools/0/input_schema").filter(|_| body.get("tool_choice").is_some())
    })
}

/// A structured answer following `schema`: the rating under `rating`, a short text in every
/// other required field.
fn structured_text(schema: &Value, rating: Option<i64>) -> String {
    let mut out = serde_json::Map::new();
    for field in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
        let Some(name) = field.as_str() else { continue };
        let value = if name == "rating" {
            rating.map_or(Value::Null, |r| json!(r))
        } else {
            json!(format!("The {name} of the mock judge."))
        };
        out.insert(name.to_owned(), value);
    }
    Value::Object(out).to_string()
}

fn reply_text(scenario: &Scenario, body: &Value, rating: Option<i64>) -> String {
    if let Some(reply) = rule_reply(&scenario.before, body) {
        return reply;
    }
    if let Some(schema) = requested_schema(body)
        && matches!(scenario.reply, ReplyMode::HashRating { .. } | ReplyMode::EchoRating { .. })
    {
        return structured_text(schema, rating);
    }
    match (&scenario.reply, rating) {
        (ReplyMode::Canned { text }, _) => text.clone(),
        (ReplyMode::Rules { rules, default }, _) => rules_reply(rules, default, body),
        (_, Some(r)) => scenario.template.replace("{rating}", &r.to_string()),
        (_, None) => "I cannot rate this.".to_string(),
    }
}

/// OpenAI-shaped logprobs for `text`: the rating token carries alternatives over the scale,
/// peaked at the rating; other tokens are certain.
fn logprobs_for(scenario: &Scenario, text: &str, rating: Option<i64>, top: usize) -> Value {
    let rating_str = rating.map(|r| r.to_string());
    let pos = rating_str.as_deref().and_then(|r| text.rfind(r));
    let mut tokens: Vec<(String, bool)> = Vec::new();
    match (pos, rating_str.as_deref()) {
        (Some(p), Some(r)) => {
            if p > 0 {
                tokens.push((text[..p].to_string(), false));
            }
            tokens.push((r.to_string(), true));
            if p + r.len() < text.len() {
                tokens.push((text[p + r.len()..].to_string(), false));
            }
        }
        _ => tokens.push((text.to_string(), false)),
    }
    let content: Vec<Value> = tokens
        .into_iter()
        .map(|(token, is_rating)| {
            if let (true, Some(r)) = (is_rating, rating) {
                let mut alts: Vec<(i64, f64)> = (scenario.scale_min..=scenario.scale_max)
                    .map(|s| (s, -1.5 * (s - r).abs() as f64))
                    .collect();
                let norm = alts.iter().map(|(_, l)| l.exp()).sum::<f64>().ln();
                for a in &mut alts {
                    a.1 -= norm;
                }
                alts.sort_by(|a, b| b.1.total_cmp(&a.1));
                let logprob = alts.iter().find(|a| a.0 == r).map_or(0.0, |a| a.1);
                let top_list: Vec<Value> = alts
                    .iter()
                    .take(top)
                    .map(|(s, l)| json!({"token": s.to_string(), "logprob": l, "bytes": s.to_string().into_bytes()}))
                    .collect();
                json!({"token": token, "logprob": logprob, "bytes": token.as_bytes(), "top_logprobs": top_list})
            } else {
                // Near-certain, as a real model's are (never exactly 0).
                let top_list = if top > 0 { vec![json!({"token": token, "logprob": -0.0001})] } else { Vec::new() };
                json!({"token": token, "logprob": -0.0001, "bytes": token.as_bytes(), "top_logprobs": top_list})
            }
        })
        .collect();
    json!({"content": content})
}

/// `text` as the provider sends it under the request's token limit, and whether it was cut.
fn within_limit(scenario: &Scenario, body: &Value, text: String) -> (String, bool) {
    let limit = ["max_tokens", "max_completion_tokens"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_u64));
    match limit {
        Some(l) if scenario.cut_at_max_tokens && text.chars().count() as u64 > l * 4 => {
            (text.chars().take((l * 4) as usize).collect(), true)
        }
        _ => (text, false),
    }
}

/// What OpenAI bills a chat body's input: each message's content, three tokens framing it and
/// its role's one, then three priming the reply (OpenAI's "How to count tokens").
fn openai_prompt_tokens(bpe: &tiktoken_rs::CoreBPE, body: &Value) -> u64 {
    let messages = body.get("messages").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let content =
        |m: &Value| m.get("content").and_then(Value::as_str).unwrap_or_default().to_owned();
    messages.iter().map(|m| bpe.encode_ordinary(&content(m)).len() as u64 + 4).sum::<u64>() + 3
}

/// The o200k_base encoding for the OpenAI-style requests to a model named `gpt-4o…`, which
/// the mock bills as OpenAI does (every other prompt at four characters a token).
fn o200k_billed(model: &str, anthropic: bool) -> Option<&'static tiktoken_rs::CoreBPE> {
    static O200K: std::sync::OnceLock<Option<tiktoken_rs::CoreBPE>> = std::sync::OnceLock::new();
    if anthropic || !model.starts_with("gpt-4o") {
        return None;
    }
    O200K.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

fn success_body(
    scenario: &Scenario,
    body: &Value,
    prompt: &str,
    messages_hash: u64,
    seed: Option<u64>,
    n: u64,
    anthropic: bool,
) -> String {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("mock-model");
    let prompt_tokens = match o200k_billed(model, anthropic) {
        Some(bpe) => openai_prompt_tokens(bpe, body),
        None => prompt.chars().count().div_ceil(4) as u64,
    };
    let first = seed.unwrap_or(0);
    if anthropic {
        let r = rating(scenario, prompt, messages_hash, first);
        let (text, cut) = within_limit(scenario, body, reply_text(scenario, body, r));
        let out_tokens = text.chars().count().div_ceil(4) as u64;
        // A forced tool: the answer is the tool's input.
        let forced = requested_schema(body).is_some() && !cut;
        let content = match serde_json::from_str::<Value>(&text) {
            Ok(input) if forced => {
                json!([{"type": "tool_use", "id": format!("toolu_mock_{messages_hash:016x}"),
                "name": body.pointer("/tool_choice/name").cloned().unwrap_or(Value::Null), "input": input}])
            }
            _ => json!([{"type": "text", "text": text}]),
        };
        return json!({
            "id": format!("msg_mock_{messages_hash:016x}"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": if cut { "max_tokens" } else if forced { "tool_use" } else { "end_turn" },
            "stop_sequence": null,
            "usage": {"input_tokens": prompt_tokens, "output_tokens": out_tokens},
        })
        .to_string();
    }
    let want_logprobs = body.get("logprobs").and_then(Value::as_bool) == Some(true);
    let top = body.get("top_logprobs").and_then(Value::as_u64).unwrap_or(0).min(20) as usize;
    let mut completion_tokens = 0;
    let mut reasoning_tokens = 0;
    let limit = ["max_tokens", "max_completion_tokens"]
        .iter()
        .find_map(|k| body.get(*k).and_then(Value::as_u64));
    let choices: Vec<Value> = (0..n)
        .map(|i| {
            let r = rating(scenario, prompt, messages_hash, first + i);
            let (text, cut) = if scenario.reasoning_tokens > 0 {
                // Thinking first, within the limit; the answer gets what is left.
                let thought =
                    limit.map_or(scenario.reasoning_tokens, |l| scenario.reasoning_tokens.min(l));
                reasoning_tokens += thought;
                completion_tokens += thought;
                let full = reply_text(scenario, body, r);
                match limit.map(|l| l - thought) {
                    Some(left) if (full.chars().count() as u64) > left * 4 => {
                        (full.chars().take((left * 4) as usize).collect(), true)
                    }
                    _ => (full, false),
                }
            } else {
                within_limit(scenario, body, reply_text(scenario, body, r))
            };
            completion_tokens += text.chars().count().div_ceil(4) as u64;
            let logprobs =
                if want_logprobs { logprobs_for(scenario, &text, r, top) } else { Value::Null };
            json!({
                "index": i,
                "message": {"role": "assistant", "content": text},
                "logprobs": logprobs,
                "finish_reason": if cut { "length" } else { "stop" },
            })
        })
        .collect();
    json!({
        "id": format!("chatcmpl-mock-{messages_hash:016x}"),
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "cost": scenario.usage_cost,
        },
    })
    .to_string()
}

fn summarize(log: &[Record]) -> Summary {
    let mut ok_counts: HashMap<&str, u32> = HashMap::new();
    let mut answered_ok = 0;
    let mut chat_times = Vec::new();
    for r in log {
        chat_times.push(r.t_ms);
        if r.answered_ok {
            answered_ok += 1;
            for s in &r.samples {
                *ok_counts.entry(s.as_str()).or_insert(0) += 1;
            }
        }
    }
    let mut duplicate_successes: Vec<String> =
        ok_counts.into_iter().filter(|(_, c)| *c > 1).map(|(s, _)| s.to_string()).collect();
    duplicate_successes.sort();
    let span_ms = match (chat_times.iter().min(), chat_times.iter().max()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64,
        _ => 0.0,
    };
    let ok_per_minute = if span_ms > 0.0 { answered_ok as f64 * 60_000.0 / span_ms } else { 0.0 };
    Summary {
        total: log.len(),
        answered_ok,
        failed: log.len() - answered_ok,
        duplicate_successes,
        ok_per_minute,
    }
}
