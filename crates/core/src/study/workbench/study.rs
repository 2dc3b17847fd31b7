//! A study: which attributes are judged, and by which methods (one prompt configuration each).
//!
//! A [`Method`] is one row of seed 002's tables: an output mode, auto-CoT or not, a persona,
//! sampling settings, a parser policy, and the concrete per-attribute prompt templates (the
//! built-in ones of the papers, or a generic G-Eval-style template, as edited by the user).
//! [`grid`] expands a comparison grid (modes × auto-CoT × temperatures × personas) into methods.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, RatingItem, Scale};
use crate::judge::ChatRequest;
use crate::judge::aggregate::WeightFallback;
use crate::judge::builtin::{Benchmark, OutputMode, builtin};
use crate::judge::parse::Policy;
use crate::judge::protocol::Sampling;
use crate::judge::template::{Part, PartKind, Persona, PromptTemplate};
use crate::run::provider::{
    Capabilities, EndpointEntry, REASONING_DEFAULT_MAX_TOKENS, REASONING_MIN_MAX_TOKENS,
};

/// One judging configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// Unique within the study; the results table's row name.
    pub name: String,
    pub mode: OutputMode,
    pub auto_cot: bool,
    pub persona: Persona,
    pub sampling: Sampling,
    /// How each sample is read.
    pub policy: Policy,
    /// G-Eval's probability-weighted score: each sample is scored at its rating's token as
    /// Σ p(s)·s over the scale's tokens (the request asks for top log-probabilities), and a
    /// sample that cannot be weighted is dropped or read plainly, as chosen. `None`: the
    /// parsed rating.
    #[serde(default)]
    pub weighting: Option<WeightFallback>,
    /// Structured output: the requests carry the mode's JSON schema
    /// ([`crate::judge::builtin::rating_schema`]) and the answers are read with the `json`
    /// parser.
    #[serde(default)]
    pub structured: bool,
    /// The prompt per attribute, after the user's edits.
    pub templates: BTreeMap<String, PromptTemplate>,
}

impl Method {
    /// The template for `attribute`, if the method judges it.
    pub fn template(&self, attribute: &str) -> Option<&PromptTemplate> {
        self.templates.get(attribute)
    }
}

/// The attributes judged and the methods compared.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Study {
    pub attributes: Vec<String>,
    pub methods: Vec<Method>,
    /// Where each attribute's auto-CoT evaluation steps come from (see [`super::steps`]);
    /// absent in studies saved before it existed, whose templates carry their steps as written.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub steps: BTreeMap<String, StepsSource>,
    /// Made by [`default_study`] and not yet the user's: the first methods added replace its
    /// method. Cleared when methods are added (see [`is_default_study`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suggested: bool,
}

impl Study {
    /// The method called `name`.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }
}

/// Which of the papers' built-in prompt sets fits a dataset, judged by its fields: a
/// dialogue with a fact (`source` + `context`) is Topical-Chat; anything else with the
/// attribute names of SummEval is SummEval-like (an article and a summary).
pub fn benchmark_for(dataset: &Dataset, attribute: &str) -> Option<Benchmark> {
    let item = dataset.items.first()?;
    let dialogue = item.inputs.get("context").is_some() && item.inputs.get("source").is_some();
    let candidates = if dialogue {
        [Benchmark::TopicalChat, Benchmark::SummEval]
    } else {
        [Benchmark::SummEval, Benchmark::TopicalChat]
    };
    candidates.into_iter().find(|b| {
        let fits_fields = (*b == Benchmark::TopicalChat) == dialogue;
        fits_fields && b.attributes().iter().any(|a| a.eq_ignore_ascii_case(attribute))
    })
}

/// The default prompt for `attribute`: the paper's built-in template when the dataset fits
/// one (placeholders re-bound to the dataset's field names), else a generic G-Eval-style
/// template with the same parts. With auto-CoT the built-in template carries G-Eval's released
/// steps; the generic one an empty Steps part, filled by [`Study::apply_steps`] from the steps
/// the judge wrote or the user's own (the plan refuses a "+cot" prompt without steps).
pub fn default_template(
    dataset: &Dataset,
    attribute: &str,
    mode: OutputMode,
    auto_cot: bool,
) -> PromptTemplate {
    let builtin_template =
        benchmark_for(dataset, attribute).and_then(|b| builtin(b, attribute, mode, auto_cot).ok());
    match (builtin_template, dataset.items.first()) {
        (Some(t), Some(item)) => rebind(t, item),
        (Some(t), None) => t,
        (None, item) => generic_template(dataset, item, attribute, mode, auto_cot),
    }
}

/// Points bindings whose field the item lacks at the item's own fields: the output at the
/// output field, an input at the first input field.
fn rebind(mut template: PromptTemplate, item: &RatingItem) -> PromptTemplate {
    let first_input = item.inputs.names().next().map(str::to_owned);
    for (placeholder, field) in &mut template.bindings {
        if item.field(field).is_some() {
            continue;
        }
        let output_like =
            matches!(placeholder.as_str(), "Summary" | "Response") || field == "system_output";
        if output_like {
            *field = item.output_name.clone();
        } else if let Some(input) = &first_input {
            *field = input.clone();
        }
    }
    template
}

fn title_case(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect::<String>().replace('_', " "),
        None => String::new(),
    }
}

fn scale_text(scale: Option<Scale>) -> String {
    match scale {
        Some(s) => format!("{}-{}", s.min, s.max),
        None => "1-5".to_owned(),
    }
}

/// The sentence a generic template's criteria end with until the user writes their own: a
/// prompt that still holds it is not sent without asking ([`super::checks`]).
pub const PLACEHOLDER_CRITERION: &str = "Edit this definition to match your annotation guidelines.";

/// The study a dataset opens with on the Judge screen: every attribute, and one method —
/// rate-explain (a rating with its explanation, among the best of seed 002's output modes),
/// one sample at temperature 1, at most 128 tokens, read by Concord's parser — the choices the
/// "Add methods" panel starts with. No method for a dataset without rated items.
pub fn default_study(dataset: &Dataset) -> Study {
    let attributes: Vec<String> = dataset.attributes.iter().map(|a| a.name.clone()).collect();
    let methods = if dataset.items.is_empty() || attributes.is_empty() {
        Vec::new()
    } else {
        grid(dataset, &attributes, &default_grid())
    };
    let suggested = !methods.is_empty();
    Study { attributes, methods, steps: Default::default(), suggested }
}

/// The "Add methods" panel's starting choices, and the default study's method.
pub fn default_grid() -> GridSpec {
    GridSpec {
        modes: vec![OutputMode::RateExplain],
        auto_cot: vec![false],
        personas: vec![Persona::None],
        temperatures: vec![Some(1.0)],
        sampling: Sampling {
            n: 1,
            temperature: Some(1.0),
            top_p: None,
            max_tokens: Some(128),
            logprobs: None,
        },
        policy: Policy::Concord,
        weighting: None,
        structured: false,
    }
}

/// Whether `study` is still [`default_study`] of `dataset`, its method untouched and no
/// method added since ([`Study::suggested`]): adding methods then replaces that method instead
/// of adding to it. The attributes ticked are not
/// part of it (unticking one before adding methods is choosing what to judge, not editing
/// the suggestion).
pub fn is_default_study(study: &Study, dataset: &Dataset) -> bool {
    let suggested = default_study(dataset);
    let mut ticked = study.clone();
    ticked.attributes = suggested.attributes.clone();
    study.suggested && !study.methods.is_empty() && ticked == suggested
}

/// A generic template in the shape of seed 002's prompts, for datasets without a built-in one.
fn generic_template(
    dataset: &Dataset,
    item: Option<&RatingItem>,
    attribute: &str,
    mode: OutputMode,
    auto_cot: bool,
) -> PromptTemplate {
    let label = title_case(attribute);
    let scale = dataset.attribute_index(attribute).and_then(|i| dataset.attributes.get(i));
    let range = scale_text(scale.map(|a| a.scale));
    let mut parts = vec![
        Part::new(
            PartKind::Task,
            "You will be given an output written for an input.\n\nYour task is to rate the output \
             on one metric.\n\nPlease make sure you read and understand these instructions \
             carefully. Please keep this document open while reviewing, and refer to it as \
             needed.\n\n",
        ),
        Part::new(
            PartKind::Criteria,
            format!(
                "Evaluation Criteria:\n\n{label} ({range}) - how good the output is in terms of \
                 {attribute}. {PLACEHOLDER_CRITERION}\n\n"
            ),
        ),
    ];
    if auto_cot {
        // No steps of our own: the judge writes them, or the user does (`super::steps`).
        parts.push(Part::new(PartKind::Steps, String::new()));
    }
    let mut sample = String::from("Example:\n\n");
    if let Some(item) = item {
        for name in item.inputs.names() {
            sample.push_str(&format!("{}:\n\n{{{{{name}}}}}\n\n", title_case(name)));
        }
        sample.push_str(&format!("Output:\n\n{{{{{}}}}}", item.output_name));
    }
    parts.push(Part::new(PartKind::Sample, sample));
    let output = match mode {
        OutputMode::ScoreOnly => format!("\n\n\nEvaluation Form (scores ONLY):\n\n- {label}:\n"),
        OutputMode::FreeText => format!(
            "\n\n\nQuestion:\nHow good is the output in terms of {attribute}? (On a scale of \
             {range}, with the lowest being the worst)\n"
        ),
        OutputMode::RateExplain => format!(
            "\n\n\nEvaluation Form (Answer by starting with \"Rating:\" and then give the \
             explanation of the rating on the next line by \"Rationale:\"):\n\n- {label}:\n"
        ),
        OutputMode::AnalyzeRate => format!(
            "\n\n\nEvaluation Form (Answer by starting with \"Analysis:\" to analyze the given \
             example regarding the evaluation criteria as concise as possible, and then give \
             the numeric rating on the next line by \"Rating:):\n\n- {label}:\n"
        ),
    };
    parts.push(Part::new(PartKind::Output, output));
    PromptTemplate::new(parts)
}

/// The methods of `study` whose Max tokens leaves a reasoning model too little room to think
/// and answer (below [`REASONING_MIN_MAX_TOKENS`]): empty unless `caps` is a reasoning model's.
pub fn short_budgets<'a>(study: &'a Study, caps: &Capabilities) -> Vec<&'a str> {
    if !caps.reasoning {
        return Vec::new();
    }
    study
        .methods
        .iter()
        .filter(|m| m.sampling.max_tokens.is_some_and(|t| t < REASONING_MIN_MAX_TOKENS))
        .map(|m| m.name.as_str())
        .collect()
}

/// What the study needs from a model, for "Check this model" ([`crate::run::check`]).
pub fn check_needs(study: &Study) -> crate::run::check::Needs {
    crate::run::check::Needs {
        logprobs: study.methods.iter().any(|m| m.weighting.is_some()),
        max_n: study.methods.iter().map(|m| m.sampling.n).max().unwrap_or(1),
        schema: study
            .methods
            .iter()
            .find(|m| m.structured)
            .map(|m| crate::judge::builtin::rating_schema(m.mode)),
        min_max_tokens: study.methods.iter().filter_map(|m| m.sampling.max_tokens).min(),
    }
}

/// The methods a checked model cannot serve, with why: weighted methods where it refused
/// log-probabilities, "+json" methods where it refused the schema, every method where its
/// thinking left no room for the answer. (A refused `n` is served by looping: not flagged.)
pub fn unservable(study: &Study, check: &crate::run::check::ModelCheck) -> Vec<(String, String)> {
    use crate::run::check::{Probe, Verdict};
    let refused = |p: Probe| check.result(p).filter(|r| r.verdict == Verdict::Refused);
    let mut out = Vec::new();
    for m in &study.methods {
        let mut why = Vec::new();
        if m.weighting.is_some()
            && let Some(r) = refused(Probe::Logprobs)
        {
            why.push(format!("no log-probabilities ({})", r.words));
        }
        if m.structured
            && let Some(r) = refused(Probe::Schema)
        {
            why.push(format!("no JSON schema ({})", r.words));
        }
        if let Some(r) = refused(Probe::ReasoningBudget) {
            why.push(format!("its thinking leaves no room for the answer ({})", r.words));
        }
        if !why.is_empty() {
            out.push((m.name.clone(), why.join("; ")));
        }
    }
    out
}

/// What a reasoning model needs of Max tokens, in words, when `methods` have too little.
pub fn short_budget_warning(model: &str, methods: &[&str]) -> Option<String> {
    (!methods.is_empty()).then(|| {
        format!(
            "{} is a reasoning model: it thinks before it answers, and its thinking counts against Max tokens. {} {} less than {REASONING_MIN_MAX_TOKENS} tokens, so {} will likely be cut off before the rating; add {} again with Max tokens of {REASONING_DEFAULT_MAX_TOKENS} or more on the Judge screen.",
            model.trim(),
            methods.join(", "),
            if methods.len() == 1 { "has" } else { "have" },
            if methods.len() == 1 { "its answers" } else { "their answers" },
            if methods.len() == 1 { "it" } else { "them" },
        )
    })
}

/// What to vary in a comparison grid; one method per combination.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GridSpec {
    pub modes: Vec<OutputMode>,
    pub auto_cot: Vec<bool>,
    pub personas: Vec<Persona>,
    pub temperatures: Vec<Option<f64>>,
    /// Settings shared by every method (its temperature is overridden per cell).
    pub sampling: Sampling,
    pub policy: Policy,
    /// Every method of the grid probability-weighted (G-Eval), with this fallback: the
    /// requests ask for the top [`WEIGHTING_TOP_LOGPROBS`] log-probabilities (as many as the
    /// provider gives) and the names end in ` +weighted`.
    #[serde(default)]
    pub weighting: Option<WeightFallback>,
    /// Every method of the grid asks for structured output (names end in ` +json`; read with
    /// the `json` parser).
    #[serde(default)]
    pub structured: bool,
}

/// How many alternatives a probability-weighted method asks for at each token (OpenAI's
/// maximum; providers that give fewer are asked for their maximum).
pub const WEIGHTING_TOP_LOGPROBS: u8 = 20;

/// A method's name from its settings: `rate-explain`, `rate-explain +cot`, `… T=0.7`, `… hhh`.
pub fn method_name(
    mode: OutputMode,
    auto_cot: bool,
    persona: Persona,
    temperature: Option<f64>,
) -> String {
    let mut name = mode.name().to_owned();
    if auto_cot {
        name.push_str(" +cot");
    }
    match persona {
        Persona::None => {}
        Persona::Hhh => name.push_str(" hhh"),
        Persona::HumanAnnotator => name.push_str(" annotator"),
    }
    if let Some(t) = temperature {
        name.push_str(&format!(" T={t}"));
    }
    name
}

/// One method with default templates for every attribute.
pub fn method(
    dataset: &Dataset,
    attributes: &[String],
    mode: OutputMode,
    auto_cot: bool,
    persona: Persona,
    sampling: Sampling,
    policy: Policy,
) -> Method {
    let templates = attributes
        .iter()
        .map(|a| (a.clone(), persona.apply(default_template(dataset, a, mode, auto_cot))))
        .collect();
    Method {
        name: method_name(mode, auto_cot, persona, None),
        mode,
        auto_cot,
        persona,
        sampling,
        policy,
        weighting: None,
        structured: false,
        templates,
    }
}

/// Expands a grid into methods, in the order modes × auto-CoT × personas × temperatures.
/// Temperatures are written into the names only when more than one is compared.
pub fn grid(dataset: &Dataset, attributes: &[String], spec: &GridSpec) -> Vec<Method> {
    let vary_t = spec.temperatures.len() > 1;
    let temperatures = if spec.temperatures.is_empty() {
        vec![spec.sampling.temperature]
    } else {
        spec.temperatures.clone()
    };
    let mut out = Vec::new();
    for &mode in &spec.modes {
        for &cot in &spec.auto_cot {
            for &persona in &spec.personas {
                for &t in &temperatures {
                    let sampling = Sampling { temperature: t, ..spec.sampling.clone() };
                    let mut m =
                        method(dataset, attributes, mode, cot, persona, sampling, spec.policy);
                    m.name = method_name(mode, cot, persona, vary_t.then_some(t).flatten());
                    if spec.structured {
                        m.structured = true;
                        m.policy = Policy::Json;
                        m.name.push_str(" +json");
                    }
                    if let Some(fallback) = spec.weighting {
                        m.weighting = Some(fallback);
                        m.sampling.logprobs = Some(WEIGHTING_TOP_LOGPROBS);
                        m.name.push_str(" +weighted");
                    }
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Why the sampling fields of the methods grid cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SamplingInputError {
    #[error(
        "Temperatures: `{0}` is not a number; write numbers separated by commas, e.g. 0, 0.7, 1"
    )]
    NotANumber(String),
    #[error(
        "Temperatures: {value} is outside what {provider} accepts ({min} to {max}); pick values in that range"
    )]
    TemperatureOutOfRange { value: f64, min: f64, max: f64, provider: String },
    #[error("Samples N: `{0}` is not a whole number from 1 to 100")]
    Samples(String),
    #[error("top_p: `{0}` is not a number from 0 to 1 (leave it empty for the provider's default)")]
    TopP(String),
    #[error(
        "Max tokens: `{0}` is not a whole number of at least 1 (leave it empty for the default)"
    )]
    MaxTokens(String),
}

/// The methods grid's sampling fields as typed: temperatures (comma- or space-separated; empty
/// means the provider's default), samples N, top_p and max tokens (empty: the default),
/// checked against `temperature_range` (the provider's, named `provider` in messages).
pub fn parse_sampling_fields(
    temperatures: &str,
    samples: &str,
    top_p: &str,
    max_tokens: &str,
    temperature_range: (f64, f64),
    provider: &str,
) -> Result<(Vec<Option<f64>>, Sampling), SamplingInputError> {
    let mut temps = Vec::new();
    for t in temperatures.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty()) {
        let value: f64 = t
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| SamplingInputError::NotANumber(t.to_owned()))?;
        let (min, max) = temperature_range;
        if value < min || value > max {
            return Err(SamplingInputError::TemperatureOutOfRange {
                value,
                min,
                max,
                provider: provider.to_owned(),
            });
        }
        if !temps.contains(&Some(value)) {
            temps.push(Some(value));
        }
    }
    if temps.is_empty() {
        temps.push(None);
    }
    let n: u32 = samples
        .trim()
        .parse()
        .ok()
        .filter(|n| (1..=100).contains(n))
        .ok_or_else(|| SamplingInputError::Samples(samples.trim().to_owned()))?;
    let top_p = match top_p.trim() {
        "" => None,
        t => Some(
            t.parse::<f64>()
                .ok()
                .filter(|p| (0.0..=1.0).contains(p))
                .ok_or_else(|| SamplingInputError::TopP(t.to_owned()))?,
        ),
    };
    let max_tokens = match max_tokens.trim() {
        "" => None,
        t => Some(
            t.parse::<u32>()
                .ok()
                .filter(|m| *m >= 1)
                .ok_or_else(|| SamplingInputError::MaxTokens(t.to_owned()))?,
        ),
    };
    let sampling = Sampling { n, temperature: None, top_p, max_tokens, logprobs: None };
    Ok((temps, sampling))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod sampling_fields_tests {
    use super::*;

    fn parse(t: &str, n: &str) -> Result<Vec<Option<f64>>, SamplingInputError> {
        parse_sampling_fields(t, n, "", "128", (0.0, 2.0), "OpenAI").map(|(t, _)| t)
    }

    #[test]
    fn fields_are_checked_not_dropped() {
        assert_eq!(parse("0, 0.7 1", "1"), Ok(vec![Some(0.0), Some(0.7), Some(1.0)]));
        assert_eq!(parse("", "1"), Ok(vec![None]));
        assert_eq!(parse("abc", "1"), Err(SamplingInputError::NotANumber("abc".into())));
        assert!(matches!(
            parse("3", "1"),
            Err(SamplingInputError::TemperatureOutOfRange { value: 3.0, max: 2.0, .. })
        ));
        assert_eq!(parse("1", "0"), Err(SamplingInputError::Samples("0".into())));
        assert_eq!(parse("1", "x"), Err(SamplingInputError::Samples("x".into())));
        let err = parse_sampling_fields("1", "1", "1.5", "", (0.0, 2.0), "OpenAI").unwrap_err();
        assert_eq!(err, SamplingInputError::TopP("1.5".into()));
        let (_, s) = parse_sampling_fields("1", "20", "0.9", "", (0.0, 2.0), "OpenAI").unwrap();
        assert_eq!((s.n, s.top_p, s.max_tokens), (20, Some(0.9), None));
        assert!(parse_sampling_fields("1", "1", "", "0", (0.0, 2.0), "x").is_err());
        assert!(
            parse_sampling_fields("3", "1", "", "", (0.0, 1.0), "Anthropic")
                .unwrap_err()
                .to_string()
                .contains("outside what Anthropic accepts (0 to 1)")
        );
    }
}

/// Where an attribute's evaluation steps come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepsSource {
    /// G-Eval's released steps for the built-in prompt of this attribute (SummEval- and
    /// Topical-Chat-like datasets only), byte for byte.
    Released,
    /// Steps the judge wrote from the task and criteria.
    Judge(Box<WrittenSteps>),
    /// The user's own steps.
    Own { text: String },
}

impl StepsSource {
    /// The source's name as the Judge screen shows it.
    pub fn label(&self) -> &'static str {
        match self {
            StepsSource::Released => "G-Eval's released steps",
            StepsSource::Judge(_) => "written by the judge",
            StepsSource::Own { .. } => "my own steps",
        }
    }
}

/// Evaluation steps an LLM wrote (G-Eval's auto-CoT), with what made them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WrittenSteps {
    /// Where the request went: provider, base URL (without user info or query) and model.
    pub endpoint: EndpointEntry,
    /// The method whose task and criteria were asked about.
    pub method: String,
    /// The request, as sent (its cache key is sample 0 of it at `endpoint`).
    pub request: ChatRequest,
    /// The judge's answer, as received.
    pub answer: String,
    /// The steps every "+cot" method uses: the answer, trimmed, as the user edited it.
    pub steps: String,
}
