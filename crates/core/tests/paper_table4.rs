//! Seed 002's Table 4 demo: the released files as pinned (SHA-256 checked), and the table that
//! sets the printed values beside those recomputed from the files (when `../shared/data` is
//! present).

// A failed unwrap is a failed test, which is what it should be here.
#![allow(clippy::unwrap_used)]

mod common;

use concord_core::data;
use concord_core::judge::parse::Policy;
use concord_core::study::workbench::import::imported_runs;
use concord_core::study::workbench::paper::{self, ATTRIBUTES, TABLE_4};
use concord_core::study::workbench::{JudgedRun, compute};

#[test]
fn files_are_pinned_to_one_commit() {
    let d = paper::dataset_file();
    assert!(d.url.contains(paper::COMMIT), "{}", d.url);
    let files = paper::run_files("naturalness").unwrap();
    assert_eq!(files.len(), 5);
    assert_eq!(files[3].name, "gpt3.5_nat_rate_explain.json");
    assert_eq!(
        files[3].url,
        format!(
            "https://raw.githubusercontent.com/{}/{}/results/topical_chat/gpt3.5_nat_rate_explain.json",
            paper::REPOSITORY,
            paper::COMMIT
        )
    );
    assert!(paper::run_files("overall").is_err());
    let e = files[0].check(b"not the file").unwrap_err();
    assert!(
        e.to_string().starts_with(
            "gpt3.5_nat_geval.json is not the file released at d223302/A-Closer-Look-To-LLM-Evaluation@90084422: its SHA-256 is "
        ),
        "{e}"
    );
}

fn released(attribute: &str, policy: Policy) -> Option<(data::Dataset, Vec<JudgedRun>)> {
    let root = common::shared("data/A-Closer-Look-To-LLM-Evaluation")?;
    let file = paper::dataset_file();
    let bytes = std::fs::read(root.join("data").join(&file.name)).unwrap();
    file.check(&bytes).unwrap();
    let dataset = data::load(&file.name, &bytes).unwrap().dataset;
    let mut runs = Vec::new();
    for f in paper::run_files(attribute).unwrap() {
        let bytes = std::fs::read(root.join("results/topical_chat").join(&f.name)).unwrap();
        f.check(&bytes).unwrap();
        let loaded = data::load(&f.name, &bytes).unwrap();
        let (new, problems) = imported_runs(&dataset, &loaded, &f.name, policy);
        assert!(problems.is_empty(), "{problems:?}");
        runs.extend(new);
    }
    Some((dataset, runs))
}

#[test]
fn every_released_file_passes_its_check_and_reproduces_table_4() {
    let mut all = Vec::new();
    let mut dataset = None;
    for (_, attribute) in ATTRIBUTES {
        let Some((d, runs)) = released(attribute, paper::POLICY) else { return };
        dataset = Some(d);
        all.extend(runs);
    }
    let dataset = dataset.unwrap();
    let table = compute(&dataset, &all, None);
    let t = paper::reproduction(&table, &all).unwrap();
    assert_eq!(t.rows.len(), 5);
    assert_eq!(t.columns.len(), 16);
    assert!(t.notes[0].starts_with("40 of 40 values"), "{:?}", t.notes);
    // The rate-explain row under naturalness, against the paper's page (not the core's
    // constants): printed 0.621 / 0.512, recomputed the same.
    assert_eq!(t.cell(3, 0).unwrap().value, Some(0.621));
    assert_eq!(t.cell(3, 2).unwrap().value, Some(0.512));
    let r = t.keyed("rate_explain/naturalness/r").unwrap().value.unwrap();
    assert_eq!((r * 1000.0).round(), 621.0);
    let tau = t.keyed("rate_explain/naturalness/tau").unwrap().value.unwrap();
    assert_eq!((tau * 1000.0).round(), 512.0);
    assert_eq!(TABLE_4[3][0], (0.621, 0.512));
    assert!(t.notes.iter().all(|n| !n.contains("another parser")));
}

#[test]
fn one_column_and_another_parser_are_said() {
    let Some((dataset, runs)) = released("groundedness", Policy::Concord) else { return };
    let table = compute(&dataset, &runs, None);
    let t = paper::reproduction(&table, &runs).unwrap();
    assert_eq!(t.columns.len(), 4);
    assert_eq!(t.columns[0].group.as_deref(), Some("groundedness"));
    assert!(t.notes.iter().any(|n| n.contains("another parser")), "{:?}", t.notes);
    // A table without the released files has no such table.
    let own: Vec<JudgedRun> = runs
        .into_iter()
        .map(|mut r| {
            r.origin = "study".into();
            r
        })
        .collect();
    assert!(paper::reproduction(&compute(&dataset, &own, None), &own).is_none());
}
