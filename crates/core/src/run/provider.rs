//! Provider presets (base URLs, wire API, CORS advice) and per-provider/model capabilities.
//!
//! The facts come from `../shared/LLM_PROVIDERS.md`. Where the evidence is weak the table
//! errs on the side of sending less: an unsupported `n` is served by looping, and a parameter
//! the API rejects anyway is dropped once at run time (see [`Capabilities::drop_param`]).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Api {
    /// `POST {base}/chat/completions`, `Authorization: Bearer`.
    OpenAiCompatible,
    /// `POST {base}/messages`, `x-api-key` plus the browser-access header.
    Anthropic,
    /// `POST {base}/models/{model}:generateContent`, `x-goog-api-key`.
    Gemini,
}

/// A provider Concord has a preset for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProviderId {
    OpenAi,
    OpenRouter,
    Groq,
    Together,
    Mistral,
    DeepSeek,
    Vllm,
    LlamaCpp,
    Ollama,
    LmStudio,
    Anthropic,
    Gemini,
    /// Any other OpenAI-compatible server; the user supplies the base URL.
    Custom,
}

/// A preset: what the settings form pre-fills for a provider.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preset {
    pub id: ProviderId,
    /// Stable lower-case identifier, used in cache keys and the price table.
    pub slug: &'static str,
    /// Human-readable name.
    pub name: &'static str,
    pub api: Api,
    /// Default base URL, without a trailing slash.
    pub base_url: &'static str,
    /// Whether a key is normally required (local servers run without one).
    pub needs_key: bool,
    /// Whether the server runs on the user's machine (costs nothing, CORS is the user's to set).
    pub local: bool,
    /// What to do when the browser cannot reach it (a status-less failure).
    pub cors_advice: &'static str,
}

/// All presets, in the order the settings form lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: ProviderId::OpenAi,
        slug: "openai",
        name: "OpenAI",
        api: Api::OpenAiCompatible,
        base_url: "https://api.openai.com/v1",
        needs_key: true,
        local: false,
        cors_advice: "OpenAI allows browser calls; a status-less failure is usually a network \
                      problem, a blocking browser extension, or an error response that came back \
                      without CORS headers (e.g. a 404 for a wrong base URL). Check the base URL.",
    },
    Preset {
        id: ProviderId::OpenRouter,
        slug: "openrouter",
        name: "OpenRouter",
        api: Api::OpenAiCompatible,
        base_url: "https://openrouter.ai/api/v1",
        needs_key: true,
        local: false,
        cors_advice: "OpenRouter allows browser calls; check your network, extensions and the base URL.",
    },
    Preset {
        id: ProviderId::Groq,
        slug: "groq",
        name: "Groq",
        api: Api::OpenAiCompatible,
        base_url: "https://api.groq.com/openai/v1",
        needs_key: true,
        local: false,
        cors_advice: "Groq's browser (CORS) support is unverified; if calls fail without a status, \
                      use a local proxy or another provider.",
    },
    Preset {
        id: ProviderId::Together,
        slug: "together",
        name: "Together AI",
        api: Api::OpenAiCompatible,
        base_url: "https://api.together.xyz/v1",
        needs_key: true,
        local: false,
        cors_advice: "Together's browser (CORS) support is unverified; if calls fail without a \
                      status, use a local proxy or another provider.",
    },
    Preset {
        id: ProviderId::Mistral,
        slug: "mistral",
        name: "Mistral",
        api: Api::OpenAiCompatible,
        base_url: "https://api.mistral.ai/v1",
        needs_key: true,
        local: false,
        cors_advice: "Mistral allows browser calls with plain headers; check your network, \
                      extensions and the base URL.",
    },
    Preset {
        id: ProviderId::DeepSeek,
        slug: "deepseek",
        name: "DeepSeek",
        api: Api::OpenAiCompatible,
        base_url: "https://api.deepseek.com/v1",
        needs_key: true,
        local: false,
        cors_advice: "DeepSeek's browser (CORS) support is unverified and reports conflict; if \
                      calls fail without a status, use a local proxy or another provider.",
    },
    Preset {
        id: ProviderId::Vllm,
        slug: "vllm",
        name: "vLLM",
        api: Api::OpenAiCompatible,
        base_url: "http://localhost:8000/v1",
        needs_key: false,
        local: true,
        cors_advice: "Is `vllm serve` running on this port? vLLM allows all origins unless \
                      started with a narrower `--allowed-origins`.",
    },
    Preset {
        id: ProviderId::LlamaCpp,
        slug: "llamacpp",
        name: "llama.cpp server",
        api: Api::OpenAiCompatible,
        base_url: "http://localhost:8080/v1",
        needs_key: false,
        local: true,
        cors_advice: "Is `llama-server` (or `python -m llama_cpp.server`) running on this port? \
                      Both allow browser origins without extra flags.",
    },
    Preset {
        id: ProviderId::Ollama,
        slug: "ollama",
        name: "Ollama",
        api: Api::OpenAiCompatible,
        base_url: "http://localhost:11434/v1",
        needs_key: false,
        local: true,
        cors_advice: "Is Ollama running? It only accepts browser requests from localhost origins \
                      by default: restart it with OLLAMA_ORIGINS set to this page's origin \
                      (e.g. OLLAMA_ORIGINS=\"https://example.org\" ollama serve).",
    },
    Preset {
        id: ProviderId::LmStudio,
        slug: "lmstudio",
        name: "LM Studio",
        api: Api::OpenAiCompatible,
        base_url: "http://localhost:1234/v1",
        needs_key: false,
        local: true,
        cors_advice: "Is the LM Studio server running? CORS is off by default: start it with \
                      `lms server start --cors` (or enable CORS in the Developer tab).",
    },
    Preset {
        id: ProviderId::Anthropic,
        slug: "anthropic",
        name: "Anthropic",
        api: Api::Anthropic,
        base_url: "https://api.anthropic.com/v1",
        needs_key: true,
        local: false,
        cors_advice: "Anthropic allows browser calls with the direct-browser-access header, \
                      unless your organization disabled it; check your network and extensions.",
    },
    Preset {
        id: ProviderId::Gemini,
        slug: "gemini",
        name: "Google Gemini",
        api: Api::Gemini,
        base_url: "https://generativelanguage.googleapis.com/v1beta",
        needs_key: true,
        local: false,
        cors_advice: "Browser access to Gemini's native API is unverified; if calls fail without \
                      a status, check the base URL, your network and extensions, or use a proxy.",
    },
    Preset {
        id: ProviderId::Custom,
        slug: "custom",
        name: "Other OpenAI-compatible server",
        api: Api::OpenAiCompatible,
        base_url: "http://localhost:8000/v1",
        needs_key: false,
        local: false,
        cors_advice: "The server must answer the browser's CORS preflight: allow this page's \
                      origin and the headers `authorization` and `content-type`.",
    },
];

impl ProviderId {
    /// The preset for this provider.
    pub fn preset(self) -> &'static Preset {
        // Every variant has exactly one entry in PRESETS (checked by a test), so the
        // fallback is unreachable in practice; it keeps this total without a panic.
        PRESETS.iter().find(|p| p.id == self).unwrap_or(&PRESETS[PRESETS.len() - 1])
    }

    /// Looks a provider up by its slug (`"openai"`, `"lmstudio"`, …).
    pub fn from_slug(slug: &str) -> Option<ProviderId> {
        PRESETS.iter().find(|p| p.slug.eq_ignore_ascii_case(slug)).map(|p| p.id)
    }

    /// The stable lower-case identifier.
    pub fn slug(self) -> &'static str {
        self.preset().slug
    }

    /// The wire protocol.
    pub fn api(self) -> Api {
        self.preset().api
    }
}

impl fmt::Display for ProviderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset().name)
    }
}

/// Where requests go: a provider, a base URL (the preset's or the user's) and a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub provider: ProviderId,
    pub base_url: String,
    pub model: String,
}

impl Endpoint {
    /// An endpoint at the provider's preset base URL.
    pub fn preset(provider: ProviderId, model: impl Into<String>) -> Endpoint {
        Endpoint { provider, base_url: provider.preset().base_url.to_string(), model: model.into() }
    }

    /// The base URL without trailing slashes, with scheme and host lower-cased, so that
    /// `HTTPS://API.openai.com/v1/` and `https://api.openai.com/v1` are the same endpoint.
    pub fn normalized_base_url(&self) -> String {
        normalize_base_url(&self.base_url)
    }
}

/// See [`Endpoint::normalized_base_url`].
pub fn normalize_base_url(url: &str) -> String {
    let url = url.trim().trim_end_matches('/');
    // Lower-case up to the end of the authority only: paths are case-sensitive.
    let authority_end = match url.find("://") {
        Some(scheme_end) => {
            let rest = &url[scheme_end + 3..];
            scheme_end + 3 + rest.find('/').unwrap_or(rest.len())
        }
        None => 0,
    };
    let (head, tail) = url.split_at(authority_end);
    format!("{}{}", head.to_ascii_lowercase(), tail)
}

/// A request parameter that a provider may reject, and that can be dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Param {
    Temperature,
    TopP,
    N,
    Logprobs,
    MaxTokens,
    Seed,
    Stop,
    /// Structured output (`response_format`, Gemini's `responseJsonSchema`, Anthropic's
    /// forced tool).
    ResponseFormat,
}

impl Param {
    /// Maps a parameter name as APIs spell it in error bodies (`"top_logprobs"`,
    /// `"generationConfig.topP"`, `"max_completion_tokens"`, …) to a [`Param`].
    pub fn from_api_name(name: &str) -> Option<Param> {
        let name = name.trim().trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let last = name.rsplit(['.', '/']).next().unwrap_or(name);
        let lower = last.to_ascii_lowercase();
        Some(match lower.as_str() {
            "temperature" => Param::Temperature,
            "top_p" | "topp" => Param::TopP,
            "n" | "candidatecount" | "candidate_count" => Param::N,
            "logprobs" | "top_logprobs" | "toplogprobs" | "responselogprobs" => Param::Logprobs,
            "max_tokens" | "max_completion_tokens" | "maxoutputtokens" => Param::MaxTokens,
            "seed" | "random_seed" => Param::Seed,
            "stop" | "stop_sequences" | "stopsequences" => Param::Stop,
            "response_format" | "responseformat" | "json_schema" | "responsejsonschema"
            | "responseschema" | "responsemimetype" | "tools" | "tool_choice" => {
                Param::ResponseFormat
            }
            _ => return None,
        })
    }

    /// The OpenAI spelling, for run-log messages.
    pub fn name(self) -> &'static str {
        match self {
            Param::Temperature => "temperature",
            Param::TopP => "top_p",
            Param::N => "n",
            Param::Logprobs => "logprobs",
            Param::MaxTokens => "max_tokens",
            Param::Seed => "seed",
            Param::Stop => "stop",
            Param::ResponseFormat => "response_format",
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a provider takes a JSON schema for structured output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaFlavor {
    /// OpenAI's `response_format: {type: json_schema, json_schema: {strict, schema}}`.
    JsonSchema,
    /// Only `response_format: {type: json_object}` (DeepSeek): valid JSON, the schema is the
    /// prompt's to state (Concord's "+json" prompts spell the fields out).
    JsonObject,
    /// Gemini's `responseMimeType` + `responseJsonSchema`.
    Gemini,
    /// Anthropic: a forced tool whose input schema is the answer's.
    AnthropicTool,
}

/// How a model's thinking is controlled, and whether it can be turned off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model does not think before it answers.
    None,
    /// It thinks by default and `thinkingConfig.thinkingBudget: 0` turns it off (Gemini 2.5
    /// Flash and Flash-Lite): Concord turns it off, so a short Max tokens is the answer's.
    GeminiBudgetOff,
    /// It always thinks, within the output limit (Gemini 2.5 Pro: "Budget 0 is invalid. This
    /// model only works in thinking mode."; Gemini 3: `thinkingLevel`).
    GeminiAlways,
    /// It always thinks (OpenAI o-series and GPT-5, DeepSeek's reasoner, gpt-oss): the
    /// thinking is billed as output and counts against the token limit.
    Always,
    /// Extended thinking is off unless the request asks for it (Anthropic): Concord does not.
    AnthropicOptIn,
    /// A [`Thinking::GeminiBudgetOff`] model whose thinking the user turned on (the Run
    /// screen's "Let Gemini 2.5 Flash think"): `thinkingConfig.thinkingBudget: -1`, dynamic
    /// thinking ("the model decides how much to think", ai.google.dev/gemini-api/docs/thinking),
    /// billed as output and within `maxOutputTokens`, so it is planned as a reasoning model.
    GeminiOn,
}

/// One row of the capability table: a provider and a model family, what it accepts, and where
/// the facts come from (`docs/providers.md` lists every row with its source).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    pub provider: ProviderId,
    /// The row's name ("Gemini 2.5 Flash / Flash-Lite").
    pub name: &'static str,
    /// Model-name prefixes of the family (after any `vendor/` and `models/` prefix), most
    /// specific rows first; empty: every model of the provider.
    pub families: &'static [&'static str],
    /// Largest `n` one call may ask for (1: loop).
    pub max_n: u32,
    /// Largest `top_logprobs`; `None`: no log-probabilities.
    pub top_logprobs: Option<u8>,
    pub temperature_max: f64,
    pub seed: bool,
    pub schema: SchemaFlavor,
    pub thinking: Thinking,
    /// Parameters the model refuses together (the second of each pair is not sent).
    pub exclusive: &'static [(Param, Param)],
    /// Where the facts come from.
    pub source: &'static str,
}

macro_rules! row {
    ($provider:ident, $name:expr, [$($f:expr),*], n $n:expr, lp $lp:expr, t $t:expr, seed $seed:expr,
     $schema:ident, $thinking:ident, excl [$($e:expr),*], $source:expr) => {
        Profile {
            provider: ProviderId::$provider,
            name: $name,
            families: &[$($f),*],
            max_n: $n,
            top_logprobs: $lp,
            temperature_max: $t,
            seed: $seed,
            schema: SchemaFlavor::$schema,
            thinking: Thinking::$thinking,
            exclusive: &[$($e),*],
            source: $source,
        }
    };
}

const BOTH_SAMPLING: (Param, Param) = (Param::Temperature, Param::TopP);

/// The capability table, per provider and model family, most specific rows first. Every row's
/// `source` is spelled out in `docs/providers.md`; "unverified" there marks the facts no
/// source confirmed (the run still drops a parameter the API refuses).
pub const PROFILES: &[Profile] = &[
    row!(OpenAi, "OpenAI GPT-5-chat", ["gpt-5-chat", "chatgpt"], n 128, lp Some(20), t 2.0, seed true,
         JsonSchema, None, excl [], "openai-python chat completion params; gpt-5-chat is not a reasoning model"),
    row!(OpenAi, "OpenAI o-series and GPT-5 (reasoning)", ["o1", "o3", "o4", "gpt-5"], n 128, lp None, t 2.0, seed true,
         JsonSchema, Always, excl [], "OpenAI reasoning guide; CopilotKit#7191 (temperature refused); inspect_ai#2739 (logprobs)"),
    row!(OpenAi, "OpenAI GPT-4o / GPT-4.1", [], n 128, lp Some(20), t 2.0, seed true,
         JsonSchema, None, excl [], "openai-python chat completion params (n, top_logprobs 0–20, response_format)"),
    row!(Anthropic, "Claude 4.5 and later", ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-5", "claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-1"],
         n 1, lp None, t 1.0, seed false, AnthropicTool, AnthropicOptIn, excl [BOTH_SAMPLING],
         "API 400 \"`temperature` and `top_p` cannot both be specified for this model\" (probes quoted in public code, 2026-08/09)"),
    row!(Anthropic, "Claude 3.5–4.x", [], n 1, lp None, t 1.0, seed false, AnthropicTool, AnthropicOptIn, excl [],
         "anthropic-sdk-python MessageCreateParams (no n, no logprobs; temperature 0–1); helm#445"),
    row!(Gemini, "Gemini 3", ["gemini-3"], n 1, lp None, t 2.0, seed true, Gemini, GeminiAlways, excl [],
         "\"Multiple candidates is not enabled for this model\", \"Logprobs is not enabled for this model\" (issue threads); thinkingLevel"),
    row!(Gemini, "Gemini 2.5 Pro", ["gemini-2.5-pro"], n 8, lp None, t 2.0, seed true, Gemini, GeminiAlways, excl [],
         "\"Budget 0 is invalid. This model only works in thinking mode.\"; \"Logprobs is not enabled for models/…\" (python-genai tests, issue threads)"),
    row!(Gemini, "Gemini 2.5 Flash / Flash-Lite", ["gemini-2.5-flash"], n 8, lp None, t 2.0, seed true, Gemini, GeminiBudgetOff, excl [],
         "googleapis/python-genai generate_content tests (\"Logprobs is not enabled for models/gemini-2.5-flash\"); thinkingBudget 0"),
    row!(Gemini, "Gemini 2.0 and older", [], n 8, lp Some(20), t 2.0, seed true, Gemini, None, excl [],
         "Gemini API GenerationConfig (candidateCount, responseLogprobs, logprobs); logprobs unverified for AI Studio"),
    row!(DeepSeek, "DeepSeek reasoner", ["deepseek-reasoner", "deepseek-r1"], n 1, lp None, t 2.0, seed false, JsonObject, Always, excl [],
         "DeepSeek reasoning-model guide (logprobs rejected, temperature ignored)"),
    row!(DeepSeek, "DeepSeek chat", [], n 1, lp None, t 2.0, seed false, JsonObject, None, excl [],
         "DeepSeek JSON Output guide (json_object only; json_schema: 400 \"This response_format type is unavailable now\"); PyRIT#991 (placeholder logprobs)"),
    row!(OpenRouter, "OpenRouter (any upstream)", [], n 1, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "OpenRouter API reference; usage accounting (usage.cost, cost_details.upstream_inference_cost)"),
    row!(Groq, "Groq", [], n 1, lp None, t 2.0, seed true, JsonSchema, None, excl [],
         "console.groq.com/docs/openai (logprobs and N > 1: 400)"),
    row!(Together, "Together AI", [], n 1, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "Together chat completions (legacy logprobs shape; n unverified)"),
    row!(Mistral, "Mistral", [], n 1, lp None, t 1.5, seed false, JsonSchema, None, excl [],
         "Mistral chat completions (random_seed, no logprobs); unverified"),
    row!(Vllm, "vLLM", [], n 128, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "vLLM OpenAI-compatible server (n; --max-logprobs 20, vllm#5312)"),
    row!(LlamaCpp, "llama.cpp server", [], n 1, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "ggml-org/llama.cpp tools/server (\"Only one completion choice is allowed\"; logprobs, llama.cpp#10783)"),
    row!(Ollama, "Ollama", [], n 1, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "ollama#305 (n not honoured); litellm#17165 (logprobs since 0.12.11)"),
    row!(LmStudio, "LM Studio", [], n 1, lp None, t 2.0, seed true, JsonSchema, None, excl [],
         "lmstudio.ai docs; unverified"),
    row!(Custom, "Other OpenAI-compatible server", [], n 1, lp Some(20), t 2.0, seed true, JsonSchema, None, excl [],
         "the OpenAI chat API; a refused parameter is dropped at run time"),
];

/// A model name without routing prefixes (`openai/`, `models/`), lower-cased.
fn bare_model(model: &str) -> String {
    let model = model.trim().trim_start_matches("models/");
    model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase()
}

impl Profile {
    /// The row for `model` at `provider` (the provider's last row when no family matches).
    pub fn of(provider: ProviderId, model: &str) -> &'static Profile {
        let name = bare_model(model);
        let family = |p: &&Profile| {
            p.families.is_empty()
                || p.families.iter().any(|f| {
                    name == *f
                        || name.strip_prefix(f).is_some_and(|rest| {
                            // "o3-mini", "gpt-5.1", "claude-sonnet-4-5-20250929"; not "o30".
                            rest.starts_with(['-', '.', ':', '@'])
                                || !f.ends_with(|c: char| c.is_ascii_digit())
                        })
                })
        };
        PROFILES
            .iter()
            .filter(|p| p.provider == provider)
            .find(family)
            .unwrap_or(&PROFILES[PROFILES.len() - 1])
    }
}

/// What a provider/model accepts. Built by [`Capabilities::for_model`] from the
/// [`PROFILES`] table, adjusted at run time by [`Capabilities::drop_param`] when the API
/// rejects a parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// Largest `n` one call may ask for; 1 means "loop instead".
    pub max_n: u32,
    /// Largest `top_logprobs`; `None` means logprobs are not available.
    pub max_top_logprobs: Option<u8>,
    /// Accepted temperature range; values outside are clamped (and the clamp is reported).
    pub temperature_range: (f64, f64),
    /// A reasoning model: it thinks within the token limit before it answers (the Judge
    /// screen's 4,096 default and the short-budget warning apply).
    pub reasoning: bool,
    /// OpenAI's reasoning models: `max_completion_tokens`, and no temperature/top_p (only the
    /// default is accepted).
    pub fixed_sampling: bool,
    /// Whether the request may carry a per-sample `seed`.
    pub seed: bool,
    /// How the provider takes a JSON schema.
    pub schema: SchemaFlavor,
    /// How its thinking is controlled.
    pub thinking: Thinking,
    /// Parameters refused together: the second of a pair is not sent with the first.
    pub exclusive: Vec<(Param, Param)>,
    /// The row of the table this came from.
    pub profile: &'static str,
    /// Parameters the API rejected during this run; never sent again.
    pub dropped: BTreeSet<Param>,
}

impl Capabilities {
    /// The capability table's row for `model` at `provider`. Reasoning is told by the model's
    /// name wherever it is served (OpenRouter's `openai/o3`, gpt-oss on Groq or vLLM).
    pub fn for_model(provider: ProviderId, model: &str) -> Capabilities {
        let row = Profile::of(provider, model);
        let openai_reasoning = is_openai_reasoning(model);
        let reasoning = is_reasoning_model(model)
            || matches!(row.thinking, Thinking::Always | Thinking::GeminiAlways);
        Capabilities {
            max_n: row.max_n,
            max_top_logprobs: if reasoning { None } else { row.top_logprobs },
            temperature_range: (0.0, row.temperature_max),
            reasoning,
            fixed_sampling: openai_reasoning,
            seed: row.seed,
            schema: row.schema,
            thinking: if reasoning && row.thinking == Thinking::None {
                Thinking::Always
            } else {
                row.thinking
            },
            exclusive: row.exclusive.to_vec(),
            profile: row.name,
            dropped: BTreeSet::new(),
        }
    }

    /// Records that the API rejected `param`. Returns `false` if it had already been dropped,
    /// in which case the caller must not retry again (the rejection is about something else).
    pub fn drop_param(&mut self, param: Param) -> bool {
        self.dropped.insert(param)
    }

    /// Whether `param` may be sent.
    pub fn allows(&self, param: Param) -> bool {
        if self.dropped.contains(&param) {
            return false;
        }
        match param {
            Param::Temperature | Param::TopP => !self.fixed_sampling,
            Param::Logprobs => self.max_top_logprobs.is_some() && !self.reasoning,
            Param::N => self.max_n > 1,
            Param::Seed => self.seed,
            Param::MaxTokens | Param::Stop | Param::ResponseFormat => true,
        }
    }

    /// Whether the user may turn the model's thinking on or off (Gemini 2.5 Flash and
    /// Flash-Lite: off unless asked for).
    pub fn thinking_optional(&self) -> bool {
        matches!(self.thinking, Thinking::GeminiBudgetOff | Thinking::GeminiOn)
    }

    /// These capabilities with the model's optional thinking turned on (`on`) or left as the
    /// table has it: a model whose thinking is off unless asked for thinks, and is planned as a
    /// reasoning model (the 4,096 Max tokens default, the short-budget warning, no
    /// log-probabilities). Other models are unchanged.
    pub fn with_thinking(mut self, on: bool) -> Capabilities {
        if on && self.thinking == Thinking::GeminiBudgetOff {
            self.thinking = Thinking::GeminiOn;
            self.reasoning = true;
            self.max_top_logprobs = None;
        }
        self
    }

    /// How many samples one call may draw.
    pub fn samples_per_call(&self) -> u32 {
        if self.allows(Param::N) { self.max_n } else { 1 }
    }
}

/// Max tokens below which a reasoning model is likely to spend the whole budget thinking
/// (its reasoning counts against `max_completion_tokens`) and never write its answer.
pub const REASONING_MIN_MAX_TOKENS: u32 = 1024;
/// The Judge screen's Max tokens for new methods when the model is a reasoning model (room
/// for its thinking and its answer).
pub const REASONING_DEFAULT_MAX_TOKENS: u32 = 4096;

/// OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…), also when routed as `openai/o3`: they
/// take `max_completion_tokens` and only the default temperature.
pub fn is_openai_reasoning(model: &str) -> bool {
    let name = bare_model(model);
    let starts_o_digit = name.len() >= 2
        && name.starts_with('o')
        && name.as_bytes().get(1).is_some_and(|b| b.is_ascii_digit());
    starts_o_digit || (name.starts_with("gpt-5") && !name.starts_with("gpt-5-chat"))
}

/// Models that think before they answer, within the output limit, wherever they are served:
/// OpenAI's o-series and GPT-5, Gemini 2.5 Pro and Gemini 3, DeepSeek's reasoner (R1) and
/// OpenAI's open-weight gpt-oss.
pub fn is_reasoning_model(model: &str) -> bool {
    let name = bare_model(model);
    is_openai_reasoning(model)
        || name.starts_with("gemini-2.5-pro")
        || name.starts_with("gemini-3")
        || name.starts_with("deepseek-reasoner")
        || name.starts_with("deepseek-r1")
        || name.starts_with("gpt-oss")
}

/// A contiguous run of samples served by one call: samples `first .. first + count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampleBatch {
    pub first: u32,
    pub count: u32,
}

/// Splits `n` samples into calls: one call of up to `max_n` where `n` is supported, otherwise
/// one call per sample (looping is the only way to draw several samples from such providers).
pub fn sample_batches(n: u32, caps: &Capabilities) -> Vec<SampleBatch> {
    let per_call = caps.samples_per_call().max(1);
    let mut batches = Vec::new();
    let mut first = 0;
    while first < n {
        let count = per_call.min(n - first);
        batches.push(SampleBatch { first, count });
        first += count;
    }
    batches
}

/// Where the responses came from (no key, ever).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointEntry {
    pub provider: String,
    pub base_url: String,
    pub model: String,
    /// A price typed on the Run screen for the model (USD per million tokens): Results and
    /// `concord report` price the runs with it before the shipped list, as the batch card does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<EntryPrice>,
}

/// A price as a bundle's endpoint carries it (USD per million tokens; `cost::Price` converts
/// both ways).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EntryPrice {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

impl EndpointEntry {
    pub fn from_endpoint(endpoint: &Endpoint) -> EndpointEntry {
        EndpointEntry {
            provider: endpoint.provider.slug().to_owned(),
            base_url: public_url(&endpoint.base_url),
            model: endpoint.model.clone(),
            price: None,
        }
    }

    /// The entry with the price typed for its model (`None`: the shipped list's).
    pub fn with_price(mut self, price: Option<EntryPrice>) -> EndpointEntry {
        self.price = price;
        self
    }

    /// The endpoint the runs were made with (for pricing them); `None` for a provider this
    /// Concord does not know.
    pub fn to_endpoint(&self) -> Option<Endpoint> {
        Some(Endpoint {
            provider: ProviderId::from_slug(&self.provider)?,
            base_url: self.base_url.clone(),
            model: self.model.clone(),
        })
    }
}

/// A base URL without user info, query or fragment: what may be written to a file.
pub fn public_url(url: &str) -> String {
    let cut = url.find(['?', '#']).map_or(url, |i| &url[..i]);
    match cut.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => cut.to_owned(),
    }
}
