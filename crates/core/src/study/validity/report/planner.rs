//! The label planner: from the labels already there (a pilot), the labels a stratified
//! prediction-powered estimate needs for a chosen interval half-width, with the judge and
//! without, allocated to the strata (Neyman), and the corrected estimate itself.

use super::common::{PLANNER_TABLE, Reads, row_label};
use crate::data::Dataset;
use crate::report::{Cell, Column, Report, Row, Table};
use crate::stats::{self, StratumData, plan_labels, stratified_ppi};
use crate::study::validity::inputs::{JudgeItems, Raters};
use crate::study::validity::settings::{Settings, StrataBy};
use crate::study::workbench::JudgedRun;

/// Which items keep their human label in the pilot: all rated ones, or `settings.pilot` of
/// them in a seeded order. When every item is rated and no pilot size is set, nothing would be
/// left to estimate for, so half the rated items (seeded) are the pilot; the second value says
/// so.
fn pilot_mask(
    dataset: &Dataset,
    raters: &Raters,
    settings: &Settings,
) -> (Vec<bool>, Option<String>) {
    let mut labelled: Vec<bool> = raters.aggregate.iter().map(Option::is_some).collect();
    let rated = labelled.iter().filter(|l| **l).count();
    let (keep, note) = match settings.pilot {
        Some(k) => (Some(k), None),
        None if rated == labelled.len() => (
            Some(rated / 2),
            Some(format!(
                "every item has a human label, so a seeded half of them ({}) is the pilot and the rest count as unlabelled",
                rated / 2
            )),
        ),
        None => (None, None),
    };
    if let Some(k) = keep
        && let Some(order) =
            stats::ShuffledOrders::new(dataset.items.len(), 1, settings.seed).next()
    {
        let mut kept = 0;
        for i in order {
            if labelled[i] {
                if kept < k {
                    kept += 1;
                } else {
                    labelled[i] = false;
                }
            }
        }
    }
    (labelled, note)
}

/// Stratum of every item (`None`: no stratum) and the strata's names.
fn strata_of(
    dataset: &Dataset,
    judge: &JudgeItems,
    by: StrataBy,
) -> (Vec<Option<usize>>, Vec<String>) {
    match by {
        StrataBy::System => {
            let mut names: Vec<String> = Vec::new();
            let of = dataset
                .items
                .iter()
                .map(|i| {
                    Some(match names.iter().position(|s| *s == i.system_id) {
                        Some(k) => k,
                        None => {
                            names.push(i.system_id.clone());
                            names.len() - 1
                        }
                    })
                })
                .collect();
            let names = names
                .into_iter()
                .map(|s| if s.is_empty() { "(no system)".to_owned() } else { s })
                .collect();
            (of, names)
        }
        StrataBy::Confidence => {
            let mut c: Vec<f64> = judge.confidence.iter().flatten().copied().collect();
            c.sort_by(f64::total_cmp);
            if c.is_empty() {
                return (vec![None; judge.confidence.len()], Vec::new());
            }
            let cut1 = c[c.len() / 3];
            let cut2 = c[2 * c.len() / 3];
            let names = vec![
                format!("confidence < {}", crate::report::format_value(Some(cut1), 2)),
                format!(
                    "{} to {}",
                    crate::report::format_value(Some(cut1), 2),
                    crate::report::format_value(Some(cut2), 2)
                ),
                format!("≥ {}", crate::report::format_value(Some(cut2), 2)),
            ];
            let of = judge
                .confidence
                .iter()
                .map(|c| {
                    c.map(|c| {
                        if c < cut1 {
                            0
                        } else if c < cut2 {
                            1
                        } else {
                            2
                        }
                    })
                })
                .collect();
            (of, names)
        }
    }
}

/// The planner part, filled a run at a time.
pub(super) struct PlannerPart {
    table: Table,
    notes: Vec<String>,
}

impl PlannerPart {
    pub(super) fn new() -> PlannerPart {
        let mut table =
            Table::new(PLANNER_TABLE, "How many human labels? (label planner)", "Judge · stratum");
        table.columns = vec![
            Column::text("Attribute"),
            Column::number("w").described("the stratum's share of the unlabelled items"),
            Column::number("Pilot labels"),
            Column::number("λ").described("PPI++'s power-tuning weight of the judge"),
            Column::number("σ with judge").described("sd of human − λ·judge on the pilot"),
            Column::number("σ humans").described("sd of the human labels on the pilot"),
            Column::number("Labels with judge"),
            Column::number("Labels humans only"),
            Column::number("Saving"),
            Column::number("Estimate").described("stratified PPI++ mean with its interval"),
        ];
        PlannerPart { table, notes: Vec::new() }
    }

    pub(super) fn add(
        &mut self,
        reads: &mut Reads,
        dataset: &Dataset,
        k: usize,
        run: &JudgedRun,
        settings: &Settings,
    ) {
        let label = row_label(run);
        let raters = match reads.raters(dataset, &run.attribute) {
            Ok(r) => r,
            Err(e) => {
                self.notes.push(format!("{label}: {e}"));
                return;
            }
        };
        let two_labels = dataset
            .attribute_index(&run.attribute)
            .is_some_and(|a| dataset.attributes[a].categories.len() == 2);
        if raters.categorical && !two_labels {
            self.notes.push(format!(
                "{label}: {} has more than two labels, which have no mean to estimate",
                run.attribute
            ));
            return;
        }
        let Ok(judge) = reads.items(dataset, k, run, stats::Scoring::NegRmse, settings) else {
            self.notes.push(format!("{label}: none of its records matches an item"));
            return;
        };
        let (labelled, pilot_note) = pilot_mask(dataset, &raters, settings);
        if let Some(note) = pilot_note {
            self.notes.push(format!("{label}: {note}."));
        }
        let (of, names) = strata_of(dataset, &judge, settings.strata);
        let mut data = vec![StratumData::default(); names.len()];
        for i in 0..dataset.items.len() {
            let (Some(k), Some(j)) = (of[i], judge.value[i]) else { continue };
            if labelled[i] {
                data[k].y.push(raters.aggregate[i]);
                data[k].yhat.push(Some(j));
            } else {
                data[k].yhat_unlabeled.push(Some(j));
            }
        }
        let Ok(estimate) = stratified_ppi(&data, settings.confidence) else { return };
        let range = dataset
            .attribute_index(&run.attribute)
            .map(|a| dataset.attributes[a].scale)
            .map_or(1.0, |s| (s.max - s.min).max(f64::MIN_POSITIVE));
        let half_width = settings.half_width.unwrap_or(range / 10.0);
        let plan = plan_labels(&estimate, half_width);
        for (k, s) in estimate.strata.iter().enumerate() {
            let planned = plan.as_ref().ok().map(|p| p.strata[k].n);
            self.table.rows.push(Row::new(
                format!("{label} · {}", names[k]),
                vec![
                    Cell::text(run.attribute.clone()),
                    Cell::number(Some(s.w), 3),
                    Cell::count(s.n),
                    if s.lambda_fixed {
                        Cell::number(s.lambda, 3)
                            .with_note("every judge value here is the same: λ = 0 (the human mean)")
                    } else {
                        Cell::number(s.lambda, 3)
                    },
                    Cell::number(s.sigma, 3),
                    Cell::number(s.sigma_human, 3),
                    planned.map_or_else(|| Cell::blank("no plan"), Cell::count),
                    Cell::empty(),
                    Cell::empty(),
                    match s.estimate.undefined {
                        Some(u) => Cell::blank(u.to_string()),
                        None => {
                            interval_cell(s.estimate.estimate, s.estimate.ci, settings.confidence)
                        }
                    },
                ],
            ));
        }
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let estimate_cell = match (estimate.estimate, estimate.undefined) {
            (Some(e), _) => interval_cell(Some(e), estimate.ci, settings.confidence),
            (None, Some(u)) => Cell::blank(match estimate.undefined_stratum {
                Some(k) => format!("stratum {}: {u}", names.get(k).map_or("?", String::as_str)),
                None => u.to_string(),
            }),
            (None, None) => Cell::number(None, 3),
        };
        let (n, n_h, saving) = match &plan {
            Ok(p) => {
                if let Some(note) = &p.ceiling_note {
                    self.notes.push(format!("{label}: {note}"));
                }
                (Cell::count(p.n), Cell::count(p.n_human), Cell::number(p.saving, 2))
            }
            Err(e) => {
                (Cell::blank(e.to_string()), Cell::blank(e.to_string()), Cell::blank(e.to_string()))
            }
        };
        self.table.rows.push(Row::new(
            format!("{label} · all"),
            vec![
                Cell::text(run.attribute.clone()),
                Cell::number(Some(1.0), 3),
                Cell::count(estimate.strata.iter().map(|s| s.n).sum()),
                Cell::empty(),
                Cell::empty(),
                Cell::empty(),
                n.keyed(key("n")),
                n_h.keyed(key("n_human")),
                saving.keyed(key("saving")),
                estimate_cell.keyed(key("estimate")),
            ],
        ));
        self.notes.push(format!(
            "{label}: half-width {half_width} at {:.0} % confidence.",
            settings.confidence * 100.0
        ));
    }

    pub(super) fn finish(mut self, settings: &Settings) -> Report {
        let mut head = vec![format!(
            "Strata by {}. Labels needed for an interval of the chosen half-width h: with the judge n = (z/h)²(Σ w σ)², allocated to the strata in proportion to w σ (Neyman); humans only n = (z/h)²(Σ w σ_H)²; the saving is their ratio (Fisch et al., NeurIPS 2024). σ and λ come from the pilot's labels{}; items without a label count as unlabelled.",
            match settings.strata {
                StrataBy::System => "system",
                StrataBy::Confidence => "the judge's confidence (terciles)",
            },
            settings.pilot.map(|k| format!(" ({k} items kept, seed {})", settings.seed)).unwrap_or_default()
        ), "A judge no more accurate than the systems it rates saves at most 2× (Dorner, Nastl & Hardt, ICLR 2025).".to_owned()];
        head.extend(self.notes);
        self.table.notes = head;
        Report { tables: vec![self.table], figures: Vec::new() }
    }
}

fn interval_cell(value: Option<f64>, ci: Option<[f64; 2]>, confidence: f64) -> Cell {
    let cell = Cell::number(value, 3);
    match ci {
        Some([lo, hi]) => cell.with_interval(lo, hi, confidence),
        None => cell,
    }
}
