//! The validity panel's tables and figures: what the app's Results panel "Can the judge replace
//! the annotators?" shows and `concord alt-test` / `concord trust` / `concord report --screen
//! validity` print, through the one report model and its exporters.
//!
//! | id | what |
//! |---|---|
//! | [`ALT_TEST_TABLE`] | per judge run: instances kept, annotators tested and skipped, ω, passed, ρ |
//! | [`annotator_table_id`] | per judge run, per annotator: n, ρ_j, mean d, p, rejected |
//! | [`TRUST_TABLE`] | per judge run: the confidence source, α, δ, threshold, coverage and agreement on the calibration half and on the held-out half |
//! | [`curve_figure_id`] | per judge run: coverage against agreement at every candidate threshold |
//! | [`CASCADE_TABLE`] | per attribute: each judge in order of cost, and the items decided without a person |
//! | [`PLANNER_TABLE`] | per judge run: the strata, the labels needed with and without the judge, the saving |
//! | [`STABILITY_TABLE`] | per judge run: α among its samples, the flip rate, the annotators' α beside |
//!
//! Juries and the length probe's variants are not judges of the dataset's outputs and are left
//! out. A run that cannot be measured gets a row of dashes saying why.

use std::collections::HashMap;

use super::inputs::{JudgeItems, Raters, judge_items, raters};
use super::{Settings, StrataBy, ValidityError};
use crate::data::{Dataset, ScaleKind};
use crate::report::figure::Scatter;
use crate::report::{Cell, Column, Figure, Report, Row, Table};
use crate::stats::{
    self, AltTest, CascadeJudge, KrippendorffLevel, SelectiveTrust, StratumData,
    krippendorff_alpha, plan_labels, selective_trust, stratified_ppi,
};
use crate::study::workbench::JudgedRun;
use crate::study::workbench::revise::{Split, split};

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

/// Fewer instances per annotator or annotators than this make the alt-test meaningless.
pub const MEANINGFUL_INSTANCES: usize = 30;
pub const MEANINGFUL_ANNOTATORS: usize = 3;

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

/// The runs the panel measures: judge runs of the dataset's attributes, not juries nor probe
/// variants.
fn judges(runs: &[JudgedRun]) -> Vec<&JudgedRun> {
    runs.iter()
        .filter(|r| {
            !crate::study::workbench::results::is_jury(&r.method)
                && crate::study::workbench::probe::variant_of(&r.method).is_none()
        })
        .collect()
}

fn row_label(r: &JudgedRun) -> String {
    r.method.clone()
}

fn yes_no(b: bool) -> Cell {
    Cell::text(if b { "yes" } else { "no" })
}

/// The raters of each attribute, read once.
struct RaterCache<'d> {
    dataset: &'d Dataset,
    by_attribute: HashMap<String, Result<Raters, ValidityError>>,
}

impl<'d> RaterCache<'d> {
    fn new(dataset: &'d Dataset) -> Self {
        RaterCache { dataset, by_attribute: HashMap::new() }
    }

    fn get(&mut self, attribute: &str) -> Result<&Raters, ValidityError> {
        let dataset = self.dataset;
        self.by_attribute
            .entry(attribute.to_owned())
            .or_insert_with(|| raters(dataset, attribute))
            .as_ref()
            .map_err(Clone::clone)
    }
}

fn categorical(dataset: &Dataset, attribute: &str) -> bool {
    dataset
        .attribute_index(attribute)
        .is_some_and(|a| dataset.attributes[a].scale.kind == ScaleKind::Categorical)
}

/// The alt-test of one run against its attribute's raters.
pub fn run_alt_test(
    dataset: &Dataset,
    run: &JudgedRun,
    settings: &Settings,
) -> Result<AltTest, ValidityError> {
    let raters = raters(dataset, &run.attribute)?;
    alt_test_with(dataset, run, &raters, settings)
}

fn alt_test_with(
    dataset: &Dataset,
    run: &JudgedRun,
    raters: &Raters,
    settings: &Settings,
) -> Result<AltTest, ValidityError> {
    let options = settings.alt_test_options(raters.categorical);
    if raters.categorical && options.scoring == stats::Scoring::NegRmse {
        return Err(ValidityError::LabelsNeedAccuracy {
            scoring: options.scoring.name(),
            attribute: raters.attribute.clone(),
        });
    }
    let judge = judge_items(dataset, run, options.scoring, settings.confidence_source)?;
    Ok(stats::alt_test(&raters.values, &judge.value, &options)?)
}

/// The alt-test of every judge run: the summary table, then one per-annotator table per run.
pub fn alt_test_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    let mut cache = RaterCache::new(dataset);
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
        Column::number("ω").described("winning rate: the share of annotators the judge beats"),
        Column::text("Passed").described("ω ≥ 0.5"),
        Column::number("ρ").described(
            "advantage probability: how often the judge is at least as good as the left-out annotator, averaged over annotators (ranks judges)",
        ),
    ];
    let mut tables = Vec::new();
    let mut meaningless = Vec::new();
    let mut scorings: Vec<&'static str> = Vec::new();
    for (k, run) in judges(runs).into_iter().enumerate() {
        let label = row_label(run);
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let result = cache.get(&run.attribute).cloned().and_then(|r| {
            let t = alt_test_with(dataset, run, &r, settings)?;
            Ok((r, t))
        });
        let (raters, t) = match result {
            Ok(x) => x,
            Err(e) => {
                let why = e.to_string();
                let mut cells = vec![Cell::text(run.attribute.clone())];
                cells.extend((0..6).map(|_| Cell::blank(why.clone())));
                summary.rows.push(Row::new(label, cells));
                continue;
            }
        };
        if !scorings.contains(&t.options.scoring.name()) {
            scorings.push(t.options.scoring.name());
        }
        let m = t.annotators.len();
        let few =
            m < MEANINGFUL_ANNOTATORS || t.annotators.iter().any(|a| a.n < MEANINGFUL_INSTANCES);
        let why = t.undefined.map(|u| u.to_string());
        let blank_or = |v: Option<f64>, what: &str| match (&why, v) {
            (_, Some(v)) => Cell::number(Some(v), 2).keyed(key(what)),
            (Some(w), None) => Cell::blank(w.clone()).keyed(key(what)),
            (None, None) => Cell::number(None, 2).keyed(key(what)),
        };
        let mut omega = blank_or(t.winning_rate, "winning_rate");
        if few && m > 0 {
            omega = omega.with_note(format!(
                "fewer than {MEANINGFUL_ANNOTATORS} annotators or {MEANINGFUL_INSTANCES} instances per annotator: the test is not meaningful"
            ));
            meaningless.push(label.clone());
        }
        let passed = match (t.passed, &why) {
            (Some(p), _) => yes_no(p).keyed(key("passed")),
            (None, Some(w)) => Cell::blank(w.clone()).keyed(key("passed")),
            (None, None) => Cell::blank("undefined").keyed(key("passed")),
        };
        summary.rows.push(Row::new(
            label.clone(),
            vec![
                Cell::text(run.attribute.clone()),
                Cell::count(t.kept_instances).keyed(key("instances")),
                Cell::count(m).keyed(key("annotators")),
                Cell::count(t.skipped.len()).keyed(key("skipped")),
                omega,
                passed,
                blank_or(t.advantage_prob, "advantage_prob"),
            ],
        ));
        tables.push(annotator_table(k, run, &raters, &t, settings));
    }
    summary.notes = alt_test_notes(settings, &scorings, &meaningless);
    let mut out = Report { tables: vec![summary], figures: Vec::new() };
    out.tables.extend(tables);
    out
}

fn alt_test_notes(settings: &Settings, scorings: &[&str], meaningless: &[String]) -> Vec<String> {
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
        "The paper's ε: 0.2 when the annotators are experts, 0.15 skilled, 0.1 crowd workers (Calderon, Reichart & Dror, ACL 2025).".to_owned(),
    ];
    if !meaningless.is_empty() {
        notes.push(format!(
            "With fewer than {MEANINGFUL_ANNOTATORS} annotators or fewer than {MEANINGFUL_INSTANCES} instances per annotator the test is not meaningful: {}.",
            meaningless.join(", ")
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

// ---------------------------------------------------------------------------------------
// Selective trust and the cascade

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

/// One run calibrated: what the trust table and its curve show.
struct Calibrated {
    judge: JudgeItems,
    agree: Vec<Option<bool>>,
    halves: Option<(Vec<bool>, Vec<bool>, &'static str)>,
    trust: Result<SelectiveTrust, ValidityError>,
}

fn calibrate(
    dataset: &Dataset,
    run: &JudgedRun,
    raters: &Raters,
    settings: &Settings,
    given: Option<&Split>,
) -> Result<Calibrated, ValidityError> {
    let judge = judge_items(
        dataset,
        run,
        settings.scoring_for(raters.categorical),
        settings.confidence_source,
    )?;
    let agree = agreement(&judge, raters, settings.tolerance_for(raters.categorical));
    let halves = halves(dataset, &run.attribute, settings, given);
    let all = vec![true; dataset.items.len()];
    let cal = halves.as_ref().map_or(&all, |h| &h.0);
    let trust = selective_trust(
        &masked(&judge.confidence, cal),
        &masked(&agree, cal),
        settings.alpha,
        settings.delta,
    )
    .map_err(ValidityError::from);
    Ok(Calibrated { judge, agree, halves, trust })
}

/// Selective trust of every judge run: the table and one coverage–agreement figure per run.
/// `split` is the review's split, when one exists (else a seeded half is held out).
pub fn trust_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
) -> Report {
    let mut cache = RaterCache::new(dataset);
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
    let mut figures = Vec::new();
    let mut split_from: Vec<&str> = Vec::new();
    for (k, run) in judges(runs).into_iter().enumerate() {
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let calibrated = cache
            .get(&run.attribute)
            .cloned()
            .and_then(|r| calibrate(dataset, run, &r, settings, given));
        let blank_row = |why: String, source: Cell| {
            let mut cells = vec![Cell::text(run.attribute.clone()), source];
            cells.extend((0..9).map(|_| Cell::blank(why.clone())));
            Row::new(row_label(run), cells)
        };
        let c = match calibrated {
            Ok(c) => c,
            Err(e) => {
                table.rows.push(blank_row(e.to_string(), Cell::blank(e.to_string())));
                continue;
            }
        };
        let Some(source) = c.judge.source else {
            let why = "the run has neither two or more samples per item nor log-probabilities: it states no confidence".to_owned();
            table.rows.push(blank_row(why.clone(), Cell::blank(why)));
            continue;
        };
        let source_cell = Cell::text(source.describe());
        let t = match &c.trust {
            Ok(t) => t,
            Err(e) => {
                table.rows.push(blank_row(e.to_string(), source_cell));
                continue;
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
        match &c.halves {
            Some((_, held_out, from)) => {
                if !split_from.contains(from) {
                    split_from.push(from);
                }
                let o = t.evaluate(
                    &masked(&c.judge.confidence, held_out),
                    &masked(&c.agree, held_out),
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
        table.rows.push(Row::new(row_label(run), cells));
        if !t.steps.is_empty() {
            let points = t.steps.iter().map(|s| (s.coverage(t.n), s.agreement())).collect();
            let labels = t
                .steps
                .iter()
                .map(|s| format!("≥ {}", crate::report::format_value(Some(s.lambda), 2)))
                .collect();
            figures.push(Figure::new(
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
    table.notes = vec![
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
            if split_from.is_empty() { "no split".to_owned() } else { split_from.join(", ") },
            settings.confidence * 100.0
        ),
    ];
    Report { tables: vec![table], figures }
}

fn tolerance_text(settings: &Settings) -> String {
    format!("{} (labels: equal)", settings.tolerance_for(false))
}

/// The cascade of each attribute's judges that state a confidence, in the order of
/// `settings.cascade` (the runs' order when empty): per judge the items it decides on the
/// calibration half and on the held-out half, and the items decided without a person.
pub fn cascade_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
) -> Report {
    let mut cache = RaterCache::new(dataset);
    let mut table =
        Table::new(CASCADE_TABLE, "A cascade of judges: who decides which items", "Judge");
    table.columns = vec![
        Column::text("Attribute"),
        Column::number("Threshold"),
        Column::number("Decided").in_group("calibration"),
        Column::number("Agreement").in_group("calibration"),
        Column::number("Decided").in_group("held out"),
        Column::number("Agreement").in_group("held out"),
    ];
    let mut ordered: Vec<&JudgedRun> = judges(runs);
    if !settings.cascade.is_empty() {
        ordered.sort_by_key(|r| {
            settings.cascade.iter().position(|m| *m == r.method).unwrap_or(usize::MAX)
        });
    }
    let mut attributes: Vec<&str> = Vec::new();
    for r in &ordered {
        if !attributes.contains(&r.attribute.as_str()) {
            attributes.push(&r.attribute);
        }
    }
    for attribute in attributes {
        let Ok(raters) = cache.get(attribute).cloned() else { continue };
        let mut members = Vec::new();
        let mut names = Vec::new();
        for r in ordered.iter().filter(|r| r.attribute == attribute) {
            let Ok(j) = judge_items(
                dataset,
                r,
                settings.scoring_for(raters.categorical),
                settings.confidence_source,
            ) else {
                continue;
            };
            if j.source.is_none() {
                continue;
            }
            let agree = agreement(&j, &raters, settings.tolerance_for(raters.categorical));
            names.push(r.method.clone());
            members.push(CascadeJudge { confidence: j.confidence, agree });
        }
        if members.is_empty() {
            continue;
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
            continue;
        };
        let held = halves.as_ref().map(|h| calibrated.evaluate(&restrict(&h.1)));
        let rate = |a: usize, n: usize| (n > 0).then(|| a as f64 / n as f64);
        for (k, stage) in calibrated.stages.iter().enumerate() {
            let key = |what: &str| format!("{}/{attribute}/{what}", names[k]);
            let threshold = match stage.calibration.threshold {
                Some(v) => Cell::number(Some(v), 3),
                None => Cell::blank(
                    stage.calibration.undefined.map_or("undefined".to_owned(), |u| u.to_string()),
                ),
            };
            let mut cells = vec![
                Cell::text(attribute),
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
            table.rows.push(Row::new(format!("{}. {}", k + 1, names[k]), cells));
        }
        let key = |what: &str| format!("without a person/{attribute}/{what}");
        let share = |c: &stats::Cascade| {
            Cell::number(c.coverage, 3)
                .with_note(format!("{} of {} items decided by a judge", c.decided, c.n))
        };
        let mut cells = vec![
            Cell::text(attribute),
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
        table.rows.push(Row::new("without a person (share of items)", cells));
    }
    table.notes = vec![format!(
        "Judges in order of cost; each is calibrated (α = {}, δ = {}) on the items the judges before it do not trust, and an item goes to the first judge that trusts it, else to a person. The last row gives the share of items no person needs to see and the judges' agreement with the humans on them.",
        settings.alpha, settings.delta
    )];
    Report { tables: vec![table], figures: Vec::new() }
}

// ---------------------------------------------------------------------------------------
// The label planner

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

/// The label planner of every judge run on a numeric (or two-label) attribute.
pub fn planner_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    let mut cache = RaterCache::new(dataset);
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
    let mut notes = Vec::new();
    for run in judges(runs) {
        let label = row_label(run);
        let raters = match cache.get(&run.attribute).cloned() {
            Ok(r) => r,
            Err(e) => {
                notes.push(format!("{label}: {e}"));
                continue;
            }
        };
        let two_labels = dataset
            .attribute_index(&run.attribute)
            .is_some_and(|a| dataset.attributes[a].categories.len() == 2);
        if raters.categorical && !two_labels {
            notes.push(format!(
                "{label}: {} has more than two labels, which have no mean to estimate",
                run.attribute
            ));
            continue;
        }
        let Ok(judge) =
            judge_items(dataset, run, stats::Scoring::NegRmse, settings.confidence_source)
        else {
            notes.push(format!("{label}: none of its records matches an item"));
            continue;
        };
        let (labelled, pilot_note) = pilot_mask(dataset, &raters, settings);
        if let Some(note) = pilot_note {
            notes.push(format!("{label}: {note}."));
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
        let Ok(estimate) = stratified_ppi(&data, settings.confidence) else { continue };
        let range = dataset
            .attribute_index(&run.attribute)
            .map(|a| dataset.attributes[a].scale)
            .map_or(1.0, |s| (s.max - s.min).max(f64::MIN_POSITIVE));
        let half_width = settings.half_width.unwrap_or(range / 10.0);
        let plan = plan_labels(&estimate, half_width);
        for (k, s) in estimate.strata.iter().enumerate() {
            let planned = plan.as_ref().ok().map(|p| p.strata[k].n);
            table.rows.push(Row::new(
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
                    notes.push(format!("{label}: {note}"));
                }
                (Cell::count(p.n), Cell::count(p.n_human), Cell::number(p.saving, 2))
            }
            Err(e) => {
                (Cell::blank(e.to_string()), Cell::blank(e.to_string()), Cell::blank(e.to_string()))
            }
        };
        table.rows.push(Row::new(
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
        notes.push(format!(
            "{label}: half-width {half_width} at {:.0} % confidence.",
            settings.confidence * 100.0
        ));
    }
    let mut head = vec![format!(
        "Strata by {}. Labels needed for an interval of the chosen half-width h: with the judge n = (z/h)²(Σ w σ)², allocated to the strata in proportion to w σ (Neyman); humans only n = (z/h)²(Σ w σ_H)²; the saving is their ratio (Fisch et al., NeurIPS 2024). σ and λ come from the pilot's labels{}; items without a label count as unlabelled.",
        match settings.strata {
            StrataBy::System => "system",
            StrataBy::Confidence => "the judge's confidence (terciles)",
        },
        settings.pilot.map(|k| format!(" ({k} items kept, seed {})", settings.seed)).unwrap_or_default()
    ), "A judge no more accurate than the systems it rates saves at most 2× (Dorner, Nastl & Hardt, ICLR 2025).".to_owned()];
    head.extend(notes);
    table.notes = head;
    Report { tables: vec![table], figures: Vec::new() }
}

fn interval_cell(value: Option<f64>, ci: Option<[f64; 2]>, confidence: f64) -> Cell {
    let cell = Cell::number(value, 3);
    match ci {
        Some([lo, hi]) => cell.with_interval(lo, hi, confidence),
        None => cell,
    }
}

// ---------------------------------------------------------------------------------------
// Stability

/// α among each run's samples and its flip rate, beside the annotators' α.
pub fn stability_report(dataset: &Dataset, runs: &[JudgedRun], settings: &Settings) -> Report {
    let mut cache = RaterCache::new(dataset);
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
        Column::number("Flip rate").described("share of pairs of samples of an item that differ"),
        Column::number("α annotators").described("Krippendorff's α among the annotators"),
    ];
    let mut human_alpha: HashMap<String, (stats::Estimate, KrippendorffLevel)> = HashMap::new();
    for run in judges(runs) {
        let key = |what: &str| format!("{}/{}/{what}", run.method, run.attribute);
        let cat = categorical(dataset, &run.attribute);
        let level = if cat { KrippendorffLevel::Nominal } else { KrippendorffLevel::Interval };
        let judge =
            match judge_items(dataset, run, stats::Scoring::NegRmse, settings.confidence_source) {
                Ok(j) => j,
                Err(e) => {
                    let mut cells = vec![Cell::text(run.attribute.clone())];
                    cells.extend((0..5).map(|_| Cell::blank(e.to_string())));
                    table.rows.push(Row::new(row_label(run), cells));
                    continue;
                }
            };
        let humans = human_alpha
            .entry(run.attribute.clone())
            .or_insert_with(|| match cache.get(&run.attribute) {
                Ok(r) => (krippendorff_alpha(&r.values, level), level),
                Err(_) => (
                    stats::Estimate {
                        value: None,
                        n: 0,
                        undefined: Some(stats::Undefined::NoPairableUnits),
                    },
                    level,
                ),
            })
            .0;
        let Ok(s) = stats::stability(&judge.sample_matrix(), level, settings.confidence) else {
            continue;
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
        table.rows.push(Row::new(
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
    table.notes = vec![format!(
        "A judge's samples of an item (or its repeated runs) are raters of it: α at the interval level for scores, nominal for labels; the flip rate counts the pairs of samples of an item that differ, with a {:.0} % Wilson interval on the number of pairs.",
        settings.confidence * 100.0
    )];
    Report { tables: vec![table], figures: Vec::new() }
}

/// The validity panel of a bundle, as the app shows it right after opening it: its runs, its
/// settings (the defaults when the panel was never used), its review's split, and the raters
/// added in Concord among the annotators ([`super::with_added_raters`]).
pub fn bundle_report(bundle: &crate::bundle::Bundle) -> Report {
    let settings = bundle.settings.validity.clone().unwrap_or_default();
    let split = bundle.review.as_ref().and_then(|r| r.split.as_ref());
    let dataset = super::with_added_raters(&bundle.dataset.embedded, &bundle.raters);
    validity_report(&dataset, &bundle.runs, &settings, split)
}

/// Every table and figure of the validity panel, in the order it shows them.
pub fn validity_report(
    dataset: &Dataset,
    runs: &[JudgedRun],
    settings: &Settings,
    given: Option<&Split>,
) -> Report {
    let mut out = alt_test_report(dataset, runs, settings);
    for part in [
        trust_report(dataset, runs, settings, given),
        cascade_report(dataset, runs, settings, given),
        planner_report(dataset, runs, settings),
        stability_report(dataset, runs, settings),
    ] {
        out.tables.extend(part.tables);
        out.figures.extend(part.figures);
    }
    out
}
