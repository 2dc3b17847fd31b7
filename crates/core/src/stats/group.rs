//! Group (document) level aggregation (§6): one correlation per group, then averaged over the
//! defined groups (`mean`) or with undefined groups counted as zero (`mean_nan_as_zero`).

use super::basics::{Score, Undefined};
use super::correlation::{AllCorrelations, correlate_all_clean};
use std::collections::HashMap;
use std::hash::Hash;

/// Thresholds for the pairwise statistics computed per group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupOptions {
    /// Gold-score difference a pair needs for WMT's Kendall-like τ (WMT DA: 25).
    pub kendall_like_thresh: f64,
    /// Metric tie threshold of τ₂₃ / acc₂₃.
    pub epsilon: f64,
}

impl Default for GroupOptions {
    fn default() -> GroupOptions {
        GroupOptions { kendall_like_thresh: 25.0, epsilon: 0.0 }
    }
}

/// One statistic over the groups.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupStat {
    /// Per group (same order as [`GroupResult::group_ids`]); `None` when undefined or the group
    /// has fewer than 2 items.
    pub values: Vec<Option<f64>>,
    /// Mean over the defined groups; `None` when no group is defined.
    pub mean: Option<f64>,
    /// Undefined groups (with ≥ 2 items) count as 0 (mtme `replace_nans_with_zeros`).
    pub mean_nan_as_zero: Option<f64>,
    /// Number of groups with a defined value.
    pub n_valid: usize,
    /// Why `mean` is `None`.
    pub undefined: Option<Undefined>,
}

impl GroupStat {
    /// Aggregate per-group values; `sizes` gives each group's used items.
    pub(crate) fn from_values(values: Vec<Option<f64>>, sizes: &[usize]) -> GroupStat {
        let (mut sum, mut n_valid) = (0.0, 0usize);
        for v in values.iter().flatten() {
            sum += v;
            n_valid += 1;
        }
        let n_min2 = sizes.iter().filter(|&&s| s >= 2).count();
        let mean = (n_valid > 0).then(|| sum / n_valid as f64);
        GroupStat {
            values,
            mean,
            mean_nan_as_zero: (n_min2 > 0 && n_valid > 0).then(|| sum / n_min2 as f64),
            n_valid,
            undefined: mean.is_none().then_some(Undefined::NoValidGroups),
        }
    }
}

/// Document-level results for every statistic of §1–§4.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupResult<G> {
    /// Every group of the input, in first-appearance order — also a group whose items are all
    /// missing (size 0, every value `None`), so the lists line up with the input's groups.
    pub group_ids: Vec<G>,
    /// Paired items per group (0 for a group with no paired item).
    pub group_sizes_used: Vec<usize>,
    /// Groups with at least 2 paired items (the only ones that get a value).
    pub n_groups_min2: usize,
    pub pearson: GroupStat,
    pub spearman: GroupStat,
    pub kendall_b: GroupStat,
    pub kendall_c: GroupStat,
    pub tau_23: GroupStat,
    pub acc_23: GroupStat,
    /// Macro mean of per-group Kendall-like τ.
    pub kendall_like: GroupStat,
    /// WMT's pooled Kendall-like τ: (ΣConc − ΣDisc)/(ΣConc + ΣDisc) over within-group pairs.
    pub kendall_like_micro: Option<f64>,
    pub kendall_like_concordant: u64,
    pub kendall_like_discordant: u64,
    /// The full per-group results (`None` for groups with fewer than 2 items).
    pub per_group: Vec<Option<AllCorrelations>>,
}

/// Per-group correlations and their averages (§6). `groups[i]` is item i's group id.
pub fn group_correlations<S: Score, T: Score, G: Clone + Eq + Hash>(
    x: &[S],
    y: &[T],
    groups: &[G],
    options: &GroupOptions,
) -> GroupResult<G> {
    let (ids, members) = split_groups(x, y, groups, Empty::Keep);
    let mut per_group = Vec::with_capacity(ids.len());
    let mut sizes = Vec::with_capacity(ids.len());
    for (xs, ys) in &members {
        sizes.push(xs.len());
        per_group
            .push((xs.len() >= 2).then(|| {
                correlate_all_clean(xs, ys, options.kendall_like_thresh, options.epsilon)
            }));
    }
    let collect = |f: &dyn Fn(&AllCorrelations) -> Option<f64>| -> GroupStat {
        let values = per_group.iter().map(|g| g.as_ref().and_then(f)).collect();
        GroupStat::from_values(values, &sizes)
    };
    let (mut conc, mut disc) = (0u64, 0u64);
    for g in per_group.iter().flatten() {
        conc += g.kendall_like.concordant;
        disc += g.kendall_like.discordant;
    }
    GroupResult {
        n_groups_min2: sizes.iter().filter(|&&s| s >= 2).count(),
        pearson: collect(&|g| g.pearson.value),
        spearman: collect(&|g| g.spearman.value),
        kendall_b: collect(&|g| g.kendall.tau_b.value),
        kendall_c: collect(&|g| g.kendall.tau_c.value),
        tau_23: collect(&|g| g.tau_23.tau_23),
        acc_23: collect(&|g| g.tau_23.acc_23),
        kendall_like: collect(&|g| g.kendall_like.value),
        kendall_like_micro: (conc + disc > 0)
            .then(|| (conc as f64 - disc as f64) / (conc + disc) as f64),
        kendall_like_concordant: conc,
        kendall_like_discordant: disc,
        group_ids: ids,
        group_sizes_used: sizes,
        per_group,
    }
}

/// Paired items of each group, groups in first-appearance order.
pub(crate) type GroupMembers = Vec<(Vec<f64>, Vec<f64>)>;

/// Whether [`split_groups`] lists a group none of whose items is paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Listed with no members (document level, §6: every input group is listed).
    Keep,
    /// Left out (system level: a system without paired items has no mean).
    Drop,
}

pub(crate) fn split_groups<S: Score, T: Score, G: Clone + Eq + Hash>(
    x: &[S],
    y: &[T],
    groups: &[G],
    empty: Empty,
) -> (Vec<G>, GroupMembers) {
    let mut index: HashMap<&G, usize> = HashMap::new();
    let mut ids = Vec::new();
    let mut members: GroupMembers = Vec::new();
    for ((a, b), g) in x.iter().zip(y).zip(groups) {
        let pair = a.get().zip(b.get());
        if pair.is_none() && (empty == Empty::Drop || index.contains_key(g)) {
            continue;
        }
        let k = *index.entry(g).or_insert_with(|| {
            ids.push(g.clone());
            members.push((Vec::new(), Vec::new()));
            ids.len() - 1
        });
        if let Some((a, b)) = pair {
            members[k].0.push(a);
            members[k].1.push(b);
        }
    }
    (ids, members)
}

/// System level (§0): the mean score of each system over its paired items (summed in input
/// order, then divided), then one correlation over the systems. Returns the system ids in
/// first-appearance order with their mean scores, and the correlations.
pub fn system_correlations<S: Score, T: Score, G: Clone + Eq + Hash>(
    x: &[S],
    y: &[T],
    systems: &[G],
    options: &GroupOptions,
) -> SystemResult<G> {
    let (ids, members) = split_groups(x, y, systems, Empty::Drop);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let x_means: Vec<f64> = members.iter().map(|(xs, _)| mean(xs)).collect();
    let y_means: Vec<f64> = members.iter().map(|(_, ys)| mean(ys)).collect();
    SystemResult {
        correlations: correlate_all_clean(
            &x_means,
            &y_means,
            options.kendall_like_thresh,
            options.epsilon,
        ),
        system_ids: ids,
        x_means,
        y_means,
    }
}

/// System-level means and their correlations.
#[derive(Debug, Clone, PartialEq)]
pub struct SystemResult<G> {
    pub system_ids: Vec<G>,
    pub x_means: Vec<f64>,
    pub y_means: Vec<f64>,
    pub correlations: AllCorrelations,
}
