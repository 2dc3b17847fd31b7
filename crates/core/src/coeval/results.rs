//! Results of a CoEval study: action rates (seed 004 Tables 5 and 6), final criteria by
//! majority vote, criterion recurrence over repeated ideation, Krippendorff's α among the LLM
//! and annotators (Figure 3), average Pearson between evaluator groups (Table 8), score
//! distributions by generating model (Figure 2) and time per sample (Table 7).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::session::{Action, Annotation, Component};
use crate::stats::{self, KrippendorffLevel};

/// How often each action was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionCounts {
    pub approve: usize,
    pub revise: usize,
    pub delete: usize,
    pub add: usize,
}

impl ActionCounts {
    pub fn add_one(&mut self, action: Action) {
        *self.slot(action) += 1;
    }

    fn slot(&mut self, action: Action) -> &mut usize {
        match action {
            Action::Approve => &mut self.approve,
            Action::Revise => &mut self.revise,
            Action::Delete => &mut self.delete,
            Action::Add => &mut self.add,
        }
    }

    pub fn total(&self) -> usize {
        self.approve + self.revise + self.delete + self.add
    }

    /// Each count as a percentage of all actions; `None` when there are none.
    pub fn percentages(&self) -> Option<ActionRates> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let pct = |k: usize| 100.0 * k as f64 / n as f64;
        Some(ActionRates {
            approve: pct(self.approve),
            revise: pct(self.revise),
            delete: pct(self.delete),
            add: pct(self.add),
        })
    }
}

/// Action shares in percent (seed 004 prints them with two decimals).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActionRates {
    pub approve: f64,
    pub revise: f64,
    pub delete: f64,
    pub add: f64,
}

/// Table 6: action counts over all parts and per component.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComponentCounts {
    pub all: ActionCounts,
    pub conclusion: ActionCounts,
    pub score: ActionCounts,
    pub evidence: ActionCounts,
}

impl ComponentCounts {
    pub fn add_one(&mut self, component: Component, action: Action) {
        self.all.add_one(action);
        match component {
            Component::Conclusion => self.conclusion.add_one(action),
            Component::Score => self.score.add_one(action),
            Component::Evidence => self.evidence.add_one(action),
        }
    }

    pub fn component(&self, component: Component) -> &ActionCounts {
        match component {
            Component::Conclusion => &self.conclusion,
            Component::Score => &self.score,
            Component::Evidence => &self.evidence,
        }
    }
}

/// Table 6 over annotations made in Concord: every decision on every part.
pub fn part_actions<'a>(annotations: impl IntoIterator<Item = &'a Annotation>) -> ComponentCounts {
    let mut counts = ComponentCounts::default();
    for a in annotations {
        for review in a.reviews.values() {
            for (part, d) in &review.parts {
                counts.add_one(part.component(), d.action);
            }
        }
    }
    counts
}

/// Table 5 over annotations made in Concord: every decision on a criterion.
pub fn criterion_actions<'a>(
    annotations: impl IntoIterator<Item = &'a Annotation>,
) -> ActionCounts {
    let mut counts = ActionCounts::default();
    for a in annotations {
        for d in a.criteria.values() {
            counts.add_one(d.action);
        }
    }
    counts
}

/// Share (0–1) of the LLM's scores that annotators revised: reviews whose score part was
/// revised, or whose own score differs from the LLM's, over reviews with a score decision or
/// an own score. `llm_score` gives the LLM's score of (instance, criterion).
pub fn share_scores_revised<'a>(
    annotations: impl IntoIterator<Item = &'a Annotation>,
    llm_score: impl Fn(&str, &str) -> Option<f64>,
) -> Option<f64> {
    let (mut revised, mut n) = (0usize, 0usize);
    for a in annotations {
        for ((instance, criterion), review) in &a.reviews {
            let decision = review.parts.get(&super::session::Part::Score).map(|d| d.action);
            let differs = match (review.score, llm_score(instance, criterion)) {
                (Some(own), Some(llm)) => Some(own != llm),
                _ => None,
            };
            if decision.is_none() && differs.is_none() {
                continue;
            }
            n += 1;
            if decision.is_some_and(|a| a != Action::Approve) || differs == Some(true) {
                revised += 1;
            }
        }
    }
    (n > 0).then(|| revised as f64 / n as f64)
}

/// A criterion of the final set and how the annotators voted on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalCriterion {
    /// The wording: the LLM's, or the revision most annotators wrote (ties: the first in
    /// alphabetical order, so the result does not depend on annotator order).
    pub criterion: String,
    /// The LLM criterion it comes from; `None` for a criterion annotators added.
    pub original: Option<String>,
    /// Annotators keeping it (approve or revise; add for added criteria) and voting at all.
    pub keep: usize,
    pub voters: usize,
}

/// Final criteria by majority vote, as seed 004 §3.1 does it: "each criterion is executed by
/// selecting the action with the highest action rate". For an LLM criterion the annotators who
/// decided on it approve, revise or delete it; the most frequent action wins, and a tie with
/// delete keeps the criterion (nobody outvoted keeping it). When revise wins, the wording is
/// the revision most annotators wrote (ties: alphabetical). A criterion annotators added stays
/// when more than half of all annotators added it (same wording): its other "action" is not
/// adding it.
pub fn majority_criteria(llm: &[String], annotations: &[&Annotation]) -> Vec<FinalCriterion> {
    let mut out = Vec::new();
    for c in llm {
        let votes: Vec<_> = annotations.iter().filter_map(|a| a.criteria.get(c)).collect();
        let mut n = ActionCounts::default();
        votes.iter().for_each(|d| n.add_one(d.action));
        let (approvals, revisions_n, deletions) = (n.approve, n.revise, n.delete);
        if votes.is_empty() || deletions > approvals.max(revisions_n) {
            continue;
        }
        let mut revisions: BTreeMap<&str, usize> = BTreeMap::new();
        for d in votes.iter().filter(|d| d.action == Action::Revise) {
            if let Some(t) = d.text.as_deref() {
                *revisions.entry(t).or_default() += 1;
            }
        }
        // Revise is the action only when it beats approve; then its most written wording.
        let best = revisions.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
        let criterion = match best {
            Some((text, _)) if revisions_n > approvals => (*text).to_owned(),
            _ => c.clone(),
        };
        out.push(FinalCriterion {
            criterion,
            original: Some(c.clone()),
            keep: approvals + revisions_n,
            voters: votes.len(),
        });
    }
    let mut added: BTreeMap<&str, usize> = BTreeMap::new();
    for a in annotations {
        for (c, d) in &a.criteria {
            if d.action == Action::Add && !llm.contains(c) {
                *added.entry(c.as_str()).or_default() += 1;
            }
        }
    }
    for (c, n) in added {
        if 2 * n > annotations.len() {
            out.push(FinalCriterion {
                criterion: c.to_owned(),
                original: None,
                keep: n,
                voters: annotations.len(),
            });
        }
    }
    out
}

/// How often a criterion recurs over repeated ideation samples (seed 004 §5: 10 samples at
/// T = 0.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recurrence {
    /// The first wording seen.
    pub criterion: String,
    /// Samples that contain it (at most once per sample).
    pub samples: usize,
}

/// Counts criteria across ideation samples, matching wordings after removing list numbering,
/// case, punctuation and surrounding whitespace. Sorted by count, then first appearance.
pub fn recurrence(samples: &[Vec<String>]) -> Vec<Recurrence> {
    let mut order: Vec<(String, Recurrence)> = Vec::new();
    for sample in samples {
        let mut seen: Vec<String> = Vec::new();
        for c in sample {
            let key = normalize_criterion(c);
            if key.is_empty() || seen.contains(&key) {
                continue;
            }
            match order.iter_mut().find(|(k, _)| *k == key) {
                Some((_, r)) => r.samples += 1,
                None => order
                    .push((key.clone(), Recurrence { criterion: c.trim().to_owned(), samples: 1 })),
            }
            seen.push(key);
        }
    }
    let mut out: Vec<Recurrence> = order.into_iter().map(|(_, r)| r).collect();
    // Stable: equal counts keep first appearance.
    out.sort_by_key(|r| std::cmp::Reverse(r.samples));
    out
}

fn normalize_criterion(c: &str) -> String {
    let t = c.trim().trim_start_matches(|ch: char| ch.is_ascii_digit() || ch == '.' || ch == ')');
    let t = t.trim_start_matches(['-', '*', ' ']);
    t.chars()
        .filter(|ch| ch.is_alphanumeric() || ch.is_whitespace())
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A rated unit: one criterion's evaluation of one system's output for one input.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Unit {
    pub instance: String,
    pub system: String,
    pub criterion: String,
}

/// Scores of several raters (the LLM among them) over shared units: `scores[r][u]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScoreTable {
    pub raters: Vec<String>,
    pub units: Vec<Unit>,
    pub scores: Vec<Vec<Option<f64>>>,
}

impl ScoreTable {
    /// Builds a table from (unit, rater, score) triples; raters and units keep first-seen
    /// order; a repeated (unit, rater) keeps the last score.
    pub fn from_triples(triples: impl IntoIterator<Item = (Unit, String, f64)>) -> ScoreTable {
        let mut table = ScoreTable::default();
        let mut unit_index: BTreeMap<Unit, usize> = BTreeMap::new();
        for (unit, rater, score) in triples {
            let r = match table.raters.iter().position(|x| *x == rater) {
                Some(r) => r,
                None => {
                    table.raters.push(rater);
                    table.scores.push(vec![None; table.units.len()]);
                    table.raters.len() - 1
                }
            };
            let u = *unit_index.entry(unit.clone()).or_insert_with(|| {
                table.units.push(unit);
                for row in &mut table.scores {
                    row.push(None);
                }
                table.units.len() - 1
            });
            table.scores[r][u] = Some(score);
        }
        table
    }

    /// The table of a study run in Concord: the LLM's scores, then each annotator's own scores
    /// (`system_of` names the generating system of an instance id).
    pub fn from_annotations(
        llm: &str,
        llm_scores: &[(Unit, f64)],
        annotators: &[(&str, &Annotation)],
        system_of: impl Fn(&str) -> String,
    ) -> ScoreTable {
        let mut triples: Vec<(Unit, String, f64)> =
            llm_scores.iter().map(|(u, s)| (u.clone(), llm.to_owned(), *s)).collect();
        for (name, a) in annotators {
            for ((instance, criterion), review) in &a.reviews {
                if let Some(s) = review.score {
                    let unit = Unit {
                        instance: instance.clone(),
                        system: system_of(instance),
                        criterion: criterion.clone(),
                    };
                    triples.push((unit, (*name).to_owned(), s));
                }
            }
        }
        ScoreTable::from_triples(triples)
    }

    /// Figure 3: the symmetric matrix of pairwise α in rater order (1 on the diagonal).
    pub fn alpha_matrix(&self, level: KrippendorffLevel) -> Vec<Vec<Option<f64>>> {
        let n = self.raters.len();
        let pairs = self.alpha_pairs(level);
        // `alpha_pairs` lists (i, j), i < j, row by row: (i, j) is at i·n − i(i+1)/2 + j − i − 1.
        let at = |i: usize, j: usize| i * n - i * (i + 1) / 2 + j - i - 1;
        (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| match i.cmp(&j) {
                        std::cmp::Ordering::Equal => Some(1.0),
                        std::cmp::Ordering::Less => pairs.get(at(i, j)).and_then(|p| p.alpha),
                        std::cmp::Ordering::Greater => pairs.get(at(j, i)).and_then(|p| p.alpha),
                    })
                    .collect()
            })
            .collect()
    }

    /// Scores of the raters in `names`, in that order (unknown names give empty rows).
    fn rows(&self, names: &[&str]) -> Vec<Vec<Option<f64>>> {
        names
            .iter()
            .map(|n| {
                self.raters
                    .iter()
                    .position(|r| r == n)
                    .map(|r| self.scores[r].clone())
                    .unwrap_or_else(|| vec![None; self.units.len()])
            })
            .collect()
    }

    /// Krippendorff's α among `names` over the units at least two of them rated.
    pub fn alpha(&self, names: &[&str], level: KrippendorffLevel) -> stats::Estimate {
        stats::krippendorff_alpha(&self.rows(names), level)
    }

    /// Pairwise α of every pair of raters (Figure 3), in rater order.
    pub fn alpha_pairs(&self, level: KrippendorffLevel) -> Vec<PairAlpha> {
        let mut out = Vec::new();
        for (i, a) in self.raters.iter().enumerate() {
            for b in &self.raters[i + 1..] {
                let rows = self.rows(&[a, b]);
                let n_units = rows[0]
                    .iter()
                    .zip(&rows[1])
                    .filter(|(x, y)| x.is_some() && y.is_some())
                    .count();
                let e = stats::krippendorff_alpha(&rows, level);
                out.push(PairAlpha {
                    a: a.clone(),
                    b: b.clone(),
                    level: level_name(level).to_owned(),
                    alpha: e.value,
                    n_units,
                });
            }
        }
        out
    }

    /// Pearson's r between two raters over the units both rated.
    pub fn pearson(&self, a: &str, b: &str) -> stats::Correlation {
        let rows = self.rows(&[a, b]);
        let x: Vec<f64> = rows[0].iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let y: Vec<f64> = rows[1].iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        stats::pearson(&x, &y)
    }

    /// Table 8: the mean of Pearson's r over every pair with one rater from `left` and one
    /// from `right` (or, when `right` is `None`, every pair within `left`). Undefined pairs
    /// are left out; `None` when none is defined.
    pub fn mean_pearson(&self, left: &[&str], right: Option<&[&str]>) -> Option<f64> {
        let mut values = Vec::new();
        match right {
            Some(right) => {
                for a in left {
                    for b in right {
                        values.extend(self.pearson(a, b).value);
                    }
                }
            }
            None => {
                for (i, a) in left.iter().enumerate() {
                    for b in &left[i + 1..] {
                        values.extend(self.pearson(a, b).value);
                    }
                }
            }
        }
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    }

    /// Figure 2: per generating system and rater, how many scores fell on 1, 2, 3, 4, 5
    /// (scores are rounded to the nearest integer; others are not counted).
    pub fn distribution(&self, criterion: Option<&str>) -> Vec<Distribution> {
        let mut map: BTreeMap<(String, usize), [usize; 5]> = BTreeMap::new();
        for (u, unit) in self.units.iter().enumerate() {
            if criterion.is_some_and(|c| c != unit.criterion) {
                continue;
            }
            for (r, row) in self.scores.iter().enumerate() {
                let Some(s) = row[u] else { continue };
                let k = s.round();
                if (1.0..=5.0).contains(&k) {
                    map.entry((unit.system.clone(), r)).or_default()[k as usize - 1] += 1;
                }
            }
        }
        map.into_iter()
            .map(|((system, r), counts)| Distribution {
                system,
                rater: self.raters[r].clone(),
                counts,
            })
            .collect()
    }
}

/// α of one pair of raters (the CLI's `alpha` rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairAlpha {
    pub a: String,
    pub b: String,
    pub level: String,
    pub alpha: Option<f64>,
    pub n_units: usize,
}

/// Counts of scores 1–5 by one rater on one generating system's outputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub system: String,
    pub rater: String,
    pub counts: [usize; 5],
}

/// The name the CLI prints for a level.
pub fn level_name(level: KrippendorffLevel) -> &'static str {
    match level {
        KrippendorffLevel::Nominal => "nominal",
        KrippendorffLevel::Ordinal => "ordinal",
        KrippendorffLevel::Interval => "interval",
        KrippendorffLevel::Ratio => "ratio",
    }
}

/// Parses a level name (the inverse of [`level_name`]).
pub fn parse_level(name: &str) -> Option<KrippendorffLevel> {
    match name.to_ascii_lowercase().as_str() {
        "nominal" => Some(KrippendorffLevel::Nominal),
        "ordinal" => Some(KrippendorffLevel::Ordinal),
        "interval" => Some(KrippendorffLevel::Interval),
        "ratio" => Some(KrippendorffLevel::Ratio),
        _ => None,
    }
}

/// Table 7: mean minutes per sample over the instances with a recorded time.
pub fn minutes_per_sample<'a>(
    annotations: impl IntoIterator<Item = &'a Annotation>,
) -> Option<f64> {
    let times: Vec<u64> =
        annotations.into_iter().flat_map(|a| a.time_ms.values().copied()).collect();
    (!times.is_empty())
        .then(|| times.iter().map(|&t| t as f64).sum::<f64>() / times.len() as f64 / 60_000.0)
}
