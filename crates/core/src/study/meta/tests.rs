//! The workspace against `concord meta` (the same rows and Elo from the same files), the
//! paper's layout of Tables 1, 5, 6 and Elo, and snapshots rebuilt with no key.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::collections::BTreeMap;

use super::compute::{self, elo_orders, elo_run, elo_summary};
use super::files::{
    self, FileKind, IndividualInput, JdEvalFile, MetaFile, analyze_file, report_rows,
};
use super::live::{LiveRun, Protocols, RunSpec, couple_jobs};
use super::*;
use crate::data::PairLabel;
use crate::judge::ChatResponse;
use crate::judge::meta_eval::IndividualTask;
use crate::judge::protocol::Protocol;
use crate::meta::{self, EloOptions, EloResult};
use crate::report::{self, Format, Report};
use crate::stats;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/meta/");
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/meta-evaluation");

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn base(path: &str) -> String {
    path.rsplit('/').next().unwrap().to_owned()
}

fn list(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().display().to_string())
        .filter(|p| p.ends_with(".jsonl") || p.ends_with(".json"))
        .collect();
    out.sort();
    out
}

/// `../shared` is beside the checkout (CI) or the test says it skips.
fn shared() -> bool {
    let there = std::path::Path::new(SHARED).exists();
    if !there {
        assert!(
            std::env::var_os("CONCORD_REQUIRE_SHARED").is_none(),
            "{SHARED} is absent and CONCORD_REQUIRE_SHARED is set"
        );
        eprintln!("skipped: {SHARED} is absent");
    }
    there
}

/// Analyses `paths` file by file and through `meta::analyze`, and checks they agree.
fn check(paths: &[String]) -> Vec<MetaFile> {
    let contents: Vec<(String, Vec<u8>)> = paths.iter().map(|p| (base(p), read(p))).collect();
    let files: Vec<MetaFile> = contents.iter().map(|(n, b)| analyze_file(n, b)).collect();
    let inputs: Vec<meta::Input<'_>> =
        contents.iter().map(|(name, bytes)| meta::Input { name, bytes }).collect();
    let settings = Settings { shuffles: 20, resamples: 10, ..Settings::default() };
    let options = settings.elo();
    let want = meta::analyze(&inputs, &options);
    let (rows, scores) = report_rows(&files);
    assert_eq!(rows, want.report.evaluators);
    assert_eq!(scores, want.report.meta_scores);
    let mut elo: Vec<EloResult> = files
        .iter()
        .filter_map(|f| Some(compute::pairwise_result(f.jdeval()?, &settings).elo))
        .collect();
    elo.sort_by(|a, b| a.meta_evaluator.cmp(&b.meta_evaluator));
    assert_eq!(elo, want.report.elo);
    // The stepwise Elo the page runs equals the core's, shuffled or in file order.
    for f in &files {
        let Some(j) = f.jdeval() else { continue };
        for options in [options, EloOptions { shuffles: 0, ..options }] {
            let want = meta::elo_ratings(&j.meta_evaluator, &j.set, &options);
            let runs: Vec<Vec<f64>> = elo_orders(&j.set, &options)
                .iter()
                .map(|o| elo_run(&j.set, o.as_deref(), &options))
                .collect();
            assert_eq!(elo_summary(&j.meta_evaluator, &j.set, &runs), want);
            let mut steps = compute::EloSteps::new(&j.set, &options);
            while steps.step(3) {}
            assert_eq!(steps.finish(&j.meta_evaluator), want);
        }
    }
    let problems: Vec<&str> = files.iter().filter_map(|f| f.problem.as_deref()).collect();
    assert_eq!(problems.len(), want.problems.len(), "{problems:?}");
    files
}

#[test]
fn fixtures_give_the_same_report_as_concord_meta() {
    let files = check(&list(FIXTURES));
    let kinds: Vec<FileKind> = files.iter().map(|f| f.kind).collect();
    assert!(kinds.contains(&FileKind::Pairwise));
    assert!(kinds.contains(&FileKind::BsmEval));
    assert!(kinds.contains(&FileKind::JdEval));
    let bsm = files.iter().find(|f| f.kind == FileKind::BsmEval).unwrap().branch_records();
    assert!(!bsm.is_empty());
    // The branches come from the loader's `MetaAssessment`, each with its released score.
    assert!(!bsm[0].branches.is_empty());
    assert!(bsm[0].branches.iter().any(|b| b.score.is_some() && !b.response.is_empty()));
}

#[test]
fn the_same_file_is_recognised_by_its_content() {
    let path = format!("{FIXTURES}mx_fixture_elo.jsonl");
    let w = workspace_of(std::slice::from_ref(&path));
    let sha = files::sha256_hex(&read(&path));
    assert_eq!(w.loaded_name(&sha), Some("mx_fixture_elo.jsonl"));
    assert_eq!(w.loaded_name(&files::sha256_hex(b"other bytes")), None);
}

fn workspace_of(paths: &[String]) -> Workspace {
    let mut w = Workspace::new();
    for p in paths {
        w.add_bytes(&base(p), &read(p));
    }
    w
}

fn headings(t: &report::Table) -> Vec<&str> {
    t.columns.iter().map(|c| c.label.as_str()).collect()
}

fn row_labels(t: &report::Table) -> Vec<&str> {
    t.rows.iter().map(|r| r.label.as_str()).collect()
}

#[test]
fn fixture_tables_in_the_papers_layout() {
    let w = workspace_of(&list(FIXTURES));
    let settings = Settings { shuffles: 10, resamples: 20, seeds: 0, ..Settings::default() };
    let report = w.paper_report(&settings);
    let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["table1", "table5", "table6", "elo"]);
    let t1 = report.table("table1").unwrap();
    assert_eq!(t1.corner, "Evaluator");
    assert_eq!(
        row_labels(t1),
        ["Accuracy", "Pearson corr.", "Accuracy (no ties)", "n pairs", "n items"]
    );
    // Two pairwise files (judge-a, judge-a-swapped) and one pointwise (judge-a): judge-a's
    // column holds both of its files.
    assert_eq!(headings(t1), ["judge-a", "judge-a-swapped"]);
    assert_eq!(t1.keyed("judge-a/pearson").unwrap().text, t1.rows[1].cells[0].text);
    assert!(t1.rows[1].cells[1].is_blank(), "no pointwise file of judge-a-swapped");
    let t5 = report.table("table5").unwrap();
    assert_eq!(t5.corner, "Meta-evaluator \\ Evaluator");
    assert_eq!((row_labels(t5), headings(t5)), (vec!["meta-x"], vec!["judge-a"]));
    let elo = report.table("elo").unwrap();
    assert_eq!(row_labels(elo), ["mx"]);
    assert_eq!(headings(elo), ["a", "b", "c"]);
    let a = elo.keyed("mx/a").unwrap();
    assert!(a.spread.is_some() && a.value.is_some());
    // The same tables as the whole report's.
    let full = w.report(&settings);
    for t in &report.tables {
        assert_eq!(Some(t), full.table(&t.id));
    }
}

#[test]
fn released_files_reproduce_tables_1_5_6_in_the_papers_layout() {
    if !shared() {
        return;
    }
    let mut paths = list(&format!("{SHARED}/evaluator_results/pairwise"));
    paths.extend(list(&format!("{SHARED}/evaluator_results/pointwise")));
    paths.extend(list(&format!("{SHARED}/meta-evaluator_results/pairwise/JDEval")));
    // Two JDEval-i and two BSMEval files keep the debug-build test quick; every cell is
    // checked by `crates/core/tests/meta_reproduction.rs` and the CLI's tests.
    let jdi = list(&format!("{SHARED}/meta-evaluator_results/pointwise/JDEval-i"));
    let bsm = list(&format!("{SHARED}/meta-evaluator_results/pointwise/BSMEval"));
    paths.extend(jdi.into_iter().filter(|p| p.contains("gpt-4-1106-preview_gpt-4")));
    paths.extend(bsm.into_iter().filter(|p| p.contains("qwen72b_gpt4_")));
    let files = check(&paths);
    let w = workspace_of(&paths);
    let report = w.paper_report(&Settings { shuffles: 20, ..Settings::default() });
    let t1 = report.table("table1").unwrap();
    // The paper's columns, as the evaluator files spell them.
    assert_eq!(
        headings(t1),
        [
            "gpt-4-1106-preview",
            "gpt-3.5-turbo",
            "Mixtral-8x7B-Instruct-v0.1",
            "qwen1.5-7B-Chat",
            "qwen1.5-14B-Chat",
            "qwen1.5-72B-Chat"
        ]
    );
    let texts =
        |r: usize| -> Vec<&str> { t1.rows[r].cells.iter().map(|c| c.text.as_str()).collect() };
    // The printed Table 1 (seed 003); Mixtral's pairwise file is not released and its
    // Pearson does not reproduce (docs/reproduction-meta.md).
    assert_eq!(texts(0), ["0.7332", "0.6741", "–", "0.5010", "0.6293", "0.6965"]);
    assert_eq!(texts(1), ["0.6183", "0.5501", "0.6362", "0.5902", "0.6416", "0.6223"]);
    assert_eq!(t1.keyed("gpt-4-1106-preview/accuracy").unwrap().text, "0.7332");
    assert_eq!(t1.keyed("qwen1.5-14B-Chat/pearson").unwrap().text, "0.6416");
    // Table 5's GPT-4 row, 4.744 in the paper, in the evaluator files' spelling.
    let t5 = report.table("table5").unwrap();
    assert_eq!(row_labels(t5), ["gpt-4-1106-preview"]);
    assert_eq!(headings(t5), ["gpt-4-1106-preview"]);
    assert_eq!(t5.rows[0].cells[0].text, "4.7440");
    // Table 6: the Qwen-72B row's GPT-4 cell, 4.2864 in the paper; the row labelled as the
    // evaluator files spell Qwen-72B.
    let t6 = report.table("table6").unwrap();
    assert_eq!(row_labels(t6), ["qwen1.5-72B-Chat"]);
    assert_eq!(t6.keyed("qwen72b/gpt4").unwrap().text, "4.2864");
    // Elo: rows in the paper's order (GPT-4, Qwen 7B, 14B, 72B), columns as Table 1's.
    let elo = report.table("elo").unwrap();
    assert_eq!(
        row_labels(elo),
        ["gpt-4-1106-preview", "qwen1.5-7B-Chat", "qwen1.5-14B-Chat", "qwen1.5-72B-Chat"]
    );
    assert_eq!(headings(elo), headings(t1));
    assert!(elo.keyed("g4/gpt4").unwrap().value.unwrap() > 1050.0);
    let jd: Vec<&JdEvalFile> = files.iter().filter_map(|f| f.jdeval()).collect();
    // Post accuracy on the released LLMBar matches (docs/reproduction-meta.md).
    let g4 = jd.iter().find(|j| j.meta_evaluator == "g4").unwrap();
    assert_eq!((g4.post.correct, g4.post.n), (268, 300));
    assert_eq!(g4.debates.len(), 300);
    assert!(!g4.debates[0].question.is_empty());
    assert!(!g4.debates[0].rounds[0].debaters[0].1.is_empty());
}

#[test]
fn seed_spread_table_from_per_seed_results() {
    let file =
        analyze_file("mx_fixture_elo.jsonl", &read(&format!("{FIXTURES}mx_fixture_elo.jsonl")));
    let j = file.jdeval().unwrap();
    let settings = Settings { shuffles: 10, seeds: 3, ..Settings::default() };
    let spread = compute::seed_spread(j, &settings);
    let want = meta::elo_seed_spread(&j.set, &settings.elo(), &[0, 1, 2]);
    assert_eq!(spread.across_seeds, want);
    let t = tables::seed_spread_table(&[spread], &tables::Labels::default());
    assert_eq!(t.rows.len(), j.set.evaluators.len());
    let a = &t.rows[0].cells[0];
    assert_eq!((a.key.as_deref(), a.value), (Some("mx/a/mean"), Some(want["a"].0)));
    assert!(t.rows[0].cells[2].value.unwrap() > 0.0, "shuffles move the rating");
}

#[test]
fn bradley_terry_intervals_go_into_the_cell() {
    use crate::judge::parse::Verdict;
    // STATS_SPEC's E15 (A>B, A>C, B=C, C>A, B>C, A>B), four times over so that most bootstrap
    // resamples have a finite maximum.
    let e15 = [
        ("A", "B", Verdict::First),
        ("A", "C", Verdict::First),
        ("B", "C", Verdict::Tie),
        ("C", "A", Verdict::First),
        ("B", "C", Verdict::First),
        ("A", "B", Verdict::First),
    ];
    let records = (0..24)
        .map(|i| {
            let (e1, e2, v) = e15[i % 6];
            meta::JdEvalRecord {
                evaluator_1: e1.into(),
                evaluator_2: e2.into(),
                winner: Some(v),
                better_answer: None,
                label: None,
                line: i + 1,
            }
        })
        .collect();
    let j = files::jdeval_file("m".into(), records, Vec::new());
    let bt = compute::bradley_terry(&j, &Settings { resamples: 50, ..Settings::default() });
    let t = tables::bradley_terry_table("m", &bt, &tables::Labels::default());
    assert_eq!(headings(&t), ["Rating"]);
    assert!(t.title.contains("95 % bootstrap intervals"), "{}", t.title);
    // E15's maximum-likelihood ratings (STATS_SPEC), which the repetition leaves unchanged.
    let a = t.keyed("m/A/rating").unwrap();
    assert!((a.value.unwrap() - 1127.2323345919099).abs() < 1e-6, "{a:?}");
    assert_eq!(a.text, "1,127.2");
    for (i, row) in t.rows.iter().enumerate() {
        let c = &row.cells[0];
        assert_eq!(c.key.as_deref(), Some(format!("m/{}/rating", row.label).as_str()));
        assert_eq!(c.value, bt.ratings.as_ref().map(|r| r[i]));
        let want = bt.intervals[i].map(|[lo, hi]| (lo, hi));
        assert!(want.is_some());
        assert_eq!(c.interval.map(|x| (x.low, x.high)), want);
    }
    // Fitted a few resamples at a time (the browser's way), the same intervals.
    let settings = Settings { resamples: 50, ..Settings::default() };
    let mut steps = compute::bradley_terry_steps(&j, &settings);
    while steps.step(3) {}
    assert_eq!(steps.finish(), bt);
    // The CSV carries the interval as companion columns, Markdown beside the value.
    let csv = report::export::csv(&t);
    assert!(csv.starts_with("Evaluator,Rating,Rating low,Rating high\r\nA,1127.23"), "{csv}");
    assert!(
        report::export::markdown(&t).contains("| A | 1,127.2 \\["),
        "{}",
        report::export::markdown(&t)
    );
}

// ---------------------------------------------------------------------------------------------
// Snapshots.

/// Drives every protocol of `spec` with `reply(prompt)` and keeps the answers by tag.
fn answered(spec: RunSpec, reply: &dyn Fn(&str) -> String) -> LiveRun {
    fn go<P: Protocol>(
        groups: &mut [(String, Vec<P>)],
        reply: &dyn Fn(&str) -> String,
        answers: &mut BTreeMap<String, String>,
    ) {
        for (_, ps) in groups {
            for _ in 0..20 {
                for p in ps.iter_mut() {
                    for r in p.pending() {
                        let text = reply(&r.messages.last().unwrap().content);
                        answers.insert(r.tag.clone(), text.clone());
                        p.respond(&r.tag, &[ChatResponse::text(text)]).unwrap();
                    }
                }
            }
        }
    }
    let mut answers = BTreeMap::new();
    match spec.protocols().unwrap() {
        Protocols::Pairwise(mut g) => go(&mut g, reply, &mut answers),
        Protocols::Scoring(mut g) => go(&mut g, reply, &mut answers),
        Protocols::JdEval(mut g) => go(&mut g, reply, &mut answers),
        Protocols::MdEval(mut g) => go(&mut g, reply, &mut answers),
        Protocols::JdEvalI(mut g) => go(&mut g, reply, &mut answers),
        Protocols::BsmEval(mut g) => go(&mut g, reply, &mut answers),
    }
    LiveRun { spec, answers }
}

/// The fixtures plus a live run of every kind.
fn workspace_with_runs() -> (Workspace, Vec<(String, Vec<u8>)>) {
    let given: Vec<(String, Vec<u8>)> = list(FIXTURES).iter().map(|p| (base(p), read(p))).collect();
    let mut w = Workspace::new();
    for (name, bytes) in &given {
        w.add_bytes(name, bytes);
    }
    let pairs = w
        .files()
        .find(|(_, f)| f.kind == FileKind::Pairwise)
        .map(|(_, f)| f.pairs.clone())
        .unwrap();
    assert_eq!(pairs.len(), 7);
    let spec = RunSpec::Pairwise {
        evaluators: vec!["judge-x".into(), "judge-y @ http://127.0.0.1:9/v1".into()],
        swap: true,
        pairs,
    };
    // judge-x names the first answer shown when the prompt's question is even, else the second.
    w.add_run(answered(spec, &|p| {
        let odd = ["Question 1?", "Question 3?", "Question 5?"].iter().any(|q| p.contains(q));
        format!("<Explanation>e</Explanation><Winner>{}</Winner>", if odd { 2 } else { 1 })
    }))
    .unwrap();
    let jobs = couple_jobs(w.last_pairwise().unwrap());
    assert_eq!(jobs.len(), 7);
    let jd = RunSpec::JdEval { meta_evaluator: "meta-judge".into(), jobs: jobs.clone() };
    w.add_run(answered(jd, &|_| {
        "<Better_answer>AnswerB</Better_answer><Better_assistant>Assistant2</Better_assistant>"
            .into()
    }))
    .unwrap();
    let md = RunSpec::MdEval { meta_evaluator: "meta-judge".into(), rounds: 2, jobs };
    w.add_run(answered(md, &|p| {
        if p.contains("You are Assistant") {
            "I stand by it.".into()
        } else if p.contains("Round 2\nJudge") {
            "<Better_assistant>Assistant1</Better_assistant>".into()
        } else {
            "<Question>Why?</Question>".into()
        }
    }))
    .unwrap();
    let texts = w
        .files()
        .find(|(_, f)| f.kind == FileKind::Pointwise)
        .map(|(_, f)| f.texts.clone())
        .unwrap();
    let scoring = RunSpec::Scoring { evaluators: vec!["judge-x".into()], openmeva: true, texts };
    w.add_run(answered(scoring, &|p| {
        let n = (0..5).find(|i| p.contains(&format!("Story number {i}."))).unwrap_or(0);
        format!("<Rating>{}</Rating>", 5 - n)
    }))
    .unwrap();
    let inputs: Vec<IndividualInput> = w.files().flat_map(|(_, f)| f.individual.clone()).collect();
    assert!(inputs.len() >= 5);
    let jdi = RunSpec::JdEvalI {
        meta_evaluator: "meta-judge".into(),
        task: IndividualTask::OpenMeva,
        inputs: inputs.clone(),
    };
    w.add_run(answered(jdi, &|p| {
        let s = if p.contains("Story number 1.") { 2 } else { 4 };
        format!(
            "<Score_for_story>3</Score_for_story><Score_for_Assistant>{s}</Score_for_Assistant>"
        )
    }))
    .unwrap();
    let bsm =
        RunSpec::BsmEval { meta_evaluator: "meta-judge".into(), inputs: inputs[..2].to_vec() };
    w.add_run(answered(bsm, &|p| {
        if p.contains("sub-tasks") {
            "1. Coherence\n2. Fluency".into()
        } else {
            "<Score>4</Score>".into()
        }
    }))
    .unwrap();
    (w, given)
}

/// Every table in every format and every figure as SVG, byte for byte.
fn exported(report: &Report) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for format in Format::ALL {
        out.extend(report.files(format).into_iter().map(|f| (f.name, f.text)));
    }
    out
}

#[test]
fn a_snapshot_rebuilds_the_same_report_with_no_key() {
    let (w, given) = workspace_with_runs();
    let settings = Settings {
        shuffles: 15,
        resamples: 30,
        seeds: 3,
        labelled: Some(4),
        ..Settings::default()
    };
    let want = w.report(&settings);
    let ids: Vec<&str> = want.tables.iter().map(|t| t.id.as_str()).collect();
    for id in [
        "pairwise-run",
        "scoring-run",
        "table1",
        WIN_RATE_TABLE,
        "table5",
        "table6",
        "elo",
        "elo-seeds",
    ] {
        assert!(ids.contains(&id), "{id} in {ids:?}");
    }
    // The corrected win rate reads the released pairwise files and the live run's verdicts,
    // from 4 of their 7 labels; the snapshot keeps the count.
    let win = want.table(WIN_RATE_TABLE).unwrap();
    for evaluator in ["judge-a", "judge-x"] {
        let labelled = win.rows.iter().find(|r| r.label == evaluator).unwrap();
        assert_eq!(
            labelled.cells[..2].iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["4", "3"]
        );
        assert!(win.keyed(&format!("{evaluator}/ppi")).is_some_and(|c| c.value.is_some()));
    }
    assert!(want.table("elo").unwrap().keyed("meta-judge · MDEval/judge-x").is_some());
    assert!(want.table("table5").unwrap().keyed("meta-judge/judge-x").is_some());

    let snapshot = w.snapshot(&settings);
    let json = serde_json::to_string(&snapshot).unwrap();
    assert!(!json.contains("sk-"), "no key in a snapshot");
    let back: Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(back, snapshot);
    assert_eq!(back.settings.labelled, Some(4));
    let files: Vec<(&str, &[u8])> = given.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let rebuilt = Workspace::from_snapshot(&back, &files).unwrap();
    assert_eq!(exported(&rebuilt.report(&back.settings)), exported(&want));
    // The viewers' records come back too: the MDEval debates and the BSMEval branches.
    let names = |w: &Workspace| -> Vec<String> { w.files().map(|(_, f)| f.name.clone()).collect() };
    assert_eq!(names(&rebuilt), names(&w));
    let debates =
        |w: &Workspace| w.jdeval().iter().map(|(_, j)| j.debates.clone()).collect::<Vec<_>>();
    assert_eq!(debates(&rebuilt), debates(&w));
    assert_eq!(rebuilt.last_pairwise(), w.last_pairwise());

    // Restored without the files: the runs are back at once, the released files wait.
    let restored = Workspace::restore(&back).unwrap();
    let needed: Vec<&str> =
        restored.entries().iter().filter_map(|e| e.needed().map(|(n, _)| n)).collect();
    assert_eq!(needed.len(), given.len());
    let partial = restored.report(&back.settings);
    assert!(partial.table("pairwise-run").is_some() && partial.table("elo").is_some());
    // Loading the files (under any name) fills them in, in their places.
    let mut filled = restored.clone();
    for (name, bytes) in &given {
        filled.add_bytes(&format!("renamed-{name}"), bytes);
    }
    assert_eq!(exported(&filled.report(&back.settings)), exported(&want));
}

#[test]
fn a_snapshot_says_which_released_file_is_missing_or_different() {
    let (w, given) = workspace_with_runs();
    let snapshot = w.snapshot(&Settings::default());
    let keep: Vec<(&str, &[u8])> = given
        .iter()
        .filter(|(n, _)| !n.starts_with("mx_"))
        .map(|(n, b)| {
            if n.starts_with("merged_scores_") {
                (n.as_str(), &b"{}"[..])
            } else {
                (n.as_str(), b.as_slice())
            }
        })
        .collect();
    let Err(SnapshotError::Files(problems)) = Workspace::from_snapshot(&snapshot, &keep) else {
        panic!("two problems expected")
    };
    assert_eq!(problems.len(), 2, "{problems:?}");
    let text = SnapshotError::Files(problems.clone()).to_string();
    assert!(text.contains("load mx_fixture_elo.jsonl (sha256 "), "{text}");
    assert!(
        problems.iter().any(|p| matches!(p, FileProblem::Mismatch { name, .. } if name == "merged_scores_judge-a_pointwise.jsonl")),
        "{problems:?}"
    );
    // A file no table uses (here one the loader cannot read) is not needed to rebuild.
    let mut with_stray = w.clone();
    with_stray.add_bytes("notes.json", b"not json");
    let stray = with_stray.snapshot(&Settings::default());
    assert!(matches!(
        stray.files.last(),
        Some(SnapshotFile::Released { kind: FileKind::Unused, .. })
    ));
    let all: Vec<(&str, &[u8])> = given.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let rebuilt = Workspace::from_snapshot(&stray, &all).unwrap();
    assert_eq!(rebuilt.entries().last().unwrap().needed().map(|(n, _)| n), Some("notes.json"));
    let future = Snapshot { version: 2, ..snapshot.clone() };
    assert!(matches!(Workspace::restore(&future), Err(SnapshotError::Version { found: 2 })));
    let damaged = Snapshot { pairwise_run: Some(99), ..snapshot };
    assert!(matches!(Workspace::restore(&damaged), Err(SnapshotError::RunIndex { index: 99 })));
}

#[test]
fn a_later_run_replaces_the_files_of_the_same_name_and_forgets_the_old_run() {
    let (mut w, _) = workspace_with_runs();
    let runs_before = w.runs.len();
    let pairs = w.last_pairwise().unwrap().pairs[..2].to_vec();
    let spec = RunSpec::Pairwise { evaluators: vec!["judge-x".into()], swap: false, pairs };
    w.add_run(answered(spec, &|_| "<Winner>1</Winner>".into())).unwrap();
    let live: Vec<&str> =
        w.files().filter(|(_, f)| f.is_live()).map(|(_, f)| f.name.as_str()).collect();
    assert_eq!(live.iter().filter(|n| **n == "pairwise run · judge-x").count(), 1);
    // judge-y's file of the first pairwise run stays, so that run is kept.
    assert!(live.contains(&"pairwise run · judge-y @ http://127.0.0.1:9/v1"));
    assert_eq!(w.runs.len(), runs_before + 1);
    assert_eq!(w.last_pairwise().unwrap().pairs.len(), 2);
    let t = w.report(&Settings { shuffles: 0, ..Settings::default() });
    assert_eq!(t.table("pairwise-run").unwrap().title, "Pairwise run: 2 pairs");
    // Gold labels of the fixture's first pairs: the label makes the accuracy.
    let labels: Vec<Option<PairLabel>> =
        w.last_pairwise().unwrap().pairs.iter().map(|p| p.label).collect();
    assert_eq!(labels.len(), 2);
}

/// Accuracy, swap consistency and position bias carry 95 % intervals (Wilson's for the rates,
/// Tango's for the bias) beside unchanged values and keys.
#[test]
fn rates_carry_their_intervals() {
    let (w, _) = workspace_with_runs();
    let report =
        w.report(&Settings { shuffles: 10, resamples: 20, seeds: 0, ..Settings::default() });
    // Table 1: judge-a's accuracy is 4 of 7 pairs; statsmodels' `proportion_confint(4, 7,
    // method="wilson")` is (0.2504583645276572, 0.8417801447485302).
    let t1 = report.table("table1").unwrap();
    let a = t1.keyed("judge-a/accuracy").unwrap();
    assert_eq!((a.value, a.text.as_str()), (Some(4.0 / 7.0), "0.5714"));
    let i = a.interval.unwrap();
    assert!((i.low - 0.2504583645276572).abs() < 1e-12, "{i:?}");
    assert!((i.high - 0.8417801447485302).abs() < 1e-12, "{i:?}");
    assert_eq!(i.confidence, 0.95);
    // Without ties: 3 of 5, statsmodels (0.2307242812760129, 0.8823792257673522).
    let nt = t1.keyed("judge-a/accuracy_no_ties").unwrap().interval.unwrap();
    assert!((nt.low - 0.2307242812760129).abs() < 1e-12, "{nt:?}");
    assert!((nt.high - 0.8823792257673522).abs() < 1e-12, "{nt:?}");
    assert!(t1.keyed("judge-a/pearson").unwrap().interval.is_none());
    // The live pairwise run: every rate of every evaluator, recomputed from its counts.
    let run = report.table("pairwise-run").unwrap();
    let figures = w.last_pairwise().unwrap().figures();
    assert_eq!(figures.len(), 2);
    for f in &figures {
        let e = &f.evaluator;
        let cell = |col: &str| run.keyed(&format!("{e}/{col}")).unwrap();
        let wilson = |k: usize, n: usize| stats::wilson(k, n, 0.95).unwrap().ci.unwrap();
        let pair = |c: &report::Cell| c.interval.map(|i| [i.low, i.high]);
        let a = &f.accuracy;
        let k = (a.accuracy.unwrap() * a.n as f64).round() as usize;
        assert_eq!(pair(cell("accuracy")), Some(wilson(k, a.n)));
        let p = f.position.as_ref().unwrap();
        assert_eq!(cell("consistency").value, p.consistency);
        assert_eq!(pair(cell("consistency")), Some(wilson(p.consistent, p.n)));
        let bias = cell("position_bias");
        assert_eq!(bias.value, p.position_bias);
        let tango = stats::paired_difference(p.prefers_first, p.prefers_second, p.n, 0.95);
        assert_eq!(pair(bias), tango.unwrap().ci);
        let [lo, hi] = pair(bias).unwrap();
        assert!(lo <= p.position_bias.unwrap() && p.position_bias.unwrap() <= hi);
        // §15.2's order probe: every pair flips (the answer shown first wins on the 4 even
        // questions whatever it is), and the first shown wins 8 of the 14 verdicts.
        let o = f.order.unwrap();
        assert_eq!(o.flips, p.n - p.consistent);
        assert_eq!((o.first_wins.k, o.first_wins.n), (8, 14));
        let first = cell("first_wins");
        assert_eq!(first.value, Some(8.0 / 14.0));
        assert_eq!(pair(first), Some(wilson(8, 14)));
    }
}
