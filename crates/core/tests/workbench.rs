//! The rating workbench: templates for a dataset, planning (calls, cache keys), collecting
//! responses into runs, the methods × attributes table (checked against the scipy-pinned
//! fixture of `judge_table.rs` and against `concord table` on the released Topical-Chat
//! files), bootstrap intervals, rater agreement, and the bundle's round trip and key safety.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use concord_core::bundle::{self, Bundle, BundleError, ExtraRater, Settings};
use concord_core::data::{self, Dataset, JudgeRun};
use concord_core::judge::builtin::OutputMode;
use concord_core::judge::parse::Policy;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::template::Persona;
use concord_core::report::export;
use concord_core::run::{Capabilities, Endpoint, ProviderId};
use concord_core::study::workbench::report::results_table;
use concord_core::study::workbench::results::{Granularity, RaterKind, Statistic};
use concord_core::study::workbench::scores::{self as table, RunSpec};
use concord_core::study::workbench::{self as wb, BootstrapSpec, GridSpec, JudgedRun, Study};

fn load(path: &Path) -> data::Loaded {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    data::load(name, &bytes).unwrap_or_else(|e| panic!("{e}"))
}

fn example() -> Dataset {
    data::example().unwrap().dataset
}

fn attrs(d: &Dataset) -> Vec<String> {
    d.attributes.iter().map(|a| a.name.clone()).collect()
}

fn sampling(n: u32) -> Sampling {
    Sampling { n, temperature: Some(1.0), top_p: None, max_tokens: Some(64), logprobs: None }
}

fn endpoint() -> Endpoint {
    Endpoint {
        provider: ProviderId::OpenAi,
        base_url: "https://api.openai.com/v1".into(),
        model: "gpt-4o-mini".into(),
    }
}

#[test]
fn default_templates_fit_the_example_and_render_every_item() {
    let d = example();
    for attribute in attrs(&d) {
        for mode in OutputMode::ALL {
            let t = wb::default_template(&d, &attribute, mode, true);
            for item in &d.items {
                let text = t.render(item).unwrap_or_else(|e| panic!("{attribute} {mode:?}: {e}"));
                assert!(text.contains(&item.output), "{attribute}: the summary is in the prompt");
                assert!(text.contains(item.inputs.get("source").unwrap()), "the article too");
            }
        }
    }
    // The example rates coherence and fluency of summaries: SummEval's built-in prompts.
    let t = wb::default_template(&d, "coherence", OutputMode::ScoreOnly, false);
    let text = t.render(&d.items[0]).unwrap();
    assert!(
        text.starts_with("You will be given one summary written for a news article."),
        "{text}"
    );
    assert!(text.contains("Coherence (1-5) - the collective quality of all sentences."));
}

#[test]
fn a_generic_dataset_gets_a_generic_template_naming_its_fields() {
    let csv = "doc,sys,question,answer,helpfulness\nq1,a,What is 2+2?,4,5\nq1,b,What is 2+2?,5,1\n";
    let d = data::load("qa.csv", csv.as_bytes()).unwrap().dataset;
    let t = wb::default_template(&d, "helpfulness", OutputMode::RateExplain, true);
    let text = t.render(&d.items[0]).unwrap();
    assert!(text.contains("Helpfulness (1-5)"), "{text}");
    assert!(text.contains("Question:\n\nWhat is 2+2?"), "{text}");
    // No hand-written steps pass for auto-CoT: the judge or the user writes them.
    assert!(!text.contains("Evaluation Steps:"), "{text}");
    assert_eq!(t.part(concord_core::judge::template::PartKind::Steps).unwrap().text, "");
    assert!(text.contains("Answer by starting with \"Rating:\""), "{text}");
}

#[test]
fn a_grid_names_each_method_by_what_varies() {
    let d = example();
    let spec = GridSpec {
        modes: vec![OutputMode::ScoreOnly, OutputMode::RateExplain],
        auto_cot: vec![false, true],
        personas: vec![Persona::None],
        temperatures: vec![Some(0.0), Some(1.0)],
        sampling: sampling(1),
        policy: Policy::Concord,
        weighting: None,
        structured: false,
    };
    let methods = wb::grid(&d, &attrs(&d), &spec);
    let names: Vec<&str> = methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "score-only T=0",
            "score-only T=1",
            "score-only +cot T=0",
            "score-only +cot T=1",
            "rate-explain T=0",
            "rate-explain T=1",
            "rate-explain +cot T=0",
            "rate-explain +cot T=1"
        ]
    );
    assert_eq!(methods[1].sampling.temperature, Some(1.0));
    assert!(methods.iter().all(|m| m.weighting.is_none() && m.sampling.logprobs.is_none()));
    // Probability-weighted: named so, asking for the top log-probabilities.
    let weighted = wb::grid(
        &d,
        &attrs(&d),
        &GridSpec {
            weighting: Some(concord_core::judge::aggregate::WeightFallback::Parsed),
            ..spec.clone()
        },
    );
    assert_eq!(weighted[0].name, "score-only T=0 +weighted");
    assert_eq!(weighted[0].sampling.logprobs, Some(wb::study::WEIGHTING_TOP_LOGPROBS));
    assert_eq!(weighted[0].weighting, Some(concord_core::judge::aggregate::WeightFallback::Parsed));
    let hhh = wb::method(
        &d,
        &attrs(&d),
        OutputMode::ScoreOnly,
        false,
        Persona::Hhh,
        sampling(1),
        Policy::Concord,
    );
    let text = hhh.template("fluency").unwrap().render(&d.items[0]).unwrap();
    assert!(text.starts_with("You are an AI assistant."), "the persona comes first");
}

fn study(d: &Dataset, n: u32) -> Study {
    let attributes = attrs(d);
    let methods = [OutputMode::ScoreOnly, OutputMode::RateExplain]
        .into_iter()
        .map(|m| wb::method(d, &attributes, m, false, Persona::None, sampling(n), Policy::Concord))
        .collect();
    Study { attributes, methods, ..Study::default() }
}

#[test]
fn the_plan_has_one_key_per_sample_and_splits_calls_by_n_support() {
    let d = example();
    let s = study(&d, 4);
    let with_n = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(), &with_n, None);
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    assert_eq!(p.prompts.len(), 15 * 2 * 2);
    assert_eq!(p.samples(), 15 * 2 * 2 * 4);
    assert_eq!(p.calls.len(), 60, "OpenAI draws the 4 samples in one call");
    let keys: BTreeSet<String> = p.prompts.iter().flat_map(|p| p.keys()).collect();
    assert_eq!(keys.len(), 240, "every sample has its own key");
    // A reload plans the same keys.
    let again = wb::plan(&d, &s, &endpoint(), &with_n, None);
    assert_eq!(again.prompts[17], p.prompts[17]);
    assert_eq!(again.prompts[17].keys().count(), 4);
    // Anthropic has no `n`: one call per sample.
    let anthropic = Endpoint {
        provider: ProviderId::Anthropic,
        base_url: "https://api.anthropic.com/v1".into(),
        model: "claude-3-5-haiku-latest".into(),
    };
    let caps = Capabilities::for_model(ProviderId::Anthropic, &anthropic.model);
    let q = wb::plan(&d, &s, &anthropic, &caps, Some(&[0, 1]));
    assert_eq!(q.prompts.len(), 2 * 2 * 2);
    assert_eq!(q.calls.len(), 8 * 4);
    assert_eq!(q.call_keys(&q.calls[5]), [q.prompts[1].key(1)]);
    let estimate = p.estimate(&with_n, 5, None);
    assert_eq!(estimate.calls, 60);
    assert_eq!(estimate.output_tokens, 240 * 5);
}

#[test]
fn collected_runs_follow_the_stored_samples() {
    let d = example();
    let s = study(&d, 2);
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(), &caps, None);
    // The first method answers each item's human coherence/fluency (rounded); the second
    // answers 3 always except on one item. Only sample 0 of each prompt is stored.
    let mut store = HashMap::new();
    for prompt in &p.prompts {
        let item = &d.items[prompt.item];
        let a = d.attribute_index(&prompt.attribute).unwrap();
        let human = item.ratings[a].as_ref().unwrap().aggregate;
        let text = if prompt.method == 0 {
            format!("{}", human.round())
        } else if prompt.item == 3 {
            "Rating: 5".to_owned()
        } else {
            "Rating: 3".to_owned()
        };
        store.insert(prompt.key(0), text);
    }
    let runs = wb::collect(&d, &s, &p, |k| store.get(k).cloned());
    assert_eq!(runs.len(), 4);
    assert!(runs.iter().all(|r| r.run.records.len() == 15));
    assert!(runs.iter().all(|r| r.run.records.iter().all(|rec| rec.responses.len() == 1)));
    let t = wb::compute(&d, &runs, Some("score-only"));
    assert_eq!(t.methods, ["score-only", "rate-explain"]);
    assert_eq!(t.attributes, ["coherence", "fluency"]);
    let good = t.cell(0, 0).unwrap();
    assert!(good.row.pearson.dataset.unwrap() > 0.9, "{:?}", good.row.pearson);
    assert_eq!(good.row.williams.p, None, "the baseline is not compared with itself");
    let weak = t.cell(1, 0).unwrap();
    assert_eq!(weak.row.n, 15);
    assert!(weak.row.williams.p.unwrap() > 0.5, "worse than the baseline");
    assert!(!weak.beats_baseline());
    let one = [(Statistic::Pearson, Granularity::Dataset)];
    let md = export::markdown(&results_table(&t, &one, None, &Settings::default()));
    assert!(
        md.starts_with("**Correlation with human ratings**\n\n| Method | coherence | fluency |\n|---|---:|---:|\n| score-only |"),
        "{md}"
    );
    // Against the weak method as baseline the good one wins, and only its dataset-level r is
    // bold: Williams' test compares Pearson r (seed 002 boldfaces r, never τ).
    let t = wb::compute(&d, &runs, Some("rate-explain"));
    let good = t.cell(0, 0).unwrap();
    assert!(good.beats_baseline(), "{:?}", good.row.williams);
    let (r, tau) = (good.row.pearson.dataset.unwrap(), good.row.kendall_b.document.unwrap());
    assert!(good.bold_in((Statistic::Pearson, Granularity::Dataset)));
    assert!(!good.bold_in((Statistic::KendallB, Granularity::Document)));
    assert!(!good.bold_in((Statistic::Pearson, Granularity::Document)));
    let settings = Settings::default();
    let shown = results_table(&t, &settings.columns(), None, &settings);
    let md = export::markdown(&shown);
    assert!(md.contains(&format!("| score-only | **{r:.3}** | {tau:.3} |")), "{md}");
}

/// Planning, collecting and reading a step at a time (how the browser does it, between
/// yields) give exactly what the one-shot functions give, whatever the step size.
#[test]
fn stepwise_planning_collecting_and_reading_equal_the_one_shot_results() {
    let d = example();
    let mut s = study(&d, 3);
    // A method without a template for one attribute: its problem is reported once, in order.
    let mut partial = s.methods[1].clone();
    partial.name = "partial".into();
    partial.templates.remove("fluency");
    s.methods.push(partial);
    let caps = Capabilities::for_model(ProviderId::Anthropic, "claude-3-5-haiku-latest");
    let items = [4, 0, 9, 2, 14, 7];
    let whole = wb::plan(&d, &s, &endpoint(), &caps, Some(&items));
    assert_eq!(whole.prompts.len(), 5 * items.len());
    assert_eq!(whole.problems.len(), 1, "{:?}", whole.problems);
    let ep = endpoint();
    for step in [1, 2, 5, 7, 1000] {
        let mut planner = wb::Planner::new(&d, &s, &ep, &caps, Some(&items));
        assert_eq!(planner.total(), 6 * items.len());
        let mut steps = 0;
        while !planner.step(step) {
            steps += 1;
            assert!(planner.done() <= planner.total());
        }
        assert!(steps + 1 >= whole.prompts.len().div_ceil(step), "step {step}: {steps} steps");
        assert_eq!(planner.finish(), whole, "step {step}");
    }
    // The request rendered again at send time is the one the plan hashed: same keys.
    for prompt in &whole.prompts {
        let request = wb::prompt_request(&d, &s, prompt).unwrap();
        assert_eq!(concord_core::run::prompt_digest(&ep, &request), prompt.digest);
        assert_eq!(request.n, prompt.n);
    }
    // Every other sample stored, answering with the item index.
    let mut store = HashMap::new();
    for prompt in &whole.prompts {
        for key in prompt.keys().step_by(2) {
            store.insert(key, format!("{}", 1 + prompt.item % 5));
        }
    }
    let lookup = |k: &str| store.get(k).cloned();
    let runs = wb::collect(&d, &s, &whole, lookup);
    for slice in [1, 4, 13] {
        let mut sliced = wb::results::empty_runs(&s);
        let mut at = 0;
        while at < whole.prompts.len() {
            let end = (at + slice).min(whole.prompts.len());
            wb::results::collect_into(&mut sliced, &d, &s, &whole, at..end, lookup, |_| {
                wb::results::SampleInfo::default()
            });
            at = end;
        }
        assert_eq!(sliced, runs, "slices of {slice}");
    }
    for r in runs.iter().filter(|r| !r.run.records.is_empty()) {
        let one = table::judge_scores(&d, &r.method, &r.attribute, &r.run, r.policy).unwrap();
        assert_eq!(one.samples, items.len() * 2, "2 of 3 samples stored per item");
        for step in [1, 4, 100] {
            let mut reader =
                table::ScoreReader::new(&d, &r.method, &r.attribute, &r.run, r.policy).unwrap();
            while !reader.step(&r.run, step) {}
            assert_eq!(reader.progress(), (d.items.len(), d.items.len()));
            assert_eq!(reader.finish(), one, "{} / {} in steps of {step}", r.method, r.attribute);
        }
    }
}

/// The scipy-pinned fixture of `judge_table.rs`, through the workbench table.
/// The scipy-checked table fixture: its dataset and runs A and B on naturalness.
fn table_fixture() -> (Dataset, Vec<JudgedRun>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge/table");
    let d = load(&dir.join("dataset.json")).dataset;
    let judged = |name: &str, file: &str| JudgedRun {
        method: name.into(),
        attribute: "naturalness".into(),
        policy: Policy::CloserLook,
        weighting: None,
        run: load(&dir.join(file)).runs.remove(0),
        origin: file.into(),
    };
    let runs = vec![judged("A", "run_a.json"), judged("B", "run_b.json")];
    (d, runs)
}

#[test]
fn the_table_matches_the_scipy_fixture() {
    let (d, runs) = table_fixture();
    let t = wb::compute(&d, &runs, Some("A"));
    let b = t.cell(1, 0).unwrap();
    assert_eq!(b.row.pearson.dataset, Some(0.9084083005021133));
    assert_eq!(b.row.kendall_b.document, Some(0.908248290463863));
    assert!((b.row.williams.p.unwrap() - 0.4809462157296497).abs() < 1e-12);
    // Baseline B instead: A is compared with B.
    let t = wb::compute(&d, &runs, Some("B"));
    assert!(t.cell(0, 0).unwrap().row.williams.p.is_some());
    assert_eq!(t.cell(1, 0).unwrap().row.williams.p, None);
}

#[test]
fn bootstrap_intervals_are_seeded_and_bracket_the_estimate() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judge/table");
    let d = load(&dir.join("dataset.json")).dataset;
    let run = load(&dir.join("run_a.json")).runs.remove(0);
    let scores = table::judge_scores(&d, "A", "naturalness", &run, Policy::CloserLook).unwrap();
    let ci = |seed| {
        let spec = BootstrapSpec {
            statistic: Statistic::Pearson,
            level: Granularity::Dataset,
            resamples: 500,
            seed,
            confidence: 0.95,
        };
        wb::bootstrap_interval(&d, "naturalness", &scores.scores, spec).unwrap()
    };
    let (a, b) = (ci(7), ci(7));
    assert_eq!(a, b, "same seed, same interval");
    assert!(a.low <= 0.9452167098712737 && 0.9452167098712737 <= a.high, "{a:?}");
    assert_ne!(ci(8), a, "another seed draws other resamples");
}

#[test]
fn agreement_compares_students_and_judges_with_the_human_raters() {
    let d = example();
    let coherence = d.attribute_index("coherence").unwrap();
    let raters = wb::results::human_raters(&d, coherence);
    assert_eq!(raters.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["r1", "r2"]);
    // A student who copies r1 agrees with r1 exactly.
    let student = raters[0].1.clone();
    let a = wb::agreement(&d, "coherence", &[("me".into(), RaterKind::Student, student)]).unwrap();
    assert_eq!(a.rows.len(), 3);
    assert_eq!(a.rows[2].kind, RaterKind::Student);
    assert_eq!(a.rows[2].n, 15);
    assert_eq!(a.rows[2].pearson, a.rows[0].pearson, "same scores as r1, same correlation");
    assert!(a.alpha_humans.is_some() && a.rows[2].alpha_with_humans.is_some());
    assert!(a.rows[2].alpha_with_humans.unwrap() > a.alpha_humans.unwrap() - 0.2);
}

#[test]
fn a_bundle_round_trips_and_never_carries_a_key() {
    let d = example();
    let s = study(&d, 1);
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let secret = "sk-live-DO-NOT-LEAK-1234";
    let ep = Endpoint {
        provider: ProviderId::Vllm,
        base_url: format!("https://user:{secret}@llm.example.org/v1?api_key={secret}#{secret}"),
        model: "m".into(),
    };
    let p = wb::plan(&d, &s, &ep, &caps, None);
    let store: HashMap<String, String> =
        p.prompts.iter().map(|pr| (pr.key(0), format!("Rating: {}", 1 + pr.item % 5))).collect();
    let runs = wb::collect(&d, &s, &p, |k| store.get(k).cloned());
    let rater = ExtraRater {
        name: "student".into(),
        attribute: "coherence".into(),
        scores: vec![(d.items[0].id.clone(), 4.0)],
    };
    let b = Bundle::new(
        &d,
        "csv",
        Some(s.clone()),
        Some(&ep),
        runs.clone(),
        vec![rater],
        Settings::default(),
        "2026-11-22T14:00:00Z".into(),
    );
    // The collected records carry no prompt; the bundle has each one, exactly as it was sent.
    assert!(runs.iter().all(|r| r.run.records.iter().all(|rec| rec.prompt.is_none())));
    let sent: BTreeSet<String> = p
        .prompts
        .iter()
        .map(|pr| wb::prompt_request(&d, &s, pr).unwrap().messages[0].content.clone())
        .collect();
    let exported: BTreeSet<String> = b
        .runs
        .iter()
        .flat_map(|r| r.run.records.iter().map(|rec| rec.prompt.clone().unwrap()))
        .collect();
    assert_eq!(exported, sent);
    assert_eq!(
        wb::prompt_request(&d, &s, &p.prompts[3]).map(|r| wb::plan::tag(
            &s.methods[p.prompts[3].method].name,
            &p.prompts[3].attribute,
            &d.items[p.prompts[3].item].id
        ) == r.tag),
        Some(true)
    );
    let json = b.to_json();
    assert!(!json.contains(secret), "the key is nowhere in the bundle");
    assert_eq!(b.endpoint.as_ref().unwrap().base_url, "https://llm.example.org/v1");
    let back = Bundle::from_json(&json).unwrap();
    assert_eq!(back, b);
    let t1 = wb::compute(&d, &runs, Some("score-only"));
    let t2 = wb::compute(
        &back.dataset.embedded,
        &back.runs,
        back.settings.baseline.as_deref().or(Some("score-only")),
    );
    let tau = [(Statistic::KendallB, Granularity::Document)];
    let settings = Settings::default();
    let (x1, x2) =
        (results_table(&t1, &tau, None, &settings), results_table(&t2, &tau, None, &settings));
    for f in concord_core::report::Format::ALL {
        assert_eq!(
            concord_core::report::export_table(&x1, f),
            concord_core::report::export_table(&x2, f)
        );
    }
    assert_eq!(back.raters[0].aligned(&back.dataset.embedded)[0], Some(4.0));

    // Damaged, foreign, newer and truncated files are refused with a reason.
    let tampered = json.replacen("\"extractive\"", "\"EXTRACTIVE\"", 1);
    assert!(matches!(Bundle::from_json(&tampered), Err(BundleError::HashMismatch { .. })));
    assert_eq!(Bundle::from_json("{\"rows\": []}"), Err(BundleError::NotABundle));
    let newer = json.replacen("\"version\": 2", "\"version\": 3", 1);
    assert_eq!(Bundle::from_json(&newer), Err(BundleError::TooNew { version: 3 }));
    // A version-1 bundle (the workbench only) still opens, with no other screen.
    let v1 = json.replacen("\"version\": 2", "\"version\": 1", 1);
    let old = Bundle::from_json(&v1).unwrap();
    assert_eq!((old.version, old.coeval.is_none()), (1, true));
    assert_eq!(old.runs, back.runs);
    match Bundle::from_json(&json[..json.len() / 2]) {
        Err(BundleError::Malformed { line, .. }) => assert!(line > 1),
        other => panic!("{other:?}"),
    }
    assert_eq!(bundle::public_url("http://localhost:8080/v1"), "http://localhost:8080/v1");

    // Settings a hostile bundle could freeze the page with are bounded, and said so.
    let greedy = json.replacen("\"resamples\": 1000", "\"resamples\": 1000000000000", 1).replacen(
        "\"confidence\": 0.95",
        "\"confidence\": 7.0",
        1,
    );
    assert_ne!(greedy, json);
    let bounded = Bundle::from_json(&greedy).unwrap();
    assert_eq!(bounded.settings.resamples, Settings::MAX_RESAMPLES);
    assert_eq!(bounded.settings.confidence, 0.95);
    assert_eq!(bounded.changed_on_import.len(), 2, "{:?}", bounded.changed_on_import);
    assert!(
        bounded.changed_on_import[0].contains("1000000000000 bootstrap resamples"),
        "{:?}",
        bounded.changed_on_import
    );
    assert!(bounded.notes.is_empty(), "what the import changed is not the file's own notes");
    assert!(back.changed_on_import.is_empty(), "nothing to say about a bundle within bounds");
}

/// The acceptance check of the workbench UI: released Topical-Chat runs through the workbench
/// table give exactly `concord table`'s numbers.
#[test]
fn released_topical_chat_runs_give_concord_tables_numbers() {
    let Some(root) = common::shared("data/A-Closer-Look-To-LLM-Evaluation") else { return };
    let d = load(&root.join("data/topical_chat.json")).dataset;
    let modes = ["geval", "rate_explain", "analyze_rate"];
    let runs: Vec<JudgeRun> = modes
        .iter()
        .map(|m| {
            load(&root.join(format!("results/topical_chat/gpt3.5_nat_{m}.json"))).runs.remove(0)
        })
        .collect();
    let specs: Vec<RunSpec<'_>> = modes
        .iter()
        .zip(&runs)
        .map(|(m, run)| RunSpec { name: m, attribute: "naturalness", run })
        .collect();
    let cli = table::compute(&d, &specs, Policy::CloserLook).unwrap();
    let judged: Vec<JudgedRun> = modes
        .iter()
        .zip(&runs)
        .map(|(m, run)| JudgedRun {
            method: (*m).into(),
            attribute: "naturalness".into(),
            policy: Policy::CloserLook,
            weighting: None,
            run: run.clone(),
            origin: "file".into(),
        })
        .collect();
    let t = wb::compute(&d, &judged, Some("geval"));
    for (m, row) in cli.iter().enumerate() {
        assert_eq!(&t.cell(m, 0).unwrap().row, row, "{}", row.run);
    }
    // Seed 002 Table 4: document-level r of rate-explain on naturalness is 0.621.
    let v =
        wb::results::value(&t.cell(1, 0).unwrap().row, Statistic::Pearson, Granularity::Document);
    assert_eq!((v.unwrap() * 1000.0).round() / 1000.0, 0.621);
}

#[test]
fn cost_quality_counts_prompts_once_per_call() {
    let d = example();
    let s = study(&d, 4);
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(), &caps, None);
    let store: HashMap<String, String> = p
        .prompts
        .iter()
        .flat_map(|pr| pr.keys().map(move |k| (k, format!("{}", 1 + pr.item % 5))))
        .collect();
    let runs = wb::collect(&d, &s, &p, |k| store.get(k).cloned());
    // Four samples in one call: each prompt is paid once; four one-character answers.
    let want: u64 = runs[0]
        .run
        .records
        .iter()
        .map(|r| {
            assert!(r.prompt.is_none(), "collected runs keep the length, not the text");
            (r.prompt_chars.unwrap() as u64).div_ceil(4)
        })
        .sum();
    let (input, output) = wb::results::estimated_tokens(&runs[0], 4);
    assert_eq!((input, output), (want, 15 * 4));
    let (input_looped, _) = wb::results::estimated_tokens(&runs[0], 1);
    assert_eq!(input_looped, input * 4, "without n every sample pays the prompt");
    let t = wb::compute(&d, &runs, None);
    let price = concord_core::run::Price { input_per_million: 1.0, output_per_million: 2.0 };
    let rows = wb::results::cost_quality(
        &t,
        &runs,
        Statistic::Pearson,
        Granularity::Dataset,
        4,
        Some(price),
    );
    assert_eq!(rows.len(), 2);
    let r = &rows[0];
    let cost = (r.input_tokens as f64 + 2.0 * r.output_tokens as f64) / 1e6;
    assert!((r.cost_usd.unwrap() - cost).abs() < 1e-15);
    // Per dollar only for a positive quality (issue 36.6: no negative "quality per $").
    assert_eq!(r.quality_per_usd, r.quality.filter(|q| *q > 0.0).map(|q| q / cost));
}

/// A generic table with several rows of the same document and system (no system column):
/// every row gets its own judge scores, because runs made here are joined by item id.
#[test]
fn rows_sharing_document_and_system_each_keep_their_scores() {
    let csv = "doc,output,quality\nd1,a,1\nd1,b,2\nd1,c,3\nd2,d,4\nd2,e,5\nd2,f,2\n";
    let loaded = data::load("same_keys.csv", csv.as_bytes()).unwrap();
    let d = loaded.dataset;
    assert!(loaded.diagnostics.iter().any(|x| x.message.contains("again (first on line 2)")));
    let attributes = attrs(&d);
    let method = wb::method(
        &d,
        &attributes,
        OutputMode::ScoreOnly,
        false,
        Persona::None,
        sampling(1),
        Policy::Concord,
    );
    let s = Study { attributes, methods: vec![method], ..Study::default() };
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(), &caps, None);
    // The judge answers each row's own human rating.
    let store: HashMap<String, String> = p
        .prompts
        .iter()
        .map(|prompt| {
            let human = d.items[prompt.item].ratings[0].as_ref().unwrap().aggregate;
            (prompt.key(0), format!("{human}"))
        })
        .collect();
    let runs = wb::collect(&d, &s, &p, |k| store.get(k).cloned());
    let t = wb::compute(&d, &runs, None);
    let cell = t.cell(0, 0).unwrap();
    assert_eq!(cell.row.n, 6, "each of the 6 rows is scored");
    assert_eq!(cell.scores.scores, [1.0, 2.0, 3.0, 4.0, 5.0, 2.0].map(Some));
    assert!((cell.row.pearson.dataset.unwrap() - 1.0).abs() < 1e-12);
}

/// Seed 002's layout (the default): r at dataset level and τ at document level under each
/// attribute, in every export format; bundles from before it keep their one column.
#[test]
fn the_paper_layout_shows_r_and_tau_side_by_side() {
    let (d, runs) = table_fixture();
    let t = wb::compute(&d, &runs, Some("A"));
    let settings = Settings::default();
    assert!(settings.paper_layout);
    let columns = settings.columns();
    assert_eq!(
        columns,
        [(Statistic::Pearson, Granularity::Dataset), (Statistic::KendallB, Granularity::Document)]
    );
    let b = &t.cell(1, 0).unwrap().row;
    let (r, tau) = (b.pearson.dataset.unwrap(), b.kendall_b.document.unwrap());
    let shown = results_table(&t, &columns, None, &settings);
    let md = export::markdown(&shown);
    assert!(
        md.contains(
            "| Method | naturalness r (dataset) | naturalness τ (document) |\n|---|---:|---:|\n"
        ),
        "{md}"
    );
    assert!(md.contains(&format!("| B | {r:.3} | {tau:.3} |")), "{md}");
    let tex = export::latex(&shown);
    assert!(tex.contains("\\multicolumn{2}{c}{naturalness}"), "{tex}");
    assert!(tex.contains(" & $r$ (dataset) & $\\tau$ (document) \\\\"), "{tex}");
    let csv = export::csv(&shown);
    let mut reader = csv::ReaderBuilder::new().from_reader(csv.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 2, "{csv}");
    let tau_at = header.iter().position(|h| *h == "naturalness τ (document)").unwrap();
    assert_eq!(&records[1][0], "B");
    assert_eq!(&records[1][tau_at], export::portable(tau).to_string(), "{csv}");
    // The τ column carries no Williams p: the test compared dataset-level r.
    assert!(!header.contains(&"naturalness τ (document) p"), "{csv}");
    assert!(header.contains(&"naturalness r (dataset) p"), "{csv}");
    // A bundle's settings written before the layout existed read as one column.
    let old: Settings = serde_json::from_str(
        r#"{"baseline": null, "statistic": "spearman", "level": "document", "resamples": 1000, "seed": 0, "confidence": 0.95}"#,
    )
    .unwrap();
    assert_eq!(old.columns(), [(Statistic::Spearman, Granularity::Document)]);
}

/// Samples the provider cut off at the token limit are kept as such: the parse-failure table
/// separates "cut off before the rating" from "complete, no rating", and a bundle carries it.
#[test]
fn cut_off_samples_are_told_apart_from_answers_without_a_rating() {
    let d = example();
    let s = study(&d, 2);
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(), &caps, None);
    // Method 0: sample 0 says "Rating: 3"; sample 1 is cut off before its rating on even
    // items, cut off after it on odd ones. Method 1: sample 1 has no rating but ended.
    let mut store = HashMap::new();
    let mut cut = BTreeSet::new();
    for prompt in &p.prompts {
        store.insert(prompt.key(0), "Rating: 3".to_owned());
        let text = match (prompt.method, prompt.item % 2) {
            (0, 0) => {
                cut.insert(prompt.key(1));
                "Let me think about the summary's"
            }
            (0, _) => {
                cut.insert(prompt.key(1));
                "Rating: 4. Because the summary"
            }
            _ => "I would rather not say.",
        };
        store.insert(prompt.key(1), text.to_owned());
    }
    let mut runs = wb::results::empty_runs(&s);
    wb::results::collect_into(
        &mut runs,
        &d,
        &s,
        &p,
        0..p.prompts.len(),
        |k| store.get(k).cloned(),
        |k| wb::results::SampleInfo {
            cut_off: cut.contains(k),
            reasoning_tokens: cut.contains(k).then_some(64),
            ..Default::default()
        },
    );
    assert!(runs[0].run.records.iter().all(|r| r.cut_off == [1]));
    // The cut-off samples spent their budget reasoning: kept per response, 0 for the others,
    // and billed as output in the cost–quality view's tokens.
    assert!(runs[0].run.records.iter().all(|r| r.reasoning_tokens == [0, 64]));
    let (_, output) = wb::results::estimated_tokens(&runs[0], 1);
    let visible: u64 = runs[0]
        .run
        .records
        .iter()
        .flat_map(|r| &r.responses)
        .map(|t| concord_core::run::estimate_tokens(t.len() as u64))
        .sum();
    assert_eq!(output, visible + 64 * runs[0].run.records.len() as u64);
    assert!(runs[2].run.records.iter().all(|r| r.cut_off.is_empty()));
    let t = wb::compute(&d, &runs, None);
    let even = d.items.iter().enumerate().filter(|(i, _)| i % 2 == 0).count();
    let c = &t.cell(0, 0).unwrap().scores;
    assert_eq!((c.samples, c.parse_failures, c.cut_off, c.cut_off_failures), (30, even, 15, even));
    let c = &t.cell(1, 0).unwrap().scores;
    assert_eq!((c.parse_failures, c.cut_off, c.cut_off_failures), (15, 0, 0));
    let failures = wb::report::parse_failures_table(&t);
    let count = |key: &str| failures.keyed(key).unwrap().value;
    assert_eq!(count("score-only/coherence/cut_off_failures"), Some(even as f64));
    assert_eq!(count("score-only/coherence/complete_failures"), Some(0.0));
    assert_eq!(count("score-only/coherence/cut_off"), Some(15.0));
    assert_eq!(count("rate-explain/coherence/complete_failures"), Some(15.0));
    assert!(
        failures.notes[0].starts_with("30 samples were cut off at the token limit"),
        "{:?}",
        failures.notes
    );
    // The marks survive a bundle's JSON.
    let json = serde_json::to_string(&runs[0].run.records[0]).unwrap();
    let back: data::JudgeRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(back.cut_off, [1]);
    assert_eq!(back.reasoning_tokens, [0, 64]);
    // Records written before the fields existed read as not cut off, with no reasoning.
    let old = json.replace(",\"cut_off\":[1]", "").replace(",\"reasoning_tokens\":[0,64]", "");
    let old = serde_json::from_str::<data::JudgeRecord>(&old).unwrap();
    assert!(old.cut_off.is_empty() && old.reasoning_tokens.is_empty());
}
