//! Individual-paradigm meta scores: the average score a meta-evaluator gave one evaluator's
//! assessments, under JDEval-i (one score per assessment) or BSMEval (the mean over at most five
//! branch scores per assessment) — seed 003 Tables 5 and 6.

use serde::Serialize;

use super::error::MetaError;
use super::names;
use crate::data::{Loaded, mean_in_order};

/// Which individual-paradigm protocol produced a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MetaProtocol {
    #[serde(rename = "JDEval-i")]
    JdEvalI,
    #[serde(rename = "BSMEval")]
    BsmEval,
}

impl MetaProtocol {
    pub fn name(self) -> &'static str {
        match self {
            MetaProtocol::JdEvalI => "JDEval-i",
            MetaProtocol::BsmEval => "BSMEval",
        }
    }
}

/// One cell of Table 5 / Table 6.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetaScore {
    pub meta_evaluator: String,
    pub evaluator: String,
    pub protocol: MetaProtocol,
    /// Assessments with a score (empty scores are dropped, as the paper's averages do).
    pub n: usize,
    /// Left out of the JSON when no assessment has a score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    /// Assessments without a score.
    pub empty: usize,
}

/// The field the release stores the meta-evaluator's score of the assessment under.
const SCORE_FIELD: &str = "score_for_evaluator";

/// BSMEval records have branches (one meta response per generated criterion), JDEval-i
/// records none; the file name says `bsm` too. Either signal is enough.
fn protocol_of(file: &str, loaded: &Loaded) -> MetaProtocol {
    let branched = loaded
        .runs
        .iter()
        .flat_map(|r| &r.records)
        .any(|r| r.meta.as_ref().is_some_and(|m| !m.branches.is_empty()));
    if branched || names::stem(file).to_ascii_lowercase().contains("bsm") {
        MetaProtocol::BsmEval
    } else {
        MetaProtocol::JdEvalI
    }
}

/// The average meta score of a pointwise meta-evaluator file. Names come from the file name
/// (`merged_meta_results_{meta}_{evaluator}_pointwise`, `{meta}_{evaluator}_…_bsm_…`), or the
/// whole stem for both when the name has neither shape.
pub fn meta_score(file: &str, loaded: &Loaded) -> Result<MetaScore, MetaError> {
    let run = loaded.runs.first().ok_or_else(|| MetaError::NoJudgeRun { file: file.to_owned() })?;
    let scores: Vec<f64> = run
        .records
        .iter()
        .filter_map(|r| r.parsed.iter().find(|(k, _)| k == SCORE_FIELD).map(|&(_, x)| x))
        .collect();
    let (meta_evaluator, evaluator) = names::meta_pointwise_from_file(file)
        .unwrap_or_else(|| (names::stem(file).to_owned(), names::stem(file).to_owned()));
    Ok(MetaScore {
        meta_evaluator,
        evaluator,
        protocol: protocol_of(file, loaded),
        n: scores.len(),
        mean: mean_in_order(&scores),
        empty: run.records.len() - scores.len(),
    })
}
