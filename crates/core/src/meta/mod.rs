//! Meta-evaluation analysis (seed 003): how good are LLM evaluators, and how well can an LLM
//! meta-evaluator tell?
//!
//! Plain functions over the loaded data model ([`crate::data::load`]) returning serializable
//! result structs the CLI prints and the web UI renders:
//!
//! * evaluators vs humans — [`pairwise_accuracy`] (ties as their own class, and gold ties
//!   excluded), [`pointwise_pearson`], [`position_consistency`] / [`position_consistency_runs`]
//!   (two runs with the outputs exchanged);
//! * individual paradigm — [`meta_score`]: the JDEval-i / BSMEval average a meta-evaluator gave
//!   an evaluator;
//! * pairwise paradigm — [`jdeval_records_from`] → [`match_set`] → [`win_rates`] (three tie
//!   conventions), [`elo_ratings`] (mean and spread over seeded shuffles), [`elo_seed_spread`],
//!   [`bradley_terry_intervals`], [`post_accuracy`];
//! * [`ranking_agreement`] — Kendall τ-b between a meta-evaluator's ranking and a baseline;
//! * [`analyze_file`] — one loaded file analysed by its format; [`analyze`] — any mix of
//!   released files in, the `concord meta` report out.
//!
//! Statistics come from [`crate::stats`] (label accuracy, match summary, Elo, Bradley–Terry,
//! Pearson, Kendall); verdict spellings from [`crate::judge::parse`]. Nothing is re-derived here.
//!
//! # Reproduction of seed 003 from the released files
//!
//! The tests in `crates/core/tests/meta_reproduction.rs` (run when `../shared/data` exists):
//!
//! * **Table 1, accuracy** — reproduces for the 5 released evaluators (4 decimals): cleaned
//!   `winner` vs `label` over all 491 rows, a tie matched only by a tie. Mixtral's pairwise file
//!   is not released.
//! * **Table 1, Pearson** — reproduces for GPT-4, GPT-3.5 and the three Qwen models (500
//!   items). Mixtral does **not**: its file has 3 empty scores and pairwise deletion gives
//!   0.6362, not the printed 0.6098; no simple treatment of the empties (0, 1, 3, floor/ceil of
//!   the half points) gives 0.6098 either, so the printed value came from data not released.
//! * **Table 5 (JDEval-i)** — all 24 cells reproduce (empty scores dropped: two qwen7b files
//!   have 499 scores).
//! * **Table 6 (BSMEval)** — the 18 Qwen cells reproduce over the 250 OpenMEVA items; the GPT-4
//!   row's files are not released.
//! * **Table 2 (Elo)** — cannot be matched: the paper rates 1473 matches per meta-evaluator, of
//!   which only the 300 LLMBar matches are released. We compute it with the paper's rules
//!   (K = 4, 1000, base 10, scale 400, mean over 200 shuffles, non-Assistant verdicts = draws)
//!   and report the spread over shuffles and over seeds.
//!
//! # What the loader carries for this module
//!
//! A JDEval record's assessors (`evaluator_1`, `evaluator_2`) and the release's cleaned
//! verdicts (`winner`, `better_response`) come from the loader as
//! [`crate::data::MetaAssessment`] on each judge record; BSMEval's per-branch responses and
//! scores as its `branches`. Elo needs the assessors' names, and the cleaned verdicts differ
//! from re-parsing the texts (qwen7b: 95 of 300 meta responses have no readable
//! `<Better_assistant>` tag, while the cleaned field always has a verdict), so
//! [`jdeval_records_from`] prefers them.

mod error;
mod evaluators;
mod matches;
pub mod names;
mod report;
mod scores;

pub use error::MetaError;
pub use evaluators::{
    PairwiseAccuracy, PointwiseCorrelation, PositionConsistency, pairwise_accuracy,
    pointwise_pearson, position_consistency, position_consistency_runs, verdict_accuracy,
    verdicts_per_pair,
};
pub use matches::{
    BradleyTerryBootstrap, BradleyTerryIntervals, EloOptions, EloResult, JdEvalRecord, MatchSet,
    PostAccuracy, RankingAgreement, WinRates, bradley_terry_intervals, elo_ratings,
    elo_seed_spread, elo_seed_summary, elo_summary, jdeval_records, jdeval_records_from, match_set,
    post_accuracy, ranking_agreement, win_rates,
};
pub use report::{
    Analysis, EvaluatorRow, FileAnalysis, FileProblem, Input, Report, analyze, analyze_file,
};
pub use scores::{MetaProtocol, MetaScore, meta_score};
