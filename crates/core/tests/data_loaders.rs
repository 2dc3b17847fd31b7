//! Loader behaviour on small hand-written fixtures, one per recognised format, pinned as
//! snapshot-style summaries: detected format, counts, attributes and every diagnostic.

#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

use concord_core::data::{self, Loaded};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A readable digest of a load: the same facts `concord inspect` prints, one per line.
fn render(loaded: &Loaded) -> String {
    let c = &loaded.summary.counts;
    let mut out = format!(
        "{} items={} documents={} systems={} pairs={} raters={} tasks={} judge_records={}\n",
        loaded.summary.format,
        c.items,
        c.documents,
        c.systems,
        c.pairs,
        c.raters,
        c.tasks,
        c.judge_records
    );
    for a in &loaded.summary.attributes {
        out += &format!("attribute {} {}..{}\n", a.name, a.min, a.max);
    }
    for d in &loaded.diagnostics {
        let line = d.line.map_or("-".to_owned(), |l| l.to_string());
        let field = d.field.as_deref().unwrap_or("-");
        out += &format!("{:?} {line} {field}: {}\n", d.severity, d.message);
    }
    out
}

fn check(name: &str, expect: &str) {
    let loaded = data::load(name, &fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let got = render(&loaded);
    assert_eq!(got.trim(), expect.trim(), "\n--- got ---\n{got}");
}

#[test]
fn coeval_combine_min_json() {
    check(
        "coeval_combine_min.json",
        r#"
coeval-combined items=2 documents=1 systems=2 pairs=0 raters=0 tasks=1 judge_records=4
attribute 1. Simple. 1..5
attribute 2. Correct. 1..5
"#,
    );
}

#[test]
fn eli5_action_min_json() {
    check(
        "eli5_action_min.json",
        r#"
coeval-actions items=1 documents=1 systems=1 pairs=0 raters=2 tasks=0 judge_records=0
"#,
    );
}

#[test]
fn eli5_annotator_scores_min_json() {
    check(
        "eli5_annotator_scores_min.json",
        r#"
coeval-annotator-scores items=2 documents=1 systems=2 pairs=0 raters=2 tasks=0 judge_records=2
attribute 1. Simple. 1..5
attribute 2. Correct. 1..5
Warning 3 2. Correct. [A02]: `2. Correct. [A02]` is not a number: "x"
Warning 16 2. Correct. [A02]: 9 is outside the 2. Correct. scale 1–5; dropped
"#,
    );
}

#[test]
fn evaluator_pairwise_min_jsonl() {
    check(
        "evaluator_pairwise_min.jsonl",
        r#"
evaluator-pairwise items=0 documents=0 systems=0 pairs=2 raters=0 tasks=0 judge_records=2
"#,
    );
}

#[test]
fn generic_min_csv() {
    check(
        "generic_min.csv",
        r#"
csv items=3 documents=2 systems=2 pairs=0 raters=2 tasks=0 judge_records=0
attribute coherence 1..5
attribute fluency 3..5
Warning 3 -: row has 7 cells but the header has 8; missing cells are empty, extra cells ignored
Info - -: guessed column mapping: document `doc_id`, system `system_id`, output `output`, inputs [`source`], ratings [`coherence_r1` = coherence by r1, `coherence_r2` = coherence by r2, `fluency_r1` = fluency by r1, `fluency_r2` = fluency by r2]
Warning 3 coherence_r2: rating "x" is not a number; dropped
Warning 4 output: empty output; row skipped
"#,
    );
}

#[test]
fn generic_min_tsv() {
    check(
        "generic_min.tsv",
        r#"
tsv items=2 documents=1 systems=2 pairs=0 raters=0 tasks=0 judge_records=0
attribute helpfulness 2.5..5
Info - -: guessed column mapping: document (none), system `model`, output `response`, inputs [`question`], ratings [`helpfulness` = helpfulness]
"#,
    );
}

#[test]
fn gpt3_5_coh_fixture_json() {
    check(
        "gpt3.5_coh_fixture.json",
        r#"
chiang-lee-results items=3 documents=3 systems=1 pairs=0 raters=0 tasks=0 judge_records=3
attribute naturalness 1..3
attribute coherence 1..3
attribute engagingness 1..3
attribute groundedness 0..1
Warning 20 scores.coherence: 7 is outside the coherence scale 1–3; dropped
Warning 36 all_responses: element 1 of `all_responses` is not a string; dropped
"#,
    );
}

#[test]
fn mt_bench_human_min_jsonl() {
    check(
        "mt_bench_human_min.jsonl",
        r#"
mt-bench-human items=0 documents=0 systems=3 pairs=2 raters=4 tasks=0 judge_records=0
"#,
    );
}

#[test]
fn pairwise_min_jsonl() {
    check(
        "pairwise_min.jsonl",
        r#"
pairwise items=0 documents=0 systems=0 pairs=4 raters=0 tasks=0 judge_records=0
Warning 4 label: label 3 is not 0 (tie), 1 or 2; left unknown
"#,
    );
}

#[test]
fn scoring_min_jsonl() {
    check(
        "scoring_min.jsonl",
        r#"
scoring items=3 documents=3 systems=1 pairs=0 raters=0 tasks=0 judge_records=0
attribute score 1..3
"#,
    );
}

#[test]
fn summeval_geval_min_json() {
    check(
        "summeval_geval_min.json",
        r#"
summeval-geval items=2 documents=1 systems=2 pairs=0 raters=0 tasks=0 judge_records=0
attribute coherence 1..5
attribute consistency 1..5
attribute fluency 1..5
attribute relevance 1..5
Warning 1 scores.consistency: `scores.consistency` is not a number: "n/a"
"#,
    );
}

#[test]
fn summeval_ppairs_min_jsonl() {
    check(
        "summeval_ppairs_min.jsonl",
        r#"
summeval-ppairs items=3 documents=2 systems=2 pairs=0 raters=0 tasks=0 judge_records=0
attribute coherence 1..5
attribute fluency 1..5
attribute consistency 1..5
attribute relevance 1..5
Warning 2 -: not a JSON value: EOF while parsing a value; line skipped
Warning 4 coherence: 6 is outside the coherence scale 1–5; dropped
"#,
    );
}

#[test]
fn topical_chat_min_json() {
    check(
        "topical_chat_min.json",
        r#"
topical-chat items=3 documents=2 systems=2 pairs=0 raters=0 tasks=0 judge_records=0
attribute naturalness 1..3
attribute coherence 1..3
attribute engagingness 1..3
attribute groundedness 0..1
Warning 26 scores.coherence: 7 is outside the coherence scale 1–3; dropped
"#,
    );
}

fn load(name: &str) -> Loaded {
    data::load(name, &fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn topical_chat_keeps_input_fields_under_their_names() {
    let l = load("topical_chat_min.json");
    let item = &l.dataset.items[1];
    assert_eq!(item.inputs.names().collect::<Vec<_>>(), ["source", "context"]);
    assert_eq!(item.inputs.get("context"), Some("miles davis was a jazz trumpeter ."));
    assert_eq!(item.output_name, "system_output");
    assert_eq!(item.field("system_output"), Some("i like music ."));
    assert_eq!(item.field("source"), Some("hi , do you like jazz ?\n"));
    assert_eq!(item.field("Fact"), None);
    assert_eq!(item.system_id, "Argmax Decoding");
    // The released aggregate is kept bit for bit (ties depend on it, STATS_SPEC §0).
    let coh = l.dataset.attribute_index("coherence").unwrap();
    assert_eq!(l.dataset.human_scores(coh), [Some(3.0), Some(2.3333333333), None]);
    // Same dialogue, same document id; different dialogue, different id.
    let ids: Vec<_> = l.dataset.items.iter().map(|i| i.document_id.as_str()).collect();
    assert_eq!(ids[0], ids[1]);
    assert_ne!(ids[0], ids[2]);
}

#[test]
fn chiang_lee_run_joins_by_key_not_position() {
    let dataset = load("topical_chat_min.json").dataset;
    let results = load("gpt3.5_coh_fixture.json");
    let run = &results.runs[0];
    assert_eq!(run.attribute.as_deref(), Some("coherence"));
    assert_eq!(run.records[0].responses, ["3", "3", "2"]);
    assert_eq!(
        run.records[0].prompt.as_deref(),
        Some("Rate coherence.\ni do , miles davis is my favourite .")
    );
    let joined = data::join(&dataset, run);
    // Record 1 is the third dataset item (the first two records are not in dataset order).
    assert_eq!(joined.matched, [(0, data::Target::Item(0)), (1, data::Target::Item(2))]);
    assert_eq!(joined.unmatched_records, [2]);
    assert_eq!(joined.uncovered, 1);
    assert_eq!(joined.record_per_item(3), [Some(0), None, Some(1)]);
    let lines: Vec<_> = joined.diagnostics.iter().map(|d| (d.line, d.message.clone())).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].0, Some(36));
    assert!(
        lines[0].1.contains("system Original Ground Truth; record not joined"),
        "{}",
        lines[0].1
    );
    assert_eq!(lines[1].1, "1 of 3 items of topical_chat_min.json have no record in this run");
}

#[test]
fn per_rater_scores_are_averaged_in_file_order() {
    let l = load("generic_min.csv");
    let coh = l.dataset.attribute_index("coherence").unwrap();
    let flu = l.dataset.attribute_index("fluency").unwrap();
    // Row 3's coherence_r2 is "x": only r1 remains. Row 4 (empty output) is skipped.
    assert_eq!(l.dataset.human_scores(coh), [Some(4.5), Some(2.0), Some(1.5)]);
    assert_eq!(l.dataset.human_scores(flu), [Some(5.0), Some(3.0), Some(4.0)]);
    let r = l.dataset.items[0].ratings[coh].as_ref().unwrap();
    assert_eq!(r.how, data::Aggregate::MeanOfRaters);
    assert_eq!(r.raters.iter().map(|s| s.rater.as_str()).collect::<Vec<_>>(), ["r1", "r2"]);
    // The guessed mapping is returned so the UI can show and edit it.
    let m = l.mapping.unwrap();
    assert_eq!(m.document.as_deref(), Some("doc_id"));
    assert_eq!(m.inputs, ["source"]);
}

#[test]
fn coeval_annotators_exclude_chatgpt() {
    let l = load("eli5_annotator_scores_min.json");
    let simple = l.dataset.attribute_index("1. Simple.").unwrap();
    assert_eq!(l.dataset.human_scores(simple), [Some(4.5), Some(5.0)]);
    assert_eq!(l.dataset.items[0].task.as_deref(), Some("eli5"));
    let chatgpt = &l.runs[0].records[0].parsed;
    assert_eq!(chatgpt, &[("1. Simple.".to_owned(), 4.0), ("2. Correct.".to_owned(), 5.0)]);
    // The combined file keys the same question the same way, so its runs join to these items.
    let combined = load("coeval_combine_min.json");
    assert_eq!(combined.dataset.tasks[0].input_name, "reddit question");
    assert_eq!(
        combined.dataset.items[0].inputs.get("reddit question"),
        Some("Why is the sky blue?")
    );
    let j = data::join(&l.dataset, &combined.runs[0]);
    assert_eq!(j.matched.len(), 2);
}

#[test]
fn pairwise_labels_and_votes() {
    let l = load("pairwise_min.jsonl");
    let labels: Vec<_> = l.dataset.pairs.iter().map(|p| p.label).collect();
    use data::PairLabel::*;
    assert_eq!(labels, [Some(A), Some(B), Some(Tie), None]);
    let mt = load("mt_bench_human_min.jsonl");
    let p = &mt.dataset.pairs[0];
    assert_eq!((p.votes.len(), p.label), (3, Some(A)));
    assert_eq!(p.inputs.get("question"), Some("Write a haiku."));
    assert_eq!(p.output_b, "A haiku is a poem.");
    // A human and GPT-4 (judge given as ["gpt-4", "pair-v2"]) disagree: a split vote is a tie.
    let votes: Vec<_> =
        mt.dataset.pairs[1].votes.iter().map(|v| (v.rater.as_str(), v.label)).collect();
    assert_eq!(votes, [("author_0", B), ("gpt-4/pair-v2", Tie)]);
    assert_eq!(mt.dataset.pairs[1].label, Some(Tie));
    // An evaluator's result file joins to the dataset by content, not by its row numbers.
    let ev = load("evaluator_pairwise_min.jsonl");
    let j = data::join(&l.dataset, &ev.runs[0]);
    assert_eq!(j.matched, [(0, data::Target::Pair(0))]);
    assert_eq!(j.unmatched_records, [1]);
}

#[test]
fn example_dataset_loads_through_the_csv_loader() {
    let loaded = data::example().unwrap();
    assert_eq!(loaded.diagnostics, []);
    // The short path the app opens with reads exactly what the general loader reads.
    let general = data::load_with_mapping(
        concord_core::example::EXAMPLE_NAME,
        concord_core::example::EXAMPLE_CSV.as_bytes(),
        Some(&data::example_mapping()),
    )
    .unwrap();
    assert_eq!(loaded, general);
    let d = data::example_dataset();
    assert_eq!(d.items.len(), 15);
    assert_eq!(
        d.attributes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["coherence", "fluency"]
    );
    assert!(d.attributes.iter().all(|a| a.scale == data::Scale::likert(1.0, 5.0)));
    let c = &loaded.summary.counts;
    assert_eq!((c.documents, c.systems, c.raters), (5, 3, 2));
    let coh = d.human_scores(0);
    assert_eq!(coh[0], Some(4.0));
    assert_eq!(coh[1], Some(5.0));
}

fn other_fixture(rel: &str) -> Loaded {
    let path = format!("{}/tests/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    data::load(rel, &bytes).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn coeval_session_log_is_a_dataset_with_reviews() {
    let l = other_fixture("coeval/ELI5/A01.json");
    let got = render(&l);
    let want = r#"
coeval-session items=2 documents=1 systems=2 pairs=0 raters=1 tasks=0 judge_records=0
attribute 1. Simple language. 1..5
attribute 2. Factual. 1..5
Warning 87 A01.3: entry skipped: no input field (one of ["reddit question", "instruction", "story requirement"])
"#;
    assert_eq!(got.trim(), want.trim(), "\n--- got ---\n{got}");
    // Entries in key order ("1" before "2", whatever the file's order), keyed like the other
    // CoEval files (content hash of the question), task from the folder.
    let ids: Vec<_> = l.dataset.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["A01/1", "A01/2"]);
    let item = &l.dataset.items[1];
    assert_eq!((item.system_id.as_str(), item.task.as_deref()), ("human", Some("eli5")));
    assert_eq!(item.document_id, data::content_id("Why is the sky blue?"));
    assert_eq!(item.inputs.get("reddit question"), Some("Why is the sky blue?"));
    assert_eq!((item.output_name.as_str(), item.output.as_str()), ("answer", "human answer"));
    // Final scores are the annotator's ratings.
    let simple = item.ratings[0].as_ref().unwrap();
    assert_eq!((simple.raters[0].rater.as_str(), simple.aggregate), ("A01", 4.0));
    // One review per criterion, lines verbatim, a `0` time is no time.
    let reviews: Vec<_> = l.dataset.actions.iter().filter(|r| r.item_id == "A01/2").collect();
    assert_eq!(reviews.len(), 2);
    assert_eq!(reviews[0].start_time.as_deref(), Some("2023-05-29 06:22:10"));
    assert_eq!(reviews[1].start_time, None);
    let revised = &reviews[0].lines[1];
    assert_eq!(
        (revised.text.as_str(), revised.pass.as_str(), revised.revise_reason.as_str()),
        ("2. Score: 5", "", "too high")
    );
    assert_eq!(revised.revised, "2. Score: 4");
    assert!(reviews.iter().all(|r| r.actions.is_empty() && r.rater == "A01"));
}

#[test]
fn meta_evaluator_records_keep_assessors_verdicts_and_branches() {
    let jd = other_fixture("meta/mx_fixture_elo.jsonl");
    let m = jd.runs[0].records[1].meta.as_ref().unwrap();
    assert_eq!(m.evaluators, ["b", "c"]);
    // Verbatim, spelling included.
    assert_eq!(
        (m.winner.as_deref(), m.better_response.as_deref()),
        (Some("Assistant 2"), Some("AnswerA"))
    );
    assert!(m.branches.is_empty() && m.meta_evaluator.is_none());

    let bsm = other_fixture("meta/metax_judgea_openmeva_bsm_fixture.jsonl");
    let r = &bsm.runs[0].records[0];
    let m = r.meta.as_ref().unwrap();
    assert_eq!(
        (m.meta_evaluator.as_deref(), m.evaluators.as_slice()),
        (Some("metax"), &["judgea".to_owned()][..])
    );
    let branches: Vec<_> = m.branches.iter().map(|b| (b.response.as_str(), b.score)).collect();
    // Two scored branches, then the merge response, which has no score of its own.
    assert_eq!(
        branches,
        [("<Score>2.0</Score>", Some(2.0)), ("<Score>3.0</Score>", Some(3.0)), ("merge", None)]
    );
    assert_eq!(r.responses[0], "I assign 3.");
    let info = bsm.diagnostics.iter().find(|d| d.field.as_deref() == Some("scores")).unwrap();
    assert_eq!(info.severity, data::Severity::Info);
    assert_eq!(
        info.message,
        "2 branch scores for 3 branch responses; unmatched ones are left without a score"
    );
}
