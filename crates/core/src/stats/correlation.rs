//! Dataset-level correlations (§1–§5): Pearson, Spearman, Kendall τ-a/b/c with p-values,
//! τ₂₃ / acc₂₃ with ε-ties, and WMT's Kendall-like τ. All O(n log n).

use super::basics::{Score, Undefined, is_positive, paired};
use super::rank::{Fenwick, Ranking, count_inversions, order_by_ranks};
use statrs::function::beta::checked_beta_reg;
use statrs::function::erf::erfc;

/// A correlation coefficient with its two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correlation {
    /// The coefficient, `None` when undefined.
    pub value: Option<f64>,
    /// Two-sided p-value for H0: no association; `None` when undefined or not applicable.
    pub p_value: Option<f64>,
    /// Number of paired items used.
    pub n: usize,
    /// Why `value` is `None`.
    pub undefined: Option<Undefined>,
}

impl Correlation {
    fn undefined(n: usize, why: Undefined) -> Correlation {
        Correlation { value: None, p_value: None, n, undefined: Some(why) }
    }

    fn defined(n: usize, value: f64, p_value: Option<f64>) -> Correlation {
        Correlation { value: Some(value), p_value, n, undefined: None }
    }
}

/// How a Kendall p-value was computed (scipy `method='auto'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PMethod {
    /// Exact permutation distribution (no ties, n ≤ 33 or at most one (dis)cordant pair).
    Exact,
    /// Normal approximation with the tie-corrected variance.
    Asymptotic,
}

impl PMethod {
    /// The name used in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            PMethod::Exact => "exact",
            PMethod::Asymptotic => "asymptotic",
        }
    }
}

/// Pair classification of §3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KendallCounts {
    pub concordant: u64,
    pub discordant: u64,
    pub tie_x_only: u64,
    pub tie_y_only: u64,
    pub tie_both: u64,
    /// All unordered pairs, n(n−1)/2.
    pub pairs: u64,
}

/// Kendall's τ in its three variants (§3), sharing one pair count.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallResult {
    /// τ-a (no p-value).
    pub tau_a: Correlation,
    /// τ-b with its p-value.
    pub tau_b: Correlation,
    /// Stuart's τ-c; its p-value is τ-b's.
    pub tau_c: Correlation,
    /// How the p-value was computed, `None` when τ-b is undefined.
    pub p_method: Option<PMethod>,
    pub counts: KendallCounts,
}

/// Deutsch et al. (2023) τ₂₃ and pairwise accuracy with ties (§4.2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tau23 {
    pub tau_23: Option<f64>,
    pub acc_23: Option<f64>,
    pub n: usize,
    /// Metric tie threshold used.
    pub epsilon: f64,
    pub undefined: Option<Undefined>,
}

/// WMT DARR Kendall-like τ (§4.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KendallLike {
    pub value: Option<f64>,
    pub concordant: u64,
    pub discordant: u64,
    pub n: usize,
    pub undefined: Option<Undefined>,
}

/// Every dataset-level statistic of §1–§4 for one pair of vectors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllCorrelations {
    /// Paired items used.
    pub n: usize,
    pub pearson: Correlation,
    pub spearman: Correlation,
    pub kendall: KendallResult,
    pub tau_23: Tau23,
    pub kendall_like: KendallLike,
}

/// Pearson's r with the p-value of the exact beta distribution of r (§1).
pub fn pearson<S: Score, T: Score>(x: &[S], y: &[T]) -> Correlation {
    let (x, y) = paired(x, y);
    pearson_clean(&x, &y)
}

/// Spearman's ρ (Pearson r of average ranks) with the t-approximation p-value (§2).
pub fn spearman<S: Score, T: Score>(x: &[S], y: &[T]) -> Correlation {
    let (x, y) = paired(x, y);
    spearman_ranked(&Ranking::new(&x), &Ranking::new(&y))
}

/// Kendall's τ-a, τ-b and τ-c with pair counts and the τ-b p-value (§3), by Knight's method.
pub fn kendall<S: Score, T: Score>(x: &[S], y: &[T]) -> KendallResult {
    let (x, y) = paired(x, y);
    kendall_ranked(&Ranking::new(&x), &Ranking::new(&y))
}

/// τ₂₃ and acc₂₃ with metric ties `|y_i − y_j| ≤ epsilon` (§4.2); gold ties stay exact.
pub fn tau_23<S: Score, T: Score>(x: &[S], y: &[T], epsilon: f64) -> Tau23 {
    let (x, y) = paired(x, y);
    let (rx, ry) = (Ranking::new(&x), Ranking::new(&y));
    tau_23_ranked(&y, &rx, &ry, epsilon, None)
}

/// WMT Kendall-like τ: pairs with `|x_i − x_j| ≥ thresh` count; a metric tie is discordant.
pub fn kendall_like<S: Score, T: Score>(x: &[S], y: &[T], thresh: f64) -> KendallLike {
    let (x, y) = paired(x, y);
    let (rx, ry) = (Ranking::new(&x), Ranking::new(&y));
    kendall_like_ranked(&x, &rx, &ry, thresh, None)
}

/// All of §1–§4 at once, ranking each vector only once.
pub fn correlate_all<S: Score, T: Score>(
    x: &[S],
    y: &[T],
    kendall_like_thresh: f64,
    epsilon: f64,
) -> AllCorrelations {
    let (x, y) = paired(x, y);
    correlate_all_clean(&x, &y, kendall_like_thresh, epsilon)
}

pub(crate) fn correlate_all_clean(
    x: &[f64],
    y: &[f64],
    kendall_like_thresh: f64,
    epsilon: f64,
) -> AllCorrelations {
    let (rx, ry) = (Ranking::new(x), Ranking::new(y));
    let kendall = kendall_ranked(&rx, &ry);
    let tau_23 = if epsilon > 0.0 {
        tau_23_ranked(y, &rx, &ry, epsilon, None)
    } else {
        tau_23_from_counts(x.len(), &kendall.counts, epsilon)
    };
    AllCorrelations {
        n: x.len(),
        pearson: pearson_clean(x, y),
        spearman: spearman_ranked(&rx, &ry),
        kendall,
        tau_23,
        kendall_like: kendall_like_ranked(x, &rx, &ry, kendall_like_thresh, Some(&kendall.counts)),
    }
}

fn is_constant(v: &[f64]) -> bool {
    v.iter().all(|&a| a == v[0])
}

/// Pearson on vectors without missing values.
pub(crate) fn pearson_clean(x: &[f64], y: &[f64]) -> Correlation {
    let n = x.len();
    if n < 2 {
        return Correlation::undefined(n, Undefined::TooFewItems { n, needed: 2 });
    }
    if is_constant(x) {
        return Correlation::undefined(n, Undefined::ConstantX);
    }
    if is_constant(y) {
        return Correlation::undefined(n, Undefined::ConstantY);
    }
    if n == 2 {
        // scipy rounds r to ±1 and forces p = 1 (one degree of freedom is gone).
        let sign = (x[1] - x[0]).signum() * (y[1] - y[0]).signum();
        return Correlation::defined(n, sign, Some(1.0));
    }
    let r = pearson_r(x, y);
    Correlation::defined(n, r, pearson_p(r, n - 2))
}

/// r with scipy's `pearsonr` order of operations: centre (two-pass, never the one-pass
/// Σxy − n·mx·my form), take each norm as max|d|·‖d/max|d|‖ (no overflow), divide each
/// centred vector by its norm, then take the dot product. Matching scipy's rounding matters at n = 3, where the
/// p-value of an exactly linear relation is ~√(1 − |r|) and so sees the last bit of r.
pub(crate) fn pearson_r(x: &[f64], y: &[f64]) -> f64 {
    let nf = x.len() as f64;
    let mx = x.iter().sum::<f64>() / nf;
    let my = y.iter().sum::<f64>() / nf;
    let (mut xmax, mut ymax) = (0.0f64, 0.0f64);
    for (&a, &b) in x.iter().zip(y) {
        xmax = xmax.max((a - mx).abs());
        ymax = ymax.max((b - my).abs());
    }
    let (mut sxx, mut syy) = (0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (dx, dy) = ((a - mx) / xmax, (b - my) / ymax);
        sxx += dx * dx;
        syy += dy * dy;
    }
    let (nx, ny) = (xmax * sxx.sqrt(), ymax * syy.sqrt());
    let mut r = 0.0;
    for (&a, &b) in x.iter().zip(y) {
        r += ((a - mx) / nx) * ((b - my) / ny);
    }
    r.clamp(-1.0, 1.0)
}

/// Correlation with numpy `corrcoef`'s order of operations (covariance divided by each standard
/// deviation in turn), which scipy's `spearmanr` applies to the ranks: identical rank vectors
/// give exactly ±1 there, and so here.
pub(crate) fn corrcoef(x: &[f64], y: &[f64]) -> f64 {
    let nf = x.len() as f64;
    let mx = x.iter().sum::<f64>() / nf;
    let my = y.iter().sum::<f64>() / nf;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (dx, dy) = (a - mx, b - my);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    // numpy's order: c = X·Xᵀ · (1/fact); c /= stddev[:, None]; c /= stddev[None, :].
    let inv = 1.0 / (nf - 1.0);
    (sxy * inv / (sxx * inv).sqrt() / (syy * inv).sqrt()).clamp(-1.0, 1.0)
}

/// Pearson's p with scipy's rounding: scipy evaluates the upper tail of the beta distribution
/// of r on [−1, 1] at u = (|r| + 1)/2 (rounded). With t = 1 − u the same p is
/// `I_{4t(1−t)}(df/2, 1/2)`, which keeps statrs' continued fraction well conditioned for
/// large df. The rounding of u is visible at n = 3, where p ~ √(1 − |r|).
pub(crate) fn pearson_p(r: f64, df: usize) -> Option<f64> {
    if df == 0 {
        return Some(1.0);
    }
    // scipy takes the upper tail at |r| for either sign: p must not depend on the sign of r.
    let u = (r.abs() + 1.0) / 2.0;
    let t = 1.0 - u;
    let x = 4.0 * t * (1.0 - t);
    if !is_positive(x) {
        return Some(0.0);
    }
    checked_beta_reg(df as f64 / 2.0, 0.5, x.min(1.0)).ok().map(|p| p.clamp(0.0, 1.0))
}

/// Two-sided p of a correlation under H0 with `df` degrees of freedom:
/// `I_{1−r²}(df/2, 1/2)` (= the t-test with t = r·sqrt(df/(1−r²))).
pub(crate) fn p_from_r(r: f64, df: usize) -> Option<f64> {
    if df == 0 {
        return Some(1.0);
    }
    // (1−|r|)(1+|r|) keeps precision when |r| is close to 1.
    let a = r.abs();
    let x = (1.0 - a) * (1.0 + a);
    if x <= 0.0 {
        return Some(0.0);
    }
    checked_beta_reg(df as f64 / 2.0, 0.5, x.min(1.0)).ok().map(|p| p.clamp(0.0, 1.0))
}

pub(crate) fn spearman_ranked(rx: &Ranking, ry: &Ranking) -> Correlation {
    let n = rx.dense.len();
    if n < 2 {
        return Correlation::undefined(n, Undefined::TooFewItems { n, needed: 2 });
    }
    if rx.distinct == 1 {
        return Correlation::undefined(n, Undefined::ConstantX);
    }
    if ry.distinct == 1 {
        return Correlation::undefined(n, Undefined::ConstantY);
    }
    let rho = corrcoef(&rx.average(), &ry.average());
    // n = 2: p = 1 by definition (§2; scipy gives NaN).
    Correlation::defined(n, rho, p_from_r(rho, n - 2))
}

/// Pair counts by Knight's method: order by (x, y), then the discordant pairs are the strict
/// inversions of the y ranks in that order (a run of equal x is sorted by y, so it adds none).
pub(crate) fn kendall_counts(rx: &Ranking, ry: &Ranking) -> KendallCounts {
    let n = rx.dense.len();
    let cells = rx.distinct.saturating_mul(ry.distinct);
    if cells <= TABLE_MAX_CELLS && cells <= n {
        return kendall_counts_table(rx, ry);
    }
    let order = order_by_ranks(rx, ry);
    let seq: Vec<u32> = order.iter().map(|&i| ry.dense[i as usize]).collect();
    // Ties in both: runs of equal (x, y), i.e. equal y inside each x run.
    let mut tie_both = 0u64;
    let mut start = 0;
    for &t in &rx.group_sizes {
        for run in seq[start..start + t as usize].chunk_by(|a, b| a == b) {
            let t = run.len() as u64;
            tie_both += t * (t - 1) / 2;
        }
        start += t as usize;
    }
    let discordant = if ry.distinct <= SMALL_RANK_COUNT {
        // Few distinct y (rating scales): count larger earlier values directly.
        let mut seen = [0u64; SMALL_RANK_COUNT];
        let mut d = 0u64;
        for &r in &seq {
            d += seen[r as usize + 1..ry.distinct].iter().sum::<u64>();
            seen[r as usize] += 1;
        }
        d
    } else {
        count_inversions(&seq, ry.distinct)
    };
    let pairs = n as u64 * (n as u64).saturating_sub(1) / 2;
    let tie_x_only = rx.tied_pairs() - tie_both;
    let tie_y_only = ry.tied_pairs() - tie_both;
    KendallCounts {
        concordant: pairs - discordant - tie_x_only - tie_y_only - tie_both,
        discordant,
        tie_x_only,
        tie_y_only,
        tie_both,
        pairs,
    }
}

/// Largest contingency table (distinct x × distinct y) used instead of sorting.
const TABLE_MAX_CELLS: usize = 4096;

/// Pair counts from the contingency table of dense ranks: O(n + kx·ky), no sorting. Rating
/// scales (1–5 × 1–5) make this the fast path.
fn kendall_counts_table(rx: &Ranking, ry: &Ranking) -> KendallCounts {
    let (kx, ky) = (rx.distinct, ry.distinct);
    let n = rx.dense.len();
    let mut table = vec![0u64; kx * ky];
    for (&a, &b) in rx.dense.iter().zip(&ry.dense) {
        table[a as usize * ky + b as usize] += 1;
    }
    // `above[j]`: items in earlier (smaller x) rows with y rank j.
    let mut above = vec![0u64; ky];
    let (mut discordant, mut tie_both) = (0u64, 0u64);
    for row in table.chunks_exact(ky) {
        let mut larger_y = 0u64;
        for j in (0..ky).rev() {
            discordant += row[j] * larger_y;
            larger_y += above[j];
        }
        for (a, &c) in above.iter_mut().zip(row) {
            tie_both += c * c.saturating_sub(1) / 2;
            *a += c;
        }
    }
    let pairs = n as u64 * (n as u64).saturating_sub(1) / 2;
    let tie_x_only = rx.tied_pairs() - tie_both;
    let tie_y_only = ry.tied_pairs() - tie_both;
    KendallCounts {
        concordant: pairs - discordant - tie_x_only - tie_y_only - tie_both,
        discordant,
        tie_x_only,
        tie_y_only,
        tie_both,
        pairs,
    }
}

/// Up to this many distinct metric values, discordant pairs are counted with a small array.
const SMALL_RANK_COUNT: usize = 16;

pub(crate) fn kendall_ranked(rx: &Ranking, ry: &Ranking) -> KendallResult {
    let n = rx.dense.len();
    let counts = if n >= 2 { kendall_counts(rx, ry) } else { KendallCounts::default() };
    kendall_from_counts(n, &counts, rx, ry)
}

fn kendall_from_counts(
    n: usize,
    counts: &KendallCounts,
    rx: &Ranking,
    ry: &Ranking,
) -> KendallResult {
    let mut result = KendallResult {
        tau_a: Correlation::undefined(n, Undefined::TooFewItems { n, needed: 2 }),
        tau_b: Correlation::undefined(n, Undefined::TooFewItems { n, needed: 2 }),
        tau_c: Correlation::undefined(n, Undefined::TooFewItems { n, needed: 2 }),
        p_method: None,
        counts: *counts,
    };
    if n < 2 {
        return result;
    }
    let s = counts.concordant as f64 - counts.discordant as f64;
    let pairs = counts.pairs as f64;
    result.tau_a = Correlation::defined(n, (s / pairs).clamp(-1.0, 1.0), None);
    let (xtie, ytie) = (rx.tied_pairs(), ry.tied_pairs());
    let why = if xtie == counts.pairs {
        Some(Undefined::ConstantX)
    } else if ytie == counts.pairs {
        Some(Undefined::ConstantY)
    } else {
        None
    };
    if let Some(why) = why {
        result.tau_b = Correlation::undefined(n, why);
        result.tau_c = Correlation::undefined(n, why);
        return result;
    }
    let tau_b = s / (pairs - xtie as f64).sqrt() / (pairs - ytie as f64).sqrt();
    let m = rx.distinct.min(ry.distinct) as f64;
    let nf = n as f64;
    let tau_c = 2.0 * s / (nf * nf * (m - 1.0) / m);
    let (p, method) = kendall_p(n, counts, rx, ry, s);
    result.tau_b = Correlation::defined(n, tau_b.clamp(-1.0, 1.0), p);
    result.tau_c = Correlation::defined(n, tau_c.clamp(-1.0, 1.0), p);
    result.p_method = Some(method);
    result
}

/// scipy's `method='auto'`: exact without ties when n ≤ 33 or min(D, N0 − D) ≤ 1.
fn kendall_p(
    n: usize,
    counts: &KendallCounts,
    rx: &Ranking,
    ry: &Ranking,
    s: f64,
) -> (Option<f64>, PMethod) {
    let no_ties = rx.distinct == n && ry.distinct == n;
    let d = counts.discordant;
    if no_ties && (n <= 33 || d.min(counts.pairs - d) <= 1) {
        let c = counts.concordant.min(counts.pairs - counts.concordant);
        return (Some(kendall_p_exact(n, c)), PMethod::Exact);
    }
    let nf = n as f64;
    let (x1, x2, xt) = rx.variance_sums();
    let (y1, y2, yt) = ry.variance_sums();
    let m = nf * (nf - 1.0);
    // Same grouping of terms as scipy so the last digits agree.
    let var = (m * (2.0 * nf + 5.0) - x1 - y1) / 18.0
        + (2.0 * (xt / 2.0) * (yt / 2.0)) / m
        + x2 * y2 / (9.0 * m * (nf - 2.0));
    if !is_positive(var) {
        return (None, PMethod::Asymptotic);
    }
    let z = s / var.sqrt();
    (Some(erfc(z.abs() / std::f64::consts::SQRT_2).clamp(0.0, 1.0)), PMethod::Asymptotic)
}

/// Exact two-sided p from the Mahonian numbers (§3.2), `c = min(C, N0 − C)`.
pub(crate) fn kendall_p_exact(n: usize, c: u64) -> f64 {
    if n <= 2 {
        return 1.0;
    }
    if c == 0 {
        return 2.0 / factorial(n);
    }
    if c == 1 {
        return 2.0 / factorial(n - 1);
    }
    if 4 * c as u128 == (n as u128) * (n as u128 - 1) {
        return 1.0;
    }
    if n > 33 {
        // Unreachable through `kendall_p` (c ≤ 1 for n > 33); the integers would overflow u128.
        return 0.0;
    }
    let c = c as usize;
    // mahonian[k] = M(j, k) for k ≤ c, starting at j = 2: M(2,0) = M(2,1) = 1.
    let mut mahonian = vec![0u128; c + 1];
    mahonian[0] = 1;
    mahonian[1] = 1;
    let mut cumulative = vec![0u128; c + 1];
    for j in 3..=n {
        let mut acc = 0u128;
        for k in 0..=c {
            acc += mahonian[k];
            cumulative[k] = acc;
        }
        // M(j, k) = Σ_{i=k−j+1}^{k} M(j−1, i).
        for k in 0..=c {
            mahonian[k] = cumulative[k] - if k >= j { cumulative[k - j] } else { 0 };
        }
    }
    let total: u128 = mahonian.iter().sum();
    (2.0 * total as f64 / factorial(n)).clamp(0.0, 1.0)
}

fn factorial(n: usize) -> f64 {
    (2..=n).fold(1.0, |acc, k| acc * k as f64)
}

fn tau_23_from_counts(n: usize, counts: &KendallCounts, epsilon: f64) -> Tau23 {
    if n < 2 {
        return Tau23 {
            tau_23: None,
            acc_23: None,
            n,
            epsilon,
            undefined: Some(Undefined::TooFewItems { n, needed: 2 }),
        };
    }
    let pairs = counts.pairs as f64;
    let agree = (counts.concordant + counts.tie_both) as f64;
    let disagree = (counts.discordant + counts.tie_x_only + counts.tie_y_only) as f64;
    Tau23 {
        tau_23: Some((agree - disagree) / pairs),
        acc_23: Some(agree / pairs),
        n,
        epsilon,
        undefined: None,
    }
}

/// τ₂₃ with ε-ties in the metric: Fenwick sweep with shifted thresholds plus two-pointer tie
/// counts, O(n log n). `order` may pass a precomputed (x, y) rank order.
pub(crate) fn tau_23_ranked(
    y: &[f64],
    rx: &Ranking,
    ry: &Ranking,
    epsilon: f64,
    order: Option<&[u32]>,
) -> Tau23 {
    let n = y.len();
    if !is_positive(epsilon) || n < 2 {
        let counts = if n >= 2 { kendall_counts(rx, ry) } else { KendallCounts::default() };
        return tau_23_from_counts(n, &counts, epsilon.max(0.0));
    }
    let owned;
    let order = match order {
        Some(o) => o,
        None => {
            owned = order_by_ranks(rx, ry);
            &owned
        }
    };
    // Distinct y values in increasing order, indexed by dense rank.
    let mut values = vec![0.0; ry.distinct];
    for (i, &r) in ry.dense.iter().enumerate() {
        values[r as usize] = y[i];
    }
    let within = |a: f64, b: f64| b - a <= epsilon; // a ≤ b
    // Metric ties over all pairs: for each distinct value, partners at or above it within ε.
    let mut prefix = vec![0u64; ry.distinct + 1];
    for (r, &t) in ry.group_sizes.iter().enumerate() {
        prefix[r + 1] = prefix[r] + u64::from(t);
    }
    let mut tie_y_all = 0u64;
    let mut hi = 0;
    for (a, &t) in ry.group_sizes.iter().enumerate() {
        let t = u64::from(t);
        hi = hi.max(a + 1);
        while hi < ry.distinct && within(values[a], values[hi]) {
            hi += 1;
        }
        tie_y_all += t * (t - 1) / 2 + t * (prefix[hi] - prefix[a + 1]);
    }
    let mut tree = Fenwick::new(ry.distinct);
    let (mut concordant, mut tie_both) = (0u64, 0u64);
    let mut start = 0;
    while start < n {
        let xr = rx.dense[order[start] as usize];
        let mut end = start + 1;
        while end < n && rx.dense[order[end] as usize] == xr {
            end += 1;
        }
        let run = &order[start..end];
        let mut lo = 0;
        for (q, &i) in run.iter().enumerate() {
            let yq = y[i as usize];
            // Earlier x with y more than ε below: concordant.
            let below = values.partition_point(|&v| yq - v > epsilon);
            concordant += tree.count_below(below);
            // Within the run (sorted by y), partners within ε are ties in both.
            while !within(y[run[lo] as usize], yq) {
                lo += 1;
            }
            tie_both += (q - lo) as u64;
        }
        for &i in run {
            tree.add(ry.dense[i as usize] as usize);
        }
        start = end;
    }
    let pairs = n as u64 * (n as u64 - 1) / 2;
    let tie_x_only = rx.tied_pairs() - tie_both;
    let tie_y_only = tie_y_all - tie_both;
    let counts = KendallCounts {
        concordant,
        discordant: pairs - concordant - tie_x_only - tie_y_only - tie_both,
        tie_x_only,
        tie_y_only,
        tie_both,
        pairs,
    };
    tau_23_from_counts(n, &counts, epsilon)
}

/// WMT Kendall-like τ; `counts` (exact Kendall counts) is used when every pair qualifies.
pub(crate) fn kendall_like_ranked(
    x: &[f64],
    rx: &Ranking,
    ry: &Ranking,
    thresh: f64,
    counts: Option<&KendallCounts>,
) -> KendallLike {
    let n = x.len();
    let (concordant, discordant) = if n < 2 {
        (0, 0)
    } else if !is_positive(thresh) {
        // Every pair qualifies; a gold tie cannot be ordered "the same way", so it is discordant.
        let c = match counts {
            Some(c) => *c,
            None => kendall_counts(rx, ry),
        };
        (c.concordant, c.pairs - c.concordant)
    } else {
        let order = order_by_ranks(rx, ry);
        let mut tree = Fenwick::new(ry.distinct);
        let (mut conc, mut qualifying, mut p) = (0u64, 0u64, 0usize);
        for &j in &order {
            let xj = x[j as usize];
            // Items at least `thresh` below x_j form a prefix of the x order.
            while xj - x[order[p] as usize] >= thresh {
                tree.add(ry.dense[order[p] as usize] as usize);
                p += 1;
            }
            qualifying += p as u64;
            conc += tree.count_below(ry.dense[j as usize] as usize);
        }
        (conc, qualifying - conc)
    };
    let total = concordant + discordant;
    let (value, undefined) = if total == 0 {
        (
            None,
            Some(if n < 2 {
                Undefined::TooFewItems { n, needed: 2 }
            } else {
                Undefined::NoQualifyingPairs
            }),
        )
    } else {
        (Some((concordant as f64 - discordant as f64) / total as f64), None)
    };
    KendallLike { value, concordant, discordant, n, undefined }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// O(n²) reference classification of §3.1.
    fn naive_counts(x: &[f64], y: &[f64]) -> KendallCounts {
        let mut c = KendallCounts::default();
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let (dx, dy) = (x[i] - x[j], y[i] - y[j]);
                c.pairs += 1;
                match (dx == 0.0, dy == 0.0) {
                    (true, true) => c.tie_both += 1,
                    (true, false) => c.tie_x_only += 1,
                    (false, true) => c.tie_y_only += 1,
                    _ if (dx > 0.0) == (dy > 0.0) => c.concordant += 1,
                    _ => c.discordant += 1,
                }
            }
        }
        c
    }

    #[test]
    fn knight_counts_equal_naive_counts() {
        // A deterministic scramble with many ties in both vectors.
        let x: Vec<f64> = (0..300u64).map(|i| ((i * 7919) % 13) as f64).collect();
        let y: Vec<f64> = (0..300u64).map(|i| ((i * 104_729 + 3) % 7) as f64 * 0.5).collect();
        let got = kendall_counts(&Ranking::new(&x), &Ranking::new(&y));
        assert_eq!(got, naive_counts(&x, &y));
        // 13 × 7 cells ≤ n: the contingency-table path; below, the sorting path.
        let z: Vec<f64> = (0..300u64).map(|i| ((i * 2_654_435_761) % 1000) as f64).collect();
        assert_eq!(kendall_counts(&Ranking::new(&x), &Ranking::new(&z)), naive_counts(&x, &z));
        // Many distinct x, few distinct y: sorting path with the small-array count.
        assert_eq!(kendall_counts(&Ranking::new(&z), &Ranking::new(&y)), naive_counts(&z, &y));
    }

    #[test]
    fn epsilon_counts_equal_naive_counts() {
        let x: Vec<f64> = (0..200u64).map(|i| ((i * 31) % 9) as f64).collect();
        let y: Vec<f64> = (0..200u64).map(|i| ((i * 2_654_435_761) % 97) as f64 / 10.0).collect();
        let eps = 0.35;
        let (mut agree, mut total) = (0i64, 0i64);
        let mut tau = 0i64;
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let gold_tie = x[i] == x[j];
                let metric_tie = (y[i] - y[j]).abs() <= eps;
                let same = gold_tie && metric_tie
                    || !gold_tie && !metric_tie && ((x[i] > x[j]) == (y[i] > y[j]));
                total += 1;
                agree += i64::from(same);
                tau += if same { 1 } else { -1 };
            }
        }
        let got = tau_23(&x, &y, eps);
        assert_eq!(got.acc_23, Some(agree as f64 / total as f64));
        assert_eq!(got.tau_23, Some(tau as f64 / total as f64));
    }

    #[test]
    fn kendall_like_equals_naive() {
        let x: Vec<f64> = (0..200u64).map(|i| ((i * 7919) % 101) as f64).collect();
        let y: Vec<f64> = (0..200u64).map(|i| ((i * 104_729) % 11) as f64).collect();
        let (mut conc, mut disc) = (0, 0);
        for i in 0..x.len() {
            for j in 0..x.len() {
                if x[j] - x[i] >= 25.0 {
                    if y[j] > y[i] { conc += 1 } else { disc += 1 }
                }
            }
        }
        let got = kendall_like(&x, &y, 25.0);
        assert_eq!((got.concordant, got.discordant), (conc, disc));
    }

    #[test]
    fn exact_p_matches_the_spec() {
        // E8: 2·1717/10!
        assert_eq!(kendall_p_exact(10, 5), 2.0 * 1717.0 / 3_628_800.0);
        assert_eq!(kendall_p_exact(5, 2), 0.23333333333333334);
    }
}
