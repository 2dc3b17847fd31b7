//! Correct-judge exercises (issue 26): the exercise embeds the judge run (cut to its items) and
//! is written as version 2, version-1 files still open, the submission carries the student's
//! review (never a key), and the class view's corrections table and most-changed items equal
//! numbers worked out here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::data::{self, Dataset, JudgeRecord, JudgeRun, RecordKey};
use concord_core::judge::parse::Policy;
use concord_core::report::Format;
use concord_core::study::exercise::class::{
    self, CHANGED_TABLE, CORRECTIONS_TABLE, REVIEW_CONFLICTS_TABLE, STUDENTS_TABLE, Status,
};
use concord_core::study::exercise::file::Task;
use concord_core::study::exercise::{
    Exercise, ExerciseError, ExerciseSpec, Submission, SubmissionError, class_report,
};
use concord_core::study::workbench::JudgedRun;
use concord_core::study::workbench::review::{ReviewEvent, ReviewLog, Reviews};

const HUMAN: [f64; 6] = [1.0, 2.0, 3.0, 4.0, 5.0, 3.0];
const JUDGE: [f64; 6] = [2.0, 2.0, 4.0, 3.0, 5.0, 1.0];

fn dataset() -> Dataset {
    let mut csv = String::from("id,doc_id,system_id,source,output,quality,style\n");
    for (i, h) in HUMAN.iter().enumerate() {
        csv.push_str(&format!("i{i},d{},s{},text {i},out {i},{h},3\n", i / 2, i % 2));
    }
    data::load("six.csv", csv.as_bytes()).unwrap().dataset
}

fn run() -> JudgedRun {
    let records = JUDGE
        .iter()
        .enumerate()
        .map(|(i, j)| JudgeRecord {
            key: RecordKey::Id(format!("i{i}")),
            prompt: Some(format!("Rate out {i}")),
            prompt_chars: None,
            responses: vec![format!("Rating: {j}")],
            cut_off: Vec::new(),
            logprobs: Vec::new(),
            reasoning_tokens: Vec::new(),
            parsed: Vec::new(),
            line: i + 1,
            meta: None,
            calls: Vec::new(),
        })
        .collect();
    JudgedRun {
        method: "score-only".into(),
        attribute: "quality".into(),
        policy: Policy::default(),
        weighting: None,
        run: JudgeRun { name: "score-only".into(), attribute: Some("quality".into()), records },
        origin: "study".into(),
    }
}

fn spec() -> ExerciseSpec {
    ExerciseSpec {
        id: "cj".into(),
        title: "Correct the judge".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "Correct the judge.".into(),
        attributes: Vec::new(),
        sample: None,
        hide_reference: true,
        coeval: None,
    }
}

fn exercise() -> Exercise {
    Exercise::build_with(&dataset(), spec(), Vec::new(), Some(&run())).unwrap()
}

const KEY: &str = "score-only / quality";

fn reviews(events: Vec<ReviewEvent>) -> Reviews {
    ReviewLog::from_events(events).unwrap().replay()
}

fn accept(item: &str) -> ReviewEvent {
    ReviewEvent::Accept { run: KEY.into(), item: item.into() }
}
fn change(item: &str, rating: f64) -> ReviewEvent {
    ReviewEvent::Change { run: KEY.into(), item: item.into(), rating }
}
fn flag(item: &str, note: &str) -> ReviewEvent {
    ReviewEvent::Flag { run: KEY.into(), item: item.into(), note: note.into() }
}
fn timer(item: &str, ms: u64) -> ReviewEvent {
    ReviewEvent::Timer { run: KEY.into(), item: item.into(), ms }
}

fn submit(ex: &Exercise, student: &str, events: Vec<ReviewEvent>) -> Submission {
    Submission::answer(ex, student, "t".into(), &[], &[], &reviews(events)).unwrap()
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    sxy / (sxx * syy).sqrt()
}

fn cell(report: &concord_core::report::Report, table: &str, key: &str) -> Option<f64> {
    let t = report.table(table).unwrap_or_else(|| panic!("no table {table}"));
    t.rows
        .iter()
        .flat_map(|r| r.cells.iter())
        .find(|c| c.key.as_deref() == Some(key))
        .unwrap_or_else(|| panic!("no cell {key} in {table}"))
        .value
}

#[test]
fn a_correct_judge_exercise_embeds_the_run_cut_to_its_items_at_version_2() {
    let ex = exercise();
    assert_eq!(ex.version, 2);
    assert_eq!(
        ex.tasks,
        vec![Task::CorrectJudge { method: "score-only".into(), attribute: "quality".into() }]
    );
    assert!(ex.unsupported().is_empty());
    // Nothing to rate; the judged attribute is embedded (to be reviewed), the reference kept apart.
    assert!(ex.attributes().is_empty());
    assert_eq!(ex.dataset.embedded.attributes.len(), 1);
    assert!(ex.dataset.embedded.items.iter().all(|i| i.ratings == vec![None]));
    assert_eq!(ex.reference_of("quality").unwrap().scores.len(), 6);
    assert_eq!(ex.correct_judge_key().as_deref(), Some(KEY));
    assert_eq!(ex.workspace_runs().len(), 1);
    let back = Exercise::from_json(&ex.to_json()).unwrap();
    assert_eq!(back, ex);

    // A sample keeps the run's records of the sampled items only, in their order.
    let mut s = spec();
    s.sample = Some((3, 5));
    s.attributes = vec!["style".into()];
    let sampled = Exercise::build_with(&dataset(), s, Vec::new(), Some(&run())).unwrap();
    let ids: Vec<String> = sampled.dataset.embedded.items.iter().map(|i| i.id.clone()).collect();
    let kept: Vec<String> = sampled
        .judge_run
        .as_ref()
        .unwrap()
        .run
        .records
        .iter()
        .map(|r| match &r.key {
            RecordKey::Id(id) => id.clone(),
            RecordKey::Item(k) => panic!("{k:?}"),
        })
        .collect();
    assert_eq!(kept, ids);
    // Both tasks: rate style, correct the judge of quality; both attributes embedded.
    assert_eq!(sampled.attributes(), ["style"]);
    assert_eq!(sampled.tasks.len(), 2);
    assert_eq!(sampled.dataset.embedded.attributes.len(), 2);

    // A run of an attribute the dataset lacks is named.
    let mut other = run();
    other.attribute = "fluency".into();
    let e = Exercise::build_with(&dataset(), spec(), Vec::new(), Some(&other)).unwrap_err();
    assert!(matches!(e, ExerciseError::JudgeAttribute { .. }), "{e}");
}

#[test]
fn version_1_files_still_open_and_a_newer_one_is_refused_by_name() {
    // A rate-only exercise is still written as version 1, as a version-1 reader reads it.
    let mut s = spec();
    s.attributes = vec!["quality".into()];
    let v1 = Exercise::build(&dataset(), s, Vec::new()).unwrap();
    assert_eq!(v1.version, 1);
    let json = v1.to_json();
    assert!(!json.contains("judge_run"));
    assert_eq!(Exercise::from_json(&json).unwrap(), v1);
    // A version-1 file that names the task without a run (as the format allowed) opens, and
    // the task is said to be unsupported.
    let named = json.replacen(
        "\"tasks\": [",
        "\"tasks\": [\n    {\n      \"kind\": \"correct_judge\"\n    },",
        1,
    );
    let opened = Exercise::from_json(&named).unwrap();
    assert_eq!(opened.unsupported(), ["Correct a judge (the file holds no judge run to correct)"]);
    assert_eq!(opened.attributes(), ["quality"]);
    // Version 4 is refused with what to do.
    let e =
        Exercise::from_json(&exercise().to_json().replacen("\"version\": 2", "\"version\": 4", 1))
            .unwrap_err();
    assert_eq!(e, ExerciseError::TooNew { version: 4 });
    assert!(e.to_string().contains("open it with a newer Concord"));
}

#[test]
fn a_submission_carries_the_review_undos_applied_and_no_key() {
    let ex = exercise();
    let s = submit(
        &ex,
        "Ann",
        vec![
            timer("i0", 4_000),
            change("i0", 1.0),
            accept("i1"),
            change("i2", 2.0),
            ReviewEvent::Undo,
            change("i2", 3.0),
            timer("i2", 2_000),
            flag("i5", "the judge read the wrong output"),
            // Another run's decision is not the exercise's.
            ReviewEvent::Accept { run: "other / quality".into(), item: "i3".into() },
        ],
    );
    assert_eq!(s.version, 2);
    assert!(s.ratings.is_empty());
    let review = s.review.as_ref().unwrap();
    assert_eq!(review.run, KEY);
    let json = s.to_json();
    assert!(json.contains("\"verdict\": \"change\""), "{json}");
    assert!(!json.to_lowercase().contains("key"), "{json}");
    let items: Vec<&str> = review.decisions.iter().map(|d| d.item.as_str()).collect();
    assert_eq!(items, ["i0", "i1", "i2", "i5"]);
    assert_eq!(review.verdict("i2").unwrap().describe(), "changed to 3");
    assert_eq!(review.time_ms, vec![("i0".to_owned(), 4_000), ("i2".to_owned(), 2_000)]);
    assert!((s.seconds() - 6.0).abs() < 1e-9);
    assert_eq!(Submission::from_json(&json).unwrap(), s);
    // Nothing reviewed: named.
    let e = Submission::answer(&ex, "Bo", "t".into(), &[], &[], &Reviews::default()).unwrap_err();
    assert_eq!(e, SubmissionError::NothingDone);
    // A submission with no review is still version 1.
    let mut s2 = spec();
    s2.attributes = vec!["quality".into()];
    let v1 = Exercise::build(&dataset(), s2, Vec::new()).unwrap();
    let rater = concord_core::bundle::ExtraRater {
        name: "Cy".into(),
        attribute: "quality".into(),
        scores: vec![("i0".into(), 2.0)],
    };
    assert_eq!(Submission::new(&v1, "Cy", "t".into(), &[rater], &[]).unwrap().version, 1);
}

#[test]
fn the_class_view_measures_each_students_corrections_against_the_reference() {
    let ex = exercise();
    // Ann fixes two items towards the reference, accepts two, flags one.
    let ann = submit(
        &ex,
        "Ann",
        vec![
            change("i0", 1.0),
            accept("i1"),
            accept("i2"),
            change("i5", 3.0),
            flag("i3", "unsure"),
            timer("i0", 30_000),
            timer("i5", 30_000),
        ],
    );
    // Bob changes three items (one of them away from the reference) and accepts the rest.
    let bob = submit(
        &ex,
        "Bob",
        vec![
            change("i0", 1.0),
            accept("i1"),
            change("i2", 5.0),
            accept("i3"),
            accept("i4"),
            change("i5", 2.0),
            timer("i2", 90_000),
        ],
    );
    // Bob again with another decision: a conflict, the later file wins; Ann twice: a duplicate.
    let bob2 = submit(
        &ex,
        "Bob",
        vec![
            change("i0", 1.0),
            accept("i1"),
            change("i2", 4.0),
            accept("i3"),
            accept("i4"),
            change("i5", 2.0),
            timer("i2", 90_000),
        ],
    );
    let files = vec![
        ("ann.json".to_owned(), ann.clone()),
        ("bob.json".to_owned(), bob),
        ("bob2.json".to_owned(), bob2),
        ("ann-again.json".to_owned(), ann),
    ];
    let r = class::RESAMPLING;
    let report = class_report(&ex, &files, r);
    let statuses: Vec<&Status> = report.merged.entries.iter().map(|e| &e.status).collect();
    assert_eq!(statuses[1], &Status::Overridden { by: "bob2.json".into() });
    assert_eq!(statuses[3], &Status::Duplicate { of: "ann.json".into() });
    let rep = &report.report;
    // The submissions say how many of the judge's ratings each file decided on.
    let subs = rep.table(class::SUBMISSIONS_TABLE).unwrap();
    assert_eq!(subs.columns[2].label, "Items reviewed");
    let reviewed: Vec<Option<f64>> = subs.rows.iter().map(|r| r.cells[2].value).collect();
    assert_eq!(reviewed, [Some(5.0), Some(6.0), Some(6.0), Some(5.0)]);
    // Nothing to rate: no students-against-reference table; the corrections' instead.
    assert!(rep.table(STUDENTS_TABLE).is_none());
    let t = rep.table(CORRECTIONS_TABLE).unwrap();
    let labels: Vec<(&str, String)> =
        t.rows.iter().map(|row| (row.label.as_str(), row.cells[0].text.clone())).collect();
    assert_eq!(
        labels,
        [
            ("Ann", "judge".to_owned()),
            ("Ann", "judge + review".to_owned()),
            ("Bob", "judge".to_owned()),
            ("Bob", "judge + review".to_owned())
        ]
    );
    // Shares of the reviewed items (Ann 5: 2 accepted, 2 changed, 1 flagged; Bob's kept file 6:
    // 3 and 3), mean |change| over the reviewed items (Ann (1 + 2) / 5; Bob (1 + 0 + 1) / 6:
    // his i2 "changed" to the judge's own 4), minutes.
    let ann_row = &t.rows[1].cells;
    let v = |c: &concord_core::report::Cell| c.value.unwrap();
    assert_eq!(v(&ann_row[2]), 5.0);
    assert_eq!([v(&ann_row[3]), v(&ann_row[4]), v(&ann_row[5])], [0.4, 0.4, 0.2]);
    assert!((v(&ann_row[6]) - 3.0 / 5.0).abs() < 1e-12);
    assert!((v(&ann_row[10]) - 1.0).abs() < 1e-12);
    let bob_row = &t.rows[3].cells;
    assert_eq!([v(&bob_row[3]), v(&bob_row[4]), v(&bob_row[5])], [0.5, 0.5, 0.0]);
    assert!((v(&bob_row[6]) - 2.0 / 6.0).abs() < 1e-12);
    assert!((v(&bob_row[10]) - 1.5).abs() < 1e-12);
    // r of the judge alone and with each student's changes, against the reference.
    let judge_r = pearson(&HUMAN, &JUDGE);
    let ann_after = [1.0, 2.0, 4.0, 3.0, 5.0, 3.0];
    let bob_after = [1.0, 2.0, 4.0, 3.0, 5.0, 2.0];
    for student in ["Ann", "Bob"] {
        let got = cell(rep, CORRECTIONS_TABLE, &format!("{student}/judge/pearson")).unwrap();
        assert!((got - judge_r).abs() < 1e-12, "{student}: {got} against {judge_r}");
    }
    let got = cell(rep, CORRECTIONS_TABLE, "Ann/review/pearson").unwrap();
    assert!((got - pearson(&HUMAN, &ann_after)).abs() < 1e-12);
    let got = cell(rep, CORRECTIONS_TABLE, "Bob/review/pearson").unwrap();
    assert!((got - pearson(&HUMAN, &bob_after)).abs() < 1e-12);
    assert!(pearson(&HUMAN, &ann_after) > judge_r);
    // Intervals drawn (1,000 resamples, seed 26).
    let with_ci = t.rows[1].cells[7].interval.is_some();
    assert!(with_ci, "{:?}", t.rows[1].cells[7]);

    // Items most changed: i0 and i5 by both, then i2 by Bob.
    let changed = rep.table(CHANGED_TABLE).unwrap();
    let order: Vec<&str> = changed.rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(order, ["i0", "i5", "i2"]);
    assert_eq!(cell(rep, CHANGED_TABLE, "i0/changed"), Some(2.0));
    assert_eq!(cell(rep, CHANGED_TABLE, "i5/mean_new"), Some(2.5));
    assert_eq!(cell(rep, CHANGED_TABLE, "i2/reviewed"), Some(2.0));
    // Bob's two files differ on i2.
    let conflicts = rep.table(REVIEW_CONFLICTS_TABLE).unwrap();
    assert_eq!(conflicts.rows.len(), 1);
    let row: Vec<String> = conflicts.rows[0].cells.iter().map(|c| c.text.clone()).collect();
    assert_eq!(row, ["i2", "changed to 4", "bob2.json", "changed to 5", "bob.json"]);
    // The exports a screen and `concord class` write are the report's own.
    let names: Vec<String> = rep.files(Format::Csv).into_iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "class-submissions.csv",
            "class-corrections.csv",
            "class-changed-items.csv",
            "class-review-conflicts.csv"
        ]
    );
}
