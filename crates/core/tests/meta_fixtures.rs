//! Meta-evaluation analysis on small fixtures of our own (`tests/fixtures/meta/`), always run.
//! Expected values are worked out by hand in the comments, or by scipy where noted.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::collections::BTreeMap;

use concord_core::data::{self, Loaded};
use concord_core::judge::parse::Verdict;
use concord_core::meta::{self, EloOptions, Input, MatchSet, MetaProtocol};
use concord_core::stats::{EloParams, Match, Outcome};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/meta/");

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

fn load(name: &str) -> Loaded {
    data::load(name, &bytes(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn close(actual: Option<f64>, expected: f64, what: &str) {
    let a = actual.unwrap_or_else(|| panic!("{what}: undefined, expected {expected}"));
    assert!((a - expected).abs() < 1e-12, "{what}: {a} != {expected}");
}

#[test]
fn pairwise_accuracy_counts_ties_as_a_class() {
    let name = "merged_eval_results_judge-a_pairwise.jsonl";
    let acc = meta::pairwise_accuracy("judge-a", &load(name)).unwrap();
    // Labels 1,2,0,0,1,2,1 vs verdicts 1,2,0,1,0,2 and `<Winner>2` (no cleaned field):
    // right on rows 0,1,2,5 → 4/7; gold non-ties (rows 0,1,4,5,6) right on 0,1,5 → 3/5;
    // neither side a tie (rows 0,1,5,6) → 3/4.
    assert_eq!((acc.n, acc.n_no_ties, acc.unparsed, acc.unmatched), (7, 5, 0, 0));
    close(acc.accuracy, 4.0 / 7.0, "accuracy");
    close(acc.accuracy_no_ties, 0.6, "accuracy without ties");
    close(acc.agreement_both_non_tie, 0.75, "both non-tie");
}

#[test]
fn pointwise_pearson_drops_empty_scores() {
    let c =
        meta::pointwise_pearson("judge-a", &load("merged_scores_judge-a_pointwise.jsonl")).unwrap();
    // Gold 1..5 vs scores 1,3,2,5,"": scipy.stats.pearsonr([1,2,3,4],[1,3,2,5]).
    assert_eq!((c.n, c.missing), (4, 1));
    let r = c.pearson.unwrap();
    assert!((r - 0.8315218406203).abs() < 1e-12, "{r}");
}

#[test]
fn position_consistency_from_swapped_runs() {
    let o = load("merged_eval_results_judge-a_pairwise.jsonl");
    let s = load("merged_eval_results_judge-a-swapped_pairwise.jsonl");
    let pc = meta::position_consistency_runs("o", &o, "s", &s).unwrap();
    // Original 1,2,0,1,0,2,2 vs swapped 2,1,0,1,1,0,2: three consistent, pair 3 picks the
    // first slot twice, pair 6 the second twice, pairs 4 and 5 flip to or from a tie.
    assert_eq!(
        (pc.n, pc.consistent, pc.prefers_first, pc.prefers_second, pc.tie_flips, pc.unmatched),
        (7, 3, 1, 1, 2, 0)
    );
    close(pc.consistency, 3.0 / 7.0, "consistency");
    close(pc.position_bias, 0.0, "bias");

    let first = [Some(Verdict::First), Some(Verdict::First), None];
    let swapped = [Some(Verdict::First), Some(Verdict::Second), Some(Verdict::Tie)];
    let pc = meta::position_consistency(&first, &swapped).unwrap();
    assert_eq!((pc.n, pc.consistent, pc.prefers_first, pc.unmatched), (2, 1, 1, 1));
    close(pc.position_bias, 0.5, "bias");
    assert!(meta::position_consistency(&first, &swapped[..2]).is_err());
}

#[test]
fn meta_scores_of_both_protocols() {
    let check = |file: &str, want: (&str, &str, MetaProtocol, usize, f64, usize)| {
        let s = meta::meta_score(file, &load(file)).unwrap();
        assert_eq!(
            (s.meta_evaluator.as_str(), s.evaluator.as_str(), s.protocol, s.n, s.empty),
            (want.0, want.1, want.2, want.3, want.5),
            "{file}"
        );
        close(s.mean, want.4, file);
    };
    // Scores "5", "4", "" → 4.5 over 2; BSMEval averages 2.5 and 3.0 → 2.75.
    check(
        "merged_meta_results_meta-x_judge-a_pointwise.jsonl",
        ("meta-x", "judge-a", MetaProtocol::JdEvalI, 2, 4.5, 1),
    );
    check(
        "metax_judgea_openmeva_bsm_fixture.jsonl",
        ("metax", "judgea", MetaProtocol::BsmEval, 2, 2.75, 0),
    );
}

fn jdeval_fixture() -> Vec<meta::JdEvalRecord> {
    let name = "mx_fixture_elo.jsonl";
    let records = meta::jdeval_records_from(name, &load(name)).unwrap();
    // The former signature (which re-read the file's bytes) gives the same records.
    assert_eq!(meta::jdeval_records(name, &bytes(name), &load(name)).unwrap(), records);
    records
}

#[test]
fn jdeval_records_read_cleaned_verdicts_and_fall_back_to_tags() {
    let records = jdeval_fixture();
    let got: Vec<_> = records
        .iter()
        .map(|r| (r.evaluator_1.as_str(), r.evaluator_2.as_str(), r.winner, r.better_answer))
        .collect();
    use Verdict::*;
    assert_eq!(
        got,
        vec![
            ("a", "b", Some(First), Some(First)),
            // `Assistant 2` (with a space) is Assistant2; `Answer B` is AnswerB.
            ("b", "c", Some(Second), Some(First)),
            ("a", "c", Some(Tie), Some(Second)),
            // No cleaned fields: read from the <Better_…> tags of the meta response.
            ("c", "a", Some(Second), Some(First)),
        ]
    );
    let post = meta::post_accuracy(&records);
    // Labels 1,2,1,1 vs answers A,A,B,A → rows 0 and 3.
    assert_eq!((post.n, post.correct, post.unreadable), (4, 2, 0));
    close(post.accuracy, 0.5, "post accuracy");
}

#[test]
fn jdeval_without_assessor_names_is_an_error() {
    let line = br#"{"question":"q","answer1":"a","answer2":"b","label":1,"meta_eval_result":"x"}"#;
    let loaded = data::load("bad.jsonl", line).unwrap();
    let err = meta::jdeval_records_from("bad.jsonl", &loaded).unwrap_err();
    assert_eq!(err.to_string(), "bad.jsonl, line 1: missing `evaluator_1/evaluator_2`");
}

#[test]
fn win_rates_and_elo_in_file_order() {
    let set = meta::match_set(&jdeval_fixture());
    assert_eq!(set.evaluators, ["a", "b", "c"]);
    let w = meta::win_rates(&set);
    // a–c: one draw, one win of a.
    assert_eq!(w.games[0][2], 2);
    close(w.ties_zero[0][2], 0.5, "a vs c, ties zero");
    close(w.tie_half[0][2], 0.75, "a vs c, tie half");
    close(w.no_ties[0][2], 1.0, "a vs c, no ties");
    close(w.ties_zero[2][0], 0.0, "c vs a");
    close(w.ties_zero[2][1], 1.0, "c vs b");
    assert_eq!(w.ties_zero[1][1], None);
    assert_eq!(
        (w.wins.clone(), w.losses.clone(), w.ties.clone()),
        (vec![2, 0, 1], vec![0, 2, 1], vec![1, 0, 1])
    );

    // Reference: the paper's Eq. 3–5 played in file order (Python, K = 4, 1000, 400).
    let once = EloOptions { shuffles: 0, ..EloOptions::default() };
    let e = meta::elo_ratings("mx", &set, &once);
    let want = [("a", 1003.9998682170074), ("b", 996.0115127982992), ("c", 999.9886189846934)];
    for (name, r) in want {
        assert!((e.ratings[name] - r).abs() < 1e-9, "{name}: {}", e.ratings[name]);
        assert_eq!(e.spread[name], 0.0);
    }
    // Shuffled: the total is conserved in every order, and the seed makes it reproducible.
    let many = EloOptions { shuffles: 50, seed: 7, ..EloOptions::default() };
    let a = meta::elo_ratings("mx", &set, &many);
    let b = meta::elo_ratings("mx", &set, &many);
    assert_eq!(a, b);
    let total: f64 = a.ratings.values().sum();
    assert!((total - 3000.0).abs() < 1e-9, "{total}");
    assert!(a.spread.values().all(|s| *s > 0.0));
    let by_seed = meta::elo_seed_spread(&set, &many, &[1, 2, 3]);
    assert!(by_seed.values().all(|(_, sd)| *sd > 0.0 && *sd < 2.0), "{by_seed:?}");
}

#[test]
fn bradley_terry_with_intervals() {
    // a beats b twice, b beats a once: θa − θb = ln 2, on the Elo scale ±200·log10(2).
    let set = MatchSet {
        evaluators: vec!["a".into(), "b".into()],
        matches: vec![
            Match { a: 0, b: 1, outcome: Some(Outcome::AWins) },
            Match { a: 1, b: 0, outcome: Some(Outcome::BWins) },
            Match { a: 0, b: 1, outcome: Some(Outcome::BWins) },
        ],
    };
    let bt = meta::bradley_terry_intervals(&set, &EloParams::default(), 200, 0.95, 3);
    let r = bt.ratings.unwrap();
    let half = 200.0 * 2f64.log10();
    assert!(
        (r[0] - (1000.0 + half)).abs() < 1e-9 && (r[1] - (1000.0 - half)).abs() < 1e-9,
        "{r:?}"
    );
    assert!(bt.valid_resamples > 0 && bt.valid_resamples < 200, "{}", bt.valid_resamples);
    for iv in bt.intervals.iter().flatten() {
        assert!(iv[0] <= iv[1], "{iv:?}");
    }
    // b never wins in the JDEval fixture: no finite maximum-likelihood estimate.
    let none = meta::bradley_terry_intervals(
        &meta::match_set(&jdeval_fixture()),
        &EloParams::default(),
        10,
        0.95,
        0,
    );
    assert!(none.ratings.is_none() && none.undefined.is_some());
}

#[test]
fn ranking_agreement_matches_names_across_spellings() {
    let map = |xs: &[(&str, f64)]| -> BTreeMap<String, f64> {
        xs.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect()
    };
    let baseline = map(&[
        ("gpt-4-1106-preview", 0.7332),
        ("gpt-3.5-turbo", 0.6741),
        ("qwen1.5-7B-Chat", 0.501),
        ("not-rated-by-meta", 0.9),
    ]);
    let check = |meta_scores: &[(&str, f64)], tau: f64| {
        let a = meta::ranking_agreement(&map(meta_scores), &baseline);
        assert_eq!(a.evaluators, ["gpt35", "gpt4", "qwen7b"]);
        close(a.tau_b, tau, "tau");
    };
    check(&[("gpt4", 3.0), ("gpt35", 2.0), ("qwen7b", 1.0)], 1.0);
    check(&[("g4", 1.0), ("gpt35", 2.0), ("qwen7b", 3.0)], -1.0);
    // One discordant pair of three.
    check(&[("gpt4", 3.0), ("gpt35", 1.0), ("qwen7b", 2.0)], 1.0 / 3.0);
}

#[test]
fn analyze_builds_the_cli_report() {
    let files = [
        "merged_eval_results_judge-a_pairwise.jsonl",
        "merged_scores_judge-a_pointwise.jsonl",
        "merged_meta_results_meta-x_judge-a_pointwise.jsonl",
        "metax_judgea_openmeva_bsm_fixture.jsonl",
        "mx_fixture_elo.jsonl",
    ];
    let contents: Vec<(String, Vec<u8>)> =
        files.iter().map(|f| (f.to_string(), bytes(f))).collect();
    let mut inputs: Vec<Input<'_>> =
        contents.iter().map(|(name, bytes)| Input { name, bytes }).collect();
    inputs.push(Input {
        name: "ratings.csv",
        bytes: b"doc_id,system_id,source,output,coherence\nd,s,a,b,4\n",
    });
    let analysis = meta::analyze(&inputs, &EloOptions { shuffles: 0, ..EloOptions::default() });
    assert_eq!(analysis.problems.len(), 1);
    assert_eq!(analysis.problems[0].file, "ratings.csv");
    let json = serde_json::to_value(&analysis.report).unwrap();
    let evaluators = json["evaluators"].as_array().unwrap();
    assert_eq!(evaluators.len(), 2);
    assert_eq!(evaluators[0]["kind"], "pairwise");
    assert_eq!(evaluators[0]["name"], "judge-a");
    assert!(evaluators[0].get("pearson").is_none(), "fields that do not apply are omitted");
    assert_eq!(evaluators[1]["kind"], "pointwise");
    assert!(evaluators[1].get("accuracy").is_none());
    let protocols: Vec<_> =
        json["meta_scores"].as_array().unwrap().iter().map(|m| m["protocol"].clone()).collect();
    assert_eq!(protocols, ["BSMEval", "JDEval-i"]);
    assert_eq!(json["elo"][0]["meta_evaluator"], "mx");
    assert_eq!(json["elo"][0]["matches"], 4);
    assert!((json["elo"][0]["ratings"]["a"].as_f64().unwrap() - 1003.9998682170074).abs() < 1e-9);
}

#[test]
fn verdict_accuracy_of_a_live_run_by_position() {
    use concord_core::data::PairLabel;
    // Gold A, B, tie, tie, A, and one pair without a label; verdicts right, right, wrong (A
    // for a tie), right (tie), unreadable, and one for the unlabelled pair.
    let labels = [
        Some(PairLabel::A),
        Some(PairLabel::B),
        Some(PairLabel::Tie),
        Some(PairLabel::Tie),
        Some(PairLabel::A),
        None,
    ];
    let verdicts = [
        Some(Verdict::First),
        Some(Verdict::Second),
        Some(Verdict::First),
        Some(Verdict::Tie),
        None,
        Some(Verdict::First),
    ];
    let acc = meta::verdict_accuracy("live", &verdicts, &labels);
    // Used: rows 0–3 → 3 of 4 right; gold non-ties among them: rows 0, 1 → 2 of 2.
    assert_eq!((acc.n, acc.n_no_ties, acc.unparsed, acc.unmatched), (4, 2, 1, 1));
    close(acc.accuracy, 0.75, "accuracy");
    close(acc.accuracy_no_ties, 1.0, "accuracy without ties");
    // The file-based accuracy is the same function over the file's verdicts.
    let name = "merged_eval_results_judge-a_pairwise.jsonl";
    let loaded = load(name);
    let from_file = meta::pairwise_accuracy("judge-a", &loaded).unwrap();
    let labels: Vec<Option<PairLabel>> = loaded.dataset.pairs.iter().map(|p| p.label).collect();
    // Verdicts of the fixture as its comment in `pairwise_accuracy_counts_ties_as_a_class` lists.
    let v = |c: u8| match c {
        0 => Some(Verdict::Tie),
        1 => Some(Verdict::First),
        _ => Some(Verdict::Second),
    };
    let verdicts: Vec<Option<Verdict>> = [1, 2, 0, 1, 0, 2, 2].into_iter().map(v).collect();
    assert_eq!(meta::verdict_accuracy("judge-a", &verdicts, &labels), from_file);
}

#[test]
fn elo_seed_summary_is_the_seed_spread_of_per_seed_results() {
    let set = meta::match_set(&jdeval_fixture());
    let options = EloOptions { shuffles: 20, seed: 0, ..EloOptions::default() };
    let seeds = [4u64, 5, 6];
    let per_seed: Vec<meta::EloResult> = seeds
        .iter()
        .map(|&seed| meta::elo_ratings("mx", &set, &EloOptions { seed, ..options }))
        .collect();
    let summary = meta::elo_seed_summary(&set.evaluators, &per_seed);
    assert_eq!(summary, meta::elo_seed_spread(&set, &options, &seeds));
    // By hand for one evaluator: mean and sample SD of its three means.
    let name = &set.evaluators[0];
    let xs: Vec<f64> = per_seed.iter().map(|r| r.ratings[name]).collect();
    let mean = xs.iter().sum::<f64>() / 3.0;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let (m, s) = summary[name];
    assert!((m - mean).abs() < 1e-9 && (s - sd).abs() < 1e-9, "{m} {s} vs {mean} {sd}");
    // One seed: SD 0.
    let one = meta::elo_seed_summary(&set.evaluators, &per_seed[..1]);
    assert!(one.values().all(|(_, sd)| *sd == 0.0));
    // `seeds` in the options: elo_ratings reports the same SDs beside its own result (what
    // `concord meta --seeds 3 --seed 4` prints as `seed_spread`), and nothing without it.
    let with = meta::elo_ratings("mx", &set, &EloOptions { seed: 4, seeds: 3, ..options });
    assert_eq!(with.ratings, per_seed[0].ratings);
    assert_eq!(with.seed_spread.len(), summary.len(), "{:?}", with.seed_spread);
    for (name, (_, sd)) in &summary {
        assert!((with.seed_spread[name] - sd).abs() < 1e-12, "{name}");
    }
    assert!(per_seed[0].seed_spread.is_empty());
    let json = serde_json::to_value(&per_seed[0]).unwrap();
    assert!(json.get("seed_spread").is_none(), "omitted when not measured: {json}");
}

#[test]
fn analyze_file_takes_the_branch_analyze_takes() {
    let files = [
        "merged_eval_results_judge-a_pairwise.jsonl",
        "merged_scores_judge-a_pointwise.jsonl",
        "merged_meta_results_meta-x_judge-a_pointwise.jsonl",
        "metax_judgea_openmeva_bsm_fixture.jsonl",
        "mx_fixture_elo.jsonl",
    ];
    let mut kinds = Vec::new();
    for name in files {
        let analysis = meta::analyze_file(name, &load(name)).unwrap();
        kinds.push(match analysis {
            meta::FileAnalysis::Evaluator(row) => row.kind,
            meta::FileAnalysis::MetaScore(s) => s.protocol.name(),
            meta::FileAnalysis::JdEval { records, .. } => {
                assert_eq!(records, jdeval_fixture());
                "JDEval"
            }
        });
    }
    assert_eq!(kinds, ["pairwise", "pointwise", "JDEval-i", "BSMEval", "JDEval"]);
    // A dataset is not a results file, with the message `concord meta` prints.
    let csv = b"doc_id,system_id,source,output,coherence\nd,s,a,b,4\n";
    let loaded = data::load("ratings.csv", csv).unwrap();
    let err = meta::analyze_file("ratings.csv", &loaded).unwrap_err();
    assert!(
        err.to_string().contains("is not an evaluator or meta-evaluator results file"),
        "{err}"
    );
}
