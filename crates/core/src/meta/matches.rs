//! Pairwise-paradigm meta-evaluation: JDEval verdicts become matches between evaluators, ranked
//! by win rates, Elo (mean and spread over shuffled orders), and Bradley–Terry with bootstrap
//! intervals; plus the meta-evaluator's own answer accuracy ("post accuracy") and the Kendall τ
//! between a meta-evaluator's ranking and a baseline ranking.

use std::collections::BTreeMap;

use serde::Serialize;

use super::error::MetaError;
use super::names;
use crate::data::{self, Loaded, PairLabel, Target};
use crate::judge::parse::{self, Verdict};
use crate::stats::{self, EloParams, Match, NullOutcome, Outcome};

/// One JDEval judgement: two evaluators' assessments of a pair and the meta-evaluator's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JdEvalRecord {
    /// Assistant 1 of the meta-evaluation prompt.
    pub evaluator_1: String,
    /// Assistant 2.
    pub evaluator_2: String,
    /// The better assessor; `None` when the verdict names neither (a draw for Elo).
    pub winner: Option<Verdict>,
    /// The meta-evaluator's own choice between the two answers (`<Better_answer>`).
    pub better_answer: Option<Verdict>,
    /// The pair's gold label.
    pub label: Option<PairLabel>,
    /// Line of the record in its file.
    pub line: usize,
}

/// A released cleaned verdict (`Assistant1`, `AnswerB`, `Answer2`, `equally good`…) read with
/// the judging engine's own verdict vocabulary, so the release and live runs agree on spellings.
fn cleaned(value: &str, tag: &str) -> Option<Verdict> {
    let wrapped = format!("<{tag}>{value}</{tag}>");
    match tag {
        "Better_answer" => parse::better_answer(&wrapped).ok(),
        _ => parse::better_assistant(&wrapped).ok(),
    }
}

/// The JDEval records of a meta-evaluator-pairwise file, from the loader's
/// [`crate::data::MetaAssessment`] of each record: the two assessors and the release's cleaned
/// verdicts, falling back to the `<Better_assistant>` / `<Better_answer>` tags of the meta
/// response when a cleaned field is absent.
pub fn jdeval_records_from(file: &str, loaded: &Loaded) -> Result<Vec<JdEvalRecord>, MetaError> {
    let run = loaded.runs.first().ok_or_else(|| MetaError::NoJudgeRun { file: file.to_owned() })?;
    let joined = data::join(&loaded.dataset, run);
    let mut label_of_record = vec![None; run.records.len()];
    for &(r, target) in &joined.matched {
        if let (Target::Pair(p), Some(slot)) = (target, label_of_record.get_mut(r)) {
            *slot = loaded.dataset.pairs.get(p).and_then(|p| p.label);
        }
    }
    let mut out = Vec::with_capacity(run.records.len());
    for (i, record) in run.records.iter().enumerate() {
        let meta = record.meta.as_ref();
        let (Some(e1), Some(e2)) =
            (meta.and_then(|m| m.evaluators.first()), meta.and_then(|m| m.evaluators.get(1)))
        else {
            return Err(MetaError::MissingField {
                file: file.to_owned(),
                line: record.line,
                field: "evaluator_1/evaluator_2",
            });
        };
        // The meta response is the last response (after the two assessments).
        let meta_response = record.responses.get(2).map(String::as_str).unwrap_or_default();
        let winner = match meta.and_then(|m| m.winner.as_deref()) {
            Some(w) => cleaned(w, "Better_assistant"),
            None => parse::better_assistant(meta_response).ok(),
        };
        let better_answer = match meta.and_then(|m| m.better_response.as_deref()) {
            Some(b) => cleaned(b, "Better_answer"),
            None => parse::better_answer(meta_response).ok(),
        };
        out.push(JdEvalRecord {
            evaluator_1: e1.clone(),
            evaluator_2: e2.clone(),
            winner,
            better_answer,
            label: label_of_record.get(i).copied().flatten(),
            line: record.line,
        });
    }
    Ok(out)
}

/// [`jdeval_records_from`] under its former signature, for callers written when the loader
/// did not yet carry the assessors and cleaned verdicts and this function re-read them from
/// the file's bytes. `bytes` is no longer read; prefer [`jdeval_records_from`].
pub fn jdeval_records(
    file: &str,
    _bytes: &[u8],
    loaded: &Loaded,
) -> Result<Vec<JdEvalRecord>, MetaError> {
    jdeval_records_from(file, loaded)
}

/// Evaluators (sorted by name) and the matches between them.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchSet {
    pub evaluators: Vec<String>,
    pub matches: Vec<Match>,
}

/// One match per record: evaluator 1 is `a`; a verdict other than Assistant1 / Assistant2
/// (equally good, or unreadable) is a draw, as in the paper's code.
pub fn match_set(records: &[JdEvalRecord]) -> MatchSet {
    let mut evaluators: Vec<String> =
        records.iter().flat_map(|r| [r.evaluator_1.clone(), r.evaluator_2.clone()]).collect();
    evaluators.sort();
    evaluators.dedup();
    let index = |name: &str| evaluators.binary_search_by(|e| e.as_str().cmp(name)).unwrap_or(0);
    let matches = records
        .iter()
        .map(|r| Match {
            a: index(&r.evaluator_1),
            b: index(&r.evaluator_2),
            outcome: Some(match r.winner {
                Some(Verdict::First) => Outcome::AWins,
                Some(Verdict::Second) => Outcome::BWins,
                Some(Verdict::Tie) | None => Outcome::Tie,
            }),
        })
        .collect();
    MatchSet { evaluators, matches }
}

/// Elo settings: seed 003 uses K = 4, initial 1000, base 10, scale 400, 200 shuffles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloOptions {
    pub params: EloParams,
    /// Orders to average over; 0 plays the matches once in file order.
    pub shuffles: usize,
    pub seed: u64,
    /// How many seeds (`seed`, `seed + 1`, …) [`elo_ratings`] also measures the seed spread
    /// over (the SD of the shuffle-averaged rating across seeds); 0 or 1: none.
    pub seeds: usize,
}

impl Default for EloOptions {
    fn default() -> EloOptions {
        EloOptions { params: EloParams::default(), shuffles: 200, seed: 0, seeds: 0 }
    }
}

/// Elo ratings of one meta-evaluator's matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EloResult {
    pub meta_evaluator: String,
    pub matches: usize,
    /// Mean rating over the shuffled orders.
    pub ratings: BTreeMap<String, f64>,
    /// Sample standard deviation of the rating over the shuffled orders (0 with one order).
    pub spread: BTreeMap<String, f64>,
    /// Sample standard deviation of the shuffle-averaged rating over `EloOptions::seeds`
    /// seeds (how far the reported mean moves with the seed); empty when not measured.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub seed_spread: BTreeMap<String, f64>,
}

fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    let sd = if xs.len() > 1 {
        (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, sd)
}

/// Elo over `options.shuffles` seeded random orders of the matches (file order when 0).
pub fn elo_ratings(meta_evaluator: &str, set: &MatchSet, options: &EloOptions) -> EloResult {
    let m = set.evaluators.len();
    let runs: Vec<Vec<f64>> = if options.shuffles == 0 {
        vec![stats::elo(m, &set.matches, None, NullOutcome::Tie, &options.params)]
    } else {
        stats::shuffled_orders(set.matches.len(), options.shuffles, options.seed)
            .iter()
            .map(|order| {
                stats::elo(m, &set.matches, Some(order), NullOutcome::Tie, &options.params)
            })
            .collect()
    };
    let mut result = elo_summary(meta_evaluator, set, &runs);
    if options.seeds > 1 && options.shuffles > 0 {
        // The first seed is `options.seed`, played above; the others once each.
        let mut per_seed = vec![result.clone()];
        per_seed.extend((1..options.seeds as u64).map(|k| {
            let seed = options.seed.wrapping_add(k);
            elo_ratings("", set, &EloOptions { seed, seeds: 0, ..*options })
        }));
        result.seed_spread = elo_seed_summary(&set.evaluators, &per_seed)
            .into_iter()
            .map(|(n, (_, sd))| (n, sd))
            .collect();
    }
    result
}

/// Mean and sample SD per evaluator over Elo `runs` (one rating vector per match order), as
/// [`elo_ratings`] reports them; callers that play the orders themselves (the browser, in
/// slices between frames) summarise with this.
pub fn elo_summary(meta_evaluator: &str, set: &MatchSet, runs: &[Vec<f64>]) -> EloResult {
    let mut ratings = BTreeMap::new();
    let mut spread = BTreeMap::new();
    for (i, name) in set.evaluators.iter().enumerate() {
        let column: Vec<f64> = runs.iter().filter_map(|r| r.get(i).copied()).collect();
        let (mean, sd) = mean_sd(&column);
        ratings.insert(name.clone(), mean);
        spread.insert(name.clone(), sd);
    }
    EloResult {
        meta_evaluator: meta_evaluator.to_owned(),
        matches: set.matches.len(),
        ratings,
        spread,
        seed_spread: BTreeMap::new(),
    }
}

/// How much the shuffle-averaged Elo moves with the seed: per evaluator, the mean and sample SD
/// over `seeds` of [`elo_ratings`]' mean rating.
pub fn elo_seed_spread(
    set: &MatchSet,
    options: &EloOptions,
    seeds: &[u64],
) -> BTreeMap<String, (f64, f64)> {
    let per_seed: Vec<EloResult> = seeds
        .iter()
        .map(|&seed| elo_ratings("", set, &EloOptions { seed, seeds: 0, ..*options }))
        .collect();
    elo_seed_summary(&set.evaluators, &per_seed)
}

/// The summary of [`elo_seed_spread`] from results already computed, one [`elo_ratings`] per
/// seed (the browser computes them in slices between frames): per evaluator of `evaluators`,
/// the mean and sample SD of its mean rating over the results (SD 0 with one result).
pub fn elo_seed_summary(
    evaluators: &[String],
    per_seed: &[EloResult],
) -> BTreeMap<String, (f64, f64)> {
    evaluators
        .iter()
        .map(|name| {
            let xs: Vec<f64> =
                per_seed.iter().filter_map(|r| r.ratings.get(name).copied()).collect();
            (name.clone(), mean_sd(&xs))
        })
        .collect()
}

/// The win-rate heatmap and match distribution of one meta-evaluator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WinRates {
    pub evaluators: Vec<String>,
    /// Row i vs column j: wins of i over j / matches between them; ties earn nothing (the
    /// paper's convention, Eq. 1–2). `None` on the diagonal and where they never met.
    pub ties_zero: Vec<Vec<Option<f64>>>,
    /// As above with half a point per tie.
    pub tie_half: Vec<Vec<Option<f64>>>,
    /// Wins / (wins + losses): ties dropped.
    pub no_ties: Vec<Vec<Option<f64>>>,
    /// Matches between i and j (the match distribution, Appendix A).
    pub games: Vec<Vec<u64>>,
    pub wins: Vec<u64>,
    pub losses: Vec<u64>,
    pub ties: Vec<u64>,
}

pub fn win_rates(set: &MatchSet) -> WinRates {
    let m = set.evaluators.len();
    let summary = stats::match_summary(m, &set.matches, NullOutcome::Tie);
    let mut games = vec![vec![0u64; m]; m];
    let mut beat = vec![vec![0u64; m]; m];
    for g in &set.matches {
        if g.a < m && g.b < m && g.a != g.b {
            games[g.a][g.b] += 1;
            games[g.b][g.a] += 1;
            match g.outcome {
                Some(Outcome::AWins) => beat[g.a][g.b] += 1,
                Some(Outcome::BWins) => beat[g.b][g.a] += 1,
                _ => {}
            }
        }
    }
    let no_ties = (0..m)
        .map(|i| {
            (0..m)
                .map(|j| {
                    let decided = beat[i][j] + beat[j][i];
                    (i != j && decided > 0).then(|| beat[i][j] as f64 / decided as f64)
                })
                .collect()
        })
        .collect();
    WinRates {
        evaluators: set.evaluators.clone(),
        ties_zero: summary.pairwise_win_rate,
        tie_half: summary.pairwise_win_rate_tie_half,
        no_ties,
        games,
        wins: summary.wins,
        losses: summary.losses,
        ties: summary.ties,
    }
}

/// Bradley–Terry ratings (Elo scale) with percentile bootstrap intervals over the matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BradleyTerryIntervals {
    pub evaluators: Vec<String>,
    /// `None` when the maximum-likelihood estimate does not exist on the full data.
    pub ratings: Option<Vec<f64>>,
    /// Per evaluator `[lower, upper]`, `None` when no resample had an estimate.
    pub intervals: Vec<Option<[f64; 2]>>,
    pub level: f64,
    pub resamples: usize,
    /// Resamples where the estimate existed (the interval is over these).
    pub valid_resamples: usize,
    /// Why `ratings` is `None`.
    pub undefined: Option<String>,
}

/// Linear-interpolation quantile of sorted data (numpy's default, type 7).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = q * last as f64;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(last);
    let (a, b) = (*sorted.get(lo)?, *sorted.get(hi)?);
    Some(a + (h - lo as f64) * (b - a))
}

/// Bradley–Terry by maximum likelihood (λ = 0) with `resamples` bootstrap resamples of the
/// matches (seeded), giving `level` (e.g. 0.95) percentile intervals.
pub fn bradley_terry_intervals(
    set: &MatchSet,
    params: &EloParams,
    resamples: usize,
    level: f64,
    seed: u64,
) -> BradleyTerryIntervals {
    let mut boot = BradleyTerryBootstrap::new(set, params, resamples, level, seed);
    while boot.step(resamples) {}
    boot.finish()
}

/// [`bradley_terry_intervals`] a few resamples at a time, so the browser can yield between
/// them: [`BradleyTerryBootstrap::new`] fits the full data,
/// [`BradleyTerryBootstrap::step`] fits the next ones, [`BradleyTerryBootstrap::finish`] gives
/// the intervals. `bradley_terry_intervals` is this run in one go, so both give the same result.
#[derive(Debug, Clone)]
pub struct BradleyTerryBootstrap<'a> {
    set: &'a MatchSet,
    params: EloParams,
    level: f64,
    ratings: Option<Vec<f64>>,
    undefined: Option<String>,
    draws: stats::BootIndices,
    resamples: usize,
    columns: Vec<Vec<f64>>,
    valid: usize,
}

impl<'a> BradleyTerryBootstrap<'a> {
    pub fn new(
        set: &'a MatchSet,
        params: &EloParams,
        resamples: usize,
        level: f64,
        seed: u64,
    ) -> BradleyTerryBootstrap<'a> {
        let m = set.evaluators.len();
        let full = stats::bradley_terry(m, &set.matches, NullOutcome::Tie, 0.0, params);
        BradleyTerryBootstrap {
            set,
            params: *params,
            level,
            ratings: full.ratings,
            undefined: full.undefined.map(|u| u.to_string()),
            draws: stats::BootIndices::new(set.matches.len(), resamples, seed),
            resamples,
            columns: vec![Vec::with_capacity(resamples); m],
            valid: 0,
        }
    }

    /// Fits the next `n` resamples (each drawn as it is fitted); `true` while some are left.
    pub fn step(&mut self, n: usize) -> bool {
        let m = self.set.evaluators.len();
        for draw in self.draws.by_ref().take(n) {
            let sample: Vec<Match> =
                draw.iter().filter_map(|&i| self.set.matches.get(i).copied()).collect();
            let fit = stats::bradley_terry(m, &sample, NullOutcome::Tie, 0.0, &self.params);
            if let Some(r) = fit.ratings {
                self.valid += 1;
                for (col, x) in self.columns.iter_mut().zip(r) {
                    col.push(x);
                }
            }
        }
        self.draws.remaining() > 0
    }

    /// The ratings and their percentile intervals over the resamples fitted.
    pub fn finish(mut self) -> BradleyTerryIntervals {
        let alpha = (1.0 - self.level.clamp(0.0, 1.0)) / 2.0;
        let intervals = self
            .columns
            .iter_mut()
            .map(|col| {
                col.sort_by(f64::total_cmp);
                Some([quantile(col, alpha)?, quantile(col, 1.0 - alpha)?])
            })
            .collect();
        BradleyTerryIntervals {
            evaluators: self.set.evaluators.clone(),
            ratings: self.ratings,
            intervals,
            level: self.level,
            resamples: self.resamples,
            valid_resamples: self.valid,
            undefined: self.undefined,
        }
    }
}

/// The meta-evaluator's own answer choice (`<Better_answer>`) against the gold label.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PostAccuracy {
    /// Records with a gold label.
    pub n: usize,
    /// Records whose answer choice equals the label; an unreadable choice counts as wrong.
    pub correct: usize,
    pub accuracy: Option<f64>,
    /// Records whose answer choice could not be read.
    pub unreadable: usize,
}

pub fn post_accuracy(records: &[JdEvalRecord]) -> PostAccuracy {
    let mut out = PostAccuracy { n: 0, correct: 0, accuracy: None, unreadable: 0 };
    for r in records {
        let Some(label) = r.label else { continue };
        out.n += 1;
        let want = match label {
            PairLabel::A => Verdict::First,
            PairLabel::B => Verdict::Second,
            PairLabel::Tie => Verdict::Tie,
        };
        match r.better_answer {
            Some(v) if v == want => out.correct += 1,
            Some(_) => {}
            None => out.unreadable += 1,
        }
    }
    out.accuracy = (out.n > 0).then(|| out.correct as f64 / out.n as f64);
    out
}

/// Kendall τ-b between a meta-evaluator's scores of evaluators and a baseline's (higher =
/// better in both), over the evaluators both name (matched by [`names::canonical`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankingAgreement {
    /// Canonical names of the evaluators compared, sorted.
    pub evaluators: Vec<String>,
    pub tau_b: Option<f64>,
    pub p_value: Option<f64>,
    /// Why τ is `None`.
    pub undefined: Option<String>,
}

pub fn ranking_agreement(
    meta: &BTreeMap<String, f64>,
    baseline: &BTreeMap<String, f64>,
) -> RankingAgreement {
    let base: BTreeMap<String, f64> =
        baseline.iter().map(|(k, v)| (names::canonical(k), *v)).collect();
    let mut evaluators = Vec::new();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for (name, v) in meta.iter().map(|(k, v)| (names::canonical(k), *v)).collect::<BTreeMap<_, _>>()
    {
        if let Some(b) = base.get(&name) {
            x.push(*b);
            y.push(v);
            evaluators.push(name);
        }
    }
    let tau = stats::kendall(&x, &y).tau_b;
    RankingAgreement {
        evaluators,
        tau_b: tau.value,
        p_value: tau.p_value,
        undefined: tau.undefined.map(|u| u.to_string()),
    }
}
