//! Classroom exercises (`study::exercise`): the exercise file built from a dataset and checked
//! on open, the seeded sample, the submission, and the class view's numbers on ratings whose
//! statistics can be worked out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use concord_core::bundle::ExtraRater;
use concord_core::data::{self, Dataset};
use concord_core::report::{Format, Plot};
use concord_core::study::exercise::class::{self, Status};
use concord_core::study::exercise::{
    Exercise, ExerciseError, ExerciseSpec, Submission, SubmissionError, class_report,
};
use concord_core::study::workbench::review::Resampling;

/// Four items (i1..i4) whose human quality is 1, 2, 3, 4, and a second attribute.
fn dataset() -> Dataset {
    let csv = "id,doc_id,system_id,source,output,quality,style\n\
               i1,d1,a,text one,out one,1,2\n\
               i2,d1,b,text one,out two,2,2\n\
               i3,d2,a,text two,out three,3,4\n\
               i4,d2,b,text two,out four,4,5\n";
    data::load("four.csv", csv.as_bytes()).unwrap().dataset
}

fn spec() -> ExerciseSpec {
    ExerciseSpec {
        id: "ex1".into(),
        title: "Rate quality".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "# Read\nRate *quality*.".into(),
        attributes: vec!["quality".into()],
        sample: None,
        hide_reference: true,
        coeval: None,
    }
}

fn judge(scores: [f64; 4]) -> ExtraRater {
    ExtraRater {
        name: "score-only".into(),
        attribute: "quality".into(),
        scores: ["i1", "i2", "i3", "i4"].iter().map(|s| s.to_string()).zip(scores).collect(),
    }
}

fn exercise() -> Exercise {
    Exercise::build(&dataset(), spec(), vec![judge([4.0, 3.0, 2.0, 1.0])]).unwrap()
}

fn rater(student: &str, scores: [f64; 4]) -> ExtraRater {
    ExtraRater { name: student.into(), ..judge(scores) }
}

fn submit(ex: &Exercise, student: &str, scores: [f64; 4]) -> Submission {
    let time: Vec<(String, u64)> = vec![("i1".into(), 30_000), ("i2".into(), 30_000)];
    Submission::new(ex, student, "t".into(), &[rater(student, scores)], &time).unwrap()
}

#[test]
fn an_exercise_keeps_the_chosen_attributes_and_hides_the_reference_in_its_own_field() {
    let ex = exercise();
    assert_eq!(ex.attributes(), ["quality"]);
    assert_eq!(ex.dataset.items, 4);
    // The items carry no human rating: those are the reference, kept apart.
    assert!(ex.dataset.embedded.items.iter().all(|i| i.ratings == vec![None]));
    let reference = ex.reference_of("quality").unwrap();
    assert_eq!(reference.scores.iter().map(|(_, x)| *x).collect::<Vec<_>>(), [1.0, 2.0, 3.0, 4.0]);
    assert!(ex.reference.hidden);
    assert_eq!(ex.judges.len(), 1);
    assert!(ex.unsupported().is_empty());
    let back = Exercise::from_json(&ex.to_json()).unwrap();
    assert_eq!(back, ex);
    assert_eq!(back.sha256(), ex.sha256());
    assert_eq!(ex.sha256().len(), 64);
}

#[test]
fn a_sample_is_seeded_recorded_and_in_the_dataset_order() {
    let mut s = spec();
    s.sample = Some((2, 7));
    let a = Exercise::build(&dataset(), s.clone(), Vec::new()).unwrap();
    let b = Exercise::build(&dataset(), s.clone(), Vec::new()).unwrap();
    assert_eq!(a, b, "the same seed gives the same sample");
    let sample = a.sample.unwrap();
    assert_eq!((sample.of, sample.size, sample.seed), (4, 2, 7));
    let ids: Vec<&str> = a.dataset.embedded.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids.len(), 2);
    let order = ["i1", "i2", "i3", "i4"];
    let pos: Vec<usize> =
        ids.iter().map(|id| order.iter().position(|o| o == id).unwrap()).collect();
    assert!(pos[0] < pos[1], "{ids:?}");
    // The reference covers the sampled items only.
    assert_eq!(a.reference_of("quality").unwrap().scores.len(), 2);
    // Different seeds eventually give a different sample.
    let others: Vec<Vec<String>> = (0..20)
        .map(|seed| {
            s.sample = Some((2, seed));
            let e = Exercise::build(&dataset(), s.clone(), Vec::new()).unwrap();
            e.dataset.embedded.items.iter().map(|i| i.id.clone()).collect()
        })
        .collect();
    assert!(others.iter().any(|o| *o != others[0]));
}

#[test]
fn building_refuses_what_cannot_be_an_exercise() {
    let d = dataset();
    let with = |f: fn(&mut ExerciseSpec)| {
        let mut s = spec();
        f(&mut s);
        Exercise::build(&d, s, Vec::new()).unwrap_err()
    };
    assert_eq!(with(|s| s.attributes.clear()), ExerciseError::NoAttribute);
    assert_eq!(
        with(|s| s.attributes = vec!["tone".into()]),
        ExerciseError::UnknownAttribute("tone".into())
    );
    assert_eq!(with(|s| s.sample = Some((0, 1))), ExerciseError::EmptySample(4));
    assert_eq!(with(|s| s.sample = Some((5, 1))), ExerciseError::EmptySample(4));
    assert_eq!(with(|s| s.title = "  ".into()), ExerciseError::NoTitle);
    assert_eq!(
        Exercise::build(&Dataset::default(), spec(), Vec::new()).unwrap_err(),
        ExerciseError::NoItems
    );
}

#[test]
fn opening_names_what_is_wrong_with_the_file() {
    let ex = exercise();
    let json = ex.to_json();
    let damaged = Exercise::from_json(&json[..json.len() / 2]).unwrap_err();
    assert!(matches!(damaged, ExerciseError::Malformed { .. }), "{damaged}");
    assert!(damaged.to_string().starts_with("not a valid exercise file (line "));

    let newer = json.replacen("\"version\": 1", "\"version\": 9", 1);
    let e = Exercise::from_json(&newer).unwrap_err();
    assert_eq!(e, ExerciseError::TooNew { version: 9 });
    assert!(e.to_string().contains("open it with a newer Concord"));

    let other = json.replacen("concord-exercise", "something-else", 1);
    assert!(matches!(
        Exercise::from_json(&other).unwrap_err(),
        ExerciseError::NotAnExercise { .. }
    ));
    let submission = submit(&ex, "Ann", [1.0, 2.0, 3.0, 4.0]).to_json();
    let e = Exercise::from_json(&submission).unwrap_err();
    assert!(e.to_string().contains("it is a student's submission"), "{e}");

    let edited = json.replacen("out three", "out 3", 1);
    let e = Exercise::from_json(&edited).unwrap_err();
    assert!(matches!(e, ExerciseError::HashMismatch { .. }), "{e}");
    assert!(e.to_string().starts_with("the exercise's items were changed after it was saved"));
}

#[test]
fn a_submission_holds_the_exercise_hash_the_ratings_and_the_time_never_a_key() {
    let ex = exercise();
    // A rater of another attribute, and one of another name, are left out.
    let raters = vec![
        rater("Ann", [1.0, 2.0, 3.0, 4.0]),
        ExtraRater { attribute: "style".into(), ..rater("Ann", [1.0; 4]) },
        rater("Bob", [5.0; 4]),
    ];
    let time = vec![("i1".to_owned(), 1000), ("i1".to_owned(), 500), ("x".to_owned(), 9)];
    let s = Submission::new(&ex, " Ann ", "t".into(), &raters, &time).unwrap();
    assert_eq!(s.student, "Ann");
    assert_eq!(s.exercise.sha256, ex.sha256());
    assert_eq!(s.ratings, vec![rater("Ann", [1.0, 2.0, 3.0, 4.0])]);
    assert_eq!(s.time_ms, vec![("i1".to_owned(), 1500)]);
    assert_eq!(s.items_rated(), 4);
    let untimed = Submission::new(&ex, "Ann", "t".into(), &raters, &[]).unwrap();
    assert_eq!(untimed.seconds().to_bits(), 0.0_f64.to_bits(), "no time is 0, not -0");
    assert_eq!(s.seconds(), 1.5);
    assert_eq!(s.file_name(), "concord-submission-ex1-Ann.json");
    let json = s.to_json();
    assert!(!json.to_lowercase().contains("key"), "{json}");
    assert_eq!(Submission::from_json(&json).unwrap(), s);
    assert_eq!(
        Submission::new(&ex, "", "t".into(), &raters, &time).unwrap_err(),
        SubmissionError::NoName
    );
    assert_eq!(
        Submission::new(&ex, "Cy", "t".into(), &raters, &time).unwrap_err(),
        SubmissionError::NothingRated
    );
    assert_eq!(Submission::from_json(&ex.to_json()).unwrap_err(), SubmissionError::NotASubmission);
}

/// Ann rates as the reference (r = τ = α = 1); Bob reverses it (r = τ = −1); Cy swaps the
/// middle two: r = 4/5 (deviations ±1.5, ±0.5, cross-products 2.25 − 0.25 − 0.25 + 2.25 = 4
/// over 5), τ-b = (5 − 1)/6 (one discordant pair of six), and α(reference, Cy) = 1 − Do/De with
/// Do = 4/8 (two units differing by one, each counted twice) and De = 2·(8·60 − 20²)/(8·7)
/// = 160/56, so α = 1 − 0.175 = 0.825.
#[test]
fn the_class_view_measures_each_student_and_the_class_by_hand_checkable_numbers() {
    let ex = exercise();
    let ann = submit(&ex, "Ann", [1.0, 2.0, 3.0, 4.0]);
    let bob = submit(&ex, "Bob", [4.0, 3.0, 2.0, 1.0]);
    let cy = submit(&ex, "Cy", [1.0, 3.0, 2.0, 4.0]);
    let mut other = exercise();
    other.title = "Another".into();
    let stranger = submit(&other, "Dee", [1.0; 4]);
    let files = vec![
        ("ann.json".to_owned(), ann.clone()),
        ("bob.json".to_owned(), bob),
        ("cy.json".to_owned(), cy),
        ("ann-again.json".to_owned(), ann),
        ("dee.json".to_owned(), stranger),
    ];
    let r = Resampling { resamples: 200, seed: 1, confidence: 0.95 };
    let out = class_report(&ex, &files, r);
    let statuses: Vec<&Status> = out.merged.entries.iter().map(|e| &e.status).collect();
    assert_eq!(statuses[..3], [&Status::Used, &Status::Used, &Status::Used]);
    assert_eq!(statuses[3], &Status::Duplicate { of: "ann.json".into() });
    assert!(matches!(statuses[4], Status::OtherExercise { .. }));
    assert!(out.merged.conflicts.is_empty());
    assert_eq!(out.merged.entries[0].seconds, 60.0);
    // The Time column: seconds as the value, said as people say it.
    let subs = out.report.table(class::SUBMISSIONS_TABLE).unwrap();
    assert_eq!(subs.columns[2].label, "Time");
    assert_eq!(subs.rows[0].cells[2].value, Some(60.0));
    assert_eq!(subs.rows[0].cells[2].text, "1 min");

    let students = out.report.table(class::STUDENTS_TABLE).unwrap();
    let value = |key: &str| students.keyed(key).unwrap_or_else(|| panic!("{key}")).value;
    assert_eq!(value("Ann/quality/reference/pearson"), Some(1.0));
    assert_eq!(value("Ann/quality/reference/alpha"), Some(1.0));
    assert!((value("Bob/quality/reference/pearson").unwrap() + 1.0).abs() < 1e-12);
    assert!((value("Bob/quality/reference/kendall_b").unwrap() + 1.0).abs() < 1e-12);
    assert!((value("Cy/quality/reference/pearson").unwrap() - 0.8).abs() < 1e-12);
    assert!((value("Cy/quality/reference/kendall_b").unwrap() - 4.0 / 6.0).abs() < 1e-12);
    assert!((value("Cy/quality/reference/alpha").unwrap() - 0.825).abs() < 1e-12);
    // The judge reverses the reference: Bob agrees with it perfectly.
    assert!((value("Bob/quality/judge score-only/pearson").unwrap() - 1.0).abs() < 1e-12);
    let cell = students.keyed("Cy/quality/reference/pearson").unwrap();
    assert_eq!(cell.n, Some(4));
    let ci = cell.interval.as_ref().expect("an interval");
    assert!(ci.low <= ci.high && ci.high <= 1.0 + 1e-12);
    // 3 students × (reference + 1 judge).
    assert_eq!(students.rows.len(), 6);

    // Among the three students: α of the 3 × 4 matrix, recomputed with the core's α.
    let agreement = out.report.table(class::AGREEMENT_TABLE).unwrap();
    let alpha = agreement.keyed("quality/alpha").unwrap();
    let matrix = vec![
        vec![Some(1.0), Some(2.0), Some(3.0), Some(4.0)],
        vec![Some(4.0), Some(3.0), Some(2.0), Some(1.0)],
        vec![Some(1.0), Some(3.0), Some(2.0), Some(4.0)],
    ];
    let expected = concord_core::stats::krippendorff_alpha(
        &matrix,
        concord_core::stats::KrippendorffLevel::Interval,
    );
    assert_eq!(alpha.value, expected.value);
    assert_eq!(agreement.rows[0].cells[0].text, "3");

    // One histogram per attribute, one bin per scale point, every kept rating counted once.
    assert_eq!(out.report.figures.len(), 1);
    let Plot::Histogram(h) = &out.report.figures[0].plot else { panic!("a histogram") };
    assert_eq!(h.values.len(), 12);
    let (_, counts) = h.counts();
    assert_eq!(counts, [3, 3, 3, 3]);

    // The same files give the same bytes (the intervals are seeded), also built a step at a
    // time: one step per student and comparison (3 × 2) and one for the students' α.
    let again = class_report(&ex, &files, r);
    assert_eq!(again.report.to_text(Format::Csv), out.report.to_text(Format::Csv));
    let mut builder = class::ClassBuilder::new(&ex, &files, r);
    assert_eq!(builder.progress(), (0, 7));
    let mut steps = 1;
    while !builder.step() {
        steps += 1;
    }
    assert_eq!((steps, builder.progress()), (7, (7, 7)));
    assert_eq!(builder.finish().report, out.report);
}

#[test]
fn a_second_file_of_a_student_with_other_ratings_is_a_conflict_the_later_wins() {
    let ex = exercise();
    let first = submit(&ex, "Ann", [1.0, 2.0, 3.0, 4.0]);
    let second = submit(&ex, "Ann", [1.0, 2.0, 4.0, 4.0]);
    let files = vec![("a1.json".to_owned(), first), ("a2.json".to_owned(), second)];
    let out = class_report(&ex, &files, class::RESAMPLING);
    assert_eq!(out.merged.kept, [1]);
    assert_eq!(out.merged.entries[0].status, Status::Overridden { by: "a2.json".into() });
    assert_eq!(out.merged.conflicts.len(), 1);
    let c = &out.merged.conflicts[0];
    assert_eq!((c.item.as_str(), c.kept, c.overridden), ("i3", Some(4.0), Some(3.0)));
    let t = out.report.table(class::CONFLICTS_TABLE).unwrap();
    assert_eq!(t.rows.len(), 1);
    // One student: no agreement among students, and it says why.
    let agreement = out.report.table(class::AGREEMENT_TABLE).unwrap();
    assert_eq!(agreement.rows[0].cells[2].note.as_deref(), Some("needs two students' ratings"));
}

/// The seed-002 workbench takes raters from several files without replacing its own.
#[test]
fn raters_from_several_files_join_without_replacing_those_here() {
    use concord_core::study::workbench::import::add_raters;
    let d = dataset();
    let ex = exercise();
    let mut here = vec![rater("Ann", [1.0, 2.0, 3.0, 4.0])];
    // A submission of Bob, one of Ann with other ratings, one of Ann with the same.
    let bob = submit(&ex, "Bob", [4.0, 3.0, 2.0, 1.0]);
    let added = add_raters(&d, &mut here, bob.ratings, "bob.json");
    assert_eq!((added.added, added.already_here, added.conflicts.len()), (1, 0, 0));
    let other_ann = submit(&ex, "Ann", [5.0; 4]);
    let added = add_raters(&d, &mut here, other_ann.ratings, "ann2.json");
    assert_eq!(added.added, 0);
    assert_eq!(
        added.conflicts[0].to_string(),
        "ann2.json: “Ann” already rated quality here with other scores; the ones here are kept (rename the rater in one of the files to keep both)"
    );
    let same = submit(&ex, "Ann", [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(add_raters(&d, &mut here, same.ratings, "ann.json").already_here, 1);
    assert_eq!(here.len(), 2);
    assert_eq!(here[0], rater("Ann", [1.0, 2.0, 3.0, 4.0]), "the rater here is kept");
    // A rater of items this dataset does not have is named and left out.
    let stranger = ExtraRater { scores: vec![("zz".into(), 1.0)], ..rater("Dee", [1.0; 4]) };
    let added = add_raters(&d, &mut here, vec![stranger], "dee.json");
    assert_eq!(added.unmatched, ["Dee (quality)"]);
    assert_eq!(here.len(), 2);
}

// ---- Scrutinise a CoEval study -------------------------------------------------------------

mod scrutiny {
    use super::*;
    use concord_core::coeval::{Action, Event, Log, Part};
    use concord_core::judge::coeval::TaskInfo;
    use concord_core::report::Table;
    use concord_core::study::coeval::{Evaluation, Snapshot, Study};
    use concord_core::study::exercise::Task;
    use std::collections::BTreeMap;

    const C1: &str = "1. Fluent.";
    const C2: &str = "2. On topic.";

    /// Two instances, two criteria, the LLM's four evaluations (scores 4, 5, 3, 2).
    fn study() -> Study {
        let info = TaskInfo {
            description: "to write a story".into(),
            input_name: "story requirement".into(),
            output_name: "story".into(),
        };
        let instances = vec![
            ("A cat.".to_owned(), "The cat slept.".to_owned(), "turbo".to_owned()),
            ("A dog.".to_owned(), "The dog ran home.".to_owned(), "human".to_owned()),
        ];
        let mut s = Study::typed("tiny", info, vec![C1.into(), C2.into()], instances);
        for (i, c, answer) in [
            ("i1", C1, "1. Fluent.\n\n2. Score: 4\n\n3. Evidence: \"The cat slept.\""),
            ("i1", C2, "1. On topic.\n\n2. Score: 5\n\n3. Evidence: \"cat\""),
            ("i2", C1, "1. Fluent enough.\n\n2. Score: 3\n\n3. Evidence: \"ran home\""),
            ("i2", C2, "1. Yes.\n\n2. Score: 2\n\n3. Evidence: none"),
        ] {
            s.evaluations.push(Evaluation::from_response(i, c, answer));
        }
        s
    }

    fn log(events: Vec<Event>) -> Log {
        Log::from_events(events).unwrap()
    }

    fn crit(c: &str, action: Action) -> Event {
        let text = matches!(action, Action::Revise).then(|| format!("{c} (sharper)"));
        Event::Criterion { criterion: c.into(), action, text, reason: "r".into() }
    }

    /// The teacher's own trial run is on the device; the exercise must not carry it.
    fn snapshot() -> Snapshot {
        let mut logs = BTreeMap::new();
        logs.insert("Teacher".to_owned(), log(vec![crit(C1, Action::Delete)]));
        Snapshot::capture(&study(), "Teacher", &logs, &[])
    }

    fn coeval_exercise() -> Exercise {
        let spec = ExerciseSpec {
            attributes: Vec::new(),
            coeval: Some(snapshot()),
            title: "Scrutinise the story criteria".into(),
            ..spec()
        };
        Exercise::build(&dataset(), spec, Vec::new()).unwrap()
    }

    fn ann() -> Log {
        log(vec![
            crit(C1, Action::Approve),
            crit(C2, Action::Revise),
            Event::Part {
                instance: "i1".into(),
                criterion: C1.into(),
                part: Part::Score,
                action: Action::Revise,
                text: Some("Score: 3".into()),
                reason: "too generous".into(),
            },
            Event::Score { instance: "i1".into(), criterion: C1.into(), score: 3.0 },
            Event::Timer { instance: "i1".into(), ms: 60_000 },
            Event::Timer { instance: "i2".into(), ms: 30_000 },
        ])
    }

    fn bob(c2: Action) -> Log {
        log(vec![
            crit(C2, c2),
            Event::Score { instance: "i1".into(), criterion: C1.into(), score: 4.0 },
            Event::Score { instance: "i2".into(), criterion: C1.into(), score: 3.0 },
        ])
    }

    fn submit(ex: &Exercise, student: &str, log: &Log) -> Submission {
        Submission::new(ex, student, "t".into(), &[], &[]).unwrap().with_coeval(ex, log).unwrap()
    }

    fn table<'a>(tables: &'a [Table], id: &str) -> &'a Table {
        tables.iter().find(|t| t.id == id).unwrap_or_else(|| panic!("no table {id}"))
    }

    fn row(t: &Table, head: &str) -> Vec<String> {
        t.rows.iter().find(|r| r.label == head).unwrap().cells.iter().map(|c| c.display()).collect()
    }

    #[test]
    fn an_exercise_carries_the_study_without_anyones_work_and_no_item_to_rate() {
        let ex = coeval_exercise();
        assert_eq!(ex.tasks, vec![Task::ScrutiniseCriteria]);
        assert!(!ex.rates() && ex.unsupported().is_empty());
        assert_eq!(ex.dataset.items, 0, "nothing of the workbench's dataset is embedded");
        let carried = ex.coeval.as_ref().unwrap();
        assert!(
            carried.logs.is_empty() && carried.annotator.is_empty() && carried.imported.is_empty()
        );
        let json = ex.to_json();
        assert!(!json.contains("Teacher"), "the teacher's trial decisions stay home");
        let back = Exercise::from_json(&json).unwrap();
        assert_eq!(back, ex);
        assert_eq!(back.coeval_study().unwrap().unwrap().evaluations.len(), 4);
        // Both tasks at once.
        let both = Exercise::build(
            &dataset(),
            ExerciseSpec { coeval: Some(snapshot()), ..spec() },
            Vec::new(),
        )
        .unwrap();
        assert_eq!(both.tasks.len(), 2);
        assert_eq!(both.dataset.items, 4);
        // Nothing asked for; a study without criteria; a damaged study.
        let none = ExerciseSpec { attributes: Vec::new(), ..spec() };
        assert_eq!(Exercise::build(&dataset(), none, Vec::new()), Err(ExerciseError::NoAttribute));
        let mut bare = snapshot();
        bare.criteria.clear();
        let empty = ExerciseSpec { attributes: Vec::new(), coeval: Some(bare), ..spec() };
        assert_eq!(Exercise::build(&dataset(), empty, Vec::new()), Err(ExerciseError::CoEvalEmpty));
        let damaged = json.replace("concord-coeval-snapshot", "something-else");
        assert!(matches!(Exercise::from_json(&damaged), Err(ExerciseError::CoEval(_))));
    }

    #[test]
    fn a_submission_carries_the_scrutiny_under_the_students_name() {
        let ex = coeval_exercise();
        let empty = Submission::new(&ex, "Ann", "t".into(), &[], &[]).unwrap();
        let timers_only = log(vec![Event::Timer { instance: "i1".into(), ms: 5 }]);
        assert_eq!(
            empty.clone().with_coeval(&ex, &timers_only),
            Err(SubmissionError::NothingScrutinised)
        );
        let s = submit(&ex, "Ann", &ann());
        let f = s.coeval.as_ref().unwrap();
        assert_eq!((f.person.as_str(), f.scope.as_str()), ("Ann", "tiny"));
        assert!((s.seconds() - 90.0).abs() < 1e-9, "the scrutiny's time counts");
        let back = Submission::from_json(&s.to_json()).unwrap();
        assert_eq!(back, s);
        // An exercise that also asks for ratings still needs them.
        let both = Exercise::build(
            &dataset(),
            ExerciseSpec { coeval: Some(snapshot()), ..spec() },
            Vec::new(),
        )
        .unwrap();
        assert_eq!(
            Submission::new(&both, "Ann", "t".into(), &[], &[]),
            Err(SubmissionError::NothingRated)
        );
    }

    #[test]
    fn the_class_view_shows_each_students_actions_and_the_study_over_the_class() {
        let ex = coeval_exercise();
        let files = vec![
            ("ann.json".to_owned(), submit(&ex, "Ann", &ann())),
            ("bob.json".to_owned(), submit(&ex, "Bob", &bob(Action::Delete))),
            ("ann-again.json".to_owned(), submit(&ex, "Ann", &ann())),
            ("bob-later.json".to_owned(), submit(&ex, "Bob", &bob(Action::Approve))),
        ];
        let out =
            class_report(&ex, &files, Resampling { resamples: 200, seed: 1, confidence: 0.95 });
        let tables = &out.report.tables;
        let statuses: Vec<&Status> = out.merged.entries.iter().map(|e| &e.status).collect();
        assert!(matches!(statuses[2], Status::Duplicate { .. }), "{statuses:?}");
        assert!(matches!(statuses[1], Status::Overridden { .. }), "{statuses:?}");
        // No rating task: no rating table.
        assert!(
            tables.iter().all(|t| t.id != class::STUDENTS_TABLE && t.id != class::AGREEMENT_TABLE)
        );
        let subs = table(tables, class::SUBMISSIONS_TABLE);
        assert_eq!(row(subs, "ann.json")[2], "3", "two criteria and one part");
        assert_eq!(row(subs, "bob-later.json")[2], "1");
        assert_eq!(row(subs, "ann.json")[3], "1 min 30 s", "the time counts the scrutiny's");
        use concord_core::study::exercise::scrutiny;
        let students = table(tables, scrutiny::STUDENTS_TABLE);
        assert_eq!(row(students, "Ann"), ["2", "1", "1", "100.00", "0.75"]);
        assert_eq!(
            row(students, "Bob"),
            ["1", "0", "2", "0.00", "–"],
            "own scores equal the LLM's"
        );
        // Bob's later file (approve) wins over his earlier one (delete).
        let criteria = table(tables, scrutiny::CRITERIA_TABLE);
        assert_eq!(row(criteria, "Ann"), ["50.00", "50.00", "0.00", "0.00", "2"]);
        assert_eq!(row(criteria, "Bob"), ["100.00", "0.00", "0.00", "0.00", "1"]);
        let parts = table(tables, scrutiny::PARTS_TABLE);
        assert_eq!(row(parts, "Ann"), ["0.00", "100.00", "0.00", "0.00", "1"]);
        let class5 = table(tables, "class-coeval-table5");
        assert_eq!(row(class5, "criteria"), ["66.67", "33.33", "0.00", "0.00", "3"]);
        let alpha = table(tables, "class-coeval-alpha");
        let raters: Vec<&str> = alpha.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(raters, ["LLM", "Ann", "Bob"]);
        let conflicts = table(tables, "class-coeval-conflicts");
        assert_eq!(conflicts.rows.len(), 1);
        assert_eq!(conflicts.rows[0].label, "Bob");
        assert!(out.report.figures.iter().any(|f| f.id == "class-coeval-alpha"));
        // A submission without a scrutiny is named, not counted.
        let bare = Submission { coeval: None, ..submit(&ex, "Cy", &ann()) };
        let with_bare = [files.clone(), vec![("cy.json".to_owned(), bare)]].concat();
        let out =
            class_report(&ex, &with_bare, Resampling { resamples: 200, seed: 1, confidence: 0.95 });
        let students = table(&out.report.tables, scrutiny::STUDENTS_TABLE);
        assert_eq!(students.rows.len(), 2);
        assert!(
            students.notes.iter().any(|n| n == "cy.json holds no scrutiny of the CoEval study")
        );
    }
}

/// The Submissions table's Time: whole seconds under a minute (a short session is not
/// "0.0 minutes"), then minutes and seconds, then hours and minutes.
#[test]
fn time_is_said_in_seconds_under_a_minute_then_minutes_then_hours() {
    use concord_core::study::exercise::class::format_duration;
    let cases = [
        (0.0, "under 1 s"),
        (0.4, "under 1 s"),
        (0.6, "1 s"),
        (4.6, "5 s"),
        (59.4, "59 s"),
        (59.6, "1 min"),
        (61.0, "1 min 1 s"),
        (754.0, "12 min 34 s"),
        (3599.4, "59 min 59 s"),
        (3600.0, "1 h"),
        (3600.0 + 29.0, "1 h"),
        (3600.0 + 31.0, "1 h 1 min"),
        (2.0 * 3600.0 + 5.0 * 60.0, "2 h 5 min"),
    ];
    for (seconds, said) in cases {
        assert_eq!(format_duration(seconds), said, "{seconds} s");
    }
    // In the table: a 4.2-second session, and one too quick to record any time.
    let ex = exercise();
    let quick =
        Submission::new(&ex, "Ann", "t".into(), &[rater("Ann", [1.0; 4])], &[("i1".into(), 4_200)])
            .unwrap();
    let untimed = Submission::new(&ex, "Bob", "t".into(), &[rater("Bob", [2.0; 4])], &[]).unwrap();
    let files = vec![("a.json".to_owned(), quick), ("b.json".to_owned(), untimed)];
    let r = Resampling { resamples: 200, seed: 1, confidence: 0.95 };
    let out = class_report(&ex, &files, r);
    let subs = out.report.table(class::SUBMISSIONS_TABLE).unwrap();
    assert_eq!(subs.rows[0].cells[2].text, "4 s");
    assert_eq!(subs.rows[0].cells[2].value, Some(4.2));
    assert_eq!(subs.rows[1].cells[2].value, Some(0.0));
    assert_eq!(subs.rows[1].cells[2].text, "under 1 s");
}

/// The students table says in words what its Against column holds, naming the judge.
#[test]
fn the_students_table_says_what_reference_and_judge_mean_in_words() {
    let ex = exercise();
    let files = vec![("a.json".to_owned(), submit(&ex, "Ann", [1.0, 2.0, 3.0, 4.0]))];
    let r = Resampling { resamples: 200, seed: 1, confidence: 0.95 };
    let out = class_report(&ex, &files, r);
    let note = &out.report.table(class::STUDENTS_TABLE).unwrap().notes[0];
    assert!(
        note.starts_with(
            "In the Against column, “reference” is the dataset's human rating (the aggregate of its raters), and “judge score-only” the ratings of the teacher's judge run “score-only”, carried in the exercise."
        ),
        "{note}"
    );
    assert!(!note.contains("judge m\""), "{note}");
}

#[test]
fn rate_attributes_ticked_without_an_attribute_is_refused() {
    use concord_core::study::exercise::{ExerciseError, check_rate_task};
    assert_eq!(check_rate_task(true, &[]), Err(ExerciseError::NoAttributeTicked));
    assert!(check_rate_task(true, &["coherence".to_owned()]).is_ok());
    assert!(check_rate_task(false, &[]).is_ok());
    assert!(ExerciseError::NoAttributeTicked.to_string().contains("no attribute is"));
}
