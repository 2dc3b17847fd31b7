//! What every statistic shares: `Score` (a value that may be missing), `Estimate` and
//! `Undefined` (why a statistic has no value), pairwise deletion and the division guard.

use std::fmt;

/// A score that may be missing: `f64` (NaN is missing) or `Option<f64>`.
pub trait Score: Copy {
    /// The value, or `None` when missing.
    fn get(self) -> Option<f64>;
}

impl Score for f64 {
    #[inline]
    fn get(self) -> Option<f64> {
        if self.is_nan() { None } else { Some(self) }
    }
}

impl Score for Option<f64> {
    #[inline]
    fn get(self) -> Option<f64> {
        self.filter(|v| !v.is_nan())
    }
}

impl<S: Score> Score for &S {
    #[inline]
    fn get(self) -> Option<f64> {
        (*self).get()
    }
}

/// A value with the number of items it used and, when `None`, the reason.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub value: Option<f64>,
    /// Items (units, pairs) used.
    pub n: usize,
    pub undefined: Option<Undefined>,
}

impl Estimate {
    pub(crate) fn defined(value: f64, n: usize) -> Estimate {
        Estimate { value: Some(value), n, undefined: None }
    }

    pub(crate) fn undefined(why: Undefined, n: usize) -> Estimate {
        Estimate { value: None, n, undefined: Some(why) }
    }
}

/// Why a statistic has no value. Shown to users next to "undefined".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Undefined {
    /// Fewer items than the statistic needs after deleting missing values.
    TooFewItems { n: usize, needed: usize },
    /// The reference (human/gold) scores are all equal.
    ConstantX,
    /// The metric (judge) scores are all equal.
    ConstantY,
    /// No pair of items differs enough in the gold scores (WMT Kendall-like τ).
    NoQualifyingPairs,
    /// No group had a defined value.
    NoValidGroups,
    /// A denominator of the formula is zero or negative (e.g. Williams' test with two
    /// perfectly correlated metrics, κ with a single category used by everyone).
    DegenerateDenominator,
    /// Krippendorff's α: no unit has two or more ratings.
    NoPairableUnits,
    /// Krippendorff's α: fewer than two distinct values in the data.
    SingleValue,
    /// No resample or permutation gave a defined value.
    NoValidResamples,
    /// Bradley–Terry: the maximum-likelihood estimate is infinite (a model never lost, never
    /// won, or did not play).
    NoFiniteMle,
    /// A numeric solver did not converge.
    NotConverged,
    /// The statistic needs numeric values but some are labels.
    NonNumericValues,
    /// The statistic needs categories but the values are continuous and no scale is declared.
    ContinuousValues,
    /// The alternative annotator test (§16.1): no annotator has enough kept instances.
    NoAnnotatorKept { min_instances: usize },
    /// A t-test on differences that are all equal: no spread to test against (§16.1).
    ConstantDifferences,
    /// Selective trust (§16.2): not even the highest confidence threshold keeps the guarantee.
    NoThresholdPassed,
}

impl fmt::Display for Undefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Undefined::TooFewItems { n, needed } => {
                write!(f, "needs at least {needed} paired items, has {n}")
            }
            Undefined::ConstantX => f.write_str("the reference scores are constant"),
            Undefined::ConstantY => f.write_str("the metric scores are constant"),
            Undefined::NoQualifyingPairs => {
                f.write_str("no pair of items differs by the gold-score threshold")
            }
            Undefined::NoValidGroups => f.write_str("no group has a defined value"),
            Undefined::DegenerateDenominator => f.write_str("the formula's denominator is zero"),
            Undefined::NoPairableUnits => f.write_str("no unit has two or more ratings"),
            Undefined::SingleValue => f.write_str("all ratings have the same value"),
            Undefined::NoValidResamples => f.write_str("no resample gave a defined value"),
            Undefined::NoFiniteMle => f.write_str(
                "ratings diverge: some model never lost or never won (use the regularised variant)",
            ),
            Undefined::NotConverged => f.write_str("the solver did not converge"),
            Undefined::NonNumericValues => f.write_str("the values are labels, not numbers"),
            Undefined::ContinuousValues => f.write_str(
                "the values are continuous scores, not categories (declare the scale's categories)",
            ),
            Undefined::NoAnnotatorKept { min_instances } => write!(
                f,
                "no annotator has {min_instances} or more instances that the judge and another annotator also rated"
            ),
            Undefined::ConstantDifferences => {
                f.write_str("every difference is the same, so the t-test has no spread to test")
            }
            Undefined::NoThresholdPassed => f.write_str(
                "no confidence threshold keeps the agreement guarantee: nothing can be trusted",
            ),
        }
    }
}

/// `x > 0`, false for NaN: the guard in front of every division and square root.
#[inline]
pub(crate) fn is_positive(x: f64) -> bool {
    x > 0.0
}

/// Collect the positions where every vector has a value: pairwise deletion (§0).
pub(crate) fn paired<S: Score, T: Score>(x: &[S], y: &[T]) -> (Vec<f64>, Vec<f64>) {
    let n = x.len().min(y.len());
    let mut xs = Vec::with_capacity(n);
    let mut ys = Vec::with_capacity(n);
    for (a, b) in x.iter().zip(y) {
        if let (Some(a), Some(b)) = (a.get(), b.get()) {
            xs.push(a);
            ys.push(b);
        }
    }
    (xs, ys)
}
