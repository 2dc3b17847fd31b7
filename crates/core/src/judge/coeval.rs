//! CoEval (seed 004 §3): LLM ideation of task criteria, then per-criterion instance
//! evaluation with a conclusion, a 1–5 score and evidence quotes.

use super::meta_eval::list_items;
use super::parse::Policy;
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
    pub score: Result<f64, String>,
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
        score: policy.parse(response, Some((1.0, 5.0))).map_err(|e| e.to_string()),
        evidence,
        response: response.to_owned(),
    }
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
