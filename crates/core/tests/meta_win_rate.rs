//! The meta-evaluation's corrected win rate of output 1 (`corrected-win-rate`): cases whose
//! answers follow by hand (every pair labelled, a judge off by a constant, a perfect judge),
//! the table against ppi-python on a fixture (`tests/fixtures/win_rate/`, made by its
//! `gen_win_rate.py`), the seeded choice of labelled pairs, and the released MT-bench / LLMBar
//! evaluator files (read in place from `../shared`; skipped with a notice when absent).

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

mod common;

use concord_core::data::PairLabel;
use concord_core::judge::parse::Verdict;
use concord_core::report::{Cell, Format, Table, export_table};
use concord_core::study::meta::files::{JudgedPair, analyze_file};
use concord_core::study::meta::win_rate::{WinRate, labelled_pairs, win_rate_table};
use concord_core::study::meta::{Settings, WIN_RATE_TABLE, Workspace};
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/win_rate/");

fn pair(i: usize, label: Option<PairLabel>, verdict: Option<Verdict>) -> JudgedPair {
    JudgedPair { id: format!("p{i:03}"), label, verdict }
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * b.abs().max(1e-300)
}

fn value(t: &Table, key: &str) -> f64 {
    t.keyed(key).and_then(|c| c.value).unwrap_or_else(|| panic!("{key}: no value in {t:?}"))
}

fn interval(c: &Cell) -> [f64; 2] {
    let i = c.interval.unwrap();
    [i.low, i.high]
}

#[test]
fn with_every_pair_labelled_ppi_is_the_human_win_rate() {
    use PairLabel::{A, B, Tie};
    use Verdict::{First, Second};
    // Humans: output 1, output 2, tie, output 1 → 1, 0, ½, 1: the win rate 2.5/4 = 0.625.
    // The judge always says output 1: 1.
    let pairs: Vec<JudgedPair> = [A, B, Tie, A]
        .into_iter()
        .enumerate()
        .map(|(i, l)| pair(i, Some(l), Some(First)))
        .collect();
    let all = labelled_pairs(&pairs, None, 0);
    assert_eq!(all, [true; 4]);
    let r = WinRate::new("j", &pairs, &all);
    let e = r.estimate.as_ref().unwrap();
    assert_eq!((e.n, e.n_unlabeled), (4, 0));
    assert_eq!(e.classical.estimate, Some(0.625));
    assert_eq!(e.ppi, e.classical, "PPI is the human mean, interval included");
    assert_eq!(e.ppipp, e.classical);
    assert_eq!(e.lambda, Some(0.0));
    assert_eq!(e.judge_only.estimate, Some(1.0));
    assert_eq!(r.all_humans, None, "nothing hidden");
    // Keeping more labels than there are is keeping all.
    assert_eq!(labelled_pairs(&pairs, Some(10), 3), all);
    let t = win_rate_table(&[r], &Settings::default());
    assert_eq!(t.id, WIN_RATE_TABLE);
    assert_eq!(t.keyed("j/ppi").unwrap().text, "0.625");
    assert_eq!(t.keyed("j/ppi").unwrap().interval, t.keyed("j/humans_only").unwrap().interval);
    assert_eq!(t.keyed("j/lambda").unwrap().text, "0.000");
    assert_eq!(t.columns.len(), 7, "no \"All human labels\" column: every label is used");
    let notes = t.notes.join("\n");
    assert!(notes.contains("ties count") || notes.contains("½ for a tie"), "{notes}");
    assert!(notes.contains("PPI and PPI++ equal the human-only win rate"), "{notes}");
    // A judge that never answered readably: the labelled pairs without a verdict drop out.
    let silent: Vec<JudgedPair> =
        (0..3).map(|i| pair(i, Some(PairLabel::A), Some(Second).filter(|_| i == 0))).collect();
    let r = WinRate::new("s", &silent, &labelled_pairs(&silent, None, 0));
    assert_eq!(r.estimate.as_ref().unwrap().n, 1);
    assert!(r.estimate.as_ref().unwrap().ppi.estimate.is_none(), "one labelled pair is too few");
}

#[test]
fn a_judge_off_by_a_constant_is_corrected_exactly() {
    use PairLabel::{B, Tie};
    use Verdict::{First, Tie as T};
    // Humans prefer output 2 (0) or call a tie (½); the judge is the human label + ½ on every
    // pair: a tie where humans prefer output 2, output 1 where they call a tie. The labelled
    // residual Y − Ŷ is −½ throughout (no variance), so PPI = mean(Ỹ) − ½, the humans' rate on
    // the unlabelled pairs.
    let judged = |l: PairLabel| if l == B { T } else { First };
    let labels = [B, Tie, B, Tie, /* unlabelled: */ B, B, B, Tie];
    let pairs: Vec<JudgedPair> =
        labels.iter().enumerate().map(|(i, &l)| pair(i, Some(l), Some(judged(l)))).collect();
    let labelled = [true, true, true, true, false, false, false, false];
    let r = WinRate::new("biased", &pairs, &labelled);
    let e = r.estimate.as_ref().unwrap();
    assert_eq!((e.n, e.n_unlabeled), (4, 4));
    // Ỹ = ½, ½, ½, 1: mean 0.625, var₀ = 0.046875; PPI = 0.625 − 0.5 = 0.125 (the humans'
    // 0, 0, 0, ½), se = sqrt(0.046875 / 4).
    assert!(close(e.ppi.estimate.unwrap(), 0.125, 1e-15));
    assert!(close(e.ppi.se.unwrap(), (0.046875f64 / 4.0).sqrt(), 1e-15));
    assert_eq!(e.classical.estimate, Some(0.25));
    assert_eq!(e.judge_only.estimate, Some(5.5 / 8.0));
    // λ̂ = cov₀(Y, Ŷ) / ((1 + n/N)·var₁(Ŷ ∪ Ỹ)): Ŷ = Y + ½, so cov₀ = var₀(Y) = 1/16; the
    // eight judge values (five ½, three 1) have mean 11/16 and Σ(x − m)² = 5·(3/16)² +
    // 3·(5/16)² = 120/256; n/N = 1. λ̂ = (1/16) / (2 · 120/(256·7)) = 112/240.
    let var1 = (120.0 / 256.0) / 7.0;
    let lambda = (1.0 / 16.0) / (2.0 * var1);
    assert!(close(lambda, 112.0 / 240.0, 1e-15));
    assert!(close(e.lambda.unwrap(), lambda, 1e-15), "{:?} vs {lambda}", e.lambda);
    // With λ̂: θ̂ = λ̂·0.625 + mean(Y − λ̂Ŷ) = λ̂·0.625 + 0.25 − λ̂·0.75.
    assert!(close(e.ppipp.estimate.unwrap(), 0.25 - lambda * 0.125, 1e-15));
    // The human rate over every label, beside: 0, ½, 0, ½, 0, 0, 0, ½ → 1.5/8.
    assert_eq!(r.all_humans, Some((1.5 / 8.0, 8)));
    let t = win_rate_table(&[r], &Settings { labelled: Some(4), ..Settings::default() });
    assert_eq!(t.columns.last().unwrap().label, "All human labels");
    assert_eq!(t.keyed("biased/all_humans").unwrap().text, "0.188");
    assert!(t.notes.join("\n").contains("The human labels of 4 pairs per evaluator were kept"));
}

#[test]
fn a_perfect_judge_on_binary_outcomes_gives_the_unlabelled_rate() {
    use PairLabel::{A, B};
    use Verdict::{First, Second};
    // No ties; the judge equals the humans. PPI = mean(Ỹ) + 0 with se = sqrt(var₀(Ỹ)/N).
    let labels = [A, B, A, B, A, A, A, B, B, B];
    let pairs: Vec<JudgedPair> = labels
        .iter()
        .enumerate()
        .map(|(i, &l)| pair(i, Some(l), Some(if l == A { First } else { Second })))
        .collect();
    let labelled: Vec<bool> = (0..10).map(|i| i < 4).collect();
    let e = WinRate::new("perfect", &pairs, &labelled).estimate.unwrap();
    // Unlabelled: 1, 1, 1, 0, 0, 0 → 0.5, var₀ = 0.25.
    assert_eq!(e.ppi.estimate, Some(0.5));
    assert!(close(e.ppi.se.unwrap(), (0.25f64 / 6.0).sqrt(), 1e-15));
    assert_eq!(e.judge_only.estimate, Some(0.5));
    assert_eq!(e.classical.estimate, Some(0.5));
}

#[test]
fn the_table_agrees_with_ppi_python() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{FIXTURES}win_rate.expected.json")).unwrap(),
    )
    .unwrap();
    let name = expected["file"].as_str().unwrap();
    let file = analyze_file(name, &std::fs::read(format!("{FIXTURES}{name}")).unwrap());
    assert!(file.problem.is_none(), "{:?}", file.problem);
    assert_eq!(file.judged.len(), 240);
    let mut labelled = vec![false; file.judged.len()];
    for i in expected["labelled"].as_array().unwrap() {
        labelled[i.as_u64().unwrap() as usize] = true;
    }
    let r = WinRate::new("judge-ppi", &file.judged, &labelled);
    let t = win_rate_table(&[r], &Settings { labelled: Some(60), ..Settings::default() });
    let n = |key: &str| expected[key].as_u64().unwrap() as f64;
    assert_eq!(value(&t, "judge-ppi/all_humans"), expected["all_humans"].as_f64().unwrap());
    let counts: Vec<&str> = t.rows[0].cells[..2].iter().map(|c| c.text.as_str()).collect();
    assert_eq!(counts, [n("n").to_string(), n("n_unlabeled").to_string()]);
    for (what, key) in [
        ("ppi", "ppi"),
        ("ppipp", "ppipp"),
        ("humans_only", "humans_only"),
        ("judge_only", "judge_only"),
    ] {
        let want = &expected[what];
        let cell = t.keyed(&format!("judge-ppi/{key}")).unwrap();
        let got = [cell.value.unwrap(), interval(cell)[0], interval(cell)[1]];
        let reference = [
            want["estimate"].as_f64().unwrap(),
            want["ci"][0].as_f64().unwrap(),
            want["ci"][1].as_f64().unwrap(),
        ];
        for (g, r) in got.iter().zip(reference) {
            assert!(close(*g, r, 1e-9), "{what}: {got:?} vs ppi-python's {reference:?}");
        }
    }
    let lambda = expected["ppipp"]["lambda"].as_f64().unwrap();
    assert!(close(value(&t, "judge-ppi/lambda"), lambda, 1e-9));
    // The fixture's judge leans to output 1: the judge-only rate is above the humans'.
    assert!(value(&t, "judge-ppi/judge_only") > expected["all_humans"].as_f64().unwrap() + 0.05);
}

#[test]
fn the_labelled_pairs_are_seeded_and_follow_the_ids() {
    let pairs: Vec<JudgedPair> = (0..100)
        .map(|i| pair(i, (i % 10 != 0).then_some(PairLabel::A), Some(Verdict::First)))
        .collect();
    let kept = labelled_pairs(&pairs, Some(20), 7);
    assert_eq!(kept.iter().filter(|k| **k).count(), 20);
    assert!(kept.iter().zip(&pairs).all(|(k, p)| !k || p.label.is_some()), "only labelled pairs");
    assert_eq!(kept, labelled_pairs(&pairs, Some(20), 7), "deterministic");
    assert_ne!(kept, labelled_pairs(&pairs, Some(20), 8), "the seed chooses");
    // The same pairs in another order keep the same ones.
    let mut reversed = pairs.clone();
    reversed.reverse();
    let mut again = labelled_pairs(&reversed, Some(20), 7);
    again.reverse();
    assert_eq!(again, kept);
    // A larger count keeps a superset.
    let more = labelled_pairs(&pairs, Some(40), 7);
    assert!(kept.iter().zip(&more).all(|(a, b)| !a || *b));
}

#[test]
fn released_evaluators_corrected_from_fifty_labels() {
    let Some(root) = common::shared("data/meta-evaluation/evaluator_results/pairwise") else {
        return;
    };
    let mut workspace = Workspace::new();
    let mut names: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    for p in &names {
        let name = p.file_name().unwrap().to_str().unwrap();
        workspace.add_bytes(name, &std::fs::read(p).unwrap());
    }
    // Every label: 203 output-1 wins, 203 output-2 wins and 85 ties of 491 → exactly ½; PPI
    // is that rate. gpt-3.5-turbo says output 1 269 times and tie 17 times: (269 + 8.5)/491.
    let all = workspace.win_rate_table(&Settings::default()).unwrap();
    assert_eq!(all.rows.len(), 5);
    assert_eq!(all.rows[1].label, "gpt-3.5-turbo");
    assert_eq!(value(&all, "gpt-3.5-turbo/humans_only"), 0.5);
    assert_eq!(value(&all, "gpt-3.5-turbo/ppi"), 0.5);
    assert_eq!(value(&all, "gpt-3.5-turbo/judge_only"), 277.5 / 491.0);
    let report = workspace.report(&Settings { shuffles: 0, resamples: 0, ..Settings::default() });
    let ids: Vec<&str> = report.tables.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(&ids[..2], ["table1", WIN_RATE_TABLE], "after Table 1");

    let fifty = Settings { labelled: Some(50), ..Settings::default() };
    let t = workspace.win_rate_table(&fifty).unwrap();
    eprintln!("{}", export_table(&t, Format::Markdown).unwrap());
    assert_eq!(t, workspace.win_rate_table(&fifty).unwrap(), "deterministic");
    for row in &t.rows {
        let e = &row.label;
        assert_eq!(row.cells[0].text, "50", "{e}: labelled");
        assert_eq!(row.cells[1].text, "441", "{e}: unlabelled");
        assert_eq!(value(&t, &format!("{e}/all_humans")), 0.5);
        // The corrected interval is narrower than the human-only one from the same 50 labels
        // whenever the judge is worth its weight (λ > 0).
        let width = |k: &str| {
            let [lo, hi] = interval(t.keyed(&format!("{e}/{k}")).unwrap());
            hi - lo
        };
        if value(&t, &format!("{e}/lambda")) > 0.0 {
            assert!(width("ppipp") < width("humans_only"), "{e}");
        }
    }
    // The same 50 pairs for every evaluator: their human-only rates agree.
    let humans: Vec<f64> =
        t.rows.iter().map(|r| value(&t, &format!("{}/humans_only", r.label))).collect();
    assert!(humans.windows(2).all(|w| w[0] == w[1]), "{humans:?}");
    // The corrected table differs from the all-labelled one, and says what it kept.
    assert_ne!(value(&t, "gpt-3.5-turbo/ppi"), 0.5);
    assert!(t.notes.join("\n").contains("The human labels of 50 pairs per evaluator were kept"));
}
