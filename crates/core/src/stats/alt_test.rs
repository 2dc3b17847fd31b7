//! The alternative annotator test of STATS_SPEC §16.1 (Calderon, Reichart & Dror, ACL 2025):
//! may a judge replace the annotators? Leave one annotator out, ask whether the judge
//! represents the others at least as well as that annotator does (with a cost-benefit margin
//! ε), control the false discovery rate over the annotators with Benjamini–Yekutieli, and let
//! the judge pass when it wins for at least half of them.
//!
//! Values are `f64`: numbers for scores, and for labels a code per distinct label (the
//! loaders and the case reader code them), since `accuracy` only asks whether two values are
//! equal. Which reference routine each part mirrors: `alt_test` and `by_procedure` of
//! nitaytech/AltTest's notebook (instances kept when rated by `min_humans` annotators and by
//! the judge; annotators with fewer than `min_instances` kept instances skipped; ties count
//! for both), scipy's `ttest_1samp(d, ε, alternative="less")`.
//!
//! One deliberate difference from scipy: when every difference d_i is the same, the t
//! statistic divides by a zero standard error and scipy returns p = 0 (or 1) — "rejected"
//! without any evidence of spread. §16.1 says the p-value is then undefined and the annotator
//! is never counted as beaten; so does this module (`p_value: None` with
//! [`Undefined::ConstantDifferences`]). None of the paper's 52 published cells meets this case.

use super::basics::Undefined;
use super::williams::student_t_upper;

/// How the judge's and the left-out annotator's value are scored against the others'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// The share of the other annotators who gave the same value (labels, categories).
    Accuracy,
    /// −√(mean squared difference to the other annotators' values) (scores).
    NegRmse,
}

impl Scoring {
    pub const ALL: [Scoring; 2] = [Scoring::Accuracy, Scoring::NegRmse];

    /// The name used by the paper's code, the case format and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            Scoring::Accuracy => "accuracy",
            Scoring::NegRmse => "neg_rmse",
        }
    }

    /// The scoring called `name` (`accuracy`, `neg_rmse`).
    pub fn from_name(name: &str) -> Option<Scoring> {
        Scoring::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The score of `x` against the other annotators' values `others` (not empty).
    fn score(self, x: f64, others: &[f64]) -> f64 {
        let k = others.len() as f64;
        match self {
            Scoring::Accuracy => others.iter().filter(|&&r| r == x).count() as f64 / k,
            Scoring::NegRmse => -(others.iter().map(|r| (x - r) * (x - r)).sum::<f64>() / k).sqrt(),
        }
    }
}

/// The settings of the test (§16.1's defaults: q = 0.05, 2 annotators per instance, 30
/// instances per annotator).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AltTestOptions {
    pub scoring: Scoring,
    /// The cost-benefit margin ε ∈ [0, 1): the paper suggests 0.2 for experts, 0.15 for
    /// skilled annotators, 0.1 for crowd workers ([`EpsilonPreset`]).
    pub epsilon: f64,
    /// The false discovery rate controlled over the annotators (Benjamini–Yekutieli).
    pub q: f64,
    /// An instance is kept when at least this many annotators rated it (and the judge did).
    pub min_humans: usize,
    /// An annotator is tested when at least this many kept instances are theirs.
    pub min_instances: usize,
}

impl Default for AltTestOptions {
    fn default() -> AltTestOptions {
        AltTestOptions {
            scoring: Scoring::Accuracy,
            epsilon: 0.2,
            q: 0.05,
            min_humans: 2,
            min_instances: 30,
        }
    }
}

/// The paper's guidance for ε, by who the annotators are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EpsilonPreset {
    /// ε = 0.2.
    Experts,
    /// ε = 0.15.
    Skilled,
    /// ε = 0.1.
    Crowd,
}

impl EpsilonPreset {
    pub const ALL: [EpsilonPreset; 3] =
        [EpsilonPreset::Experts, EpsilonPreset::Skilled, EpsilonPreset::Crowd];

    pub fn epsilon(self) -> f64 {
        match self {
            EpsilonPreset::Experts => 0.2,
            EpsilonPreset::Skilled => 0.15,
            EpsilonPreset::Crowd => 0.1,
        }
    }

    /// `experts`, `skilled`, `crowd`.
    pub fn name(self) -> &'static str {
        match self {
            EpsilonPreset::Experts => "experts",
            EpsilonPreset::Skilled => "skilled",
            EpsilonPreset::Crowd => "crowd",
        }
    }

    /// The preset whose ε this is, if any.
    pub fn of(epsilon: f64) -> Option<EpsilonPreset> {
        EpsilonPreset::ALL.into_iter().find(|p| p.epsilon() == epsilon)
    }
}

/// Bad settings (the data are fine but the call is not).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AltTestError {
    #[error("ε = {0} is not in [0, 1)")]
    Epsilon(f64),
    #[error("the false discovery rate q = {0} is not strictly between 0 and 1")]
    Q(f64),
    #[error(
        "min_humans = {0}: an instance needs at least 2 annotators (one left out, one to compare with)"
    )]
    MinHumans(usize),
    #[error(
        "annotator {annotator} has {got} values but the judge has {expected}: they must be aligned by instance"
    )]
    LengthMismatch { annotator: usize, got: usize, expected: usize },
}

/// One annotator's leave-one-out comparison with the judge.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnotatorTest {
    /// Position of the annotator in the input.
    pub index: usize,
    /// Kept instances this annotator rated (|I_j|).
    pub n: usize,
    /// ρ_j = mean(W): how often the judge scores at least as well as this annotator.
    pub advantage_prob: f64,
    /// mean(d), d_i = H_i − W_i.
    pub mean_diff: f64,
    /// The t statistic of (mean(d) − ε) / (sd₁(d)/√n); `None` with the p-value.
    pub t: Option<f64>,
    /// p_j of H0: mean(d) ≥ ε against mean(d) < ε; `None` when every d_i is equal (or n < 2).
    pub p_value: Option<f64>,
    /// Why `p_value` is `None`.
    pub p_undefined: Option<Undefined>,
    /// Rejected by Benjamini–Yekutieli: the judge beats this annotator.
    pub rejected: bool,
}

/// An annotator left out of the test: too few kept instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedAnnotator {
    pub index: usize,
    /// Kept instances they rated (< `min_instances`).
    pub n: usize,
}

/// The alternative annotator test of one judge.
#[derive(Debug, Clone, PartialEq)]
pub struct AltTest {
    pub options: AltTestOptions,
    /// ω = k*/m, the share of kept annotators the judge beats; `None` when m = 0.
    pub winning_rate: Option<f64>,
    /// ω ≥ 0.5; `None` when m = 0.
    pub passed: Option<bool>,
    /// ρ = the mean of the kept annotators' ρ_j (to rank judges); `None` when m = 0.
    pub advantage_prob: Option<f64>,
    /// The tested annotators, in input order.
    pub annotators: Vec<AnnotatorTest>,
    /// The annotators skipped for too few kept instances, in input order.
    pub skipped: Vec<SkippedAnnotator>,
    /// Instances rated by at least `min_humans` annotators and by the judge.
    pub kept_instances: usize,
    /// Instances some annotator rated that were not kept.
    pub dropped_instances: usize,
    /// Why ω, ρ and passed are `None`.
    pub undefined: Option<Undefined>,
}

/// The alternative annotator test (§16.1). `humans[h][i]` is annotator h's value of instance
/// i (`None` or NaN: not rated), `llm[i]` the judge's; every row is aligned with `llm`.
pub fn alt_test(
    humans: &[Vec<Option<f64>>],
    llm: &[Option<f64>],
    options: &AltTestOptions,
) -> Result<AltTest, AltTestError> {
    if !(options.epsilon >= 0.0 && options.epsilon < 1.0) {
        return Err(AltTestError::Epsilon(options.epsilon));
    }
    if !(options.q > 0.0 && options.q < 1.0) {
        return Err(AltTestError::Q(options.q));
    }
    if options.min_humans < 2 {
        return Err(AltTestError::MinHumans(options.min_humans));
    }
    for (h, row) in humans.iter().enumerate() {
        if row.len() != llm.len() {
            return Err(AltTestError::LengthMismatch {
                annotator: h,
                got: row.len(),
                expected: llm.len(),
            });
        }
    }
    let value = |v: Option<f64>| v.filter(|x| !x.is_nan());
    // 1. Instances kept: rated by at least min_humans annotators and by the judge.
    let rated_by: Vec<usize> =
        (0..llm.len()).map(|i| humans.iter().filter(|r| value(r[i]).is_some()).count()).collect();
    let rated_at_all = rated_by.iter().filter(|&&k| k > 0).count();
    let kept: Vec<bool> = (0..llm.len())
        .map(|i| rated_by[i] >= options.min_humans && value(llm[i]).is_some())
        .collect();
    let kept_instances = kept.iter().filter(|&&k| k).count();
    let mut annotators = Vec::new();
    let mut skipped = Vec::new();
    let mut others = Vec::with_capacity(humans.len());
    // 2. Each annotator with enough kept instances, left out in turn.
    for (j, row) in humans.iter().enumerate() {
        let instances: Vec<usize> =
            (0..llm.len()).filter(|&i| kept[i] && value(row[i]).is_some()).collect();
        if instances.len() < options.min_instances {
            skipped.push(SkippedAnnotator { index: j, n: instances.len() });
            continue;
        }
        let (mut wins, mut d_sum) = (0usize, 0i64);
        let mut d = Vec::with_capacity(instances.len());
        for &i in &instances {
            others.clear();
            others.extend(
                humans.iter().enumerate().filter(|(h, _)| *h != j).filter_map(|(_, r)| value(r[i])),
            );
            let (Some(mine), Some(judge)) = (value(row[i]), value(llm[i])) else { continue };
            let human_score = options.scoring.score(mine, &others);
            let judge_score = options.scoring.score(judge, &others);
            let w = i64::from(judge_score >= human_score);
            let h = i64::from(human_score >= judge_score);
            wins += w as usize;
            d_sum += h - w;
            d.push(h - w);
        }
        let n = d.len();
        let mean_diff = d_sum as f64 / n as f64;
        let (t, p_value, p_undefined) = one_sided_t(&d, options.epsilon);
        annotators.push(AnnotatorTest {
            index: j,
            n,
            advantage_prob: wins as f64 / n as f64,
            mean_diff,
            t,
            p_value,
            p_undefined,
            rejected: false,
        });
    }
    // 3. Benjamini–Yekutieli over the kept annotators.
    let p: Vec<Option<f64>> = annotators.iter().map(|a| a.p_value).collect();
    let rejected = benjamini_yekutieli(&p, options.q);
    for (a, r) in annotators.iter_mut().zip(&rejected) {
        a.rejected = *r;
    }
    // 4. ω, passed, ρ.
    let m = annotators.len();
    let (winning_rate, passed, advantage_prob, undefined) = if m == 0 {
        let why = Undefined::NoAnnotatorKept { min_instances: options.min_instances };
        (None, None, None, Some(why))
    } else {
        let k = rejected.iter().filter(|&&r| r).count();
        let omega = k as f64 / m as f64;
        let rho = annotators.iter().map(|a| a.advantage_prob).sum::<f64>() / m as f64;
        (Some(omega), Some(omega >= 0.5), Some(rho), None)
    };
    Ok(AltTest {
        options: *options,
        winning_rate,
        passed,
        advantage_prob,
        annotators,
        skipped,
        kept_instances,
        dropped_instances: rated_at_all.saturating_sub(kept_instances),
        undefined,
    })
}

/// scipy's `ttest_1samp(d, ε, alternative="less")` on the differences: t = (mean − ε) /
/// (sd₁/√n), p = P(T_{n−1} ≤ t). Undefined when every d_i is equal (the spread is 0) or n < 2.
fn one_sided_t(d: &[i64], epsilon: f64) -> (Option<f64>, Option<f64>, Option<Undefined>) {
    let n = d.len();
    if n < 2 {
        return (None, None, Some(Undefined::TooFewItems { n, needed: 2 }));
    }
    if d.iter().all(|&x| x == d[0]) {
        return (None, None, Some(Undefined::ConstantDifferences));
    }
    let nf = n as f64;
    let mean = d.iter().sum::<i64>() as f64 / nf;
    let ss: f64 = d.iter().map(|&x| (x as f64 - mean) * (x as f64 - mean)).sum();
    let se = (ss / (nf - 1.0) / nf).sqrt();
    let t = (mean - epsilon) / se;
    let df = nf - 1.0;
    let Some(upper) = student_t_upper(t.abs(), df) else {
        return (None, None, Some(Undefined::DegenerateDenominator));
    };
    // P(T ≤ t): the upper tail of |t| below zero, its complement above.
    let p = if t < 0.0 { upper } else { 1.0 - upper };
    (Some(t), Some(p), None)
}

/// Benjamini–Yekutieli at level `q` (§16.1 step 3, the paper's `by_procedure`): sort the
/// p-values ascending (stable; undefined ones last), c_m = Σ_{k≤m} 1/k, and reject the first
/// k* where k* is the largest k with p_(k) ≤ (k/m)·(q/c_m). Returns, per input position,
/// whether it is rejected. An undefined p-value is never rejected.
pub fn benjamini_yekutieli(p: &[Option<f64>], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut rejected = vec![false; m];
    if m == 0 {
        return rejected;
    }
    let mut order: Vec<usize> = (0..m).collect();
    let key = |i: usize| p[i].filter(|v| !v.is_nan());
    order.sort_by(|&a, &b| match (key(a), key(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let c_m: f64 = (1..=m).map(|k| 1.0 / k as f64).sum();
    let mut k_star = 0;
    for (rank, &i) in order.iter().enumerate() {
        let k = rank + 1;
        // The reference's order of operations: (k/m)·(q/H_m).
        let threshold = (k as f64 / m as f64) * (q / c_m);
        if key(i).is_some_and(|v| v <= threshold) {
            k_star = k;
        }
    }
    for &i in &order[..k_star] {
        rejected[i] = true;
    }
    rejected
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn opts(scoring: Scoring, epsilon: f64, min_instances: usize) -> AltTestOptions {
        AltTestOptions { scoring, epsilon, min_instances, ..AltTestOptions::default() }
    }

    #[test]
    fn by_rejects_up_to_the_largest_qualifying_rank() {
        // m = 4, c_4 = 25/12, q = 0.05: thresholds k·0.05/(4·25/12) = 0.006k.
        let p = [Some(0.02), Some(0.001), Some(0.0175), Some(0.5)];
        // Sorted: 0.001 (≤ 0.006), 0.0175 (> 0.012), 0.02 (> 0.018 … no), 0.5.
        assert_eq!(benjamini_yekutieli(&p, 0.05), [false, true, false, false]);
        // 0.0179 ≤ 0.018 at rank 3 rejects ranks 1–3, although rank 2's 0.0175 > 0.012.
        let p = [Some(0.0179), Some(0.001), Some(0.0175), Some(0.5)];
        assert_eq!(benjamini_yekutieli(&p, 0.05), [true, true, true, false]);
        // Undefined p-values are never rejected, wherever they stand.
        let p = [None, Some(0.0), Some(f64::NAN)];
        assert_eq!(benjamini_yekutieli(&p, 0.05), [false, true, false]);
        assert!(benjamini_yekutieli(&[], 0.05).is_empty());
    }

    #[test]
    fn ties_count_for_both_and_the_t_test_matches_scipy() {
        // Three annotators, 4 instances; annotator 0 is tested with min_instances 1.
        let humans = vec![
            vec![Some(1.0), Some(1.0), Some(2.0), Some(1.0)],
            vec![Some(1.0), Some(2.0), Some(2.0), Some(1.0)],
            vec![Some(1.0), Some(2.0), Some(1.0), Some(2.0)],
        ];
        let llm = [Some(1.0), Some(2.0), Some(2.0), Some(2.0)];
        let r = alt_test(&humans, &llm, &opts(Scoring::Accuracy, 0.2, 1)).unwrap();
        let a0 = &r.annotators[0];
        // Instance 0: all agree → tie (W = H = 1, d = 0). Instance 1: others {2, 2}: human 0
        // scores 0, judge 1 → W = 1, H = 0, d = −1. Instance 2: others {2, 1}: both 0.5 → tie.
        // Instance 3: others {1, 2}: both 0.5 → tie. d = [0, −1, 0, 0], ρ_0 = 1.
        assert_eq!(a0.n, 4);
        assert_eq!(a0.advantage_prob, 1.0);
        assert_eq!(a0.mean_diff, -0.25);
        // scipy.stats.ttest_1samp([0, -1, 0, 0], 0.2, alternative="less")
        assert!((a0.t.unwrap() - -1.8).abs() < 1e-12, "{:?}", a0.t);
        assert!((a0.p_value.unwrap() - 0.08483996445062911).abs() < 1e-12, "{:?}", a0.p_value);
    }

    #[test]
    fn neg_rmse_scores_against_the_others() {
        assert_eq!(Scoring::NegRmse.score(3.0, &[1.0, 5.0]), -2.0);
        assert_eq!(Scoring::Accuracy.score(3.0, &[3.0, 5.0, 3.0, 1.0]), 0.5);
    }

    #[test]
    fn skipped_annotators_and_m_zero() {
        let humans =
            vec![vec![Some(1.0); 5], vec![Some(1.0); 5], vec![None, None, Some(1.0), None, None]];
        let llm = [Some(1.0); 5];
        let r = alt_test(&humans, &llm, &opts(Scoring::Accuracy, 0.1, 6)).unwrap();
        assert!(r.annotators.is_empty());
        assert_eq!(
            r.skipped.iter().map(|s| (s.index, s.n)).collect::<Vec<_>>(),
            [(0, 5), (1, 5), (2, 1)]
        );
        assert_eq!((r.winning_rate, r.passed, r.advantage_prob), (None, None, None));
        assert_eq!(r.undefined, Some(Undefined::NoAnnotatorKept { min_instances: 6 }));
        // With min_instances 2, annotator 2 (one instance) is skipped and the others are
        // tested; every d_i is 0 (all ties): p undefined, never rejected.
        let r = alt_test(&humans, &llm, &opts(Scoring::Accuracy, 0.1, 2)).unwrap();
        assert_eq!(r.annotators.len(), 2);
        assert_eq!(r.skipped, [SkippedAnnotator { index: 2, n: 1 }]);
        assert!(r.annotators.iter().all(|a| a.p_value.is_none() && !a.rejected));
        assert_eq!(r.annotators[0].p_undefined, Some(Undefined::ConstantDifferences));
        assert_eq!(r.winning_rate, Some(0.0));
        assert_eq!(r.passed, Some(false));
        assert_eq!(r.advantage_prob, Some(1.0));
    }

    #[test]
    fn instances_need_the_judge_and_min_humans() {
        let humans = vec![vec![Some(1.0), Some(1.0), Some(1.0)], vec![Some(1.0), None, Some(2.0)]];
        let llm = [Some(1.0), Some(1.0), None];
        let r = alt_test(&humans, &llm, &opts(Scoring::Accuracy, 0.1, 1)).unwrap();
        // Instance 1 has one annotator, instance 2 no judge: only instance 0 is kept.
        assert_eq!((r.kept_instances, r.dropped_instances), (1, 2));
        assert_eq!(r.annotators[0].n, 1);
        assert_eq!(r.annotators[0].p_undefined, Some(Undefined::TooFewItems { n: 1, needed: 2 }));
    }

    #[test]
    fn bad_settings_are_errors() {
        let h = vec![vec![Some(1.0)]];
        assert!(matches!(
            alt_test(&h, &[Some(1.0)], &opts(Scoring::Accuracy, 1.0, 1)),
            Err(AltTestError::Epsilon(_))
        ));
        assert!(matches!(
            alt_test(&h, &[Some(1.0), None], &opts(Scoring::Accuracy, 0.1, 1)),
            Err(AltTestError::LengthMismatch { .. })
        ));
        let o = AltTestOptions { q: 0.0, ..AltTestOptions::default() };
        assert!(matches!(alt_test(&h, &[Some(1.0)], &o), Err(AltTestError::Q(_))));
        assert_eq!(EpsilonPreset::of(0.15), Some(EpsilonPreset::Skilled));
        assert_eq!(Scoring::from_name("neg_rmse"), Some(Scoring::NegRmse));
    }
}
