//! CoEval (seed 004 §3): LLM ideation of task criteria, then per-criterion instance
//! evaluation with a conclusion, a 1–5 score and evidence quotes.

use super::meta_eval::list_items;
use super::parse::{ParseFailure, Policy};
use super::protocol::{Protocol, ProtocolError, Sampling};
use super::request::{ChatRequest, ChatResponse, Message};
use serde::{Deserialize, Serialize};

/// What CoEval needs to know about a task (004 §3.1: T_desc, T_ipt, T_opt).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskInfo {
    /// The task description, completing "The task is …" (e.g. "to generate a story that
    /// captures daily events").
    pub description: String,
    /// What the input is called (e.g. "story requirement").
    pub input_name: String,
    /// What the output is called (e.g. "story").
    pub output_name: String,
}

/// The ideation instruction of 004 §3.1.
pub fn ideation_prompt(task: &TaskInfo) -> String {
    format!(
        "The task is {}. The input is {}. What capabilities of the {} should there be? List directly.",
        task.description.trim_end_matches('.'),
        task.input_name,
        task.output_name
    )
}

/// The instance-evaluation prompt of 004 §3.2 for one criterion.
pub fn evaluation_prompt(task: &TaskInfo, criterion: &str, input: &str, output: &str) -> String {
    let o = &task.output_name;
    format!(
        "The task is {desc}. You need to evaluate a candidate {o} based on a criterion.\n\n\
         Criterion: {criterion}\n\n\
         {ipt_name}: {input}\n\n\
         {o}: {output}\n\n\
         Evaluation Steps:\n\n\
         1. Evaluate whether this {o} satisfies the criterion. Give a conclusion.\n\
         2. Assign a score for this {o} on a scale of 1 to 5, where 1 is the lowest and 5 is the highest based on the criterion.\n\
         3. List evidence by quoting sentences of the {o} to support your conclusion.",
        desc = task.description.trim_end_matches('.'),
        ipt_name = task.input_name,
    )
}

/// Criteria ideation: one request, the listed criteria back.
#[derive(Debug, Clone)]
pub struct Ideation {
    request: ChatRequest,
    criteria: Option<Vec<String>>,
}

impl Ideation {
    /// Prepares the request.
    pub fn new(tag: &str, task: &TaskInfo, sampling: &Sampling) -> Ideation {
        Ideation {
            request: sampling.request(tag, vec![Message::user(ideation_prompt(task))]),
            criteria: None,
        }
    }
}

impl Protocol for Ideation {
    type Outcome = Vec<String>;

    fn pending(&self) -> Vec<ChatRequest> {
        if self.criteria.is_some() { Vec::new() } else { vec![self.request.clone()] }
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        if self.criteria.is_some() || tag != self.request.tag {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        }
        let text =
            responses.first().ok_or_else(|| ProtocolError::NoResponse { tag: tag.to_owned() })?;
        self.criteria = Some(list_items(&text.text));
        Ok(())
    }

    fn outcome(&self) -> Option<Vec<String>> {
        self.criteria.clone()
    }
}

/// One criterion's evaluation of an instance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionEvaluation {
    /// The criterion.
    pub criterion: String,
    /// The conclusion (the text before the score, or the first line).
    pub conclusion: String,
    /// The 1–5 score read under the policy, or why not.
    pub score: Result<f64, ScoreError>,
    /// Quoted evidence (text between double quotes after an "Evidence" heading, or anywhere).
    pub evidence: Vec<String>,
    /// The raw response.
    pub response: String,
}

/// Splits a CoEval answer into conclusion, score and evidence. The score uses `policy`
/// (`coeval` reproduces the paper's extraction).
pub fn read_evaluation(criterion: &str, response: &str, policy: Policy) -> CriterionEvaluation {
    // ASCII lower-casing keeps byte offsets, so positions found here index `response`.
    let lower = response.to_ascii_lowercase();
    let conclusion = {
        let first_block = response.split("\n2.").next().unwrap_or(response);
        let t = first_block.trim();
        let t = t.strip_prefix("1.").unwrap_or(t).trim();
        t.strip_prefix("Conclusion:").unwrap_or(t).trim().to_owned()
    };
    let evidence_from = lower.find("evidence").unwrap_or(0);
    let evidence = quotes(response.get(evidence_from..).unwrap_or(response));
    CriterionEvaluation {
        criterion: criterion.to_owned(),
        conclusion,
        score: read_score(response, policy),
        evidence,
        response: response.to_owned(),
    }
}

/// The score of a CoEval answer under `policy`. The prompt asks for three numbered steps, and
/// the score is the second: when the answer has a line starting with `2.`, only that step (up
/// to a line starting with `3.`) is read, so the `1` of "1. <conclusion>" or a number in the
/// conclusion is never taken for the score; a step without a score is a failure, not a reason
/// to read the rest. Answers without the numbered steps are read whole. CoEval's own rule
/// strips `2.`, `/5` and `out of 5`, so "2. Score: 4/5" reads 4 under `Policy::Coeval` too.
/// A reading off the 1–5 scale is a failure.
pub fn read_score(response: &str, policy: Policy) -> Result<f64, ScoreError> {
    let (text, place) = match score_step(response) {
        Some(step) => (step, ScorePlace::Step),
        None => (response, ScorePlace::Answer),
    };
    let v = policy
        .parse(text, Some((1.0, 5.0)))
        .map_err(|failure| ScoreError::Unreadable { place, failure })?;
    if (1.0..=5.0).contains(&v) { Ok(v) } else { Err(ScoreError::OffScale { place, value: v }) }
}

/// Where a CoEval answer's score was looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScorePlace {
    /// The numbered answer's step "2.".
    Step,
    /// The whole answer (it has no numbered steps).
    Answer,
}

impl std::fmt::Display for ScorePlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ScorePlace::Step => "the score step (2.)",
            ScorePlace::Answer => "the answer",
        })
    }
}

/// Why a CoEval answer has no score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[non_exhaustive]
pub enum ScoreError {
    #[error("{place}: {failure}")]
    Unreadable { place: ScorePlace, failure: ParseFailure },
    #[error("{place} reads {value}, which is not on the 1–5 scale")]
    OffScale { place: ScorePlace, value: f64 },
}

/// The second step of a numbered CoEval answer: from a line starting with `2.` to one starting
/// with `3.` (or the end).
pub fn score_step(response: &str) -> Option<&str> {
    let start =
        if response.starts_with("2.") { 0 } else { response.find("\n2.").map(|i| i + 1)? };
    let rest = &response[start..];
    let end = rest.find("\n3.").unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Text between straight or curly double quotes.
fn quotes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, c) in text.char_indices() {
        match (c, open) {
            ('"' | '\u{201c}', None) => open = Some(i + c.len_utf8()),
            ('"' | '\u{201d}', Some(start)) => {
                let q = text[start..i].trim();
                if !q.is_empty() {
                    out.push(q.to_owned());
                }
                open = None;
            }
            _ => {}
        }
    }
    out
}

/// Instance evaluation: one request per criterion, in parallel.
#[derive(Debug, Clone)]
pub struct InstanceEvaluation {
    criteria: Vec<String>,
    requests: Vec<ChatRequest>,
    results: Vec<Option<CriterionEvaluation>>,
    policy: Policy,
}

impl InstanceEvaluation {
    /// Prepares one request per criterion for the instance (`input`, `output`).
    pub fn new(
        tag: &str,
        task: &TaskInfo,
        criteria: &[String],
        input: &str,
        output: &str,
        policy: Policy,
        sampling: &Sampling,
    ) -> InstanceEvaluation {
        let requests = criteria
            .iter()
            .enumerate()
            .map(|(i, c)| {
                sampling.request(
                    format!("{tag}/{i}"),
                    vec![Message::user(evaluation_prompt(task, c, input, output))],
                )
            })
            .collect();
        InstanceEvaluation {
            criteria: criteria.to_vec(),
            requests,
            results: vec![None; criteria.len()],
            policy,
        }
    }
}

impl Protocol for InstanceEvaluation {
    type Outcome = Vec<CriterionEvaluation>;

    fn pending(&self) -> Vec<ChatRequest> {
        self.requests
            .iter()
            .zip(&self.results)
            .filter(|(_, r)| r.is_none())
            .map(|(q, _)| q.clone())
            .collect()
    }

    fn respond(&mut self, tag: &str, responses: &[ChatResponse]) -> Result<(), ProtocolError> {
        let Some(i) =
            self.requests.iter().position(|r| r.tag == tag).filter(|&i| self.results[i].is_none())
        else {
            return Err(ProtocolError::UnknownTag { tag: tag.to_owned() });
        };
        let text =
            responses.first().ok_or_else(|| ProtocolError::NoResponse { tag: tag.to_owned() })?;
        self.results[i] = Some(read_evaluation(&self.criteria[i], &text.text, self.policy));
        Ok(())
    }

    fn outcome(&self) -> Option<Vec<CriterionEvaluation>> {
        self.results.iter().cloned().collect()
    }
}

/// How often one criterion came back across repeated ideation samples (seed 004 §3.1 asks
/// the LLM once; asking several times at T > 0 shows which criteria are stable).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recurrence {
    /// The criterion's name as [`criterion_key`] reads it (lower case, no markup).
    pub key: String,
    /// Its first full wording, as listed (name and description).
    pub wording: String,
    /// In how many samples it appears (a sample listing it twice counts once).
    pub samples: usize,
    /// `samples` over the number of samples.
    pub share: f64,
    /// Every distinct full wording, in order of first appearance.
    pub variants: Vec<String>,
}

/// The name part of an ideated criterion, for matching the same criterion across samples:
/// markdown emphasis dropped, the text before a `:` or a dash separator (`Coherence: the
/// story …`, `**Fluency** – …`), lower case, runs of non-alphanumerics as one space.
pub fn criterion_key(item: &str) -> String {
    let plain: String = item.chars().filter(|c| !matches!(c, '*' | '_' | '`' | '#')).collect();
    let mut name = plain.as_str();
    for sep in [":", " - ", " – ", " — ", " ("] {
        if let Some(i) = name.find(sep).filter(|&i| i > 0) {
            name = &name[..i];
        }
    }
    let mut key = String::with_capacity(name.len());
    for word in name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if !key.is_empty() {
            key.push(' ');
        }
        key.extend(word.chars().flat_map(char::to_lowercase));
    }
    key
}

/// Counts in how many of `samples` (each the criteria list of one ideation answer) each
/// criterion appears, matched by [`criterion_key`]; most frequent first, ties in order of
/// first appearance. Items whose key is empty are skipped.
pub fn recurrence(samples: &[Vec<String>]) -> Vec<Recurrence> {
    let mut out: Vec<Recurrence> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for sample in samples {
        let mut seen = std::collections::HashSet::new();
        for item in sample {
            let key = criterion_key(item);
            if key.is_empty() {
                continue;
            }
            let i = *index.entry(key.clone()).or_insert_with(|| {
                out.push(Recurrence {
                    key: key.clone(),
                    wording: item.clone(),
                    samples: 0,
                    share: 0.0,
                    variants: Vec::new(),
                });
                out.len() - 1
            });
            let r = &mut out[i];
            if !r.variants.contains(item) {
                r.variants.push(item.clone());
            }
            if seen.insert(key) {
                r.samples += 1;
            }
        }
    }
    let n = samples.len().max(1) as f64;
    for r in &mut out {
        r.share = r.samples as f64 / n;
    }
    // Stable: equal counts keep the order of first appearance.
    out.sort_by_key(|r| std::cmp::Reverse(r.samples));
    out
}
