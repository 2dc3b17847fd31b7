//! The whole-workspace report: any mix of released evaluator and meta-evaluator files in, one
//! table per paradigm out (what `concord meta` prints and the web workspace shows first).

use serde::Serialize;

use super::error::MetaError;
use super::evaluators::{pairwise_accuracy, pointwise_pearson};
use super::matches::{
    EloOptions, EloResult, JdEvalRecord, elo_ratings, jdeval_records_from, match_set,
};
use super::names;
use super::scores::{MetaScore, meta_score};
use crate::data::{self, Format, Loaded};

/// One file to analyse: its name (evaluator names are read from it) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// One evaluator against humans; fields that do not apply to its kind are omitted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvaluatorRow {
    pub name: String,
    /// `pairwise` or `pointwise`.
    pub kind: &'static str,
    pub n: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accuracy_no_ties: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pearson: Option<f64>,
    /// Pairs whose gold label is not a tie: what `accuracy_no_ties` rests on (its interval
    /// needs it). Not in `concord meta`'s JSON.
    #[serde(skip)]
    pub n_no_ties: usize,
}

/// The report of [`analyze`], in the shape `concord meta --format json` prints.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub evaluators: Vec<EvaluatorRow>,
    pub meta_scores: Vec<MetaScore>,
    pub elo: Vec<EloResult>,
}

/// A file [`analyze`] could not use, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileProblem {
    pub file: String,
    pub message: String,
}

/// The report plus the files left out of it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    pub report: Report,
    pub problems: Vec<FileProblem>,
}

/// What one loaded file gives the meta-evaluation report, by format.
#[derive(Debug, Clone, PartialEq)]
pub enum FileAnalysis {
    /// Evaluator results (pairwise accuracy or pointwise Pearson): a Table 1 row.
    Evaluator(EvaluatorRow),
    /// Individual-paradigm meta-evaluator results (JDEval-i, BSMEval): a Table 5 / 6 cell.
    MetaScore(MetaScore),
    /// Pairwise meta-evaluator results (JDEval): the judgements Elo, win rates and post
    /// accuracy are computed from.
    JdEval { meta_evaluator: String, records: Vec<JdEvalRecord> },
}

/// Analyses one loaded file by its format, as [`analyze`] does for each input: evaluator
/// results give accuracy or Pearson, pointwise meta-evaluator results a meta score, JDEval
/// results their judgements. `name` is the file name (evaluator and meta-evaluator names are
/// read from it). Other formats (datasets, other papers' files) are
/// [`MetaError::NotResults`].
pub fn analyze_file(name: &str, loaded: &Loaded) -> Result<FileAnalysis, MetaError> {
    match loaded.format {
        Format::EvaluatorPairwise => pairwise_accuracy(&names::evaluator_from_file(name), loaded)
            .map(|a| {
                FileAnalysis::Evaluator(EvaluatorRow {
                    name: a.name,
                    kind: "pairwise",
                    n: a.n,
                    accuracy: a.accuracy,
                    accuracy_no_ties: a.accuracy_no_ties,
                    pearson: None,
                    n_no_ties: a.n_no_ties,
                })
            }),
        Format::EvaluatorPointwise => pointwise_pearson(&names::evaluator_from_file(name), loaded)
            .map(|c| {
                FileAnalysis::Evaluator(EvaluatorRow {
                    name: c.name,
                    kind: "pointwise",
                    n: c.n,
                    accuracy: None,
                    accuracy_no_ties: None,
                    pearson: c.pearson,
                    n_no_ties: 0,
                })
            }),
        Format::MetaEvaluatorPointwise => meta_score(name, loaded).map(FileAnalysis::MetaScore),
        Format::MetaEvaluatorPairwise => jdeval_records_from(name, loaded).map(|records| {
            FileAnalysis::JdEval { meta_evaluator: names::meta_pairwise_from_file(name), records }
        }),
        other => Err(MetaError::NotResults { format: other.name() }),
    }
}

/// Loads every input with the dataset loaders (which detect the format) and analyses each with
/// [`analyze_file`]: evaluator results give accuracy or Pearson, pointwise meta-evaluator
/// results a meta score, JDEval results an Elo table. Other files (datasets, unrelated formats)
/// are reported in [`Analysis::problems`]; one bad file never stops the others. Rows are sorted
/// by name.
pub fn analyze(inputs: &[Input<'_>], options: &EloOptions) -> Analysis {
    let mut out = Analysis::default();
    for input in inputs {
        let problem = |message: String| FileProblem { file: input.name.to_owned(), message };
        let loaded = match data::load(input.name, input.bytes) {
            Ok(l) => l,
            Err(e) => {
                out.problems.push(problem(e.to_string()));
                continue;
            }
        };
        match analyze_file(input.name, &loaded) {
            Ok(FileAnalysis::Evaluator(row)) => out.report.evaluators.push(row),
            Ok(FileAnalysis::MetaScore(score)) => out.report.meta_scores.push(score),
            Ok(FileAnalysis::JdEval { meta_evaluator, records }) => {
                let set = match_set(&records);
                out.report.elo.push(elo_ratings(&meta_evaluator, &set, options));
            }
            Err(e) => out.problems.push(problem(e.to_string())),
        }
    }
    let r = &mut out.report;
    r.evaluators.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    r.meta_scores.sort_by(|a, b| {
        (a.protocol.name(), &a.meta_evaluator, &a.evaluator).cmp(&(
            b.protocol.name(),
            &b.meta_evaluator,
            &b.evaluator,
        ))
    });
    r.elo.sort_by(|a, b| a.meta_evaluator.cmp(&b.meta_evaluator));
    out
}
