//! The costly parts of the meta-evaluation report — Elo over shuffled orders, Bradley–Terry
//! with bootstrap intervals, the Elo seed spread — as steps a caller can run one at a time
//! (the browser yields between them) and whose results feed the report builder
//! ([`super::Workspace::report_with`]).
//!
//! [`crate::meta::elo_ratings`] in steps: the orders to play ([`elo_orders`]), one rating
//! vector per order ([`elo_run`]), then the mean and SD ([`elo_summary`]). Same functions, same
//! seeds, same summation order: the result equals `meta::elo_ratings` (a test checks it).
//! [`EloSteps`] draws and plays the orders a few at a time, and Bradley–Terry's bootstrap is
//! fitted likewise ([`bradley_terry_steps`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::files::JdEvalFile;
use super::settings::Settings;
use crate::meta::{self, BradleyTerryIntervals, EloOptions, EloResult, MatchSet};
use crate::stats::{self, NullOutcome};

pub use crate::meta::elo_summary;

/// Bradley–Terry's interval level.
pub const BT_LEVEL: f64 = 0.95;

/// Elo and Bradley–Terry of one JDEval file under the settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PairwiseResult {
    pub elo: EloResult,
    pub bradley_terry: BradleyTerryIntervals,
}

/// The orders to play the matches in: `options.shuffles` seeded shuffles, or file order once.
pub fn elo_orders(set: &MatchSet, options: &EloOptions) -> Vec<Option<Vec<usize>>> {
    if options.shuffles == 0 {
        vec![None]
    } else {
        stats::shuffled_orders(set.matches.len(), options.shuffles, options.seed)
            .into_iter()
            .map(Some)
            .collect()
    }
}

/// [`meta::elo_ratings`] (one seed) a few orders at a time, for callers that work between
/// frames: each [`EloSteps::step`] draws and plays the next shuffled orders; [`EloSteps::finish`]
/// gives what `elo_ratings` gives (the same draws, the same summation order).
#[derive(Debug, Clone)]
pub struct EloSteps<'a> {
    set: &'a MatchSet,
    options: EloOptions,
    /// `None`: no shuffles, the matches are played once in file order.
    orders: Option<stats::ShuffledOrders>,
    runs: Vec<Vec<f64>>,
}

impl<'a> EloSteps<'a> {
    pub fn new(set: &'a MatchSet, options: &EloOptions) -> EloSteps<'a> {
        let orders = (options.shuffles > 0)
            .then(|| stats::ShuffledOrders::new(set.matches.len(), options.shuffles, options.seed));
        EloSteps {
            set,
            options: *options,
            orders,
            runs: Vec::with_capacity(options.shuffles.max(1)),
        }
    }

    /// Plays the next `n` orders; `true` while some are left.
    pub fn step(&mut self, n: usize) -> bool {
        match &mut self.orders {
            None => {
                if self.runs.is_empty() {
                    self.runs.push(elo_run(self.set, None, &self.options));
                }
                false
            }
            Some(orders) => {
                for order in orders.by_ref().take(n) {
                    self.runs.push(elo_run(self.set, Some(&order), &self.options));
                }
                orders.remaining() > 0
            }
        }
    }

    /// The mean and SD per evaluator over the orders played.
    pub fn finish(self, meta_evaluator: &str) -> EloResult {
        elo_summary(meta_evaluator, self.set, &self.runs)
    }
}

/// The ratings after playing the matches in `order` (file order when `None`).
pub fn elo_run(set: &MatchSet, order: Option<&[usize]>, options: &EloOptions) -> Vec<f64> {
    stats::elo(set.evaluators.len(), &set.matches, order, NullOutcome::Tie, &options.params)
}

/// Bradley–Terry with [`BT_LEVEL`] bootstrap intervals, seeded with the Elo seed.
pub fn bradley_terry(file: &JdEvalFile, settings: &Settings) -> BradleyTerryIntervals {
    let options = settings.elo();
    meta::bradley_terry_intervals(
        &file.set,
        &options.params,
        settings.resamples,
        BT_LEVEL,
        options.seed,
    )
}

/// [`bradley_terry`] in steps: [`meta::BradleyTerryBootstrap::step`] fits a few resamples at
/// a time (the browser yields between them), `finish` gives what `bradley_terry` gives.
pub fn bradley_terry_steps<'a>(
    file: &'a JdEvalFile,
    settings: &Settings,
) -> meta::BradleyTerryBootstrap<'a> {
    let options = settings.elo();
    meta::BradleyTerryBootstrap::new(
        &file.set,
        &options.params,
        settings.resamples,
        BT_LEVEL,
        options.seed,
    )
}

/// Elo and Bradley–Terry of one JDEval file in one go (the browser runs them in steps).
pub fn pairwise_result(file: &JdEvalFile, settings: &Settings) -> PairwiseResult {
    PairwiseResult {
        elo: meta::elo_ratings(&file.meta_evaluator, &file.set, &settings.elo()),
        bradley_terry: bradley_terry(file, settings),
    }
}

/// How the shuffle-averaged Elo of one meta-evaluator moves with the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedSpread {
    pub meta_evaluator: String,
    pub seeds: usize,
    /// Per evaluator: mean and sample SD over the seeds of the mean rating (the core's
    /// `elo_seed_summary`).
    pub across_seeds: BTreeMap<String, (f64, f64)>,
    /// Per evaluator: the SD over shuffles, averaged over the seeds.
    pub within_seed_sd: BTreeMap<String, f64>,
}

impl SeedSpread {
    /// From one [`meta::elo_ratings`] result per seed.
    pub fn new(meta_evaluator: &str, evaluators: &[String], per_seed: &[EloResult]) -> SeedSpread {
        let within_seed_sd = evaluators
            .iter()
            .map(|e| {
                let sds: Vec<f64> =
                    per_seed.iter().filter_map(|r| r.spread.get(e).copied()).collect();
                let mean = if sds.is_empty() {
                    f64::NAN
                } else {
                    sds.iter().sum::<f64>() / sds.len() as f64
                };
                (e.clone(), mean)
            })
            .collect();
        SeedSpread {
            meta_evaluator: meta_evaluator.to_owned(),
            seeds: per_seed.len(),
            across_seeds: meta::elo_seed_summary(evaluators, per_seed),
            within_seed_sd,
        }
    }
}

/// The options of the `k`-th seed of the spread: `seed + k`.
pub fn spread_seed(settings: &Settings, k: usize) -> EloOptions {
    let options = settings.elo();
    EloOptions { seed: options.seed.wrapping_add(k as u64), ..options }
}

/// The seed spread of one JDEval file over `settings.seeds` seeds, in one go.
pub fn seed_spread(file: &JdEvalFile, settings: &Settings) -> SeedSpread {
    let per_seed: Vec<EloResult> = (0..settings.seeds)
        .map(|k| meta::elo_ratings(&file.meta_evaluator, &file.set, &spread_seed(settings, k)))
        .collect();
    SeedSpread::new(&file.meta_evaluator, &file.set.evaluators, &per_seed)
}

/// The costly results the report shows: per JDEval file (by workspace entry id) its Elo and
/// Bradley–Terry, and the seed spread when it was asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Computed {
    pub pairwise: Vec<(u64, Arc<PairwiseResult>)>,
    pub seed_spread: Vec<SeedSpread>,
}

impl Computed {
    /// The result for entry `id`, if computed.
    pub fn pairwise(&self, id: u64) -> Option<&PairwiseResult> {
        self.pairwise.iter().find(|(i, _)| *i == id).map(|(_, r)| &**r)
    }
}
