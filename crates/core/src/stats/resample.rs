//! Paired bootstrap confidence intervals (§8) and the paired permutation test (§9) for the
//! difference between two metrics' correlations with the same human scores.
//!
//! Both run on explicit resample indices / swap masks so results are reproducible without
//! sharing a random-number generator; [`draw_boot_indices`] and [`draw_perm_masks`] make them
//! from a seed with ChaCha8 (portable across native and wasm).

use super::basics::Undefined;
use super::correlation::{corrcoef, kendall_counts, pearson_r};
use super::rank::Ranking;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use std::fmt;

/// Which correlation is resampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResampleStat {
    Pearson,
    Spearman,
    KendallB,
    KendallC,
    Tau23,
    Acc23,
}

impl ResampleStat {
    /// Parse the names used in the case format (`pearson`, `spearman`, `kendall_b`, …).
    pub fn from_name(name: &str) -> Option<ResampleStat> {
        Some(match name {
            "pearson" => ResampleStat::Pearson,
            "spearman" => ResampleStat::Spearman,
            "kendall_b" | "kendall" | "kendall_tau_b" => ResampleStat::KendallB,
            "kendall_c" => ResampleStat::KendallC,
            "tau_23" => ResampleStat::Tau23,
            "acc_23" => ResampleStat::Acc23,
            _ => return None,
        })
    }
}

/// Dataset level (resample items) or group level (resample groups, average per-group values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Dataset,
    Group,
}

/// Bad resampling input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResampleError {
    /// Resample `resample` has index `index`, but only `len` items/groups exist.
    IndexOutOfRange { resample: usize, index: usize, len: usize },
    /// Mask `mask` has `got` bits, the data has `expected` used items.
    MaskLength { mask: usize, got: usize, expected: usize },
    /// Group level was requested without group ids.
    MissingGroups,
}

impl fmt::Display for ResampleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResampleError::IndexOutOfRange { resample, index, len } => write!(
                f,
                "resample {resample}: index {index} is out of range (there are {len} to draw from)"
            ),
            ResampleError::MaskLength { mask, got, expected } => {
                write!(
                    f,
                    "permutation mask {mask} has {got} bits, expected {expected} (one per used item)"
                )
            }
            ResampleError::MissingGroups => f.write_str("group level needs group ids"),
        }
    }
}

impl std::error::Error for ResampleError {}

/// Percentile bootstrap of one statistic for metrics A and B and their difference.
#[derive(Debug, Clone, PartialEq)]
pub struct BootResult {
    pub n_resamples: usize,
    pub n_valid_a: usize,
    pub n_valid_b: usize,
    pub n_valid_delta: usize,
    pub ci_a: Option<[f64; 2]>,
    pub ci_b: Option<[f64; 2]>,
    pub ci_delta: Option<[f64; 2]>,
    pub mean_delta: Option<f64>,
    /// Fraction of resamples with delta ≤ 0: a one-sided p for "A > B".
    pub frac_delta_le_0: Option<f64>,
}

/// Paired permutation test of one statistic.
#[derive(Debug, Clone, PartialEq)]
pub struct PermResult {
    pub n_permutations: usize,
    /// Observed difference on the standardised metrics.
    pub observed_delta_std: Option<f64>,
    pub n_ge: usize,
    pub n_abs_ge: usize,
    pub n_valid: usize,
    pub p_greater: Option<f64>,
    pub p_two_sided: Option<f64>,
    pub undefined: Option<Undefined>,
}

/// The used items (complete in human, A and B) with their group layout.
pub(crate) struct Triples {
    pub h: Vec<f64>,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
    /// For group level: item positions of each group that has used items (groups in
    /// first-appearance order).
    pub groups: Vec<Vec<usize>>,
    /// For group level: the caller's group index of each entry of `groups` (§8's `group_ids`).
    pub group_of: Vec<usize>,
}

impl Triples {
    /// Keep positions where all three are present; `groups` are per-item group indices.
    pub fn new<S: super::basics::Score>(
        h: &[S],
        a: &[S],
        b: &[S],
        groups: Option<&[usize]>,
    ) -> Triples {
        let mut t = Triples {
            h: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            groups: Vec::new(),
            group_of: Vec::new(),
        };
        let mut slot_of_group: Vec<Option<usize>> = Vec::new();
        for i in 0..h.len().min(a.len()).min(b.len()) {
            let (Some(x), Some(y), Some(z)) = (h[i].get(), a[i].get(), b[i].get()) else {
                continue;
            };
            if let Some(g) = groups.and_then(|g| g.get(i)).copied() {
                if slot_of_group.len() <= g {
                    slot_of_group.resize(g + 1, None);
                }
                let slot = *slot_of_group[g].get_or_insert_with(|| {
                    t.groups.push(Vec::new());
                    t.group_of.push(g);
                    t.groups.len() - 1
                });
                t.groups[slot].push(t.h.len());
            }
            t.h.push(x);
            t.a.push(y);
            t.b.push(z);
        }
        t
    }

    pub fn len(&self) -> usize {
        self.h.len()
    }
}

/// The statistic on clean vectors; rankings are passed in so callers can share them.
fn stat_on(stat: ResampleStat, h: &[f64], v: &[f64], rh: &Ranking, rv: &Ranking) -> Option<f64> {
    let n = h.len();
    if n < 2 {
        return None;
    }
    match stat {
        ResampleStat::Pearson => {
            if rh.distinct < 2 || rv.distinct < 2 {
                None
            } else if n == 2 {
                Some((h[1] - h[0]).signum() * (v[1] - v[0]).signum())
            } else {
                Some(pearson_r(h, v))
            }
        }
        ResampleStat::Spearman => {
            (rh.distinct >= 2 && rv.distinct >= 2).then(|| corrcoef(&rh.average(), &rv.average()))
        }
        ResampleStat::KendallB | ResampleStat::KendallC => {
            if rh.distinct < 2 || rv.distinct < 2 {
                return None;
            }
            let c = kendall_counts(rh, rv);
            let s = c.concordant as f64 - c.discordant as f64;
            let pairs = c.pairs as f64;
            let tau = if stat == ResampleStat::KendallB {
                s / (pairs - rh.tied_pairs() as f64).sqrt()
                    / (pairs - rv.tied_pairs() as f64).sqrt()
            } else {
                let m = rh.distinct.min(rv.distinct) as f64;
                2.0 * s / ((n * n) as f64 * (m - 1.0) / m)
            };
            Some(tau.clamp(-1.0, 1.0))
        }
        ResampleStat::Tau23 | ResampleStat::Acc23 => {
            let c = kendall_counts(rh, rv);
            let agree = (c.concordant + c.tie_both) as f64;
            let pairs = c.pairs as f64;
            Some(if stat == ResampleStat::Acc23 {
                agree / pairs
            } else {
                (2.0 * agree - pairs) / pairs
            })
        }
    }
}

fn needs_ranks(stat: ResampleStat) -> bool {
    stat != ResampleStat::Pearson
}

/// Rank a vector, or only count distinct values when the statistic needs no ranks (Pearson
/// only needs "is it constant").
fn rank_for(stat: ResampleStat, v: &[f64]) -> Ranking {
    if needs_ranks(stat) {
        Ranking::new(v)
    } else {
        let constant = v.iter().all(|&x| x == v[0]);
        Ranking {
            dense: Vec::new(),
            distinct: if constant { 1 } else { 2 },
            group_sizes: Vec::new(),
            order: Vec::new(),
        }
    }
}

/// The statistic at the requested level (group level: mean of the defined per-group values).
fn level_stat(stat: ResampleStat, level: Level, t: &Triples, h: &[f64], v: &[f64]) -> Option<f64> {
    match level {
        Level::Dataset => stat_on(stat, h, v, &rank_for(stat, h), &rank_for(stat, v)),
        Level::Group => {
            let (mut sum, mut count) = (0.0, 0usize);
            let (mut gh, mut gv) = (Vec::new(), Vec::new());
            for members in &t.groups {
                gh.clear();
                gv.clear();
                gh.extend(members.iter().map(|&i| h[i]));
                gv.extend(members.iter().map(|&i| v[i]));
                if gh.len() < 2 {
                    continue;
                }
                if let Some(x) = stat_on(stat, &gh, &gv, &rank_for(stat, &gh), &rank_for(stat, &gv))
                {
                    sum += x;
                    count += 1;
                }
            }
            (count > 0).then(|| sum / count as f64)
        }
    }
}

/// Observed value of the statistic for A and B at a level.
pub(crate) fn observed(
    stat: ResampleStat,
    level: Level,
    t: &Triples,
) -> (Option<f64>, Option<f64>) {
    (level_stat(stat, level, t, &t.h, &t.a), level_stat(stat, level, t, &t.h, &t.b))
}

/// Paired percentile bootstrap on explicit resamples (§8). Dataset level: `indices` are
/// positions among the used items; group level: positions among the groups with used items.
pub(crate) fn bootstrap_triples(
    t: &Triples,
    stat: ResampleStat,
    level: Level,
    confidence: f64,
    indices: &[Vec<usize>],
) -> Result<BootResult, ResampleError> {
    let len = match level {
        Level::Dataset => t.len(),
        Level::Group => t.groups.len(),
    };
    for (r, draw) in indices.iter().enumerate() {
        if let Some(&bad) = draw.iter().find(|&&i| i >= len) {
            return Err(ResampleError::IndexOutOfRange { resample: r, index: bad, len });
        }
    }
    let mut va = Vec::with_capacity(indices.len());
    let mut vb = Vec::with_capacity(indices.len());
    let mut vd = Vec::with_capacity(indices.len());
    match level {
        Level::Dataset => {
            // Ranks are invariant under resampling, so rank once and re-densify codes per draw.
            let prep = |v: &[f64]| needs_ranks(stat).then(|| Ranking::new(v));
            let (ph, pa, pb) = (prep(&t.h), prep(&t.a), prep(&t.b));
            let (mut h, mut a, mut b) = (Vec::new(), Vec::new(), Vec::new());
            let mut codes = Vec::new();
            let rank_draw =
                |p: &Option<Ranking>, v: &[f64], draw: &[usize], codes: &mut Vec<u32>| match p {
                    Some(r) => {
                        codes.clear();
                        codes.extend(draw.iter().map(|&i| r.dense[i]));
                        Ranking::from_codes(codes, r.distinct)
                    }
                    None => rank_for(ResampleStat::Pearson, v),
                };
            for draw in indices {
                h.clear();
                a.clear();
                b.clear();
                h.extend(draw.iter().map(|&i| t.h[i]));
                a.extend(draw.iter().map(|&i| t.a[i]));
                b.extend(draw.iter().map(|&i| t.b[i]));
                let rh = rank_draw(&ph, &h, draw, &mut codes);
                let ra = rank_draw(&pa, &a, draw, &mut codes);
                let rb = rank_draw(&pb, &b, draw, &mut codes);
                push_draw(
                    stat_on(stat, &h, &a, &rh, &ra),
                    stat_on(stat, &h, &b, &rh, &rb),
                    &mut va,
                    &mut vb,
                    &mut vd,
                );
            }
        }
        Level::Group => {
            // Per-group values never change between resamples (§8): compute them once.
            let per_group = |v: &[f64]| -> Vec<Option<f64>> {
                t.groups
                    .iter()
                    .map(|members| {
                        let gh: Vec<f64> = members.iter().map(|&i| t.h[i]).collect();
                        let gv: Vec<f64> = members.iter().map(|&i| v[i]).collect();
                        stat_on(stat, &gh, &gv, &rank_for(stat, &gh), &rank_for(stat, &gv))
                    })
                    .collect()
            };
            let (ga, gb) = (per_group(&t.a), per_group(&t.b));
            let mean = |g: &[Option<f64>], draw: &[usize]| {
                let (mut sum, mut count) = (0.0, 0usize);
                for &i in draw {
                    if let Some(x) = g[i] {
                        sum += x;
                        count += 1;
                    }
                }
                (count > 0).then(|| sum / count as f64)
            };
            for draw in indices {
                push_draw(mean(&ga, draw), mean(&gb, draw), &mut va, &mut vb, &mut vd);
            }
        }
    }
    let alpha = 1.0 - confidence;
    let ci = |v: &mut Vec<f64>| -> Option<[f64; 2]> {
        if v.is_empty() {
            return None;
        }
        v.sort_unstable_by(f64::total_cmp);
        Some([quantile_sorted(v, alpha / 2.0), quantile_sorted(v, 1.0 - alpha / 2.0)])
    };
    let n_valid_delta = vd.len();
    let mean_delta = (n_valid_delta > 0).then(|| vd.iter().sum::<f64>() / n_valid_delta as f64);
    let frac = (n_valid_delta > 0)
        .then(|| vd.iter().filter(|&&d| d <= 0.0).count() as f64 / n_valid_delta as f64);
    Ok(BootResult {
        n_resamples: indices.len(),
        n_valid_a: va.len(),
        n_valid_b: vb.len(),
        n_valid_delta,
        ci_a: ci(&mut va),
        ci_b: ci(&mut vb),
        ci_delta: ci(&mut vd),
        mean_delta,
        frac_delta_le_0: frac,
    })
}

fn push_draw(
    a: Option<f64>,
    b: Option<f64>,
    va: &mut Vec<f64>,
    vb: &mut Vec<f64>,
    vd: &mut Vec<f64>,
) {
    if let Some(a) = a {
        va.push(a);
    }
    if let Some(b) = b {
        vb.push(b);
    }
    if let (Some(a), Some(b)) = (a, b) {
        vd.push(a - b);
    }
}

/// numpy's default (Hyndman–Fan type 7) quantile of sorted values.
pub(crate) fn quantile_sorted(v: &[f64], q: f64) -> f64 {
    let h = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    let frac = h - lo as f64;
    let diff = v[hi] - v[lo];
    // numpy's _lerp: interpolate from the nearer end for accuracy.
    if frac >= 0.5 { v[hi] - diff * (1.0 - frac) } else { v[lo] + diff * frac }
}

/// Paired permutation test on explicit swap masks (§9, mtme per-cell swapping).
pub(crate) fn permutation_triples(
    t: &Triples,
    stat: ResampleStat,
    level: Level,
    masks: &[Vec<bool>],
) -> Result<PermResult, ResampleError> {
    let n = t.len();
    for (m, mask) in masks.iter().enumerate() {
        if mask.len() != n {
            return Err(ResampleError::MaskLength { mask: m, got: mask.len(), expected: n });
        }
    }
    let mut out = PermResult {
        n_permutations: masks.len(),
        observed_delta_std: None,
        n_ge: 0,
        n_abs_ge: 0,
        n_valid: 0,
        p_greater: None,
        p_two_sided: None,
        undefined: None,
    };
    let (Some(za), Some(zb)) = (standardise(&t.a), standardise(&t.b)) else {
        out.undefined = Some(if n < 2 {
            Undefined::TooFewItems { n, needed: 2 }
        } else {
            Undefined::ConstantY
        });
        return Ok(out);
    };
    let (Some(oa), Some(ob)) =
        (level_stat(stat, level, t, &t.h, &za), level_stat(stat, level, t, &t.h, &zb))
    else {
        out.undefined = Some(Undefined::NoValidGroups);
        return Ok(out);
    };
    let delta = oa - ob;
    out.observed_delta_std = Some(delta);
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    for mask in masks {
        for i in 0..n {
            (a[i], b[i]) = if mask[i] { (zb[i], za[i]) } else { (za[i], zb[i]) };
        }
        let (Some(x), Some(y)) =
            (level_stat(stat, level, t, &t.h, &a), level_stat(stat, level, t, &t.h, &b))
        else {
            continue;
        };
        let d = x - y;
        out.n_valid += 1;
        // 1e-12 slack: mathematically equal Kendall deltas differ in the last bit (§9.4).
        out.n_ge += usize::from(d >= delta - 1e-12);
        out.n_abs_ge += usize::from(d.abs() >= delta.abs() - 1e-12);
    }
    if out.n_valid > 0 {
        out.p_greater = Some(out.n_ge as f64 / out.n_valid as f64);
        out.p_two_sided = Some(out.n_abs_ge as f64 / out.n_valid as f64);
    } else {
        out.undefined = Some(Undefined::NoValidResamples);
    }
    Ok(out)
}

/// `(v − mean)/std` with the population std; `None` when the std is 0.
fn standardise(v: &[f64]) -> Option<Vec<f64>> {
    if v.len() < 2 {
        return None;
    }
    let nf = v.len() as f64;
    let mean = v.iter().sum::<f64>() / nf;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / nf;
    let std = var.sqrt();
    (std > 0.0).then(|| v.iter().map(|x| (x - mean) / std).collect())
}

/// Human scores and two metrics' scores for the same items, optionally with a group id
/// (any numbering) per item. Items missing in any of the three are dropped (§0).
#[derive(Debug, Clone, Copy)]
pub struct ResampleInput<'a, S> {
    pub human: &'a [S],
    pub metric_a: &'a [S],
    pub metric_b: &'a [S],
    /// Required at group level.
    pub groups: Option<&'a [usize]>,
}

impl<S: super::basics::Score> ResampleInput<'_, S> {
    fn triples(&self, level: Level) -> Result<Triples, ResampleError> {
        if level == Level::Group && self.groups.is_none() {
            return Err(ResampleError::MissingGroups);
        }
        let groups = if level == Level::Group { self.groups } else { None };
        Ok(Triples::new(self.human, self.metric_a, self.metric_b, groups))
    }
}

/// Paired percentile bootstrap of `stat` for metrics A and B (§8) on explicit resamples:
/// dataset level, positions among the used items; group level, positions among the groups
/// that have used items (first-appearance order). Use [`draw_boot_indices`] for seeded draws.
pub fn bootstrap<S: super::basics::Score>(
    input: &ResampleInput<'_, S>,
    stat: ResampleStat,
    level: Level,
    confidence: f64,
    indices: &[Vec<usize>],
) -> Result<BootResult, ResampleError> {
    bootstrap_triples(&input.triples(level)?, stat, level, confidence, indices)
}

/// Paired permutation test of `stat` (§9) on explicit masks (`true` = swap that used item).
pub fn permutation_test<S: super::basics::Score>(
    input: &ResampleInput<'_, S>,
    stat: ResampleStat,
    level: Level,
    masks: &[Vec<bool>],
) -> Result<PermResult, ResampleError> {
    permutation_triples(&input.triples(level)?, stat, level, masks)
}

/// `resamples` draws of `len` indices with replacement from 0..len, ChaCha8 seeded by `seed`.
pub fn draw_boot_indices(len: usize, resamples: usize, seed: u64) -> Vec<Vec<usize>> {
    BootIndices::new(len, resamples, seed).collect()
}

/// [`draw_boot_indices`] one draw at a time (the same draws, in the same order), for callers
/// that work between frames.
#[derive(Debug, Clone)]
pub struct BootIndices {
    rng: ChaCha8Rng,
    len: usize,
    left: usize,
}

impl BootIndices {
    /// How many are still to come.
    pub fn remaining(&self) -> usize {
        self.left
    }

    pub fn new(len: usize, resamples: usize, seed: u64) -> BootIndices {
        BootIndices { rng: ChaCha8Rng::seed_from_u64(seed), len, left: resamples }
    }
}

impl Iterator for BootIndices {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        self.left = self.left.checked_sub(1)?;
        Some((0..self.len).map(|_| uniform_below(&mut self.rng, self.len)).collect())
    }
}

/// `count` masks of `len` fair coin flips, ChaCha8 seeded by `seed`.
pub fn draw_perm_masks(len: usize, count: usize, seed: u64) -> Vec<Vec<bool>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(|_| (0..len).map(|_| rng.next_u32() & 1 == 1).collect()).collect()
}

/// Uniform integer in 0..bound by Lemire's widening multiply (bias below 2⁻³²·bound).
pub(crate) fn uniform_below(rng: &mut ChaCha8Rng, bound: usize) -> usize {
    ((u128::from(rng.next_u64()) * bound as u128) >> 64) as usize
}
