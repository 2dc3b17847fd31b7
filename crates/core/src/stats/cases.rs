//! The JSON case format of `stats_examples/cases.json` (§14) and its results in the format of
//! `expected.json`: what `concord stats CASES.json` reads and prints.
//!
//! Kinds: `correlation`, `williams`, `resampling`, `agreement`, `pairwise_labels`, `matches`
//! (§1–§12), the judge audit's `wilson`, `flip_rate`, `gwet_ac1`, `ppi_mean`,
//! `paired_shift` (§15.1–§15.5, in §15's field names) and `judge_agreement` (§15.6), and judge
//! validity's `alt_test`, `selective_trust`, `cascade`, `stratified_ppi` and `stability` (§16,
//! in [`validity`]).
//!
//! Input is parsed leniently into typed cases (numbers or `null` where scores go); a malformed
//! case becomes a result with an `error` field naming the field and the problem, and the other
//! cases are still computed.

use super::audit::{
    JuryRule, MeanInterval, flip_rate, gwet_ac1, judge_pair_agreement, jury, jury_against_members,
    paired_shift, ppi_mean, wilson,
};
use super::correlation::{AllCorrelations, correlate_all};
use super::group::{GroupOptions, GroupStat, group_correlations};
use super::preference::{EloParams, shuffled_orders};
use super::resample::{
    BootResult, Level, PermResult, ResampleStat, Triples, bootstrap_triples, draw_boot_indices,
    draw_perm_masks, observed, permutation_triples,
};
use super::{
    CohenWeights, Estimate, KrippendorffLevel, Label, Match, NullOutcome, Outcome, Undefined,
    alpha_reason, bradley_terry, categorical, cohen_kappa, elo, fleiss_kappa, krippendorff_alpha,
    label_accuracy, match_summary, mean_pairwise_cohen, williams, williams_vectors,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

mod read;
mod validity;

pub use read::CaseError;
use read::{
    Obj, RatingMatrix, audit_bad, bad, confidence, opt_f64, opt_usize, rating_matrix, scores,
};

/// Default WMT DA threshold of the Kendall-like τ (0–100 scale).
pub const DEFAULT_KENDALL_LIKE_THRESH: f64 = 25.0;
/// Default number of bootstrap resamples / permutations when a case gives none.
pub const DEFAULT_RESAMPLES: usize = 1000;
/// Default number of shuffled orders for averaged Elo (meta-evaluation paper).
pub const DEFAULT_ELO_SHUFFLES: usize = 200;

/// Why a case file could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CaseFileError {
    /// Not JSON; the message includes line and column.
    NotJson(String),
    /// The top level is not `{"cases": [...]}` or a list of cases.
    NoCaseList,
}

impl fmt::Display for CaseFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CaseFileError::NotJson(e) => write!(f, "not valid JSON: {e}"),
            CaseFileError::NoCaseList => {
                f.write_str("expected an object with a \"cases\" list (or a list of cases)")
            }
        }
    }
}

impl std::error::Error for CaseFileError {}

/// The whole output document.
#[derive(Debug, Serialize)]
pub struct CaseResults {
    pub oracle: Engine,
    pub results: Vec<CaseResult>,
}

/// Which implementation produced the results (the reference file names its oracle here).
#[derive(Debug, Serialize)]
pub struct Engine {
    pub oracle_version: u32,
    pub concord: &'static str,
}

/// One case's result: its id and kind, then the kind's fields (or `error`).
#[derive(Debug, Serialize)]
pub struct CaseResult {
    pub id: Value,
    pub kind: String,
    #[serde(flatten)]
    body: Body,
}

impl CaseResult {
    /// The problem with the case, when it could not be computed.
    pub fn error(&self) -> Option<&str> {
        match &self.body {
            Body::Error { error } => Some(error),
            _ => None,
        }
    }
}

/// Output fields per kind; serialised in declaration order, like `expected.json`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Body {
    Correlation(Box<CorrelationOut>),
    Williams(Box<WilliamsOut>),
    Resampling(Box<ResamplingOut>),
    Agreement(Box<AgreementOut>),
    Labels(Box<LabelsOut>),
    Matches(Box<MatchesOut>),
    Wilson(Box<WilsonOut>),
    FlipRate(Box<FlipRateOut>),
    GwetAc1(Box<GwetOut>),
    PpiMean(Box<PpiOut>),
    PairedShift(Box<ShiftOut>),
    JudgeAgreement(Box<JudgeAgreementOut>),
    Validity(Box<validity::ValidityOut>),
    Error { error: String },
}

/// Parse a case file and compute every case.
pub fn run_cases(json: &str) -> Result<CaseResults, CaseFileError> {
    let doc: Value = match serde_json::from_str(json) {
        Ok(doc) => doc,
        // Python's json.dump writes a missing value (NaN) as the bare token `NaN`, which JSON
        // does not have; §0 reads NaN as missing, i.e. null (and so `json_lenient` reads it).
        Err(e) => match crate::json_lenient::non_json_numbers_as_null(json) {
            Some(fixed) => serde_json::from_str(&fixed.text)
                .map_err(|e| CaseFileError::NotJson(e.to_string()))?,
            None => return Err(CaseFileError::NotJson(e.to_string())),
        },
    };
    let cases = match &doc {
        Value::Object(o) => o.get("cases").and_then(Value::as_array),
        Value::Array(a) => Some(a),
        _ => None,
    }
    .ok_or(CaseFileError::NoCaseList)?;
    let results = cases.iter().map(run_case).collect();
    Ok(CaseResults {
        oracle: Engine { oracle_version: 1, concord: env!("CARGO_PKG_VERSION") },
        results,
    })
}

/// Compute one case; a malformed case gives a result with an `error` field.
pub fn run_case(case: &Value) -> CaseResult {
    let id = case.get("id").cloned().unwrap_or(Value::Null);
    let kind = case.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
    let body = match case.as_object() {
        None => Err(bad("case", "is not an object")),
        Some(c) => match kind.as_str() {
            "correlation" => correlation_case(c).map(|o| Body::Correlation(Box::new(o))),
            "williams" => williams_case(c).map(|o| Body::Williams(Box::new(o))),
            "resampling" => resampling_case(c).map(|o| Body::Resampling(Box::new(o))),
            "agreement" => agreement_case(c).map(|o| Body::Agreement(Box::new(o))),
            "pairwise_labels" => labels_case(c).map(|o| Body::Labels(Box::new(o))),
            "matches" => matches_case(c).map(|o| Body::Matches(Box::new(o))),
            "wilson" => wilson_case(c).map(|o| Body::Wilson(Box::new(o))),
            "flip_rate" => flip_rate_case(c).map(|o| Body::FlipRate(Box::new(o))),
            "gwet_ac1" => gwet_case(c).map(|o| Body::GwetAc1(Box::new(o))),
            "ppi_mean" => ppi_case(c).map(|o| Body::PpiMean(Box::new(o))),
            "paired_shift" => shift_case(c).map(|o| Body::PairedShift(Box::new(o))),
            "judge_agreement" => judge_agreement_case(c).map(|o| Body::JudgeAgreement(Box::new(o))),
            other => match validity::run(other, c) {
                Some(out) => out.map(|o| Body::Validity(Box::new(o))),
                None => Err(bad("kind", format!("unknown kind {other:?}"))),
            },
        },
    };
    let body = body.unwrap_or_else(|e| Body::Error { error: e.to_string() });
    CaseResult { id, kind, body }
}

// ---------------------------------------------------------------------------------------
// Field readers

fn index_lists(c: &Obj, field: &str) -> Result<Option<Vec<Vec<usize>>>, CaseError> {
    let Some(v) = c.get(field).filter(|v| !v.is_null()) else { return Ok(None) };
    let rows = v.as_array().ok_or_else(|| bad(field, "is not a list of lists"))?;
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            row.as_array()
                .ok_or_else(|| bad(field, format!("entry {r} is not a list")))?
                .iter()
                .map(|x| {
                    x.as_u64()
                        .map(|n| n as usize)
                        .or_else(|| x.as_bool().map(usize::from))
                        .ok_or_else(|| bad(field, format!("entry {r} has {x}, expected an index")))
                })
                .collect()
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// Group ids (any JSON scalar) as hashable keys plus the original values for the output.
/// Per-item group keys and, for each key, the id as it appeared in the input.
type GroupKeys = (Vec<String>, HashMap<String, Value>);

fn group_keys(c: &Obj, n: usize) -> Result<Option<GroupKeys>, CaseError> {
    let Some(v) = c.get("groups").filter(|v| !v.is_null()) else { return Ok(None) };
    let list = v.as_array().ok_or_else(|| bad("groups", "is not a list"))?;
    if list.len() != n {
        return Err(bad("groups", format!("has {} entries, the scores have {n}", list.len())));
    }
    let mut original = HashMap::new();
    let keys = list
        .iter()
        .map(|g| {
            let key = g.to_string();
            original.entry(key.clone()).or_insert_with(|| g.clone());
            key
        })
        .collect();
    Ok(Some((keys, original)))
}

// ---------------------------------------------------------------------------------------
// correlation

#[derive(Debug, Serialize)]
struct CorrelationOut {
    n_input: usize,
    n_used: usize,
    dataset: DatasetOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<GroupOut>,
}

#[derive(Debug, Serialize)]
struct PearsonOut {
    r: Option<f64>,
    p: Option<f64>,
}

#[derive(Debug, Serialize)]
struct SpearmanOut {
    rho: Option<f64>,
    p: Option<f64>,
}

#[derive(Debug, Serialize)]
struct KendallBOut {
    tau: Option<f64>,
    p: Option<f64>,
    p_method: Option<&'static str>,
}

#[derive(Debug, Serialize)]
struct KendallCOut {
    tau: Option<f64>,
    p: Option<f64>,
}

#[derive(Debug, Serialize)]
struct TauOut {
    tau: Option<f64>,
}

#[derive(Debug, Serialize)]
struct CountsOut {
    concordant: u64,
    discordant: u64,
    tie_x_only: u64,
    tie_y_only: u64,
    tie_both: u64,
    pairs: u64,
}

#[derive(Debug, Serialize)]
struct KendallLikeOut {
    tau: Option<f64>,
    concordant: u64,
    discordant: u64,
}

#[derive(Debug, Serialize)]
struct DatasetOut {
    pearson: PearsonOut,
    spearman: SpearmanOut,
    kendall_b: KendallBOut,
    kendall_c: KendallCOut,
    kendall_a: TauOut,
    counts: CountsOut,
    tau_23: Option<f64>,
    acc_23: Option<f64>,
    kendall_like: KendallLikeOut,
}

impl From<&AllCorrelations> for DatasetOut {
    fn from(a: &AllCorrelations) -> DatasetOut {
        let k = &a.kendall;
        DatasetOut {
            pearson: PearsonOut { r: a.pearson.value, p: a.pearson.p_value },
            spearman: SpearmanOut { rho: a.spearman.value, p: a.spearman.p_value },
            kendall_b: KendallBOut {
                tau: k.tau_b.value,
                p: k.tau_b.p_value,
                p_method: k.p_method.map(|m| m.as_str()),
            },
            kendall_c: KendallCOut { tau: k.tau_c.value, p: k.tau_c.p_value },
            kendall_a: TauOut { tau: k.tau_a.value },
            counts: CountsOut {
                concordant: k.counts.concordant,
                discordant: k.counts.discordant,
                tie_x_only: k.counts.tie_x_only,
                tie_y_only: k.counts.tie_y_only,
                tie_both: k.counts.tie_both,
                pairs: k.counts.pairs,
            },
            tau_23: a.tau_23.tau_23,
            acc_23: a.tau_23.acc_23,
            kendall_like: KendallLikeOut {
                tau: a.kendall_like.value,
                concordant: a.kendall_like.concordant,
                discordant: a.kendall_like.discordant,
            },
        }
    }
}

#[derive(Debug, Serialize)]
struct GroupStatOut {
    mean: Option<f64>,
    mean_nan_as_zero: Option<f64>,
    n_valid: usize,
    values: Vec<Option<f64>>,
}

impl From<GroupStat> for GroupStatOut {
    fn from(g: GroupStat) -> GroupStatOut {
        GroupStatOut {
            mean: g.mean,
            mean_nan_as_zero: g.mean_nan_as_zero,
            n_valid: g.n_valid,
            values: g.values,
        }
    }
}

#[derive(Debug, Serialize)]
struct GroupKendallLikeOut {
    #[serde(flatten)]
    stat: GroupStatOut,
    micro: Option<f64>,
    concordant: u64,
    discordant: u64,
}

#[derive(Debug, Serialize)]
struct GroupOut {
    n_groups: usize,
    n_groups_min2: usize,
    group_ids: Vec<Value>,
    group_sizes_used: Vec<usize>,
    pearson: GroupStatOut,
    spearman: GroupStatOut,
    kendall_b: GroupStatOut,
    kendall_c: GroupStatOut,
    tau_23: GroupStatOut,
    acc_23: GroupStatOut,
    kendall_like: GroupKendallLikeOut,
}

fn correlation_case(c: &Obj) -> Result<CorrelationOut, CaseError> {
    let x = scores(c, "x")?;
    let y = scores(c, "y")?;
    if x.len() != y.len() {
        return Err(bad("y", format!("has {} values, x has {}", y.len(), x.len())));
    }
    let thresh = opt_f64(c, "kendall_like_thresh", DEFAULT_KENDALL_LIKE_THRESH)?;
    let epsilon = opt_f64(c, "epsilon", 0.0)?;
    let all = correlate_all(&x, &y, thresh, epsilon);
    let group = match group_keys(c, x.len())? {
        None => None,
        Some((keys, original)) => {
            let options = GroupOptions { kendall_like_thresh: thresh, epsilon };
            let g = group_correlations(&x, &y, &keys, &options);
            Some(GroupOut {
                n_groups: g.group_ids.len(),
                n_groups_min2: g.n_groups_min2,
                group_ids: g
                    .group_ids
                    .iter()
                    .map(|k| original.get(k).cloned().unwrap_or(Value::Null))
                    .collect(),
                group_sizes_used: g.group_sizes_used,
                pearson: g.pearson.into(),
                spearman: g.spearman.into(),
                kendall_b: g.kendall_b.into(),
                kendall_c: g.kendall_c.into(),
                tau_23: g.tau_23.into(),
                acc_23: g.acc_23.into(),
                kendall_like: GroupKendallLikeOut {
                    stat: g.kendall_like.into(),
                    micro: g.kendall_like_micro,
                    concordant: g.kendall_like_concordant,
                    discordant: g.kendall_like_discordant,
                },
            })
        }
    };
    Ok(CorrelationOut { n_input: x.len(), n_used: all.n, dataset: (&all).into(), group })
}

// ---------------------------------------------------------------------------------------
// williams

#[derive(Debug, Serialize)]
struct WilliamsOut {
    r12: Option<f64>,
    r13: Option<f64>,
    r23: Option<f64>,
    n: usize,
    df: Option<usize>,
    t: Option<f64>,
    p_greater: Option<f64>,
    p_abs_one_sided: Option<f64>,
    p_two_sided: Option<f64>,
}

fn williams_case(c: &Obj) -> Result<WilliamsOut, CaseError> {
    let w = if c.contains_key("human") {
        let h = scores(c, "human")?;
        let a = scores(c, "metric_a")?;
        let b = scores(c, "metric_b")?;
        if a.len() != h.len() || b.len() != h.len() {
            return Err(bad("metric_a", "human, metric_a and metric_b differ in length"));
        }
        williams_vectors(&h, &a, &b)
    } else {
        // A correlation given as null (undefined upstream) makes the test undefined.
        let r = |f: &str| match c.get(f) {
            Some(Value::Null) => Ok(None),
            v => v
                .and_then(Value::as_f64)
                .map(Some)
                .ok_or_else(|| bad(f, "is missing or not a number")),
        };
        let n = opt_usize(c, "n")?.ok_or_else(|| bad("n", "is missing"))?;
        match (r("r12")?, r("r13")?, r("r23")?) {
            (Some(r12), Some(r13), Some(r23)) => williams(r12, r13, r23, n),
            (r12, r13, r23) => {
                return Ok(WilliamsOut {
                    r12,
                    r13,
                    r23,
                    n,
                    df: None,
                    t: None,
                    p_greater: None,
                    p_abs_one_sided: None,
                    p_two_sided: None,
                });
            }
        }
    };
    Ok(WilliamsOut {
        r12: w.r12,
        r13: w.r13,
        r23: w.r23,
        n: w.n,
        df: w.df,
        t: w.t,
        p_greater: w.p_greater,
        p_abs_one_sided: w.p_abs_one_sided,
        p_two_sided: w.p_two_sided,
    })
}

// ---------------------------------------------------------------------------------------
// resampling

#[derive(Debug, Serialize)]
struct BootOut {
    n_resamples: usize,
    n_valid_a: usize,
    n_valid_b: usize,
    n_valid_delta: usize,
    ci_a: Option<[f64; 2]>,
    ci_b: Option<[f64; 2]>,
    ci_delta: Option<[f64; 2]>,
    mean_delta: Option<f64>,
    frac_delta_le_0: Option<f64>,
}

impl From<BootResult> for BootOut {
    fn from(b: BootResult) -> BootOut {
        BootOut {
            n_resamples: b.n_resamples,
            n_valid_a: b.n_valid_a,
            n_valid_b: b.n_valid_b,
            n_valid_delta: b.n_valid_delta,
            ci_a: b.ci_a,
            ci_b: b.ci_b,
            ci_delta: b.ci_delta,
            mean_delta: b.mean_delta,
            frac_delta_le_0: b.frac_delta_le_0,
        }
    }
}

#[derive(Debug, Serialize)]
struct PermOut {
    n_permutations: usize,
    observed_delta_std: Option<f64>,
    n_ge: usize,
    n_abs_ge: usize,
    n_valid: usize,
    p_greater: Option<f64>,
    p_two_sided: Option<f64>,
}

impl From<PermResult> for PermOut {
    fn from(p: PermResult) -> PermOut {
        PermOut {
            n_permutations: p.n_permutations,
            observed_delta_std: p.observed_delta_std,
            n_ge: p.n_ge,
            n_abs_ge: p.n_abs_ge,
            n_valid: p.n_valid,
            p_greater: p.p_greater,
            p_two_sided: p.p_two_sided,
        }
    }
}

#[derive(Debug, Serialize)]
struct ResampleStatOut {
    observed_a: Option<f64>,
    observed_b: Option<f64>,
    observed_delta: Option<f64>,
    boot: BootOut,
    perm: PermOut,
}

#[derive(Debug, Serialize)]
struct ResamplingOut {
    n_used: usize,
    level: &'static str,
    /// Group level only: the groups that have used items, in first-appearance order — what a
    /// bootstrap resample's indices point into (§8).
    #[serde(skip_serializing_if = "Option::is_none")]
    group_ids: Option<Vec<Value>>,
    /// Recorded only when the resamples were drawn here rather than given by the case.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    #[serde(flatten)]
    stats: InOrder<ResampleStatOut>,
}

/// Named entries serialised as a JSON object in the order given (the case's `stats` order).
#[derive(Debug)]
struct InOrder<T>(Vec<(String, T)>);

impl<T: Serialize> Serialize for InOrder<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn resampling_case(c: &Obj) -> Result<ResamplingOut, CaseError> {
    let h = scores(c, "human")?;
    let a = scores(c, "metric_a")?;
    let b = scores(c, "metric_b")?;
    if a.len() != h.len() || b.len() != h.len() {
        return Err(bad("metric_a", "human, metric_a and metric_b differ in length"));
    }
    let level = match c.get("level").and_then(Value::as_str).unwrap_or("dataset") {
        "dataset" | "global" | "none" => Level::Dataset,
        "group" | "document" | "input" | "item" => Level::Group,
        other => return Err(bad("level", format!("unknown level {other:?} (dataset or group)"))),
    };
    // Per item, the index of its group; per index, the group's id as the input gave it.
    let mut index_ids: Vec<Value> = Vec::new();
    let group_index: Option<Vec<usize>> = match group_keys(c, h.len())? {
        Some((keys, original)) => {
            let mut index = HashMap::new();
            Some(
                keys.iter()
                    .map(|k| {
                        *index.entry(k.clone()).or_insert_with(|| {
                            index_ids.push(original.get(k).cloned().unwrap_or(Value::Null));
                            index_ids.len() - 1
                        })
                    })
                    .collect(),
            )
        }
        None if level == Level::Group => return Err(bad("groups", "is required at group level")),
        None => None,
    };
    let t =
        Triples::new(&h, &a, &b, if level == Level::Group { group_index.as_deref() } else { None });
    // §8: group-level resamples index the groups that still have used items; list them.
    let group_ids = (level == Level::Group).then(|| {
        t.group_of.iter().map(|&g| index_ids.get(g).cloned().unwrap_or(Value::Null)).collect()
    });
    let confidence = opt_f64(c, "confidence", 0.95)?;
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(bad("confidence", "must be strictly between 0 and 1"));
    }
    let names: Vec<String> = match c.get("stats") {
        None | Some(Value::Null) => vec!["pearson".into(), "kendall_b".into()],
        Some(v) => v
            .as_array()
            .ok_or_else(|| bad("stats", "is not a list"))?
            .iter()
            .map(|s| {
                s.as_str().map(str::to_string).ok_or_else(|| bad("stats", "has a non-string entry"))
            })
            .collect::<Result<_, _>>()?,
    };
    let seed = opt_usize(c, "seed")?.unwrap_or(0) as u64;
    let mut drew = false;
    let boot = match index_lists(c, "boot_indices")? {
        Some(b) => b,
        None => {
            drew = true;
            let len = if level == Level::Group { t.groups.len() } else { t.len() };
            draw_boot_indices(len, opt_usize(c, "n_boot")?.unwrap_or(DEFAULT_RESAMPLES), seed)
        }
    };
    let masks: Vec<Vec<bool>> = match index_lists(c, "perm_masks")? {
        Some(m) => m.into_iter().map(|row| row.into_iter().map(|b| b != 0).collect()).collect(),
        None => {
            drew = true;
            draw_perm_masks(
                t.len(),
                opt_usize(c, "n_perm")?.unwrap_or(DEFAULT_RESAMPLES),
                seed.wrapping_add(1),
            )
        }
    };
    let mut stats = Vec::new();
    for name in names {
        let stat = ResampleStat::from_name(&name)
            .ok_or_else(|| bad("stats", format!("unknown statistic {name:?}")))?;
        let (oa, ob) = observed(stat, level, &t);
        let boot = bootstrap_triples(&t, stat, level, confidence, &boot)
            .map_err(|e| bad("boot_indices", e.to_string()))?;
        let perm = permutation_triples(&t, stat, level, &masks)
            .map_err(|e| bad("perm_masks", e.to_string()))?;
        stats.push((
            name,
            ResampleStatOut {
                observed_a: oa,
                observed_b: ob,
                observed_delta: oa.zip(ob).map(|(a, b)| a - b),
                boot: boot.into(),
                perm: perm.into(),
            },
        ));
    }
    Ok(ResamplingOut {
        n_used: t.len(),
        level: if level == Level::Group { "group" } else { "dataset" },
        group_ids,
        seed: drew.then_some(seed),
        stats: InOrder(stats),
    })
}

// ---------------------------------------------------------------------------------------
// agreement

/// α per level; a null α says why in `<level>_error` (§10), absent when α is defined.
#[derive(Debug, Serialize)]
struct KrippOut {
    nominal: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nominal_error: Option<String>,
    ordinal: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ordinal_error: Option<String>,
    interval: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    interval_error: Option<String>,
    ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ratio_error: Option<String>,
}

#[derive(Debug, Serialize)]
struct CohenOut {
    unweighted: Option<f64>,
    linear: Option<f64>,
    quadratic: Option<f64>,
    linear_observed_labels: Option<f64>,
    quadratic_observed_labels: Option<f64>,
}

#[derive(Debug, Serialize)]
struct FleissOut {
    kappa: Option<f64>,
    n_units_used: usize,
}

#[derive(Debug, Serialize)]
struct AgreementOut {
    n_raters: usize,
    n_units: usize,
    krippendorff: KrippOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    cohen: Option<CohenOut>,
    mean_pairwise_cohen: Option<f64>,
    fleiss: FleissOut,
}

fn agreement_case(c: &Obj) -> Result<AgreementOut, CaseError> {
    let RatingMatrix { ratings, categories, numeric } = rating_matrix(c, "ratings")?;
    // Labels have no order or distance: only the nominal level applies to them.
    let alpha = |level| {
        let a = if numeric || level == KrippendorffLevel::Nominal {
            krippendorff_alpha(&ratings, level)
        } else {
            Estimate::undefined(Undefined::NonNumericValues, 0)
        };
        (a.value, a.undefined.filter(|_| a.value.is_none()).map(alpha_reason))
    };
    // §11.1: continuous scores with no declared categories have no κ at all.
    let kappas = !numeric || categorical(&ratings, categories.as_deref());
    let kappa = |v: Option<f64>| v.filter(|_| kappas);
    let cohen = (ratings.len() == 2).then(|| {
        let k =
            |cats: Option<&[f64]>, w| kappa(cohen_kappa(&ratings[0], &ratings[1], cats, w).value);
        let cats = categories.as_deref();
        // Index-weighted κ needs ordered categories; labels have no order.
        let ordered = |v: Option<f64>| if numeric { v } else { None };
        CohenOut {
            unweighted: k(cats, CohenWeights::Unweighted),
            linear: ordered(k(cats, CohenWeights::Linear)),
            quadratic: ordered(k(cats, CohenWeights::Quadratic)),
            linear_observed_labels: ordered(k(None, CohenWeights::Linear)),
            quadratic_observed_labels: ordered(k(None, CohenWeights::Quadratic)),
        }
    });
    let fleiss = fleiss_kappa(&ratings);
    let (nominal, nominal_error) = alpha(KrippendorffLevel::Nominal);
    let (ordinal, ordinal_error) = alpha(KrippendorffLevel::Ordinal);
    let (interval, interval_error) = alpha(KrippendorffLevel::Interval);
    let (ratio, ratio_error) = alpha(KrippendorffLevel::Ratio);
    Ok(AgreementOut {
        n_raters: ratings.len(),
        n_units: ratings.iter().map(Vec::len).max().unwrap_or(0),
        krippendorff: KrippOut {
            nominal,
            nominal_error,
            ordinal,
            ordinal_error,
            interval,
            interval_error,
            ratio,
            ratio_error,
        },
        cohen,
        mean_pairwise_cohen: kappa(mean_pairwise_cohen(&ratings).value),
        fleiss: FleissOut { kappa: kappa(fleiss.kappa), n_units_used: fleiss.n_units_used },
    })
}

// ---------------------------------------------------------------------------------------
// pairwise_labels

#[derive(Debug, Serialize)]
struct LabelsOut {
    n_used: usize,
    agreement_with_ties: Option<f64>,
    agreement_without_ties: Option<f64>,
    n_without_ties: usize,
    accuracy_tie_half_credit: Option<f64>,
    accuracy_gold_nontie_strict: Option<f64>,
    accuracy_gold_nontie_judge_tie_half: Option<f64>,
    n_gold_nontie: usize,
    cohen_kappa: Option<f64>,
}

fn label_list(c: &Obj, field: &str) -> Result<Vec<Option<Label>>, CaseError> {
    c.get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| bad(field, "is missing or not a list"))?
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Null => Ok(None),
            Value::String(s) => Label::parse(s)
                .map(Some)
                .ok_or_else(|| bad(field, format!("item {i} is {s:?}, expected A, B or tie"))),
            other => Err(bad(field, format!("item {i} is {other}, expected A, B, tie or null"))),
        })
        .collect()
}

fn labels_case(c: &Obj) -> Result<LabelsOut, CaseError> {
    let judge = label_list(c, "judge")?;
    let gold = label_list(c, "gold")?;
    if judge.len() != gold.len() {
        return Err(bad("gold", format!("has {} labels, judge has {}", gold.len(), judge.len())));
    }
    let a = label_accuracy(&judge, &gold);
    Ok(LabelsOut {
        n_used: a.n_used,
        agreement_with_ties: a.agreement_with_ties,
        agreement_without_ties: a.agreement_without_ties,
        n_without_ties: a.n_without_ties,
        accuracy_tie_half_credit: a.accuracy_tie_half_credit,
        accuracy_gold_nontie_strict: a.accuracy_gold_nontie_strict,
        accuracy_gold_nontie_judge_tie_half: a.accuracy_gold_nontie_judge_tie_half,
        n_gold_nontie: a.n_gold_nontie,
        cohen_kappa: a.cohen_kappa.value,
    })
}

// ---------------------------------------------------------------------------------------
// matches

#[derive(Debug, Serialize)]
struct MatchesOut {
    models: Vec<Value>,
    n_matches_used: usize,
    n_null_outcomes: usize,
    null_outcome: &'static str,
    elo_given_order: Vec<f64>,
    elo_mean_over_orders: Option<Vec<f64>>,
    n_orders: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    wins: Vec<u64>,
    losses: Vec<u64>,
    ties: Vec<u64>,
    win_rate: Vec<Option<f64>>,
    win_rate_no_ties: Vec<Option<f64>>,
    win_rate_ties_zero: Vec<Option<f64>>,
    pairwise_win_rate: Vec<Vec<Option<f64>>>,
    pairwise_win_rate_tie_half: Vec<Vec<Option<f64>>>,
    bt_exists: bool,
    bt: Option<Vec<f64>>,
    bt_l2: Option<Vec<f64>>,
    bt_l2_lambda: f64,
}

fn matches_case(c: &Obj) -> Result<MatchesOut, CaseError> {
    let models = c
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("models", "is missing or not a list"))?
        .clone();
    let index: HashMap<String, usize> =
        models.iter().enumerate().map(|(i, m)| (name_of(m), i)).collect();
    let list = c
        .get("matches")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("matches", "is missing or not a list"))?;
    let mut matches = Vec::with_capacity(list.len());
    for (i, m) in list.iter().enumerate() {
        let triple = m
            .as_array()
            .filter(|t| t.len() == 3)
            .ok_or_else(|| bad("matches", format!("match {i} is not [a, b, outcome]")))?;
        let model = |v: &Value| {
            index.get(&name_of(v)).copied().ok_or_else(|| {
                bad("matches", format!("match {i} names {v}, which is not in models"))
            })
        };
        let outcome = match &triple[2] {
            Value::Null => None,
            Value::String(s) => Some(match s.to_ascii_lowercase().as_str() {
                "a" => Outcome::AWins,
                "b" => Outcome::BWins,
                s if s.starts_with("tie") => Outcome::Tie,
                _ => {
                    return Err(bad(
                        "matches",
                        format!("match {i} has outcome {s:?} (a, b, tie or null)"),
                    ));
                }
            }),
            other => return Err(bad("matches", format!("match {i} has outcome {other}"))),
        };
        matches.push(Match { a: model(&triple[0])?, b: model(&triple[1])?, outcome });
    }
    let null_outcome = match c.get("null_outcome").and_then(Value::as_str).unwrap_or("tie") {
        "tie" | "draw" => NullOutcome::Tie,
        "skip" => NullOutcome::Skip,
        other => {
            return Err(bad("null_outcome", format!("unknown policy {other:?} (tie or skip)")));
        }
    };
    let params = EloParams {
        k: opt_f64(c, "k", 4.0)?,
        init: opt_f64(c, "init", 1000.0)?,
        scale: opt_f64(c, "scale", 400.0)?,
        base: opt_f64(c, "base", 10.0)?,
    };
    let lambda = opt_f64(c, "bt_l2", 0.01)?;
    let m = models.len();
    let (orders, seed) = match index_lists(c, "orders")? {
        Some(o) => (o, None),
        None => {
            let seed = opt_usize(c, "seed")?.unwrap_or(0) as u64;
            let count = opt_usize(c, "n_shuffles")?.unwrap_or(DEFAULT_ELO_SHUFFLES);
            (shuffled_orders(matches.len(), count, seed), Some(seed))
        }
    };
    for (o, order) in orders.iter().enumerate() {
        if let Some(&bad_index) = order.iter().find(|&&i| i >= matches.len()) {
            return Err(bad(
                "orders",
                format!("order {o} has index {bad_index}, there are {} matches", matches.len()),
            ));
        }
    }
    let mean_elo = (!orders.is_empty()).then(|| {
        let mut sum = vec![0.0; m];
        for order in &orders {
            for (s, r) in sum.iter_mut().zip(elo(m, &matches, Some(order), null_outcome, &params)) {
                *s += r;
            }
        }
        sum.iter().map(|s| s / orders.len() as f64).collect()
    });
    let summary = match_summary(m, &matches, null_outcome);
    let bt = bradley_terry(m, &matches, null_outcome, 0.0, &params);
    let bt_l2 = bradley_terry(m, &matches, null_outcome, lambda, &params);
    Ok(MatchesOut {
        models,
        n_matches_used: summary.n_matches_used,
        n_null_outcomes: summary.n_null_outcomes,
        null_outcome: if null_outcome == NullOutcome::Skip { "skip" } else { "tie" },
        elo_given_order: elo(m, &matches, None, null_outcome, &params),
        elo_mean_over_orders: mean_elo,
        n_orders: orders.len(),
        seed,
        wins: summary.wins,
        losses: summary.losses,
        ties: summary.ties,
        win_rate: summary.win_rate,
        win_rate_no_ties: summary.win_rate_no_ties,
        win_rate_ties_zero: summary.win_rate_ties_zero,
        pairwise_win_rate: summary.pairwise_win_rate,
        pairwise_win_rate_tie_half: summary.pairwise_win_rate_tie_half,
        // Existence is the Zermelo/Ford condition, whatever the solver did.
        bt_exists: !matches!(bt.undefined, Some(super::Undefined::NoFiniteMle)),
        bt: bt.ratings,
        bt_l2: bt_l2.ratings,
        bt_l2_lambda: lambda,
    })
}

/// Model names may be strings or numbers; compare them by their text.
fn name_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// judge audit (§15)

#[derive(Debug, Serialize)]
struct WilsonOut {
    p: Option<f64>,
    ci: Option<[f64; 2]>,
}

fn wilson_case(c: &Obj) -> Result<WilsonOut, CaseError> {
    let k = opt_usize(c, "k")?.ok_or_else(|| bad("k", "is missing"))?;
    let n = opt_usize(c, "n")?.ok_or_else(|| bad("n", "is missing"))?;
    let w = wilson(k, n, confidence(c)?).map_err(audit_bad)?;
    Ok(WilsonOut { p: w.p, ci: w.ci })
}

#[derive(Debug, Serialize)]
struct FlipRateOut {
    n: usize,
    flips: usize,
    flip_rate: Option<f64>,
    ci: Option<[f64; 2]>,
    first_n: usize,
    first_wins: Option<f64>,
    first_wins_ci: Option<[f64; 2]>,
}

fn flip_rate_case(c: &Obj) -> Result<FlipRateOut, CaseError> {
    let forward = label_list(c, "forward")?;
    let backward = label_list(c, "backward")?;
    let p = flip_rate(&forward, &backward, confidence(c)?).map_err(audit_bad)?;
    Ok(FlipRateOut {
        n: p.n,
        flips: p.flips,
        flip_rate: p.flip_rate.p,
        ci: p.flip_rate.ci,
        first_n: p.first_wins.n,
        first_wins: p.first_wins.p,
        first_wins_ci: p.first_wins.ci,
    })
}

#[derive(Debug, Serialize)]
struct GwetOut {
    ac1: Option<f64>,
    pa: Option<f64>,
    pe: Option<f64>,
    n_units: usize,
}

fn gwet_case(c: &Obj) -> Result<GwetOut, CaseError> {
    let RatingMatrix { ratings, categories, .. } = rating_matrix(c, "ratings")?;
    let g = gwet_ac1(&ratings, categories.as_deref());
    Ok(GwetOut { ac1: g.ac1, pa: g.pa, pe: g.pe, n_units: g.n_units })
}

#[derive(Debug, Serialize)]
struct MeanOut {
    estimate: Option<f64>,
    se: Option<f64>,
    ci: Option<[f64; 2]>,
}

impl From<MeanInterval> for MeanOut {
    fn from(m: MeanInterval) -> MeanOut {
        MeanOut { estimate: m.estimate, se: m.se, ci: m.ci }
    }
}

#[derive(Debug, Serialize)]
struct PpiPlusOut {
    #[serde(flatten)]
    mean: MeanOut,
    lambda: Option<f64>,
}

#[derive(Debug, Serialize)]
struct PpiOut {
    ppi: MeanOut,
    ppipp: PpiPlusOut,
    classical: MeanOut,
    judge_only: MeanOut,
}

fn ppi_case(c: &Obj) -> Result<PpiOut, CaseError> {
    let y = scores(c, "y")?;
    let yhat = scores(c, "yhat")?;
    let unlabeled = scores(c, "yhat_unlabeled")?;
    let p = ppi_mean(&y, &yhat, &unlabeled, confidence(c)?).map_err(audit_bad)?;
    Ok(PpiOut {
        ppi: p.ppi.into(),
        ppipp: PpiPlusOut { mean: p.ppipp.into(), lambda: p.lambda },
        classical: p.classical.into(),
        judge_only: p.judge_only.into(),
    })
}

#[derive(Debug, Serialize)]
struct ShiftOut {
    n: usize,
    shift: Option<f64>,
    ci: Option<[f64; 2]>,
    /// Recorded only when the resamples were drawn here rather than given by the case.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

fn shift_case(c: &Obj) -> Result<ShiftOut, CaseError> {
    let orig = scores(c, "orig")?;
    let variant = scores(c, "variant")?;
    let confidence = confidence(c)?;
    let (indices, seed) = match index_lists(c, "boot_indices")? {
        Some(b) => (b, None),
        None => {
            let seed = opt_usize(c, "seed")?.unwrap_or(0) as u64;
            let used = super::audit::shift_differences(&orig, &variant).len();
            let count = opt_usize(c, "n_boot")?.unwrap_or(DEFAULT_RESAMPLES);
            (draw_boot_indices(used, count, seed), Some(seed))
        }
    };
    let s = paired_shift(&orig, &variant, confidence, &indices).map_err(audit_bad)?;
    Ok(ShiftOut { n: s.n, shift: s.shift, ci: s.ci, seed })
}

#[derive(Debug, Serialize)]
struct ResidualsOut {
    n: usize,
    r: Option<f64>,
    p: Option<f64>,
}

#[derive(Debug, Serialize)]
struct JudgePairOut {
    judges: [usize; 2],
    alpha_interval: Option<f64>,
    alpha_nominal: Option<f64>,
    cohen_kappa: Option<f64>,
    gwet_ac1: Option<f64>,
    residuals: ResidualsOut,
}

#[derive(Debug, Serialize)]
struct JuryOut {
    scores: Vec<Option<f64>>,
    pearson: PearsonOut,
    /// Williams' test of the jury (metric A) against each member (metric B), in member order.
    williams: Vec<WilliamsOut>,
}

#[derive(Debug, Serialize)]
struct JudgeAgreementOut {
    n_judges: usize,
    n_items: usize,
    pairs: Vec<JudgePairOut>,
    jury_members: Vec<usize>,
    jury_mean: JuryOut,
    jury_median: JuryOut,
}

fn williams_out(w: super::Williams) -> WilliamsOut {
    WilliamsOut {
        r12: w.r12,
        r13: w.r13,
        r23: w.r23,
        n: w.n,
        df: w.df,
        t: w.t,
        p_greater: w.p_greater,
        p_abs_one_sided: w.p_abs_one_sided,
        p_two_sided: w.p_two_sided,
    }
}

/// §15.6: two or more judges' scores on the same items (`judges`, judges × items) against
/// the human scores (`human`): α, κ and AC1 between every two judges, the correlation of
/// their errors, and the mean and median juries of `jury` (default: every judge) with Pearson
/// against the humans and Williams' test against each member.
fn judge_agreement_case(c: &Obj) -> Result<JudgeAgreementOut, CaseError> {
    let human = scores(c, "human")?;
    let RatingMatrix { ratings: judges, categories, numeric } = rating_matrix(c, "judges")?;
    if !numeric {
        return Err(bad("judges", "judge scores must be numbers"));
    }
    if judges.len() < 2 {
        return Err(bad("judges", format!("has {} judges, needs at least 2", judges.len())));
    }
    for (j, row) in judges.iter().enumerate() {
        if row.len() != human.len() {
            return Err(bad(
                "judges",
                format!("judge {j} has {} scores, human has {}", row.len(), human.len()),
            ));
        }
    }
    let mut pairs = Vec::new();
    for a in 0..judges.len() {
        for b in a + 1..judges.len() {
            let g = judge_pair_agreement(&human, &judges[a], &judges[b], categories.as_deref());
            pairs.push(JudgePairOut {
                judges: [a, b],
                alpha_interval: g.alpha_interval.value,
                alpha_nominal: g.alpha_nominal.value,
                cohen_kappa: g.cohen_kappa.value,
                gwet_ac1: g.gwet_ac1.ac1,
                residuals: ResidualsOut {
                    n: g.residuals.n,
                    r: g.residuals.value,
                    p: g.residuals.p_value,
                },
            });
        }
    }
    let jury_members: Vec<usize> = match c.get("jury").filter(|v| !v.is_null()) {
        None => (0..judges.len()).collect(),
        Some(v) => v
            .as_array()
            .ok_or_else(|| bad("jury", "is not a list of judge indices"))?
            .iter()
            .map(|x| {
                x.as_u64()
                    .map(|i| i as usize)
                    .filter(|&i| i < judges.len())
                    .ok_or_else(|| bad("jury", format!("{x} is not the index of a judge")))
            })
            .collect::<Result<_, _>>()?,
    };
    if jury_members.is_empty() {
        return Err(bad("jury", "has no members"));
    }
    let members: Vec<&[Option<f64>]> = jury_members.iter().map(|&j| judges[j].as_slice()).collect();
    let jury_out = |rule| {
        let scores = jury(&members, rule);
        let r = super::pearson(&human, &scores);
        let williams =
            jury_against_members(&human, &scores, &members).into_iter().map(williams_out).collect();
        JuryOut { scores, pearson: PearsonOut { r: r.value, p: r.p_value }, williams }
    };
    Ok(JudgeAgreementOut {
        n_judges: judges.len(),
        n_items: human.len(),
        pairs,
        jury_mean: jury_out(JuryRule::Mean),
        jury_median: jury_out(JuryRule::Median),
        jury_members,
    })
}
