//! The whole-workspace report: any mix of released evaluator and meta-evaluator files in, one
//! table per paradigm out (what `concord meta` prints and the web workspace shows first).

use serde::Serialize;

use super::{
    EloOptions, EloResult, MetaScore, elo_ratings, jdeval_records_from, match_set, meta_score,
    names, pairwise_accuracy, pointwise_pearson,
};
use crate::data::{self, Format};

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

/// Loads every input with the dataset loaders (which detect the format) and analyses it by
/// format: evaluator results give accuracy or Pearson, pointwise meta-evaluator results a meta
/// score, JDEval results an Elo table. Other files (datasets, unrelated formats) are reported in
/// [`Analysis::problems`]; one bad file never stops the others. Rows are sorted by name.
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
        let result = match loaded.format {
            Format::EvaluatorPairwise => {
                pairwise_accuracy(&names::evaluator_from_file(input.name), &loaded).map(|a| {
                    out.report.evaluators.push(EvaluatorRow {
                        name: a.name,
                        kind: "pairwise",
                        n: a.n,
                        accuracy: a.accuracy,
                        accuracy_no_ties: a.accuracy_no_ties,
                        pearson: None,
                    });
                })
            }
            Format::EvaluatorPointwise => {
                pointwise_pearson(&names::evaluator_from_file(input.name), &loaded).map(|c| {
                    out.report.evaluators.push(EvaluatorRow {
                        name: c.name,
                        kind: "pointwise",
                        n: c.n,
                        accuracy: None,
                        accuracy_no_ties: None,
                        pearson: c.pearson,
                    });
                })
            }
            Format::MetaEvaluatorPointwise => {
                meta_score(input.name, &loaded).map(|s| out.report.meta_scores.push(s))
            }
            Format::MetaEvaluatorPairwise => {
                jdeval_records_from(input.name, &loaded).map(|records| {
                    let set = match_set(&records);
                    let meta = names::meta_pairwise_from_file(input.name);
                    out.report.elo.push(elo_ratings(&meta, &set, options));
                })
            }
            other => {
                out.problems.push(problem(format!(
                    "a {} file is not an evaluator or meta-evaluator results file",
                    other.name()
                )));
                Ok(())
            }
        };
        if let Err(e) = result {
            out.problems.push(problem(e.to_string()));
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
