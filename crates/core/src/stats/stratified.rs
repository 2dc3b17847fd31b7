//! Stratified prediction-powered inference and the label planner (STATS_SPEC §16.3; Fisch et
//! al., NeurIPS 2024): the PPI++ mean of §15.4 within each stratum (by system, or by the
//! judge's confidence), weighted by the stratum's share of the unlabelled items; and, before
//! labelling, how many human labels an interval of a chosen half-width needs with the judge
//! and without it, allocated to the strata by Neyman's rule.
//!
//! Choices where §16.3 is silent, said where they apply:
//! * A stratum whose judge values are all the same (labelled and unlabelled alike — strata cut
//!   by the judge's own rating are like that) has λ̂ = 0/0; every λ gives the same estimate
//!   there (the human mean), so λ_k = 0 is used and the stratum says so (`lambda_fixed`).
//! * A stratum with no unlabelled item has weight 0 and adds nothing; one with weight > 0 and
//!   fewer than 2 labels leaves the stratified estimate undefined, naming the stratum.
//! * The planner's n is rounded up, and so is each stratum's n_k.

use super::audit::{AuditError, MeanInterval, ppi_lambda, ppi_mean_at, z_for};
use super::basics::Undefined;

/// One stratum's data: labelled items (`y` human, `yhat` judge, paired) and the judge's
/// values on the unlabelled items. `None` or NaN drops the value from its own list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StratumData {
    pub y: Vec<Option<f64>>,
    pub yhat: Vec<Option<f64>>,
    pub yhat_unlabeled: Vec<Option<f64>>,
}

/// One stratum's share and estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct StratumEstimate {
    /// w_k = N_k / N.
    pub w: f64,
    /// Labelled pairs used.
    pub n: usize,
    /// Unlabelled judge values used (N_k).
    pub n_unlabeled: usize,
    /// The PPI++ estimate θ̂_k with its standard error and interval.
    pub estimate: MeanInterval,
    /// λ_k (clipped to [0, 1]).
    pub lambda: Option<f64>,
    /// λ_k was set to 0 because every judge value of the stratum is equal.
    pub lambda_fixed: bool,
    /// sd₀(Y − λ_k Ŷ) and sd₀(Y) on the labelled items: what the planner allocates by.
    pub sigma: Option<f64>,
    pub sigma_human: Option<f64>,
}

/// The stratified estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct StratifiedPpi {
    pub confidence: f64,
    pub estimate: Option<f64>,
    pub se: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub strata: Vec<StratumEstimate>,
    /// Why the estimate is `None`.
    pub undefined: Option<Undefined>,
    /// The first stratum (with weight > 0) whose estimate is undefined.
    pub undefined_stratum: Option<usize>,
}

fn clean(v: &[Option<f64>]) -> Vec<f64> {
    v.iter().filter_map(|x| x.filter(|x| !x.is_nan())).collect()
}

fn sd0(v: &[f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    Some((v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64).sqrt())
}

/// Stratified PPI++ (§16.3) at `confidence`.
pub fn stratified_ppi(
    strata: &[StratumData],
    confidence: f64,
) -> Result<StratifiedPpi, AuditError> {
    let z = z_for(confidence)?;
    let big_n: usize = strata.iter().map(|s| clean(&s.yhat_unlabeled).len()).sum();
    let mut out = Vec::with_capacity(strata.len());
    for s in strata {
        if s.y.len() != s.yhat.len() {
            return Err(AuditError::LengthMismatch {
                left: "y",
                left_len: s.y.len(),
                right: "yhat",
                right_len: s.yhat.len(),
            });
        }
        let (y, yhat) = super::basics::paired(&s.y, &s.yhat);
        let un = clean(&s.yhat_unlabeled);
        let w = if big_n == 0 { 0.0 } else { un.len() as f64 / big_n as f64 };
        let constant_judge = {
            let mut all = yhat.iter().chain(&un);
            all.next().is_some_and(|first| all.all(|v| v == first))
        };
        let (lambda, lambda_fixed) = match ppi_lambda(&y, &yhat, &un) {
            Some(l) => (Some(l), false),
            None if y.len() >= 2 && !un.is_empty() && constant_judge => (Some(0.0), true),
            None => (None, false),
        };
        let estimate = match lambda {
            Some(l) => ppi_mean_at(&y, &yhat, &un, l, confidence)?,
            None => {
                let why = if y.len() < 2 {
                    Undefined::TooFewItems { n: y.len(), needed: 2 }
                } else {
                    Undefined::TooFewItems { n: un.len(), needed: 1 }
                };
                MeanInterval { estimate: None, se: None, ci: None, undefined: Some(why) }
            }
        };
        let sigma = lambda.and_then(|l| {
            let r: Vec<f64> = y.iter().zip(&yhat).map(|(a, b)| a - l * b).collect();
            sd0(&r)
        });
        out.push(StratumEstimate {
            w,
            n: y.len(),
            n_unlabeled: un.len(),
            estimate,
            lambda,
            lambda_fixed,
            sigma,
            sigma_human: if y.len() >= 2 { sd0(&y) } else { None },
        });
    }
    let mut result = StratifiedPpi {
        confidence,
        estimate: None,
        se: None,
        ci: None,
        strata: Vec::new(),
        undefined: None,
        undefined_stratum: None,
    };
    if big_n == 0 {
        result.undefined = Some(Undefined::TooFewItems { n: 0, needed: 1 });
        result.strata = out;
        return Ok(result);
    }
    let (mut theta, mut var) = (0.0, 0.0);
    for (k, s) in out.iter().enumerate() {
        if s.w == 0.0 {
            continue;
        }
        match (s.estimate.estimate, s.estimate.se) {
            (Some(e), Some(se)) => {
                theta += s.w * e;
                var += s.w * s.w * se * se;
            }
            _ => {
                result.undefined = s.estimate.undefined.or(Some(Undefined::NoValidGroups));
                result.undefined_stratum = Some(k);
                result.strata = out;
                return Ok(result);
            }
        }
    }
    let se = var.sqrt();
    result.estimate = Some(theta);
    result.se = Some(se);
    result.ci = Some([theta - z * se, theta + z * se]);
    result.strata = out;
    Ok(result)
}

/// The planner's allocation to one stratum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StratumPlan {
    pub w: f64,
    /// σ_k = sd₀(Y − λ_k Ŷ) from the pilot.
    pub sigma: f64,
    /// σ_k^H = sd₀(Y) from the pilot.
    pub sigma_human: f64,
    /// Labels for this stratum, n · w_k σ_k / Σ w σ (rounded up).
    pub n: usize,
    /// The labels the pilot already has in it.
    pub pilot: usize,
}

/// Labels needed for an interval of half-width `half_width`.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelPlan {
    pub half_width: f64,
    pub confidence: f64,
    /// With the judge: (z/h)² (Σ w σ)², rounded up.
    pub n: usize,
    /// Without it (humans only): (z/h)² (Σ w σ^H)², rounded up.
    pub n_human: usize,
    /// n_human / n (the exact ratio of the unrounded figures); `None` when n is 0.
    pub saving: Option<f64>,
    pub strata: Vec<StratumPlan>,
    /// Labels in the pilot in all.
    pub pilot: usize,
    /// The ceiling note (Dorner, Nastl & Hardt, ICLR 2025) when the saving shown is above 2×.
    pub ceiling_note: Option<String>,
}

/// Why a plan cannot be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    #[error("the half-width {0} is not a positive number")]
    HalfWidth(f64),
    #[error(
        "stratum {stratum} has {n} pilot label(s): the planner needs at least 2 in every stratum with unlabelled items"
    )]
    TooFewPilotLabels { stratum: usize, n: usize },
    #[error("no stratum has unlabelled items: nothing to plan for")]
    NoUnlabelled,
}

/// The label planner (§16.3) from a pilot: `estimate` is [`stratified_ppi`] on the pilot.
pub fn plan_labels(estimate: &StratifiedPpi, half_width: f64) -> Result<LabelPlan, PlanError> {
    if !(half_width > 0.0 && half_width.is_finite()) {
        return Err(PlanError::HalfWidth(half_width));
    }
    let z = z_for(estimate.confidence).map_err(|_| PlanError::HalfWidth(half_width))?;
    if estimate.strata.iter().all(|s| s.w == 0.0) {
        return Err(PlanError::NoUnlabelled);
    }
    let mut strata = Vec::with_capacity(estimate.strata.len());
    for (k, s) in estimate.strata.iter().enumerate() {
        let (sigma, sigma_human) = match (s.sigma, s.sigma_human) {
            (Some(a), Some(b)) => (a, b),
            _ if s.w == 0.0 => (0.0, 0.0),
            _ => return Err(PlanError::TooFewPilotLabels { stratum: k, n: s.n }),
        };
        strata.push(StratumPlan { w: s.w, sigma, sigma_human, n: 0, pilot: s.n });
    }
    let scale = (z / half_width).powi(2);
    let with: f64 = strata.iter().map(|s| s.w * s.sigma).sum();
    let without: f64 = strata.iter().map(|s| s.w * s.sigma_human).sum();
    let n_real = scale * with * with;
    let n_human_real = scale * without * without;
    for s in &mut strata {
        s.n = if with > 0.0 { (n_real * s.w * s.sigma / with).ceil() as usize } else { 0 };
    }
    let saving = (n_real > 0.0).then(|| n_human_real / n_real);
    let pilot: usize = strata.iter().map(|s| s.pilot).sum();
    let ceiling_note = saving.filter(|&s| s > 2.0).map(|s| {
        format!(
            "The plan shows a saving of {s:.1}×. A judge no more accurate than the systems it rates \
             saves at most 2× (Dorner, Nastl & Hardt, ICLR 2025): a larger saving holds only if \
             this judge is better than them, and the σ behind it were estimated from a pilot of \
             {pilot} label(s) — label more before relying on it."
        )
    });
    Ok(LabelPlan {
        half_width,
        confidence: estimate.confidence,
        n: n_real.ceil() as usize,
        n_human: n_human_real.ceil() as usize,
        saving,
        strata,
        pilot,
        ceiling_note,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn some(v: &[f64]) -> Vec<Option<f64>> {
        v.iter().copied().map(Some).collect()
    }

    #[test]
    fn one_stratum_is_ppi_plus_plus() {
        let s = StratumData {
            y: some(&[1.0, 2.0, 3.0, 4.0]),
            yhat: some(&[1.5, 2.0, 2.5, 4.5]),
            yhat_unlabeled: some(&[2.0, 3.0, 4.0, 5.0, 1.0]),
        };
        let r = stratified_ppi(std::slice::from_ref(&s), 0.95).unwrap();
        let p = super::super::ppi_mean(&s.y, &s.yhat, &s.yhat_unlabeled, 0.95).unwrap();
        assert_eq!(r.strata[0].w, 1.0);
        assert_eq!(r.estimate, p.ppipp.estimate);
        assert_eq!(r.se, p.ppipp.se);
        assert_eq!(r.strata[0].lambda, p.lambda);
    }

    #[test]
    fn strata_are_weighted_by_their_unlabelled_share() {
        // Stratum 0: judge constant (λ fixed at 0: the human mean 2); stratum 1: judge exact.
        let s0 = StratumData {
            y: some(&[1.0, 3.0]),
            yhat: some(&[5.0, 5.0]),
            yhat_unlabeled: some(&[5.0]),
        };
        let s1 = StratumData {
            y: some(&[1.0, 2.0]),
            yhat: some(&[1.0, 2.0]),
            yhat_unlabeled: some(&[4.0, 4.0, 4.0]),
        };
        let r = stratified_ppi(&[s0, s1], 0.95).unwrap();
        assert_eq!(r.strata[0].w, 0.25);
        assert!(r.strata[0].lambda_fixed);
        assert_eq!(r.strata[0].estimate.estimate, Some(2.0));
        assert!(!r.strata[1].lambda_fixed);
        let e1 = r.strata[1].estimate.estimate.unwrap();
        assert!((r.estimate.unwrap() - (0.25 * 2.0 + 0.75 * e1)).abs() < 1e-12);
        let (se0, se1) = (r.strata[0].estimate.se.unwrap(), r.strata[1].estimate.se.unwrap());
        assert!((r.se.unwrap() - (0.0625 * se0 * se0 + 0.5625 * se1 * se1).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn a_stratum_with_one_label_leaves_the_estimate_undefined() {
        let ok = StratumData {
            y: some(&[1.0, 2.0]),
            yhat: some(&[1.0, 2.5]),
            yhat_unlabeled: some(&[3.0]),
        };
        let thin =
            StratumData { y: some(&[1.0]), yhat: some(&[1.0]), yhat_unlabeled: some(&[2.0]) };
        let r = stratified_ppi(&[ok.clone(), thin.clone()], 0.95).unwrap();
        assert_eq!(r.estimate, None);
        assert_eq!(r.undefined_stratum, Some(1));
        assert_eq!(r.undefined, Some(Undefined::TooFewItems { n: 1, needed: 2 }));
        assert!(matches!(
            plan_labels(&r, 0.1),
            Err(PlanError::TooFewPilotLabels { stratum: 1, n: 1 })
        ));
        // With no unlabelled items, the thin stratum weighs nothing.
        let empty = StratumData { yhat_unlabeled: Vec::new(), ..thin };
        let r = stratified_ppi(&[ok, empty], 0.95).unwrap();
        assert_eq!(r.strata[1].w, 0.0);
        assert!(r.estimate.is_some());
    }

    #[test]
    fn the_planner_allocates_by_neyman() {
        // λ = 0 in both strata (constant judge): σ = σ^H, so the saving is exactly 1.
        let s0 = StratumData {
            y: some(&[0.0, 2.0]),
            yhat: some(&[1.0, 1.0]),
            yhat_unlabeled: some(&[1.0; 3]),
        };
        let s1 = StratumData {
            y: some(&[0.0, 4.0]),
            yhat: some(&[1.0, 1.0]),
            yhat_unlabeled: some(&[1.0]),
        };
        let r = stratified_ppi(&[s0, s1], 0.95).unwrap();
        let plan = plan_labels(&r, 0.5).unwrap();
        // σ_0 = 1, σ_1 = 2, w = (0.75, 0.25): Σ w σ = 1.25; n = (1.96/0.5)² · 1.5625.
        let z = 1.959963984540054f64;
        let n = (z / 0.5).powi(2) * 1.5625;
        assert_eq!(plan.n, n.ceil() as usize);
        assert_eq!(plan.n_human, plan.n);
        assert_eq!(plan.saving, Some(1.0));
        assert_eq!(plan.strata[0].n, (n * 0.75 / 1.25).ceil() as usize);
        assert_eq!(plan.strata[1].n, (n * 0.5 / 1.25).ceil() as usize);
        assert!(plan.ceiling_note.is_none());
        assert!(matches!(plan_labels(&r, 0.0), Err(PlanError::HalfWidth(_))));
    }

    #[test]
    fn a_large_saving_carries_the_ceiling_note() {
        // A judge that matches the humans almost exactly: σ ≪ σ^H.
        let y: Vec<f64> = (0..20).map(|i| f64::from(i % 5)).collect();
        let yhat: Vec<f64> =
            y.iter().enumerate().map(|(i, v)| v + if i % 2 == 0 { 0.1 } else { -0.1 }).collect();
        let s = StratumData { y: some(&y), yhat: some(&yhat), yhat_unlabeled: some(&[2.0; 200]) };
        let r = stratified_ppi(&[s], 0.95).unwrap();
        let plan = plan_labels(&r, 0.1).unwrap();
        assert!(plan.saving.unwrap() > 2.0);
        assert!(plan.ceiling_note.as_deref().unwrap().contains("at most 2×"));
        assert_eq!(plan.pilot, 20);
    }
}
