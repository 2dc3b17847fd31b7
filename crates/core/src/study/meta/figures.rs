//! The meta-evaluation report's figures as [`report::Figure`](crate::report::Figure)s, one set
//! per JDEval meta-evaluator: the win-rate heatmap under the chosen tie convention, the match
//! distribution, Elo's mean ± SD over shuffles and Bradley–Terry with its bootstrap intervals.
//! Ids are the export file stems (`win-rate-g4.svg`).

use super::files::JdEvalFile;
use super::settings::TieConvention;
use super::tables::Labels;
use crate::meta::{BradleyTerryIntervals, EloResult, WinRates};
use crate::report::Figure;
use crate::report::figure::{Heatmap, RankPoint, Ranking};

/// The id of the win-rate heatmap of `meta`.
pub fn win_rate_id(meta: &str) -> String {
    format!("win-rate-{meta}")
}

/// The id of the match distribution of `meta`.
pub fn matches_id(meta: &str) -> String {
    format!("matches-{meta}")
}

/// The id of the Elo chart of `meta`.
pub fn elo_id(meta: &str) -> String {
    format!("elo-{meta}")
}

/// The id of the Bradley–Terry chart (and table) of `meta`.
pub fn bradley_terry_id(meta: &str) -> String {
    format!("bradley-terry-{meta}")
}

/// Win rate of row over column, under `ties`.
pub fn win_rate_heatmap(file: &JdEvalFile, ties: TieConvention, labels: &Labels) -> Figure {
    let meta = &file.meta_evaluator;
    let w = &file.win_rates;
    let names: Vec<String> = w.evaluators.iter().map(|e| labels.label(e)).collect();
    let map = Heatmap::new(
        format!("Win rate of row over column ({}; {})", labels.label(meta), ties.label()),
        names.clone(),
        names,
        ties.matrix(w).clone(),
    )
    .range(0.0, 1.0);
    Figure::new(win_rate_id(meta), map)
}

/// The match distribution as a matrix of counts (`None` on the diagonal).
pub fn games_matrix(w: &WinRates) -> Vec<Vec<Option<f64>>> {
    w.games
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter().enumerate().map(|(j, &g)| (i != j).then_some(g as f64)).collect()
        })
        .collect()
}

/// Matches per couple of evaluators.
pub fn match_distribution(file: &JdEvalFile, labels: &Labels) -> Figure {
    let meta = &file.meta_evaluator;
    let w = &file.win_rates;
    let names: Vec<String> = w.evaluators.iter().map(|e| labels.label(e)).collect();
    let map = Heatmap::new(
        format!("Match distribution ({}): matches per couple", labels.label(meta)),
        names.clone(),
        names,
        games_matrix(w),
    )
    .decimals(0);
    Figure::new(matches_id(meta), map)
}

/// Elo per evaluator: the mean over shuffles, ± its SD.
pub fn elo_ranking(meta: &str, elo: &EloResult, labels: &Labels) -> Figure {
    let bars = elo
        .ratings
        .iter()
        .map(|(name, mean)| {
            let sd = elo.spread.get(name).copied().unwrap_or(0.0);
            RankPoint {
                label: labels.label(name),
                value: Some(*mean),
                interval: Some([mean - sd, mean + sd]),
            }
        })
        .collect();
    Figure::new(
        elo_id(meta),
        Ranking::new(format!("Elo ({}): mean ± SD over shuffles", labels.label(meta)), bars),
    )
}

/// Bradley–Terry per evaluator with its bootstrap interval.
pub fn bradley_terry_ranking(meta: &str, bt: &BradleyTerryIntervals, labels: &Labels) -> Figure {
    let bars = bt
        .evaluators
        .iter()
        .enumerate()
        .map(|(i, name)| RankPoint {
            label: labels.label(name),
            value: bt.ratings.as_ref().and_then(|r| r.get(i).copied()),
            interval: bt.intervals.get(i).copied().flatten(),
        })
        .collect();
    Figure::new(
        bradley_terry_id(meta),
        Ranking::new(
            format!(
                "Bradley–Terry ({}) with {:.0} % intervals",
                labels.label(meta),
                bt.level * 100.0
            ),
            bars,
        ),
    )
}
