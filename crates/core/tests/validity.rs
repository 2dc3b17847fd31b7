//! Judge validity end to end in the core (issue 38): AltTest folders load as a dataset with its
//! raters and the LLMs as judge runs; any judge run of the workbench (samples parsed from its
//! responses) is tested against the raters; a planted study gives the expected per-annotator
//! verdicts; the selective-trust guarantee holds on the held-out half; the report's tables
//! and the bundle's settings.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

mod common;

use concord_core::bundle::Bundle;
use concord_core::data::{self, Aggregate, Format, JudgeRecord, JudgeRun, RecordKey, ScaleKind};
use concord_core::judge::parse::Policy;
use concord_core::stats::Scoring;
use concord_core::study::validity::{
    self, ALT_TEST_TABLE, ConfidenceSource, STABILITY_TABLE, Settings, TRUST_TABLE,
};
use concord_core::study::workbench::{self, JudgedRun, import::imported_runs};

const HUMANS: &str = r#"{
  "ann1": {"i1": "yes", "i2": "no", "i3": "yes", "i4": null},
  "ann2": {"i1": "yes", "i2": "yes", "i4": "no", "i5": ["a", 1]},
  "ann3": {"i2": "no", "i3": "maybe", "i5": ["a",1]}
}"#;
const LLMS: &str = r#"{
  "gpt": {"i1": "yes", "i2": "no", "i3": "yes", "i6": "no"},
  "tiny": {"i1": "no", "i2": null}
}"#;

fn folder() -> data::Loaded {
    data::annotations::load_folder(
        "toy",
        ("human_annotations.json", HUMANS.as_bytes()),
        Some(("llm_annotations.json", LLMS.as_bytes())),
    )
    .unwrap()
}

#[test]
fn an_annotations_folder_is_a_dataset_with_raters_and_judge_runs() {
    let loaded = folder();
    assert_eq!(loaded.format, Format::Annotations);
    let d = &loaded.dataset;
    assert_eq!(d.attributes.len(), 1);
    let a = &d.attributes[0];
    assert_eq!(a.scale.kind, ScaleKind::Categorical);
    // Labels sorted; a list is one label spelled as its compact JSON.
    assert_eq!(a.categories, [r#"["a",1]"#, "maybe", "no", "yes"]);
    // Items: the annotators' instances in first-named order, then the LLMs' (i6).
    let ids: Vec<&str> = d.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["i1", "i2", "i3", "i4", "i5", "i6"]);
    let i2 = d.items[1].ratings[0].as_ref().unwrap();
    let raters: Vec<(&str, Option<&str>)> =
        i2.raters.iter().map(|r| (r.rater.as_str(), a.label(r.score))).collect();
    assert_eq!(raters, [("ann1", Some("no")), ("ann2", Some("yes")), ("ann3", Some("no"))]);
    assert_eq!(i2.how, Aggregate::Majority);
    assert_eq!(a.label(i2.aggregate), Some("no"));
    // i4: ann1's null is no annotation; i6: nobody annotated it.
    assert_eq!(d.items[3].ratings[0].as_ref().unwrap().raters.len(), 1);
    assert!(d.items[5].ratings[0].is_none());
    // The LLMs are judge runs named after them, their value in `parsed`; nulls are dropped.
    let names: Vec<&str> = loaded.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["gpt", "tiny"]);
    assert_eq!(loaded.runs[1].records.len(), 1);
    let (runs, problems) = imported_runs(d, &loaded, "llm_annotations.json", Policy::Concord);
    assert!(problems.is_empty());
    assert_eq!(runs.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["gpt", "tiny"]);
    assert!(loaded.diagnostics.iter().any(|d| d.message.contains("lists or objects")));
}

#[test]
fn numbers_give_a_numeric_scale_and_mixed_values_are_labels() {
    let h = r#"{"a": {"x": 1, "y": 5}, "b": {"x": 2, "y": 4.5}}"#;
    let l = data::annotations::load_folder("n", ("h.json", h.as_bytes()), None).unwrap();
    let a = &l.dataset.attributes[0];
    assert_eq!((a.scale.min, a.scale.max, a.scale.kind), (1.0, 5.0, ScaleKind::Continuous));
    assert!(a.categories.is_empty());
    assert_eq!(l.dataset.items[0].ratings[0].as_ref().unwrap().aggregate, 1.5);
    let mixed = r#"{"a": {"x": 3, "y": "3"}, "b": {"x": "low"}}"#;
    let l = data::annotations::load_folder("m", ("h.json", mixed.as_bytes()), None).unwrap();
    assert_eq!(l.dataset.attributes[0].categories, ["3", "low"]);
    assert!(l.diagnostics.iter().any(|d| d.message.contains("mix numbers and labels")));
}

#[test]
fn a_lone_annotations_file_loads_and_a_lone_llm_file_says_what_to_do() {
    let l = data::load("human_annotations.json", HUMANS.as_bytes()).unwrap();
    assert_eq!(l.format, Format::Annotations);
    assert_eq!(l.summary.counts.raters, 3);
    let e = data::load("llm_annotations.json", LLMS.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("human_annotations.json"), "{e}");
    // Not JSON, not the shape: named errors.
    let e = data::annotations::load_folder("x", ("h.json", b"{\"a\": 1}"), None).unwrap_err();
    assert!(e.to_string().contains("{annotator: {instance: annotation}}"), "{e}");
    let e = data::annotations::load_folder("x", ("h.json", b"{\"a\": {"), None).unwrap_err();
    assert!(matches!(e, data::LoadError::Malformed { .. }), "{e}");
}

#[test]
fn categories_travel_in_bundles_and_old_datasets_keep_their_hash() {
    let loaded = folder();
    let (runs, _) =
        imported_runs(&loaded.dataset, &loaded, "llm_annotations.json", Policy::Concord);
    let settings = workbench::Settings {
        validity: Some(Settings { epsilon: 0.15, ..Settings::default() }),
        ..workbench::Settings::default()
    };
    let bundle = Bundle::new(
        &loaded.dataset,
        "annotations",
        None,
        None,
        runs,
        Vec::new(),
        settings,
        "2026-11-28".into(),
    );
    let back = Bundle::from_json(&bundle.to_json()).unwrap();
    assert_eq!(back.dataset.embedded, loaded.dataset);
    assert_eq!(back.settings.validity.as_ref().unwrap().epsilon, 0.15);
    assert_eq!(back.runs[0].run.records[0].parsed, bundle.runs[0].run.records[0].parsed);
    // A numeric attribute writes no `categories` (bundles written before it keep their hash);
    // one without the field reads as no categories.
    let numeric = data::Attribute::new("q", data::Scale::likert(1.0, 5.0));
    let json = serde_json::to_string(&numeric).unwrap();
    assert!(!json.contains("categories"), "{json}");
    let read: data::Attribute = serde_json::from_str(&json).unwrap();
    assert_eq!(read, numeric);
    let example = data::example_dataset();
    assert!(!serde_json::to_string(&example).unwrap().contains("categories"));
}

/// A deterministic stream of numbers in [0, 1) for planted studies.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick(&mut self, k: usize) -> usize {
        (self.next() * k as f64) as usize % k
    }
}

/// A CSV with three raters of `quality` (1–4) per item: r1 and r2 always give the true
/// rating, r3 guesses at random.
fn planted_csv(n: usize, rng: &mut Lcg) -> (String, Vec<usize>) {
    let mut csv = String::from("id,doc_id,system_id,output,quality_r1,quality_r2,quality_r3\n");
    let mut truth = Vec::new();
    for i in 0..n {
        let t = 1 + rng.pick(4);
        let guess = 1 + rng.pick(4);
        csv.push_str(&format!("item{i},d{},s{},text {i},{t},{t},{guess}\n", i / 4, i % 4));
        truth.push(t);
    }
    (csv, truth)
}

/// A workbench run with `samples` responses per item: each sample is the true rating with
/// probability `p(i)`, else another one.
fn run_with_samples(
    truth: &[usize],
    samples: usize,
    p: impl Fn(usize) -> f64,
    rng: &mut Lcg,
) -> JudgedRun {
    let records = truth
        .iter()
        .enumerate()
        .map(|(i, &t)| JudgeRecord {
            key: RecordKey::Id(format!("item{i}")),
            prompt: None,
            prompt_chars: None,
            responses: (0..samples)
                .map(|_| {
                    let r = if rng.next() < p(i) { t } else { 1 + (t + rng.pick(3)) % 4 };
                    format!("Rating: {r}")
                })
                .collect(),
            cut_off: Vec::new(),
            logprobs: Vec::new(),
            reasoning_tokens: Vec::new(),
            parsed: Vec::new(),
            line: 0,
            meta: None,
            calls: Vec::new(),
        })
        .collect();
    JudgedRun {
        method: "planted judge".into(),
        attribute: "quality".into(),
        policy: Policy::Concord,
        weighting: None,
        run: JudgeRun { name: "planted".into(), attribute: Some("quality".into()), records },
        origin: "study".into(),
    }
}

#[test]
fn a_planted_judge_beats_the_guessing_annotator_and_loses_to_the_careful_ones() {
    let mut rng = Lcg(38);
    let (csv, truth) = planted_csv(120, &mut rng);
    let dataset = data::load("planted.csv", csv.as_bytes()).unwrap().dataset;
    let raters = validity::raters(&dataset, "quality").unwrap();
    assert_eq!(raters.names, ["r1", "r2", "r3"]);
    // Three samples an item, each right 60 % of the time: its majority is right more often.
    let run = run_with_samples(&truth, 3, |_| 0.6, &mut rng);
    let settings =
        Settings { scoring: Some(Scoring::Accuracy), epsilon: 0.2, ..Settings::default() };
    let t = validity::run_alt_test(&dataset, &run, &settings).unwrap();
    let verdicts: Vec<(usize, bool)> = t.annotators.iter().map(|a| (a.index, a.rejected)).collect();
    assert_eq!(verdicts, [(0, false), (1, false), (2, true)], "{t:?}");
    assert_eq!(t.winning_rate, Some(1.0 / 3.0));
    assert_eq!(t.passed, Some(false));
    // The report names it per annotator.
    let report = validity::alt_test_report(&dataset, std::slice::from_ref(&run), &settings);
    let per = report.table(&validity::annotator_table_id(0, "planted judge")).unwrap();
    let wins: Vec<(&str, &str)> =
        per.rows.iter().map(|r| (r.label.as_str(), r.cells[4].text.as_str())).collect();
    assert_eq!(wins, [("r1", "no"), ("r2", "no"), ("r3", "yes")]);
    let summary = report.table(ALT_TEST_TABLE).unwrap();
    assert_eq!(summary.keyed("planted judge/quality/passed").unwrap().text, "no");
    assert!(summary.notes.iter().any(|n| n.contains("0.2 (experts)")));
}

#[test]
fn a_workbench_run_is_read_sample_by_sample() {
    let mut rng = Lcg(7);
    let (csv, truth) = planted_csv(12, &mut rng);
    let dataset = data::load("planted.csv", csv.as_bytes()).unwrap().dataset;
    let mut run = run_with_samples(&truth, 4, |_| 1.0, &mut rng);
    run.run.records[0].responses =
        vec!["Rating: 2".into(), "Rating: 3".into(), "Rating: 3".into(), "no idea".into()];
    let j =
        validity::judge_items(&dataset, &run, Scoring::NegRmse, ConfidenceSource::Auto).unwrap();
    assert_eq!(j.source, Some(ConfidenceSource::Samples));
    assert_eq!(j.verdict[0], Some(3.0));
    assert_eq!(j.value[0], Some(8.0 / 3.0), "the mean of the parsed samples");
    assert_eq!(j.confidence[0], Some(2.0 / 3.0));
    assert_eq!(j.samples[0], [Some(2.0), Some(3.0), Some(3.0), None]);
    assert_eq!(j.confidence[1], Some(1.0));
    // One sample per item and no log-probabilities: no confidence to trust by.
    let one = run_with_samples(&truth, 1, |_| 1.0, &mut rng);
    let j =
        validity::judge_items(&dataset, &one, Scoring::NegRmse, ConfidenceSource::Auto).unwrap();
    assert_eq!(j.source, None);
    let report = validity::trust_report(&dataset, &[one], &Settings::default(), None);
    let row = &report.table(TRUST_TABLE).unwrap().rows[0];
    assert!(row.cells[2].note.as_deref().unwrap().contains("states no confidence"));
}

#[test]
fn the_trust_guarantee_holds_on_the_held_out_half() {
    let mut rng = Lcg(2026);
    let (csv, truth) = planted_csv(600, &mut rng);
    let dataset = data::load("planted.csv", csv.as_bytes()).unwrap().dataset;
    // Items of three kinds: easy (samples right 97 %), middling (75 %), hard (40 %).
    let p = |i: usize| [0.97, 0.75, 0.4][i % 3];
    let run = run_with_samples(&truth, 5, p, &mut rng);
    // Agreement with the humans' mean within 0.5: r3's guesses move the mean, so compare with
    // the careful raters by a tolerance that accepts the mean of (t, t, guess).
    let settings = Settings { alpha: 0.1, delta: 0.1, tolerance: Some(1.0), ..Settings::default() };
    let report = validity::trust_report(&dataset, std::slice::from_ref(&run), &settings, None);
    let table = report.table(TRUST_TABLE).unwrap();
    let cell = |k: &str| table.keyed(&format!("planted judge/quality/{k}")).unwrap();
    let threshold = cell("threshold").value.unwrap();
    assert!(threshold > 0.5 && threshold < 1.0, "threshold {threshold}");
    let held = cell("held_out_agreement").value.unwrap();
    assert!(held >= 0.9, "held-out agreement {held} below 1 − α");
    assert!(cell("held_out_coverage").value.unwrap() > 0.3);
    assert!(cell("held_out_n").value.unwrap() >= 290.0);
    // The curve: one point per candidate threshold.
    assert_eq!(report.figures.len(), 1);
    assert!(report.figures[0].to_svg().contains("coverage"));
    // The cascade of this judge alone decides what it trusts, the rest goes to a person.
    let cascade =
        validity::cascade_report(&dataset, std::slice::from_ref(&run), &settings, None, Vec::new());
    let c = cascade.tables[0].keyed("without a person/quality/coverage").unwrap();
    assert!(c.value.unwrap() > 0.3 && c.value.unwrap() < 1.0);
}

#[test]
fn the_whole_panel_and_its_notes() {
    let mut rng = Lcg(5);
    let (csv, truth) = planted_csv(20, &mut rng);
    let dataset = data::load("planted.csv", csv.as_bytes()).unwrap().dataset;
    let run = run_with_samples(&truth, 3, |_| 0.8, &mut rng);
    let settings = Settings { min_instances: 10, ..Settings::default() };
    let report = validity::validity_report(
        &dataset,
        std::slice::from_ref(&run),
        &settings,
        None,
        Vec::new(),
    );
    let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "validity-alt-test",
            "validity-alt-test-1-planted-judge",
            "validity-trust",
            "validity-cascade",
            "validity-planner",
            "validity-stability"
        ]
    );
    // 20 items: the alt-test runs (min_instances 10) but says it is not meaningful.
    let alt = report.table(ALT_TEST_TABLE).unwrap();
    assert!(
        alt.notes.iter().any(|n| n.contains("not meaningful: planted judge")),
        "{:?}",
        alt.notes
    );
    // Stability beside the annotators' α.
    let s = report.table(STABILITY_TABLE).unwrap();
    assert!(s.keyed("planted judge/quality/flip_rate").unwrap().interval.is_some());
    assert!(s.keyed("planted judge/quality/alpha_annotators").unwrap().value.is_some());
    // The planner: four systems, a row each and the total.
    let plan = report.table(validity::PLANNER_TABLE).unwrap();
    assert_eq!(plan.rows.len(), 5, "{:?}", plan.rows.iter().map(|r| &r.label).collect::<Vec<_>>());
    // Every item is rated: a seeded half is the pilot, the rest what the estimate is for.
    assert!(plan.notes.iter().any(|n| n.contains("a seeded half of them (10) is the pilot")));
    assert!(plan.keyed("planted judge/quality/n").unwrap().value.is_some(), "{plan:?}");
    assert!(plan.keyed("planted judge/quality/n_human").unwrap().value.is_some());
    // A bundle shows the same panel.
    let wb =
        workbench::Settings { validity: Some(settings.clone()), ..workbench::Settings::default() };
    let bundle =
        Bundle::new(&dataset, "csv", None, None, vec![run.clone()], Vec::new(), wb, "t".into());
    let back = Bundle::from_json(&bundle.to_json()).unwrap();
    assert_eq!(
        validity::bundle_report(&back),
        validity::validity_report(&back.dataset.embedded, &back.runs, &settings, None, Vec::new())
    );
}

#[test]
fn the_released_altest_folders_load() {
    let Some(dir) = common::shared("data/AltTest/data") else { return };
    let read = |set: &str, f: &str| std::fs::read(dir.join(set).join(f)).unwrap();
    for (set, labels, annotators, llms) in
        [("mtbench", true, 3, 6), ("summeval", false, 3, 6), ("lesion", false, 6, 4)]
    {
        let (h, l) = (read(set, "human_annotations.json"), read(set, "llm_annotations.json"));
        let loaded = data::annotations::load_folder(
            set,
            ("human_annotations.json", &h),
            Some(("llm_annotations.json", &l)),
        )
        .unwrap();
        assert_eq!(loaded.summary.counts.raters, annotators, "{set}");
        assert_eq!(loaded.runs.len(), llms, "{set}");
        let a = &loaded.dataset.attributes[0];
        assert_eq!(a.scale.kind == ScaleKind::Categorical, labels, "{set}");
        if set == "mtbench" {
            assert_eq!(a.categories, ["model_a", "model_b", "tie"]);
        }
    }
}

#[test]
fn raters_added_in_concord_count_as_annotators() {
    let mut rng = Lcg(11);
    let (csv, truth) = planted_csv(8, &mut rng);
    let dataset = data::load("planted.csv", csv.as_bytes()).unwrap().dataset;
    let me = concord_core::bundle::ExtraRater {
        name: "me".into(),
        attribute: "quality".into(),
        scores: truth.iter().enumerate().map(|(i, t)| (format!("item{i}"), *t as f64)).collect(),
    };
    // r1 again under its own name: the dataset's ratings win.
    let r1 = concord_core::bundle::ExtraRater { name: "r1".into(), ..me.clone() };
    let with = validity::with_added_raters(&dataset, &[me, r1]);
    let raters = validity::raters(&with, "quality").unwrap();
    assert_eq!(raters.names, ["r1", "r2", "r3", "me"]);
    assert_eq!(raters.values[3][0], Some(truth[0] as f64));
    assert_eq!(raters.aggregate, validity::raters(&dataset, "quality").unwrap().aggregate);
}

#[test]
fn labels_have_no_correlation_on_the_results_table() {
    // An AltTest folder of labels: the Results table's cells are blank and say why, no
    // bootstrap resamples a correlation of label codes, and the audit leaves the attribute out.
    let loaded = folder();
    let (runs, _) =
        imported_runs(&loaded.dataset, &loaded, "llm_annotations.json", Policy::Concord);
    let d = &loaded.dataset;
    let t = workbench::compute(d, &runs, Some("gpt"));
    let row = &t.cell(0, 0).unwrap().row;
    assert_eq!(row.pearson.dataset, None);
    assert_eq!(row.kendall_b.document, None);
    assert_eq!(row.pearson.dataset_undefined.as_deref(), Some(workbench::scores::LABELS_REASON));
    assert_eq!(row.n, 3, "i1, i2, i3 have a label and gpt's");
    let settings = workbench::Settings { intervals: true, ..workbench::Settings::default() };
    assert!(workbench::report::all_intervals(d, &t, &settings).cells.is_empty());
    let audit = workbench::audit::Audit::new(d, &t, &settings).finish().report();
    assert!(audit.tables.iter().all(|t| t.rows.is_empty()), "{audit:?}");
    let report = workbench::report::report(workbench::report::ResultsView {
        dataset: d,
        table: &t,
        runs: &runs,
        raters: &[],
        settings: &settings,
        intervals: None,
        pricing: &workbench::report::pricing(None, false),
    });
    let results = report.table("concord-results").unwrap();
    assert!(results.rows[0].cells[0].note.as_deref().unwrap().contains("labels without order"));
    assert!(results.notes.iter().any(|n| n.starts_with("annotation: labels without order")));
}
