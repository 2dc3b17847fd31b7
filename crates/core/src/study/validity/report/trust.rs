//! Selective trust (one row and one coverage–agreement figure per judge run) and the cascade
//! of each attribute's judges, both calibrated on one half of the rated items and checked on
//! the other.

use super::common::{CASCADE_TABLE, JudgeCost, Reads, TRUST_TABLE, curve_figure_id, row_label};
use crate::data::Dataset;
use crate::report::figure::Scatter;
use crate::report::{Cell, Column, Figure, Report, Row, Table};
use crate::stats::{self, CascadeJudge, SelectiveTrust, selective_trust};
use crate::study::validity::error::ValidityError;
use crate::study::validity::inputs::{JudgeItems, Raters};
use crate::study::validity::settings::Settings;
use crate::study::workbench::JudgedRun;
use crate::study::workbench::revise::{Split, split};

/// A run's verdicts checked against the humans: `Some(true)` where they agree within the
/// tolerance, `None` where either is missing.
fn agreement(judge: &JudgeItems, raters: &Raters, tolerance: f64) -> Vec<Option<bool>> {
    judge
        .verdict
        .iter()
        .zip(&raters.aggregate)
        .map(|(j, h)| Some((j.as_ref()? - h.as_ref()?).abs() <= tolerance))
        .collect()
}

/// Which items calibrate and which are held out: the given split when it is of this
/// attribute, else the seeded half of [`split`]; `None` when the items are too few to split
/// (then everything calibrates and nothing is held out).
fn halves(
    dataset: &Dataset,
    attribute: &str,
    settings: &Settings,
    given: Option<&Split>,
) -> Option<(Vec<bool>, Vec<bool>, &'static str)> {
    let (s, from) = match given.filter(|s| s.attribute == attribute) {
        Some(s) => (s.clone(), "the review's split"),
        None => (split(dataset, attribute, settings.seed, 0.5).ok()?, "a seeded half"),
    };
    let calibration = dataset.items.iter().map(|i| s.is_revision(&i.id)).collect();
    let held_out = dataset.items.iter().map(|i| s.is_held_out(&i.id)).collect();
    Some((calibration, held_out, from))
}

fn masked<T: Copy>(v: &[Option<T>], keep: &[bool]) -> Vec<Option<T>> {
    v.iter().zip(keep).map(|(x, k)| if *k { *x } else { None }).collect()
}

/// The selective-trust part, filled a run at a time.
pub(super) struct TrustPart {
    table: Table,
    figures: Vec<Figure>,
    split_from: Vec<&'static str>,
}

impl TrustPart {
    pub(super) fn new() -> TrustPart {
        let mut table =
            Table::new(TRUST_TABLE, "Where can the judge be trusted? (selective trust)", "Judge");
        let held = "held out";
        table.columns = vec![
            Column::text("Attribute"),
            Column::text("Confidence from"),
            Column::number("Threshold")
                .described("trust the judge on items whose confidence is at least this"),
            Column::number("Items").in_group("calibration"),
            Column::number("Trusted").in_group("calibration"),
            Column::number("Coverage").in_group("calibration"),
            Column::number("Agreement").in_group("calibration"),
            Column::number("Items").in_group(held),
            Column::number("Trusted").in_group(held),
            Column::number("Coverage").in_group(held),
            Column::number("Agreement").in_group(held),
        ];
        TrustPart { table, figures: Vec::new(), split_from: Vec::new() }
    }

    pub(super) fn add(
        &mut self,
        reads: &mut Reads,
        dataset: &Dataset,
        k: usize,
        run: &JudgedRun,
        settings: &Settings,
        given: Option<&Split>,
    ) {
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let blank_row = |why: String, source: Cell| {
            let mut cells = vec![Cell::text(run.attribute.clone()), source];
            cells.extend((0..9).map(|_| Cell::blank(why.clone())));
            Row::new(row_label(run), cells)
        };
        let read = reads.raters(dataset, &run.attribute).and_then(|r| {
            let scoring = settings.scoring_for(r.categorical);
            Ok((reads.items(dataset, k, run, scoring, settings)?, r))
        });
        let (judge, raters) = match read {
            Ok(x) => x,
            Err(e) => {
                self.table.rows.push(blank_row(e.to_string(), Cell::blank(e.to_string())));
                return;
            }
        };
        let agree = agreement(&judge, &raters, settings.tolerance_for(raters.categorical));
        let halves = halves(dataset, &run.attribute, settings, given);
        let all = vec![true; dataset.items.len()];
        let cal = halves.as_ref().map_or(&all, |h| &h.0);
        let Some(source) = judge.source else {
            let why = "the run has neither two or more samples per item nor log-probabilities: it states no confidence".to_owned();
            self.table.rows.push(blank_row(why.clone(), Cell::blank(why)));
            return;
        };
        let source_cell = Cell::text(source.describe());
        let t: SelectiveTrust = match selective_trust(
            &masked(&judge.confidence, cal),
            &masked(&agree, cal),
            settings.alpha,
            settings.delta,
        )
        .map_err(ValidityError::from)
        {
            Ok(t) => t,
            Err(e) => {
                self.table.rows.push(blank_row(e.to_string(), source_cell));
                return;
            }
        };
        let threshold = match (t.threshold, t.undefined) {
            (Some(v), _) => Cell::number(Some(v), 3),
            (None, Some(u)) => Cell::blank(u.to_string()),
            (None, None) => Cell::number(None, 3),
        };
        let mut cells = vec![
            Cell::text(run.attribute.clone()),
            source_cell,
            threshold.keyed(key("threshold")),
            Cell::count(t.n).keyed(key("n")),
            Cell::count(t.n_trusted).keyed(key("n_trusted")),
            Cell::number(t.coverage, 3).keyed(key("coverage")),
            Cell::number(t.agreement, 3).keyed(key("agreement")),
        ];
        match &halves {
            Some((_, held_out, from)) => {
                if !self.split_from.contains(from) {
                    self.split_from.push(from);
                }
                let o = t.evaluate(
                    &masked(&judge.confidence, held_out),
                    &masked(&agree, held_out),
                    settings.confidence,
                );
                match o {
                    Ok(o) => {
                        let mut agreement =
                            Cell::number(o.agreement.p, 3).keyed(key("held_out_agreement"));
                        if let Some([lo, hi]) = o.agreement.ci {
                            agreement = agreement.with_interval(lo, hi, settings.confidence);
                        }
                        let target = 1.0 - settings.alpha;
                        if o.agreement.p.is_some_and(|p| p < target) {
                            agreement = agreement.with_note(format!(
                                "below the target {target:.3} on the held-out items"
                            ));
                        }
                        cells.extend([
                            Cell::count(o.n).keyed(key("held_out_n")),
                            Cell::count(o.n_trusted).keyed(key("held_out_trusted")),
                            Cell::number(o.coverage, 3).keyed(key("held_out_coverage")),
                            agreement,
                        ]);
                    }
                    Err(e) => cells.extend((0..4).map(|_| Cell::blank(e.to_string()))),
                }
            }
            None => {
                let why = "too few items with a human rating to hold half out (8 needed)";
                cells.extend((0..4).map(|_| Cell::blank(why)));
            }
        }
        self.table.rows.push(Row::new(row_label(run), cells));
        if !t.steps.is_empty() {
            let points = t.steps.iter().map(|s| (s.coverage(t.n), s.agreement())).collect();
            let labels = t
                .steps
                .iter()
                .map(|s| format!("≥ {}", crate::report::format_value(Some(s.lambda), 2)))
                .collect();
            self.figures.push(Figure::new(
                curve_figure_id(k, &run.method),
                Scatter::new(
                    format!(
                        "{} on {}: coverage and agreement by threshold",
                        run.method, run.attribute
                    ),
                    "coverage (share of items trusted)",
                    "agreement with the humans",
                    points,
                )
                .labels(labels),
            ));
        }
    }

    pub(super) fn finish(mut self, settings: &Settings) -> Report {
        self.table.notes = vec![
            format!(
                "Target: agreement with the humans of at least {:.3} (α = {}) on the trusted items, with probability at least {:.3} (δ = {}): fixed-sequence testing from the highest confidence down, each threshold's p = P(Binomial(n, α) ≤ errors); the threshold is the last one passed (Jung, Brahman & Choi, ICLR 2025).",
                1.0 - settings.alpha,
                settings.alpha,
                1.0 - settings.delta,
                settings.delta
            ),
            format!(
                "The judge agrees when its most frequent rating is within {} of the humans' (their majority label, or their mean score). Calibrated on one half of the rated items and checked on the other ({}); held-out agreement with a {:.0} % Wilson interval.",
                tolerance_text(settings),
                if self.split_from.is_empty() {
                    "no split".to_owned()
                } else {
                    self.split_from.join(", ")
                },
                settings.confidence * 100.0
            ),
        ];
        Report { tables: vec![self.table], figures: self.figures }
    }
}

fn tolerance_text(settings: &Settings) -> String {
    format!("{} (labels: equal)", settings.tolerance_for(false))
}

/// How the cascade's judges are ordered.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum OrderedBy {
    /// The order the settings give.
    Settings,
    /// Estimated cost, cheapest first.
    Cost,
    /// The runs' order (no cost known for every judge).
    Given,
}

/// A judge in the cascade: its index among the judges, its run, its estimated cost.
pub(super) type Placed<'r> = (usize, &'r JudgedRun, Option<f64>);

/// The judges (with their index among the judges) in the cascade's order: the settings' when
/// they give one (judges they do not name last, in the runs' order), else by cost when every
/// judge's cost is known, else the runs' order. Each with its cost when known.
pub(super) fn cascade_order<'r>(
    judges: &[&'r JudgedRun],
    settings: &Settings,
    costs: &[JudgeCost],
) -> (Vec<Placed<'r>>, OrderedBy) {
    let cost_of = |r: &JudgedRun| {
        costs
            .iter()
            .find(|c| c.method == r.method && c.attribute == r.attribute)
            .and_then(|c| c.usd)
    };
    let mut ordered: Vec<Placed<'r>> =
        judges.iter().enumerate().map(|(k, r)| (k, *r, cost_of(r))).collect();
    if !settings.cascade.is_empty() {
        ordered.sort_by_key(|(_, r, _)| {
            settings.cascade.iter().position(|m| *m == r.method).unwrap_or(usize::MAX)
        });
        return (ordered, OrderedBy::Settings);
    }
    if !ordered.is_empty() && ordered.iter().all(|(_, _, c)| c.is_some()) {
        ordered.sort_by(|a, b| a.2.unwrap_or(0.0).total_cmp(&b.2.unwrap_or(0.0)));
        return (ordered, OrderedBy::Cost);
    }
    (ordered, OrderedBy::Given)
}

/// The cascade part, filled an attribute at a time.
pub(super) struct CascadePart {
    table: Table,
    ordered_by: OrderedBy,
}

impl CascadePart {
    pub(super) fn new(ordered_by: OrderedBy) -> CascadePart {
        let mut table =
            Table::new(CASCADE_TABLE, "A cascade of judges: who decides which items", "Judge");
        table.columns = vec![
            Column::text("Attribute"),
            Column::number("Est. cost")
                .described("the run's estimated cost at the list price of its model"),
            Column::number("Threshold"),
            Column::number("Decided").in_group("calibration"),
            Column::number("Agreement").in_group("calibration"),
            Column::number("Decided").in_group("held out"),
            Column::number("Agreement").in_group("held out"),
        ];
        CascadePart { table, ordered_by }
    }

    pub(super) fn add(
        &mut self,
        reads: &mut Reads,
        dataset: &Dataset,
        attribute: &str,
        ordered: &[(usize, &JudgedRun, Option<f64>)],
        settings: &Settings,
        given: Option<&Split>,
    ) {
        let Ok(raters) = reads.raters(dataset, attribute) else { return };
        let mut members = Vec::new();
        let mut names = Vec::new();
        for (k, r, cost) in ordered.iter().filter(|(_, r, _)| r.attribute == attribute) {
            let scoring = settings.scoring_for(raters.categorical);
            let Ok(j) = reads.items(dataset, *k, r, scoring, settings) else { continue };
            if j.source.is_none() {
                continue;
            }
            let agree = agreement(&j, &raters, settings.tolerance_for(raters.categorical));
            names.push((r.method.clone(), *cost));
            members.push(CascadeJudge { confidence: j.confidence.clone(), agree });
        }
        if members.is_empty() {
            return;
        }
        let n = dataset.items.len();
        let halves = halves(dataset, attribute, settings, given);
        let all = vec![true; n];
        let cal_mask = halves.as_ref().map_or(&all, |h| &h.0);
        let restrict = |mask: &Vec<bool>| -> Vec<CascadeJudge> {
            members
                .iter()
                .map(|m| CascadeJudge {
                    confidence: masked(&m.confidence, mask),
                    agree: masked(&m.agree, mask),
                })
                .collect()
        };
        let Ok(calibrated) = stats::cascade(&restrict(cal_mask), settings.alpha, settings.delta)
        else {
            return;
        };
        let held = halves.as_ref().map(|h| calibrated.evaluate(&restrict(&h.1)));
        let rate = |a: usize, n: usize| (n > 0).then(|| a as f64 / n as f64);
        for (k, stage) in calibrated.stages.iter().enumerate() {
            let (name, cost) = &names[k];
            let key = |what: &str| format!("{name}/{attribute}/{what}");
            let threshold = match stage.calibration.threshold {
                Some(v) => Cell::number(Some(v), 3),
                None => Cell::blank(
                    stage.calibration.undefined.map_or("undefined".to_owned(), |u| u.to_string()),
                ),
            };
            let cost = match cost {
                Some(c) => Cell {
                    value: Some(*c),
                    text: crate::words::usd(*c),
                    decimals: 4,
                    ..Cell::default()
                },
                None => Cell::blank("no price known for the model of this run"),
            };
            let mut cells = vec![
                Cell::text(attribute),
                cost.keyed(key("cost")),
                threshold.keyed(key("threshold")),
                Cell::count(stage.decided).keyed(key("decided")),
                Cell::number(rate(stage.agreeing, stage.decided), 3).keyed(key("agreement")),
            ];
            match &held {
                Some(h) => {
                    let s = &h.stages[k];
                    cells.push(Cell::count(s.decided).keyed(key("held_out_decided")));
                    cells.push(
                        Cell::number(rate(s.agreeing, s.decided), 3)
                            .keyed(key("held_out_agreement")),
                    );
                }
                None => cells.extend((0..2).map(|_| Cell::blank("too few items to hold half out"))),
            }
            self.table.rows.push(Row::new(format!("{}. {}", k + 1, name), cells));
        }
        let key = |what: &str| format!("without a person/{attribute}/{what}");
        let share = |c: &stats::Cascade| {
            Cell::number(c.coverage, 3)
                .with_note(format!("{} of {} items decided by a judge", c.decided, c.n))
        };
        let mut cells = vec![
            Cell::text(attribute),
            Cell::empty(),
            Cell::empty(),
            share(&calibrated).keyed(key("coverage")),
            Cell::number(calibrated.agreement, 3).keyed(key("agreement")),
        ];
        match &held {
            Some(h) => {
                cells.push(share(h).keyed(key("held_out_coverage")));
                cells.push(Cell::number(h.agreement, 3).keyed(key("held_out_agreement")));
            }
            None => cells.extend((0..2).map(|_| Cell::blank("too few items to hold half out"))),
        }
        self.table.rows.push(Row::new("without a person (share of items)", cells));
    }

    pub(super) fn finish(mut self, settings: &Settings) -> Report {
        let order = match self.ordered_by {
            OrderedBy::Settings => "in the order set in the panel",
            OrderedBy::Cost => "in order of estimated cost, cheapest first",
            OrderedBy::Given => {
                "in the order of the runs (the cost of every judge is not known: no price for the model, or imported runs)"
            }
        };
        self.table.notes = vec![format!(
            "Judges {order}; each is calibrated (α = {}, δ = {}) on the items the judges before it do not trust, and an item goes to the first judge that trusts it, else to a person. The last row gives the share of items no person needs to see and the judges' agreement with the humans on them.",
            settings.alpha, settings.delta
        )];
        Report { tables: vec![self.table], figures: Vec::new() }
    }
}
