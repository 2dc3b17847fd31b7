//! The judge audit of the Results table (`study::workbench::audit`): judge against judge,
//! juries and corrected means on runs whose truth is known by construction — judge A is the
//! human score plus one, judge B the same with every fifth item moved by one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::bundle::Settings;
use concord_core::data::{self, Dataset};
use concord_core::judge::parse::Policy;
use concord_core::report::Table;
use concord_core::stats;
use concord_core::study::workbench::audit::{
    Audit, CORRECTED_TABLE, JUDGES_TABLE, JURIES_TABLE, LENGTH_TABLE, PANEL_TABLE, SELF_TABLE,
    STRATIFIED_ROW, VARIANTS_TABLE,
};
use concord_core::study::workbench::{self as wb, JudgedRun, ResultsTable};

const ITEMS: usize = 60;

fn human(i: usize) -> f64 {
    1.0 + ((i * 7 / 3) % 2) as f64
}

/// The output's length in words is 2 + this.
fn words(i: usize) -> usize {
    i % 7
}

/// A judge that adds a point to the outputs longer than 5 words.
fn judge_long(i: usize) -> f64 {
    human(i) + if words(i) > 3 { 1.0 } else { 0.0 }
}

/// A judge that adds a point to the outputs of system 0.
fn judge_own(i: usize) -> f64 {
    human(i) + if i.is_multiple_of(3) { 1.0 } else { 0.0 }
}

fn judge_b(i: usize) -> f64 {
    let a = human(i) + 1.0;
    if i.is_multiple_of(5) { if a == 3.0 { 2.0 } else { 3.0 } } else { a }
}

/// Topical-Chat-shaped records: 20 dialogues × 3 systems, naturalness rated by humans and,
/// when `judge` is given, a response per item carrying the judge's rating.
fn records(judge: Option<fn(usize) -> f64>) -> String {
    let rows: Vec<String> = (0..ITEMS)
        .map(|i| {
            let responses = judge
                .map(|j| format!(r#", "all_responses": ["Rating: {}"]"#, j(i)))
                .unwrap_or_default();
            format!(
                r#"{{"source": "dialogue {} \n", "system_id": "system {}", "system_output": "reply{} .", "context": "fact .\n", "scores": {{"naturalness": {}, "coherence": 2.0, "engagingness": 2.0, "groundedness": 1.0, "understandability": 1.0, "overall": 3.0}}{responses}}}"#,
                i / 3,
                i % 3,
                " word".repeat(words(i)),
                human(i)
            )
        })
        .collect();
    format!("[{}]", rows.join(",\n"))
}

fn fixture() -> (Dataset, Vec<JudgedRun>) {
    fixture_with(&[("A", |i| human(i) + 1.0), ("B", judge_b)])
}

/// A judge: its name and its rating of item i.
type Judge<'a> = (&'a str, fn(usize) -> f64);

fn fixture_with(judges: &[Judge<'_>]) -> (Dataset, Vec<JudgedRun>) {
    let dataset = data::load("dataset.json", records(None).as_bytes()).unwrap().dataset;
    let run = |name: &str, judge: fn(usize) -> f64| JudgedRun {
        method: name.into(),
        attribute: "naturalness".into(),
        policy: Policy::Concord,
        weighting: None,
        run: data::load(&format!("{name}.json"), records(Some(judge)).as_bytes())
            .unwrap()
            .runs
            .remove(0),
        origin: format!("{name}.json"),
    };
    let runs = judges.iter().map(|(name, judge)| run(name, *judge)).collect();
    (dataset, runs)
}

fn settings(labelled: Option<usize>) -> Settings {
    Settings { resamples: 200, seed: 3, audit_labelled: labelled, ..Settings::default() }
}

fn audit(d: &Dataset, t: &ResultsTable, s: &Settings) -> concord_core::report::Report {
    Audit::new(d, t, s).finish().report()
}

fn value(t: &Table, key: &str) -> f64 {
    t.keyed(key)
        .unwrap_or_else(|| panic!("no cell {key}"))
        .value
        .unwrap_or_else(|| panic!("{key} is blank"))
}

#[test]
fn judges_are_compared_with_each_other_with_a_bootstrap_interval() {
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let judges = report.table(JUDGES_TABLE).unwrap();
    assert_eq!(judges.rows.len(), 1);
    assert_eq!(judges.rows[0].label, "A vs B");
    let a = &t.cell(0, 0).unwrap().scores.scores;
    let b = &t.cell(1, 0).unwrap().scores.scores;
    let h = d.human_scores(d.attribute_index("naturalness").unwrap());
    let expected = stats::judge_pair_agreement(&h, a, b, None);
    let alpha = judges.keyed("naturalness/A/B/alpha_interval").unwrap();
    assert_eq!(alpha.value, expected.alpha_interval.value);
    let interval = alpha.interval.as_ref().expect("a bootstrap interval");
    assert!(interval.low <= alpha.value.unwrap() && alpha.value.unwrap() <= interval.high);
    assert!(interval.high - interval.low > 0.0, "{interval:?}");
    // Judge A's errors are all 0 and so constant: the correlation of errors is undefined, and
    // the cell says why.
    let errors = judges.keyed("naturalness/A/B/residual_r").unwrap();
    assert_eq!(errors.value, None);
    assert!(errors.note.is_some());
    // Ratings are whole numbers here, so κ is defined.
    assert_eq!(value(judges, "naturalness/A/B/cohen_kappa"), expected.cohen_kappa.value.unwrap());
    let kappa = judges.keyed("naturalness/A/B/cohen_kappa").unwrap();
    let k = kappa.interval.expect("κ has a bootstrap interval too");
    assert!(k.low <= kappa.value.unwrap() && kappa.value.unwrap() <= k.high, "{k:?}");
    // Seeded: the same settings give the same bytes, another seed another interval.
    let again = audit(&d, &t, &settings(None));
    assert_eq!(
        report.to_text(concord_core::report::Format::Csv),
        again.to_text(concord_core::report::Format::Csv)
    );
    let other = audit(&d, &t, &Settings { seed: 4, ..settings(None) });
    assert_ne!(
        other
            .table(JUDGES_TABLE)
            .unwrap()
            .keyed("naturalness/A/B/alpha_interval")
            .unwrap()
            .interval,
        alpha.interval
    );
}

#[test]
fn a_jury_is_tested_against_each_member() {
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let juries = report.table(JURIES_TABLE).unwrap();
    // Mean and median juries, each against A and B.
    assert_eq!(juries.rows.len(), 4);
    let h = d.human_scores(d.attribute_index("naturalness").unwrap());
    let a = &t.cell(0, 0).unwrap().scores.scores;
    let b = &t.cell(1, 0).unwrap().scores.scores;
    let mean: Vec<Option<f64>> =
        a.iter().zip(b).map(|(x, y)| Some((x.unwrap() + y.unwrap()) / 2.0)).collect();
    let r = stats::pearson(&h, &mean).value.unwrap();
    assert!((value(juries, "naturalness/mean/A/r_jury") - r).abs() < 1e-12);
    // A is the humans plus one: r = 1, and no jury beats it (Williams is undefined at r = 1).
    assert!((value(juries, "naturalness/mean/A/r_member") - 1.0).abs() < 1e-12);
    let w = stats::williams_vectors(&h, &mean, b);
    assert_eq!(juries.keyed("naturalness/mean/B/williams_p").unwrap().value, w.p_greater);
}

#[test]
fn a_biased_judge_is_corrected_by_a_few_human_labels() {
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(Some(20)));
    let corrected = report.table(CORRECTED_TABLE).unwrap();
    // "all systems", the three systems and the stratified mean over them, for each judge.
    assert_eq!(corrected.rows.len(), 10);
    let key = |what: &str| format!("naturalness/A/all systems/{what}");
    let all_humans = value(corrected, &key("all_humans"));
    let truth = (0..ITEMS).map(human).sum::<f64>() / ITEMS as f64;
    assert!((all_humans - truth).abs() < 1e-12);
    // The judge alone is one point too high.
    assert!((value(corrected, &key("judge_only")) - (truth + 1.0)).abs() < 1e-12);
    // PPI removes the bias exactly: with Ŷ = Y + 1 it is the human mean of the unlabelled items.
    let humans_only = value(corrected, &key("humans_only"));
    let unlabelled_truth = (ITEMS as f64 * truth - 20.0 * humans_only) / (ITEMS - 20) as f64;
    assert!((value(corrected, &key("ppi")) - unlabelled_truth).abs() < 1e-9);
    let ppi = corrected.keyed(&key("ppi")).unwrap().interval.unwrap();
    assert!(ppi.low <= truth && truth <= ppi.high, "{ppi:?} misses {truth}");
    let counts: Vec<&str> = corrected.rows[0].cells[2..4].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(counts, ["20", "40"]);
    assert!(corrected.notes.iter().any(|n| n.contains("kept the human labels of 20 items")));
    // The stratified PPI++ mean over the systems (§16.3) covers the truth too, from the same
    // labels.
    let stratified = corrected.rows.iter().find(|r| r.label == STRATIFIED_ROW).unwrap();
    let counts: Vec<&str> = stratified.cells[2..4].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(counts, ["20", "40"]);
    let s = corrected.keyed(&format!("naturalness/A/{STRATIFIED_ROW}/ppipp")).unwrap();
    let ci = s.interval.unwrap();
    assert!(ci.low <= truth && truth <= ci.high, "{ci:?} misses {truth}");
    assert!(corrected.notes.iter().any(|n| n.contains("stratified PPI++")));
}

#[test]
fn with_every_label_kept_there_is_nothing_to_correct() {
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let corrected = report.table(CORRECTED_TABLE).unwrap();
    let ppi = corrected.keyed("naturalness/A/all systems/ppi").unwrap();
    assert_eq!(ppi.value, None);
    assert!(ppi.note.is_some());
    assert!(
        corrected.notes.iter().any(|n| n.contains("nothing to correct")),
        "{:?}",
        corrected.notes
    );
    assert!(!corrected.columns.iter().any(|c| c.label == "All human labels"));
}

#[test]
fn one_judge_has_no_one_to_agree_with() {
    let (d, mut runs) = fixture();
    runs.truncate(1);
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    for id in [JUDGES_TABLE, JURIES_TABLE] {
        let table = report.table(id).unwrap();
        assert!(table.rows.is_empty());
        assert!(
            table.notes[0].contains("two judge runs on the same attribute"),
            "{:?}",
            table.notes
        );
    }
}

#[test]
fn the_length_probe_finds_a_judge_that_rewards_long_outputs() {
    let (d, runs) = fixture_with(&[("A", |i| human(i) + 1.0), ("long", judge_long)]);
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let length = report.table(LENGTH_TABLE).unwrap();
    assert_eq!(length.rows.len(), 2);
    // Judge A's errors are constant: no correlation, and the verdict says why.
    assert_eq!(length.keyed("naturalness/A/r").unwrap().value, None);
    let long = &length.rows[1];
    assert_eq!(long.label, "long");
    let errors: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(judge_long(i) - human(i))).collect();
    let lengths: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(words(i) as f64 + 2.0)).collect();
    let r = stats::pearson(&errors, &lengths).value.unwrap();
    assert!((value(length, "naturalness/long/r") - r).abs() < 1e-12);
    assert!((value(length, "naturalness/long/longer") - 1.0).abs() < 1e-12);
    assert!(value(length, "naturalness/long/shorter").abs() < 1e-12);
    assert!(
        long.cells[6].text.starts_with("longer outputs get higher scores"),
        "{}",
        long.cells[6].text
    );
}

#[test]
fn the_self_preference_probe_needs_the_own_systems_and_then_finds_the_gain() {
    let (d, runs) = fixture_with(&[("own", judge_own), ("B", judge_b)]);
    let t = wb::compute(&d, &runs, None);
    let unsaid = audit(&d, &t, &settings(None));
    let table = unsaid.table(SELF_TABLE).unwrap();
    assert!(table.rows.is_empty());
    assert!(table.notes[0].contains("Say which systems"));
    let s = Settings { audit_own_systems: vec!["system 0".into()], ..settings(None) };
    let report = audit(&d, &t, &s);
    let table = report.table(SELF_TABLE).unwrap();
    assert_eq!(table.rows.len(), 2);
    let diff = table.keyed("naturalness/own/difference").unwrap();
    assert!((diff.value.unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(table.rows[0].cells[1].text, "20");
    assert_eq!(table.rows[0].cells[2].text, "40");
    assert!(
        table.rows[0].cells[6].text.contains("gain 1.00 points"),
        "{}",
        table.rows[0].cells[6].text
    );
    // Judge B has no such bias: its interval holds 0.
    let b = table.keyed("naturalness/B/difference").unwrap().interval.unwrap();
    assert!(b.low <= 0.0 && 0.0 <= b.high, "{b:?}");
}

#[test]
fn juries_are_rows_of_the_results_table_when_asked_for() {
    let (d, runs) = fixture();
    let scored = wb::score(&d, &runs);
    let plain = wb::tabulate(&d, &scored, Some("B"));
    assert_eq!(plain.methods, ["A", "B"]);
    let t = wb::tabulate(&d, &wb::with_juries(&scored), Some("B"));
    assert_eq!(t.methods, ["A", "B", wb::JURY_MEAN, wb::JURY_MEDIAN]);
    let h = d.human_scores(d.attribute_index("naturalness").unwrap());
    let mean: Vec<Option<f64>> =
        (0..ITEMS).map(|i| Some((human(i) + 1.0 + judge_b(i)) / 2.0)).collect();
    let jury = t.cell(2, 0).unwrap();
    assert!(
        (jury.row.pearson.dataset.unwrap() - stats::pearson(&h, &mean).value.unwrap()).abs()
            < 1e-12
    );
    // Williams' test against the baseline, as for any method.
    let w = stats::williams_vectors(&h, &mean, &t.cell(1, 0).unwrap().scores.scores);
    assert_eq!(jury.row.williams.p, w.p_greater);
    // A jury's calls are its members': its tokens are theirs together.
    let cost = wb::results::cost_quality(
        &t,
        &runs,
        wb::Statistic::Pearson,
        wb::Granularity::Dataset,
        1,
        None,
    );
    assert_eq!(cost[2].output_tokens, cost[0].output_tokens + cost[1].output_tokens);
    assert!(cost[2].output_tokens > 0);
    // The audit does not count the juries among the judges.
    let report = audit(&d, &t, &settings(None));
    assert_eq!(report.table(JUDGES_TABLE).unwrap().rows.len(), 1);
    // One method alone makes no jury.
    let (d1, mut one) = fixture();
    one.truncate(1);
    assert_eq!(wb::with_juries(&wb::score(&d1, &one)).methods, ["A"]);
}

#[test]
fn the_counterfactual_length_probe_measures_the_shift_of_each_variant() {
    let (d, runs) =
        fixture_with(&[("A", human), ("A [padded]", |i| human(i) + 1.0), ("A [truncated]", human)]);
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let table = report.table(VARIANTS_TABLE).unwrap();
    assert_eq!(table.rows.len(), 2);
    let padded = table.keyed("naturalness/A/padded/shift").unwrap();
    assert_eq!(padded.value, Some(1.0));
    assert_eq!(padded.n, Some(ITEMS));
    assert_eq!(table.rows[0].cells[5].text, "padded variants gain +1.00 [1.00, 1.00] points");
    assert_eq!(table.rows[0].cells[3].text, ITEMS.to_string(), "one sample per item");
    assert_eq!(table.keyed("naturalness/A/truncated/shift").unwrap().value, Some(0.0));
    assert!(table.rows[1].cells[5].text.starts_with("no detectable length bias"));
    // Probe runs are not judges of the dataset: no pair, no jury, no corrected mean of theirs.
    assert!(report.table(JUDGES_TABLE).unwrap().rows.is_empty());
    assert_eq!(wb::with_juries(&wb::score(&d, &runs)).methods.len(), 3);
    // Without a probe run the table says how to make one.
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    let none = audit(&d, &t, &settings(None));
    assert!(none.table(VARIANTS_TABLE).unwrap().notes[0].starts_with("Run the length probe"));
}

#[test]
fn three_judges_are_a_panel_with_alpha_and_fleiss_kappa() {
    let (d, runs) = fixture_with(&[("A", |i| human(i) + 1.0), ("B", judge_b), ("C", human)]);
    let t = wb::compute(&d, &runs, None);
    let report = audit(&d, &t, &settings(None));
    let panel = report.table(PANEL_TABLE).unwrap();
    assert_eq!(panel.rows.len(), 1);
    let ratings: Vec<Vec<Option<f64>>> =
        (0..3).map(|m| t.cell(m, 0).unwrap().scores.scores.clone()).collect();
    let alpha = stats::krippendorff_alpha(&ratings, stats::KrippendorffLevel::Interval);
    assert_eq!(panel.keyed("naturalness/alpha_interval").unwrap().value, alpha.value);
    let fleiss = stats::fleiss_kappa(&ratings);
    assert_eq!(panel.keyed("naturalness/fleiss_kappa").unwrap().value, fleiss.kappa);
    assert!(fleiss.kappa.is_some());
    // Two judges are a pair, not a panel.
    let (d, runs) = fixture();
    let t = wb::compute(&d, &runs, None);
    assert!(audit(&d, &t, &settings(None)).table(PANEL_TABLE).unwrap().rows.is_empty());
}

#[test]
fn an_ensemble_is_a_row_and_is_tested_against_its_members() {
    let (d, runs) = fixture_with(&[("A", |i| human(i) + 1.0), ("B", judge_b), ("C", judge_long)]);
    let scored = wb::score(&d, &runs);
    let s = Settings { ensembles: vec![vec!["A".into(), "C".into()]], ..settings(None) };
    let t = wb::tabulate(&d, &wb::combined(&scored, &s), Some("B"));
    let name = wb::ensemble_name(&["A", "C"]);
    assert_eq!(name, "ensemble: A + C");
    assert_eq!(t.methods, ["A", "B", "C", name.as_str()]);
    let h = d.human_scores(d.attribute_index("naturalness").unwrap());
    let mean: Vec<Option<f64>> =
        (0..ITEMS).map(|i| Some((human(i) + 1.0 + judge_long(i)) / 2.0)).collect();
    let row = &t.cell(3, 0).unwrap().row;
    assert!(
        (row.pearson.dataset.unwrap() - stats::pearson(&h, &mean).value.unwrap()).abs() < 1e-12
    );
    // Williams' test against the baseline like any row, and in the audit against each member.
    let w = stats::williams_vectors(&h, &mean, &t.cell(1, 0).unwrap().scores.scores);
    assert_eq!(row.williams.p, w.p_greater);
    let report = audit(&d, &t, &s);
    let juries = report.table(JURIES_TABLE).unwrap();
    let c = &t.cell(2, 0).unwrap().scores.scores;
    let against_c = stats::williams_vectors(&h, &mean, c);
    assert_eq!(
        juries.keyed(&format!("naturalness/{name}/C/williams_p")).unwrap().value,
        against_c.p_greater
    );
    assert!(
        juries.keyed(&format!("naturalness/{name}/B/williams_p")).is_none(),
        "B is not a member"
    );
    // The ensemble is no judge of its own, and with the juries on it is not their member.
    assert_eq!(report.table(JUDGES_TABLE).unwrap().rows.len(), 3);
    let both = Settings { juries: true, ..s.clone() };
    let t2 = wb::tabulate(&d, &wb::combined(&scored, &both), None);
    assert_eq!(t2.methods.len(), 6);
    let jury = t2.methods.iter().position(|m| m == wb::JURY_MEAN).unwrap();
    let all3: Vec<Option<f64>> =
        (0..ITEMS).map(|i| Some((human(i) + 1.0 + judge_b(i) + judge_long(i)) / 3.0)).collect();
    let r = t2.cell(jury, 0).unwrap().row.pearson.dataset.unwrap();
    assert!((r - stats::pearson(&h, &all3).value.unwrap()).abs() < 1e-12);
    // An ensemble naming a method the table lacks is left out; the bundle keeps the setting.
    let missing = Settings { ensembles: vec![vec!["A".into(), "Z".into()]], ..settings(None) };
    assert_eq!(wb::combined(&scored, &missing).methods, ["A", "B", "C"]);
    let json = serde_json::to_string(&s).unwrap();
    assert!(json.contains("\"ensembles\":[[\"A\",\"C\"]]"), "{json}");
}
