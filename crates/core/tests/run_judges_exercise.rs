//! Run-judges exercises (issue 26): the exercise embeds the Judge screen's study (cut to the
//! dataset's attributes) at version 2, a submission carries each given judge's run — method,
//! attribute, the provider's kind and the model, the per-item scores, never a key or a base URL
//! — and is refused before a given judge ran, and the class view's runs table and the
//! agreement among the students' runs equal numbers worked out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::data::{self, Dataset, JudgeRecord, JudgeRun, RecordKey};
use concord_core::judge::builtin::OutputMode;
use concord_core::judge::parse::Policy;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::template::Persona;
use concord_core::report::Format;
use concord_core::run::{Endpoint, ProviderId};
use concord_core::study::exercise::class::{
    self, RUNS_AGREEMENT_TABLE, RUNS_TABLE, STUDENTS_TABLE, Status,
};
use concord_core::study::exercise::file::Task;
use concord_core::study::exercise::{
    Exercise, ExerciseError, ExerciseSpec, Submission, SubmissionError, class_report,
};
use concord_core::study::workbench::{JudgedRun, Study, method};

/// Four items (i1..i4) whose human quality is 1, 2, 3, 4.
fn dataset() -> Dataset {
    let csv = "id,doc_id,system_id,source,output,quality,style\n\
               i1,d1,a,text one,out one,1,2\n\
               i2,d1,b,text one,out two,2,2\n\
               i3,d2,a,text two,out three,3,4\n\
               i4,d2,b,text two,out four,4,5\n";
    data::load("four.csv", csv.as_bytes()).unwrap().dataset
}

/// The Judge screen's study: score-only on quality, and an attribute the dataset lacks.
fn study() -> Study {
    let d = dataset();
    let attributes = vec!["quality".to_owned(), "fluency".to_owned()];
    let m = method(
        &d,
        &attributes,
        OutputMode::ScoreOnly,
        false,
        Persona::None,
        Sampling::single(),
        Policy::default(),
    );
    Study { attributes, methods: vec![m], ..Study::default() }
}

fn spec() -> ExerciseSpec {
    ExerciseSpec {
        id: "rj".into(),
        title: "Run the judge".into(),
        created: "2026-11-26T10:30:00Z".into(),
        instructions: "Run the judge with your model.".into(),
        attributes: Vec::new(),
        sample: None,
        hide_reference: true,
        coeval: None,
    }
}

fn exercise() -> Exercise {
    Exercise::build_tasks(&dataset(), spec(), Vec::new(), None, Some(&study())).unwrap()
}

/// A student's run of score-only on quality: `scores` of i1..i4 (`None`: not rated).
fn run(scores: [Option<f64>; 4]) -> JudgedRun {
    let records = scores
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            Some(JudgeRecord {
                key: RecordKey::Id(format!("i{}", i + 1)),
                prompt: None,
                prompt_chars: None,
                responses: vec![format!("Rating: {}", (*s)?)],
                cut_off: Vec::new(),
                logprobs: Vec::new(),
                reasoning_tokens: Vec::new(),
                parsed: Vec::new(),
                line: i + 1,
                meta: None,
                calls: Vec::new(),
            })
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

fn endpoint(model: &str) -> Endpoint {
    Endpoint {
        provider: ProviderId::OpenAi,
        base_url: "https://user:sk-secret@llm.example/v1?key=sk-secret".into(),
        model: model.into(),
    }
}

fn submit(ex: &Exercise, student: &str, scores: [Option<f64>; 4], model: &str) -> Submission {
    Submission::answer(ex, student, "t".into(), &[], &[], &Default::default())
        .unwrap()
        .with_runs(ex, &[run(scores)], Some(&endpoint(model)))
        .unwrap()
}

fn cell(report: &concord_core::report::Report, table: &str, key: &str) -> (Option<f64>, bool) {
    let t = report.table(table).unwrap_or_else(|| panic!("no table {table}"));
    let c = t
        .rows
        .iter()
        .flat_map(|r| r.cells.iter())
        .find(|c| c.key.as_deref() == Some(key))
        .unwrap_or_else(|| panic!("no cell {key} in {table}"));
    (c.value, c.interval.is_some())
}

const ANN: [Option<f64>; 4] = [Some(1.0), Some(2.0), Some(3.0), Some(4.0)];
const BOB: [Option<f64>; 4] = [Some(2.0), Some(1.0), Some(4.0), Some(3.0)];

#[test]
fn a_run_judges_exercise_embeds_the_study_cut_to_the_dataset_at_version_2() {
    let ex = exercise();
    assert_eq!(ex.version, 2);
    assert_eq!(
        ex.tasks,
        vec![Task::RunJudges {
            methods: vec!["score-only".into()],
            attributes: vec!["quality".into()]
        }]
    );
    assert!(ex.unsupported().is_empty(), "{:?}", ex.unsupported());
    assert_eq!(ex.run_judges(), vec![("score-only", "quality")]);
    let study = ex.study.as_ref().unwrap();
    // The attribute the dataset lacks is cut, with its template.
    assert_eq!(study.attributes, vec!["quality".to_owned()]);
    assert_eq!(study.methods[0].templates.keys().collect::<Vec<_>>(), vec!["quality"]);
    assert_eq!(ex.workspace_study().as_ref(), Some(study));
    // The items with no human rating; the reference beside them.
    assert_eq!(ex.dataset.items, 4);
    assert!(ex.dataset.embedded.items.iter().all(|i| i.ratings.iter().all(Option::is_none)));
    assert_eq!(ex.reference_of("quality").unwrap().scores.len(), 4);
    // Nothing to rate, no judge run to correct.
    assert!(ex.attributes().is_empty());
    assert!(ex.workspace_runs().is_empty());
    // The file round-trips, and names no key or endpoint.
    let json = ex.to_json();
    assert_eq!(Exercise::from_json(&json).unwrap(), ex);
    assert!(!json.contains("base_url") && !json.contains("endpoint"), "{json}");
    assert!(ex.tasks[0].describe().starts_with("Run the judges score-only on quality"));
}

#[test]
fn the_sample_is_respected_and_a_study_without_methods_for_the_dataset_is_refused() {
    let ex = Exercise::build_tasks(
        &dataset(),
        ExerciseSpec { sample: Some((3, 7)), ..spec() },
        Vec::new(),
        None,
        Some(&study()),
    )
    .unwrap();
    assert_eq!(ex.dataset.items, 3);
    assert_eq!(ex.sample.map(|s| (s.of, s.size, s.seed)), Some((4, 3, 7)));
    let empty = Study { methods: Vec::new(), ..study() };
    let e = Exercise::build_tasks(&dataset(), spec(), Vec::new(), None, Some(&empty)).unwrap_err();
    assert_eq!(e, ExerciseError::NoMethodToRun);
    assert!(e.to_string().contains("add methods on the Judge screen"));
    // A file naming the task without its parts opens; the task is named unsupported.
    let mut bare = exercise();
    bare.tasks = vec![Task::RunJudges { methods: Vec::new(), attributes: Vec::new() }];
    bare.study = None;
    assert_eq!(bare.unsupported().len(), 1);
    assert!(bare.workspace_study().is_none());
    let read: Exercise = serde_json::from_str(&bare.to_json().replace(
        r#""kind": "run_judges",
      "methods": [],
      "attributes": []"#,
        r#""kind": "run_judges""#,
    ))
    .unwrap();
    assert_eq!(read.tasks, bare.tasks);
}

#[test]
fn a_submission_carries_each_given_judges_run_with_the_model_and_never_a_key() {
    let ex = exercise();
    let bare = Submission::answer(&ex, "Ann", "t".into(), &[], &[], &Default::default()).unwrap();
    // Before any run: refused, naming the judge.
    let e = bare.clone().with_runs(&ex, &[], Some(&endpoint("m"))).unwrap_err();
    assert_eq!(e, SubmissionError::NotRun { missing: "score-only / quality".into(), count: 1 });
    assert!(e.to_string().contains("Run screen"), "{e}");
    // A run of another method does not count.
    let mut other = run(ANN);
    other.method = "free-text".into();
    assert!(bare.clone().with_runs(&ex, &[other], None).is_err());
    // The latest run of the judge is taken; an unrated item is left out.
    let s = bare
        .with_runs(
            &ex,
            &[run(BOB), run([Some(1.0), None, Some(3.0), Some(4.0)])],
            Some(&endpoint("gpt-x")),
        )
        .unwrap();
    assert_eq!(s.version, 2);
    assert_eq!(s.runs.len(), 1);
    let r = &s.runs[0];
    assert_eq!((r.method.as_str(), r.attribute.as_str()), ("score-only", "quality"));
    assert_eq!((r.provider.as_str(), r.model.as_str()), ("openai", "gpt-x"));
    assert_eq!(r.scores, vec![("i1".into(), 1.0), ("i3".into(), 3.0), ("i4".into(), 4.0)]);
    let json = s.to_json();
    assert!(!json.contains("sk-secret") && !json.contains("llm.example"), "{json}");
    assert_eq!(Submission::from_json(&json).unwrap(), s);
}

#[test]
fn the_class_view_measures_each_students_run_against_the_reference_and_among_the_students() {
    let ex = exercise();
    let ann = submit(&ex, "Ann", ANN, "model-a");
    let bob = submit(&ex, "Bob", BOB, "model-b");
    // Cy's second file (other scores) replaces the first; a copy of Ann's is a duplicate.
    let cy1 = submit(&ex, "Cy", [Some(4.0), Some(3.0), Some(2.0), Some(1.0)], "m");
    let cy2 = submit(&ex, "Cy", BOB, "model-c");
    let files = vec![
        ("ann.json".to_owned(), ann.clone()),
        ("bob.json".to_owned(), bob),
        ("cy1.json".to_owned(), cy1),
        ("cy2.json".to_owned(), cy2),
        ("ann-copy.json".to_owned(), ann),
    ];
    let report = class_report(&ex, &files, class::RESAMPLING);
    let status: Vec<&Status> = report.merged.entries.iter().map(|e| &e.status).collect();
    assert_eq!(status[2], &Status::Overridden { by: "cy2.json".into() });
    assert_eq!(status[4], &Status::Duplicate { of: "ann.json".into() });
    // Nothing rated: no ratings table.
    assert!(report.report.table(STUDENTS_TABLE).is_none());
    let runs = report.report.table(RUNS_TABLE).unwrap();
    let labels: Vec<(&str, &str)> =
        runs.rows.iter().map(|r| (r.label.as_str(), r.cells[2].text.as_str())).collect();
    assert_eq!(labels, vec![("Ann", "model-a"), ("Bob", "model-b"), ("Cy", "model-c")]);
    // Ann's run is the reference: r = τ-b = α = 1.
    for stat in ["pearson", "kendall_b", "alpha"] {
        let (v, _) = cell(&report.report, RUNS_TABLE, &format!("Ann/score-only/quality/{stat}"));
        assert!((v.unwrap() - 1.0).abs() < 1e-12, "Ann {stat}: {v:?}");
    }
    // Bob's 2, 1, 4, 3 against 1, 2, 3, 4: Sxy = 3, Sxx = Syy = 5, so r = 0.6; 4 concordant
    // and 2 discordant pairs, τ-b = 1/3; α: D_o = 1 (each unit differs by 1, 2·1/1 per
    // unit over 8 values), D_e = 160 / 56 (Σ(a−b)² over the 8 values' ordered pairs), so
    // α = 1 − 56/160 = 0.65.
    let (r, ci) = cell(&report.report, RUNS_TABLE, "Bob/score-only/quality/pearson");
    assert!((r.unwrap() - 0.6).abs() < 1e-12 && ci, "{r:?}");
    let (t, _) = cell(&report.report, RUNS_TABLE, "Bob/score-only/quality/kendall_b");
    assert!((t.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{t:?}");
    let (a, ci) = cell(&report.report, RUNS_TABLE, "Bob/score-only/quality/alpha");
    assert!((a.unwrap() - 0.65).abs() < 1e-12 && ci, "{a:?}");
    // Among Ann (1, 2, 3, 4), Bob and Cy (2, 1, 4, 3 both): per unit Σ over ordered pairs is
    // 2·(1 + 1 + 0) = 4, over m − 1 = 2 → 2, D_o = 4·2/12 = 2/3; 12 values, three of each
    // 1..4 and their spread Σ(x − 2.5)² = 15: D_e = 2·12·15 / (12·11) = 30/11, α = 1 − 11/45.
    let (a, ci) = cell(&report.report, RUNS_AGREEMENT_TABLE, "score-only/quality/alpha");
    assert!((a.unwrap() - (1.0 - 11.0 / 45.0)).abs() < 1e-12 && ci, "{a:?}");
    let agree = report.report.table(RUNS_AGREEMENT_TABLE).unwrap();
    assert_eq!(agree.rows[0].cells[1].value, Some(3.0));
    // The submissions table counts each file's runs.
    let subs = report.report.table(class::SUBMISSIONS_TABLE).unwrap();
    let at = subs.columns.iter().position(|c| c.label == "Judge runs").unwrap();
    assert!(subs.rows.iter().all(|r| r.cells[at].value == Some(1.0)));
    // The exports a screen and `concord class` write are the report's own.
    let names: Vec<String> = report.report.files(Format::Csv).into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["class-submissions.csv", "class-runs.csv", "class-runs-agreement.csv"]);
}

#[test]
fn one_student_or_no_reference_says_why_there_is_no_number() {
    let ex = exercise();
    let ann = submit(&ex, "Ann", ANN, "model-a");
    let report = class_report(&ex, &[("ann.json".into(), ann)], class::RESAMPLING).report;
    let agree = report.table(RUNS_AGREEMENT_TABLE).unwrap();
    let alpha = &agree.rows[0].cells[3];
    assert_eq!(alpha.value, None);
    assert!(alpha.note.as_deref().unwrap().contains("needs two students"), "{alpha:?}");

    let mut no_reference = exercise();
    no_reference.reference.ratings.clear();
    let ann = submit(&no_reference, "Ann", ANN, "model-a");
    let report = class_report(&no_reference, &[("ann.json".into(), ann)], class::RESAMPLING).report;
    let runs = report.table(RUNS_TABLE).unwrap();
    let r = &runs.rows[0].cells[4];
    assert_eq!(r.value, None);
    assert!(r.note.as_deref().unwrap().contains("no reference"), "{r:?}");

    let report = class_report(&exercise(), &[], class::RESAMPLING).report;
    let runs = report.table(RUNS_TABLE).unwrap();
    assert!(runs.rows.is_empty());
    assert!(runs.notes[0].contains("No submission holds a run"), "{:?}", runs.notes);
}
