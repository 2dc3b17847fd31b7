//! The alternative annotator test's tables: the summary (one row per judge run, with the
//! judges of an attribute ranked by ρ) and one per-annotator table per run.

use super::common::{ALT_TEST_TABLE, Reads, annotator_table_id, row_label, yes_no};
use crate::data::Dataset;
use crate::report::{Cell, Column, Report, Row, Table};
use crate::stats::{self, AltTest};
use crate::study::validity::error::ValidityError;
use crate::study::validity::inputs::{Raters, judge_items, raters};
use crate::study::validity::settings::Settings;
use crate::study::workbench::JudgedRun;

/// Fewer instances per annotator or annotators than this make the alt-test meaningless.
pub const MEANINGFUL_INSTANCES: usize = 30;
pub const MEANINGFUL_ANNOTATORS: usize = 3;
/// The authors found 50 to 100 instances per annotator enough in most cases (AltTest README,
/// FAQ "How many instances should I annotate?").
pub const SUFFICIENT_INSTANCES: usize = 50;

/// The alt-test of one run against its attribute's raters.
pub fn run_alt_test(
    dataset: &Dataset,
    run: &JudgedRun,
    settings: &Settings,
) -> Result<AltTest, ValidityError> {
    let raters = raters(dataset, &run.attribute)?;
    let options = checked_options(&raters, settings)?;
    let judge = judge_items(dataset, run, options.scoring, settings.confidence_source)?;
    Ok(stats::alt_test(&raters.values, &judge.value, &options)?)
}

fn checked_options(
    raters: &Raters,
    settings: &Settings,
) -> Result<stats::AltTestOptions, ValidityError> {
    let options = settings.alt_test_options(raters.categorical);
    if raters.categorical && options.scoring == stats::Scoring::NegRmse {
        return Err(ValidityError::LabelsNeedAccuracy {
            scoring: options.scoring.name(),
            attribute: raters.attribute.clone(),
        });
    }
    Ok(options)
}

/// The alt-test part, filled a run at a time.
pub(super) struct AltPart {
    summary: Table,
    /// Per summary row: its attribute and ρ (the rank column is added at the end).
    rho: Vec<(String, Option<f64>, Option<String>)>,
    tables: Vec<Table>,
    meaningless: Vec<String>,
    /// Judges tested with fewer instances per annotator than the authors found enough.
    few: Vec<(String, usize)>,
    scorings: Vec<&'static str>,
}

impl AltPart {
    pub(super) fn new() -> AltPart {
        let mut summary = Table::new(
            ALT_TEST_TABLE,
            "Can the judge replace the annotators? (alternative annotator test)",
            "Judge",
        );
        summary.columns = vec![
            Column::text("Attribute"),
            Column::number("Instances").described(
                "instances rated by the judge and by at least the minimum number of annotators",
            ),
            Column::number("Annotators").described("annotators tested (m)"),
            Column::number("Skipped").described("annotators with too few instances, left out"),
            Column::number("ω")
                .described("winning rate: the share of annotators the judge beats"),
            Column::text("Passed").described("ω ≥ 0.5"),
            Column::number("ρ").described(
                "advantage probability: how often the judge is at least as good as the left-out annotator, averaged over annotators (ranks judges)",
            ),
            Column::number("Agreement").described(
                "the share of the items both rated where the judge gives the annotators' majority label (labels), or comes within the tolerance of their mean (scores)",
            ),
            Column::number("Rank by ρ")
                .described("among the judges of the same attribute, 1 = the highest ρ"),
        ];
        AltPart {
            summary,
            rho: Vec::new(),
            tables: Vec::new(),
            meaningless: Vec::new(),
            few: Vec::new(),
            scorings: Vec::new(),
        }
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
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let result = reads.raters(dataset, &run.attribute).and_then(|r| {
            let options = checked_options(&r, settings)?;
            let judge = reads.items(dataset, k, run, options.scoring, settings)?;
            let t = stats::alt_test(&r.values, &judge.value, &options)?;
            Ok((r, judge, t))
        });
        let (raters, judge, t) = match result {
            Ok(x) => x,
            Err(e) => {
                let why = e.to_string();
                let mut cells = vec![Cell::text(run.attribute.clone())];
                cells.extend((0..7).map(|_| Cell::blank(why.clone())));
                self.summary.rows.push(Row::new(label, cells));
                self.rho.push((run.attribute.clone(), None, Some(why)));
                return;
            }
        };
        if !self.scorings.contains(&t.options.scoring.name()) {
            self.scorings.push(t.options.scoring.name());
        }
        let m = t.annotators.len();
        let fewest = t.annotators.iter().map(|a| a.n).min().unwrap_or(0);
        let meaningless = m < MEANINGFUL_ANNOTATORS || fewest < MEANINGFUL_INSTANCES;
        let why = t.undefined.map(|u| u.to_string());
        let blank_or = |v: Option<f64>, what: &str| match (&why, v) {
            (_, Some(v)) => Cell::number(Some(v), 2).keyed(key(what)),
            (Some(w), None) => Cell::blank(w.clone()).keyed(key(what)),
            (None, None) => Cell::number(None, 2).keyed(key(what)),
        };
        let mut omega = blank_or(t.winning_rate, "winning_rate");
        if meaningless && m > 0 {
            omega = omega.with_note(format!(
                "fewer than {MEANINGFUL_ANNOTATORS} annotators or {MEANINGFUL_INSTANCES} instances per annotator: the test is not meaningful"
            ));
            self.meaningless.push(label.clone());
        } else if m > 0 && fewest < SUFFICIENT_INSTANCES {
            self.few.push((label.clone(), fewest));
        }
        let passed = match (t.passed, &why) {
            (Some(p), _) => yes_no(p).keyed(key("passed")),
            (None, Some(w)) => Cell::blank(w.clone()).keyed(key("passed")),
            (None, None) => Cell::blank("undefined").keyed(key("passed")),
        };
        self.summary.rows.push(Row::new(
            label.clone(),
            vec![
                Cell::text(run.attribute.clone()),
                Cell::count(t.kept_instances).keyed(key("instances")),
                Cell::count(m).keyed(key("annotators")),
                Cell::count(t.skipped.len()).keyed(key("skipped")),
                omega,
                passed,
                blank_or(t.advantage_prob, "advantage_prob"),
                agreement_cell(&judge, &raters, settings).keyed(key("agreement")),
            ],
        ));
        self.rho.push((run.attribute.clone(), t.advantage_prob, why));
        self.tables.push(annotator_table(k, run, &raters, &t, settings));
    }

    pub(super) fn finish(mut self, settings: &Settings) -> Report {
        // Rank by ρ among the judges of each attribute (ties share the better rank).
        for (row, (attribute, rho, why)) in self.summary.rows.iter_mut().zip(&self.rho) {
            let key = format!("{}/{attribute}/rank", row.label);
            let cell = match rho {
                Some(r) => {
                    let better = self
                        .rho
                        .iter()
                        .filter(|(a, x, _)| a == attribute && x.is_some_and(|x| x > *r))
                        .count();
                    Cell::count(better + 1).keyed(key)
                }
                None => Cell::blank(why.clone().unwrap_or_else(|| "no ρ".to_owned())).keyed(key),
            };
            row.cells.push(cell);
        }
        self.summary.notes = notes(settings, &self.scorings, &self.meaningless, &self.few);
        let mut out = Report { tables: vec![self.summary], figures: Vec::new() };
        out.tables.extend(self.tables);
        out
    }
}

/// The share of the items both rated where the judge's most frequent rating agrees with the
/// annotators' aggregate (their majority label; within the tolerance of their mean score).
fn agreement_cell(
    judge: &crate::study::validity::inputs::JudgeItems,
    raters: &Raters,
    settings: &Settings,
) -> Cell {
    let tolerance = settings.tolerance_for(raters.categorical);
    let both: Vec<bool> = judge
        .verdict
        .iter()
        .zip(&raters.aggregate)
        .filter_map(|(j, h)| Some((j.as_ref()? - h.as_ref()?).abs() <= tolerance))
        .collect();
    if both.is_empty() {
        return Cell::blank("no item rated by both the judge and an annotator");
    }
    let share = both.iter().filter(|a| **a).count() as f64 / both.len() as f64;
    Cell::number(Some(share), 3).with_n(both.len())
}

fn notes(
    settings: &Settings,
    scorings: &[&str],
    meaningless: &[String],
    few: &[(String, usize)],
) -> Vec<String> {
    let scoring = if scorings.is_empty() {
        "accuracy for labels, negative RMSE for scores".to_owned()
    } else {
        scorings.join(", ")
    };
    let mut notes = vec![
        format!(
            "ε = {}, q = {} (Benjamini–Yekutieli over the annotators), scoring: {scoring}. An instance counts when the judge and at least {} annotators rated it; an annotator is tested with at least {} such instances (others are skipped).",
            settings.epsilon_text(),
            settings.q,
            settings.min_humans,
            settings.min_instances
        ),
        "Each annotator is left out in turn: the judge wins on an instance when it scores at least as well against the other annotators as the left-out one does (ties count for both); the judge beats the annotator when a one-sided t-test rejects that the annotator's advantage is ε or more. The judge passes when it beats at least half of the annotators (ω ≥ 0.5).".to_owned(),
        "The paper's ε: 0.2 when the annotators are experts, 0.15 skilled, 0.1 crowd workers (Calderon, Reichart & Dror, ACL 2025). ρ ranks the judges of an attribute: choose by ρ, then report the chosen judge's ω.".to_owned(),
    ];
    if !meaningless.is_empty() {
        notes.push(format!(
            "With fewer than {MEANINGFUL_ANNOTATORS} annotators or fewer than {MEANINGFUL_INSTANCES} instances per annotator the test is not meaningful: {}. The t-test needs at least {MEANINGFUL_INSTANCES} instances per annotator; with fewer the authors advise annotating more (or a Wilcoxon signed-rank test instead).",
            meaningless.join(", ")
        ));
    }
    if !few.is_empty() {
        let list: Vec<String> =
            few.iter().map(|(l, n)| format!("{l} ({n} per annotator at least)")).collect();
        notes.push(format!(
            "The authors found {SUFFICIENT_INSTANCES} to 100 instances per annotator enough in most cases; with fewer the t-test has less power, so a judge may fail for want of instances rather than of quality: {}.",
            list.join(", ")
        ));
    }
    notes
}

fn annotator_table(
    k: usize,
    run: &JudgedRun,
    raters: &Raters,
    t: &AltTest,
    settings: &Settings,
) -> Table {
    let mut table = Table::new(
        annotator_table_id(k, &run.method),
        format!(
            "{} on {}: each annotator left out (ε = {})",
            run.method,
            run.attribute,
            settings.epsilon_text()
        ),
        "Annotator",
    );
    table.columns = vec![
        Column::number("n").described("instances of this annotator that were kept"),
        Column::number("ρ_j")
            .described("how often the judge is at least as good as this annotator"),
        Column::number("mean d")
            .described("mean of d = H − W: the annotator's advantage over the judge"),
        Column::number("p").described("one-sided t-test of mean d ≥ ε"),
        Column::text("Judge wins").described("rejected by Benjamini–Yekutieli at q"),
    ];
    let key = |who: &str, what: &str| format!("{}/{who}/{what}", run.method);
    for a in &t.annotators {
        let who = &raters.names[a.index];
        let p = match a.p_undefined {
            Some(u) => Cell::blank(u.to_string()),
            None => Cell::p_value(a.p_value),
        };
        table.rows.push(Row::new(
            who.clone(),
            vec![
                Cell::count(a.n).keyed(key(who, "n")),
                Cell::number(Some(a.advantage_prob), 3).keyed(key(who, "advantage_prob")),
                Cell::number(Some(a.mean_diff), 3).keyed(key(who, "mean_diff")),
                p.keyed(key(who, "p")),
                yes_no(a.rejected).keyed(key(who, "rejected")),
            ],
        ));
    }
    for s in &t.skipped {
        let who = &raters.names[s.index];
        let why =
            format!("skipped: {} kept instance(s), fewer than {}", s.n, t.options.min_instances);
        table.rows.push(Row::new(
            who.clone(),
            vec![
                Cell::count(s.n).keyed(key(who, "n")),
                Cell::blank(why.clone()),
                Cell::blank(why.clone()),
                Cell::blank(why.clone()),
                Cell::text("skipped").with_note(why),
            ],
        ));
    }
    table.notes.push(format!(
        "{} of {} annotators beaten at q = {}; {} instance(s) kept, {} dropped (fewer than {} annotators, or no judge value).",
        t.annotators.iter().filter(|a| a.rejected).count(),
        t.annotators.len(),
        t.options.q,
        t.kept_instances,
        t.dropped_instances,
        t.options.min_humans
    ));
    table
}
