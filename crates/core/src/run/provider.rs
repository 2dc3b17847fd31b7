//! Provider presets (base URLs, wire API, CORS advice) and per-provider/model capabilities.
//!
//! The facts come from `../shared/LLM_PROVIDERS.md`. Where the evidence is weak the table
//! errs on the side of sending less: an unsupported `n` is served by looping, and a parameter
//! the API rejects anyway is dropped once at run time (see [`Capabilities::drop_param`]).

use std::collections::BTreeSet;
use std::fmt;

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
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a provider/model accepts. Built by [`Capabilities::for_model`], adjusted at run time
/// by [`Capabilities::drop_param`] when the API rejects a parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    /// Largest `n` one call may ask for; 1 means "loop instead".
    pub max_n: u32,
    /// Largest `top_logprobs`; `None` means logprobs are not available.
    pub max_top_logprobs: Option<u8>,
    /// Accepted temperature range; values outside are clamped (and the clamp is reported).
    pub temperature_range: (f64, f64),
    /// A reasoning model: `max_completion_tokens`, and no temperature/top_p/logprobs.
    pub reasoning: bool,
    /// Whether the request may carry a per-sample `seed`.
    pub seed: bool,
    /// Parameters the API rejected during this run; never sent again.
    pub dropped: BTreeSet<Param>,
}

impl Capabilities {
    /// The capability table, per provider and (for OpenAI-style reasoning models) per model.
    pub fn for_model(provider: ProviderId, model: &str) -> Capabilities {
        use ProviderId::*;
        let reasoning = is_reasoning_model(model);
        let (max_n, max_top_logprobs, temperature_max, seed) = match provider {
            OpenAi => (128, Some(20), 2.0, true),
            // OpenRouter routes to many backends; `n` is not honoured by most of them.
            OpenRouter => (1, Some(20), 2.0, true),
            Groq => (1, None, 2.0, true),
            Together => (1, Some(20), 2.0, true),
            Mistral => (1, None, 1.5, false),
            // DeepSeek accepts logprobs but answers with placeholders (0 or -9999).
            DeepSeek => (1, None, 2.0, false),
            Vllm => (128, Some(20), 2.0, true),
            LlamaCpp => (1, Some(20), 2.0, true),
            Ollama => (1, Some(20), 2.0, true),
            LmStudio => (1, None, 2.0, true),
            Anthropic => (1, None, 1.0, false),
            Gemini => (8, Some(20), 2.0, true),
            Custom => (1, Some(20), 2.0, true),
        };
        Capabilities {
            max_n,
            max_top_logprobs: if reasoning { None } else { max_top_logprobs },
            temperature_range: (0.0, temperature_max),
            reasoning,
            seed,
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
            Param::Temperature | Param::TopP => !self.reasoning,
            Param::Logprobs => self.max_top_logprobs.is_some() && !self.reasoning,
            Param::N => self.max_n > 1,
            Param::Seed => self.seed,
            Param::MaxTokens | Param::Stop => true,
        }
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

/// OpenAI reasoning models (o1, o3, o4-mini, gpt-5…), also when routed as `openai/o3`.
pub fn is_reasoning_model(model: &str) -> bool {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    let starts_o_digit = name.len() >= 2
        && name.starts_with('o')
        && name.as_bytes().get(1).is_some_and(|b| b.is_ascii_digit());
    starts_o_digit || (name.starts_with("gpt-5") && !name.starts_with("gpt-5-chat"))
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
