//! Reading a case's fields: numbers, lists, rating matrices, with `CaseError` naming the field
//! and what is wrong with it (every kind of case reads its fields through these).

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use crate::stats::AuditError;

/// A problem with one field of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError {
    pub field: String,
    pub problem: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.field, self.problem)
    }
}

impl std::error::Error for CaseError {}

pub(super) fn bad(field: &str, problem: impl Into<String>) -> CaseError {
    CaseError { field: field.to_string(), problem: problem.into() }
}

pub(super) type Obj = Map<String, Value>;

pub(super) fn scores(c: &Obj, field: &str) -> Result<Vec<Option<f64>>, CaseError> {
    let list = c
        .get(field)
        .ok_or_else(|| bad(field, "is missing"))?
        .as_array()
        .ok_or_else(|| bad(field, "is not a list"))?;
    list.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Null => Ok(None),
            Value::Number(n) => Ok(n.as_f64().filter(|x| !x.is_nan())),
            other => Err(bad(field, format!("item {i} is {other}, expected a number or null"))),
        })
        .collect()
}

pub(super) fn opt_f64(c: &Obj, field: &str, default: f64) -> Result<f64, CaseError> {
    match c.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v.as_f64().ok_or_else(|| bad(field, "is not a number")),
    }
}

pub(super) fn opt_usize(c: &Obj, field: &str) -> Result<Option<usize>, CaseError> {
    match c.get(field) {
        None | Some(Value::Null) => Ok(None),
        // 30.0 is 30 (a Python float that holds a count).
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 9e15).map(|f| f as u64)
            })
            .map(|n| Some(n as usize))
            .ok_or_else(|| bad(field, "is not a non-negative integer")),
    }
}

/// A raters × units matrix with optional declared categories. Labels (strings) are allowed
/// for nominal data and coded by first appearance; `numeric` says whether every value and
/// category was a number.
pub(super) struct RatingMatrix {
    pub(super) ratings: Vec<Vec<Option<f64>>>,
    pub(super) categories: Option<Vec<f64>>,
    pub(super) numeric: bool,
}

pub(super) fn rating_matrix(c: &Obj, field: &str) -> Result<RatingMatrix, CaseError> {
    let rows = c
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| bad(field, "is missing or not a list of rater rows"))?;
    let mut labels: HashMap<String, f64> = HashMap::new();
    let mut numeric = true;
    let mut ratings = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_array().ok_or_else(|| bad(field, format!("row {r} is not a list")))?;
        let mut out = Vec::with_capacity(row.len());
        for (u, v) in row.iter().enumerate() {
            out.push(match v {
                Value::Null => None,
                Value::Number(n) => n.as_f64().filter(|x| !x.is_nan()),
                Value::String(s) => {
                    numeric = false;
                    let next = labels.len() as f64;
                    Some(*labels.entry(s.clone()).or_insert(next))
                }
                other => {
                    return Err(bad(field, format!("row {r}, unit {u} is {other}")));
                }
            });
        }
        ratings.push(out);
    }
    let categories: Option<Vec<f64>> = match c.get("categories") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_array()
                .ok_or_else(|| bad("categories", "is not a list"))?
                .iter()
                .map(|x| match x {
                    Value::Number(n) => n.as_f64().ok_or_else(|| bad("categories", "bad number")),
                    Value::String(s) => {
                        numeric = false;
                        let next = labels.len() as f64;
                        Ok(*labels.entry(s.clone()).or_insert(next))
                    }
                    _ => Err(bad("categories", "entries must be numbers or labels")),
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    Ok(RatingMatrix { ratings, categories, numeric })
}

/// The case field an [`AuditError`] is about.
pub(super) fn audit_bad(e: AuditError) -> CaseError {
    let field = match &e {
        AuditError::Confidence(_) => "confidence",
        AuditError::CountAboveTrials { .. } => "k",
        AuditError::LengthMismatch { right, .. } => right,
        AuditError::Resample(_) => "boot_indices",
    };
    bad(field, e.to_string())
}

pub(super) fn confidence(c: &Obj) -> Result<f64, CaseError> {
    opt_f64(c, "confidence", 0.95)
}
