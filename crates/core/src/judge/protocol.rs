//! Judging protocols as state machines: they emit [`ChatRequest`]s, take the responses back
//! and end with an outcome. No I/O; the run engine decides when and how requests are sent.
//!
//! Every protocol implements [`Protocol`]: [`Protocol::pending`] lists the requests waiting
//! for an answer (each with a `tag` unique within the protocol), [`Protocol::respond`] feeds
//! the responses of one of them, and [`Protocol::outcome`] is `Some` once nothing is pending.
//! Requests listed together are independent and may be sent in parallel.

use super::aggregate::{ItemScore, WeightedScore, probability_weighted};
use super::parse::{self, Policy, Verdict, VerdictError};
use super::request::{ChatRequest, ChatResponse, Message};
use super::template::{FieldLookup, PartKind, PromptTemplate, RenderError};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A judging protocol driven by the run engine.
pub trait Protocol {
    /// What the protocol produces.
    type Outcome;
    /// Requests waiting for responses; empty once the protocol is finished.
    fn pending(&self) -> Vec<ChatRequest>;
    /// Feeds the responses to the pending request tagged `tag`.
    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError>;
    /// The result, once no request is pending.
    fn outcome(&self) -> Option<Self::Outcome>;
}

/// A response that does not fit the protocol's state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// No pending request has this tag (already answered, or never asked).
    UnknownTag {
        /// The tag given.
        tag: String,
    },
    /// A request was answered with no response at all.
    NoResponse {
        /// The request's tag.
        tag: String,
    },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::UnknownTag { tag } => write!(f, "no pending request is tagged `{tag}`"),
            ProtocolError::NoResponse { tag } => {
                write!(f, "request `{tag}` was answered with no response")
            }
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Sampling settings copied into every request a protocol makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Samples per prompt.
    pub n: u32,
    /// Temperature; `None` = provider default.
    pub temperature: Option<f64>,
    /// Nucleus mass; `None` = provider default.
    pub top_p: Option<f64>,
    /// Generation limit.
    pub max_tokens: Option<u32>,
    /// `Some(k)`: ask for the top-k log-probabilities (G-Eval's weighted score).
    pub logprobs: Option<u8>,
}

impl Sampling {
    /// One sample at the provider's defaults.
    pub fn single() -> Sampling {
        Sampling { n: 1, temperature: None, top_p: None, max_tokens: None, logprobs: None }
    }

    /// Chiang & Lee's setting (002 App. C; `run.sh`): 20 samples, T = 1, top-p = 1, at most
    /// 128 tokens.
    pub fn closer_look() -> Sampling {
        Sampling {
            n: 20,
            temperature: Some(1.0),
            top_p: Some(1.0),
            max_tokens: Some(128),
            logprobs: None,
        }
    }

    /// A request with these settings.
    pub fn request(&self, tag: impl Into<String>, messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            messages,
            temperature: self.temperature,
            top_p: self.top_p,
            n: self.n,
            max_tokens: self.max_tokens,
            logprobs: self.logprobs,
            stop: Vec::new(),
            tag: tag.into(),
            schema: None,
        }
    }
}

fn texts(responses: &[ChatResponse]) -> Vec<String> {
    responses.iter().map(|r| r.text.clone()).collect()
}

/// How a pointwise judge's responses are read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Reader {
    /// The whole response under a rating policy (seed 002's prompts).
    Policy {
        /// The policy.
        policy: Policy,
    },
    /// The content of a tag (`<Rating>`, 003 Table 8) under a policy.
    Tag {
        /// The tag name.
        name: String,
        /// The policy applied to the tag's content.
        policy: Policy,
    },
}

impl Reader {
    fn read(&self, response: &str, scale: Option<(f64, f64)>) -> Result<f64, parse::ParseFailure> {
        match self {
            Reader::Policy { policy } => policy.parse(response, scale),
            Reader::Tag { name, policy } => match parse::tag(response, name) {
                Some(content) => policy.parse(content, scale),
                None => Err(parse::ParseFailure::NoNumber),
            },
        }
    }
}

/// The outcome of rating one item on one attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointwiseOutcome {
    /// Mean, failures and spread of the sampled ratings.
    pub score: ItemScore,
    /// G-Eval's probability-weighted score per sample, when log-probabilities were asked for.
    pub weighted: Vec<WeightedScore>,
    /// Mean of the weighted scores that exist.
    pub weighted_mean: Option<f64>,
    /// The raw responses, kept for inspection and re-parsing under another policy.
    pub responses: Vec<String>,
}

/// Rates one item: one prompt, `n` samples, one score (002 §3; 003 Table 8 with a tag reader).
#[derive(Debug, Clone)]
pub struct Pointwise {
    request: ChatRequest,
    reader: Reader,
    scale: Option<(f64, f64)>,
    outcome: Option<PointwiseOutcome>,
}

impl Pointwise {
    /// Renders `template` for `item` and prepares the request.
    pub fn new(
        tag: &str,
        template: &PromptTemplate,
        item: &(impl FieldLookup + ?Sized),
        sampling: &Sampling,
        reader: Reader,
        scale: Option<(f64, f64)>,
    ) -> Result<Pointwise, RenderError> {
        let prompt = template.render(item)?;
        Ok(Pointwise {
            request: sampling.request(tag, vec![Message::user(prompt)]),
            reader,
            scale,
            outcome: None,
        })
    }
}

impl Protocol for Pointwise {
    type Outcome = PointwiseOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        if self.outcome.is_some() { Vec::new() } else { vec![self.request.clone()] }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        if self.outcome.is_some() || tag != self.request.tag {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        }
        if responses.is_empty() {
            return Err(ProtocolError::NoResponse { tag: tag.to_owned() });
        }
        let samples: Vec<_> =
            responses.iter().map(|r| self.reader.read(&r.text, self.scale)).collect();
        let weighted: Vec<WeightedScore> = match (self.request.logprobs, self.scale) {
            (Some(_), Some((lo, hi))) => {
                let policy = match &self.reader {
                    Reader::Policy { policy } | Reader::Tag { policy, .. } => *policy,
                };
                responses
                    .iter()
                    .map(|r| {
                        probability_weighted(
                            &r.text,
                            r.logprobs.as_deref(),
                            (lo as i64, hi as i64),
                            policy,
                        )
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let ws: Vec<Result<f64, parse::ParseFailure>> =
            weighted.iter().filter_map(|w| w.score).map(Ok).collect();
        let weighted_mean = ItemScore::from_samples(&ws).mean;
        self.outcome = Some(PointwiseOutcome {
            score: ItemScore::from_samples(&samples),
            weighted,
            weighted_mean,
            responses: texts(responses),
        });
        Ok(())
    }

    fn outcome(&self) -> Option<PointwiseOutcome> {
        self.outcome.clone()
    }
}

/// Auto-CoT (G-Eval; 002 §3.1): ask the model once per attribute to write evaluation steps for
/// a template's task and criteria, then store them in the template's steps part.
///
/// The prompt is the template's task and criteria followed by `Evaluation Steps:`, which the
/// model continues. G-Eval does not release this prompt; this is our reading of its paper.
#[derive(Debug, Clone)]
pub struct AutoCot {
    request: ChatRequest,
    steps: Option<String>,
}

impl AutoCot {
    /// The request for `template`'s task and criteria (placeholders in them are kept as
    /// written: the steps are generated once per attribute, not per item).
    pub fn new(tag: &str, template: &PromptTemplate, sampling: &Sampling) -> AutoCot {
        let mut prompt = String::new();
        for part in &template.parts {
            if matches!(part.kind, PartKind::Persona | PartKind::Task | PartKind::Criteria) {
                prompt.push_str(&part.text);
            }
        }
        let prompt = format!("{}\n\nEvaluation Steps:\n", prompt.trim_end());
        AutoCot { request: sampling.request(tag, vec![Message::user(prompt)]), steps: None }
    }

    /// `template` with its steps part set to the generated steps, laid out like the
    /// built-in prompts (`Evaluation Steps:`, a blank line, the steps, a blank line).
    pub fn apply(steps: &str, template: &PromptTemplate) -> PromptTemplate {
        let mut t = template.clone();
        t.set_part(PartKind::Steps, format!("Evaluation Steps:\n\n{}\n\n", steps.trim()));
        t
    }
}

impl Protocol for AutoCot {
    type Outcome = String;

    fn pending(&self) -> Vec<ChatRequest> {
        if self.steps.is_some() { Vec::new() } else { vec![self.request.clone()] }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        if self.steps.is_some() || tag != self.request.tag {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        }
        // With n > 1 the first sample is kept: the steps must be one fixed text for all items.
        let first =
            responses.first().ok_or_else(|| ProtocolError::NoResponse { tag: tag.to_owned() })?;
        self.steps = Some(first.text.trim().to_owned());
        Ok(())
    }

    fn outcome(&self) -> Option<String> {
        self.steps.clone()
    }
}

/// The pairwise-comparison prompt of seed 003 Table 7 (`{{question}}`, `{{answer_1}}`,
/// `{{answer_2}}`). The paper prints it as one paragraph; the line breaks are ours, the words
/// (including "Ouestion") are the paper's.
pub const PAIRWISE_PROMPT: &str = "Please act as an impartial judge and evaluate the quality of the responses provided by two AI assistants to the user questions. You should choose the assistant that follows the user's instructions and answers the user's questions better. Your evaluation should consider factors such as the helpfulness, relevance, accuracy, depth, creativity, and level of detail of their responses. Begin your evaluation by comparing the responses of the two assistants and provide a short explanation. Avoid any position biases and ensure that the order in which the responses were presented does not influence your decision. Do not allow the length of the responses to influence your evaluation. Do not favor certain names of the assistants. Be as objective as possible. Here are questions and answers generated by two AI assistants:
***for AI assistant 1:
### Question:
{{question}}
### Answer of AI assistant 1:
{{answer_1}}
***for AI assistant 2:
### Ouestion:
{{question}}
### Answer of AI assistant 2:
{{answer_2}}
_____
Remember firstly you should provide a short explanation and then judge which AI assistant's answer is better and then decide which assistant is the winner. 1 means AI assistant 1 is the winner, 2 means AI assistant 2 is the winner, 0 means the two assistant are equally good, and there is no winner. Your explanation should be between the tag <Explanation> and </Explanation> and the winner that you choose should be between the tag <Winner> and </Winner>. Please output your judgement by strictly following this format: <Explanation> (your explanation for comparing the two assistants' answers ) </Explanation> <Winner> (0 or 1 or 2) </Winner> Remember you must output your judgement by strictly following the above format.";

/// The individual-scoring prompt for SummEval coherence (003 Table 8), `{{text}}`.
pub const INDIVIDUAL_SUMMEVAL_PROMPT: &str = "Please act as an impartial judge and evaluate the coherence of the text. Your evaluation should just consider the coherence aspect of the text. Begin your evaluation by providing a short explanation. After providing your explanation, you must rate the text on a scale of 1 to 5. Be as objective as possible. Do not allow the length of the text to influence you evaluation. Please focus solely on coherence and do not take into account any other factors. Here is the text: {{text}} Please output your evaluation by strictly following this format: <Explanation> (your explanation for evaluating the coherence of the text) </Explanation> <Rating> (give a score between 1 to 5 based on your explanation) </Rating>";

/// The individual-scoring prompt for OpenMEVA stories (003 Table 8), `{{text}}`.
pub const INDIVIDUAL_OPENMEVA_PROMPT: &str = "Please act as an impartial judge and evaluate the overall quality of the five-line story. Your evaluation should consider factors such as the coherence, fluency, consistency, interestingness and creativity of the short story. Begin your evaluation by providing a short explanation. After providing your explanation, you must rate the story on a scale of 1 to 5. Be as objective as possible. Do not allow the length of the story to influence your evaluation. Here is the story: {{text}} Please output your evaluation by strictly following this format: <Explanation> (your explanation for evaluating the story) </Explanation> <Rating> (give a score between 1 to 5 based on your explanation) </Rating>";

/// The individual-scoring template of 003 Table 8 for SummEval coherence or OpenMEVA stories
/// (placeholder `{{text}}`), to use with [`Pointwise`] and
/// `Reader::Tag { name: "Rating".into(), .. }`.
pub fn individual_template(openmeva: bool) -> PromptTemplate {
    let text = if openmeva { INDIVIDUAL_OPENMEVA_PROMPT } else { INDIVIDUAL_SUMMEVAL_PROMPT };
    PromptTemplate::new(vec![super::template::Part::new(PartKind::Other, text)])
}

/// The pairwise judge's result for one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairwiseOutcome {
    /// The verdict with the answers in the given order.
    pub original: Result<Verdict, VerdictError>,
    /// The verdict with the answers swapped, mapped back to the original orientation
    /// (`First` still means the first given answer); `None` without position swap.
    pub swapped: Option<Result<Verdict, VerdictError>>,
    /// The final verdict: the original one without swap; with swap the agreed verdict, and a
    /// tie when the two orders disagree (the judge's preference depended on position).
    pub verdict: Option<Verdict>,
    /// With swap: whether both orders gave the same verdict (`None` if either failed).
    pub consistent: Option<bool>,
    /// The raw responses (original, then swapped).
    pub responses: Vec<String>,
}

/// Pairwise comparison (003 Table 7) with an optional position swap.
#[derive(Debug, Clone)]
pub struct Pairwise {
    requests: Vec<ChatRequest>,
    answers: Vec<Option<String>>,
}

impl Pairwise {
    /// Prepares the request(s) for `question` with `answer_1` first. With `swap`, a second
    /// request presents `answer_2` first.
    pub fn new(
        tag: &str,
        template: &PromptTemplate,
        question: &str,
        answer_1: &str,
        answer_2: &str,
        swap: bool,
        sampling: &Sampling,
    ) -> Result<Pairwise, RenderError> {
        let render = |a: &str, b: &str| {
            template.render(&[("question", question), ("answer_1", a), ("answer_2", b)])
        };
        let mut requests = vec![
            sampling.request(format!("{tag}/ab"), vec![Message::user(render(answer_1, answer_2)?)]),
        ];
        if swap {
            requests.push(
                sampling
                    .request(format!("{tag}/ba"), vec![Message::user(render(answer_2, answer_1)?)]),
            );
        }
        let answers = vec![None; requests.len()];
        Ok(Pairwise { requests, answers })
    }

    /// The default template: [`PAIRWISE_PROMPT`].
    pub fn default_template() -> PromptTemplate {
        PromptTemplate::new(vec![super::template::Part::new(PartKind::Other, PAIRWISE_PROMPT)])
    }
}

impl Protocol for Pairwise {
    type Outcome = PairwiseOutcome;

    fn pending(&self) -> Vec<ChatRequest> {
        self.requests
            .iter()
            .zip(&self.answers)
            .filter(|(_, a)| a.is_none())
            .map(|(r, _)| r.clone())
            .collect()
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        let Some(i) =
            self.requests.iter().position(|r| r.tag == tag).filter(|&i| self.answers[i].is_none())
        else {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        };
        let first =
            responses.first().ok_or_else(|| ProtocolError::NoResponse { tag: tag.to_owned() })?;
        self.answers[i] = Some(first.text.clone());
        Ok(())
    }

    fn outcome(&self) -> Option<PairwiseOutcome> {
        let answers: Option<Vec<&String>> = self.answers.iter().map(Option::as_ref).collect();
        let answers = answers?;
        let read = parse::winner;
        let original = read(answers.first()?);
        let swapped = answers.get(1).map(|t| read(t).map(Verdict::swapped));
        let (verdict, consistent) = match (&original, &swapped) {
            (Ok(v), None) => (Some(*v), None),
            (Ok(a), Some(Ok(b))) => (Some(if a == b { *a } else { Verdict::Tie }), Some(a == b)),
            _ => (None, None),
        };
        Some(PairwiseOutcome {
            original,
            swapped,
            verdict,
            consistent,
            responses: answers.into_iter().cloned().collect(),
        })
    }
}

/// Position consistency and bias over many swapped pairwise outcomes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionReport {
    /// Items where both orders were read.
    pub both_read: usize,
    /// Of those, the share with the same verdict in both orders.
    pub consistency: Option<f64>,
    /// Among all read verdicts (both orders), the share that preferred whichever answer was
    /// shown first; 0.5 among decisive verdicts means no position bias.
    pub first_position_rate: Option<f64>,
    /// Decisive (non-tie) verdicts counted for `first_position_rate`.
    pub decisive: usize,
}

impl PositionReport {
    /// Summarises outcomes of [`Pairwise`] runs made with `swap`.
    pub fn from_outcomes(outcomes: &[PairwiseOutcome]) -> PositionReport {
        let mut both = 0;
        let mut same = 0;
        let mut decisive = 0;
        let mut first_shown = 0;
        for o in outcomes {
            // The swapped verdict is stored in the original orientation; undo that to ask
            // "did the judge pick the answer shown first?".
            let shown: Vec<Verdict> = [
                o.original.as_ref().ok().copied(),
                o.swapped.as_ref().and_then(|s| s.as_ref().ok()).map(|v| v.swapped()),
            ]
            .into_iter()
            .flatten()
            .collect();
            for v in &shown {
                if *v != Verdict::Tie {
                    decisive += 1;
                    if *v == Verdict::First {
                        first_shown += 1;
                    }
                }
            }
            if let Some(c) = o.consistent {
                both += 1;
                if c {
                    same += 1;
                }
            }
        }
        PositionReport {
            both_read: both,
            consistency: (both > 0).then(|| same as f64 / both as f64),
            first_position_rate: (decisive > 0).then(|| first_shown as f64 / decisive as f64),
            decisive,
        }
    }
}
