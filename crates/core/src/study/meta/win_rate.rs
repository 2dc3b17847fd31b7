//! The prediction-powered corrected pairwise win rate (STATS_SPEC §15.4, "a pairwise win rate
//! is the same estimate on 0/1/½ values"): per pairwise evaluator, the share of pairs in which
//! output 1 — the first-listed output — is better, from the evaluator's verdicts on every pair
//! corrected by the human labels of a subset, with PPI and power-tuned PPI++ intervals next
//! to the judge-only and the human-only rates (`data-table="corrected-win-rate"`).
//!
//! The released pairwise files name no systems, so the rate to correct is output 1's: a pair
//! scores 1 when output 1 is better, 0 when output 2 is, ½ for a tie, for the human label and
//! the verdict alike. [`labelled_pairs`] chooses which pairs keep their label when the
//! settings keep fewer than all: a seeded order of the pair ids, so every evaluator of the
//! same pairs keeps the same ones. The table's columns and wording are the judge audit's
//! ([`crate::study::corrected`]).

use crate::data::PairLabel;
use crate::judge::parse::Verdict;
use crate::report::{Row, Table, count};
use crate::stats::{self, PpiMean, ShuffledOrders};
use crate::study::corrected::{self, NoEstimate};

use super::files::JudgedPair;
use super::settings::Settings;
use super::tables::RATE_CONFIDENCE;

/// The table's id.
pub const WIN_RATE_TABLE: &str = "corrected-win-rate";

/// What a human label scores for output 1: 1 when it is better, 0 when output 2 is, ½ a tie.
pub fn label_score(label: PairLabel) -> f64 {
    match label {
        PairLabel::A => 1.0,
        PairLabel::B => 0.0,
        PairLabel::Tie => 0.5,
    }
}

/// What a verdict scores for output 1, as [`label_score`].
pub fn verdict_score(verdict: Verdict) -> f64 {
    match verdict {
        Verdict::First => 1.0,
        Verdict::Second => 0.0,
        Verdict::Tie => 0.5,
    }
}

/// Which pairs keep their human label: every labelled pair with `keep: None`; with
/// `Some(k)`, the first k labelled pairs of one order of the pairs seeded by `seed` (the
/// pairs sorted by id, then shuffled), so files of the same pairs in any order keep the same
/// ones. Parallel to `pairs`.
pub fn labelled_pairs(pairs: &[JudgedPair], keep: Option<usize>, seed: u64) -> Vec<bool> {
    let mut labelled: Vec<bool> = pairs.iter().map(|p| p.label.is_some()).collect();
    let Some(k) = keep else { return labelled };
    let mut by_id: Vec<usize> = (0..pairs.len()).collect();
    by_id.sort_by(|&a, &b| pairs[a].id.cmp(&pairs[b].id).then(a.cmp(&b)));
    let order = ShuffledOrders::new(pairs.len(), 1, seed).next().unwrap_or_default();
    let mut kept = 0;
    for position in order {
        let i = by_id[position];
        if labelled[i] {
            if kept < k {
                kept += 1;
            } else {
                labelled[i] = false;
            }
        }
    }
    labelled
}

/// One evaluator's corrected win rate.
#[derive(Debug, Clone, PartialEq)]
pub struct WinRate {
    pub evaluator: String,
    /// The estimate, with PPI and PPI++ equal to the human-only rate when every pair is
    /// labelled ([`PpiMean::human_mean_when_all_labelled`]).
    pub estimate: Result<PpiMean, NoEstimate>,
    /// Some labels were hidden from the correction: the rate over every label and how many
    /// there are (`None` when none was hidden, or the file has no label).
    pub all_humans: Option<(f64, usize)>,
}

impl WinRate {
    /// The corrected win rate of `pairs` with the labels of `labelled` (parallel) kept.
    pub fn new(evaluator: &str, pairs: &[JudgedPair], labelled: &[bool]) -> WinRate {
        let (mut y, mut yhat, mut unlabeled, mut every) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut hidden = false;
        for (p, &keep) in pairs.iter().zip(labelled) {
            let judge = p.verdict.map(verdict_score);
            let human = p.label.map(label_score);
            if let Some(h) = human {
                every.push(h);
            }
            if keep && human.is_some() {
                y.push(human);
                yhat.push(judge);
            } else {
                hidden |= human.is_some();
                unlabeled.push(judge);
            }
        }
        let estimate = stats::ppi_mean(&y, &yhat, &unlabeled, RATE_CONFIDENCE)
            .map(PpiMean::human_mean_when_all_labelled)
            .map_err(NoEstimate::Refused);
        let all_humans = (hidden && !every.is_empty())
            .then(|| (every.iter().sum::<f64>() / every.len() as f64, every.len()));
        WinRate { evaluator: evaluator.to_owned(), estimate, all_humans }
    }

    /// Every pair was labelled and used: PPI is the human-only rate.
    fn all_labelled(&self) -> bool {
        self.estimate.as_ref().is_ok_and(|e| e.n_unlabeled == 0)
    }
}

/// The corrected win rate of every evaluator (`(name, pairs)`, in the table's order) under
/// `settings`' labelled pairs and seed.
pub fn win_rates<'a>(
    evaluators: impl IntoIterator<Item = (&'a str, &'a [JudgedPair])>,
    settings: &Settings,
) -> Vec<WinRate> {
    evaluators
        .into_iter()
        .map(|(name, pairs)| {
            WinRate::new(name, pairs, &labelled_pairs(pairs, settings.labelled, settings.seed))
        })
        .collect()
}

/// The table (`corrected-win-rate`): one row per evaluator, keyed `{evaluator}/ppi` and so on
/// ([`corrected::estimate_cells`]).
pub fn win_rate_table(rates: &[WinRate], settings: &Settings) -> Table {
    let subsampled = rates.iter().any(|r| r.all_humans.is_some());
    let mut out = Table::new(
        WIN_RATE_TABLE,
        "Corrected win rate of output 1: the evaluators' verdicts corrected by the human labels (prediction-powered inference)",
        "Evaluator",
    );
    out.columns = corrected::columns(subsampled.then_some(
        "the win rate of output 1 over every human label, the labels hidden from the correction included: what the corrected win rates estimate",
    ));
    for r in rates {
        let mut cells = corrected::estimate_cells(&r.estimate, RATE_CONFIDENCE, &r.evaluator);
        if subsampled {
            cells.push(corrected::all_labels_cell(r.all_humans, &r.evaluator));
        }
        out.rows.push(Row::new(r.evaluator.clone(), cells));
    }
    out.notes.push("Win rate of output 1: the share of pairs in which output 1 (the first-listed output) is better — 1 when it wins, 0 when output 2 wins, ½ for a tie, for the human label and the evaluator's verdict alike (the files name no systems). A verdict that cannot be read leaves its pair out.".to_owned());
    out.notes.push(corrected::method_note("pairs", "a verdict", RATE_CONFIDENCE));
    if let Some(k) = settings.labelled.filter(|_| subsampled) {
        out.notes.push(format!(
            "The human labels of {} per evaluator were kept (the same pairs for every evaluator, chosen by seed {}) and the rest treated as unlabelled: compare the corrected win rates with the last column, the rate over every label.",
            count(k, "pair", "pairs"),
            settings.seed
        ));
    }
    if rates.iter().any(WinRate::all_labelled) {
        out.notes.push("Where every pair has a human label (Labelled pairs: all) there is nothing to correct: PPI and PPI++ equal the human-only win rate (λ = 0) and are shown anyway. Keep the labels of fewer pairs to see what a correction from that many labels gives.".to_owned());
    }
    out
}
