//! The mock's provider personalities (`cargo xtask mock-llm --provider NAME`, or the
//! scenario's `"provider"` field): each plays one real provider as its documentation, SDKs and
//! issue threads show it — what it refuses and in which words, the shape of its answers, how it
//! thinks and what it bills. Every body below cites where it comes from (`docs/providers.md`
//! lists the same sources).
//!
//! | name | plays | refuses (their words) | answers |
//! |---|---|---|---|
//! | `gemini-2.5` | Gemini 2.5 Flash, native `generateContent` | `responseLogprobs` | thinks unless `thinkingBudget: 0`, within `maxOutputTokens` |
//! | `gemini-3` | Gemini 3, native | `candidateCount` > 1, `responseLogprobs`, `thinkingBudget: 0` | always thinks |
//! | `deepseek` | DeepSeek chat / reasoner | `json_schema` response format | `json_object`; the reasoner's `reasoning_content`; ignores `n` |
//! | `anthropic-4.5` | Claude Sonnet 4.5, Messages API | temperature with top_p; out of credit after `credit_after` answers | |
//! | `openrouter-byok` | OpenRouter with your own key | | `usage.cost` = the fee, `is_byok`, `cost_details.upstream_inference_cost` |
//! | `together-legacy` | Together AI | | log-probabilities in the legacy `{tokens, token_logprobs, top_logprobs}` shape |
//! | `llamacpp-small-ctx` | llama.cpp's `llama-server -c 512` | `n` > 1; prompts over the context | |
//!
//! A prompt longer than Gemini's million-token window cannot be sent in a test: a prompt
//! containing `[[too long]]` stands for one (answered with Gemini's own 400), and one containing
//! `[[blocked]]` for a prompt Gemini's safety filter blocks. These markers are the mock's
//! stand-ins; the bodies answered are the provider's.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A provider personality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Personality {
    #[serde(rename = "gemini-2.5")]
    Gemini25,
    #[serde(rename = "gemini-3")]
    Gemini3,
    #[serde(rename = "deepseek")]
    DeepSeek,
    #[serde(rename = "anthropic-4.5")]
    Anthropic45,
    #[serde(rename = "openrouter-byok")]
    OpenRouterByok,
    #[serde(rename = "together-legacy")]
    TogetherLegacy,
    #[serde(rename = "llamacpp-small-ctx")]
    LlamaCppSmallCtx,
}

impl Personality {
    pub const ALL: [Personality; 7] = [
        Personality::Gemini25,
        Personality::Gemini3,
        Personality::DeepSeek,
        Personality::Anthropic45,
        Personality::OpenRouterByok,
        Personality::TogetherLegacy,
        Personality::LlamaCppSmallCtx,
    ];

    /// Its name on the command line and in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Personality::Gemini25 => "gemini-2.5",
            Personality::Gemini3 => "gemini-3",
            Personality::DeepSeek => "deepseek",
            Personality::Anthropic45 => "anthropic-4.5",
            Personality::OpenRouterByok => "openrouter-byok",
            Personality::TogetherLegacy => "together-legacy",
            Personality::LlamaCppSmallCtx => "llamacpp-small-ctx",
        }
    }

    pub fn from_name(name: &str) -> Option<Personality> {
        Personality::ALL.into_iter().find(|p| p.name() == name)
    }

    fn gemini(self) -> bool {
        matches!(self, Personality::Gemini25 | Personality::Gemini3)
    }
}

/// Tokens a Gemini model thinks when thinking is on (its dynamic budget spends about this much
/// on a short rating prompt; the figure only has to exceed a judge's short Max tokens).
pub const GEMINI_THOUGHTS: u64 = 300;
/// The context of `llamacpp-small-ctx` when the scenario sets none (`llama-server -c 512`).
pub const SMALL_CTX: u64 = 512;

/// Gemini's error body: `{"error": {"code", "message", "status"}}` (the google.rpc.Status JSON
/// every Gemini error has; e.g. googleapis/python-genai's errors carry `code`, `message` and
/// `status`).
pub fn gemini_error(code: u16, message: &str, status: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": status}})
}

/// What the personality refuses in this request (already in the OpenAI-like form the mock
/// works on: a Gemini request translated by [`from_gemini`]), as (status, body), or `None`.
/// `prompt_tokens` is the prompt's size; `answered` how many answers the mock gave so far.
pub fn refuse(
    p: Personality,
    body: &Value,
    prompt: &str,
    prompt_tokens: u64,
    context_tokens: Option<u64>,
    credit_after: Option<u64>,
    answered: u64,
) -> Option<(u16, Value)> {
    let model = body.get("model").and_then(Value::as_str).unwrap_or("model");
    let n = body.get("n").and_then(Value::as_u64).unwrap_or(1);
    let logprobs = body.get("logprobs").and_then(Value::as_bool) == Some(true);
    match p {
        Personality::Gemini25 | Personality::Gemini3 => {
            if prompt.contains("[[too long]]") {
                // Gemini's overflow words, as public clients quote them (e.g. "The input token
                // count (1196265) exceeds the maximum number of tokens allowed (1048575)").
                return Some((
                    400,
                    gemini_error(
                        400,
                        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
                        "INVALID_ARGUMENT",
                    ),
                ));
            }
            if p == Personality::Gemini3 && n > 1 {
                // Quoted in several public projects' notes (2025–2026).
                return Some((
                    400,
                    gemini_error(
                        400,
                        "Multiple candidates is not enabled for this model",
                        "INVALID_ARGUMENT",
                    ),
                ));
            }
            if logprobs {
                // googleapis/python-genai generate_content tests: "Logprobs is not enabled for
                // models/gemini-2.5-flash"; Gemini 3: "… for this model".
                let message = if p == Personality::Gemini25 {
                    format!("Logprobs is not enabled for models/{model}")
                } else {
                    "Logprobs is not enabled for this model".to_owned()
                };
                return Some((400, gemini_error(400, &message, "INVALID_ARGUMENT")));
            }
            if p == Personality::Gemini3
                && body.get("thinking_budget").and_then(Value::as_u64) == Some(0)
            {
                // The 400 public projects record for thinking-only models.
                return Some((
                    400,
                    gemini_error(
                        400,
                        "Budget 0 is invalid. This model only works in thinking mode.",
                        "INVALID_ARGUMENT",
                    ),
                ));
            }
            None
        }
        Personality::DeepSeek => {
            let format = body.pointer("/response_format/type").and_then(Value::as_str);
            if format == Some("json_schema") {
                // As BerriAI/litellm reports DeepSeek's answer.
                return Some((
                    400,
                    json!({"error": {"message": "This response_format type is unavailable now",
                        "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}}),
                ));
            }
            None
        }
        Personality::Anthropic45 => {
            if body.get("temperature").is_some() && body.get("top_p").is_some() {
                // api.anthropic.com's 400 for Claude 4.5, as probes quoted in public code show.
                return Some((
                    400,
                    json!({"type": "error", "error": {"type": "invalid_request_error",
                        "message": "`temperature` and `top_p` cannot both be specified for this model. Please use only one."}}),
                ));
            }
            if credit_after.is_some_and(|limit| answered >= limit) {
                // The out-of-credit 400 as logged by public projects (with its request id).
                return Some((
                    400,
                    json!({"type": "error", "error": {"type": "invalid_request_error",
                        "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},
                        "request_id": "req_011CZuM6Bor5yyzq7jPyabr6"}),
                ));
            }
            None
        }
        Personality::LlamaCppSmallCtx => {
            let n_ctx = context_tokens.unwrap_or(SMALL_CTX);
            if prompt_tokens >= n_ctx {
                // ggml-org/llama.cpp tools/server: `exceed_context_size_error`.
                return Some((
                    400,
                    json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                        "type": "exceed_context_size_error", "n_prompt_tokens": prompt_tokens, "n_ctx": n_ctx}}),
                ));
            }
            if n > 1 {
                // llama-server: "Only one completion choice is allowed".
                return Some((
                    400,
                    json!({"error": {"code": 400, "message": "Only one completion choice is allowed",
                        "type": "invalid_request_error"}}),
                ));
            }
            None
        }
        Personality::OpenRouterByok | Personality::TogetherLegacy => None,
    }
}

/// A Gemini prompt the safety filter blocks: HTTP 200, `promptFeedback.blockReason`, no
/// candidates (the shape public Gemini clients test against).
pub fn gemini_blocked(prompt_tokens: u64, model: &str) -> Value {
    json!({
        "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": [
            {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}]},
        "usageMetadata": {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens},
        "modelVersion": model,
    })
}

/// The reasoning tokens the personality spends a sample before answering (within the token
/// limit for Gemini), or `None` to keep the scenario's.
pub fn thoughts(p: Personality, body: &Value) -> Option<u64> {
    match p {
        Personality::Gemini25 => {
            Some(if body.get("thinking_budget").and_then(Value::as_u64) == Some(0) {
                0
            } else {
                GEMINI_THOUGHTS
            })
        }
        Personality::Gemini3 => Some(GEMINI_THOUGHTS),
        _ => None,
    }
}

/// A Gemini `generateContent` body in the OpenAI-like form the mock works on: system
/// instruction and contents as messages, `candidateCount` as `n`, `maxOutputTokens`,
/// `responseLogprobs`/`logprobs`, `seed`, the JSON schema, and `thinkingConfig.thinkingBudget`
/// as `thinking_budget`.
pub fn from_gemini(model: &str, body: &Value) -> Value {
    let mut messages = Vec::new();
    if let Some(parts) = body.pointer("/systemInstruction/parts").and_then(Value::as_array) {
        let text: String =
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
        messages.push(json!({"role": "system", "content": text}));
    }
    for c in body.get("contents").and_then(Value::as_array).into_iter().flatten() {
        let role = if c.get("role").and_then(Value::as_str) == Some("model") {
            "assistant"
        } else {
            "user"
        };
        let text: String = c
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect();
        messages.push(json!({"role": role, "content": text}));
    }
    let config = body.get("generationConfig").cloned().unwrap_or(Value::Null);
    let mut out = json!({"model": model, "messages": messages});
    let set = |out: &mut Value, key: &str, v: Option<&Value>| {
        if let Some(v) = v.filter(|v| !v.is_null()) {
            out[key] = v.clone();
        }
    };
    set(&mut out, "n", config.get("candidateCount"));
    set(&mut out, "max_tokens", config.get("maxOutputTokens"));
    set(&mut out, "seed", config.get("seed"));
    set(&mut out, "temperature", config.get("temperature"));
    set(&mut out, "top_p", config.get("topP"));
    set(&mut out, "thinking_budget", config.pointer("/thinkingConfig/thinkingBudget"));
    if config.get("responseLogprobs").and_then(Value::as_bool) == Some(true) {
        out["logprobs"] = json!(true);
        set(&mut out, "top_logprobs", config.get("logprobs"));
    }
    if let Some(schema) = config.get("responseJsonSchema").or_else(|| config.get("responseSchema"))
    {
        out["response_format"] = json!({"type": "json_schema", "json_schema": {"schema": schema}});
    }
    out
}

/// An OpenAI-shaped success body as Gemini answers it: candidates with parts, `MAX_TOKENS` for a
/// cut answer, `logprobsResult`, and `usageMetadata` counting thoughts apart from candidates.
pub fn to_gemini(answer: &Value) -> Value {
    let candidates: Vec<Value> = answer
        .get("choices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let text = c.pointer("/message/content").and_then(Value::as_str).unwrap_or_default();
            let finish = if c.get("finish_reason").and_then(Value::as_str) == Some("length") { "MAX_TOKENS" } else { "STOP" };
            // An answer starved by thinking has no text part at all.
            let parts = if text.is_empty() { json!([]) } else { json!([{"text": text}]) };
            let mut cand = json!({"content": {"parts": parts, "role": "model"}, "finishReason": finish, "index": i});
            if let Some(content) = c.pointer("/logprobs/content").and_then(Value::as_array) {
                let chosen: Vec<Value> = content
                    .iter()
                    .map(|t| json!({"token": t["token"], "logProbability": t["logprob"]}))
                    .collect();
                let tops: Vec<Value> = content
                    .iter()
                    .map(|t| {
                        let alts: Vec<Value> = t["top_logprobs"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .map(|a| json!({"token": a["token"], "logProbability": a["logprob"]}))
                            .collect();
                        json!({"candidates": alts})
                    })
                    .collect();
                cand["logprobsResult"] = json!({"chosenCandidates": chosen, "topCandidates": tops});
            }
            cand
        })
        .collect();
    let u = |k: &str| answer.pointer(&format!("/usage/{k}")).and_then(Value::as_u64).unwrap_or(0);
    let thoughts = answer
        .pointer("/usage/completion_tokens_details/reasoning_tokens")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let candidates_tokens = u("completion_tokens").saturating_sub(thoughts);
    let mut usage = json!({"promptTokenCount": u("prompt_tokens"), "candidatesTokenCount": candidates_tokens,
        "totalTokenCount": u("prompt_tokens") + candidates_tokens + thoughts});
    if thoughts > 0 {
        usage["thoughtsTokenCount"] = json!(thoughts);
    }
    json!({"candidates": candidates, "usageMetadata": usage, "modelVersion": answer["model"], "responseId": answer["id"]})
}

/// An OpenAI-shaped error body of the mock's injected failures in Gemini's shape.
pub fn error_to_gemini(status: u16, body: &str) -> String {
    let value: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if value.pointer("/error/status").is_some() || value.get("promptFeedback").is_some() {
        return body.to_owned();
    }
    let message = value.pointer("/error/message").and_then(Value::as_str).unwrap_or(body);
    let kind = match status {
        429 => "RESOURCE_EXHAUSTED",
        500 => "INTERNAL",
        503 => "UNAVAILABLE",
        401 | 403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        _ => "INVALID_ARGUMENT",
    };
    gemini_error(status, message, kind).to_string()
}

/// The personality's finishing touches on an OpenAI-shaped success body.
pub fn shape(p: Personality, body: &Value, answer: &mut Value) {
    match p {
        Personality::DeepSeek => {
            // `n` is not honoured (unverified: docs/providers.md): one choice.
            if let Some(choices) = answer.get_mut("choices").and_then(Value::as_array_mut) {
                choices.truncate(1);
                // Log-probabilities are accepted but come back as placeholders (0 or -9999,
                // microsoft/PyRIT#991, a third-party report).
                for c in choices.iter_mut() {
                    if let Some(tokens) =
                        c.pointer_mut("/logprobs/content").and_then(Value::as_array_mut)
                    {
                        for t in tokens {
                            t["logprob"] = json!(-9999.0);
                            t["top_logprobs"] = json!([]);
                        }
                    }
                }
            }
            let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
            if model.contains("reasoner") {
                // DeepSeek's reasoning-model guide: the chain of thought in `reasoning_content`,
                // counted in `completion_tokens_details.reasoning_tokens`.
                let thought = "Let me weigh the criteria first.";
                if let Some(choices) = answer.get_mut("choices").and_then(Value::as_array_mut) {
                    for c in choices {
                        c["message"]["reasoning_content"] = json!(thought);
                    }
                }
                let extra = 120;
                let completion =
                    answer.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0);
                answer["usage"]["completion_tokens"] = json!(completion + extra);
                answer["usage"]["completion_tokens_details"] = json!({"reasoning_tokens": extra});
                let prompt =
                    answer.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
                answer["usage"]["total_tokens"] = json!(prompt + completion + extra);
            }
        }
        Personality::OpenRouterByok => {
            // OpenRouter's usage accounting with your own key: `cost` is OpenRouter's fee (5 %
            // of what the upstream bills here), `is_byok`, and the upstream's charge in
            // `cost_details.upstream_inference_cost` (field names as OpenRouter responses show
            // them; the BYOK split per OpenRouter's usage-accounting page).
            let prompt =
                answer.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
            let completion =
                answer.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0);
            let upstream_prompt = prompt as f64 * 0.15e-6;
            let upstream_completion = completion as f64 * 0.6e-6;
            let upstream = upstream_prompt + upstream_completion;
            answer["usage"]["cost"] = json!(upstream * 0.05);
            answer["usage"]["is_byok"] = json!(true);
            answer["usage"]["cost_details"] = json!({"upstream_inference_cost": upstream,
                "upstream_inference_prompt_cost": upstream_prompt, "upstream_inference_completions_cost": upstream_completion});
            // `n` is not honoured by most upstreams: one choice.
            if let Some(choices) = answer.get_mut("choices").and_then(Value::as_array_mut) {
                choices.truncate(1);
            }
        }
        Personality::TogetherLegacy => {
            // The legacy completions shape: parallel `tokens` / `token_logprobs`, and
            // `top_logprobs` as one object per token (issue 35; OpenAI's legacy completions).
            if let Some(choices) = answer.get_mut("choices").and_then(Value::as_array_mut) {
                for c in choices {
                    let Some(content) =
                        c.pointer("/logprobs/content").and_then(Value::as_array).cloned()
                    else {
                        continue;
                    };
                    let tokens: Vec<Value> = content.iter().map(|t| t["token"].clone()).collect();
                    let logprobs: Vec<Value> =
                        content.iter().map(|t| t["logprob"].clone()).collect();
                    let tops: Vec<Value> = content
                        .iter()
                        .map(|t| {
                            let mut map = serde_json::Map::new();
                            for a in t["top_logprobs"].as_array().into_iter().flatten() {
                                if let Some(tok) = a["token"].as_str() {
                                    map.insert(tok.to_owned(), a["logprob"].clone());
                                }
                            }
                            Value::Object(map)
                        })
                        .collect();
                    c["logprobs"] =
                        json!({"tokens": tokens, "token_logprobs": logprobs, "top_logprobs": tops});
                }
            }
        }
        _ => {}
    }
}

/// The JSON schema a JSON-mode request states in its prompt (DeepSeek's `json_object`: the
/// model reads the schema the prompt gives).
pub fn schema_in_prompt(prompt: &str) -> Option<Value> {
    let at = prompt.find("JSON schema: ")? + "JSON schema: ".len();
    let mut de = serde_json::Deserializer::from_str(&prompt[at..]).into_iter::<Value>();
    de.next()?.ok()
}

/// Whether the personality is a Gemini one (native API).
pub fn is_gemini(p: Option<Personality>) -> bool {
    p.is_some_and(Personality::gemini)
}
