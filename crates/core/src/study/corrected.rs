//! The prediction-powered corrected estimate (STATS_SPEC §15.4) as table cells, shared by
//! every study that shows one: the workbench's judge audit (a judge's mean rating per system,
//! `audit-corrected`) and the meta-evaluation (an evaluator's win rate of output 1,
//! `corrected-win-rate`). One set of columns — labelled, unlabelled, judge only, humans
//! only, PPI, PPI++, λ, and with a labelled subset the mean of every human label — one way to
//! fill them from a [`PpiMean`], and one wording of the method note, so the two tables read
//! alike.

use crate::report::{Cell, Column, format_value};
use crate::stats::{AuditError, MeanInterval, PpiMean, Undefined};

/// How many cells [`estimate_cells`] gives (and [`columns`] heads before the optional
/// "All human labels").
pub const ESTIMATE_CELLS: usize = 7;

/// The estimate's columns: labelled and unlabelled counts, the judge-only, human-only, PPI
/// and PPI++ figures, λ; with `all_labels` (the column's description) the mean of every
/// human label, hidden ones included, after them.
pub fn columns(all_labels: Option<&str>) -> Vec<Column> {
    let mut columns = vec![
        Column::number("Labelled"),
        Column::number("Unlabelled"),
        Column::number("Judge only"),
        Column::number("Humans only"),
        Column::number("PPI"),
        Column::number("PPI++"),
        Column::number("λ").described("PPI++'s power-tuning weight, clipped to [0, 1]"),
    ];
    if let Some(description) = all_labels {
        columns.push(Column::number("All human labels").described(description));
    }
    columns
}

/// Why a row has no corrected estimate of its own.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NoEstimate {
    /// The PPI estimate refused its input (its message says why): the cells are blank with it.
    #[error(transparent)]
    Refused(#[from] AuditError),
    /// The row carries another estimate (the stratified PPI++ mean over the systems): the
    /// per-system cells stay blank, with nothing to say.
    #[error("")]
    Elsewhere,
}

/// The [`ESTIMATE_CELLS`] cells of one estimate under [`columns`], keyed `{key}/judge_only`,
/// `{key}/humans_only`, `{key}/ppi`, `{key}/ppipp` and `{key}/lambda`; blank with `why`
/// when the estimate could not be made.
pub fn estimate_cells(
    estimate: &Result<PpiMean, NoEstimate>,
    confidence: f64,
    key: &str,
) -> Vec<Cell> {
    let e = match estimate {
        Ok(e) => e,
        Err(why) => return (0..ESTIMATE_CELLS).map(|_| Cell::blank(why.to_string())).collect(),
    };
    let mut cells = vec![Cell::count(e.n), Cell::count(e.n_unlabeled)];
    for (what, m) in [
        ("judge_only", &e.judge_only),
        ("humans_only", &e.classical),
        ("ppi", &e.ppi),
        ("ppipp", &e.ppipp),
    ] {
        cells.push(mean_cell(m, confidence, &format!("{key}/{what}")));
    }
    let mut lambda = Cell::number(e.lambda, 3).keyed(format!("{key}/lambda"));
    if e.lambda.is_none() {
        lambda = lambda.with_note(undefined_note(e.ppipp.undefined));
    }
    cells.push(lambda);
    cells
}

/// The "All human labels" cell: the mean of every label and how many there are.
pub fn all_labels_cell(all: Option<(f64, usize)>, key: &str) -> Cell {
    match all {
        Some((mean, n)) => Cell::number(Some(mean), 3).with_n(n).keyed(format!("{key}/all_humans")),
        None => Cell::blank("no human label"),
    }
}

/// The note saying what the columns are: `units` are what is labelled ("items", "pairs"),
/// `judge_value` what the judge gives each ("a judge score", "a verdict").
pub fn method_note(units: &str, judge_value: &str, confidence: f64) -> String {
    format!(
        "Labelled {units} have a human label and {judge_value}; unlabelled {units} only {judge_value}. PPI = mean of the judge on the unlabelled {units} + mean of (human − judge) on the labelled; PPI++ weighs the judge by λ. Intervals: {}% normal.",
        percent(confidence)
    )
}

/// A confidence level as a whole percentage ("95").
pub(crate) fn percent(confidence: f64) -> String {
    format_value(Some(confidence * 100.0), 0)
}

/// Why a value is undefined, as a cell's note.
pub(crate) fn undefined_note(why: Option<Undefined>) -> String {
    why.map_or_else(|| "undefined".to_owned(), |why| why.to_string())
}

/// A mean with its normal interval, or blank with why it is undefined.
pub(crate) fn mean_cell(m: &MeanInterval, confidence: f64, key: &str) -> Cell {
    let mut cell = Cell::number(m.estimate, 3).keyed(key);
    if let Some([low, high]) = m.ci {
        cell = cell.with_interval(low, high, confidence);
    }
    if m.estimate.is_none() {
        cell = cell.with_note(undefined_note(m.undefined));
    }
    cell
}
