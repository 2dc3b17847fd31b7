//! The classroom's alternative annotator test (issue 38): an exercise whose students are the
//! annotators and whose judges are the teacher's judge runs. The class view shows the Results
//! panel's alt-test tables over the students; with the SummEval experts' annotations as three
//! students' submissions it reproduces the paper's published result (no judge passes at
//! ε = 0.2, and each judge's ρ).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use concord_core::bundle::ExtraRater;
use concord_core::data::{self, Dataset};
use concord_core::judge::parse::Policy;
use concord_core::report::Table;
use concord_core::study::exercise::{
    Exercise, ExerciseError, ExerciseSpec, Submission, Task, class_report,
};
use concord_core::study::validity::{ALT_TEST_TABLE, annotator_table_id};
use concord_core::study::workbench::import::imported_runs;
use concord_core::study::workbench::review::Resampling;

const ITEMS: usize = 40;
/// Few resamples: the bootstrap intervals of the other class tables are not under test here.
const QUICK: Resampling = Resampling { resamples: 20, seed: 26, confidence: 0.95 };

fn truth(i: usize) -> f64 {
    1.0 + ((i * 7) % 5) as f64
}

fn dataset() -> Dataset {
    let mut csv = String::from("id,doc_id,system_id,source,output,quality\n");
    for i in 0..ITEMS {
        csv.push_str(&format!("i{i},d{},s{},text {i},output {i},{}\n", i / 2, i % 2, truth(i)));
    }
    data::load("forty.csv", csv.as_bytes()).unwrap().dataset
}

fn spec(attributes: &[&str]) -> ExerciseSpec {
    ExerciseSpec {
        id: "alt".into(),
        title: "Can the judge replace us?".into(),
        created: "2026-11-26T07:00:00Z".into(),
        instructions: "Rate quality.".into(),
        attributes: attributes.iter().map(|s| s.to_string()).collect(),
        sample: None,
        hide_reference: true,
        coeval: None,
    }
}

fn rater(name: &str, score: impl Fn(usize) -> f64) -> ExtraRater {
    ExtraRater {
        name: name.into(),
        attribute: "quality".into(),
        scores: (0..ITEMS).map(|i| (format!("i{i}"), score(i))).collect(),
    }
}

/// A judge one point off on every fourth item: better than a student who guesses, worse than
/// the two careful ones.
fn judge() -> ExtraRater {
    rater("planted", |i| if i % 4 == 0 { (truth(i) % 5.0) + 1.0 } else { truth(i) })
}

fn submit(ex: &Exercise, r: &ExtraRater) -> (String, Submission) {
    let s = Submission::new(ex, &r.name, "t".into(), std::slice::from_ref(r), &[]).unwrap();
    (format!("{}.json", r.name), s)
}

fn cell_text<'a>(t: &'a Table, row: &str, col: usize) -> &'a str {
    &t.rows.iter().find(|r| r.label == row).unwrap().cells[col].text
}

#[test]
fn the_students_are_the_annotators_of_the_alt_test() {
    let ex = Exercise::build(&dataset(), spec(&["quality"]), vec![judge()]).unwrap();
    assert_eq!(ex.version, 1);
    let ex = ex.with_alt_test(0.15).unwrap();
    assert_eq!(ex.version, 3, "the alt-test task is version 3");
    assert_eq!(ex.alt_test(), Some(0.15));
    assert!(ex.tasks.contains(&Task::AltTest { epsilon: 0.15 }));
    assert!(ex.unsupported().is_empty());
    assert!(Task::AltTest { epsilon: 0.15 }.describe().contains("ε = 0.15 (skilled)"));
    // The file round-trips and names its task.
    let json = ex.to_json();
    assert!(json.contains(r#""kind": "alt_test""#), "{json}");
    assert_eq!(Exercise::from_json(&json).unwrap(), ex);

    // Ann and Ben rate carefully (Ben is one point off on two items), Cy guesses.
    let ann = rater("Ann", truth);
    let ben = rater("Ben", |i| if i == 3 || i == 17 { (truth(i) % 5.0) + 1.0 } else { truth(i) });
    let cy = rater("Cy", |i| 1.0 + ((i * 3 + 1) % 5) as f64);
    let files = vec![submit(&ex, &ann), submit(&ex, &ben), submit(&ex, &cy)];
    let class = class_report(&ex, &files, QUICK);
    let summary = class.report.table(ALT_TEST_TABLE).unwrap();
    assert_eq!(cell_text(summary, "planted", 2), "3", "three students tested");
    assert_eq!(cell_text(summary, "planted", 4), "0.33", "the judge beats one of three");
    assert_eq!(cell_text(summary, "planted", 5), "no");
    let per = class.report.table(&annotator_table_id(0, "planted")).unwrap();
    assert_eq!(cell_text(per, "Ann", 4), "no");
    assert_eq!(cell_text(per, "Ben", 4), "no");
    assert_eq!(cell_text(per, "Cy", 4), "yes");
    assert!(per.title.contains("ε = 0.15 (skilled)"), "{}", per.title);
    // Without the task, no alt-test table.
    let plain = Exercise::build(&dataset(), spec(&["quality"]), vec![judge()]).unwrap();
    let files: Vec<_> = [&ann, &ben, &cy].iter().map(|r| submit(&plain, r)).collect();
    assert!(class_report(&plain, &files, QUICK).report.table(ALT_TEST_TABLE).is_none());
}

#[test]
fn the_task_needs_ratings_judges_and_a_valid_epsilon() {
    let ex = Exercise::build(&dataset(), spec(&["quality"]), vec![]).unwrap();
    assert_eq!(ex.clone().with_alt_test(0.2).unwrap_err(), ExerciseError::AltTestNeedsJudges);
    let ex = Exercise::build(&dataset(), spec(&["quality"]), vec![judge()]).unwrap();
    assert!(matches!(ex.clone().with_alt_test(1.0), Err(ExerciseError::AltTestEpsilon(_))));
    assert!(ex.with_alt_test(-0.1).unwrap_err().to_string().contains("0.2 (experts)"));
}

/// The paper's SummEval row: three experts, six LLMs, negative RMSE, ε = 0.2 — no judge passes,
/// and each judge's advantage probability is the printed one. Here the experts are three
/// students of an exercise over the AltTest folder's instances.
#[test]
fn summeval_reproduces_with_the_experts_as_students() {
    let Some(dir) = common::shared("data/AltTest/data/summeval") else { return };
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let (h, l) = (read("human_annotations.json"), read("llm_annotations.json"));
    let loaded = data::annotations::load_folder(
        "summeval",
        ("human_annotations.json", &h),
        Some(("llm_annotations.json", &l)),
    )
    .unwrap();
    let d = &loaded.dataset;
    let (runs, _) = imported_runs(d, &loaded, "llm_annotations.json", Policy::Concord);
    let judges: Vec<ExtraRater> = runs
        .iter()
        .map(|r| ExtraRater {
            name: r.method.clone(),
            attribute: r.attribute.clone(),
            scores: r
                .run
                .records
                .iter()
                .map(|rec| match &rec.key {
                    data::RecordKey::Id(id) => (id.clone(), rec.parsed[0].1),
                    data::RecordKey::Item(_) => unreachable!(),
                })
                .collect(),
        })
        .collect();
    let ex = Exercise::build(d, spec(&["annotation"]), judges).unwrap().with_alt_test(0.2).unwrap();
    // Each expert's annotations as a student's ratings.
    let experts: Vec<(String, Submission)> = ["e0", "e1", "e2"]
        .iter()
        .map(|who| {
            let scores = d
                .items
                .iter()
                .filter_map(|item| {
                    let rating = item.ratings[0].as_ref()?;
                    let r = rating.raters.iter().find(|r| r.rater == *who)?;
                    Some((item.id.clone(), r.score))
                })
                .collect();
            let r = ExtraRater { name: who.to_string(), attribute: "annotation".into(), scores };
            (format!("{who}.json"), Submission::new(&ex, who, "t".into(), &[r], &[]).unwrap())
        })
        .collect();
    let quick = Resampling { resamples: 2, seed: 26, confidence: 0.95 };
    let class = class_report(&ex, &experts, quick);
    let summary = class.report.table(ALT_TEST_TABLE).unwrap();
    // PROVENANCE.md's printed rows (winning rate, advantage probability).
    let published = [
        ("gemini_flash", "0.46"),
        ("gemini_pro", "0.44"),
        ("gpt-4o", "0.48"),
        ("llama-31", "0.58"),
        ("gpt-4o-mini", "0.54"),
        ("mistral-v03", "0.62"),
    ];
    assert_eq!(summary.rows.len(), 6);
    for (llm, rho) in published {
        assert_eq!(cell_text(summary, llm, 4), "0.00", "{llm}: ω");
        assert_eq!(cell_text(summary, llm, 5), "no", "{llm}: passed");
        assert_eq!(cell_text(summary, llm, 6), rho, "{llm}: ρ");
    }
    assert!(summary.notes[0].contains("ε = 0.2 (experts)"), "{:?}", summary.notes);
    assert!(summary.notes[0].contains("neg_rmse"), "{:?}", summary.notes);
}
