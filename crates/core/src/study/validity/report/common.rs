//! What the validity report's parts share: the table and figure ids, which runs are judges,
//! row labels, and `Reads` (each attribute's raters and each judge run read once).

use std::collections::HashMap;
use std::sync::Arc;

use crate::data::{Dataset, ScaleKind};
use crate::report::Cell;
use crate::stats::Scoring;
use crate::study::validity::error::ValidityError;
use crate::study::validity::inputs::{JudgeItems, Raters, judge_items, raters};
use crate::study::validity::settings::Settings;
use crate::study::workbench::results::JudgedRun;

/// The alt-test's summary table (one row per judge run).
pub const ALT_TEST_TABLE: &str = "validity-alt-test";
/// Selective trust, one row per judge run.
pub const TRUST_TABLE: &str = "validity-trust";
/// The cascade of each attribute's judges.
pub const CASCADE_TABLE: &str = "validity-cascade";
/// The label planner.
pub const PLANNER_TABLE: &str = "validity-planner";
/// Repeat-run stability.
pub const STABILITY_TABLE: &str = "validity-stability";

fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// The per-annotator table of the `k`-th run (0-based) of the report, `method` its method.
pub fn annotator_table_id(k: usize, method: &str) -> String {
    format!("validity-alt-test-{}-{}", k + 1, slug(method))
}

/// The coverage–agreement figure of the `k`-th run (0-based).
pub fn curve_figure_id(k: usize, method: &str) -> String {
    format!("validity-trust-curve-{}-{}", k + 1, slug(method))
}

/// Whether the panel measures `run`: a judge of the dataset's outputs (its [`RunKind`] says
/// so), not a length-probe variant.
///
/// [`RunKind`]: crate::study::workbench::RunKind
pub fn is_judge(run: &JudgedRun) -> bool {
    crate::study::workbench::results::run_kind(run).is_judge()
}

/// The runs the panel measures, with their index among them (`k` of the table ids).
pub(super) fn judges(runs: &[JudgedRun]) -> Vec<&JudgedRun> {
    runs.iter().filter(|r| is_judge(r)).collect()
}

pub(super) fn row_label(r: &JudgedRun) -> String {
    r.method.clone()
}

pub(super) fn yes_no(b: bool) -> Cell {
    Cell::text(if b { "yes" } else { "no" })
}

pub(super) fn categorical(dataset: &Dataset, attribute: &str) -> bool {
    dataset
        .attribute_index(attribute)
        .is_some_and(|a| dataset.attributes[a].scale.kind == ScaleKind::Categorical)
}

/// What the parts read, each once: the raters of every attribute, and every judge run (by its
/// index among the judges) at a scoring.
#[derive(Default)]
pub(super) struct Reads {
    raters: HashMap<String, Result<Arc<Raters>, ValidityError>>,
    items: HashMap<(usize, &'static str), Result<Arc<JudgeItems>, ValidityError>>,
}

impl Reads {
    pub(super) fn raters(
        &mut self,
        dataset: &Dataset,
        attribute: &str,
    ) -> Result<Arc<Raters>, ValidityError> {
        self.raters
            .entry(attribute.to_owned())
            .or_insert_with(|| raters(dataset, attribute).map(Arc::new))
            .clone()
    }

    pub(super) fn items(
        &mut self,
        dataset: &Dataset,
        k: usize,
        run: &JudgedRun,
        scoring: Scoring,
        settings: &Settings,
    ) -> Result<Arc<JudgeItems>, ValidityError> {
        self.items
            .entry((k, scoring.name()))
            .or_insert_with(|| {
                judge_items(dataset, run, scoring, settings.confidence_source).map(Arc::new)
            })
            .clone()
    }
}

/// What one judge run costs, as far as it is known, at the list price of the model the runs
/// were made with ([`judge_costs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeCost {
    pub method: String,
    pub attribute: String,
    /// USD; `None` when the model's price is unknown.
    pub usd: Option<f64>,
}
