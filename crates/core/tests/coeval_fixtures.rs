//! The released-file readers on small fixtures of CoEval's shapes (always run), with α and
//! Pearson pinned to the Python `krippendorff` package and scipy.

#![allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.

use concord_core::coeval::released::{Rates, parse_session, task_of};
use concord_core::coeval::{
    CHATGPT, FileKind, ReleasedError, Reproduction, parse_criteria_shares, parse_score_change,
};
use concord_core::stats::KrippendorffLevel;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/coeval/ELI5/");

fn fixture(name: &str) -> (String, Vec<u8>) {
    let path = format!("{DIR}{name}");
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn reproduction(names: &[&str]) -> Reproduction {
    let mut r = Reproduction::new();
    for name in names {
        let (path, bytes) = fixture(name);
        r.add(&path, &bytes).unwrap();
    }
    r
}

fn check_rates(row: Option<Rates>, counts: [usize; 4], total: usize) {
    let row = row.unwrap();
    let want = counts.map(|c| 100.0 * c as f64 / total as f64);
    assert_eq!([row.approve, row.revise, row.delete, row.add], want);
}

#[test]
fn action_rates_by_position() {
    let r = reproduction(&["eli5_action.json"]);
    let report = r.report(KrippendorffLevel::Interval);
    let t = &report.tasks[0];
    assert_eq!(t.task, "eli5");
    // A01: [pass pass pass add] [pass revise delete]; A02: [revise revise pass] [pass×4].
    check_rates(t.action_rates.all, [9, 3, 1, 1], 14);
    check_rates(t.action_rates.conclusion, [3, 1, 0, 0], 4);
    check_rates(t.action_rates.score, [2, 2, 0, 0], 4);
    check_rates(t.action_rates.evidence, [4, 0, 1, 1], 6);
    assert_eq!(t.score_source.as_deref(), Some("action_file"));
}

#[test]
fn session_log_score_row_and_times() {
    let (path, bytes) = fixture("A01.json");
    let (log, diags) = parse_session(&path, &bytes).unwrap();
    // Entry "3" has no question: skipped, and said so.
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].to_string().contains("A01.3"), "{}", diags[0]);
    assert_eq!(log.entries.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), ["1", "2"]);
    // Any non-empty pass flag approves ("fine, 2" included); an empty one revises.
    let c = log.score_actions();
    assert_eq!((c.approve, c.revise, c.delete, c.add), (2, 1, 0, 0));
    // 60 s across midnight; 50 s (the criterion timed `0` is left out).
    assert_eq!(log.seconds_per_instance(), [60.0, 50.0]);

    let r = reproduction(&["eli5_action.json", "A01.json"]);
    let report = r.report(KrippendorffLevel::Interval);
    let t = &report.tasks[0];
    check_rates(t.action_rates.score, [2, 1, 0, 0], 3);
    assert_eq!(t.score_source.as_deref(), Some("session_logs"));
    assert_eq!(t.minutes_per_sample, Some(55.0 / 60.0));
}

#[test]
fn alpha_pairs_match_krippendorff_package() {
    let r = reproduction(&["eli5_annotator_scores.json"]);
    let table = r.score_table("eli5").unwrap();
    assert_eq!(table.raters, [CHATGPT, "A01", "A02"]);
    assert_eq!(table.units.len(), 12);
    let cases = [
        // (a, b, level, krippendorff.alpha)
        (CHATGPT, "A01", KrippendorffLevel::Interval, 0.9037656903765691),
        (CHATGPT, "A02", KrippendorffLevel::Interval, 0.7325581395348837),
        ("A01", "A02", KrippendorffLevel::Interval, 0.640625),
        (CHATGPT, "A01", KrippendorffLevel::Ordinal, 0.881198347107438),
        ("A01", "A02", KrippendorffLevel::Ordinal, 0.6281684226599481),
    ];
    for (a, b, level, want) in cases {
        let got = table.alpha(&[a, b], level).value.unwrap();
        assert!((got - want).abs() < 1e-12, "{a}–{b} {level:?}: {got} vs {want}");
    }
    let all = table.alpha(&[CHATGPT, "A01", "A02"], KrippendorffLevel::Interval).value.unwrap();
    assert!((all - 0.7593320235756384).abs() < 1e-12, "{all}");

    let m = table.alpha_matrix(KrippendorffLevel::Interval);
    assert_eq!((m[0][1], m[1][0]), (Some(0.9037656903765691), Some(0.9037656903765691)));
    assert_eq!((m[1][2], m[2][2]), (Some(0.640625), Some(1.0)));

    let report = r.report(KrippendorffLevel::Ordinal);
    let rows: Vec<(&str, &str, &str, usize)> = report
        .alpha
        .iter()
        .map(|p| (p.pair.a.as_str(), p.pair.b.as_str(), p.pair.level.as_str(), p.pair.n_units))
        .collect();
    assert_eq!(
        rows,
        [
            (CHATGPT, "A01", "ordinal", 12),
            (CHATGPT, "A02", "ordinal", 12),
            ("A01", "A02", "ordinal", 12)
        ]
    );
}

#[test]
fn pearson_and_distributions() {
    let r = reproduction(&["eli5_annotator_scores.json"]);
    let table = r.score_table("eli5").unwrap();
    // scipy.stats.pearsonr.
    let cases = [
        (CHATGPT, "A01", 0.9083651988408602),
        (CHATGPT, "A02", 0.7305369330337215),
        ("A01", "A02", 0.6286185570937123),
    ];
    for (a, b, want) in cases {
        let got = table.pearson(a, b).value.unwrap();
        assert!((got - want).abs() < 1e-12, "{a}–{b}: {got}");
    }
    let llm_vs_humans = table.mean_pearson(&[CHATGPT], Some(&["A01", "A02"])).unwrap();
    assert!((llm_vs_humans - (0.9083651988408602 + 0.7305369330337215) / 2.0).abs() < 1e-12);
    let humans = table.mean_pearson(&["A01", "A02"], None).unwrap();
    assert!((humans - 0.6286185570937123).abs() < 1e-12);

    let dist = table.distribution(None);
    let human_chatgpt = dist.iter().find(|d| d.system == "human" && d.rater == CHATGPT).unwrap();
    // ChatGPT's scores of the "human" outputs in the fixture: 3 5 4 3 2 4.
    assert_eq!(human_chatgpt.counts, [0, 1, 2, 2, 1]);
    let only_first = table.distribution(Some("1. Simple language."));
    let first = only_first.iter().find(|d| d.system == "human" && d.rater == CHATGPT).unwrap();
    // Criterion 1 only: 3 4 2.
    assert_eq!(first.counts, [0, 1, 1, 1, 0]);
    let all: usize = dist.iter().map(|d| d.counts.iter().sum::<usize>()).sum();
    assert_eq!(all, 36);
}

#[test]
fn percent_strings_are_fractions_and_score_changes() {
    let (path, bytes) = fixture("eli5_criteria_to_action.json");
    let shares = parse_criteria_shares(&path, &bytes).unwrap();
    assert_eq!(
        (shares[0].approve, shares[0].revise, shares[0].delete, shares[0].add),
        (0.87, 0.11, 0.02, 0.0)
    );
    let (path, bytes) = fixture("eli5_score_change.json");
    let changes = parse_score_change(&path, &bytes).unwrap();
    assert_eq!(changes.len(), 1, "the `prediction` pseudo-criterion is dropped");
    assert_eq!((changes[0].improve, changes[0].decrease, changes[0].unchanged), (1, 2, 3));
}

#[test]
fn tasks_from_names_and_folders() {
    let cases = [
        ("x/eli5_action.json", Some("eli5")),
        ("x/self_instruct_annotator_scores.json", Some("self_instruct")),
        ("data/ROCStories/annotator_scores.json", Some("roc")),
        ("Self-Instruct/A12.json", Some("self_instruct")),
        ("elsewhere/A07.json", Some("roc")),
        ("elsewhere/A16.json", None),
        ("elsewhere/scores.json", None),
    ];
    for (path, want) in cases {
        assert_eq!(task_of(path), want, "{path}");
    }
}

#[test]
fn bad_files_give_typed_errors() {
    let mut r = Reproduction::new();
    let cases: [(&str, &[u8]); 5] = [
        ("ELI5/A01.json", b"{not json"),
        ("ELI5/A01.json", b"{}"),
        (
            "ELI5/eli5_criteria_to_action.json",
            br#"{"c": {"pass": "lots", "delete": "0%", "revise": "0%", "add": "0%"}}"#,
        ),
        ("ELI5/eli5_score_change.json", br#"{"c": {"improve": -1}}"#),
        ("notes/readme.json", br#"{"hello": "world"}"#),
    ];
    for (path, bytes) in cases {
        let err = r.add(path, bytes).unwrap_err();
        assert!(err.to_string().contains(path), "{path}: {err}");
    }
    assert!(matches!(
        r.add(
            "somewhere/scores_action.json",
            br#"{"q": {"s": {"prediction": "p", "c": {"A01": ["pass"]}}}}"#
        ),
        Err(ReleasedError::UnknownTask { .. })
    ));
    assert_eq!(r.add("x/combine_data.json", b"").unwrap(), FileKind::Combined);
}
