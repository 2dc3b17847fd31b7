//! Parsing successful chat responses of each wire API into one provider-independent shape.
//!
//! Parsing is lenient about what it does not need (extra fields, missing `usage`) and strict
//! about what it does: a body that is not JSON, that stops mid-way, or that has no choices is
//! a [`ParseError`], never a panic and never an empty rating.

use serde_json::Value;

use crate::judge::{self, TokenLogprobs, TopLogprob};
use crate::run::provider::Api;

/// Token counts a provider reported for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub prompt_tokens: u64,
    /// Every generated token the provider bills as output, reasoning included.
    pub completion_tokens: u64,
    /// Of the completion tokens, those a reasoning model spent thinking before its answer
    /// (OpenAI `completion_tokens_details.reasoning_tokens`; Gemini `thoughtsTokenCount`, which
    /// Gemini counts apart from its candidates and Concord adds to the completion). They are
    /// billed at the output price, as the providers bill them.
    pub reasoning_tokens: u64,
}

impl Usage {
    /// Adds another call's usage.
    pub fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
    }

    /// The reasoning tokens of one of the call's `samples` samples: the call's count shared
    /// evenly (providers report one count a call, not a sample; rounded up). `None` when the
    /// call reported none.
    pub fn reasoning_per_sample(&self, samples: usize) -> Option<u64> {
        (self.reasoning_tokens > 0).then(|| self.reasoning_tokens.div_ceil(samples.max(1) as u64))
    }
}

/// Why generation stopped, normalised across APIs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FinishReason {
    /// Natural end or a stop sequence.
    Stop,
    /// The token limit cut the answer short.
    Length,
    /// A safety filter intervened.
    Filtered,
    /// Anything else, as the provider spelled it.
    Other(String),
}

impl FinishReason {
    fn parse(raw: &str) -> FinishReason {
        match raw.to_ascii_lowercase().as_str() {
            "stop" | "end_turn" | "stop_sequence" | "eos" => FinishReason::Stop,
            "length" | "max_tokens" => FinishReason::Length,
            "content_filter" | "safety" | "refusal" | "recitation" => FinishReason::Filtered,
            _ => FinishReason::Other(raw.to_string()),
        }
    }
}

/// One generated sample.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub text: String,
    /// Per-token log-probabilities with their top alternatives, when requested and returned.
    pub top_logprobs: Option<Vec<TokenLogprobs>>,
    pub finish_reason: Option<FinishReason>,
}

impl Choice {
    /// The sample as the judging protocols consume it.
    pub fn to_judge(&self) -> judge::ChatResponse {
        judge::ChatResponse { text: self.text.clone(), logprobs: self.top_logprobs.clone() }
    }
}

/// A parsed response.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    pub choices: Vec<Choice>,
    pub usage: Option<Usage>,
    /// The model that answered, as the provider names it (may differ from the one asked for).
    pub model: Option<String>,
    /// What the call cost in USD, when the provider says so itself (OpenRouter's
    /// `usage.cost`): counted instead of usage × the price list.
    pub cost_usd: Option<f64>,
}

/// Why a 2xx body could not be read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ParseError {
    /// The body ended before the JSON did: a dropped connection or a proxy cut it short.
    Truncated { received_bytes: usize },
    /// The body is not JSON, or not the shape this API returns.
    Malformed { detail: String },
    /// Valid JSON with no choices/content/candidates.
    Empty,
    /// The provider refused to answer the prompt (Gemini's `promptFeedback.blockReason`):
    /// retrying the same prompt gets the same refusal.
    Blocked { reason: String },
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Truncated { received_bytes } => write!(
                f,
                "the response stopped after {received_bytes} bytes (connection dropped?); \
                 the call will be retried"
            ),
            ParseError::Malformed { detail } => {
                write!(f, "the response is not what the API should return: {detail}")
            }
            ParseError::Empty => write!(f, "the response contains no answer"),
            ParseError::Blocked { reason } => {
                write!(f, "the provider blocked this prompt ({reason}) and gave no answer")
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses a successful response body of `api`.
pub fn parse_chat_response(api: Api, body: &str) -> Result<ChatResponse, ParseError> {
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Err(ParseError::Truncated { received_bytes: body.len() }),
        Err(e) => return Err(ParseError::Malformed { detail: format!("invalid JSON: {e}") }),
    };
    if !value.is_object() {
        return Err(ParseError::Malformed { detail: "expected a JSON object".into() });
    }
    // Some OpenAI-compatible servers answer 200 with an error object.
    if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
        let message = err.get("message").and_then(Value::as_str).unwrap_or("unspecified");
        return Err(ParseError::Malformed {
            detail: format!("the API returned an error: {message}"),
        });
    }
    let parsed = match api {
        Api::OpenAiCompatible => parse_openai(&value)?,
        Api::Anthropic => parse_anthropic(&value)?,
        Api::Gemini => parse_gemini(&value)?,
    };
    if parsed.choices.is_empty() {
        return Err(ParseError::Empty);
    }
    Ok(parsed)
}

fn u64_at(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

fn model_of(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn parse_openai(v: &Value) -> Result<ChatResponse, ParseError> {
    let Some(choices) = v.get("choices").and_then(Value::as_array) else {
        return Err(ParseError::Malformed { detail: "no `choices` array".into() });
    };
    let mut out = Vec::with_capacity(choices.len());
    for (i, c) in choices.iter().enumerate() {
        let message = c.get("message");
        let content = message.and_then(|m| m.get("content"));
        let text = match content {
            Some(Value::String(s)) => s.clone(),
            // Content-part arrays (some servers) – join the text parts.
            Some(Value::Array(parts)) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(""),
            // A refusal or a tool-only answer: empty text, which the rating parser reports.
            Some(Value::Null) | None => match c.get("text").and_then(Value::as_str) {
                Some(s) => s.to_string(),
                None if message.is_some() => String::new(),
                None => {
                    return Err(ParseError::Malformed {
                        detail: format!("choice {i} has neither `message` nor `text`"),
                    });
                }
            },
            Some(other) => {
                return Err(ParseError::Malformed {
                    detail: format!("choice {i}: `content` is {other}, expected text"),
                });
            }
        };
        let logprobs = c.get("logprobs").and_then(|l| {
            match l.get("content").and_then(Value::as_array) {
                Some(tokens) => Some(tokens.iter().filter_map(openai_token).collect()),
                // The legacy completions shape some servers (Together) answer chat calls with.
                None => legacy_logprobs(l),
            }
        });
        let finish_reason = c.get("finish_reason").and_then(Value::as_str).map(FinishReason::parse);
        out.push(Choice { text, top_logprobs: logprobs, finish_reason });
    }
    let usage = v.get("usage").and_then(|u| {
        Some(Usage {
            prompt_tokens: u64_at(u, "prompt_tokens")?,
            completion_tokens: u64_at(u, "completion_tokens").unwrap_or(0),
            reasoning_tokens: u
                .pointer("/completion_tokens_details/reasoning_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        })
    });
    Ok(ChatResponse {
        choices: out,
        usage,
        model: model_of(v, "model"),
        cost_usd: reported_cost(v),
    })
}

/// The legacy completions shape of log-probabilities: parallel arrays `tokens` and
/// `token_logprobs`, and `top_logprobs` as one object per token mapping each alternative to its
/// log-probability (OpenAI's legacy completions; Together answers chat calls with it). `None`
/// when `l` is not that shape.
fn legacy_logprobs(l: &Value) -> Option<Vec<TokenLogprobs>> {
    let tokens = l.get("tokens")?.as_array()?;
    let logprobs = l.get("token_logprobs")?.as_array()?;
    let tops = l.get("top_logprobs").and_then(Value::as_array);
    let out = tokens
        .iter()
        .zip(logprobs)
        .enumerate()
        .filter_map(|(i, (token, logprob))| {
            let token = token.as_str()?.to_owned();
            let logprob = logprob.as_f64()?;
            let top_logprobs = match tops.and_then(|t| t.get(i)) {
                Some(Value::Object(map)) => map
                    .iter()
                    .filter_map(|(t, lp)| {
                        Some(TopLogprob { token: t.clone(), logprob: lp.as_f64()? })
                    })
                    .collect(),
                Some(Value::Array(alts)) => alts
                    .iter()
                    .filter_map(|a| {
                        Some(TopLogprob {
                            token: a.get("token")?.as_str()?.to_owned(),
                            logprob: a.get("logprob")?.as_f64()?,
                        })
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Some(TokenLogprobs { token, logprob, top_logprobs })
        })
        .collect();
    Some(out)
}

fn openai_token(t: &Value) -> Option<TokenLogprobs> {
    let token = t.get("token")?.as_str()?.to_string();
    let logprob = t.get("logprob")?.as_f64()?;
    let top_logprobs = t
        .get("top_logprobs")
        .and_then(Value::as_array)
        .map(|alts| {
            alts.iter()
                .filter_map(|a| {
                    Some(TopLogprob {
                        token: a.get("token")?.as_str()?.to_string(),
                        logprob: a.get("logprob")?.as_f64()?,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    Some(TokenLogprobs { token, logprob, top_logprobs })
}

/// What the call cost, as the provider reports it (OpenRouter's usage accounting): `usage.cost`
/// is what OpenRouter charged; with a key of your own (BYOK, `usage.is_byok`) that is only its
/// fee, and the upstream provider bills you `usage.cost_details.upstream_inference_cost` on top.
fn reported_cost(v: &Value) -> Option<f64> {
    let usage = v.get("usage")?;
    let cost = usage.get("cost").and_then(Value::as_f64)?;
    let byok = usage.get("is_byok").and_then(Value::as_bool) == Some(true);
    let upstream = usage.pointer("/cost_details/upstream_inference_cost").and_then(Value::as_f64);
    Some(match (byok, upstream) {
        (true, Some(up)) if up.is_finite() && up >= 0.0 => cost + up,
        _ => cost,
    })
}

fn parse_anthropic(v: &Value) -> Result<ChatResponse, ParseError> {
    let Some(content) = v.get("content").and_then(Value::as_array) else {
        return Err(ParseError::Malformed { detail: "no `content` array".into() });
    };
    // Anthropic has no `n`: one message is one sample. Thinking blocks are not the answer.
    let mut text: String = content
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    // Structured output arrives as the forced tool's input: that JSON is the answer.
    if let Some(input) = content
        .iter()
        .find(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .and_then(|b| b.get("input"))
    {
        text = input.to_string();
    }
    let finish_reason = v.get("stop_reason").and_then(Value::as_str).map(FinishReason::parse);
    let usage = v.get("usage").and_then(|u| {
        Some(Usage {
            prompt_tokens: u64_at(u, "input_tokens")?,
            // Extended thinking is billed within the output tokens, not reported apart.
            completion_tokens: u64_at(u, "output_tokens").unwrap_or(0),
            reasoning_tokens: 0,
        })
    });
    Ok(ChatResponse {
        choices: vec![Choice { text, top_logprobs: None, finish_reason }],
        usage,
        model: model_of(v, "model"),
        cost_usd: None,
    })
}

fn parse_gemini(v: &Value) -> Result<ChatResponse, ParseError> {
    // A blocked prompt: HTTP 200, no candidates, `promptFeedback.blockReason` (SAFETY, OTHER,
    // BLOCKLIST, PROHIBITED_CONTENT…). Not a malformed answer to retry: the item's failure.
    let blocked = v.pointer("/promptFeedback/blockReason").and_then(Value::as_str);
    let candidates = v.get("candidates").and_then(Value::as_array).filter(|c| !c.is_empty());
    let Some(candidates) = candidates else {
        if let Some(reason) = blocked {
            return Err(ParseError::Blocked { reason: reason.to_owned() });
        }
        return match v.get("candidates") {
            Some(Value::Array(_)) => Err(ParseError::Empty),
            _ => Err(ParseError::Malformed { detail: "no `candidates` array".into() }),
        };
    };
    let mut out = Vec::with_capacity(candidates.len());
    for c in candidates {
        let text: String = c
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(|parts| {
                parts
                    .iter()
                    // Thought summaries are flagged `thought: true`; they are not the answer.
                    .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        let finish_reason = c.get("finishReason").and_then(Value::as_str).map(FinishReason::parse);
        let logprobs = c.get("logprobsResult").map(gemini_logprobs);
        out.push(Choice { text, top_logprobs: logprobs, finish_reason });
    }
    let usage = v.get("usageMetadata").and_then(|u| {
        Some(Usage {
            prompt_tokens: u64_at(u, "promptTokenCount")?,
            // Thoughts are billed as output but counted apart from the candidates.
            completion_tokens: u64_at(u, "candidatesTokenCount").unwrap_or(0)
                + u64_at(u, "thoughtsTokenCount").unwrap_or(0),
            reasoning_tokens: u64_at(u, "thoughtsTokenCount").unwrap_or(0),
        })
    });
    Ok(ChatResponse { choices: out, usage, model: model_of(v, "modelVersion"), cost_usd: None })
}

fn gemini_logprobs(result: &Value) -> Vec<TokenLogprobs> {
    let candidate = |c: &Value| {
        Some(TopLogprob {
            token: c.get("token")?.as_str()?.to_string(),
            logprob: c.get("logProbability")?.as_f64()?,
        })
    };
    let chosen = result.get("chosenCandidates").and_then(Value::as_array);
    let tops = result.get("topCandidates").and_then(Value::as_array);
    let Some(chosen) = chosen else { return Vec::new() };
    chosen
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let picked = candidate(c)?;
            let top_logprobs = tops
                .and_then(|t| t.get(i))
                .and_then(|t| t.get("candidates"))
                .and_then(Value::as_array)
                .map(|alts| alts.iter().filter_map(candidate).collect())
                .unwrap_or_default();
            Some(TokenLogprobs { token: picked.token, logprob: picked.logprob, top_logprobs })
        })
        .collect()
}

/// The model ids in a list-models response (`data[].id` for OpenAI-compatible servers,
/// `data[].id` for Anthropic, `models[].name` without the `models/` prefix for Gemini).
pub fn parse_model_list(api: Api, body: &str) -> Result<Vec<String>, ParseError> {
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Err(ParseError::Truncated { received_bytes: body.len() }),
        Err(e) => return Err(ParseError::Malformed { detail: format!("invalid JSON: {e}") }),
    };
    let (list, field) = match api {
        Api::Gemini => (value.get("models"), "name"),
        // Ollama's native /api/tags uses `models[].name`; accept it too.
        _ => (value.get("data").or_else(|| value.get("models")), "id"),
    };
    let Some(list) = list.and_then(Value::as_array) else {
        return Err(ParseError::Malformed { detail: "no model list in the response".into() });
    };
    Ok(list
        .iter()
        .filter_map(|m| m.get(field).or_else(|| m.get("name")).and_then(Value::as_str))
        .map(|id| id.trim_start_matches("models/").to_string())
        .collect())
}
