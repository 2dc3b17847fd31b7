//! Repeat-run stability: α among each run's samples and its flip rate (with a Wilson
//! interval), beside the annotators' α.

use std::collections::HashMap;

use super::common::{Reads, STABILITY_TABLE, categorical, row_label};
use crate::data::Dataset;
use crate::report::{Cell, Column, Report, Row, Table};
use crate::stats::{self, KrippendorffLevel, krippendorff_alpha};
use crate::study::validity::settings::Settings;
use crate::study::workbench::JudgedRun;

/// The stability part, filled a run at a time.
pub(super) struct StabilityPart {
    table: Table,
    /// The annotators' α of each attribute, computed once.
    human_alpha: HashMap<String, stats::Estimate>,
}

impl StabilityPart {
    pub(super) fn new() -> StabilityPart {
        let mut table = Table::new(
            STABILITY_TABLE,
            "Does the judge agree with itself? (repeat-run stability)",
            "Judge",
        );
        table.columns = vec![
            Column::text("Attribute"),
            Column::number("Samples").described("samples per item (most)"),
            Column::number("Items").described("items with two or more parsed samples"),
            Column::number("α samples").described("Krippendorff's α among the judge's samples"),
            Column::number("Flip rate")
                .described("share of pairs of samples of an item that differ"),
            Column::number("α annotators").described("Krippendorff's α among the annotators"),
        ];
        StabilityPart { table, human_alpha: HashMap::new() }
    }

    pub(super) fn add(
        &mut self,
        reads: &mut Reads,
        dataset: &Dataset,
        k: usize,
        run: &JudgedRun,
        settings: &Settings,
    ) {
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let cat = categorical(dataset, &run.attribute);
        let level = if cat { KrippendorffLevel::Nominal } else { KrippendorffLevel::Interval };
        // The samples do not depend on the scoring: the read the other parts made serves.
        let judge = match reads.items(dataset, k, run, settings.scoring_for(cat), settings) {
            Ok(j) => j,
            Err(e) => {
                let mut cells = vec![Cell::text(run.attribute.clone())];
                cells.extend((0..5).map(|_| Cell::blank(e.to_string())));
                self.table.rows.push(Row::new(row_label(run), cells));
                return;
            }
        };
        let humans = match self.human_alpha.get(&run.attribute) {
            Some(h) => *h,
            None => {
                let h = match reads.raters(dataset, &run.attribute) {
                    Ok(r) => krippendorff_alpha(&r.values, level),
                    Err(_) => stats::Estimate {
                        value: None,
                        n: 0,
                        undefined: Some(stats::Undefined::NoPairableUnits),
                    },
                };
                self.human_alpha.insert(run.attribute.clone(), h);
                h
            }
        };
        let Ok(s) = stats::stability(&judge.sample_matrix(), level, settings.confidence) else {
            return;
        };
        let alpha_cell = |e: stats::Estimate| match e.undefined {
            Some(u) => Cell::blank(stats::alpha_reason(u)),
            None => Cell::number(e.value, 3),
        };
        let mut alpha = alpha_cell(s.alpha).keyed(key("alpha"));
        if let (Some(a), Some(h)) = (s.alpha.value, humans.value)
            && a < h
        {
            alpha = alpha.with_note(
                "the judge agrees with itself less than the annotators agree with each other",
            );
        }
        let mut flip = Cell::number(s.flip_rate.p, 3).keyed(key("flip_rate"));
        match s.flip_rate.ci {
            Some([lo, hi]) => {
                flip = flip.with_interval(lo, hi, settings.confidence).with_n(s.pairs)
            }
            None => flip = flip.with_note("no item has two parsed samples"),
        }
        self.table.rows.push(Row::new(
            row_label(run),
            vec![
                Cell::text(run.attribute.clone()),
                Cell::count(judge.max_samples()),
                Cell::count(s.n_items).keyed(key("items")),
                alpha,
                flip,
                alpha_cell(humans).keyed(key("alpha_annotators")),
            ],
        ));
    }

    pub(super) fn finish(mut self, settings: &Settings) -> Report {
        self.table.notes = vec![format!(
            "A judge's samples of an item (or its repeated runs) are raters of it: α at the interval level for scores, nominal for labels; the flip rate counts the pairs of samples of an item that differ, with a {:.0} % Wilson interval on the number of pairs.",
            settings.confidence * 100.0
        )];
        Report { tables: vec![self.table], figures: Vec::new() }
    }
}
