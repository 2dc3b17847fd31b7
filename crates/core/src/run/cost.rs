//! Prices, cost estimates before a run, and reconciliation with the `usage` providers report.
//!
//! The shipped table (`prices.json`) is a dated snapshot of public list prices; users edit it,
//! so parsing reports every bad entry instead of failing or silently skipping it.
//!
//! Token estimates use the common rule of thumb of **four characters per token** (English
//! text with BPE tokenizers); it is a planning figure only, replaced by reported `usage` as
//! soon as calls come back.

use std::fmt;

use serde_json::Value;

use crate::run::provider::ProviderId;
use crate::run::response::Usage;

/// The price table shipped with Concord.
pub const SHIPPED_PRICES_JSON: &str = include_str!("prices.json");

/// Characters per token assumed by [`estimate_tokens`].
pub const CHARS_PER_TOKEN: u64 = 4;

/// Estimated tokens of a text of `chars` characters: ⌈chars / 4⌉.
pub fn estimate_tokens(chars: u64) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN)
}

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

impl From<crate::run::provider::EntryPrice> for Price {
    fn from(p: crate::run::provider::EntryPrice) -> Price {
        Price { input_per_million: p.input_per_million, output_per_million: p.output_per_million }
    }
}

impl From<Price> for crate::run::provider::EntryPrice {
    fn from(p: Price) -> crate::run::provider::EntryPrice {
        crate::run::provider::EntryPrice {
            input_per_million: p.input_per_million,
            output_per_million: p.output_per_million,
        }
    }
}

impl Price {
    /// Free (local servers).
    pub const ZERO: Price = Price { input_per_million: 0.0, output_per_million: 0.0 };

    /// The cost of `usage` at this price, in USD.
    pub fn cost_usd(&self, usage: Usage) -> f64 {
        (usage.prompt_tokens as f64 * self.input_per_million
            + usage.completion_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }

    /// What one call may cost at most, reserved against the spend cap while it is in flight:
    /// its prompt at [`RESERVE_CHARS_PER_TOKEN`] characters a token (denser than the estimate's
    /// 4, so the reservation errs high) and every sample's whole token limit
    /// ([`RESERVED_OUTPUT_TOKENS`] a sample when the request sets none).
    pub fn reserve_usd(&self, size: CallSize) -> f64 {
        let prompt = size.prompt_chars.div_ceil(RESERVE_CHARS_PER_TOKEN) as u64;
        let output = u64::from(size.samples.max(1))
            * u64::from(size.max_tokens.unwrap_or(RESERVED_OUTPUT_TOKENS));
        self.cost_usd(Usage {
            prompt_tokens: prompt,
            completion_tokens: output,
            reasoning_tokens: 0,
        })
    }
}

/// Characters a token when a call's cost is reserved ([`Price::reserve_usd`]).
pub const RESERVE_CHARS_PER_TOKEN: usize = 3;
/// Output tokens reserved a sample when a request sets no `max_tokens`.
pub const RESERVED_OUTPUT_TOKENS: u32 = 1024;

/// What a call's cost depends on, known before it is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallSize {
    /// Characters of every message sent.
    pub prompt_chars: usize,
    /// Samples the call asks for (the prompt is paid once).
    pub samples: u32,
    /// The request's generation limit a sample.
    pub max_tokens: Option<u32>,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceEntry {
    pub provider: ProviderId,
    pub model: String,
    /// Other names of the same model at the same price (dated snapshots, `-latest`).
    pub aliases: Vec<String>,
    pub price: Price,
}

/// A parsed price table.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    /// When the prices were copied (as written in the file).
    pub snapshot_date: String,
    pub source: String,
    pub entries: Vec<PriceEntry>,
}

/// A problem with one entry; the entry is left out and the rest of the table is used.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceDiagnostic {
    /// Index in `prices`.
    pub index: usize,
    /// Which field.
    pub field: &'static str,
    pub message: String,
}

impl fmt::Display for PriceDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "prices[{}].{}: {}", self.index, self.field, self.message)
    }
}

/// Why a price table could not be read at all.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PriceTableError {
    /// Not JSON.
    InvalidJson { line: usize, column: usize, message: String },
    /// JSON, but without a `prices` array.
    NoPrices,
}

impl fmt::Display for PriceTableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PriceTableError::InvalidJson { line, column, message } => {
                write!(f, "price table, line {line}, column {column}: {message}")
            }
            PriceTableError::NoPrices => {
                write!(f, "price table: expected an object with a `prices` array")
            }
        }
    }
}

impl std::error::Error for PriceTableError {}

impl PriceTable {
    /// The shipped snapshot.
    pub fn shipped() -> Result<(PriceTable, Vec<PriceDiagnostic>), PriceTableError> {
        PriceTable::parse(SHIPPED_PRICES_JSON)
    }

    /// Parses a table in the `prices.json` format. Bad entries become diagnostics.
    pub fn parse(text: &str) -> Result<(PriceTable, Vec<PriceDiagnostic>), PriceTableError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| PriceTableError::InvalidJson {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        let Some(rows) = value.get("prices").and_then(Value::as_array) else {
            return Err(PriceTableError::NoPrices);
        };
        let text_of = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        let mut entries = Vec::new();
        let mut diagnostics = Vec::new();
        for (index, row) in rows.iter().enumerate() {
            let mut bad = |field: &'static str, message: String| {
                diagnostics.push(PriceDiagnostic { index, field, message });
            };
            let provider = match row.get("provider").and_then(Value::as_str) {
                Some(slug) => match ProviderId::from_slug(slug) {
                    Some(p) => p,
                    None => {
                        bad("provider", format!("unknown provider `{slug}`"));
                        continue;
                    }
                },
                None => {
                    bad("provider", "missing (expected a provider slug such as \"openai\")".into());
                    continue;
                }
            };
            let model = match row.get("model").and_then(Value::as_str).map(str::trim) {
                Some(m) if !m.is_empty() => m.to_string(),
                _ => {
                    bad("model", "missing or empty".into());
                    continue;
                }
            };
            let mut price_of = |field: &'static str| match row.get(field) {
                Some(v) => match v.as_f64() {
                    Some(x) if x.is_finite() && x >= 0.0 => Some(x),
                    _ => {
                        bad(
                            field,
                            format!("expected a non-negative number of USD per 1M tokens, got {v}"),
                        );
                        None
                    }
                },
                None => {
                    bad(field, "missing".into());
                    None
                }
            };
            let (Some(input), Some(output)) = (price_of("input"), price_of("output")) else {
                continue;
            };
            let aliases = row
                .get("aliases")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(|s| s.trim().to_owned()).collect())
                .unwrap_or_default();
            entries.push(PriceEntry {
                provider,
                model,
                aliases,
                price: Price { input_per_million: input, output_per_million: output },
            });
        }
        Ok((
            PriceTable {
                snapshot_date: text_of("snapshot_date"),
                source: text_of("source"),
                entries,
            },
            diagnostics,
        ))
    }

    /// The price of `model` at `provider`: local servers are free; otherwise the entry whose
    /// name or one of whose aliases is the model's (case aside), and nothing else — no fallback
    /// to a shorter name, which crosses tiers (`o3-pro` is not `o3`, `o4-mini-deep-research`
    /// is not `o4-mini`, a dated snapshot may cost what its alias does not). OpenRouter's
    /// `vendor/model` ids fall back to the vendor's own entry of that exact name. `None` when
    /// unknown: the Run screen asks for the price.
    pub fn lookup(&self, provider: ProviderId, model: &str) -> Option<Price> {
        if provider.preset().local {
            return Some(Price::ZERO);
        }
        let model = model.trim();
        let found = self.lookup_exact(provider, model);
        if found.is_some() || provider != ProviderId::OpenRouter {
            return found;
        }
        let (vendor, name) = model.split_once('/')?;
        let vendor = match vendor {
            "google" => ProviderId::Gemini,
            "mistralai" => ProviderId::Mistral,
            "deepseek" => ProviderId::DeepSeek,
            other => ProviderId::from_slug(other)?,
        };
        self.lookup_exact(vendor, name)
    }

    fn lookup_exact(&self, provider: ProviderId, model: &str) -> Option<Price> {
        self.entries
            .iter()
            .filter(|e| e.provider == provider)
            .find(|e| {
                e.model.eq_ignore_ascii_case(model)
                    || e.aliases.iter().any(|a| a.eq_ignore_ascii_case(model))
            })
            .map(|e| e.price)
    }
}

/// The shape of a planned run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EstimateInput {
    pub items: u64,
    pub attributes: u64,
    /// Samples per (item, attribute).
    pub samples: u64,
    /// Samples one call draws (`n` where supported, else 1): the prompt is paid once per call.
    pub samples_per_call: u64,
    /// Average rendered prompt length, in characters.
    pub prompt_chars: u64,
    /// Expected output tokens per sample (e.g. a few for "Rating: 4", more with explanations).
    pub output_tokens_per_sample: u64,
}

/// A cost estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` when the model is not in the price table.
    pub cost_usd: Option<f64>,
}

/// Estimates a run: items × attributes × samples × tokens × price.
pub fn estimate_run(input: EstimateInput, price: Option<Price>) -> Estimate {
    let per_call = input.samples_per_call.max(1);
    let calls_per_prompt = input.samples.div_ceil(per_call);
    let prompts = input.items * input.attributes;
    let calls = prompts * calls_per_prompt;
    let input_tokens = calls * estimate_tokens(input.prompt_chars);
    let output_tokens = prompts * input.samples * input.output_tokens_per_sample;
    let cost_usd = price.map(|p| {
        p.cost_usd(Usage {
            prompt_tokens: input_tokens,
            completion_tokens: output_tokens,
            reasoning_tokens: 0,
        })
    });
    Estimate { calls, input_tokens, output_tokens, cost_usd }
}

/// Running totals of what a run has spent, from reported usage where there is one and from the
/// estimate where a provider reports none.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CostMeter {
    pub usage: Usage,
    /// Cost from reported usage (or a provider-reported cost).
    pub reported_usd: f64,
    /// Cost of calls without reported usage, estimated.
    pub estimated_usd: f64,
    /// Calls that came back without usage.
    pub calls_without_usage: u64,
    /// Calls whose cost the provider reported itself (OpenRouter's `usage.cost`), used instead
    /// of usage × price.
    pub calls_provider_priced: u64,
}

impl CostMeter {
    /// Adds one call. `estimated_usd` is used only when `usage` is `None`.
    pub fn record(&mut self, usage: Option<Usage>, price: Option<Price>, estimated_usd: f64) {
        self.record_reported(usage, None, price, estimated_usd);
    }

    /// [`CostMeter::record`] with the provider's own figure of the call's cost, which replaces
    /// usage × price (and the estimate) when there is one.
    pub fn record_reported(
        &mut self,
        usage: Option<Usage>,
        reported_usd: Option<f64>,
        price: Option<Price>,
        estimated_usd: f64,
    ) {
        if let Some(cost) = reported_usd.filter(|c| c.is_finite() && *c >= 0.0) {
            if let Some(u) = usage {
                self.usage.add(u);
            }
            self.reported_usd += cost;
            self.calls_provider_priced += 1;
            return;
        }
        match usage {
            Some(u) => {
                self.usage.add(u);
                self.reported_usd += price.map_or(0.0, |p| p.cost_usd(u));
            }
            None => {
                self.calls_without_usage += 1;
                self.estimated_usd += estimated_usd;
            }
        }
    }

    /// Total spend so far.
    pub fn total_usd(&self) -> f64 {
        self.reported_usd + self.estimated_usd
    }

    /// The spend projected to the end of the run from what `done` of `total` calls cost, to
    /// show next to the estimate made before the run. `None` before the first call.
    pub fn projected_total_usd(&self, done: u64, total: u64) -> Option<f64> {
        (done > 0).then(|| self.total_usd() / done as f64 * total.max(done) as f64)
    }
}
