//! Judge-audit statistics of STATS_SPEC §15: Wilson intervals for rates, order probes (flip
//! rate, first-position wins), Gwet's AC1, the prediction-powered mean (PPI, PPI++), the paired
//! shift with a bootstrap interval, and agreement between judges (correlated errors, juries).
//!
//! Which reference routine each function mirrors:
//! * [`wilson`] — statsmodels `proportion_confint(method="wilson")` (clipped to [0, 1]);
//!   [`paired_difference`] — Tango's (1998) score interval for a difference of paired
//!   proportions (R `PropCIs::scoreci.mp`), the matched-pairs analogue of Wilson's.
//! * [`flip_rate`] — §15.2 (counts, then [`wilson`]).
//! * [`gwet_ac1`] — irrCAC `CAC(ratings).gwet()` with identity weights (its coefficient, `pa`
//!   and `pe`, unrounded).
//! * [`ppi_mean`] — ppi-python `ppi_mean_ci` with `lam=1` (PPI) and `lam=None` (PPI++, λ from
//!   `_calc_lam_glm` with `clip=True`); `classical` is ppi-python's `classical_mean_ci`;
//!   `judge_only` the same on every judge value.
//! * [`paired_shift`] — numpy: mean of the differences, percentile interval of the resampled
//!   means with `np.quantile`'s default (type 7), as §8.
//! * [`residual_correlation`], [`jury`], [`judge_pair_agreement`] — §15.6 from §1, §7, §10, §11.
//!
//! As everywhere in `stats`, an undefined value is `None` with an [`Undefined`] reason (the
//! references return NaN), resampling runs on given indices (draw them with
//! [`super::draw_boot_indices`] from a recorded seed), and nothing here does I/O.

use super::agreement::{CohenWeights, KrippendorffLevel, cohen_kappa, krippendorff_alpha};
use super::basics::{Estimate, Score, Undefined};
use super::correlation::Correlation;
use super::correlation::pearson;
use super::preference::Label;
use super::resample::{ResampleError, quantile_sorted};
use super::williams::{Williams, williams_vectors};
use statrs::function::erf::erfc_inv;

/// Bad input to an audit statistic (the data are fine but the call is not).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The confidence level is not strictly between 0 and 1.
    #[error("the confidence level {0} is not strictly between 0 and 1")]
    Confidence(f64),
    /// More successes than trials.
    #[error("{k} successes out of {n} trials: the count cannot exceed the trials")]
    CountAboveTrials { k: usize, n: usize },
    /// Two lists that must be paired item by item differ in length.
    #[error("`{left}` has {left_len} values but `{right}` has {right_len}: they must be paired")]
    LengthMismatch { left: &'static str, left_len: usize, right: &'static str, right_len: usize },
    /// A resample index is out of range.
    #[error(transparent)]
    Resample(#[from] ResampleError),
}

/// The standard normal quantile `z = Φ⁻¹(1 − (1 − confidence)/2)` (scipy `norm.isf(α/2)`),
/// 1.959963984540054 at 0.95.
pub fn z_for(confidence: f64) -> Result<f64, AuditError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(AuditError::Confidence(confidence));
    }
    // Φ⁻¹(1 − a/2) = √2 · erfc⁻¹(a), with a = 1 − confidence.
    Ok(std::f64::consts::SQRT_2 * erfc_inv(1.0 - confidence))
}

/// A proportion `k / n` with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Proportion {
    pub k: usize,
    pub n: usize,
    /// `k / n`; `None` when `n = 0`.
    pub p: Option<f64>,
    /// `[low, high]` at `confidence`; `None` when `n = 0`.
    pub ci: Option<[f64; 2]>,
    pub confidence: f64,
    pub undefined: Option<Undefined>,
}

/// Wilson's score interval for `k` successes in `n` trials (§15.1), statsmodels'
/// order of operations, bounds clipped to [0, 1] as statsmodels does.
pub fn wilson(k: usize, n: usize, confidence: f64) -> Result<Proportion, AuditError> {
    let z = z_for(confidence)?;
    if k > n {
        return Err(AuditError::CountAboveTrials { k, n });
    }
    if n == 0 {
        return Ok(Proportion {
            k,
            n,
            p: None,
            ci: None,
            confidence,
            undefined: Some(Undefined::TooFewItems { n: 0, needed: 1 }),
        });
    }
    let nf = n as f64;
    let q = k as f64 / nf;
    let z2 = z * z;
    let denom = 1.0 + z2 / nf;
    let center = (q + z2 / (2.0 * nf)) / denom;
    let dist = z * (q * (1.0 - q) / nf + z2 / (4.0 * (nf * nf))).sqrt() / denom;
    // At k = 0 (k = n) the bound is exactly 0 (1); the formula leaves a rounding residue of
    // either sign there, which statsmodels' clip removes only when it falls outside [0, 1].
    let low = if k == 0 { 0.0 } else { (center - dist).clamp(0.0, 1.0) };
    let high = if k == n { 1.0 } else { (center + dist).clamp(0.0, 1.0) };
    Ok(Proportion { k, n, p: Some(q), ci: Some([low, high]), confidence, undefined: None })
}

/// The Wilson interval (at `confidence`) of a rate shown as `rate` over `n` items, for tables
/// that keep the rate and its n rather than the count: `k = rate·n` is recovered exactly (the
/// rate was computed as k/n). `None` when the rate is undefined, `n = 0`, or `rate·n` is not a
/// count. The meta-evaluation tables give pairwise accuracy (with and without ties) and swap
/// consistency their intervals with it.
pub fn rate_interval(rate: Option<f64>, n: usize, confidence: f64) -> Option<[f64; 2]> {
    let scaled = rate? * n as f64;
    let k = scaled.round();
    if !(k >= 0.0 && k <= n as f64 && (scaled - k).abs() <= 1e-6) {
        return None;
    }
    wilson(k as usize, n, confidence).ok()?.ci
}

/// The interval of a position bias `(prefers_first − prefers_second)/n` (the meta-evaluation's
/// swap test: pairs where the judge chose whatever stood first both times, or second both
/// times): [`paired_difference`], Tango's score interval. `None` when `n = 0`.
pub fn position_bias_interval(
    prefers_first: usize,
    prefers_second: usize,
    n: usize,
    confidence: f64,
) -> Option<[f64; 2]> {
    paired_difference(prefers_first, prefers_second, n, confidence).ok()?.ci
}

/// A difference of two proportions of the same `n` items, `(b − c)/n`, with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedDifference {
    pub b: usize,
    pub c: usize,
    pub n: usize,
    /// `(b − c)/n`; `None` when `n = 0`.
    pub value: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub confidence: f64,
    pub undefined: Option<Undefined>,
}

/// Tango's (1998) score interval for `(b − c)/n`, where `b` and `c` count the items in two
/// exclusive categories of `n` (the discordant cells of a matched-pairs table; the rest lump
/// together). It is the set of Δ whose score statistic
/// `(b − c − nΔ) / sqrt(n(2·p̃₂₁ + Δ(1 − Δ)))` (p̃₂₁ the maximum-likelihood estimate of c's
/// probability under Δ) lies within ±z: Wilson's construction for a paired difference, found
/// by bisection to 1e-15. Position bias, `(prefers first − prefers second)/n`, is such a
/// difference.
pub fn paired_difference(
    b: usize,
    c: usize,
    n: usize,
    confidence: f64,
) -> Result<PairedDifference, AuditError> {
    let z = z_for(confidence)?;
    if b + c > n {
        return Err(AuditError::CountAboveTrials { k: b + c, n });
    }
    let mut out = PairedDifference { b, c, n, value: None, ci: None, confidence, undefined: None };
    if n == 0 {
        out.undefined = Some(Undefined::TooFewItems { n: 0, needed: 1 });
        return Ok(out);
    }
    let (bf, cf, nf) = (b as f64, c as f64, n as f64);
    let estimate = (bf - cf) / nf;
    // The score statistic at Δ: positive below the estimate, negative above, ±∞ where the
    // constrained variance vanishes.
    let score = |d: f64| -> f64 {
        let a2 = 2.0 * nf;
        let bq = -bf - cf + (2.0 * nf - bf + cf) * d;
        let cq = -cf * d * (1.0 - d);
        let p21 = ((bq * bq - 4.0 * a2 * cq).max(0.0).sqrt() - bq) / (2.0 * a2);
        let numerator = bf - cf - nf * d;
        let variance = nf * (2.0 * p21 + d * (1.0 - d));
        if variance > 0.0 {
            numerator / variance.sqrt()
        } else if numerator == 0.0 {
            0.0
        } else {
            numerator.signum() * f64::INFINITY
        }
    };
    // |score| ≤ z holds on [low, high] ∋ estimate; bisect each end.
    let bisect = |mut inside: f64, mut outside: f64| {
        for _ in 0..200 {
            if (inside - outside).abs() <= 1e-15 {
                break;
            }
            let mid = 0.5 * (inside + outside);
            if score(mid).abs() <= z {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        inside
    };
    let low = if score(-1.0).abs() <= z { -1.0 } else { bisect(estimate, -1.0) };
    let high = if score(1.0).abs() <= z { 1.0 } else { bisect(estimate, 1.0) };
    out.value = Some(estimate);
    out.ci = Some([low, high]);
    Ok(out)
}

/// The order probe of §15.2: each pair judged with its answers in both orders.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderProbe {
    /// Pairs with both verdicts parsed.
    pub n: usize,
    /// Of those, pairs whose backward verdict, mapped to the forward labels, differs.
    pub flips: usize,
    /// `flips / n` with its Wilson interval.
    pub flip_rate: Proportion,
    /// Parsed non-tie verdicts of both orders, and how many chose the answer shown first.
    pub first_wins: Proportion,
}

/// Flip rate and first-position wins (§15.2). `forward[i]` is the verdict on pair `i` shown as
/// (A, B), `backward[i]` on the same pair shown as (B, A), each in its own prompt's labels
/// (`A` = the answer shown first); `None` is an unparsed verdict.
pub fn flip_rate(
    forward: &[Option<Label>],
    backward: &[Option<Label>],
    confidence: f64,
) -> Result<OrderProbe, AuditError> {
    if forward.len() != backward.len() {
        return Err(AuditError::LengthMismatch {
            left: "forward",
            left_len: forward.len(),
            right: "backward",
            right_len: backward.len(),
        });
    }
    let mirror = |l: Label| match l {
        Label::A => Label::B,
        Label::B => Label::A,
        Label::Tie => Label::Tie,
    };
    let (mut n, mut flips) = (0, 0);
    for (f, b) in forward.iter().zip(backward) {
        if let (Some(f), Some(b)) = (f, b) {
            n += 1;
            flips += usize::from(mirror(*b) != *f);
        }
    }
    let decided = forward.iter().chain(backward).flatten().filter(|l| **l != Label::Tie);
    let (mut first_n, mut first) = (0, 0);
    for l in decided {
        first_n += 1;
        first += usize::from(*l == Label::A);
    }
    Ok(OrderProbe {
        n,
        flips,
        flip_rate: wilson(flips, n, confidence)?,
        first_wins: wilson(first, first_n, confidence)?,
    })
}

/// Gwet's AC1 (§15.3) with the counts behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GwetAc1 {
    pub ac1: Option<f64>,
    /// Observed agreement over units with two or more ratings.
    pub pa: Option<f64>,
    /// Chance agreement.
    pub pe: Option<f64>,
    /// Units with at least one rating (`n` of §15.3).
    pub n_units: usize,
    /// Units with at least two ratings (`n′`).
    pub n_pairable: usize,
    /// Categories `q`.
    pub n_categories: usize,
    pub undefined: Option<Undefined>,
}

/// Gwet's AC1 over a raters × units matrix (`None` or NaN = missing), unweighted (§15.3;
/// irrCAC `CAC.gwet()`). Categories are `categories` (a declared scale, unused points count
/// in q) merged with the observed values, or the observed values alone.
pub fn gwet_ac1(ratings: &[Vec<Option<f64>>], categories: Option<&[f64]>) -> GwetAc1 {
    let n_cols = ratings.iter().map(Vec::len).max().unwrap_or(0);
    let mut cats: Vec<f64> = categories.unwrap_or(&[]).iter().map(|v| v + 0.0).collect();
    let value =
        |r: &Vec<Option<f64>>, u: usize| r.get(u).copied().flatten().filter(|v| v.is_finite());
    for r in ratings {
        cats.extend((0..r.len()).filter_map(|u| value(r, u)).map(|v| v + 0.0));
    }
    cats.sort_unstable_by(f64::total_cmp);
    cats.dedup();
    let q = cats.len();
    let mut counts = vec![0.0f64; q];
    let mut prevalence = vec![0.0f64; q];
    let (mut n_units, mut n_pairable, mut pa_sum) = (0usize, 0usize, 0.0f64);
    for u in 0..n_cols {
        counts.iter_mut().for_each(|c| *c = 0.0);
        let mut r_i = 0usize;
        for r in ratings {
            if let Some(v) = value(r, u) {
                counts[cats.partition_point(|&c| c < v + 0.0)] += 1.0;
                r_i += 1;
            }
        }
        if r_i == 0 {
            continue;
        }
        n_units += 1;
        let rf = r_i as f64;
        for (p, c) in prevalence.iter_mut().zip(&counts) {
            *p += c / rf;
        }
        if r_i >= 2 {
            n_pairable += 1;
            pa_sum += counts.iter().map(|c| c * (c - 1.0)).sum::<f64>() / (rf * (rf - 1.0));
        }
    }
    let mut out = GwetAc1 {
        ac1: None,
        pa: None,
        pe: None,
        n_units,
        n_pairable,
        n_categories: q,
        undefined: None,
    };
    if n_pairable == 0 {
        out.undefined = Some(Undefined::NoPairableUnits);
        return out;
    }
    out.pa = Some(pa_sum / n_pairable as f64);
    if q < 2 {
        out.undefined = Some(Undefined::SingleValue);
        return out;
    }
    let nf = n_units as f64;
    let spread: f64 = prevalence.iter().map(|p| p / nf).map(|p| p * (1.0 - p)).sum();
    let pe = spread / (q as f64 - 1.0);
    out.pe = Some(pe);
    if !super::basics::is_positive(1.0 - pe) {
        out.undefined = Some(Undefined::DegenerateDenominator);
        return out;
    }
    out.ac1 = out.pa.map(|pa| (pa - pe) / (1.0 - pe));
    out
}

/// A mean with its standard error and normal interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub estimate: Option<f64>,
    pub se: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub undefined: Option<Undefined>,
}

impl MeanInterval {
    fn undefined(why: Undefined) -> MeanInterval {
        MeanInterval { estimate: None, se: None, ci: None, undefined: Some(why) }
    }

    fn normal(estimate: f64, se: f64, z: f64) -> MeanInterval {
        MeanInterval {
            estimate: Some(estimate),
            se: Some(se),
            ci: Some([estimate - z * se, estimate + z * se]),
            undefined: None,
        }
    }
}

/// The prediction-powered mean and the two figures it is compared with (§15.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PpiMean {
    /// Labelled items used (human and judge value both present).
    pub n: usize,
    /// Unlabelled judge values used.
    pub n_unlabeled: usize,
    /// λ = 1.
    pub ppi: MeanInterval,
    /// Power-tuned λ̂ (clipped to [0, 1]).
    pub ppipp: MeanInterval,
    pub lambda: Option<f64>,
    /// Human labels only.
    pub classical: MeanInterval,
    /// Every judge value, labelled and unlabelled: the biased figure the correction replaces.
    pub judge_only: MeanInterval,
}

impl PpiMean {
    /// With every item labelled (N = 0) there is nothing to correct, and §15.4 leaves PPI
    /// undefined. PPI++'s λ̂ = cov₀(Y, Ŷ) / ((1 + n/N)·var₁) tends to 0 as N → 0, and
    /// θ̂(0) is the human-only mean: this estimate with λ = 0 and PPI and PPI++ both equal to
    /// the human-only mean (and its interval) in that case, for a table that shows the
    /// corrected figure anyway; unchanged when N ≥ 1 or the human-only mean is undefined.
    pub fn human_mean_when_all_labelled(self) -> PpiMean {
        if self.n_unlabeled > 0 || self.classical.estimate.is_none() {
            return self;
        }
        PpiMean { ppi: self.classical, ppipp: self.classical, lambda: Some(0.0), ..self }
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Population variance (numpy `var`, ddof = 0).
fn var0(v: &[f64]) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64
}

/// Clean inputs of the prediction-powered mean: Y, Ŷ (paired) and Ỹ.
type PpiInputs = (Vec<f64>, Vec<f64>, Vec<f64>);

/// The labelled pairs (Y, Ŷ) with both present and the present unlabelled judge values.
fn ppi_inputs<S: Score>(
    y: &[S],
    yhat: &[S],
    yhat_unlabeled: &[S],
) -> Result<PpiInputs, AuditError> {
    if y.len() != yhat.len() {
        return Err(AuditError::LengthMismatch {
            left: "y",
            left_len: y.len(),
            right: "yhat",
            right_len: yhat.len(),
        });
    }
    let (ys, yh) = super::basics::paired(y, yhat);
    let un = yhat_unlabeled.iter().filter_map(|v| v.get()).collect();
    Ok((ys, yh, un))
}

/// θ̂(λ) with its standard error and interval (§15.4), on clean inputs; n ≥ 2, N ≥ 1.
fn ppi_at(y: &[f64], yhat: &[f64], un: &[f64], lambda: f64, z: f64) -> MeanInterval {
    let rectifier: Vec<f64> = y.iter().zip(yhat).map(|(y, h)| y - lambda * h).collect();
    let imputed: Vec<f64> = un.iter().map(|h| lambda * h).collect();
    let estimate = mean(&imputed) + mean(&rectifier);
    let (n, big_n) = (y.len() as f64, un.len() as f64);
    let se = (var0(&imputed) / big_n + var0(&rectifier) / n).sqrt();
    MeanInterval::normal(estimate, se, z)
}

/// The power-tuned λ̂ = cov₀(Y, Ŷ) / ((1 + n/N)·var₁(Ŷ ∪ Ỹ)), clipped to [0, 1] (ppi-python
/// `_calc_lam_glm` for the mean); `None` when every judge value is equal (0/0).
pub fn ppi_lambda(y: &[f64], yhat: &[f64], unlabeled: &[f64]) -> Option<f64> {
    let (n, big_n) = (y.len(), unlabeled.len());
    if n < 2 || big_n < 1 {
        return None;
    }
    let (my, mh) = (mean(y), mean(yhat));
    let cov = y.iter().zip(yhat).map(|(a, b)| (a - my) * (b - mh)).sum::<f64>() / n as f64;
    let all: Vec<f64> = yhat.iter().chain(unlabeled).copied().collect();
    let m = mean(&all);
    let var1 = all.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (all.len() - 1) as f64;
    let denom = (1.0 + n as f64 / big_n as f64) * var1;
    super::basics::is_positive(denom).then(|| (cov / denom).clamp(0.0, 1.0))
}

/// The prediction-powered mean (§15.4): labelled items `y` (human) with the judge's `yhat`
/// on the same items, and the judge's `yhat_unlabeled` on the rest. Missing values drop the
/// item from its own list (a labelled item needs both values). PPI and PPI++ need n ≥ 2 and
/// N ≥ 1, the human-only mean n ≥ 2, the judge-only mean two judge values in all.
pub fn ppi_mean<S: Score>(
    y: &[S],
    yhat: &[S],
    yhat_unlabeled: &[S],
    confidence: f64,
) -> Result<PpiMean, AuditError> {
    let z = z_for(confidence)?;
    let (y, yhat, un) = ppi_inputs(y, yhat, yhat_unlabeled)?;
    let (n, big_n) = (y.len(), un.len());
    let too_few_labelled = Undefined::TooFewItems { n, needed: 2 };
    let (ppi, ppipp, lambda) = if n < 2 {
        (MeanInterval::undefined(too_few_labelled), MeanInterval::undefined(too_few_labelled), None)
    } else if big_n < 1 {
        let why = Undefined::TooFewItems { n: 0, needed: 1 };
        (MeanInterval::undefined(why), MeanInterval::undefined(why), None)
    } else {
        let lambda = ppi_lambda(&y, &yhat, &un);
        let ppipp = match lambda {
            Some(l) => ppi_at(&y, &yhat, &un, l, z),
            None => MeanInterval::undefined(Undefined::ConstantY),
        };
        (ppi_at(&y, &yhat, &un, 1.0, z), ppipp, lambda)
    };
    let normal_mean = |v: &[f64]| {
        if v.len() < 2 {
            MeanInterval::undefined(Undefined::TooFewItems { n: v.len(), needed: 2 })
        } else {
            MeanInterval::normal(mean(v), (var0(v) / v.len() as f64).sqrt(), z)
        }
    };
    let all: Vec<f64> = yhat.iter().chain(&un).copied().collect();
    Ok(PpiMean {
        n,
        n_unlabeled: big_n,
        ppi,
        ppipp,
        lambda,
        classical: normal_mean(&y),
        judge_only: normal_mean(&all),
    })
}

/// θ̂(λ) for a given λ (λ = 0: the human-only mean; λ = 1: PPI), for callers that fix λ.
pub fn ppi_mean_at<S: Score>(
    y: &[S],
    yhat: &[S],
    yhat_unlabeled: &[S],
    lambda: f64,
    confidence: f64,
) -> Result<MeanInterval, AuditError> {
    let z = z_for(confidence)?;
    let (y, yhat, un) = ppi_inputs(y, yhat, yhat_unlabeled)?;
    Ok(if y.len() < 2 {
        MeanInterval::undefined(Undefined::TooFewItems { n: y.len(), needed: 2 })
    } else if un.is_empty() {
        MeanInterval::undefined(Undefined::TooFewItems { n: 0, needed: 1 })
    } else {
        ppi_at(&y, &yhat, &un, lambda, z)
    })
}

/// The mean shift of a judge's scores from the originals to their variants (§15.5).
#[derive(Debug, Clone, PartialEq)]
pub struct PairedShift {
    /// Pairs with both scores.
    pub n: usize,
    /// mean(variant − original).
    pub shift: Option<f64>,
    /// Percentile bootstrap interval of the mean difference.
    pub ci: Option<[f64; 2]>,
    pub n_resamples: usize,
    /// Resamples with at least one index (an empty one has no mean).
    pub n_valid: usize,
    pub undefined: Option<Undefined>,
}

/// The differences `variant − original` over pairs with both present, in input order: what
/// [`paired_shift`]'s resample indices point into.
pub fn shift_differences<S: Score>(original: &[S], variant: &[S]) -> Vec<f64> {
    original.iter().zip(variant).filter_map(|(o, v)| Some(v.get()? - o.get()?)).collect()
}

/// Paired shift with a percentile bootstrap interval (§15.5, §8): `indices` are resamples of
/// positions among the used pairs (draw them with [`super::draw_boot_indices`]).
pub fn paired_shift<S: Score>(
    original: &[S],
    variant: &[S],
    confidence: f64,
    indices: &[Vec<usize>],
) -> Result<PairedShift, AuditError> {
    z_for(confidence)?;
    if original.len() != variant.len() {
        return Err(AuditError::LengthMismatch {
            left: "orig",
            left_len: original.len(),
            right: "variant",
            right_len: variant.len(),
        });
    }
    let d = shift_differences(original, variant);
    let len = d.len();
    for (r, draw) in indices.iter().enumerate() {
        if let Some(&index) = draw.iter().find(|&&i| i >= len) {
            return Err(ResampleError::IndexOutOfRange { resample: r, index, len }.into());
        }
    }
    let mut means: Vec<f64> = indices
        .iter()
        .filter(|draw| !draw.is_empty())
        .map(|draw| draw.iter().map(|&i| d[i]).sum::<f64>() / draw.len() as f64)
        .collect();
    means.sort_unstable_by(f64::total_cmp);
    let alpha = 1.0 - confidence;
    let ci = (!means.is_empty()).then(|| {
        [quantile_sorted(&means, alpha / 2.0), quantile_sorted(&means, 1.0 - alpha / 2.0)]
    });
    let undefined = if len == 0 {
        Some(Undefined::TooFewItems { n: 0, needed: 1 })
    } else if means.is_empty() {
        Some(Undefined::NoValidResamples)
    } else {
        None
    };
    Ok(PairedShift {
        n: len,
        shift: (len > 0).then(|| mean(&d)),
        ci: if len > 0 { ci } else { None },
        n_resamples: indices.len(),
        n_valid: means.len(),
        undefined,
    })
}

/// Correlated errors (§15.6): Pearson r of the residuals `J1 − H` and `J2 − H` over items
/// where all three are present.
pub fn residual_correlation<S: Score>(human: &[S], judge_1: &[S], judge_2: &[S]) -> Correlation {
    let len = human.len().min(judge_1.len()).min(judge_2.len());
    let (mut r1, mut r2) = (Vec::with_capacity(len), Vec::with_capacity(len));
    for i in 0..len {
        if let (Some(h), Some(a), Some(b)) = (human[i].get(), judge_1[i].get(), judge_2[i].get()) {
            r1.push(a - h);
            r2.push(b - h);
        }
    }
    pearson(&r1, &r2)
}

/// How a jury combines its members' scores on an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JuryRule {
    Mean,
    /// numpy's median: the middle value, or the mean of the two middle values.
    Median,
}

/// A jury's per-item score (§15.6): the mean or median of the members that scored the item
/// (members are judges' score vectors over the same items); `None` where none did.
pub fn jury<S: Score>(members: &[&[S]], rule: JuryRule) -> Vec<Option<f64>> {
    let len = members.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut scores = Vec::with_capacity(members.len());
    (0..len)
        .map(|i| {
            scores.clear();
            scores.extend(members.iter().filter_map(|m| m.get(i).and_then(|s| s.get())));
            if scores.is_empty() {
                return None;
            }
            Some(match rule {
                JuryRule::Mean => mean(&scores),
                JuryRule::Median => {
                    scores.sort_unstable_by(f64::total_cmp);
                    let k = scores.len();
                    if k % 2 == 1 {
                        scores[k / 2]
                    } else {
                        (scores[k / 2 - 1] + scores[k / 2]) / 2.0
                    }
                }
            })
        })
        .collect()
}

/// A jury against its members: Williams' test (§7) of r(human, jury) against
/// r(human, member) for each member, in member order.
pub fn jury_against_members<S: Score>(
    human: &[S],
    jury_scores: &[Option<f64>],
    members: &[&[S]],
) -> Vec<Williams> {
    let human: Vec<Option<f64>> = human.iter().map(|h| h.get()).collect();
    members
        .iter()
        .map(|m| {
            let m: Vec<Option<f64>> = m.iter().map(|s| s.get()).collect();
            williams_vectors(&human, jury_scores, &m)
        })
        .collect()
}

/// Agreement between two judges rated on the same items (§15.6).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JudgePairAgreement {
    /// Krippendorff's α at interval level (numeric scales) and at nominal level.
    pub alpha_interval: Estimate,
    pub alpha_nominal: Estimate,
    /// Unweighted Cohen's κ on the declared categories (or the observed values).
    pub cohen_kappa: Estimate,
    /// Gwet's AC1 of the two judges as raters.
    pub gwet_ac1: GwetAc1,
    /// Pearson r of their residuals against the human scores.
    pub residuals: Correlation,
}

/// α, κ and AC1 between two judges treated as two raters, and the correlation of their
/// errors against `human` (§15.6). κ and AC1 need categories: they are `None`
/// ([`Undefined::ContinuousValues`]) when none are declared and a score is not an integer.
pub fn judge_pair_agreement(
    human: &[Option<f64>],
    judge_1: &[Option<f64>],
    judge_2: &[Option<f64>],
    categories: Option<&[f64]>,
) -> JudgePairAgreement {
    let two = [judge_1.to_vec(), judge_2.to_vec()];
    // κ and AC1 are for categories (§11.1): continuous scores with no declared scale have none.
    let (cohen, ac1) = if super::agreement::categorical(&two, categories) {
        (
            cohen_kappa(judge_1, judge_2, categories, CohenWeights::Unweighted),
            gwet_ac1(&two, categories),
        )
    } else {
        let n = judge_1.iter().zip(judge_2).filter(|(a, b)| a.is_some() && b.is_some()).count();
        let mut g = gwet_ac1(&[], None);
        g.undefined = Some(Undefined::ContinuousValues);
        (Estimate::undefined(Undefined::ContinuousValues, n), g)
    };
    JudgePairAgreement {
        alpha_interval: krippendorff_alpha(&two, KrippendorffLevel::Interval),
        alpha_nominal: krippendorff_alpha(&two, KrippendorffLevel::Nominal),
        cohen_kappa: cohen,
        gwet_ac1: ac1,
        residuals: residual_correlation(human, judge_1, judge_2),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn z_at_95_is_the_spec_value() {
        assert!(close(z_for(0.95).unwrap(), 1.959963984540054, 1e-15));
        assert!(close(z_for(0.90).unwrap(), 1.6448536269514722, 1e-15));
        assert!(z_for(1.0).is_err() && z_for(0.0).is_err() && z_for(f64::NAN).is_err());
    }

    #[test]
    fn wilson_worked_example_and_edges() {
        let w = wilson(7, 20, 0.95).unwrap();
        assert_eq!(w.p, Some(0.35));
        let [lo, hi] = w.ci.unwrap();
        assert!(close(lo, 0.18119182, 5e-9) && close(hi, 0.56714572, 5e-9), "{lo} {hi}");
        let none = wilson(0, 0, 0.95).unwrap();
        assert_eq!((none.p, none.ci), (None, None));
        assert!(none.undefined.is_some());
        // statsmodels: (0.0, 0.27753279986288926) and (0.7224672001371106, 1.0).
        let [lo, hi] = wilson(0, 10, 0.95).unwrap().ci.unwrap();
        assert!(lo == 0.0 && close(hi, 0.27753279986288926, 1e-15));
        let [lo, hi] = wilson(10, 10, 0.95).unwrap().ci.unwrap();
        assert!(close(lo, 0.7224672001371106, 1e-15) && hi == 1.0);
        assert_eq!(wilson(3, 2, 0.95), Err(AuditError::CountAboveTrials { k: 3, n: 2 }));
    }

    /// Reference values from a separate root-finding of Tango's score statistic (Python, scipy
    /// `brentq` to 1e-15 on the same formula), and the closed form at b = n.
    #[test]
    fn paired_difference_matches_tango() {
        let d = paired_difference(8, 2, 40, 0.95).unwrap();
        assert_eq!(d.value, Some(0.15));
        let [lo, hi] = d.ci.unwrap();
        assert!(close(lo, -0.005758698265138251, 1e-12), "{lo}");
        assert!(close(hi, 0.31117148434586994, 1e-12), "{hi}");
        let [lo, hi] = paired_difference(3, 7, 25, 0.9).unwrap().ci.unwrap();
        assert!(close(lo, -0.35969795310364044, 1e-12), "{lo}");
        assert!(close(hi, 0.051345372260400104, 1e-12), "{hi}");
        let [lo, hi] = d.ci.unwrap();
        // Symmetry: swapping b and c mirrors the interval.
        let m = paired_difference(2, 8, 40, 0.95).unwrap().ci.unwrap();
        assert!(close(m[0], -hi, 1e-12) && close(m[1], -lo, 1e-12));
        // All items in one category: the interval reaches the bound.
        // b = n: the score is sqrt(n(1 − Δ)/(1 + Δ)), so low = (n − z²)/(n + z²).
        let all = paired_difference(10, 0, 10, 0.95).unwrap().ci.unwrap();
        let z2 = z_for(0.95).unwrap().powi(2);
        assert_eq!(all[1], 1.0);
        assert!(close(all[0], (10.0 - z2) / (10.0 + z2), 1e-12), "{all:?}");
        let zero = paired_difference(0, 0, 10, 0.95).unwrap();
        let [lo0, hi0] = zero.ci.unwrap();
        assert!(lo0 < 0.0 && hi0 > 0.0 && close(lo0, -hi0, 1e-12));
        assert!(paired_difference(0, 0, 0, 0.95).unwrap().ci.is_none());
    }

    #[test]
    fn rate_intervals_recover_the_count() {
        let direct = wilson(7, 20, 0.95).unwrap().ci;
        assert_eq!(rate_interval(Some(7.0 / 20.0), 20, 0.95), direct);
        assert_eq!(rate_interval(Some(2.0 / 3.0), 3, 0.95), wilson(2, 3, 0.95).unwrap().ci);
        assert_eq!(rate_interval(None, 20, 0.95), None);
        assert_eq!(rate_interval(Some(0.5), 0, 0.95), None);
        // 0.3 of 5 items is no count.
        assert_eq!(rate_interval(Some(0.3), 5, 0.95), None);
        assert_eq!(
            position_bias_interval(8, 2, 40, 0.95),
            paired_difference(8, 2, 40, 0.95).unwrap().ci
        );
        assert_eq!(position_bias_interval(0, 0, 0, 0.95), None);
    }

    #[test]
    fn flip_rate_maps_backward_labels() {
        use Label::{A, B, Tie};
        // Pair 0 consistent (A then B), pair 1 flips (A then A), pair 2 tie both, pair 3 one
        // unparsed, pair 4 tie vs B.
        let f = [Some(A), Some(A), Some(Tie), None, Some(Tie)];
        let b = [Some(B), Some(A), Some(Tie), Some(A), Some(B)];
        let p = flip_rate(&f, &b, 0.95).unwrap();
        assert_eq!((p.n, p.flips), (4, 2));
        assert_eq!(p.flip_rate.p, Some(0.5));
        // Non-tie verdicts: forward A, A; backward B, A, A, B → first wins 4 of 6.
        assert_eq!((p.first_wins.k, p.first_wins.n), (4, 6));
        assert!(flip_rate(&f, &b[..2], 0.95).is_err());
    }

    #[test]
    fn gwet_ac1_irrcac_docstring_example() {
        // irrCAC's raw_4raters (units × raters there; raters × units here): AC1 0.77544,
        // pa 0.81818, pe 0.19032 (rounded to 5 digits in irrCAC's docstring).
        let n = None;
        let units: [[Option<f64>; 4]; 12] = [
            [Some(1.), Some(1.), n, Some(1.)],
            [Some(2.), Some(2.), Some(3.), Some(2.)],
            [Some(3.), Some(3.), Some(3.), Some(3.)],
            [Some(3.), Some(3.), Some(3.), Some(3.)],
            [Some(2.), Some(2.), Some(2.), Some(2.)],
            [Some(1.), Some(2.), Some(3.), Some(4.)],
            [Some(4.), Some(4.), Some(4.), Some(4.)],
            [Some(1.), Some(1.), Some(2.), Some(1.)],
            [Some(2.), Some(2.), Some(2.), Some(2.)],
            [n, Some(5.), Some(5.), Some(5.)],
            [n, n, Some(1.), Some(1.)],
            [n, n, Some(3.), n],
        ];
        let ratings: Vec<Vec<Option<f64>>> =
            (0..4).map(|r| units.iter().map(|u| u[r]).collect()).collect();
        let g = gwet_ac1(&ratings, None);
        assert!(close(g.ac1.unwrap(), 0.77544, 5e-6), "{g:?}");
        assert!(close(g.pa.unwrap(), 0.81818, 5e-6));
        assert!(close(g.pe.unwrap(), 0.19032, 5e-6));
        assert_eq!((g.n_units, g.n_pairable, g.n_categories), (12, 11, 5));
        // One category: AC1 undefined, pa still 1.
        let same = gwet_ac1(&[vec![Some(2.0), Some(2.0)], vec![Some(2.0), Some(2.0)]], None);
        assert_eq!((same.ac1, same.pa, same.pe), (None, Some(1.0), None));
        // A declared unused category makes it defined.
        let declared = gwet_ac1(&[vec![Some(2.0)], vec![Some(2.0)]], Some(&[1.0, 2.0]));
        assert_eq!((declared.pa, declared.pe), (Some(1.0), Some(0.0)));
        assert_eq!(declared.ac1, Some(1.0));
        assert_eq!(
            gwet_ac1(&[vec![Some(1.0), None]], None).undefined,
            Some(Undefined::NoPairableUnits)
        );
    }

    #[test]
    fn ppi_reduces_to_the_classical_mean_when_lambda_is_zero() {
        let y = [1.0, 2.0, 3.0, 4.0];
        let yhat = [4.0, 1.0, 3.0, 2.0];
        let un = [2.0, 3.0, 5.0];
        let at0 = ppi_mean_at(&y, &yhat, &un, 0.0, 0.95).unwrap();
        let all = ppi_mean(&y, &yhat, &un, 0.95).unwrap();
        assert_eq!(at0.estimate, all.classical.estimate);
        assert!(close(at0.se.unwrap(), all.classical.se.unwrap(), 1e-15));
        // Negatively correlated judge: λ̂ clips to 0, PPI++ is the classical mean.
        assert_eq!(all.lambda, Some(0.0));
        assert_eq!(all.ppipp.estimate, all.classical.estimate);
        // Constant judge: λ̂ is 0/0.
        let flat = ppi_mean(&y, &[1.0; 4], &[1.0; 3], 0.95).unwrap();
        assert_eq!(flat.lambda, None);
        assert_eq!(flat.ppipp.undefined, Some(Undefined::ConstantY));
        assert_eq!(flat.ppi.estimate, Some(2.5));
        let one = ppi_mean(&[1.0], &[1.0], &un, 0.95).unwrap();
        assert!(one.ppi.estimate.is_none() && one.classical.estimate.is_none());
        assert!(one.judge_only.estimate.is_some());
        assert!(ppi_mean(&y, &yhat[..3], &un, 0.95).is_err());
    }

    #[test]
    fn every_item_labelled_makes_the_corrected_figures_the_human_mean() {
        let (y, yhat) = ([1.0, 0.0, 0.5, 1.0], [1.0, 1.0, 0.5, 0.0]);
        let all = ppi_mean(&y, &yhat, &[] as &[f64], 0.95).unwrap();
        assert!(all.ppi.estimate.is_none() && all.lambda.is_none());
        let shown = all.human_mean_when_all_labelled();
        assert_eq!(shown.classical.estimate, Some(0.625));
        assert_eq!(
            (shown.ppi, shown.ppipp, shown.lambda),
            (all.classical, all.classical, Some(0.0))
        );
        assert_eq!(shown.judge_only, all.judge_only);
        // With an unlabelled item, or too few labels, nothing changes.
        let some = ppi_mean(&y, &yhat, &[1.0], 0.95).unwrap();
        assert_eq!(some.human_mean_when_all_labelled(), some);
        let few = ppi_mean(&[1.0], &[1.0], &[] as &[f64], 0.95).unwrap();
        assert_eq!(few.human_mean_when_all_labelled(), few);
    }

    #[test]
    fn paired_shift_percentiles() {
        let orig = [Some(1.0), Some(2.0), None, Some(4.0)];
        let var = [Some(2.0), Some(2.5), Some(9.0), Some(4.0)];
        // d = 1, 0.5, 0 → shift 0.5.
        let s =
            paired_shift(&orig, &var, 0.5, &[vec![0, 0, 0], vec![1, 2, 2], vec![0, 1, 2], vec![]])
                .unwrap();
        assert_eq!((s.n, s.shift, s.n_valid), (3, Some(0.5), 3));
        // means sorted: 1/6, 0.5, 1 → quantiles 0.25 and 0.75 at positions 0.5 and 1.5.
        let [lo, hi] = s.ci.unwrap();
        assert!(close(lo, (1.0 / 6.0 + 0.5) / 2.0, 1e-15) && close(hi, 0.75, 1e-15));
        assert!(paired_shift(&orig, &var, 0.95, &[vec![3]]).is_err());
        let empty = paired_shift::<Option<f64>>(&[], &[], 0.95, &[]).unwrap();
        assert_eq!((empty.shift, empty.ci), (None, None));
    }

    #[test]
    fn juries_and_residuals() {
        let a = [Some(1.0), Some(4.0), None, Some(2.0)];
        let b = [Some(3.0), Some(2.0), None, None];
        let c = [Some(2.0), Some(9.0), None, Some(4.0)];
        let members: [&[Option<f64>]; 3] = [&a, &b, &c];
        assert_eq!(jury(&members, JuryRule::Mean), vec![Some(2.0), Some(5.0), None, Some(3.0)]);
        assert_eq!(jury(&members, JuryRule::Median), vec![Some(2.0), Some(4.0), None, Some(3.0)]);
        // Residuals J − H: identical errors correlate perfectly.
        let h = [1.0, 2.0, 3.0, 4.0];
        let j1 = [1.5, 2.0, 3.5, 4.0];
        let j2 = [2.5, 3.0, 4.5, 5.0];
        assert!(close(residual_correlation(&h, &j1, &j2).value.unwrap(), 1.0, 1e-12));
    }
}
