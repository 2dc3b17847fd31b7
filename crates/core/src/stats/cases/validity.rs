//! The case kinds of STATS_SPEC §16 (judge validity): `alt_test`, `selective_trust`, `cascade`,
//! `stratified_ppi` and `stability`, in §16's field names.
//!
//! Beyond §16's fields, a value that is `null` comes with the reason beside it
//! (`winning_rate_error`, an annotator's `p_value_error`, `threshold_error`, `estimate_error`,
//! `alpha_error`), as §10's `<level>_error` does; optional inputs add optional outputs only
//! when given (`test_confidence`/`test_agree` → `held_out`, whose Wilson interval is at
//! `confidence_level`, default 0.95; `half_width` → `plan`).
//!
//! JSON objects have no order here (the case reader's maps are sorted by key), so an
//! `alt_test` case's annotators are tested and listed in the order of their ids; the test's
//! result does not depend on the order.

use super::read::{
    CaseError, Obj, audit_bad, bad, confidence, opt_f64, opt_usize, rating_matrix, scores,
};
use crate::stats::{
    AltTestOptions, CascadeJudge, KrippendorffLevel, Scoring, StratumData, alpha_reason, alt_test,
    cascade, plan_labels, selective_trust, stability, stratified_ppi,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// Output of the §16 kinds (serialised as the kind's own fields).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum ValidityOut {
    AltTest(AltTestOut),
    SelectiveTrust(TrustOut),
    Cascade(CascadeOut),
    StratifiedPpi(StratifiedOut),
    Stability(StabilityOut),
}

/// Computes a §16 case of `kind`; `None` when `kind` is not one of them.
pub(super) fn run(kind: &str, c: &Obj) -> Option<Result<ValidityOut, CaseError>> {
    Some(match kind {
        "alt_test" => alt_test_case(c).map(ValidityOut::AltTest),
        "selective_trust" => trust_case(c).map(ValidityOut::SelectiveTrust),
        "cascade" => cascade_case(c).map(ValidityOut::Cascade),
        "stratified_ppi" => stratified_case(c).map(ValidityOut::StratifiedPpi),
        "stability" => stability_case(c).map(ValidityOut::Stability),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// alt_test

#[derive(Debug, Serialize)]
pub(super) struct AnnotatorOut {
    id: String,
    n: usize,
    advantage_prob: f64,
    mean_diff: f64,
    p_value: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_value_error: Option<String>,
    rejected: bool,
}

#[derive(Debug, Serialize)]
pub(super) struct AltTestOut {
    winning_rate: Option<f64>,
    passed: Option<bool>,
    advantage_prob: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    winning_rate_error: Option<String>,
    annotators: Vec<AnnotatorOut>,
    skipped: Vec<String>,
}

/// Codes values for `accuracy` (equal values, equal codes) and keeps numbers for `neg_rmse`.
struct Coder {
    labels: HashMap<String, f64>,
    scoring: Scoring,
}

impl Coder {
    fn code(&mut self, field: &str, v: &Value) -> Result<Option<f64>, CaseError> {
        Ok(match (v, self.scoring) {
            (Value::Null, _) => None,
            (Value::Number(n), Scoring::NegRmse) => n.as_f64().filter(|x| !x.is_nan()),
            (other, Scoring::NegRmse) => {
                return Err(bad(field, format!("{other} is not a number (neg_rmse needs scores)")));
            }
            // Numbers and labels never compare equal, as in Python.
            (Value::Number(n), Scoring::Accuracy) => {
                Some(self.label(format!("n:{}", n.as_f64().unwrap_or(f64::NAN))))
            }
            (Value::String(s), Scoring::Accuracy) => Some(self.label(format!("s:{s}"))),
            (other, Scoring::Accuracy) => Some(self.label(format!("j:{other}"))),
        })
    }

    fn label(&mut self, key: String) -> f64 {
        let next = self.labels.len() as f64;
        *self.labels.entry(key).or_insert(next)
    }
}

fn alt_test_case(c: &Obj) -> Result<AltTestOut, CaseError> {
    let scoring = match c.get("scoring") {
        None | Some(Value::Null) => Scoring::Accuracy,
        Some(Value::String(s)) => Scoring::from_name(s)
            .ok_or_else(|| bad("scoring", format!("{s:?} is not `accuracy` or `neg_rmse`")))?,
        Some(_) => return Err(bad("scoring", "is not a string")),
    };
    let defaults = AltTestOptions::default();
    let options = AltTestOptions {
        scoring,
        epsilon: opt_f64(c, "epsilon", defaults.epsilon)?,
        q: opt_f64(c, "q", defaults.q)?,
        min_humans: opt_usize(c, "min_humans")?.unwrap_or(defaults.min_humans),
        min_instances: opt_usize(c, "min_instances")?.unwrap_or(defaults.min_instances),
    };
    let humans = c.get("humans").and_then(Value::as_object).ok_or_else(|| {
        bad("humans", "is missing or not an object {annotator: {instance: value}}")
    })?;
    let llm = c
        .get("llm")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("llm", "is missing or not an object {instance: value}"))?;
    // Instances in order of first appearance: the annotators', then the judge's.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut n = 0;
    for ann in humans.values() {
        let ann = ann.as_object().ok_or_else(|| bad("humans", "an annotator is not an object"))?;
        for k in ann.keys() {
            index.entry(k.as_str()).or_insert_with(|| {
                n += 1;
                n - 1
            });
        }
    }
    for k in llm.keys() {
        index.entry(k.as_str()).or_insert_with(|| {
            n += 1;
            n - 1
        });
    }
    let mut coder = Coder { labels: HashMap::new(), scoring };
    let mut ids = Vec::with_capacity(humans.len());
    let mut rows = Vec::with_capacity(humans.len());
    for (h, ann) in humans {
        let mut row = vec![None; n];
        for (i, v) in ann.as_object().into_iter().flatten() {
            row[index[i.as_str()]] = coder.code("humans", v)?;
        }
        ids.push(h.clone());
        rows.push(row);
    }
    let mut judge = vec![None; n];
    for (i, v) in llm {
        judge[index[i.as_str()]] = coder.code("llm", v)?;
    }
    let r = alt_test(&rows, &judge, &options).map_err(|e| {
        let field = match e {
            crate::stats::AltTestError::Epsilon(_) => "epsilon",
            crate::stats::AltTestError::Q(_) => "q",
            crate::stats::AltTestError::MinHumans(_) => "min_humans",
            _ => "humans",
        };
        bad(field, e.to_string())
    })?;
    Ok(AltTestOut {
        winning_rate: r.winning_rate,
        passed: r.passed,
        advantage_prob: r.advantage_prob,
        winning_rate_error: r.undefined.map(|u| u.to_string()),
        annotators: r
            .annotators
            .iter()
            .map(|a| AnnotatorOut {
                id: ids[a.index].clone(),
                n: a.n,
                advantage_prob: a.advantage_prob,
                mean_diff: a.mean_diff,
                p_value: a.p_value,
                p_value_error: a.p_undefined.map(|u| u.to_string()),
                rejected: a.rejected,
            })
            .collect(),
        skipped: r.skipped.iter().map(|s| ids[s.index].clone()).collect(),
    })
}

// ---------------------------------------------------------------------------------------
// selective_trust and cascade

fn agree_list(c: &Obj, field: &str) -> Result<Vec<Option<bool>>, CaseError> {
    let list = c
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| bad(field, "is missing or not a list of 0/1"))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Null => Ok(None),
            Value::Bool(b) => Ok(Some(*b)),
            Value::Number(n) if n.as_f64() == Some(1.0) => Ok(Some(true)),
            Value::Number(n) if n.as_f64() == Some(0.0) => Ok(Some(false)),
            other => Err(bad(field, format!("item {i} is {other}, expected 0, 1 or null"))),
        })
        .collect()
}

fn trust_bad(e: crate::stats::TrustError) -> CaseError {
    use crate::stats::TrustError;
    let field = match e {
        TrustError::Alpha(_) => "alpha",
        TrustError::Delta(_) => "delta",
        TrustError::LengthMismatch { .. } => "agree",
        _ => "confidence",
    };
    bad(field, e.to_string())
}

#[derive(Debug, Serialize)]
pub(super) struct ObservedOut {
    n: usize,
    n_trusted: usize,
    coverage: Option<f64>,
    agreement: Option<f64>,
    agreement_ci: Option<[f64; 2]>,
}

#[derive(Debug, Serialize)]
pub(super) struct TrustOut {
    threshold: Option<f64>,
    n_trusted: usize,
    coverage: Option<f64>,
    agreement: Option<f64>,
    p_values: Vec<(f64, usize, usize, f64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    threshold_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    held_out: Option<ObservedOut>,
}

fn trust_case(c: &Obj) -> Result<TrustOut, CaseError> {
    let conf = scores(c, "confidence")?;
    let agree = agree_list(c, "agree")?;
    let alpha = opt_f64(c, "alpha", 0.1)?;
    let delta = opt_f64(c, "delta", 0.1)?;
    let t = selective_trust(&conf, &agree, alpha, delta).map_err(trust_bad)?;
    let held_out = if c.get("test_confidence").is_some_and(|v| !v.is_null()) {
        let tc = scores(c, "test_confidence")?;
        let ta = agree_list(c, "test_agree")?;
        // `confidence` holds the judge's confidences here: the interval's level has its own name.
        let level = opt_f64(c, "confidence_level", 0.95)?;
        let o = t.evaluate(&tc, &ta, level).map_err(trust_bad)?;
        Some(ObservedOut {
            n: o.n,
            n_trusted: o.n_trusted,
            coverage: o.coverage,
            agreement: o.agreement.p,
            agreement_ci: o.agreement.ci,
        })
    } else {
        None
    };
    Ok(TrustOut {
        threshold: t.threshold,
        n_trusted: t.n_trusted,
        coverage: t.coverage,
        agreement: t.agreement,
        p_values: t.steps.iter().map(|s| (s.lambda, s.n, s.errors, s.p)).collect(),
        threshold_error: t.undefined.map(|u| u.to_string()),
        held_out,
    })
}

#[derive(Debug, Serialize)]
pub(super) struct StageOut {
    threshold: Option<f64>,
    n_calibration: usize,
    n_trusted: usize,
    agreement: Option<f64>,
}

#[derive(Debug, Serialize)]
pub(super) struct CascadeOut {
    judges: Vec<StageOut>,
    n: usize,
    decided: usize,
    coverage: Option<f64>,
    agreement: Option<f64>,
}

/// `{"judges": [{"confidence", "agree"}, …] (in order of cost), "alpha", "delta"}`.
fn cascade_case(c: &Obj) -> Result<CascadeOut, CaseError> {
    let list = c
        .get("judges")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("judges", "is missing or not a list of {confidence, agree}"))?;
    let judges = list
        .iter()
        .map(|j| {
            let j = j.as_object().ok_or_else(|| bad("judges", "an entry is not an object"))?;
            Ok(CascadeJudge {
                confidence: scores(j, "confidence")?,
                agree: agree_list(j, "agree")?,
            })
        })
        .collect::<Result<Vec<_>, CaseError>>()?;
    let r = cascade(&judges, opt_f64(c, "alpha", 0.1)?, opt_f64(c, "delta", 0.1)?)
        .map_err(trust_bad)?;
    Ok(CascadeOut {
        judges: r
            .stages
            .iter()
            .map(|s| StageOut {
                threshold: s.calibration.threshold,
                n_calibration: s.calibration.n,
                n_trusted: s.decided,
                agreement: (s.decided > 0).then(|| s.agreeing as f64 / s.decided as f64),
            })
            .collect(),
        n: r.n,
        decided: r.decided,
        coverage: r.coverage,
        agreement: r.agreement,
    })
}

// ---------------------------------------------------------------------------------------
// stratified_ppi

#[derive(Debug, Serialize)]
pub(super) struct StratumOut {
    w: f64,
    estimate: Option<f64>,
    se: Option<f64>,
    lambda: Option<f64>,
}

#[derive(Debug, Serialize)]
pub(super) struct PlanOut {
    n: usize,
    n_human: usize,
    saving: Option<f64>,
    n_per_stratum: Vec<usize>,
    ceiling_note: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct StratifiedOut {
    estimate: Option<f64>,
    se: Option<f64>,
    ci: Option<[f64; 2]>,
    strata: Vec<StratumOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    estimate_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<PlanField>,
}

/// The plan, or why it cannot be made.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum PlanField {
    Plan(PlanOut),
    Error { error: String },
}

fn stratified_case(c: &Obj) -> Result<StratifiedOut, CaseError> {
    let list = c
        .get("strata")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("strata", "is missing or not a list of {y, yhat, yhat_unlabeled}"))?;
    let strata = list
        .iter()
        .map(|s| {
            let s = s.as_object().ok_or_else(|| bad("strata", "an entry is not an object"))?;
            Ok(StratumData {
                y: scores(s, "y")?,
                yhat: scores(s, "yhat")?,
                yhat_unlabeled: scores(s, "yhat_unlabeled")?,
            })
        })
        .collect::<Result<Vec<_>, CaseError>>()?;
    let r = stratified_ppi(&strata, confidence(c)?).map_err(audit_bad)?;
    let plan = match c.get("half_width").filter(|v| !v.is_null()) {
        None => None,
        Some(_) => {
            let h = opt_f64(c, "half_width", 0.0)?;
            Some(match plan_labels(&r, h) {
                Ok(p) => PlanField::Plan(PlanOut {
                    n: p.n,
                    n_human: p.n_human,
                    saving: p.saving,
                    n_per_stratum: p.strata.iter().map(|s| s.n).collect(),
                    ceiling_note: p.ceiling_note,
                }),
                Err(e) => PlanField::Error { error: e.to_string() },
            })
        }
    };
    Ok(StratifiedOut {
        estimate: r.estimate,
        se: r.se,
        ci: r.ci,
        estimate_error: r.undefined.map(|u| match r.undefined_stratum {
            Some(k) => format!("stratum {k}: {u}"),
            None => u.to_string(),
        }),
        strata: r
            .strata
            .iter()
            .map(|s| StratumOut {
                w: s.w,
                estimate: s.estimate.estimate,
                se: s.estimate.se,
                lambda: s.lambda,
            })
            .collect(),
        plan,
    })
}

// ---------------------------------------------------------------------------------------
// stability

#[derive(Debug, Serialize)]
pub(super) struct StabilityOut {
    alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    alpha_error: Option<String>,
    n_items: usize,
    pairs: usize,
    flips: usize,
    flip_rate: Option<f64>,
    ci: Option<[f64; 2]>,
}

/// `{"samples": [[...], ...] (samples × items, null = no parsed rating), "level":
/// "nominal"|"ordinal"|"interval"|"ratio" (default interval; labels: nominal), "confidence"}`.
fn stability_case(c: &Obj) -> Result<StabilityOut, CaseError> {
    let m = rating_matrix(c, "samples")?;
    let level = match c.get("level").and_then(Value::as_str) {
        None if !m.numeric => KrippendorffLevel::Nominal,
        None | Some("interval") => KrippendorffLevel::Interval,
        Some("nominal") => KrippendorffLevel::Nominal,
        Some("ordinal") => KrippendorffLevel::Ordinal,
        Some("ratio") => KrippendorffLevel::Ratio,
        Some(other) => {
            return Err(bad("level", format!("{other:?} is not a level of measurement")));
        }
    };
    if !m.numeric && level != KrippendorffLevel::Nominal {
        return Err(bad("level", "labels have no order or distance: use nominal"));
    }
    let s = stability(&m.ratings, level, confidence(c)?).map_err(audit_bad)?;
    Ok(StabilityOut {
        alpha: s.alpha.value,
        alpha_error: s.alpha.undefined.map(alpha_reason),
        n_items: s.n_items,
        pairs: s.pairs,
        flips: s.flips,
        flip_rate: s.flip_rate.p,
        ci: s.flip_rate.ci,
    })
}
