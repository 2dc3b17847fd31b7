//! Selective trust with a guaranteed agreement (STATS_SPEC §16.2; Trust or Escalate, Jung,
//! Brahman & Choi, ICLR 2025; fixed-sequence testing of Learn Then Test, Bates et al.): trust
//! the judge only on items whose confidence reaches a threshold chosen so that its agreement
//! with humans on the trusted items is at least 1 − α with probability at least 1 − δ; send the
//! rest to a stronger judge, then to a person (the [`cascade`]).
//!
//! Which reference routine each part mirrors: the binomial tail is scipy's
//! `binom.cdf(e, n, α)` (here the regularised incomplete beta `I_{1−α}(n − e, e + 1)`, as
//! cephes' `bdtr`), the walk is fixed-sequence testing from the highest threshold down.
//!
//! Thresholds are the distinct confidences, highest first; the walk stops at the first one
//! whose p-value exceeds δ, and the threshold is the last one passed. Every candidate is
//! reported with its n, errors and p (the coverage–agreement curve), not only those walked.

use super::audit::{Proportion, wilson};
use super::basics::Undefined;
use statrs::function::beta::checked_beta_reg;

/// Bad settings or inputs (the data are fine but the call is not).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TrustError {
    #[error("α = {0} is not strictly between 0 and 1 (the tolerated disagreement)")]
    Alpha(f64),
    #[error("δ = {0} is not strictly between 0 and 1 (the risk that the guarantee fails)")]
    Delta(f64),
    #[error("`confidence` has {confidence} values but `agree` has {agree}: they must be paired")]
    LengthMismatch { confidence: usize, agree: usize },
    #[error("confidence {value} of item {item} is not in [0, 1]")]
    Confidence { item: usize, value: f64 },
}

/// P(X ≤ k) for X ~ Binomial(n, p) (scipy `binom.cdf(k, n, p)`).
pub fn binomial_cdf(k: usize, n: usize, p: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    // P(X ≤ k) = I_{1−p}(n − k, k + 1).
    checked_beta_reg((n - k) as f64, (k + 1) as f64, 1.0 - p).unwrap_or(f64::NAN)
}

/// One candidate threshold λ: the items at or above it, the judge's disagreements among them,
/// and the p-value P(Binomial(n_λ, α) ≤ e_λ).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThresholdStep {
    pub lambda: f64,
    pub n: usize,
    pub errors: usize,
    pub p: f64,
    /// Walked and passed (p ≤ δ, and every higher threshold passed).
    pub passed: bool,
}

impl ThresholdStep {
    /// Share of the calibration items at or above λ.
    pub fn coverage(&self, n_items: usize) -> f64 {
        self.n as f64 / n_items as f64
    }

    /// Agreement among the items at or above λ: 1 − e_λ/n_λ.
    pub fn agreement(&self) -> f64 {
        1.0 - self.errors as f64 / self.n as f64
    }
}

/// A calibrated threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct SelectiveTrust {
    pub alpha: f64,
    pub delta: f64,
    /// Calibration items used (confidence and agreement both known).
    pub n: usize,
    /// λ̂: trust items with confidence ≥ λ̂; `None` when no threshold passed.
    pub threshold: Option<f64>,
    /// Items at or above λ̂ (0 when none passed).
    pub n_trusted: usize,
    /// Disagreements among them.
    pub errors: usize,
    /// n_trusted / n; `None` when n = 0.
    pub coverage: Option<f64>,
    /// 1 − errors/n_trusted on the trusted items; `None` when nothing is trusted.
    pub agreement: Option<f64>,
    /// Every candidate, highest first.
    pub steps: Vec<ThresholdStep>,
    /// Why nothing is trusted.
    pub undefined: Option<Undefined>,
}

/// What a threshold does on items not used to set it (a held-out half).
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    /// Items with both confidence and agreement known.
    pub n: usize,
    pub n_trusted: usize,
    pub coverage: Option<f64>,
    /// Agreement on the trusted items with its Wilson interval.
    pub agreement: Proportion,
}

fn check(alpha: f64, delta: f64) -> Result<(), TrustError> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(TrustError::Alpha(alpha));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(TrustError::Delta(delta));
    }
    Ok(())
}

/// Clean (confidence, agree) pairs; items missing either are dropped.
fn pairs(
    confidence: &[Option<f64>],
    agree: &[Option<bool>],
) -> Result<Vec<(f64, bool)>, TrustError> {
    if confidence.len() != agree.len() {
        return Err(TrustError::LengthMismatch {
            confidence: confidence.len(),
            agree: agree.len(),
        });
    }
    let mut out = Vec::with_capacity(confidence.len());
    for (item, (c, a)) in confidence.iter().zip(agree).enumerate() {
        let (Some(c), Some(a)) = (c.filter(|v| !v.is_nan()), a) else { continue };
        if !(0.0..=1.0).contains(&c) {
            return Err(TrustError::Confidence { item, value: c });
        }
        out.push((c, *a));
    }
    Ok(out)
}

/// Calibrates a threshold on items with the judge's `confidence` (in [0, 1]) and whether it
/// agrees with the human label (`agree`); `None` in either drops the item (§16.2).
pub fn selective_trust(
    confidence: &[Option<f64>],
    agree: &[Option<bool>],
    alpha: f64,
    delta: f64,
) -> Result<SelectiveTrust, TrustError> {
    check(alpha, delta)?;
    let mut items = pairs(confidence, agree)?;
    // Highest confidence first: each candidate's counts are a running total.
    items.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = items.len();
    let mut steps = Vec::new();
    let (mut count, mut errors) = (0usize, 0usize);
    let mut walking = true;
    let mut i = 0;
    while i < n {
        let lambda = items[i].0;
        while i < n && items[i].0 == lambda {
            count += 1;
            errors += usize::from(!items[i].1);
            i += 1;
        }
        let p = binomial_cdf(errors, count, alpha);
        let passed = walking && p <= delta;
        walking = passed;
        steps.push(ThresholdStep { lambda, n: count, errors, p, passed });
    }
    let last = steps.iter().rev().find(|s| s.passed).copied();
    let (n_trusted, trusted_errors) = last.map_or((0, 0), |s| (s.n, s.errors));
    Ok(SelectiveTrust {
        alpha,
        delta,
        n,
        threshold: last.map(|s| s.lambda),
        n_trusted,
        errors: trusted_errors,
        coverage: (n > 0).then(|| n_trusted as f64 / n as f64),
        agreement: last.map(|s| s.agreement()),
        steps,
        undefined: if n == 0 {
            Some(Undefined::TooFewItems { n: 0, needed: 1 })
        } else if last.is_none() {
            Some(Undefined::NoThresholdPassed)
        } else {
            None
        },
    })
}

impl SelectiveTrust {
    /// Whether an item of this confidence is trusted.
    pub fn trusts(&self, confidence: Option<f64>) -> bool {
        matches!((self.threshold, confidence), (Some(t), Some(c)) if c >= t)
    }

    /// The threshold applied to other items (e.g. a held-out half): coverage and agreement
    /// observed there, with a Wilson interval at `confidence_level`.
    pub fn evaluate(
        &self,
        confidence: &[Option<f64>],
        agree: &[Option<bool>],
        confidence_level: f64,
    ) -> Result<Observed, TrustError> {
        let items = pairs(confidence, agree)?;
        let trusted: Vec<bool> =
            items.iter().filter(|(c, _)| self.trusts(Some(*c))).map(|(_, a)| *a).collect();
        let agreeing = trusted.iter().filter(|&&a| a).count();
        Ok(Observed {
            n: items.len(),
            n_trusted: trusted.len(),
            coverage: (!items.is_empty()).then(|| trusted.len() as f64 / items.len() as f64),
            agreement: wilson(agreeing, trusted.len(), confidence_level)
                .map_err(|_| TrustError::Alpha(confidence_level))?,
        })
    }
}

/// One judge of a cascade, on the same items as the others: its confidence and whether it
/// agrees with the human label, per item (`None`: no answer for that item).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CascadeJudge {
    pub confidence: Vec<Option<f64>>,
    pub agree: Vec<Option<bool>>,
}

/// One stage of a calibrated cascade.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadeStage {
    /// Calibrated on the items the earlier judges did not trust.
    pub calibration: SelectiveTrust,
    /// Items this judge decides (the first to trust them).
    pub decided: usize,
    /// Of those, how many it agrees with the human label on.
    pub agreeing: usize,
}

/// A cascade of judges in order of cost (§16.2): J_1 calibrated on every item, J_2 on those J_1
/// does not trust, and so on; an item goes to the first judge that trusts it, else to a human.
#[derive(Debug, Clone, PartialEq)]
pub struct Cascade {
    pub stages: Vec<CascadeStage>,
    /// Items in all.
    pub n: usize,
    /// Items decided by some judge.
    pub decided: usize,
    /// Share decided without a human; `None` when n = 0.
    pub coverage: Option<f64>,
    /// Agreement with the human label among the items a judge decided; `None` when none.
    pub agreement: Option<f64>,
}

/// Which stage decides each item of a calibrated cascade (`None`: a human).
pub fn cascade_route(
    stages: &[CascadeStage],
    judges: &[CascadeJudge],
    n: usize,
) -> Vec<Option<usize>> {
    (0..n)
        .map(|i| {
            stages
                .iter()
                .zip(judges)
                .position(|(s, j)| s.calibration.trusts(j.confidence.get(i).copied().flatten()))
        })
        .collect()
}

/// Calibrates a cascade on the items of `judges` (all of the same length).
pub fn cascade(judges: &[CascadeJudge], alpha: f64, delta: f64) -> Result<Cascade, TrustError> {
    check(alpha, delta)?;
    let n = judges.first().map_or(0, |j| j.confidence.len());
    for j in judges {
        if j.confidence.len() != n || j.agree.len() != n {
            return Err(TrustError::LengthMismatch {
                confidence: j.confidence.len(),
                agree: j.agree.len().max(n),
            });
        }
    }
    let mut open = vec![true; n];
    let mut stages = Vec::with_capacity(judges.len());
    for j in judges {
        let mask = |v: &[Option<f64>]| -> Vec<Option<f64>> {
            v.iter().zip(&open).map(|(c, o)| if *o { *c } else { None }).collect()
        };
        let agree: Vec<Option<bool>> =
            j.agree.iter().zip(&open).map(|(a, o)| if *o { *a } else { None }).collect();
        let calibration = selective_trust(&mask(&j.confidence), &agree, alpha, delta)?;
        let (mut decided, mut agreeing) = (0, 0);
        for (i, open) in open.iter_mut().enumerate() {
            if *open && calibration.trusts(j.confidence[i]) {
                *open = false;
                decided += 1;
                agreeing += usize::from(j.agree[i] == Some(true));
            }
        }
        stages.push(CascadeStage { calibration, decided, agreeing });
    }
    Ok(summarise(stages, n))
}

fn summarise(stages: Vec<CascadeStage>, n: usize) -> Cascade {
    let decided: usize = stages.iter().map(|s| s.decided).sum();
    let agreeing: usize = stages.iter().map(|s| s.agreeing).sum();
    Cascade {
        stages,
        n,
        decided,
        coverage: (n > 0).then(|| decided as f64 / n as f64),
        agreement: (decided > 0).then(|| agreeing as f64 / decided as f64),
    }
}

impl Cascade {
    /// The calibrated cascade applied to other items (a held-out half): per stage the items it
    /// decides there and its agreement on them, and the overall share and agreement.
    pub fn evaluate(&self, judges: &[CascadeJudge]) -> Cascade {
        let n = judges.first().map_or(0, |j| j.confidence.len());
        let route = cascade_route(&self.stages, judges, n);
        let stages = self
            .stages
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let mine: Vec<usize> = (0..n).filter(|&i| route[i] == Some(k)).collect();
                let agreeing = mine
                    .iter()
                    .filter(|&&i| judges[k].agree.get(i).copied().flatten() == Some(true))
                    .count();
                CascadeStage { calibration: s.calibration.clone(), decided: mine.len(), agreeing }
            })
            .collect();
        summarise(stages, n)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn binomial_cdf_matches_scipy() {
        // scipy.stats.binom.cdf(k, n, p)
        assert!((binomial_cdf(0, 10, 0.1) - 0.3486784401).abs() < 1e-12);
        assert!((binomial_cdf(2, 20, 0.1) - 0.6769268051894659).abs() < 1e-12);
        assert!((binomial_cdf(0, 30, 0.1) - 0.042391158275216195).abs() < 1e-12);
        assert_eq!(binomial_cdf(5, 5, 0.3), 1.0);
        assert_eq!(binomial_cdf(0, 0, 0.3), 1.0);
    }

    #[test]
    fn the_walk_stops_at_the_first_failure() {
        // 30 items at confidence 0.9, all agreeing: p = 0.9³⁰ = 0.0424 ≤ 0.05 passes.
        // Then 10 at 0.5 with 5 errors: P(Bin(40, 0.1) ≤ 5) = 0.79 > 0.05 stops the walk.
        // Then 20 at 0.4 all agreeing: not walked, never passed although its p is small.
        let mut c = vec![Some(0.9); 30];
        let mut a = vec![Some(true); 30];
        c.extend(vec![Some(0.5); 10]);
        a.extend((0..10).map(|i| Some(i % 2 == 0)));
        let r = selective_trust(&c, &a, 0.1, 0.05).unwrap();
        assert_eq!(r.threshold, Some(0.9));
        assert_eq!((r.n, r.n_trusted, r.errors), (40, 30, 0));
        assert_eq!(r.coverage, Some(0.75));
        assert_eq!(r.agreement, Some(1.0));
        assert_eq!(r.steps.len(), 2);
        assert!(r.steps[0].passed && !r.steps[1].passed);
        assert_eq!((r.steps[1].n, r.steps[1].errors), (40, 5));
    }

    #[test]
    fn nothing_passes_and_ties_form_one_candidate() {
        // Too few items for any guarantee: P(Bin(5, 0.1) ≤ 0) = 0.59 > 0.05.
        let c = [Some(0.9), Some(0.9), Some(0.9), Some(0.8), Some(0.8)];
        let a = [Some(true); 5];
        let r = selective_trust(&c, &a, 0.1, 0.05).unwrap();
        assert_eq!(r.threshold, None);
        assert_eq!((r.n_trusted, r.coverage, r.agreement), (0, Some(0.0), None));
        assert_eq!(r.undefined, Some(Undefined::NoThresholdPassed));
        assert_eq!(
            r.steps.iter().map(|s| (s.lambda, s.n)).collect::<Vec<_>>(),
            [(0.9, 3), (0.8, 5)]
        );
        let empty = selective_trust(&[None], &[Some(true)], 0.1, 0.05).unwrap();
        assert_eq!((empty.n, empty.coverage), (0, None));
        assert!(matches!(
            selective_trust(&[Some(1.5)], &[Some(true)], 0.1, 0.05),
            Err(TrustError::Confidence { .. })
        ));
        assert!(matches!(selective_trust(&[], &[], 0.0, 0.05), Err(TrustError::Alpha(_))));
    }

    #[test]
    fn the_cascade_passes_what_the_first_judge_does_not_trust() {
        // Judge 1 trusts the first 30 items (confidence 1, all agreeing), not the last 30.
        // Judge 2 is calibrated on the last 30 only, where it agrees everywhere at 0.7.
        let j1 = CascadeJudge {
            confidence: (0..60).map(|i| Some(if i < 30 { 1.0 } else { 0.2 })).collect(),
            agree: (0..60).map(|i| Some(i < 30 || i % 2 == 0)).collect(),
        };
        let j2 = CascadeJudge { confidence: vec![Some(0.7); 60], agree: vec![Some(true); 60] };
        let c = cascade(&[j1.clone(), j2.clone()], 0.1, 0.05).unwrap();
        assert_eq!(c.stages[0].calibration.threshold, Some(1.0));
        assert_eq!(c.stages[0].decided, 30);
        assert_eq!(c.stages[1].calibration.n, 30);
        assert_eq!(c.stages[1].decided, 30);
        assert_eq!((c.decided, c.coverage, c.agreement), (60, Some(1.0), Some(1.0)));
        let route = cascade_route(&c.stages, &[j1.clone(), j2], 60);
        assert_eq!(route[0], Some(0));
        assert_eq!(route[59], Some(1));
        // Applied to items with judge 2 absent: the rest go to a human.
        let held =
            c.evaluate(&[j1, CascadeJudge { confidence: vec![None; 60], agree: vec![None; 60] }]);
        assert_eq!((held.decided, held.stages[1].decided), (30, 0));
    }
}
