//! Evaluators against humans: pairwise accuracy (ties as a class, and without ties), Pearson of
//! pointwise scores, and position-swap consistency from two runs with the outputs exchanged.

use std::collections::HashMap;

use serde::Serialize;

use super::error::MetaError;
use crate::data::{self, Loaded, PairLabel, Target};
use crate::judge::parse::{self, Verdict};
use crate::stats::{self, Label};

/// A pairwise evaluator's agreement with the gold labels.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairwiseAccuracy {
    /// The evaluator, as the file names it.
    pub name: String,
    /// Rows with both a gold label and a verdict.
    pub n: usize,
    /// Verdict equals label, ties being a class of their own (a gold tie is matched only by a
    /// tie verdict): seed 003 Table 1.
    pub accuracy: Option<f64>,
    /// Ties excluded from the gold side: over the rows whose label is not a tie, a tie verdict
    /// counts as wrong.
    pub accuracy_no_ties: Option<f64>,
    /// Rows whose gold label is not a tie.
    pub n_no_ties: usize,
    /// Agreement over the rows where neither the label nor the verdict is a tie.
    pub agreement_both_non_tie: Option<f64>,
    /// Cohen's κ between verdicts and labels over the three classes.
    pub kappa: Option<f64>,
    /// Rows whose verdict could not be read (left out of every figure above).
    pub unparsed: usize,
    /// Rows whose record names no pair of the file, or whose pair has no gold label.
    pub unmatched: usize,
}

/// A pointwise evaluator's Pearson correlation with the gold scores.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PointwiseCorrelation {
    pub name: String,
    /// Items with both a gold score and a judge score (pairwise deletion).
    pub n: usize,
    pub pearson: Option<f64>,
    pub p_value: Option<f64>,
    /// Items without a judge score (the release writes an unparsed score as `""`).
    pub missing: usize,
}

fn label_of(label: PairLabel) -> Label {
    match label {
        PairLabel::A => Label::A,
        PairLabel::B => Label::B,
        PairLabel::Tie => Label::Tie,
    }
}

fn verdict_label(v: Verdict) -> Label {
    match v {
        Verdict::First => Label::A,
        Verdict::Second => Label::B,
        Verdict::Tie => Label::Tie,
    }
}

/// The released `winner` code (0 = tie, 1, 2) as a verdict.
fn verdict_of_code(code: f64) -> Option<Verdict> {
    match code {
        0.0 => Some(Verdict::Tie),
        1.0 => Some(Verdict::First),
        2.0 => Some(Verdict::Second),
        _ => None,
    }
}

/// The verdict of one pairwise judge record: the file's cleaned `winner` when it has one, else
/// the `<Winner>` tag of the response.
fn record_verdict(record: &data::JudgeRecord) -> Option<Verdict> {
    let cleaned = record.parsed.iter().find(|(k, _)| k == "winner").map(|&(_, x)| x);
    match cleaned {
        Some(code) => verdict_of_code(code),
        None => record.responses.iter().find_map(|r| parse::winner(r).ok()),
    }
}

/// Per pair of `loaded`'s dataset, the verdict of its (first) judge record, in pair order
/// (`None` where no record names the pair or its verdict cannot be read).
pub fn verdicts_per_pair(name: &str, loaded: &Loaded) -> Result<Vec<Option<Verdict>>, MetaError> {
    let run = loaded.runs.first().ok_or_else(|| MetaError::NoJudgeRun { file: name.to_owned() })?;
    let joined = data::join(&loaded.dataset, run);
    let mut out = vec![None; loaded.dataset.pairs.len()];
    for &(record, target) in &joined.matched {
        if let (Target::Pair(p), Some(r)) = (target, run.records.get(record))
            && let Some(slot) = out.get_mut(p)
            && slot.is_none()
        {
            *slot = record_verdict(r);
        }
    }
    Ok(out)
}

/// Accuracy of a pairwise evaluator-results file (`format` evaluator-pairwise, or any file
/// with pairs and a judge run) against the gold label of each pair.
pub fn pairwise_accuracy(name: &str, loaded: &Loaded) -> Result<PairwiseAccuracy, MetaError> {
    if loaded.dataset.pairs.is_empty() {
        return Err(MetaError::WrongShape { file: name.to_owned(), expected: "pairwise items" });
    }
    let verdicts = verdicts_per_pair(name, loaded)?;
    let labels: Vec<Option<PairLabel>> = loaded.dataset.pairs.iter().map(|p| p.label).collect();
    let mut out = verdict_accuracy(name, &verdicts, &labels);
    let run_len = loaded.runs.first().map_or(0, |r| r.records.len());
    out.unmatched += run_len.saturating_sub(loaded.dataset.pairs.len());
    Ok(out)
}

/// Accuracy of verdicts against gold labels, position by position (`verdicts[i]` judges the
/// pair labelled `labels[i]`): what [`pairwise_accuracy`] computes for a released file and the
/// browser for a live pairwise run. A pair without a label counts as unmatched, an unreadable
/// verdict as unparsed; both are left out of every figure.
pub fn verdict_accuracy(
    name: &str,
    verdicts: &[Option<Verdict>],
    labels: &[Option<PairLabel>],
) -> PairwiseAccuracy {
    let mut judge = Vec::new();
    let mut gold = Vec::new();
    let mut unparsed = 0;
    let mut unmatched = verdicts.len().abs_diff(labels.len());
    for (label, verdict) in labels.iter().zip(verdicts) {
        let Some(label) = label else {
            unmatched += 1;
            continue;
        };
        match verdict {
            Some(v) => {
                judge.push(Some(verdict_label(*v)));
                gold.push(Some(label_of(*label)));
            }
            None => unparsed += 1,
        }
    }
    let acc = stats::label_accuracy(&judge, &gold);
    PairwiseAccuracy {
        name: name.to_owned(),
        n: acc.n_used,
        accuracy: acc.agreement_with_ties,
        accuracy_no_ties: acc.accuracy_gold_nontie_strict,
        n_no_ties: acc.n_gold_nontie,
        agreement_both_non_tie: acc.agreement_without_ties,
        kappa: acc.cohen_kappa.value,
        unparsed,
        unmatched,
    }
}

/// Pearson of a pointwise evaluator-results file's `score` against the item's gold score.
pub fn pointwise_pearson(name: &str, loaded: &Loaded) -> Result<PointwiseCorrelation, MetaError> {
    let run = loaded.runs.first().ok_or_else(|| MetaError::NoJudgeRun { file: name.to_owned() })?;
    if loaded.dataset.items.is_empty() {
        return Err(MetaError::WrongShape { file: name.to_owned(), expected: "scored items" });
    }
    let human = loaded.dataset.human_scores(0);
    let joined = data::join(&loaded.dataset, run);
    let per_item = joined.record_per_item(loaded.dataset.items.len());
    let judge: Vec<Option<f64>> = per_item
        .iter()
        .map(|r| {
            let record = run.records.get((*r)?)?;
            record.parsed.iter().find(|(k, _)| k == "score").map(|&(_, x)| x)
        })
        .collect();
    let r = stats::pearson(&human, &judge);
    Ok(PointwiseCorrelation {
        name: name.to_owned(),
        n: r.n,
        pearson: r.value,
        p_value: r.p_value,
        missing: judge.iter().filter(|j| j.is_none()).count(),
    })
}

/// Position-swap consistency of one judge over the same pairs judged twice, the second time
/// with the two outputs exchanged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PositionConsistency {
    /// Pairs with a readable verdict in both runs.
    pub n: usize,
    /// Both verdicts name the same output (or both are ties).
    pub consistent: usize,
    /// `consistent / n`.
    pub consistency: Option<f64>,
    /// Inconsistent pairs where the judge chose whatever stood first both times.
    pub prefers_first: usize,
    /// Inconsistent pairs where it chose whatever stood second both times.
    pub prefers_second: usize,
    /// Inconsistent pairs where one verdict is a tie.
    pub tie_flips: usize,
    /// `(prefers_first − prefers_second) / n`: 0 is unbiased, +1 always picks the first slot.
    pub position_bias: Option<f64>,
    /// Pairs of the original run missing from the swapped run (or unreadable in either).
    pub unmatched: usize,
}

/// Position consistency from verdicts in pair order: `swapped[i]` is the verdict on pair `i`
/// with its outputs exchanged, in the positions the judge saw.
pub fn position_consistency(
    original: &[Option<Verdict>],
    swapped: &[Option<Verdict>],
) -> Result<PositionConsistency, MetaError> {
    if original.len() != swapped.len() {
        return Err(MetaError::LengthMismatch { left: original.len(), right: swapped.len() });
    }
    let mut out = PositionConsistency {
        n: 0,
        consistent: 0,
        consistency: None,
        prefers_first: 0,
        prefers_second: 0,
        tie_flips: 0,
        position_bias: None,
        unmatched: 0,
    };
    for (o, s) in original.iter().zip(swapped) {
        let (Some(o), Some(s)) = (o, s) else {
            out.unmatched += 1;
            continue;
        };
        out.n += 1;
        match (*o, *s) {
            (o, s) if s.swapped() == o => out.consistent += 1,
            (Verdict::First, Verdict::First) => out.prefers_first += 1,
            (Verdict::Second, Verdict::Second) => out.prefers_second += 1,
            _ => out.tie_flips += 1,
        }
    }
    if out.n > 0 {
        let n = out.n as f64;
        out.consistency = Some(out.consistent as f64 / n);
        out.position_bias = Some((out.prefers_first as f64 - out.prefers_second as f64) / n);
    }
    Ok(out)
}

/// Position consistency between two pairwise result files: pairs are matched by content (the
/// swapped file's pair has the same input with the two outputs exchanged), never by row.
pub fn position_consistency_runs(
    original_name: &str,
    original: &Loaded,
    swapped_name: &str,
    swapped: &Loaded,
) -> Result<PositionConsistency, MetaError> {
    let first = verdicts_per_pair(original_name, original)?;
    let second = verdicts_per_pair(swapped_name, swapped)?;
    let input = |p: &data::PairwiseItem| -> String {
        p.inputs.0.first().map(|(_, v)| v.clone()).unwrap_or_default()
    };
    let mut by_content: HashMap<(String, &str, &str), Option<Verdict>> = HashMap::new();
    for (pair, v) in swapped.dataset.pairs.iter().zip(&second) {
        by_content.entry((input(pair), &pair.output_a, &pair.output_b)).or_insert(*v);
    }
    let matched: Vec<Option<Verdict>> = original
        .dataset
        .pairs
        .iter()
        .map(|p| by_content.get(&(input(p), &p.output_b, &p.output_a)).copied().flatten())
        .collect();
    position_consistency(&first, &matched)
}
