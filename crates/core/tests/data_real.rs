//! Acceptance tests on the papers' released files in `../shared/data` (read in place, never
//! copied). Each test prints a notice and passes when the data is absent.

#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

mod common;

use std::path::PathBuf;

use concord_core::data::{self, Loaded};

fn shared(rel: &str) -> Option<PathBuf> {
    common::shared(&format!("data/{rel}"))
}

fn load(rel: &str) -> Option<Loaded> {
    let path = shared(rel)?;
    let bytes = std::fs::read(&path).unwrap();
    Some(data::load(rel, &bytes).unwrap_or_else(|e| panic!("{e}")))
}

/// Checks format, counts (items, documents, systems, pairs, raters), attribute names with
/// scales, and that no warning was raised.
fn check(rel: &str, format: &str, counts: [usize; 5], attributes: &[(&str, f64, f64)]) {
    let Some(l) = load(rel) else { return };
    let c = &l.summary.counts;
    assert_eq!(l.summary.format, format, "{rel}");
    assert_eq!([c.items, c.documents, c.systems, c.pairs, c.raters], counts, "{rel}");
    let got: Vec<_> =
        l.summary.attributes.iter().map(|a| (a.name.as_str(), a.min, a.max)).collect();
    assert_eq!(got, attributes, "{rel}");
    let warnings: Vec<_> =
        l.diagnostics.iter().filter(|d| d.severity == data::Severity::Warning).collect();
    assert!(warnings.is_empty(), "{rel}: {warnings:?}");
}

const SUMMEVAL: &[(&str, f64, f64)] = &[
    ("coherence", 1.0, 5.0),
    ("fluency", 1.0, 5.0),
    ("consistency", 1.0, 5.0),
    ("relevance", 1.0, 5.0),
];
const TOPICAL_CHAT: &[(&str, f64, f64)] = &[
    ("understandability", 0.0, 1.0),
    ("naturalness", 1.0, 3.0),
    ("coherence", 1.0, 3.0),
    ("engagingness", 1.0, 3.0),
    ("groundedness", 0.0, 1.0),
    ("overall", 1.0, 5.0),
];

#[test]
fn counts_of_the_released_datasets() {
    check("PPairS/data/summeval.jsonl", "summeval-ppairs", [1600, 100, 16, 0, 0], SUMMEVAL);
    check(
        "A-Closer-Look-To-LLM-Evaluation/data/topical_chat.json",
        "topical-chat",
        [360, 60, 6, 0, 0],
        TOPICAL_CHAT,
    );
    check(
        "UniEval/reproduce/data/dialogue/topical_chat.json",
        "topical-chat",
        [360, 60, 6, 0, 0],
        TOPICAL_CHAT,
    );
    check("meta-evaluation/datasets/pairwise/mt-bench.jsonl", "pairwise", [0, 0, 0, 391, 0], &[]);
    check("meta-evaluation/datasets/pairwise/llmbar.jsonl", "pairwise", [0, 0, 0, 100, 0], &[]);
    check(
        "meta-evaluation/datasets/scoring/openmeva.jsonl",
        "scoring",
        [250, 250, 1, 0, 0],
        &[("score", 1.0, 5.0)],
    );
    check(
        "meta-evaluation/datasets/scoring/summeval.jsonl",
        "scoring",
        [250, 250, 1, 0, 0],
        &[("score", 1.0, 5.0)],
    );
}

#[test]
fn coeval_counts() {
    let Some(l) = load("CoEval/data/combine_data.json") else { return };
    let c = &l.summary.counts;
    assert_eq!(
        (l.summary.format.as_str(), c.items, c.systems, c.tasks),
        ("coeval-combined", 600, 4, 3)
    );
    let tasks: Vec<_> = l
        .dataset
        .tasks
        .iter()
        .map(|t| (t.name.as_str(), t.input_name.as_str(), t.criteria.len()))
        .collect();
    assert_eq!(
        tasks,
        [
            ("eli5", "reddit question", 5),
            ("roc", "story requirement", 7),
            ("self_instruct", "instruction", 5)
        ]
    );
    // One ChatGPT run per task and criterion, 200 evaluations each.
    assert_eq!(l.runs.len(), 17);
    assert!(l.runs.iter().all(|r| r.records.len() == 200));
    let Some(scores) = load("CoEval/webapp/evaluation_data/ELI5/eli5_annotator_scores.json") else {
        return;
    };
    let c = &scores.summary.counts;
    assert_eq!((c.items, c.documents, c.systems, c.raters), (200, 50, 4, 5));
    // The annotator file keys items like combine_data does, by question text. 196 of 200 join:
    // combine_data.json has one ELI5 question cut at the front ("k haired people generally get
    // tanner…", 4 systems) that the annotator file does not, and the join reports them.
    let eli5_run = l.runs.iter().find(|r| r.name.contains("eli5")).unwrap();
    let j = data::join(&scores.dataset, eli5_run);
    assert_eq!((j.matched.len(), j.unmatched_records.len(), j.uncovered), (196, 4, 4));
    assert!(j.diagnostics[0].message.starts_with(
        "no item in CoEval/webapp/evaluation_data/ELI5/eli5_annotator_scores.json with document"
    ));
}

#[test]
fn released_values_are_kept_exactly() {
    let Some(tc) = load("A-Closer-Look-To-LLM-Evaluation/data/topical_chat.json") else { return };
    let item = &tc.dataset.items[0];
    assert_eq!(item.system_id, "Original Ground Truth");
    assert_eq!(item.inputs.names().collect::<Vec<_>>(), ["source", "context"]);
    let coh = tc.dataset.attribute_index("coherence").unwrap();
    assert_eq!(tc.dataset.human_scores(coh)[0], Some(2.3333333333));
    let Some(se) = load("PPairS/data/summeval.jsonl") else { return };
    let coh = se.dataset.attribute_index("coherence").unwrap();
    assert_eq!(
        (se.dataset.items[0].id.as_str(), se.dataset.human_scores(coh)[0]),
        ("A0/S0", Some(1.3333333333))
    );
}

/// Every Chiang & Lee Topical-Chat result file joins to the dataset by key: record counts as in
/// PROVENANCE.md (353–360 of 360), all matched, 20 responses per item.
#[test]
fn chiang_lee_results_join_to_topical_chat() {
    let Some(dataset) = load("A-Closer-Look-To-LLM-Evaluation/data/topical_chat.json") else {
        return;
    };
    let Some(dir) = shared("A-Closer-Look-To-LLM-Evaluation/results/topical_chat") else { return };
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 28);
    // Two threads: this test parses 70 MB, which takes a while in an unoptimised test build.
    let (first, second) = files.split_at(files.len() / 2);
    let check_files = |paths: &[PathBuf]| -> Vec<usize> {
        let mut counts = Vec::new();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let loaded = data::load(&name, &std::fs::read(path).unwrap()).unwrap();
            assert_eq!(loaded.summary.format, "chiang-lee-results");
            let run = &loaded.runs[0];
            assert!(run.attribute.is_some(), "{name}");
            assert!(
                run.records.iter().all(|r| r.responses.len() == 20 && r.prompt.is_some()),
                "{name}"
            );
            let j = data::join(&dataset.dataset, run);
            assert_eq!(j.unmatched_records, [] as [usize; 0], "{name}");
            assert_eq!(j.matched.len() + j.uncovered, 360, "{name}");
            counts.push(run.records.len());
        }
        counts
    };
    let counts: Vec<usize> = std::thread::scope(|s| {
        let other = s.spawn(|| check_files(second));
        let mut counts = check_files(first);
        counts.extend(other.join().unwrap());
        counts
    });
    assert_eq!(counts.iter().min(), Some(&353));
    assert_eq!(counts.iter().max(), Some(&360));
    assert_eq!(counts.iter().sum::<usize>(), 10000);
}

#[test]
fn unieval_predictions_join() {
    let Some(dataset) = load("UniEval/reproduce/data/dialogue/topical_chat.json") else { return };
    let Some(pred) = load("UniEval/reproduce/unieval_predict/dialogue/topical_chat_result.json")
    else {
        return;
    };
    let run = &pred.runs[0];
    let j = data::join(&dataset.dataset, run);
    assert_eq!((j.matched.len(), j.uncovered), (360, 0));
    assert_eq!(run.records[0].parsed[0], ("naturalness".to_owned(), 0.9767997580649153));
}

#[test]
fn meta_evaluation_results_join_to_datasets() {
    let Some(mt) = load("meta-evaluation/datasets/pairwise/mt-bench.jsonl") else { return };
    let Some(ev) = load(
        "meta-evaluation/evaluator_results/pairwise/merged_eval_results_gpt-3.5-turbo_pairwise.jsonl",
    ) else {
        return;
    };
    assert_eq!((ev.summary.counts.pairs, ev.summary.counts.judge_records), (491, 491));
    let j = data::join(&mt.dataset, &ev.runs[0]);
    // 491 evaluated pairs = 391 MT-bench + 100 LLMBar.
    assert_eq!((j.matched.len(), j.unmatched_records.len(), j.uncovered), (391, 100, 0));
}

/// Every `.jsonl` file of a released folder, loaded.
fn load_dir(rel: &str) -> Vec<(String, Loaded)> {
    let Some(dir) = shared(rel) else { return Vec::new() };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().map(|n| (n.clone(), load(&format!("{rel}/{n}")).unwrap())).collect()
}

#[test]
fn jdeval_assessors_and_cleaned_verdicts_are_kept() {
    let files = load_dir("meta-evaluation/meta-evaluator_results/pairwise/JDEval");
    let mut answer2 = 0;
    for (name, l) in &files {
        let records = &l.runs[0].records;
        assert_eq!(records.len(), 300, "{name}");
        for r in records {
            let m = r.meta.as_ref().unwrap();
            assert_eq!(m.evaluators.len(), 2, "{name}:{}", r.line);
            assert!(m.winner.is_some() && m.better_response.is_some(), "{name}:{}", r.line);
            assert!(m.branches.is_empty());
            answer2 += usize::from(m.better_response.as_deref() == Some("Answer2"));
        }
    }
    if !files.is_empty() {
        // Kept verbatim: the 5 `Answer2` spellings of qwen7b's release (Python count).
        assert_eq!((files.len(), answer2), (4, 5));
        let first = &files[0].1.runs[0].records[0];
        let m = first.meta.as_ref().unwrap();
        // g4_llmbar_elo.jsonl line 1.
        assert_eq!(m.evaluators, ["qwen7b", "qwen72b"]);
        assert_eq!(
            (m.winner.as_deref(), m.better_response.as_deref()),
            (Some("Assistant2"), Some("AnswerA"))
        );
    }
}

#[test]
fn bsmeval_branches_and_their_scores_are_kept() {
    let files = load_dir("meta-evaluation/meta-evaluator_results/pointwise/BSMEval");
    let (mut records, mut missing) = (0, 0);
    for (name, l) in &files {
        for r in &l.runs[0].records {
            let m = r.meta.as_ref().unwrap();
            assert_eq!(m.branches.len(), 5, "{name}:{}", r.line);
            assert_eq!(m.evaluators.len(), 1);
            // The branch texts are the responses after the evaluator's assessment.
            let texts: Vec<&str> = m.branches.iter().map(|b| b.response.as_str()).collect();
            assert_eq!(texts, r.responses[1..].iter().map(String::as_str).collect::<Vec<_>>());
            // The release's merged score is the mean of the branch scores it has.
            let scores: Vec<f64> = m.branches.iter().filter_map(|b| b.score).collect();
            let merged = r.parsed.iter().find(|(k, _)| k == "score_for_evaluator").unwrap().1;
            assert_eq!(data::mean_in_order(&scores), Some(merged), "{name}:{}", r.line);
            records += 1;
            missing += 5 - scores.len();
        }
        // The only warnings are the release's unreadable `score_meta_eval` strings ("4/5"…);
        // branches and their scores read cleanly.
        let odd = l.diagnostics.iter().filter(|d| d.severity == data::Severity::Warning);
        assert!(odd.clone().all(|d| d.field.as_deref() == Some("score_meta_eval")), "{name}");
    }
    if !files.is_empty() {
        // 18 files × 250; Python: 429 + 2·21 + 3·4 + 4·4 branch scores are null.
        assert_eq!((files.len(), records, missing), (18, 4500, 499));
    }
}

#[test]
fn coeval_session_logs_load() {
    // Per task folder: the first annotator and the number of criteria.
    for (folder, first, criteria) in
        [("ELI5", 1, 5), ("ROCStories", 6, 7), ("Self-Instruct", 11, 5)]
    {
        for a in first..first + 5 {
            let rel = format!("CoEval/webapp/evaluation_data/{folder}/A{a:02}.json");
            let Some(l) = load(&rel) else { return };
            let c = &l.summary.counts;
            assert_eq!(l.summary.format, "coeval-session", "{rel}");
            assert_eq!([c.items, c.documents, c.systems, c.pairs, c.raters], [200, 50, 4, 0, 1]);
            assert_eq!(l.summary.attributes.len(), criteria, "{rel}");
            assert!(l.summary.attributes.iter().all(|a| (a.min, a.max) == (1.0, 5.0)), "{rel}");
            assert!(l.diagnostics.iter().all(|d| d.severity != data::Severity::Warning), "{rel}");
            // One reviewed criterion per entry and criterion; A06 and A07 each skipped one
            // (Python count: 1,399 criteria entries).
            let skipped = usize::from(matches!(a, 6 | 7));
            assert_eq!(l.dataset.actions.len(), 200 * criteria - skipped, "{rel}");
            assert!(l.dataset.actions.iter().all(|r| !r.lines.is_empty()), "{rel}");
            let want = ["eli5", "roc", "self_instruct"][(a - 1) / 5];
            assert_eq!(l.dataset.items[0].task.as_deref(), Some(want), "{rel}");
        }
    }
}
