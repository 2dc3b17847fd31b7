//! The judge audit of the Results table (`study::workbench::audit`): judge against judge,
//! juries and corrected means on runs whose truth is known by construction — judge A is the
//! human score plus one, judge B the same with every fifth item moved by one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::bundle::Settings;
use concord_core::data::{self, Dataset};
use concord_core::judge::parse::Policy;
use concord_core::report::Table;
use concord_core::stats;
use concord_core::study::workbench::audit::{Audit, CORRECTED_TABLE, JUDGES_TABLE, JURIES_TABLE};
use concord_core::study::workbench::{self as wb, JudgedRun, ResultsTable};

const ITEMS: usize = 60;

fn human(i: usize) -> f64 {
    1.0 + ((i * 7 / 3) % 2) as f64
}

fn judge_b(i: usize) -> f64 {
    let a = human(i) + 1.0;
    if i % 5 == 0 { if a == 3.0 { 2.0 } else { 3.0 } } else { a }
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
                r#"{{"source": "dialogue {} \n", "system_id": "system {}", "system_output": "reply {i} .", "context": "fact .\n", "scores": {{"naturalness": {}, "coherence": 2.0, "engagingness": 2.0, "groundedness": 1.0, "understandability": 1.0, "overall": 3.0}}{responses}}}"#,
                i / 3,
                i % 3,
                human(i)
            )
        })
        .collect();
    format!("[{}]", rows.join(",\n"))
}

fn fixture() -> (Dataset, Vec<JudgedRun>) {
    let dataset = data::load("dataset.json", records(None).as_bytes()).unwrap().dataset;
    let run = |name: &str, judge: fn(usize) -> f64| JudgedRun {
        method: name.into(),
        attribute: "naturalness".into(),
        policy: Policy::Concord,
        run: data::load(&format!("{name}.json"), records(Some(judge)).as_bytes())
            .unwrap()
            .runs
            .remove(0),
        origin: format!("{name}.json"),
    };
    let runs = vec![run("A", |i| human(i) + 1.0), run("B", judge_b)];
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
    // "all systems" and the three systems, for each judge.
    assert_eq!(corrected.rows.len(), 8);
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
    let ppi = corrected.keyed(&key("ppi")).unwrap().interval.clone().unwrap();
    assert!(ppi.low <= truth && truth <= ppi.high, "{ppi:?} misses {truth}");
    let counts: Vec<&str> = corrected.rows[0].cells[2..4].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(counts, ["20", "40"]);
    assert!(corrected.notes.iter().any(|n| n.contains("kept the human labels of 20 items")));
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
