//! `concord table`'s computation: a small fixture checked against scipy, and — when
//! `../shared/data` is present — seed 002's Table 4 reproduced from the released files.

// A failed unwrap is a failed test, which is what it should be here.
#![allow(clippy::unwrap_used)]

mod common;

use concord_core::data::{self, Dataset, JudgeRun};
use concord_core::judge::parse::Policy;
use concord_core::report::export;
use concord_core::study::workbench::report::run_table;
use concord_core::study::workbench::scores::{Row, RunSpec, compute};
use std::path::{Path, PathBuf};

fn load(path: &Path) -> data::Loaded {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    data::load(name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn table(dataset: &Dataset, runs: &[(&str, &str, &JudgeRun)], policy: Policy) -> Vec<Row> {
    let specs: Vec<RunSpec<'_>> =
        runs.iter().map(|&(name, attribute, run)| RunSpec { name, attribute, run }).collect();
    compute(dataset, &specs, policy).unwrap()
}

fn close(got: Option<f64>, want: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what}: undefined"));
    assert!((got - want).abs() <= 1e-12, "{what}: got {got}, want {want}");
}

#[test]
fn fixture_matches_scipy() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge/table");
    let dataset = load(&dir.join("dataset.json")).dataset;
    let a = load(&dir.join("run_a.json")).runs.remove(0);
    let b = load(&dir.join("run_b.json")).runs.remove(0);
    let t =
        table(&dataset, &[("A", "naturalness", &a), ("B", "naturalness", &b)], Policy::CloserLook);
    // Reference: Chiang & Lee's parse_output + numpy nanmean + scipy 1.17.1 pearsonr /
    // spearmanr / kendalltau, per document skipping constant groups, Williams by §7's formula.
    let (ra, rb) = (&t[0], &t[1]);
    assert_eq!((ra.n, ra.parse_failures, rb.n, rb.parse_failures), (6, 2, 5, 0));
    close(ra.pearson.dataset, 0.9452167098712737, "A r");
    close(ra.spearman.dataset, 0.9276336570439175, "A rho");
    close(ra.kendall_b.dataset, 0.8280786712108251, "A tau");
    close(ra.pearson.document, 0.9632546127717235, "A r doc");
    close(ra.spearman.document, 1.0, "A rho doc");
    close(ra.kendall_b.document, 1.0, "A tau doc");
    close(rb.pearson.dataset, 0.9084083005021133, "B r");
    close(rb.spearman.dataset, 0.9486832980505138, "B rho");
    close(rb.kendall_b.dataset, 0.8944271909999159, "B tau");
    close(rb.pearson.document, 0.9588314677384067, "B r doc");
    close(rb.spearman.document, 0.9330127018922193, "B rho doc");
    close(rb.kendall_b.document, 0.908248290463863, "B tau doc");
    assert_eq!(ra.williams.p, None);
    close(rb.williams.p, 0.4809462157296497, "Williams p");

    // The same runs read with concord's policy: 2.5 is kept as 2.5 instead of 2.
    let c = table(&dataset, &[("A", "naturalness", &a)], Policy::Concord);
    assert_eq!(c[0].parse_failures, 2);
    assert_ne!(c[0].pearson.dataset, ra.pearson.dataset);

    assert_eq!(rb.williams.n, 5, "Williams uses the items both runs rated");

    // The table through the one set of exporters.
    let table = run_table(&t);
    let json: serde_json::Value = serde_json::from_str(&export::json(&table)).unwrap();
    let cell = |row: usize, col: usize| json["rows"][row]["cells"][col].clone();
    assert_eq!(cell(1, 9)["value"].as_f64(), rb.williams.p.map(export::portable));
    assert_eq!(cell(0, 9)["value"], serde_json::Value::Null);
    assert_eq!(cell(0, 8)["value"].as_f64(), Some(1.0), "A's τ-b at document level");
    assert_eq!(cell(1, 9)["note"].as_str(), None, "same n: no note");
    let md = export::markdown(&table);
    assert!(
        md.lines().nth(4).unwrap().starts_with("| A | naturalness | 6 | 2 | 0.945 | 0.963 |"),
        "{md}"
    );
    let csv = export::csv(&table);
    assert_eq!(csv.lines().count(), 3);
    assert!(export::latex(&table).contains("A & naturalness & 6 & 2 & 0.945 & 0.963"));
}

#[test]
fn williams_compares_runs_of_the_same_attribute_only() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge/table");
    let loaded = load(&dir.join("dataset.json"));
    let mut dataset = loaded.dataset;
    // A second attribute with the same human scores, so a run can rate it.
    let mut other = dataset.attributes[0].clone();
    other.name = "other".into();
    dataset.attributes.push(other);
    for item in &mut dataset.items {
        let r = item.ratings[0].clone();
        item.ratings.push(r);
    }
    let a = load(&dir.join("run_a.json")).runs.remove(0);
    let b = load(&dir.join("run_b.json")).runs.remove(0);
    let t = table(
        &dataset,
        &[("A", "naturalness", &a), ("B", "other", &b), ("C", "other", &a)],
        Policy::CloserLook,
    );
    assert_eq!(t[0].williams.p, None, "the first run of naturalness");
    assert_eq!(t[1].williams.p, None, "B is the first run of `other`: not compared with A");
    assert!(t[2].williams.p.is_some(), "C is compared with B, the first run of `other`");
    assert_eq!(t[2].williams.n, 5);
    // C's n (6) differs from the test's (5): the Williams cell says so.
    let table = run_table(&t);
    let note = table.rows[2].cells[9].note.clone().unwrap_or_default();
    assert_eq!(note, "on the 5 items both runs rated");
}

#[test]
fn unknown_attribute_is_an_error() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge/table");
    let dataset = load(&dir.join("dataset.json")).dataset;
    let a = load(&dir.join("run_a.json")).runs.remove(0);
    let specs = [RunSpec { name: "A", attribute: "fluency", run: &a }];
    let err = compute(&dataset, &specs, Policy::Concord).unwrap_err();
    assert!(err.to_string().contains("no attribute `fluency`"), "{err}");
}

const MODES: [&str; 5] =
    ["geval", "geval_no_auto_cot", "llm_eval_no_cot", "rate_explain", "analyze_rate"];
const ATTRIBUTES: [(&str, &str); 4] = [
    ("nat", "naturalness"),
    ("coh", "coherence"),
    ("eng", "engagingness"),
    ("gro", "groundedness"),
];

/// Seed 002 Table 4 (document-level r and τ, "Method 2"), rows in [`MODES`] order, columns
/// in [`ATTRIBUTES`] order as (r, τ): the printed values the app's demo compares with.
use concord_core::study::workbench::paper::TABLE_4;

/// Dataset-level r of the same runs ("Method 1", what Table 2 prints where it is consistent).
const DATASET_R: [[f64; 4]; 5] = [
    [0.393, 0.468, 0.549, 0.311],
    [0.408, 0.443, 0.557, 0.358],
    [0.464, 0.524, 0.611, 0.563],
    [0.569, 0.505, 0.564, 0.561],
    [0.524, 0.477, 0.567, 0.580],
];

/// Samples Chiang & Lee's own parser cannot read (counted by running it in Python).
const PARSE_FAILURES: [[usize; 4]; 5] =
    [[0, 0, 0, 3], [0, 3, 0, 1], [0, 10, 1, 44], [1, 0, 0, 2], [51, 17, 14, 6]];

fn round3(v: Option<f64>) -> f64 {
    (v.unwrap_or(f64::NAN) * 1000.0).round() / 1000.0
}

#[test]
fn reproduces_seed_002_table_4() {
    let Some(root) = common::shared("data/A-Closer-Look-To-LLM-Evaluation") else { return };
    let dataset = load(&root.join("data/topical_chat.json")).dataset;
    let mut cells = 0;
    for (a, (abbr, attribute)) in ATTRIBUTES.iter().enumerate() {
        let runs: Vec<JudgeRun> = MODES
            .iter()
            .map(|m| {
                load(&root.join(format!("results/topical_chat/gpt3.5_{abbr}_{m}.json")))
                    .runs
                    .remove(0)
            })
            .collect();
        let specs: Vec<(&str, &str, &JudgeRun)> =
            MODES.iter().zip(&runs).map(|(m, r)| (*m, *attribute, r)).collect();
        let t = table(&dataset, &specs, Policy::CloserLook);
        for (m, row) in t.iter().enumerate() {
            let (r, tau) = TABLE_4[m][a];
            assert_eq!(round3(row.pearson.document), r, "{abbr} {}: document r", MODES[m]);
            assert_eq!(round3(row.kendall_b.document), tau, "{abbr} {}: document tau", MODES[m]);
            assert_eq!(
                round3(row.pearson.dataset),
                DATASET_R[m][a],
                "{abbr} {}: dataset r",
                MODES[m]
            );
            assert_eq!(
                row.parse_failures, PARSE_FAILURES[m][a],
                "{abbr} {}: parse failures",
                MODES[m]
            );
            cells += 2;
        }
    }
    assert_eq!(cells, 40);
}

/// Seed 002 Table 3's "✓ rate-explain" row (dataset-level r, document-level τ) comes out only
/// when unparseable samples count as 0 — the `closer-look-zero` policy of their released
/// `all_eval.py` — while Table 4 needs them dropped (`closer-look`).
#[test]
fn reproduces_seed_002_table_3_auto_cot_row_with_zero_policy() {
    let Some(root) = common::shared("data/A-Closer-Look-To-LLM-Evaluation") else { return };
    let dataset = load(&root.join("data/topical_chat.json")).dataset;
    let want = [(0.554, 0.478), (0.512, 0.429), (0.613, 0.566), (0.555, 0.664)];
    for ((abbr, attribute), (r, tau)) in ATTRIBUTES.iter().zip(want) {
        let file =
            root.join(format!("results/topical_chat/gpt3.5_{abbr}_rate_explain_auto_cot.json"));
        let run = load(&file).runs.remove(0);
        let t =
            table(&dataset, &[("rate_explain_auto_cot", attribute, &run)], Policy::CloserLookZero);
        assert_eq!(round3(t[0].pearson.dataset), r, "{abbr}: dataset r");
        assert_eq!(round3(t[0].kendall_b.document), tau, "{abbr}: document tau");
    }
}
