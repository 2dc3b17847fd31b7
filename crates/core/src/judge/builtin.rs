//! Built-in prompt sets: seed 002's SummEval and Topical-Chat prompts in every output mode,
//! with and without auto-CoT evaluation steps.
//!
//! The Topical-Chat texts are the ones Chiang & Lee actually sent: every `prompt` field of
//! their 28 released result files is reproduced byte for byte by [`builtin`] (tested in
//! `tests/judge_prompts.rs` when `../shared/data` is present). Those files are irregular —
//! the criteria are followed by two, three or four newlines depending on the file, the
//! free-text question of *coherence* reads `Question: ` with a trailing space, the analyze-rate
//! form lacks a closing quote after `"Rating:` — and all of that is kept, because changing
//! a byte changes what is being reproduced. The irregular separators live in one table
//! ([`topical_chat_gaps`]).
//!
//! The SummEval texts come from the prompt files of the authors' repository
//! (`prompts/summeval/*`, commit 5cafdc6; fluency is their corrected 1–5 `flu_new` prompt, as
//! seed 002 App. F.1 explains). Their released SummEval *results* are not part of
//! `../shared/data`, so SummEval prompts are pinned against the prompt files themselves for
//! the modes whose files we checked (rate-explain with auto-CoT, free text), and composed
//! with the same parts for the others.
//!
//! # Seed 002 Appendix F against what was sent
//!
//! The appendix is a faithful description but not the literal text; where they differ the
//! built-ins follow the released `prompt` fields:
//!
//! * Topical-Chat prompts say `Evaluation Crieteria:` (sic); the appendix prints "Criteria".
//! * The naturalness free-text question is "How natural is the reponse?" (sic) as sent.
//! * The appendix puts `{{Fact}}` and `Response:` on adjacent lines; the prompts sent have a
//!   blank line after each heading (`Response:\n\n{{Response}}`).
//! * The appendix's example prompt separates the criteria bullets by blank lines; the
//!   prompts sent have them on consecutive lines, some with trailing spaces.
//! * "Ratio nale" in the appendix is a PDF line break; the prompts say "Rationale:".
//! * No Topical-Chat free-text run with auto-CoT was released; [`builtin`] composes one from
//!   the same parts with the usual separators.

use super::template::{Part, PartKind, PromptTemplate};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The benchmarks with built-in prompts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Benchmark {
    /// Summaries of CNN/DailyMail articles (Fabbri et al., 2021).
    SummEval,
    /// Knowledge-grounded dialogue responses (Mehri & Eskenazi, 2020).
    TopicalChat,
}

impl Benchmark {
    /// The attributes with built-in prompts, by their dataset names.
    pub fn attributes(self) -> &'static [&'static str] {
        match self {
            Benchmark::SummEval => &["coherence", "consistency", "fluency", "relevance"],
            Benchmark::TopicalChat => &["naturalness", "coherence", "engagingness", "groundedness"],
        }
    }
}

/// How the model is asked to answer (seed 002 §3.2, App. F.1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputMode {
    /// "Evaluation Form (scores ONLY)" — G-Eval's form.
    ScoreOnly,
    /// An attribute-specific question, answered freely.
    FreeText,
    /// "Answer by starting with "Rating:" and then give the explanation…".
    RateExplain,
    /// "Answer by starting with "Analysis:" … and then give the numeric rating…".
    AnalyzeRate,
}

/// The JSON schema of a structured answer in `mode`: `{"rating": number}`, with the
/// explanation where the mode asks for one, in the order the mode asks for it (rate-explain
/// rates first; analyze-rate analyses first, so the rating follows the analysis). Strict:
/// every field required, nothing else allowed (what OpenAI's strict mode demands).
pub fn rating_schema(mode: OutputMode) -> serde_json::Value {
    use serde_json::json;
    let rating =
        json!({"type": "number", "description": "the rating, on the scale the prompt gives"});
    let text = |what: &str| json!({"type": "string", "description": what});
    let fields: Vec<(&str, serde_json::Value)> = match mode {
        OutputMode::ScoreOnly | OutputMode::FreeText => vec![("rating", rating)],
        OutputMode::RateExplain => {
            vec![("rating", rating), ("rationale", text("why the rating was given"))]
        }
        OutputMode::AnalyzeRate => vec![
            ("analysis", text("the example analysed against the evaluation criteria")),
            ("rating", rating),
        ],
    };
    let required: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
    let properties: serde_json::Map<String, serde_json::Value> =
        fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

impl OutputMode {
    /// Every mode, in the order of the papers' tables.
    pub const ALL: [OutputMode; 4] = [
        OutputMode::ScoreOnly,
        OutputMode::FreeText,
        OutputMode::RateExplain,
        OutputMode::AnalyzeRate,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            OutputMode::ScoreOnly => "score-only",
            OutputMode::FreeText => "free-text",
            OutputMode::RateExplain => "rate-explain",
            OutputMode::AnalyzeRate => "analyze-rate",
        }
    }
}

/// The Chiang & Lee file-name stem of a configuration (`geval`, `geval_no_auto_cot`,
/// `llm_eval_no_cot`, `rate_explain_auto_cot`, …), as in `gpt3.5_nat_<stem>.json`.
/// `None` for free text with auto-CoT, which they did not run.
pub fn closer_look_stem(mode: OutputMode, auto_cot: bool) -> Option<&'static str> {
    Some(match (mode, auto_cot) {
        (OutputMode::ScoreOnly, true) => "geval",
        (OutputMode::ScoreOnly, false) => "geval_no_auto_cot",
        (OutputMode::FreeText, false) => "llm_eval_no_cot",
        (OutputMode::FreeText, true) => return None,
        (OutputMode::RateExplain, false) => "rate_explain",
        (OutputMode::RateExplain, true) => "rate_explain_auto_cot",
        (OutputMode::AnalyzeRate, false) => "analyze_rate",
        (OutputMode::AnalyzeRate, true) => "analyze_rate_auto_cot",
    })
}

/// Why no built-in prompt exists for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuiltinError {
    /// The benchmark has no built-in prompt for this attribute.
    UnknownAttribute {
        /// The benchmark asked for.
        benchmark: Benchmark,
        /// The attribute asked for.
        attribute: String,
    },
}

impl fmt::Display for BuiltinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuiltinError::UnknownAttribute { benchmark, attribute } => write!(
                f,
                "no built-in {benchmark:?} prompt for attribute `{attribute}` (built in: {})",
                benchmark.attributes().join(", ")
            ),
        }
    }
}

impl std::error::Error for BuiltinError {}

/// The built-in template for a benchmark, attribute, output mode and auto-CoT choice.
///
/// Attribute names are the datasets' (`naturalness`) or Chiang & Lee's three-letter
/// abbreviations (`nat`). With `auto_cot`, the template carries the evaluation steps the
/// authors generated once per attribute; replace them with
/// [`PromptTemplate::set_part`]`(PartKind::Steps, …)` to use steps generated by
/// [`crate::judge::protocol::AutoCot`].
pub fn builtin(
    benchmark: Benchmark,
    attribute: &str,
    mode: OutputMode,
    auto_cot: bool,
) -> Result<PromptTemplate, BuiltinError> {
    let unknown = || BuiltinError::UnknownAttribute { benchmark, attribute: attribute.to_owned() };
    match benchmark {
        Benchmark::TopicalChat => {
            let attr = TopicalChatAttr::parse(attribute).ok_or_else(unknown)?;
            Ok(topical_chat(attr, mode, auto_cot))
        }
        Benchmark::SummEval => {
            let attr = SummEvalAttr::parse(attribute).ok_or_else(unknown)?;
            Ok(summeval(attr, mode, auto_cot))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TopicalChatAttr {
    Nat,
    Coh,
    Eng,
    Gro,
}

impl TopicalChatAttr {
    fn parse(name: &str) -> Option<TopicalChatAttr> {
        match name.to_ascii_lowercase().as_str() {
            "naturalness" | "nat" => Some(TopicalChatAttr::Nat),
            "coherence" | "coh" => Some(TopicalChatAttr::Coh),
            "engagingness" | "eng" => Some(TopicalChatAttr::Eng),
            "groundedness" | "gro" => Some(TopicalChatAttr::Gro),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            TopicalChatAttr::Nat => "Naturalness",
            TopicalChatAttr::Coh => "Coherence",
            TopicalChatAttr::Eng => "Engagingness",
            TopicalChatAttr::Gro => "Groundedness",
        }
    }
}

/// The newlines after the criteria and after the steps in the released Topical-Chat prompts.
/// Most files use 3 and 2; these are the exceptions, found by splitting all 28 files.
fn topical_chat_gaps(attr: TopicalChatAttr, mode: OutputMode, auto_cot: bool) -> (usize, usize) {
    use OutputMode::*;
    use TopicalChatAttr::*;
    let criteria = match (attr, mode, auto_cot) {
        (Coh | Nat, AnalyzeRate, true) => 2,
        (Eng, ScoreOnly | FreeText, false) => 4,
        _ => 3,
    };
    let steps = match (attr, mode, auto_cot) {
        (Nat, ScoreOnly | RateExplain, true) => 3,
        _ => 2,
    };
    (criteria, steps)
}

const RATE_EXPLAIN_FORM: &str = "Evaluation Form (Answer by starting with \"Rating:\" and then give the explanation of the rating on the next line by \"Rationale:\"):";
// The missing quote after `"Rating:` is in the authors' files and was sent to the model.
const ANALYZE_RATE_FORM: &str = "Evaluation Form (Answer by starting with \"Analysis:\" to analyze the given example regarding the evaluation criteria as concise as possible, and then give the numeric rating on the next line by \"Rating:):";
const SCORE_ONLY_FORM: &str = "Evaluation Form (scores ONLY):";

fn topical_chat(attr: TopicalChatAttr, mode: OutputMode, auto_cot: bool) -> PromptTemplate {
    let (criteria, steps, free_text) = match attr {
        TopicalChatAttr::Nat => (TC_CRITERIA_NAT, TC_STEPS_NAT, TC_FREE_TEXT_NAT),
        TopicalChatAttr::Coh => (TC_CRITERIA_COH, TC_STEPS_COH, TC_FREE_TEXT_COH),
        TopicalChatAttr::Eng => (TC_CRITERIA_ENG, TC_STEPS_ENG, TC_FREE_TEXT_ENG),
        TopicalChatAttr::Gro => (TC_CRITERIA_GRO, TC_STEPS_GRO, TC_FREE_TEXT_GRO),
    };
    let (criteria_gap, steps_gap) = topical_chat_gaps(attr, mode, auto_cot);
    let mut parts = vec![
        Part::new(PartKind::Task, TC_TASK),
        Part::new(PartKind::Criteria, format!("{criteria}{}", "\n".repeat(criteria_gap))),
    ];
    if auto_cot {
        parts.push(Part::new(PartKind::Steps, format!("{steps}{}", "\n".repeat(steps_gap))));
    }
    parts.push(Part::new(PartKind::Sample, TC_SAMPLE));
    let label = attr.label();
    let output = match mode {
        OutputMode::ScoreOnly => format!("\n\n\n{SCORE_ONLY_FORM}\n- {label}:\n"),
        OutputMode::FreeText => free_text.to_owned(),
        OutputMode::RateExplain => format!("\n\n\n{RATE_EXPLAIN_FORM}\n- {label}:\n"),
        OutputMode::AnalyzeRate => format!("\n\n\n{ANALYZE_RATE_FORM}\n- {label}:\n"),
    };
    parts.push(Part::new(PartKind::Output, output));
    PromptTemplate::new(parts)
        .bind("Document", "source")
        .bind("Fact", "context")
        .bind("Response", "system_output")
}

const TC_TASK: &str = "You will be given a conversation between two individuals. You will then be given one potential response for the next turn in the conversation. The response concerns an interesting fact, which will be provided as well.\n\nYour task is to rate the responses on one metric.\n\nPlease make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n\n\n";
const TC_SAMPLE: &str = "Example:\n\nConversation History:\n\n{{Document}}\n\nCorresponding Fact:\n\n{{Fact}}\n\nResponse:\n\n{{Response}}";
const TC_CRITERIA_NAT: &str = "Evaluation Crieteria:\n\nNaturalness (1-3) Is the response naturally written??\n- A score of 1 (bad) means that the response is unnatural. \n- A score of 2 (ok) means the response is strange, but not entirely unnatural. \n- A score of 3 (good) means that the response is natural.";
const TC_STEPS_NAT: &str = "Evaluation Steps:\n\n1. Read the conversation between the two individuals.\n2. Read the potential response for the next turn in the conversation.\n3. Evaluate the response based on its naturalness, using the provided criteria.\n4. Assign a rating score of 1, 2, or 3 based on the evaluation.";
const TC_FREE_TEXT_NAT: &str =
    "\n\nQuestion:\nHow natural is the reponse? (On a scale of 1-3, with 1 being the lowest)\n";
const TC_CRITERIA_COH: &str = "Evaluation Crieteria:\n\nCoherence (1-3) Does the response serve as a valid continuation of the conversation history?\n- A score of 1 (no) means that the response drastically changes topic or ignores the conversation history. \n- A score of 2 (somewhat) means the response refers to the conversation history in a limited capacity (e.g., in a generic way) and shifts the conversation topic. \n- A score of 3 (yes) means the response is on topic and strongly acknowledges the conversation history. ";
const TC_STEPS_COH: &str = "Evaluation Steps:\n\n1. Read the conversation history.\n2. Read the potential response.\n3. Evaluate the coherence of the response based on the conversation history.\n4. Assign a score of 1, 2, or 3 for coherence.";
const TC_FREE_TEXT_COH: &str = "\n\n\nQuestion: \nDoes the response serve as a valid continuation of the conversation history? (On a scale of 1-3, with 1 meaning the response is invalid and 3 meaning the response is coherent)\n";
const TC_CRITERIA_ENG: &str = "Evaluation Crieteria:\n\nEngagingness (1-3) Is the response dull/interesting?\n- A score of 1 (dull) means that the response is generic and dull.\n- A score of 2 (somewhat interesting) means the response is somewhat interesting and could engage you in the conversation (e.g., an opinion, thought)\n- A score of 3 (interesting) means the response is very interesting or presents an interesting fact";
const TC_STEPS_ENG: &str = "Evaluation Steps:\n\n1. Read the conversation, the corresponding fact and the response carefully.\n2. Rate the response on a scale of 1-3 for engagingness, according to the criteria above.";
const TC_FREE_TEXT_ENG: &str = "\n\n\nQuestion:\nIs the response interesting and engaging? (On a scale of 1-3, with 1 meaning dull and 3 meaning interesting)\n";
const TC_CRITERIA_GRO: &str = "Evaluation Crieteria:\n\nGroundedness (0-1) given the fact that this response is conditioned on, determine whether this response uses that fact.\n- A score of 0 (no) means the response does not mention or refer to the fact at all \n- A score of 1 (yes) means the response uses the fact well ";
const TC_STEPS_GRO: &str = "Evaluation Steps:\n\n1. Read the conversation between the two individuals.\n2. Identify the fact that is provided for the potential response.\n3. Read the potential response.\n4. Determine if the potential response uses or mentions the fact.\n5. Assign a score of 0 or 1 for groundedness based on whether the response uses the fact.";
const TC_FREE_TEXT_GRO: &str = "\n\nQuestion:\nGiven the fact that this response is conditioned on, does the response use the fact? (On a scale of 0-1, with 0 meaning no and 1 meaning yes)\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SummEvalAttr {
    Coh,
    Con,
    Flu,
    Rel,
}

impl SummEvalAttr {
    fn parse(name: &str) -> Option<SummEvalAttr> {
        match name.to_ascii_lowercase().as_str() {
            "coherence" | "coh" => Some(SummEvalAttr::Coh),
            "consistency" | "con" => Some(SummEvalAttr::Con),
            "fluency" | "flu" | "flu_new" => Some(SummEvalAttr::Flu),
            "relevance" | "rel" => Some(SummEvalAttr::Rel),
            _ => None,
        }
    }
}

/// One SummEval attribute's parts as the authors' prompt files spell them.
struct SummEvalParts {
    task: &'static str,
    label: &'static str,
    criteria: &'static str,
    /// Newlines after the criteria when steps follow / when the sample follows.
    criteria_gap: (usize, usize),
    steps: &'static str,
    steps_gap: usize,
    sample: &'static str,
    free_text: &'static str,
}

const SE_TASK: &str = "You will be given one summary written for a news article.\n\nYour task is to rate the summary on one metric.\n\nPlease make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n\n";
const SE_TASK_CON: &str = "You will be given a news article. You will then be given one summary written for this article.\n\nYour task is to rate the summary on one metric.\n\nPlease make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n\n\n";
const SE_SAMPLE: &str = "Example:\n\n\nSource Text:\n\n{{Document}}\n\nSummary:\n\n{{Summary}}";

fn summeval_parts(attr: SummEvalAttr) -> SummEvalParts {
    match attr {
        SummEvalAttr::Coh => SummEvalParts {
            task: SE_TASK,
            label: "Coherence",
            criteria: "Evaluation Criteria:\n\nCoherence (1-5) - the collective quality of all sentences. We align this dimension with the DUC quality question of structure and coherence whereby \"the summary should be well-structured and well-organized. The summary should not just be a heap of related information, but should build from sentence to a coherent body of information about a topic.\"",
            criteria_gap: (2, 3),
            steps: "Evaluation Steps:\n\n1. Read the news article carefully and identify the main topic and key points.\n2. Read the summary and compare it to the news article. Check if the summary covers the main topic and key points of the news article, and if it presents them in a clear and logical order.\n3. Assign a score for coherence on a scale of 1 to 5, where 1 is the lowest and 5 is the highest based on the Evaluation Criteria.",
            steps_gap: 3,
            sample: SE_SAMPLE,
            free_text: "\n\n\nQuestion:\nHow coherent is the summary? That is, how well do the sentences in the summary fit together? (On a scale of 1-5, with 1 being the lowest)\n",
        },
        SummEvalAttr::Con => SummEvalParts {
            task: SE_TASK_CON,
            label: "Consistency",
            criteria: "Evaluation Criteria:\n\nConsistency (1-5) - the factual alignment between the summary and the summarized source. A factually consistent summary contains only statements that are entailed by the source document. Annotators were also asked to penalize summaries that contained hallucinated facts. ",
            criteria_gap: (2, 3),
            steps: "Evaluation Steps:\n\n1. Read the news article carefully and identify the main facts and details it presents.\n2. Read the summary and compare it to the article. Check if the summary contains any factual errors that are not supported by the article.\n3. Assign a score for consistency based on the Evaluation Criteria.",
            steps_gap: 3,
            sample: "Example:\n\n\nSource Text: \n\n{{Document}}\n\nSummary: \n\n{{Summary}}",
            free_text: "\n\n\nQuestion:\nHow consistent is the summary with the source document in terms of the factual alignment? (On a scale of 1-5, with 1 being the lowest)\n",
        },
        SummEvalAttr::Flu => SummEvalParts {
            task: "You will be given one summary written for a news article.\n\nYour task is to rate the summary on one metric.\n\nPlease make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n\n\n",
            label: "Fluency",
            criteria: "Evaluation Criteria:\n\nFluency (1-5): This rating measures the quality of individual sentences, are they well-written and grammatically correct. Consider the quality of individual sentences.",
            criteria_gap: (2, 3),
            steps: "Evaluation steps:\n\n1. Read the given summary.\n2. Evaluate the fluency of the summary on a scale of 1-5 based on the criteria provided.\n3. Provide the rating.",
            steps_gap: 2,
            sample: "Example:\n\nSource Text:\n\n{{Document}}\n\nSummary:\n\n{{Summary}}",
            free_text: "\n\n\nQuestion:\nBased on the evaluation criteria, how fluent is the summary? (On a scale of 1-5, with 1 being the lowest)\n",
        },
        SummEvalAttr::Rel => SummEvalParts {
            task: SE_TASK,
            label: "Relevance",
            criteria: "Evaluation Criteria:\n\nRelevance (1-5) - selection of important content from the source. The summary should include only important information from the source document. Annotators were instructed to penalize summaries which contained redundancies and excess information.",
            criteria_gap: (2, 4),
            steps: "Evaluation Steps:\n\n1. Read the summary and the source document carefully.\n2. Compare the summary to the source document and identify the main points of the article.\n3. Assess how well the summary covers the main points of the article, and how much irrelevant or redundant information it contains.\n4. Assign a relevance score from 1 to 5.",
            steps_gap: 3,
            sample: SE_SAMPLE,
            free_text: "\n\n\nQuestion: On a scale of 1-5, with 1 being the lowest, is the summary relevant to the source document and does the summary only contain the important information of the source document? \n",
        },
    }
}

fn summeval(attr: SummEvalAttr, mode: OutputMode, auto_cot: bool) -> PromptTemplate {
    let p = summeval_parts(attr);
    let criteria_gap = if auto_cot { p.criteria_gap.0 } else { p.criteria_gap.1 };
    let mut parts = vec![
        Part::new(PartKind::Task, p.task),
        Part::new(PartKind::Criteria, format!("{}{}", p.criteria, "\n".repeat(criteria_gap))),
    ];
    if auto_cot {
        parts.push(Part::new(PartKind::Steps, format!("{}{}", p.steps, "\n".repeat(p.steps_gap))));
    }
    parts.push(Part::new(PartKind::Sample, p.sample));
    let label = p.label;
    let output = match mode {
        OutputMode::ScoreOnly => format!("\n\n\n{SCORE_ONLY_FORM}\n\n- {label}:\n"),
        OutputMode::FreeText => p.free_text.to_owned(),
        OutputMode::RateExplain => format!("\n\n\n{RATE_EXPLAIN_FORM}\n\n- {label}:\n"),
        OutputMode::AnalyzeRate => format!("\n\n\n{ANALYZE_RATE_FORM}\n\n- {label}:\n"),
    };
    parts.push(Part::new(PartKind::Output, output));
    PromptTemplate::new(parts).bind("Document", "source").bind("Summary", "system_output")
}
