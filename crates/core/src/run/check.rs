//! "Check this model": before a study spends money, one tiny request per capability the study
//! needs — a plain answer, log-probabilities, several samples a call, a JSON schema, the
//! reasoning budget — each judged as works or refused, in the provider's own words, with what
//! Concord will do about it. The result is kept per provider and model; a run starts from it
//! (what was refused is never sent) and the Judge screen flags the methods the model cannot
//! serve.
//!
//! The edge sends [`probe_call`]'s requests and hands each outcome to [`judge_probe`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::{ChatRequest, Message};
use crate::run::error::{ApiError, ErrorKind};
use crate::run::provider::{Api, Capabilities, Endpoint, Param, REASONING_DEFAULT_MAX_TOKENS};
use crate::run::response::{ChatResponse, FinishReason};

/// A capability a study may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Probe {
    /// A plain answer: the model exists, the key works, the browser can read the answer.
    Plain,
    /// Top log-probabilities (probability-weighted methods).
    Logprobs,
    /// Several samples in one call (`n`, `candidateCount`).
    Samples,
    /// An answer following a JSON schema ("+json" methods).
    Schema,
    /// A reasoning model's answer within the study's smallest Max tokens.
    ReasoningBudget,
}

impl Probe {
    /// What is checked, in words.
    pub fn label(self) -> &'static str {
        match self {
            Probe::Plain => "plain answer",
            Probe::Logprobs => "log-probabilities",
            Probe::Samples => "several samples a call (N > 1)",
            Probe::Schema => "JSON schema",
            Probe::ReasoningBudget => "reasoning within Max tokens",
        }
    }

    /// A stable name (tests, `data-probe`).
    pub fn name(self) -> &'static str {
        match self {
            Probe::Plain => "plain",
            Probe::Logprobs => "logprobs",
            Probe::Samples => "samples",
            Probe::Schema => "schema",
            Probe::ReasoningBudget => "reasoning",
        }
    }
}

/// What a study needs from the model (`study::workbench::Study::check_needs`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Needs {
    /// A method weighs ratings by log-probabilities.
    pub logprobs: bool,
    /// The largest N of the study's methods.
    pub max_n: u32,
    /// The JSON schema of a "+json" method, if the study has one.
    pub schema: Option<Value>,
    /// The smallest Max tokens of the study's methods.
    pub min_max_tokens: Option<u32>,
}

/// The probes a study needs on this model: always a plain answer; the rest as the study asks.
pub fn probes(needs: &Needs, caps: &Capabilities) -> Vec<Probe> {
    let mut out = vec![Probe::Plain];
    if needs.logprobs {
        out.push(Probe::Logprobs);
    }
    if needs.max_n > 1 {
        out.push(Probe::Samples);
    }
    if needs.schema.is_some() {
        out.push(Probe::Schema);
    }
    if caps.reasoning {
        out.push(Probe::ReasoningBudget);
    }
    out
}

/// The tiny request of a probe, and the capabilities to build it with: the table's, except
/// that the probed parameter is asked for where the provider's wire can carry it (to hear the
/// provider's own words about it). `None`: the wire cannot carry it (Anthropic has no
/// log-probabilities and no `n`); the table's answer stands.
pub fn probe_call(
    probe: Probe,
    needs: &Needs,
    endpoint: &Endpoint,
    caps: &Capabilities,
) -> Option<(ChatRequest, Capabilities)> {
    let anthropic = endpoint.provider.api() == Api::Anthropic;
    let mut caps = caps.clone();
    let mut req = ChatRequest {
        messages: vec![Message::user(
            "This is a connection check. Reply with the digit 3 and nothing else.",
        )],
        temperature: None,
        top_p: None,
        n: 1,
        max_tokens: Some(16),
        logprobs: None,
        stop: Vec::new(),
        tag: format!("check/{}", probe.name()),
        schema: None,
    };
    match probe {
        Probe::Plain => {}
        Probe::Logprobs => {
            if anthropic {
                return None;
            }
            req.logprobs = Some(5);
            if caps.max_top_logprobs.is_none() {
                caps.max_top_logprobs = Some(5);
            }
            // Probed as asked; a reasoning model is judged on its own refusal.
            caps.reasoning = false;
        }
        Probe::Samples => {
            if anthropic {
                return None;
            }
            req.n = 2;
            caps.max_n = caps.max_n.max(2);
        }
        Probe::Schema => {
            req.schema = needs.schema.clone();
            req.messages = vec![Message::user(
                "This is a connection check. Rate the sentence \"The cat sat.\" for fluency from 1 to 5.",
            )];
            req.max_tokens = Some(256);
        }
        Probe::ReasoningBudget => {
            req.max_tokens = Some(needs.min_max_tokens.unwrap_or(REASONING_DEFAULT_MAX_TOKENS));
        }
    }
    Some((req, caps))
}

/// How a probe went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The model does it.
    Works,
    /// The provider refused it (or answered without it): Concord plans around it.
    Refused,
    /// The check itself failed (network, key, model): nothing is known yet.
    Failed,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Works => "works",
            Verdict::Refused => "refused",
            Verdict::Failed => "failed",
        }
    }
}

/// One probe's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeResult {
    pub probe: Probe,
    pub verdict: Verdict,
    /// What the provider said (its own words when it refused).
    pub words: String,
    /// What Concord will do about it.
    pub action: String,
    /// The parameter a run will not send because of it.
    #[serde(default)]
    pub drops: Option<String>,
}

/// A probe's outcome: the answer, or the classified failure.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    Answered(ChatResponse),
    Failed(ApiError),
    /// The wire cannot carry the capability (see [`probe_call`]).
    NotOnThisApi,
}

/// Judges a probe's outcome.
pub fn judge_probe(probe: Probe, needs: &Needs, outcome: &ProbeOutcome) -> ProbeResult {
    let result = |verdict, words: String, action: &str, drops: Option<Param>| ProbeResult {
        probe,
        verdict,
        words,
        action: action.to_owned(),
        drops: drops.map(|p| p.name().to_owned()),
    };
    let refused_param = |e: &ApiError| match e.kind {
        ErrorKind::BadParameter(p) => Some(p),
        _ => None,
    };
    match (probe, outcome) {
        (_, ProbeOutcome::NotOnThisApi) => match probe {
            Probe::Logprobs => result(
                Verdict::Refused,
                "This provider's API has no log-probabilities.".into(),
                "Probability-weighted methods cannot be weighted on this model: their samples are counted as not weighted and left out.",
                Some(Param::Logprobs),
            ),
            _ => result(
                Verdict::Refused,
                "This provider's API draws one sample a call.".into(),
                "Concord asks for one sample a call (N calls for N samples).",
                Some(Param::N),
            ),
        },
        (_, ProbeOutcome::Failed(e)) if e.stops_run() || e.is_retryable() => result(
            Verdict::Failed,
            e.to_string(),
            "Nothing is known about this capability yet: fix the problem above and check again.",
            None,
        ),
        (Probe::Plain, ProbeOutcome::Failed(e)) => result(
            Verdict::Failed,
            e.to_string(),
            "The model did not answer a plain request: a run would fail the same way.",
            None,
        ),
        (Probe::Plain, ProbeOutcome::Answered(r)) => {
            let text = r.choices.first().map(|c| c.text.trim().to_owned()).unwrap_or_default();
            result(Verdict::Works, format!("Answered: “{}”", clip(&text)), "Runs as planned.", None)
        }
        (Probe::Logprobs, ProbeOutcome::Answered(r)) => {
            // Real log-probabilities, not placeholders (DeepSeek has been reported to answer 0
            // or -9999 for every token: microsoft/PyRIT#991).
            let real = |x: &crate::judge::TokenLogprobs| {
                x.logprob > -9999.0 && (x.logprob < 0.0 || !x.top_logprobs.is_empty())
            };
            let has = r
                .choices
                .iter()
                .any(|c| c.top_logprobs.as_ref().is_some_and(|t| t.iter().any(real)));
            if has {
                result(
                    Verdict::Works,
                    "Answered with log-probabilities.".into(),
                    "Probability-weighted methods are weighted as planned.",
                    None,
                )
            } else {
                result(
                    Verdict::Refused,
                    "Answered without real log-probabilities (the parameter was accepted, but none or placeholders came back).".into(),
                    "Concord does not ask for them: probability-weighted methods' samples are counted as not weighted and left out.",
                    Some(Param::Logprobs),
                )
            }
        }
        (Probe::Logprobs, ProbeOutcome::Failed(e)) => result(
            Verdict::Refused,
            e.message.clone(),
            "Concord does not ask for log-probabilities: probability-weighted methods' samples are counted as not weighted and left out.",
            refused_param(e).or(Some(Param::Logprobs)),
        ),
        (Probe::Samples, ProbeOutcome::Answered(r)) => {
            if r.choices.len() >= 2 {
                result(
                    Verdict::Works,
                    format!("Answered {} samples in one call.", r.choices.len()),
                    "N samples are drawn in one call.",
                    None,
                )
            } else {
                result(
                    Verdict::Refused,
                    "Answered one sample when two were asked for (it ignores n).".into(),
                    "Concord asks for one sample a call (N calls for N samples; the prompt is paid N times).",
                    Some(Param::N),
                )
            }
        }
        (Probe::Samples, ProbeOutcome::Failed(e)) => result(
            Verdict::Refused,
            e.message.clone(),
            "Concord asks for one sample a call (N calls for N samples; the prompt is paid N times).",
            refused_param(e).or(Some(Param::N)),
        ),
        (Probe::Schema, ProbeOutcome::Answered(r)) => {
            let text = r.choices.first().map(|c| c.text.trim().to_owned()).unwrap_or_default();
            let json_ok = serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object());
            if json_ok {
                result(
                    Verdict::Works,
                    format!("Answered JSON: {}", clip(&text)),
                    "\"+json\" methods run as planned.",
                    None,
                )
            } else {
                result(
                    Verdict::Refused,
                    format!("Answered, but not JSON: “{}”", clip(&text)),
                    "\"+json\" methods' answers may not parse: prefer the same method without +json on this model.",
                    None,
                )
            }
        }
        (Probe::Schema, ProbeOutcome::Failed(e)) => result(
            Verdict::Refused,
            e.message.clone(),
            "\"+json\" methods cannot be served: Concord sends them without the schema, so their answers are not JSON — use the method without +json.",
            refused_param(e).or(Some(Param::ResponseFormat)),
        ),
        (Probe::ReasoningBudget, ProbeOutcome::Answered(r)) => {
            let budget = needs.min_max_tokens.unwrap_or(REASONING_DEFAULT_MAX_TOKENS);
            let reasoning = r.usage.map_or(0, |u| u.reasoning_tokens);
            let cut = r
                .choices
                .iter()
                .all(|c| c.text.trim().is_empty() || c.finish_reason == Some(FinishReason::Length));
            if cut {
                result(
                    Verdict::Refused,
                    format!(
                        "Its thinking ({reasoning} tokens) used the whole budget of {budget} tokens: no answer."
                    ),
                    "Raise Max tokens on the Judge screen (4,096 or more) or every sample will be cut off.",
                    None,
                )
            } else {
                result(
                    Verdict::Works,
                    format!("Answered within {budget} tokens ({reasoning} of them thinking)."),
                    "Thinking tokens are counted and billed as output.",
                    None,
                )
            }
        }
        (Probe::ReasoningBudget, ProbeOutcome::Failed(e)) => result(
            Verdict::Refused,
            e.message.clone(),
            "The model refused the budget: see its words.",
            refused_param(e),
        ),
    }
}

fn clip(text: &str) -> String {
    let short: String = text.chars().take(80).collect();
    if short.len() < text.len() { format!("{short}…") } else { short }
}

/// A model's check, kept per provider and model (never the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelCheck {
    pub provider: String,
    pub model: String,
    /// Unix ms of the check.
    pub at: u64,
    pub results: Vec<ProbeResult>,
}

impl ModelCheck {
    /// The key it is kept under: `provider/model`.
    pub fn key(provider: &str, model: &str) -> String {
        format!("{provider}/{}", model.trim())
    }

    /// The parameters a run of this model does not send (what the check found refused).
    pub fn refused_params(&self) -> Vec<Param> {
        self.results
            .iter()
            .filter(|r| r.verdict == Verdict::Refused)
            .filter_map(|r| r.drops.as_deref().and_then(Param::from_api_name))
            .collect()
    }

    /// A probe's result.
    pub fn result(&self, probe: Probe) -> Option<&ProbeResult> {
        self.results.iter().find(|r| r.probe == probe)
    }

    /// Applies what the check found to the capabilities a run starts with.
    /// Log-probabilities the table did not expect but the model returned are asked for (the
    /// provider's answer outweighs the table).
    pub fn apply(&self, caps: &mut Capabilities) {
        for p in self.refused_params() {
            caps.drop_param(p);
        }
        if self.result(Probe::Logprobs).is_some_and(|r| r.verdict == Verdict::Works)
            && caps.max_top_logprobs.is_none()
        {
            caps.max_top_logprobs = Some(5);
            caps.reasoning = false;
        }
    }
}
