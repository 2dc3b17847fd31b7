//! What the validity statistics read: the dataset's raters of one attribute as an annotators ×
//! items matrix, and any judge run's per-item value, verdict, confidence and samples.
//!
//! A run's samples are read as the workbench reads them (its parser policy and, for a
//! probability-weighted method, its weighting); a record without responses (an imported run,
//! e.g. an AltTest LLM) contributes its `parsed` value as its one sample.
//! * value (what the alt-test scores): the mean of the samples for scores — the Results
//!   table's number — and their most frequent rating for labels;
//! * verdict (what selective trust checks against the humans): the most frequent rating;
//! * confidence: the share of the samples giving the verdict (two or more parsed samples), or
//!   the mean probability of the chosen rating's token over the samples that carry
//!   log-probabilities ([`crate::judge::aggregate::rating_probability`]).

use super::error::ValidityError;
pub use super::settings::ConfidenceSource;
use crate::data::annotations::majority;
use crate::data::{Dataset, ScaleKind, join};
use crate::judge::aggregate::{rating_probability, read_samples};
use crate::stats::Scoring;
use crate::study::workbench::JudgedRun;

/// One attribute's raters: `values[r][i]` is rater `names[r]`'s rating of item `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct Raters {
    pub attribute: String,
    /// The attribute's values are labels (coded by [`crate::data::Attribute::categories`]).
    pub categorical: bool,
    pub names: Vec<String>,
    pub values: Vec<Vec<Option<f64>>>,
    /// The item's aggregate human value (majority label or mean score), per item.
    pub aggregate: Vec<Option<f64>>,
}

impl Raters {
    /// Items rated by at least one rater.
    pub fn rated_items(&self) -> usize {
        self.aggregate.iter().filter(|a| a.is_some()).count()
    }
}

/// The raters of `attribute`, in order of first appearance over the items (a rater named twice
/// on one item keeps the first rating).
pub fn raters(dataset: &Dataset, attribute: &str) -> Result<Raters, ValidityError> {
    let a = dataset
        .attribute_index(attribute)
        .ok_or_else(|| ValidityError::NoAttribute(attribute.to_owned()))?;
    let mut names: Vec<String> = Vec::new();
    let mut values: Vec<Vec<Option<f64>>> = Vec::new();
    let n = dataset.items.len();
    for (i, item) in dataset.items.iter().enumerate() {
        let Some(Some(rating)) = item.ratings.get(a) else { continue };
        for r in &rating.raters {
            let k = match names.iter().position(|x| *x == r.rater) {
                Some(k) => k,
                None => {
                    names.push(r.rater.clone());
                    values.push(vec![None; n]);
                    names.len() - 1
                }
            };
            if values[k][i].is_none() && !r.score.is_nan() {
                values[k][i] = Some(r.score);
            }
        }
    }
    if names.is_empty() {
        return Err(ValidityError::NoRaters { attribute: attribute.to_owned() });
    }
    Ok(Raters {
        attribute: attribute.to_owned(),
        categorical: dataset.attributes[a].scale.kind == ScaleKind::Categorical,
        names,
        values,
        aggregate: dataset.human_scores(a),
    })
}

/// `dataset` with the raters added in Concord (*Rate it yourself*, other bundles', students'
/// submissions) among its items' raters, so the alt-test counts them as annotators. An added
/// rater whose name already rates the attribute here is left out (the dataset's own ratings
/// win); the items' aggregates are unchanged.
pub fn with_added_raters(
    dataset: &Dataset,
    added: &[crate::study::workbench::settings::ExtraRater],
) -> Dataset {
    let mut out = dataset.clone();
    for rater in added {
        let Some(a) = dataset.attribute_index(&rater.attribute) else { continue };
        let already = dataset.items.iter().any(|i| {
            i.ratings
                .get(a)
                .and_then(Option::as_ref)
                .is_some_and(|r| r.raters.iter().any(|s| s.rater == rater.name))
        });
        if already {
            continue;
        }
        for (item, score) in out.items.iter_mut().zip(rater.aligned(dataset)) {
            let (Some(score), Some(Some(rating))) = (score, item.ratings.get_mut(a)) else {
                continue;
            };
            rating.raters.push(crate::data::RaterScore { rater: rater.name.clone(), score });
        }
    }
    out
}

/// A judge run read item by item (aligned with the dataset's items).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeItems {
    /// The run's method (its row in every table).
    pub method: String,
    pub attribute: String,
    /// What the alt-test scores: the mean of the samples (scores) or the majority (labels).
    pub value: Vec<Option<f64>>,
    /// The most frequent parsed rating.
    pub verdict: Vec<Option<f64>>,
    /// In [0, 1]; `None` where the chosen source gives none.
    pub confidence: Vec<Option<f64>>,
    /// The source used (`Auto` resolved); `None` when the run offers no confidence at all.
    pub source: Option<ConfidenceSource>,
    /// Per item, its parsed samples in order (`None`: a sample no rating was read from).
    pub samples: Vec<Vec<Option<f64>>>,
}

impl JudgeItems {
    /// The samples as a samples × items matrix (the stability statistics' raters).
    pub fn sample_matrix(&self) -> Vec<Vec<Option<f64>>> {
        let k = self.samples.iter().map(Vec::len).max().unwrap_or(0);
        (0..k)
            .map(|s| self.samples.iter().map(|item| item.get(s).copied().flatten()).collect())
            .collect()
    }

    /// The most samples any item has.
    pub fn max_samples(&self) -> usize {
        self.samples.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// Reads `run` against `dataset` (its attribute's scale bounds the parser), with confidence
/// from `source`.
pub fn judge_items(
    dataset: &Dataset,
    run: &JudgedRun,
    scoring: Scoring,
    source: ConfidenceSource,
) -> Result<JudgeItems, ValidityError> {
    let a = dataset
        .attribute_index(&run.attribute)
        .ok_or_else(|| ValidityError::NoAttribute(run.attribute.clone()))?;
    let scale = &dataset.attributes[a].scale;
    let bounds = Some((scale.min, scale.max));
    let int_scale = (scale.min.round() as i64, scale.max.round() as i64);
    let joined = join(dataset, &run.run);
    if joined.matched.is_empty() {
        return Err(ValidityError::NothingJoined { run: run.method.clone() });
    }
    let n = dataset.items.len();
    let mut samples: Vec<Vec<Option<f64>>> = vec![Vec::new(); n];
    let mut token_p: Vec<Option<f64>> = vec![None; n];
    for (i, record) in joined.record_per_item(n).into_iter().enumerate() {
        let Some(rec) = record.and_then(|r| run.run.records.get(r)) else { continue };
        if rec.responses.is_empty() {
            samples[i] =
                vec![rec.parsed.iter().find(|(x, _)| *x == run.attribute).map(|(_, v)| *v)];
            continue;
        }
        let read = read_samples(&rec.responses, &rec.logprobs, run.policy, run.weighting, bounds);
        samples[i] = read.samples.iter().map(|s| s.as_ref().ok().copied()).collect();
        let probs: Vec<f64> = rec
            .responses
            .iter()
            .zip(&rec.logprobs)
            .filter_map(|(text, tokens)| rating_probability(text, tokens, int_scale, run.policy))
            .collect();
        if !probs.is_empty() {
            token_p[i] = Some(probs.iter().sum::<f64>() / probs.len() as f64);
        }
    }
    let parsed = |s: &Vec<Option<f64>>| -> Vec<f64> { s.iter().flatten().copied().collect() };
    let verdict: Vec<Option<f64>> = samples.iter().map(|s| majority(&parsed(s))).collect();
    let value = match scoring {
        Scoring::Accuracy => verdict.clone(),
        Scoring::NegRmse => {
            samples.iter().map(|s| crate::data::mean_in_order(&parsed(s))).collect()
        }
    };
    let share: Vec<Option<f64>> = samples
        .iter()
        .zip(&verdict)
        .map(|(s, v)| {
            let p = parsed(s);
            let v = (*v)?;
            (p.len() >= 2).then(|| p.iter().filter(|x| **x == v).count() as f64 / p.len() as f64)
        })
        .collect();
    let has_samples = share.iter().any(Option::is_some);
    let has_logprobs = token_p.iter().any(Option::is_some);
    let source = match source {
        ConfidenceSource::Auto if has_samples => Some(ConfidenceSource::Samples),
        ConfidenceSource::Auto if has_logprobs => Some(ConfidenceSource::Logprobs),
        ConfidenceSource::Auto => None,
        ConfidenceSource::Samples => has_samples.then_some(ConfidenceSource::Samples),
        ConfidenceSource::Logprobs => has_logprobs.then_some(ConfidenceSource::Logprobs),
    };
    let confidence = match source {
        Some(ConfidenceSource::Samples) => share,
        Some(ConfidenceSource::Logprobs) => token_p,
        _ => vec![None; n],
    };
    Ok(JudgeItems {
        method: run.method.clone(),
        attribute: run.attribute.clone(),
        value,
        verdict,
        confidence,
        source,
        samples,
    })
}
