//! The first insight one screen away (issue 36, items 11–16), as the core decides it: a
//! generic CSV's study, the warnings before a placeholder is sent, the document-level cells
//! that say why they are blank with the dataset's own count, the intervals' settings refused
//! where typed, what the review panel says of its saving, and a human rating's source.

#![allow(clippy::unwrap_used)]

use concord_core::bundle::Settings;
use concord_core::data::{self, Dataset, JudgeRecord, JudgeRun, RecordKey};
use concord_core::judge::parse::Policy;
use concord_core::judge::template::PartKind;
use concord_core::study::workbench::checks::{PromptIssue, prompt_warnings};
use concord_core::study::workbench::report::results_table;
use concord_core::study::workbench::review::{ReviewEvent, saved_line};
use concord_core::study::workbench::study::PLACEHOLDER_CRITERION;
use concord_core::study::workbench::{JudgedRun, default_study, is_default_study, score, tabulate};

/// `id,text,system,human score`: 10 texts from each of 3 systems, no document column.
fn generic() -> data::Loaded {
    let mut csv = String::from("id,text,system,human score\n");
    for i in 0..30 {
        csv.push_str(&format!("{},\"Answer {i}.\",sys{},{}\n", i + 1, i % 3, 1 + (i * 7) % 5));
    }
    data::load("ratings.csv", csv.as_bytes()).unwrap()
}

fn run_on(dataset: &Dataset, attribute: &str) -> JudgedRun {
    let records = dataset
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| JudgeRecord {
            key: RecordKey::Id(item.id.clone()),
            prompt: None,
            prompt_chars: None,
            responses: vec![format!("Rating: {}", 1 + (i * 3) % 5)],
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
        method: "rate-explain".into(),
        attribute: attribute.into(),
        policy: Policy::default(),
        weighting: None,
        run: JudgeRun { name: "rate-explain".into(), attribute: Some(attribute.into()), records },
        origin: "study".into(),
    }
}

#[test]
fn a_dataset_with_a_rating_opens_with_a_study_that_can_run() {
    let loaded = generic();
    let study = default_study(&loaded.dataset);
    assert_eq!(study.attributes, ["human score"]);
    let names: Vec<&str> = study.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["rate-explain"]);
    let m = &study.methods[0];
    assert_eq!(
        (m.sampling.n, m.sampling.temperature, m.sampling.max_tokens),
        (1, Some(1.0), Some(128))
    );
    assert!(is_default_study(&study, &loaded.dataset));
    // Unticking an attribute chooses what to judge: still the suggestion.
    let mut fewer = study.clone();
    fewer.attributes.clear();
    assert!(is_default_study(&fewer, &loaded.dataset));
    // Once methods were added, it is the user's: a second "Add methods" adds.
    let mut added = study.clone();
    added.suggested = false;
    assert!(!is_default_study(&added, &loaded.dataset));
    // Edited, it is the user's.
    let mut edited = study.clone();
    edited.methods[0].sampling.n = 3;
    assert!(!is_default_study(&edited, &loaded.dataset));
    // The built-in example fits SummEval's prompts: nothing to warn about.
    let example = data::example().unwrap().dataset;
    let study = default_study(&example);
    assert_eq!(study.methods.len(), 1);
    assert_eq!(prompt_warnings(&example, &study), []);
    // No items, no method.
    assert!(default_study(&Dataset::default()).methods.is_empty());
}

#[test]
fn a_placeholder_criterion_or_a_prompt_without_the_text_is_named_before_sending() {
    let loaded = generic();
    let dataset = &loaded.dataset;
    let mut study = default_study(dataset);
    let warnings = prompt_warnings(dataset, &study);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].issue, PromptIssue::PlaceholderCriterion);
    let said = warnings[0].to_string();
    assert!(
        said.starts_with("rate-explain / human score: the evaluation criteria are still the placeholder (“Edit this definition to match your annotation guidelines.”)"),
        "{said}"
    );
    // The criterion written, the warning goes; the item's text taken out, another comes.
    let template = study.methods[0].templates.get_mut("human score").unwrap();
    for part in &mut template.parts {
        if part.kind == PartKind::Criteria {
            part.text =
                part.text.replace(PLACEHOLDER_CRITERION, "5 is a complete, correct answer.");
        }
    }
    assert_eq!(prompt_warnings(dataset, &study), []);
    let template = study.methods[0].templates.get_mut("human score").unwrap();
    for part in &mut template.parts {
        if part.kind == PartKind::Sample {
            part.text = "Example:\n\nAn answer.".into();
        }
    }
    let warnings = prompt_warnings(dataset, &study);
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].issue, PromptIssue::NoItemText { field: "text".into() });
    assert!(warnings[0].to_string().contains("no {{text}} placeholder"), "{}", warnings[0]);
}

#[test]
fn document_level_cells_say_why_they_are_blank_with_the_datasets_count() {
    let loaded = generic();
    let dataset = &loaded.dataset;
    let runs = [run_on(dataset, "human score")];
    let table = tabulate(dataset, &score(dataset, &runs), None);
    let settings = Settings::default();
    let shown = results_table(&table, &settings.columns(), None, &settings);
    let tau = &shown.rows[0].cells[1];
    assert_eq!(tau.text, "–");
    assert_eq!(tau.n, Some(0));
    let note = tau.note.as_deref().unwrap();
    assert!(
        note.starts_with("n = 30 items in 30 documents, Kendall τ-b defined on 0 of them, parse failures = 0; undefined: every document holds one rated item"),
        "{note}"
    );
    assert_eq!(loaded.summary.counts.documents, 30, "the Data screen's count, the tooltip's");
    assert!(
        shown.notes.iter().any(|n| n.starts_with(
            "Document level is undefined: each of the 30 documents holds one rated item"
        )),
        "{:?}",
        shown.notes
    );
    // At dataset level only, no such note.
    let mut dataset_only = settings.clone();
    dataset_only.paper_layout = false;
    let shown = results_table(&table, &dataset_only.columns(), None, &dataset_only);
    assert!(!shown.notes.iter().any(|n| n.starts_with("Document level")));
    // With documents of three items, the short note as before.
    let example = data::example().unwrap().dataset;
    let runs = [run_on(&example, "coherence")];
    let table = tabulate(&example, &score(&example, &runs), None);
    let shown = results_table(&table, &settings.columns(), None, &settings);
    let note = shown.rows[0].cells[1].note.as_deref().unwrap();
    assert!(note.starts_with("n = 15 items, 5 documents, parse failures = 0"), "{note}");
}

#[test]
fn interval_settings_are_refused_where_typed_and_keep_their_value() {
    let mut s = Settings::default();
    s.set_resamples("2,000").unwrap();
    s.set_confidence("90").unwrap();
    s.set_seed(" 7 ").unwrap();
    assert_eq!((s.resamples, s.confidence, s.seed), (2000, 0.9, 7));
    assert_eq!(s.confidence_percent(), "90");
    for (field, text) in [
        ("resamples", "lots"),
        ("resamples", "10"),
        ("confidence", "100"),
        ("confidence", "0.95"),
        ("seed", "-1"),
    ] {
        let before = s.clone();
        let e = match field {
            "resamples" => s.set_resamples(text),
            "confidence" => s.set_confidence(text),
            _ => s.set_seed(text),
        }
        .unwrap_err();
        assert_eq!(s, before, "{field} {text}: unchanged");
        assert!(e.to_string().contains(&format!("`{text}`")), "{e}");
    }
    assert_eq!(
        s.set_resamples("lots").unwrap_err().to_string(),
        "Resamples: `lots` is not a whole number from 100 to 100,000"
    );
    s.set_confidence("99.5").unwrap();
    assert_eq!(s.confidence_percent(), "99.5");
}

#[test]
fn the_review_says_its_decisions_not_its_timer() {
    let timer = |ms| ReviewEvent::Timer { run: "r".into(), item: "i".into(), ms };
    let accept = ReviewEvent::Accept { run: "r".into(), item: "i".into() };
    assert_eq!(saved_line(&[], 0), "No decisions yet.");
    assert_eq!(saved_line(&[timer(5000), timer(5000)], 2), "No decisions yet.");
    assert_eq!(
        saved_line(&[timer(5000), accept.clone()], 2),
        "All 1 action saved in this browser."
    );
    let events = [accept.clone(), timer(10), accept.clone(), ReviewEvent::Undo];
    assert_eq!(saved_line(&events, 4), "All 3 actions saved in this browser.");
    assert_eq!(saved_line(&events, 2), "Saving… 1 of 3 actions saved.");
}

#[test]
fn a_human_rating_says_where_it_comes_from() {
    let loaded = generic();
    let rating = loaded.dataset.items[0].ratings[0].clone().unwrap();
    assert!(loaded.format.is_generic_table());
    assert_eq!(rating.describe(true), "1 (the file's value)");
    assert_eq!(rating.describe(false), "1 (the released aggregate)");
    let example = data::example().unwrap();
    let rating = example.dataset.items[0].ratings[0].clone().unwrap();
    assert_eq!(rating.describe(true), "4 (mean of r1 4, r2 4)");
}
