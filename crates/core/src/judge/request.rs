//! Provider-independent chat requests: the values judging protocols emit for `crate::run` to send.
//!
//! A protocol never talks to a provider. It describes what it wants to ask as a [`ChatRequest`];
//! the run engine maps that onto OpenAI, Anthropic, … HTTP bodies and feeds the returned text
//! (and, when asked for, the token log-probabilities) back to the protocol.

use serde::{Deserialize, Serialize};

/// Who speaks a [`Message`]. Serialised in lower case, as every chat API spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation (a persona prefix goes here when the
    /// template asks for a system message).
    System,
    /// The judge's prompt.
    User,
    /// An earlier answer of the judge, replayed in multi-turn protocols (MDEval).
    Assistant,
}

/// One message of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// Who speaks.
    pub role: Role,
    /// The exact text sent; rendered prompts are compared byte for byte with the papers'.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message { role: Role::System, content: content.into() }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message { role: Role::User, content: content.into() }
    }

    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message { role: Role::Assistant, content: content.into() }
    }
}

/// A chat completion request, independent of any provider.
///
/// Optional fields left as `None` mean "the provider's default"; the run engine must not
/// invent values for them, because the papers' settings (e.g. Chiang & Lee: T = 1, n = 20;
/// G-Eval: n = 20, T = 1, top_p = 1) are part of what is being reproduced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation, in order.
    pub messages: Vec<Message>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling mass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// How many samples to draw for this prompt. Providers without `n` are served by the run
    /// engine with `n` separate calls; the protocol sees `n` response texts either way.
    pub n: u32,
    /// Upper bound on generated tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// `Some(k)`: return the `k` most likely alternatives for every generated token
    /// (OpenAI `logprobs: true, top_logprobs: k`), used by G-Eval's probability-weighted score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<u8>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// A caller-chosen key that identifies this request within a run (item, attribute, step,
    /// sample), so responses can be matched up and cached; opaque to providers.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tag: String,
    /// Structured output: the JSON schema the answer must follow (OpenAI-style
    /// `response_format`, Gemini's `responseJsonSchema`, Anthropic a forced tool), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<serde_json::Value>,
}

impl ChatRequest {
    /// A single-sample request with one user message and provider defaults for the rest.
    pub fn user(content: impl Into<String>) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::user(content)],
            temperature: None,
            top_p: None,
            n: 1,
            max_tokens: None,
            logprobs: None,
            stop: Vec::new(),
            tag: String::new(),
            schema: None,
        }
    }
}

/// One alternative token and its natural-log probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopLogprob {
    /// The token text as the provider returned it (may carry leading spaces).
    pub token: String,
    /// Natural logarithm of its probability.
    pub logprob: f64,
}

/// The log-probability information for one generated token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprobs {
    /// The token that was generated.
    pub token: String,
    /// Its natural-log probability.
    pub logprob: f64,
    /// The most likely alternatives at this position, including the generated one.
    #[serde(default)]
    pub top_logprobs: Vec<TopLogprob>,
}

/// One sample returned for a [`ChatRequest`]: what protocols consume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The generated text.
    pub text: String,
    /// Per-token log-probabilities, present only when the request asked for them and the
    /// provider supplied them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logprobs: Option<Vec<TokenLogprobs>>,
}

impl ChatResponse {
    /// A response with text only.
    pub fn text(text: impl Into<String>) -> ChatResponse {
        ChatResponse { text: text.into(), logprobs: None }
    }
}
