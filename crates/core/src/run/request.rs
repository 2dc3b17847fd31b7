//! Building HTTP request values from provider-independent [`ChatRequest`]s.
//!
//! The browser edge sends the [`HttpRequest`] as is: only `Content-Type` and the provider's
//! auth headers are set, because any extra header (SDKs add `x-stainless-*`) can make a CORS
//! preflight fail. The API key only ever goes into a header, never into the URL.

use serde_json::{Map, Value, json};

use crate::judge::{ChatRequest, Role};
use crate::run::provider::{
    Api, Capabilities, Endpoint, Param, SampleBatch, SchemaFlavor, Thinking,
};

/// HTTP method of a built request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    /// `"GET"` or `"POST"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// A request value for the edge to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// JSON text; empty for GET.
    pub body: String,
}

/// A built chat call: the request plus what was adjusted on the way, for the run log.
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltCall {
    pub http: HttpRequest,
    /// The samples this call draws (several when the provider supports `n`).
    pub samples: SampleBatch,
    /// Human-readable notes: parameters omitted or clamped, and why.
    pub notes: Vec<String>,
}

/// Why a request could not be built.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// The request has no messages.
    NoMessages,
    /// The model name is empty.
    NoModel,
    /// The base URL is not `http://` or `https://`.
    BadBaseUrl { url: String },
    /// A key is required by this provider but none was given.
    MissingKey { provider: String },
    /// The provider cannot take this conversation (e.g. only system messages for Anthropic).
    Unsupported { what: String },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::NoMessages => write!(f, "the request has no messages"),
            BuildError::NoModel => write!(f, "no model is selected"),
            BuildError::BadBaseUrl { url } => {
                write!(f, "base URL `{url}` must start with http:// or https://")
            }
            BuildError::MissingKey { provider } => {
                write!(f, "{provider} needs an API key; enter it in the provider settings")
            }
            BuildError::Unsupported { what } => write!(f, "unsupported request: {what}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The forced tool an Anthropic request for structured output carries; its input is the answer.
pub const ANTHROPIC_RATING_TOOL: &str = "record_rating";

/// Anthropic requires `max_tokens`; this is what we send when the request leaves it open.
pub const ANTHROPIC_DEFAULT_MAX_TOKENS: u32 = 1024;

/// Options that are not part of the judging request itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallOptions {
    /// Send `seed = sample index` where the provider takes a seed. This makes each sample a
    /// distinct, reproducible request (and lets the mock server tell samples apart).
    pub seed_from_sample: bool,
}

impl Default for CallOptions {
    fn default() -> CallOptions {
        CallOptions { seed_from_sample: true }
    }
}

/// Builds the chat call for `samples` of `req`.
///
/// `samples.count > 1` is only honoured when `caps` allow `n`; [`crate::run::sample_batches`]
/// produces batches that respect this.
pub fn build_chat(
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    samples: SampleBatch,
    api_key: &str,
    options: CallOptions,
) -> Result<BuiltCall, BuildError> {
    if req.messages.is_empty() {
        return Err(BuildError::NoMessages);
    }
    if endpoint.model.trim().is_empty() {
        return Err(BuildError::NoModel);
    }
    let base = endpoint.normalized_base_url();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(BuildError::BadBaseUrl { url: endpoint.base_url.clone() });
    }
    let preset = endpoint.provider.preset();
    if preset.needs_key && api_key.trim().is_empty() {
        return Err(BuildError::MissingKey { provider: preset.name.to_string() });
    }
    let mut notes = Vec::new();
    let count = if caps.allows(Param::N) { samples.count.min(caps.max_n).max(1) } else { 1 };
    let samples = SampleBatch { first: samples.first, count };
    let sampling = Sampling::resolve(caps, req, &mut notes);
    let seed = (options.seed_from_sample && caps.allows(Param::Seed)).then_some(samples.first);
    let http = match endpoint.provider.api() {
        Api::OpenAiCompatible => {
            openai_body(&base, endpoint, caps, req, &sampling, count, seed, api_key)
        }
        Api::Anthropic => {
            anthropic_body(&base, endpoint, caps, req, &sampling, api_key, &mut notes)?
        }
        Api::Gemini => gemini_body(&base, endpoint, caps, req, &sampling, count, seed, api_key),
    };
    Ok(BuiltCall { http, samples, notes })
}

/// The sampling parameters that survive the capability table.
struct Sampling {
    temperature: Option<f64>,
    top_p: Option<f64>,
    top_logprobs: Option<u8>,
    /// The JSON schema to ask for, when the request has one and the API takes it.
    schema: Option<Value>,
}

impl Sampling {
    fn resolve(caps: &Capabilities, req: &ChatRequest, notes: &mut Vec<String>) -> Sampling {
        let why = |caps: &Capabilities, p: Param| {
            if caps.dropped.contains(&p) {
                "the API rejected it earlier in this run"
            } else if caps.fixed_sampling && matches!(p, Param::Temperature | Param::TopP) {
                "this reasoning model only takes the default"
            } else if caps.reasoning && p == Param::Logprobs {
                "reasoning models do not return them"
            } else {
                "this provider does not support it"
            }
        };
        let temperature = match req.temperature {
            Some(t) if caps.allows(Param::Temperature) => {
                let (lo, hi) = caps.temperature_range;
                let clamped = t.clamp(lo, hi);
                if clamped != t {
                    notes.push(format!("temperature {t} clamped to {clamped} (range {lo}–{hi})"));
                }
                Some(clamped)
            }
            Some(t) => {
                notes.push(format!("temperature {t} not sent: {}", why(caps, Param::Temperature)));
                None
            }
            None => None,
        };
        let top_p = match req.top_p {
            // Parameters the model refuses together (Claude 4.5+: temperature and top_p): the
            // second is not sent, as a known incompatibility, never as a refused call.
            Some(p)
                if temperature.is_some()
                    && caps.exclusive.contains(&(Param::Temperature, Param::TopP)) =>
            {
                notes.push(format!(
                    "top_p {p} not sent: {} takes temperature or top_p, not both",
                    caps.profile
                ));
                None
            }
            Some(p) if caps.allows(Param::TopP) => Some(p),
            Some(p) => {
                notes.push(format!("top_p {p} not sent: {}", why(caps, Param::TopP)));
                None
            }
            None => None,
        };
        let top_logprobs = match req.logprobs {
            Some(k) if caps.allows(Param::Logprobs) => {
                let max = caps.max_top_logprobs.unwrap_or(0);
                if k > max {
                    notes.push(format!("top_logprobs {k} lowered to the provider's maximum {max}"));
                }
                Some(k.min(max))
            }
            Some(_) => {
                notes.push(format!("logprobs not requested: {}", why(caps, Param::Logprobs)));
                None
            }
            None => None,
        };
        let schema = match &req.schema {
            Some(s) if caps.allows(Param::ResponseFormat) => Some(s.clone()),
            Some(_) => {
                notes.push(format!(
                    "structured output not requested: {}",
                    why(caps, Param::ResponseFormat)
                ));
                None
            }
            None => None,
        };
        Sampling { temperature, top_p, top_logprobs, schema }
    }
}

fn json_headers(auth: Option<(&str, String)>) -> Vec<(String, String)> {
    let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
    if let Some((name, value)) = auth {
        headers.push((name.to_string(), value));
    }
    headers
}

fn put_f64(map: &mut Map<String, Value>, key: &str, value: Option<f64>) {
    if let Some(v) = value.and_then(serde_json::Number::from_f64) {
        map.insert(key.to_string(), Value::Number(v));
    }
}

#[allow(clippy::too_many_arguments)]
fn openai_body(
    base: &str,
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    sampling: &Sampling,
    count: u32,
    seed: Option<u32>,
    api_key: &str,
) -> HttpRequest {
    let mut body = Map::new();
    body.insert("model".into(), json!(endpoint.model));
    let mut messages: Vec<Value> =
        req.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
    // JSON mode takes no schema: the prompt states it (and must say "JSON" for the API to
    // accept the mode).
    if let (Some(schema), SchemaFlavor::JsonObject) = (&sampling.schema, caps.schema)
        && let Some(last) = messages.iter_mut().rev().find(|m| m["role"] == "user")
    {
        let text = last["content"].as_str().unwrap_or_default().to_owned();
        last["content"] = json!(format!(
            "{text}\n\nAnswer with a JSON object that follows this JSON schema: {schema}"
        ));
    }
    body.insert("messages".into(), Value::Array(messages));
    put_f64(&mut body, "temperature", sampling.temperature);
    put_f64(&mut body, "top_p", sampling.top_p);
    if count > 1 {
        body.insert("n".into(), json!(count));
    }
    if let Some(max) = req.max_tokens.filter(|_| caps.allows(Param::MaxTokens)) {
        // OpenAI's reasoning models reject `max_tokens`; the newer name also counts reasoning
        // tokens.
        let name = if caps.fixed_sampling { "max_completion_tokens" } else { "max_tokens" };
        body.insert(name.into(), json!(max));
    }
    if let Some(k) = sampling.top_logprobs {
        body.insert("logprobs".into(), json!(true));
        body.insert("top_logprobs".into(), json!(k));
    }
    if let Some(seed) = seed {
        body.insert("seed".into(), json!(seed));
    }
    if !req.stop.is_empty() && caps.allows(Param::Stop) {
        body.insert("stop".into(), json!(req.stop));
    }
    if let Some(schema) = &sampling.schema {
        let format = match caps.schema {
            // DeepSeek takes JSON mode only (its json_schema answer is 400 "This
            // response_format type is unavailable now"): the "+json" prompts name the fields.
            SchemaFlavor::JsonObject => json!({"type": "json_object"}),
            _ => {
                json!({"type": "json_schema", "json_schema": {"name": "rating", "strict": true, "schema": schema}})
            }
        };
        body.insert("response_format".into(), format);
    }
    let auth = (!api_key.trim().is_empty())
        .then(|| ("authorization", format!("Bearer {}", api_key.trim())));
    HttpRequest {
        method: Method::Post,
        url: format!("{base}/chat/completions"),
        headers: json_headers(auth),
        body: Value::Object(body).to_string(),
    }
}

/// Headers every Anthropic call carries.
fn anthropic_headers(api_key: &str) -> Vec<(String, String)> {
    let mut headers = json_headers(Some(("x-api-key", api_key.trim().to_string())));
    headers.push(("anthropic-version".into(), "2023-06-01".into()));
    // Without it the API refuses browser calls with a 401 (LLM_PROVIDERS.md §1).
    headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
    headers
}

fn anthropic_body(
    base: &str,
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    sampling: &Sampling,
    api_key: &str,
    notes: &mut Vec<String>,
) -> Result<HttpRequest, BuildError> {
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let messages: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| json!({"role": m.role, "content": m.content}))
        .collect();
    if messages.is_empty() {
        return Err(BuildError::Unsupported {
            what: "Anthropic needs at least one user message besides the system prompt".into(),
        });
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(endpoint.model));
    let max_tokens = req.max_tokens.unwrap_or_else(|| {
        notes.push(format!(
            "max_tokens set to {ANTHROPIC_DEFAULT_MAX_TOKENS} (Anthropic requires it)"
        ));
        ANTHROPIC_DEFAULT_MAX_TOKENS
    });
    body.insert("max_tokens".into(), json!(max_tokens));
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert("messages".into(), Value::Array(messages));
    put_f64(&mut body, "temperature", sampling.temperature);
    put_f64(&mut body, "top_p", sampling.top_p);
    if !req.stop.is_empty() && caps.allows(Param::Stop) {
        body.insert("stop_sequences".into(), json!(req.stop));
    }
    // Anthropic has no response format: a tool with the schema as its input, forced.
    if let Some(schema) = &sampling.schema {
        body.insert(
            "tools".into(),
            json!([{"name": ANTHROPIC_RATING_TOOL, "description": "Record the rating (and what the prompt asks to explain).", "input_schema": schema}]),
        );
        body.insert("tool_choice".into(), json!({"type": "tool", "name": ANTHROPIC_RATING_TOOL}));
    }
    Ok(HttpRequest {
        method: Method::Post,
        url: format!("{base}/messages"),
        headers: anthropic_headers(api_key),
        body: Value::Object(body).to_string(),
    })
}

#[allow(clippy::too_many_arguments)]
fn gemini_body(
    base: &str,
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    sampling: &Sampling,
    count: u32,
    seed: Option<u32>,
    api_key: &str,
) -> HttpRequest {
    let system: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| json!({"text": m.content}))
        .collect();
    let contents: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| {
            let role = if m.role == Role::Assistant { "model" } else { "user" };
            json!({"role": role, "parts": [{"text": m.content}]})
        })
        .collect();
    let mut config = Map::new();
    put_f64(&mut config, "temperature", sampling.temperature);
    put_f64(&mut config, "topP", sampling.top_p);
    if count > 1 {
        config.insert("candidateCount".into(), json!(count));
    }
    if let Some(max) = req.max_tokens.filter(|_| caps.allows(Param::MaxTokens)) {
        config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(k) = sampling.top_logprobs {
        config.insert("responseLogprobs".into(), json!(true));
        config.insert("logprobs".into(), json!(k));
    }
    if let Some(seed) = seed {
        config.insert("seed".into(), json!(seed));
    }
    if !req.stop.is_empty() && caps.allows(Param::Stop) {
        config.insert("stopSequences".into(), json!(req.stop));
    }
    if let Some(schema) = &sampling.schema {
        config.insert("responseMimeType".into(), json!("application/json"));
        config.insert("responseJsonSchema".into(), schema.clone());
    }
    // Gemini 2.5 Flash and Flash-Lite think by default, within maxOutputTokens: a judge's short
    // budget would go to thinking and the answer come back empty. Off, as the model allows.
    if caps.thinking == Thinking::GeminiBudgetOff {
        config.insert("thinkingConfig".into(), json!({"thinkingBudget": 0}));
    }
    // Turned on by the user: dynamic thinking (`-1`, "the model decides how much to think",
    // ai.google.dev/gemini-api/docs/thinking), within maxOutputTokens and billed as output.
    if caps.thinking == Thinking::GeminiOn {
        config.insert("thinkingConfig".into(), json!({"thinkingBudget": -1}));
    }
    let mut body = Map::new();
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": system}));
    }
    body.insert("contents".into(), Value::Array(contents));
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    HttpRequest {
        method: Method::Post,
        url: format!(
            "{base}/models/{}:generateContent",
            encode_path_segment(endpoint.model.trim().trim_start_matches("models/"))
        ),
        headers: json_headers(Some(("x-goog-api-key", api_key.trim().to_string()))),
        body: Value::Object(body).to_string(),
    }
}

/// Builds the "list models" request used by Test connection.
pub fn build_list_models(endpoint: &Endpoint, api_key: &str) -> Result<HttpRequest, BuildError> {
    let base = endpoint.normalized_base_url();
    if !(base.starts_with("http://") || base.starts_with("https://")) {
        return Err(BuildError::BadBaseUrl { url: endpoint.base_url.clone() });
    }
    let preset = endpoint.provider.preset();
    if preset.needs_key && api_key.trim().is_empty() {
        return Err(BuildError::MissingKey { provider: preset.name.to_string() });
    }
    let headers = match endpoint.provider.api() {
        Api::OpenAiCompatible => {
            // No content-type on a GET: a simple header set keeps the preflight minimal.
            if api_key.trim().is_empty() {
                Vec::new()
            } else {
                vec![("authorization".into(), format!("Bearer {}", api_key.trim()))]
            }
        }
        Api::Anthropic => {
            let mut h = anthropic_headers(api_key);
            h.retain(|(name, _)| name != "content-type");
            h
        }
        Api::Gemini => vec![("x-goog-api-key".into(), api_key.trim().to_string())],
    };
    Ok(HttpRequest {
        method: Method::Get,
        url: format!("{base}/models"),
        headers,
        body: String::new(),
    })
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so a model id can never
/// change the URL's structure.
fn encode_path_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.trim().bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
