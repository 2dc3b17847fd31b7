//! Humans correct the judge (`study::workbench::review`): the review log with undo, reviewer
//! files and their merge with conflicts, the order of the walk, and the correction's
//! statistics — shares, mean absolute change, minutes, agreement before and after — on a
//! judge whose errors are known by construction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::bundle::{Bundle, Settings};
use concord_core::data::{self, Dataset};
use concord_core::judge::parse::Policy;
use concord_core::stats::{self, KrippendorffLevel};
use concord_core::study::workbench::report::bundle_report;
use concord_core::study::workbench::review::{
    self, Order, Resampling, ReviewError, ReviewEvent, ReviewLog, ReviewerFile, Verdict,
};
use concord_core::study::workbench::revise::ReviewSnapshot;
use concord_core::study::workbench::{self as wb, JudgedRun};

const ITEMS: usize = 12;

fn human(i: usize) -> f64 {
    1.0 + (i % 3) as f64
}

/// The judge's two samples of item i: right on items 4 and up, two points too high on the
/// first four (so those have the largest gaps); the second sample of every third item is one
/// point higher (so those have a spread).
fn samples(i: usize) -> [f64; 2] {
    let base = if i < 4 { human(i) + 2.0 } else { human(i) };
    [base, base + if i.is_multiple_of(3) { 1.0 } else { 0.0 }]
}

fn records(judge: bool) -> String {
    let rows: Vec<String> = (0..ITEMS)
        .map(|i| {
            let responses = if judge {
                let [a, b] = samples(i);
                format!(r#", "all_responses": ["Because. Rating: {a}", "Rating: {b}"]"#)
            } else {
                String::new()
            };
            format!(
                r#"{{"source": "dialogue {}", "system_id": "system {}", "system_output": "reply {i}", "context": "fact", "scores": {{"overall": 2.0, "coherence": 2.0, "engagingness": 2.0, "groundedness": 1.0, "understandability": 1.0, "overall": {}}}{responses}}}"#,
                i / 3,
                i % 3,
                human(i)
            )
        })
        .collect();
    format!("[{}]", rows.join(",\n"))
}

fn fixture() -> (Dataset, JudgedRun) {
    let dataset = data::load("dataset.json", records(false).as_bytes()).unwrap().dataset;
    let run = JudgedRun {
        method: "judge".into(),
        attribute: "overall".into(),
        policy: Policy::Concord,
        weighting: None,
        run: data::load("judge.json", records(true).as_bytes()).unwrap().runs.remove(0),
        origin: "judge.json".into(),
    };
    (dataset, run)
}

fn id(dataset: &Dataset, i: usize) -> String {
    dataset.items[i].id.clone()
}

const RUN: &str = "judge / overall";

fn change(item: &str, rating: f64) -> ReviewEvent {
    ReviewEvent::Change { run: RUN.into(), item: item.into(), rating }
}

fn accept(item: &str) -> ReviewEvent {
    ReviewEvent::Accept { run: RUN.into(), item: item.into() }
}

fn flag(item: &str, note: &str) -> ReviewEvent {
    ReviewEvent::Flag { run: RUN.into(), item: item.into(), note: note.into() }
}

fn timer(item: &str, ms: u64) -> ReviewEvent {
    ReviewEvent::Timer { run: RUN.into(), item: item.into(), ms }
}

const RESAMPLING: Resampling = Resampling { resamples: 500, seed: 7, confidence: 0.95 };

#[test]
fn undo_takes_back_the_last_decision_and_survives_a_reload() {
    let mut log = ReviewLog::new();
    log.push(accept("a")).unwrap();
    log.push(change("b", 2.0)).unwrap();
    log.push(timer("b", 4000)).unwrap();
    log.push(ReviewEvent::Undo).unwrap();
    let state = log.replay();
    // The change is undone; the time spent on it stays spent.
    assert_eq!(state.verdict(RUN, "b"), None);
    assert_eq!(state.verdict(RUN, "a"), Some(&Verdict::Accept));
    assert_eq!(state.ms_on(RUN, "b"), 4000);
    assert_eq!(log.last_decision(), Some(&accept("a")));
    // What the browser stores is the events; read back, they replay to the same state and the
    // next undo takes back the decision before.
    let json = serde_json::to_string(log.events()).unwrap();
    let mut reloaded = ReviewLog::from_events(serde_json::from_str(&json).unwrap()).unwrap();
    assert_eq!(reloaded.replay(), state);
    reloaded.push(ReviewEvent::Undo).unwrap();
    assert_eq!(reloaded.replay().verdict(RUN, "a"), None);
    assert_eq!(reloaded.push(ReviewEvent::Undo), Err(ReviewError::NothingToUndo));
}

#[test]
fn keys() {
    use review::Command;
    let cases: [(&str, bool, Option<Command>); 9] = [
        ("j", false, Some(Command::Next)),
        ("ArrowUp", false, Some(Command::Previous)),
        ("a", false, Some(Command::Accept)),
        ("4", false, Some(Command::Rate(4))),
        ("0", false, Some(Command::Rate(0))),
        ("f", false, Some(Command::Flag)),
        ("z", true, Some(Command::Undo)),
        ("a", true, None),
        ("F5", false, None),
    ];
    for (key, ctrl, want) in cases {
        assert_eq!(review::key_command(key, ctrl), want, "{key} ctrl={ctrl}");
    }
}

#[test]
fn a_review_is_scoped_to_its_dataset() {
    let (dataset, _) = fixture();
    let scope = review::dataset_scope(&dataset);
    assert_eq!(scope.len(), 16);
    assert_eq!(review::dataset_scope(&dataset.clone()), scope);
    let mut renamed = dataset.clone();
    renamed.name = "other.json".into();
    assert_ne!(review::dataset_scope(&renamed), scope);
    let mut fewer = dataset.clone();
    fewer.items.pop();
    assert_ne!(review::dataset_scope(&fewer), scope);
}

#[test]
fn bad_events_are_refused() {
    let mut log = ReviewLog::new();
    assert_eq!(log.push(flag("a", "  ")), Err(ReviewError::EmptyNote));
    assert!(matches!(log.push(change("a", f64::NAN)), Err(ReviewError::NotFinite { .. })));
    assert_eq!(log.push(accept("")), Err(ReviewError::EmptyName { field: "item" }));
    assert!(log.events().is_empty());
    let events = vec![accept("a"), flag("b", "")];
    assert!(matches!(ReviewLog::from_events(events), Err((1, _))));
}

#[test]
fn files_import_and_merge_with_conflicts() {
    let mut ann = ReviewLog::new();
    ann.push(change("x", 2.0)).unwrap();
    ann.push(accept("y")).unwrap();
    ann.push(timer("x", 60_000)).unwrap();
    let mut bob = ReviewLog::new();
    bob.push(change("x", 3.0)).unwrap();
    bob.push(accept("y")).unwrap();
    bob.push(flag("z", "off topic")).unwrap();
    bob.push(timer("x", 30_000)).unwrap();
    let files = [ReviewerFile::by("ann", &ann), ReviewerFile::by("bob", &bob)];
    let read = review::import(files[1].to_json().as_bytes()).unwrap();
    assert_eq!(read, files[1]);

    let merged = review::merge(&files).unwrap();
    assert_eq!(merged.reviewers, vec!["ann".to_owned(), "bob".to_owned()]);
    // One conflict: x was changed to 2 by ann and to 3 by bob; bob's file is later and wins.
    // Both accepted y: no conflict.
    assert_eq!(merged.conflicts.len(), 1);
    let c = &merged.conflicts[0];
    assert_eq!((c.item.as_str(), c.kept.0.as_str(), c.overridden.0.as_str()), ("x", "bob", "ann"));
    assert_eq!(c.kept.1, Verdict::Change { rating: 3.0 });
    assert_eq!(c.overridden.1.describe(), "changed to 2");
    assert_eq!(merged.reviews.verdict(RUN, "x"), Some(&Verdict::Change { rating: 3.0 }));
    assert_eq!(merged.reviews.verdict(RUN, "z"), Some(&Verdict::Flag { note: "off topic".into() }));
    assert_eq!(merged.reviews.ms_on(RUN, "x"), 90_000);
    let table = review::conflicts_table(&merged);
    assert_eq!(table.rows.len(), 1);
    assert_eq!(table.rows[0].cells[1].display(), "changed to 3");

    // Files of other kinds and versions say what to do.
    let mut newer = files[0].clone();
    newer.version = 9;
    assert_eq!(
        review::import(serde_json::to_string(&newer).unwrap().as_bytes()),
        Err(ReviewError::UnsupportedVersion { found: 9 })
    );
    let mut other = files[0].clone();
    other.format = "concord-coeval-annotations".into();
    assert!(matches!(
        review::import(serde_json::to_string(&other).unwrap().as_bytes()),
        Err(ReviewError::WrongFormat { .. })
    ));
    let mut nameless = files[0].clone();
    nameless.person = " ".into();
    assert_eq!(
        review::import(serde_json::to_string(&nameless).unwrap().as_bytes()),
        Err(ReviewError::NoReviewer)
    );
}

#[test]
fn items_show_the_judge_and_are_ordered_by_gap_spread_or_seed() {
    let (dataset, run) = fixture();
    let items = review::review_items(&dataset, &run);
    assert_eq!(items.len(), ITEMS);
    let first = &items[0];
    assert_eq!(first.samples, vec![3.0, 4.0]);
    assert_eq!(first.judge, Some(3.5));
    assert_eq!(first.human, Some(1.0));
    assert_eq!(first.rationale, "Because. Rating: 3");
    assert!((first.spread.unwrap() - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    assert_eq!(items[1].spread, Some(0.0));

    // Gaps: items 0 and 3 are 2.5 off (2 + half a point of spread), 1 and 2 are 2 off, item 6
    // and 9 half a point, the rest 0; ties keep dataset order.
    let by_gap = review::order(&items, Order::Gap, 0);
    assert_eq!(&by_gap[..6], &[0, 3, 1, 2, 6, 9]);
    let by_spread = review::order(&items, Order::Uncertainty, 0);
    assert_eq!(&by_spread[..4], &[0, 3, 6, 9]);
    let random = review::order(&items, Order::Random, 42);
    assert_eq!(random, review::order(&items, Order::Random, 42));
    assert_ne!(random, review::order(&items, Order::Random, 43));
    let mut sorted = random.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..ITEMS).collect::<Vec<_>>());
}

#[test]
fn correcting_the_wrong_items_raises_agreement_by_the_amounts_computed_directly() {
    let (dataset, run) = fixture();
    let judge = wb::scores::judge_scores(&dataset, "judge", "overall", &run.run, run.policy)
        .unwrap()
        .scores;
    let human: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(human(i))).collect();
    let mut log = ReviewLog::new();
    // The four wrong items: two changed to the human rating, one accepted, one flagged.
    log.push(change(&id(&dataset, 0), 1.0)).unwrap();
    log.push(timer(&id(&dataset, 0), 45_000)).unwrap();
    log.push(change(&id(&dataset, 1), 2.0)).unwrap();
    log.push(timer(&id(&dataset, 1), 75_000)).unwrap();
    log.push(accept(&id(&dataset, 2))).unwrap();
    log.push(flag(&id(&dataset, 3), "the judge misread the reply")).unwrap();
    let reviews = log.replay();
    let c = review::measure(&dataset, RUN, "overall", &judge, &reviews, RESAMPLING).unwrap();
    assert_eq!((c.items, c.accepted, c.changed, c.flagged, c.reviewed()), (12, 1, 2, 1, 4));
    // |1 − 3.5| + |2 − 4| over the four reviewed items.
    assert!((c.mean_abs_change.unwrap() - 4.5 / 4.0).abs() < 1e-12);
    assert!((c.minutes - 2.0).abs() < 1e-12);

    let mut after = judge.clone();
    after[0] = Some(1.0);
    after[1] = Some(2.0);
    let r = |s: &[Option<f64>]| stats::pearson(&human, s).value.unwrap();
    let tau = |s: &[Option<f64>]| stats::kendall(&human, s).tau_b.value.unwrap();
    let alpha = |s: &[Option<f64>]| {
        stats::krippendorff_alpha(&[human.clone(), s.to_vec()], KrippendorffLevel::Interval)
            .value
            .unwrap()
    };
    assert_eq!(c.before.pearson, Some(r(&judge)));
    assert_eq!(c.after.pearson, Some(r(&after)));
    assert_eq!(c.before.kendall_b, Some(tau(&judge)));
    assert_eq!(c.after.kendall_b, Some(tau(&after)));
    assert!((c.before.alpha.unwrap() - alpha(&judge)).abs() < 1e-12);
    assert!((c.after.alpha.unwrap() - alpha(&after)).abs() < 1e-12);
    assert!(c.after.pearson > c.before.pearson, "{c:?}");
    assert!(c.after.alpha > c.before.alpha, "{c:?}");
    assert_eq!((c.before.n, c.after.n), (12, 12));
    for (v, ci) in [
        (c.before.pearson, c.before.pearson_ci),
        (c.after.pearson, c.after.pearson_ci),
        (c.after.kendall_b, c.after.kendall_ci),
        (c.after.alpha, c.after.alpha_ci),
    ] {
        let [lo, hi] = ci.unwrap();
        assert!(lo <= v.unwrap() && v.unwrap() <= hi, "{lo} {v:?} {hi}");
    }
    // The same seed draws the same intervals.
    let again = review::measure(&dataset, RUN, "overall", &judge, &reviews, RESAMPLING);
    assert_eq!(again.as_ref(), Some(&c));

    let table = review::review_table(std::slice::from_ref(&c), RESAMPLING);
    let labels: Vec<String> = table.rows.iter().map(|r| r.cells[0].display()).collect();
    assert_eq!(labels, vec!["judge", "judge + review"]);
    let cell = |key: &str| table.keyed(key).unwrap().value;
    assert_eq!(cell(&format!("{RUN}/judge/pearson")), c.before.pearson);
    assert_eq!(cell(&format!("{RUN}/review/pearson")), c.after.pearson);
    assert_eq!(table.rows[1].cells[3].value, Some(0.25)); // accepted 1 of 4
    assert_eq!(table.rows[1].cells[4].value, Some(0.5)); // changed 2 of 4
    assert!(table.rows[0].cells[3].is_blank());
}

#[test]
fn a_bundle_carries_the_review_and_its_report_shows_the_table() {
    let (dataset, run) = fixture();
    let mut bundle = Bundle::new(
        &dataset,
        "json",
        None,
        None,
        vec![run],
        Vec::new(),
        Settings::default(),
        "2026-11-26T00:00:00Z".into(),
    );
    let without = bundle_report(&bundle);
    assert!(without.tables.iter().all(|t| t.id != review::REVIEW_TABLE));
    let mut log = ReviewLog::new();
    log.push(change(&id(&dataset, 0), 1.0)).unwrap();
    log.push(timer(&id(&dataset, 0), 30_000)).unwrap();
    let mut other = ReviewLog::new();
    other.push(change(&id(&dataset, 0), 2.0)).unwrap();
    bundle.review = Some(ReviewSnapshot {
        reviewer: "ann".into(),
        order: Order::Uncertainty,
        seed: 3,
        files: vec![ReviewerFile::by("ann", &log), ReviewerFile::by("bob", &other)],
        ..ReviewSnapshot::default()
    });
    let read = Bundle::from_json(&bundle.to_json()).unwrap();
    assert_eq!(read.review, bundle.review);
    let report = bundle_report(&read);
    let table = report.tables.iter().find(|t| t.id == review::REVIEW_TABLE).unwrap();
    assert_eq!(table.rows.len(), 2);
    // bob's later file wins item 0: 2, not ann's 1.
    let judge =
        wb::scores::judge_scores(&dataset, "judge", "overall", &read.runs[0].run, Policy::Concord)
            .unwrap()
            .scores;
    let mut after = judge.clone();
    after[0] = Some(2.0);
    let human: Vec<Option<f64>> = (0..ITEMS).map(|i| Some(human(i))).collect();
    assert_eq!(
        table.keyed(&format!("{RUN}/review/pearson")).unwrap().value,
        stats::pearson(&human, &after).value
    );
    assert!(report.tables.iter().any(|t| t.id == review::CONFLICTS_TABLE));
    // The corrected run joins the Results table as a row of its own, beside the judge's.
    let results = report.tables.iter().find(|t| t.id == wb::report::RESULTS_TABLE).unwrap();
    let labels: Vec<&str> = results.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(labels, vec!["judge", "judge + review"]);
    let table = wb::report::bundle_table(&read);
    let a = table.attributes.iter().position(|x| x == "overall").unwrap();
    assert_eq!(table.cell(1, a).unwrap().scores.scores, after);
    assert_eq!(table.cell(1, a).unwrap().row.pearson.dataset, stats::pearson(&human, &after).value);
    // The judge audit reads the judges alone.
    assert_eq!(wb::report::judges_table(&read).methods, vec!["judge".to_owned()]);

    // Intervals follow the Results table's: none while hidden, drawn once shown.
    let key = format!("{RUN}/review/pearson");
    let review_table = |b: &Bundle| {
        bundle_report(b).tables.into_iter().find(|t| t.id == review::REVIEW_TABLE).unwrap()
    };
    assert!(review_table(&read).keyed(&key).unwrap().interval.is_none());
    let mut shown = read.clone();
    shown.settings.intervals = true;
    let interval = review_table(&shown).keyed(&key).unwrap().interval.unwrap();
    assert!(interval.low <= interval.high && interval.confidence == 0.95);
}

/// A bundle of two judges ("judge" and "other", the same answers) with `log` as ann's review.
fn reviewed_bundle(log: &ReviewLog, settings: Settings) -> Bundle {
    let (dataset, run) = fixture();
    let other = JudgedRun { method: "other".into(), origin: "other.json".into(), ..run.clone() };
    let mut bundle = Bundle::new(
        &dataset,
        "json",
        None,
        None,
        vec![run, other],
        Vec::new(),
        settings,
        "2026-11-27T00:00:00Z".into(),
    );
    bundle.review = Some(ReviewSnapshot {
        reviewer: "ann".into(),
        files: vec![ReviewerFile::by("ann", log)],
        ..ReviewSnapshot::default()
    });
    bundle
}

#[test]
fn time_spent_is_not_a_decision() {
    let (dataset, _) = fixture();
    let mut log = ReviewLog::new();
    log.push(timer(&id(&dataset, 0), 30_000)).unwrap();
    log.push(timer(&id(&dataset, 1), 5_000)).unwrap();
    let reviews = log.replay();
    assert!(reviews.runs().is_empty(), "a run only looked at is not reviewed");
    let bundle = reviewed_bundle(&log, Settings::default());
    // No `<method> + review` row with nothing decided: not in the table, not in its export.
    let table = wb::report::bundle_table(&bundle);
    assert_eq!(table.methods, ["judge", "other"]);
    let report = bundle_report(&bundle);
    assert!(report.tables.iter().all(|t| t.id != review::REVIEW_TABLE));
    let results = report.tables.iter().find(|t| t.id == wb::report::RESULTS_TABLE).unwrap();
    assert!(results.rows.iter().all(|r| !r.label.ends_with(review::REVIEW_SUFFIX)));
    // One decision makes the run reviewed.
    log.push(accept(&id(&dataset, 2))).unwrap();
    assert_eq!(log.replay().runs(), [RUN.to_owned()]);
}

#[test]
fn a_human_corrected_run_is_no_judge() {
    let (dataset, _) = fixture();
    let mut log = ReviewLog::new();
    log.push(change(&id(&dataset, 0), 1.0)).unwrap();
    log.push(change(&id(&dataset, 1), 2.0)).unwrap();
    let settings = Settings {
        juries: true,
        ensembles: vec![
            vec!["judge".to_owned(), "other".to_owned()],
            // Names a corrected row: it is no member, so no such ensemble.
            vec!["judge".to_owned(), "judge + review".to_owned()],
        ],
        ..Settings::default()
    };
    let bundle = reviewed_bundle(&log, settings);
    let table = wb::report::bundle_table(&bundle);
    let kind = |name: &str| table.kind(table.methods.iter().position(|m| m == name).unwrap());
    assert_eq!(kind("judge"), &wb::RunKind::Judge);
    assert_eq!(kind("judge + review"), &wb::RunKind::HumanCorrected { judge: "judge".into() });
    assert_eq!(kind(wb::JURY_MEAN), &wb::RunKind::Jury { median: false });
    assert!(matches!(kind("ensemble: judge + other"), wb::RunKind::Ensemble { .. }));
    assert!(!table.methods.iter().any(|m| m == "ensemble: judge + judge + review"));
    let judges: Vec<&str> = table.judges().map(|m| table.methods[m].as_str()).collect();
    assert_eq!(judges, ["judge", "other"]);
    // The jury is the mean of the two judges: the corrected ratings are not in it.
    let a = table.attributes.iter().position(|x| x == "overall").unwrap();
    let scores = |name: &str| {
        let m = table.methods.iter().position(|x| x == name).unwrap();
        table.cell(m, a).unwrap().scores.scores.clone()
    };
    assert_eq!(scores(wb::JURY_MEAN), scores("judge"));
    assert_ne!(scores("judge + review"), scores("judge"));
    // The Results table's note lists the judges alone as the jury's members.
    let results = bundle_report(&bundle);
    let results = results.tables.iter().find(|t| t.id == wb::report::RESULTS_TABLE).unwrap();
    let note = results.notes.iter().find(|n| n.starts_with("Juries")).unwrap();
    assert!(note.contains("(judge, other)"), "{note}");
    // Agreement with a rater lists each row by what it is.
    let rater = wb::ExtraRater {
        name: "me".into(),
        attribute: "overall".into(),
        scores: dataset.items.iter().map(|i| (i.id.clone(), 2.0)).collect(),
    };
    let agreement = wb::report::agreement_tables(&dataset, &table, &[rater]);
    let kinds: Vec<(String, String)> =
        agreement[0].rows.iter().map(|r| (r.label.clone(), r.cells[0].display())).collect();
    let kind_of = |name: &str| kinds.iter().find(|(n, _)| n == name).unwrap().1.clone();
    assert_eq!(kind_of("judge"), "judge");
    assert_eq!(kind_of("judge + review"), "human-corrected");
    assert_eq!(kind_of(wb::JURY_MEAN), "jury");
    assert_eq!(kind_of("ensemble: judge + other"), "ensemble");
    // A method merely named like a jury or a review is a judge.
    let (dataset, run) = fixture();
    let named = JudgedRun { method: "x + review".into(), ..run.clone() };
    let jury_named = JudgedRun { method: wb::JURY_MEAN.into(), ..run };
    let t = wb::compute(&dataset, &[named, jury_named], None);
    assert!(t.kinds.iter().all(wb::RunKind::is_judge), "{:?}", t.kinds);
}

#[test]
fn a_change_off_the_scale_is_refused_and_never_counted() {
    let (dataset, run) = fixture();
    let scale = dataset.attributes[dataset.attribute_index("overall").unwrap()].scale;
    let (lo, hi) = (scale.min, scale.max);
    assert!(review::check_change(&dataset, RUN, lo).is_ok());
    assert!(review::check_change(&dataset, RUN, hi).is_ok());
    for bad in [lo - 1.0, hi + 1.0, 9.0, f64::NAN] {
        assert!(review::check_change(&dataset, RUN, bad).is_err(), "{bad}");
    }
    let refused = review::check_change(&dataset, RUN, 0.0).unwrap_err();
    assert!(matches!(refused, ReviewError::OutOfScale { .. }), "{refused:?}");
    let said = refused.to_string();
    assert!(said.contains("overall") && said.contains(&review::format_rating(hi)), "{said}");
    // A whole-number scale refuses halves.
    assert!(review::check_change(&dataset, RUN, lo + 0.5).is_err());
    // A run of an attribute the dataset lacks: a number is enough.
    assert!(review::check_change(&dataset, "judge / nothing", 9.0).is_ok());

    // A log written before ratings were checked (or a file made by hand) with 0 and 9: those
    // changes count in no number, and the table says so.
    let judge = wb::scores::judge_scores(&dataset, "judge", "overall", &run.run, run.policy)
        .unwrap()
        .scores;
    let mut log = ReviewLog::new();
    log.push(change(&id(&dataset, 0), 0.0)).unwrap();
    log.push(change(&id(&dataset, 1), 9.0)).unwrap();
    log.push(change(&id(&dataset, 2), lo)).unwrap();
    let reviews = log.replay();
    let after = review::corrected(&dataset, RUN, &judge, &reviews);
    assert_eq!(after[0], judge[0]);
    assert_eq!(after[1], judge[1]);
    assert_eq!(after[2], Some(lo));
    let c = review::measure(&dataset, RUN, "overall", &judge, &reviews, RESAMPLING).unwrap();
    assert_eq!((c.changed, c.reviewed(), c.off_scale), (1, 1, 2));
    let table = review::review_table(std::slice::from_ref(&c), RESAMPLING);
    assert!(table.notes.iter().any(|n| n.contains("2 changes left out")), "{:?}", table.notes);
    // The `<method> + review` row takes only the change on the scale.
    let mut only = ReviewLog::new();
    only.push(change(&id(&dataset, 2), lo)).unwrap();
    let with =
        review::with_reviews(&dataset, &wb::score(&dataset, std::slice::from_ref(&run)), &reviews);
    let clean = review::with_reviews(&dataset, &wb::score(&dataset, &[run]), &only.replay());
    assert_eq!(with.scores, clean.scores);
}

#[test]
fn a_proposal_that_hides_the_texts_is_named_before_it_is_sent() {
    use concord_core::judge::template::{Part, PartKind, PromptTemplate};
    use concord_core::study::workbench::revise;
    let old = PromptTemplate::new(vec![Part::new(
        PartKind::Other,
        "Rate {{system_output}} given {{source}} from 1 to 5.",
    )]);
    assert_eq!(revise::missing_texts(&old, "Rate {{ system_output }} given {{source}}."), None);
    let none = revise::missing_texts(&old, "Rate the summary from 1 to 5.").unwrap();
    assert!(none.none_at_all);
    assert_eq!(none.missing, ["system_output", "source"]);
    let said = none.to_string();
    assert!(said.contains("no {{placeholders}}") && said.contains("{{source}}"), "{said}");
    let some = revise::missing_texts(&old, "Rate {{system_output}}.").unwrap();
    assert!(!some.none_at_all);
    assert_eq!(some.missing, ["source"]);
    assert!(some.to_string().contains("leaves out {{source}}"), "{some}");
}
