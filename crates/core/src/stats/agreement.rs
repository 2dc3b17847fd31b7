//! Inter-rater agreement (§10, §11): Krippendorff's α by the closed O(N log N) forms (never a
//! V×V coincidence matrix), Cohen's κ (unweighted, linear, quadratic) and Fleiss' κ.
//!
//! Ratings are a raters × units matrix; `None` (or NaN) is a missing rating.

use super::basics::{Estimate, Undefined, is_positive};
use super::rank::few_distinct;
use std::collections::HashMap;

/// Level of measurement of Krippendorff's α.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KrippendorffLevel {
    Nominal,
    Ordinal,
    Interval,
    /// δ² = ((c − k)/(c + k))²; its expected disagreement is O(V²) in the number V of
    /// distinct values (fine for rating scales, slow for 10⁵ distinct continuous scores).
    Ratio,
}

/// Weighting of Cohen's κ, by index position in the category list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CohenWeights {
    Unweighted,
    Linear,
    Quadratic,
}

/// Fleiss' κ and the number of units rated by every rater.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleissKappa {
    pub kappa: Option<f64>,
    pub n_units_used: usize,
    pub undefined: Option<Undefined>,
}

fn present(v: Option<f64>) -> Option<f64> {
    v.filter(|x| !x.is_nan())
}

/// Krippendorff's α (krippendorff 0.9.0 semantics). `n` of the result = pairable values.
pub fn krippendorff_alpha(ratings: &[Vec<Option<f64>>], level: KrippendorffLevel) -> Estimate {
    let n_units = ratings.iter().map(Vec::len).max().unwrap_or(0);
    // Pairable units (≥ 2 ratings) as one flat list of values with unit boundaries.
    let mut values = Vec::new();
    let mut bounds = vec![0usize];
    let mut domain_first: Option<f64> = None;
    let mut domain_varies = false;
    let mut unit = Vec::with_capacity(ratings.len());
    for u in 0..n_units {
        unit.clear();
        unit.extend(
            ratings
                .iter()
                .filter_map(|r| r.get(u).copied().flatten())
                .filter_map(|v| present(Some(v))),
        );
        for &v in &unit {
            match domain_first {
                None => domain_first = Some(v),
                Some(f) => domain_varies |= f != v,
            }
        }
        if unit.len() >= 2 {
            values.extend_from_slice(&unit);
            bounds.push(values.len());
        }
    }
    let n = values.len();
    // The package checks the domain (every rating, pairable or not) before pairability.
    if !domain_varies {
        return Estimate::undefined(Undefined::SingleValue, n);
    }
    if n == 0 {
        return Estimate::undefined(Undefined::NoPairableUnits, 0);
    }
    let (d_o, d_e) = match level {
        KrippendorffLevel::Nominal => nominal_disagreements(&values, &bounds),
        KrippendorffLevel::Interval => interval_disagreements(&values, &bounds),
        KrippendorffLevel::Ordinal => {
            interval_disagreements(&mid_cumulative_ranks(&values), &bounds)
        }
        KrippendorffLevel::Ratio => ratio_disagreements(&values, &bounds),
    };
    if !is_positive(d_e) {
        return Estimate::undefined(Undefined::DegenerateDenominator, n);
    }
    Estimate::defined(1.0 - d_o / d_e, n)
}

/// Why α is undefined, in the krippendorff package's words where the package raises (§10: a
/// null α says why in `<level>_error`). `D_e = 0`, where the package returns NaN, gets ours.
pub fn alpha_reason(why: Undefined) -> String {
    match why {
        Undefined::SingleValue => "There has to be more than one value in the domain.".into(),
        Undefined::NoPairableUnits => {
            "There has to be at least one unit with values assigned by at least two coders.".into()
        }
        Undefined::NonNumericValues => "When using strings, an ordered value_domain is required \
            for level_of_measurement other than 'nominal'."
            .into(),
        Undefined::DegenerateDenominator => {
            "The expected disagreement is 0 (every pairable value is the same), so alpha is 0/0."
                .into()
        }
        other => other.to_string(),
    }
}

/// §11.1: κ is for categories. `false` when no category list is declared and some observed
/// rating is not an integer (scikit-learn's `type_of_target` = 'continuous'): then every κ of
/// the ratings is undefined ([`Undefined::ContinuousValues`]), never a number computed with
/// each distinct value as a category.
pub fn categorical(ratings: &[Vec<Option<f64>>], categories: Option<&[f64]>) -> bool {
    categories.is_some()
        || ratings.iter().flatten().flatten().all(|v| !v.is_finite() || v.fract() == 0.0)
}

fn units<'a>(values: &'a [f64], bounds: &'a [usize]) -> impl Iterator<Item = &'a [f64]> + 'a {
    bounds.windows(2).map(move |w| &values[w[0]..w[1]])
}

/// Interval: D_e = 2·Σ(v − v̄)²/(n−1); D_o = (1/n)·Σ_u 2·m_u·Σ(v − v̄_u)²/(m_u − 1).
fn interval_disagreements(values: &[f64], bounds: &[usize]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let ss = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
    let mut d_o = 0.0;
    for u in units(values, bounds) {
        let m = u.len() as f64;
        let mu = u.iter().sum::<f64>() / m;
        let ssu = u.iter().map(|v| (v - mu) * (v - mu)).sum::<f64>();
        d_o += 2.0 * m * ssu / (m - 1.0);
    }
    (d_o / n, 2.0 * ss / (n - 1.0))
}

/// Distinct values in increasing order with their counts.
fn distinct_counts(values: &[f64]) -> (Vec<f64>, Vec<f64>) {
    if let Some((distinct, codes)) = few_distinct(values, FEW) {
        let mut counts = vec![0.0; distinct.len()];
        for &c in &codes {
            counts[c as usize] += 1.0;
        }
        return (distinct, counts);
    }
    let mut sorted: Vec<f64> = values.iter().map(|v| v + 0.0).collect();
    if sorted.len() >= 256 {
        radsort::sort(&mut sorted);
    } else {
        sorted.sort_unstable_by(f64::total_cmp);
    }
    sorted.chunk_by(|a, b| a == b).map(|c| (c[0], c.len() as f64)).unzip()
}

/// Each value c replaced by M_c = Σ_{g<c} n_g + n_c/2 (counts over pairable values).
fn mid_cumulative_ranks(values: &[f64]) -> Vec<f64> {
    let few = few_distinct(values, FEW);
    let (distinct, counts) = match &few {
        Some((distinct, codes)) => {
            let mut counts = vec![0.0; distinct.len()];
            for &c in codes {
                counts[c as usize] += 1.0;
            }
            (distinct.clone(), counts)
        }
        None => distinct_counts(values),
    };
    let mut below = 0.0;
    let mids: Vec<f64> = counts
        .iter()
        .map(|&c| {
            let mid = below + c / 2.0;
            below += c;
            mid
        })
        .collect();
    match few {
        Some((_, codes)) => codes.iter().map(|&c| mids[c as usize]).collect(),
        None => values.iter().map(|&v| mids[distinct.partition_point(|&d| d < v)]).collect(),
    }
}

/// Up to this many distinct values, values are coded in one pass instead of sorted.
const FEW: usize = 64;

/// Nominal: D_e = (n² − Σ n_c²)/(n(n−1)); D_o = (1/n)·Σ_u (m_u² − Σ_c m_uc²)/(m_u − 1).
fn nominal_disagreements(values: &[f64], bounds: &[usize]) -> (f64, f64) {
    let n = values.len() as f64;
    let sum_sq = distinct_counts(values).1.iter().map(|t| t * t).sum::<f64>();
    let mut d_o = 0.0;
    for u in units(values, bounds) {
        // Units hold one value per rater: count equal pairs directly, no sorting.
        let mut same = 0.0;
        for i in 0..u.len() {
            for j in i + 1..u.len() {
                same += f64::from(u8::from(u[i] == u[j]));
            }
        }
        let m = u.len() as f64;
        // m² − Σ_c m_c² = m(m−1) − 2·(equal unordered pairs).
        d_o += (m * (m - 1.0) - 2.0 * same) / (m - 1.0);
    }
    (d_o / n, (n * n - sum_sq) / (n * (n - 1.0)))
}

/// Ratio: within units pairwise (m_u is the number of raters); expected over distinct values.
fn ratio_disagreements(values: &[f64], bounds: &[usize]) -> (f64, f64) {
    let delta = |c: f64, k: f64| {
        let s = c + k;
        if s == 0.0 { 0.0 } else { ((c - k) / s).powi(2) }
    };
    let n = values.len() as f64;
    let mut d_o = 0.0;
    for u in units(values, bounds) {
        let mut sum = 0.0;
        for i in 0..u.len() {
            for j in i + 1..u.len() {
                sum += 2.0 * delta(u[i], u[j]);
            }
        }
        d_o += sum / (u.len() as f64 - 1.0);
    }
    let (distinct, counts) = distinct_counts(values);
    let mut expected = 0.0;
    for i in 0..distinct.len() {
        for k in i + 1..distinct.len() {
            expected += 2.0 * counts[i] * counts[k] * delta(distinct[i], distinct[k]);
        }
    }
    (d_o / n, expected / (n * (n - 1.0)))
}

/// Cohen's κ between two raters (scikit-learn `cohen_kappa_score`), pairwise deletion.
/// Weights use index positions in `categories` (declared scale) merged with the observed labels;
/// `None` means the observed labels only. O(N log N): no confusion matrix is materialised.
pub fn cohen_kappa(
    rater_1: &[Option<f64>],
    rater_2: &[Option<f64>],
    categories: Option<&[f64]>,
    weights: CohenWeights,
) -> Estimate {
    let pairs: Vec<(f64, f64)> = rater_1
        .iter()
        .zip(rater_2)
        .filter_map(|(a, b)| Some((present(*a)? + 0.0, present(*b)? + 0.0)))
        .collect();
    let n = pairs.len();
    if n == 0 {
        return Estimate::undefined(Undefined::TooFewItems { n, needed: 1 }, n);
    }
    let mut labels: Vec<f64> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    if let Some(c) = categories {
        labels.extend(c.iter().map(|v| v + 0.0));
    }
    labels.sort_unstable_by(f64::total_cmp);
    labels.dedup();
    let index = |v: f64| labels.partition_point(|&l| l < v);
    let k = labels.len();
    let (mut rows, mut cols) = (vec![0.0f64; k], vec![0.0f64; k]);
    let weight = |i: usize, j: usize| -> f64 {
        let d = i.abs_diff(j) as f64;
        match weights {
            CohenWeights::Unweighted => f64::from(u8::from(i != j)),
            CohenWeights::Linear => d,
            CohenWeights::Quadratic => d * d,
        }
    };
    let mut observed = 0.0;
    for &(a, b) in &pairs {
        let (i, j) = (index(a), index(b));
        rows[i] += 1.0;
        cols[j] += 1.0;
        observed += weight(i, j);
    }
    let total = n as f64;
    // Σ_ij rows_i·cols_j·w(i, j) / N without the k×k matrix.
    let expected = match weights {
        CohenWeights::Unweighted => {
            total * total - rows.iter().zip(&cols).map(|(r, c)| r * c).sum::<f64>()
        }
        CohenWeights::Linear => {
            // Σ_i rows_i · Σ_j cols_j |i − j| with running sums of cols below and above i.
            let (mut below_n, mut below_idx) = (0.0, 0.0);
            let (mut above_n, mut above_idx) = (cols.iter().sum::<f64>(), 0.0);
            for (j, c) in cols.iter().enumerate() {
                above_idx += c * j as f64;
            }
            let mut s = 0.0;
            for (i, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
                let fi = i as f64;
                // cols at i move from "above" to "below" after use; |i − i| = 0 either way.
                above_n -= c;
                above_idx -= c * fi;
                s += r * ((fi * below_n - below_idx) + (above_idx - fi * above_n));
                below_n += c;
                below_idx += c * fi;
            }
            s
        }
        CohenWeights::Quadratic => {
            let moments = |v: &[f64]| {
                v.iter().enumerate().fold((0.0, 0.0, 0.0), |(s0, s1, s2), (i, &x)| {
                    let fi = i as f64;
                    (s0 + x, s1 + x * fi, s2 + x * fi * fi)
                })
            };
            let (r0, r1, r2) = moments(&rows);
            let (c0, c1, c2) = moments(&cols);
            r2 * c0 + r0 * c2 - 2.0 * r1 * c1
        }
    } / total;
    if !is_positive(expected) {
        return Estimate::undefined(Undefined::DegenerateDenominator, n);
    }
    Estimate::defined(1.0 - observed / expected, n)
}

/// Light's κ: mean unweighted Cohen's κ over all rater pairs with a defined κ.
pub fn mean_pairwise_cohen(ratings: &[Vec<Option<f64>>]) -> Estimate {
    let (mut sum, mut count) = (0.0, 0usize);
    for i in 0..ratings.len() {
        for j in i + 1..ratings.len() {
            if let Some(k) =
                cohen_kappa(&ratings[i], &ratings[j], None, CohenWeights::Unweighted).value
            {
                sum += k;
                count += 1;
            }
        }
    }
    if count == 0 {
        return Estimate::undefined(Undefined::DegenerateDenominator, 0);
    }
    Estimate::defined(sum / count as f64, count)
}

/// Fleiss' κ (statsmodels `fleiss_kappa`, method 'fleiss') over units rated by every rater.
pub fn fleiss_kappa(ratings: &[Vec<Option<f64>>]) -> FleissKappa {
    let r = ratings.len();
    let n_units = ratings.iter().map(Vec::len).max().unwrap_or(0);
    let mut category: HashMap<u64, usize> = HashMap::new();
    // Per used unit: the category codes of its r ratings.
    let mut units: Vec<Vec<usize>> = Vec::new();
    for u in 0..n_units {
        let row: Option<Vec<f64>> =
            ratings.iter().map(|rater| present(rater.get(u).copied().flatten())).collect();
        let Some(row) = row else { continue };
        let codes = row
            .iter()
            .map(|v| {
                let next = category.len();
                *category.entry((v + 0.0).to_bits()).or_insert(next)
            })
            .collect();
        units.push(codes);
    }
    let used = units.len();
    let undefined = |why| FleissKappa { kappa: None, n_units_used: used, undefined: Some(why) };
    if r < 2 {
        return undefined(Undefined::TooFewItems { n: r, needed: 2 });
    }
    if used == 0 {
        return undefined(Undefined::TooFewItems { n: 0, needed: 1 });
    }
    let k = category.len();
    let mut totals = vec![0.0f64; k];
    let mut p_bar = 0.0;
    let mut counts = vec![0.0f64; k];
    let rf = r as f64;
    for codes in &units {
        counts.iter_mut().for_each(|c| *c = 0.0);
        for &c in codes {
            counts[c] += 1.0;
        }
        let sq: f64 = counts.iter().map(|c| c * c).sum();
        p_bar += (sq - rf) / (rf * (rf - 1.0));
        for (t, c) in totals.iter_mut().zip(&counts) {
            *t += c;
        }
    }
    p_bar /= used as f64;
    let p_e: f64 = totals.iter().map(|t| (t / (used as f64 * rf)).powi(2)).sum();
    if !is_positive(1.0 - p_e) {
        return undefined(Undefined::SingleValue);
    }
    FleissKappa { kappa: Some((p_bar - p_e) / (1.0 - p_e)), n_units_used: used, undefined: None }
}
