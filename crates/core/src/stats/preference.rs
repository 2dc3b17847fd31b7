//! Pairwise preferences (§12): judge-vs-gold label accuracy with ties, match tallies and win
//! rates, Elo over given orders (FastChat `compute_elo`), Bradley–Terry with the existence
//! check, and its L2-regularised variant.

use super::agreement::{CohenWeights, cohen_kappa};
use super::basics::{Estimate, Undefined, is_positive};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// A pairwise verdict label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    A,
    B,
    Tie,
}

impl Label {
    /// `A`/`B` (any case, or `model_a`/`model_b`) and any label starting with `tie`.
    pub fn parse(s: &str) -> Option<Label> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "a" | "model_a" => Some(Label::A),
            "b" | "model_b" => Some(Label::B),
            _ if lower.starts_with("tie") => Some(Label::Tie),
            _ => None,
        }
    }

    fn code(self) -> f64 {
        match self {
            Label::A => 0.0,
            Label::B => 1.0,
            Label::Tie => 2.0,
        }
    }
}

/// Judge vs gold accuracies of §12.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelAccuracy {
    pub n_used: usize,
    pub agreement_with_ties: Option<f64>,
    pub agreement_without_ties: Option<f64>,
    pub n_without_ties: usize,
    pub accuracy_tie_half_credit: Option<f64>,
    pub accuracy_gold_nontie_strict: Option<f64>,
    pub accuracy_gold_nontie_judge_tie_half: Option<f64>,
    pub n_gold_nontie: usize,
    pub cohen_kappa: Estimate,
}

/// Accuracy of judge labels against gold labels; items with a missing label are dropped.
pub fn label_accuracy(judge: &[Option<Label>], gold: &[Option<Label>]) -> LabelAccuracy {
    let pairs: Vec<(Label, Label)> =
        judge.iter().zip(gold).filter_map(|(j, g)| Some(((*j)?, (*g)?))).collect();
    let ratio = |num: f64, den: usize| (den > 0).then(|| num / den as f64);
    let n = pairs.len();
    let equal = pairs.iter().filter(|(j, g)| j == g).count();
    let without: Vec<_> =
        pairs.iter().filter(|(j, g)| *j != Label::Tie && *g != Label::Tie).collect();
    let half: f64 = pairs
        .iter()
        .map(|(j, g)| {
            if j == g {
                1.0
            } else if *j == Label::Tie || *g == Label::Tie {
                0.5
            } else {
                0.0
            }
        })
        .sum();
    let gold_nontie: Vec<_> = pairs.iter().filter(|(_, g)| *g != Label::Tie).collect();
    let strict = gold_nontie.iter().filter(|(j, g)| j == g).count();
    let judge_tie = gold_nontie.iter().filter(|(j, _)| *j == Label::Tie).count();
    let codes = |pick: fn(&(Label, Label)) -> Label| -> Vec<Option<f64>> {
        pairs.iter().map(|p| Some(pick(p).code())).collect()
    };
    LabelAccuracy {
        n_used: n,
        agreement_with_ties: ratio(equal as f64, n),
        agreement_without_ties: ratio(
            without.iter().filter(|(j, g)| j == g).count() as f64,
            without.len(),
        ),
        n_without_ties: without.len(),
        accuracy_tie_half_credit: ratio(half, n),
        accuracy_gold_nontie_strict: ratio(strict as f64, gold_nontie.len()),
        accuracy_gold_nontie_judge_tie_half: ratio(
            strict as f64 + 0.5 * judge_tie as f64,
            gold_nontie.len(),
        ),
        n_gold_nontie: gold_nontie.len(),
        cohen_kappa: cohen_kappa(
            &codes(|p| p.0),
            &codes(|p| p.1),
            Some(&[0.0, 1.0, 2.0]),
            CohenWeights::Unweighted,
        ),
    }
}

/// The outcome of one match between models `a` and `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    AWins,
    BWins,
    Tie,
}

/// What an unparsed verdict (`None` outcome) counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NullOutcome {
    /// A draw: the meta-evaluation paper's code does this (default).
    #[default]
    Tie,
    /// Drop the match.
    Skip,
}

/// One match: indices into the model list and the outcome (`None` = unparsed verdict).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub a: usize,
    pub b: usize,
    pub outcome: Option<Outcome>,
}

impl Match {
    /// The score of `a` (1, ½, 0) under the null-outcome policy; `None` when skipped.
    pub fn score_a(&self, null_outcome: NullOutcome) -> Option<f64> {
        match (self.outcome, null_outcome) {
            (Some(Outcome::AWins), _) => Some(1.0),
            (Some(Outcome::BWins), _) => Some(0.0),
            (Some(Outcome::Tie), _) | (None, NullOutcome::Tie) => Some(0.5),
            (None, NullOutcome::Skip) => None,
        }
    }
}

/// Tallies and win rates of §12.2.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchSummary {
    pub n_matches_used: usize,
    pub n_null_outcomes: usize,
    pub wins: Vec<u64>,
    pub losses: Vec<u64>,
    pub ties: Vec<u64>,
    /// (W + ½T)/(W + L + T).
    pub win_rate: Vec<Option<f64>>,
    /// W/(W + L).
    pub win_rate_no_ties: Vec<Option<f64>>,
    /// W/(W + L + T).
    pub win_rate_ties_zero: Vec<Option<f64>>,
    /// Row i vs column j: W_ij/(W_ij + W_ji + T_ij); ties earn nothing.
    pub pairwise_win_rate: Vec<Vec<Option<f64>>>,
    /// (W_ij + ½T_ij)/(W_ij + W_ji + T_ij).
    pub pairwise_win_rate_tie_half: Vec<Vec<Option<f64>>>,
}

/// Win/loss/tie tallies and win rates for `n_models` models. Matches naming a model index
/// ≥ `n_models` must be rejected by the caller.
pub fn match_summary(
    n_models: usize,
    matches: &[Match],
    null_outcome: NullOutcome,
) -> MatchSummary {
    let m = n_models;
    let (mut wins, mut losses, mut ties) = (vec![0u64; m], vec![0u64; m], vec![0u64; m]);
    let mut beat = vec![vec![0u64; m]; m];
    let mut drew = vec![vec![0u64; m]; m];
    let mut used = 0;
    for game in matches {
        let Some(s) = game.score_a(null_outcome) else { continue };
        used += 1;
        let (a, b) = (game.a, game.b);
        if s == 1.0 {
            wins[a] += 1;
            losses[b] += 1;
            beat[a][b] += 1;
        } else if s == 0.0 {
            wins[b] += 1;
            losses[a] += 1;
            beat[b][a] += 1;
        } else {
            ties[a] += 1;
            ties[b] += 1;
            drew[a][b] += 1;
            drew[b][a] += 1;
        }
    }
    let rate = |num: f64, den: u64| (den > 0).then(|| num / den as f64);
    let per_model = |f: &dyn Fn(usize) -> Option<f64>| (0..m).map(f).collect::<Vec<_>>();
    let pairwise = |tie_credit: f64| -> Vec<Vec<Option<f64>>> {
        (0..m)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        let games = beat[i][j] + beat[j][i] + drew[i][j];
                        if i == j {
                            None
                        } else {
                            rate(beat[i][j] as f64 + tie_credit * drew[i][j] as f64, games)
                        }
                    })
                    .collect()
            })
            .collect()
    };
    MatchSummary {
        n_matches_used: used,
        n_null_outcomes: matches.iter().filter(|g| g.outcome.is_none()).count(),
        win_rate: per_model(&|i| {
            rate(wins[i] as f64 + 0.5 * ties[i] as f64, wins[i] + losses[i] + ties[i])
        }),
        win_rate_no_ties: per_model(&|i| rate(wins[i] as f64, wins[i] + losses[i])),
        win_rate_ties_zero: per_model(&|i| rate(wins[i] as f64, wins[i] + losses[i] + ties[i])),
        pairwise_win_rate: pairwise(0.0),
        pairwise_win_rate_tie_half: pairwise(0.5),
        wins,
        losses,
        ties,
    }
}

/// Elo parameters (FastChat / Chatbot Arena defaults: K = 4, 1000, 400, base 10).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloParams {
    pub k: f64,
    pub init: f64,
    pub scale: f64,
    pub base: f64,
}

impl Default for EloParams {
    fn default() -> EloParams {
        EloParams { k: 4.0, init: 1000.0, scale: 400.0, base: 10.0 }
    }
}

/// Sequential Elo over `order` (indices into `matches`; all matches in input order when
/// `None`). Skipped (`null`) matches drop out. Indices must be < `matches.len()`.
pub fn elo(
    n_models: usize,
    matches: &[Match],
    order: Option<&[usize]>,
    null_outcome: NullOutcome,
    params: &EloParams,
) -> Vec<f64> {
    let mut rating = vec![params.init; n_models];
    let mut play = |game: &Match| {
        let Some(sa) = game.score_a(null_outcome) else { return };
        let (ra, rb) = (rating[game.a], rating[game.b]);
        let ea = 1.0 / (1.0 + params.base.powf((rb - ra) / params.scale));
        let eb = 1.0 / (1.0 + params.base.powf((ra - rb) / params.scale));
        rating[game.a] += params.k * (sa - ea);
        rating[game.b] += params.k * (1.0 - sa - eb);
    };
    match order {
        Some(order) => order.iter().filter_map(|&i| matches.get(i)).for_each(&mut play),
        None => matches.iter().for_each(&mut play),
    }
    rating
}

/// `count` uniformly random permutations of 0..len (Fisher–Yates, ChaCha8 seeded by `seed`).
pub fn shuffled_orders(len: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    ShuffledOrders::new(len, count, seed).collect()
}

/// [`shuffled_orders`] one permutation at a time (the same ones, in the same order), for
/// callers that work between frames.
#[derive(Debug, Clone)]
pub struct ShuffledOrders {
    rng: ChaCha8Rng,
    len: usize,
    left: usize,
}

impl ShuffledOrders {
    /// How many are still to come.
    pub fn remaining(&self) -> usize {
        self.left
    }

    pub fn new(len: usize, count: usize, seed: u64) -> ShuffledOrders {
        ShuffledOrders { rng: ChaCha8Rng::seed_from_u64(seed), len, left: count }
    }
}

impl Iterator for ShuffledOrders {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        self.left = self.left.checked_sub(1)?;
        let mut order: Vec<usize> = (0..self.len).collect();
        for i in (1..self.len).rev() {
            let j = super::resample::uniform_below(&mut self.rng, i + 1);
            order.swap(i, j);
        }
        Some(order)
    }
}

/// Bradley–Terry ratings on the Elo scale (`init + scale·θ/ln(base)`).
#[derive(Debug, Clone, PartialEq)]
pub struct BradleyTerry {
    /// `None` when the estimate does not exist (see `undefined`).
    pub ratings: Option<Vec<f64>>,
    /// The L2 penalty used (0 = plain maximum likelihood).
    pub lambda: f64,
    pub undefined: Option<Undefined>,
}

/// Bradley–Terry by Newton's method (§12.4). With `lambda = 0` the MLE exists only when every
/// model played and the "scored against" graph is strongly connected; `lambda > 0` maximises
/// ℓ(θ) − λ/2·Σθ², which always exists.
pub fn bradley_terry(
    n_models: usize,
    matches: &[Match],
    null_outcome: NullOutcome,
    lambda: f64,
    params: &EloParams,
) -> BradleyTerry {
    let m = n_models;
    let fail = |why| BradleyTerry { ratings: None, lambda, undefined: Some(why) };
    if m == 0 {
        return BradleyTerry { ratings: Some(Vec::new()), lambda, undefined: None };
    }
    // score[i][j] = points i earned against j; games[i][j] = games between them.
    let mut score = vec![vec![0.0f64; m]; m];
    let mut games = vec![vec![0.0f64; m]; m];
    for game in matches {
        let Some(s) = game.score_a(null_outcome) else { continue };
        if game.a == game.b {
            continue;
        }
        score[game.a][game.b] += s;
        score[game.b][game.a] += 1.0 - s;
        games[game.a][game.b] += 1.0;
        games[game.b][game.a] += 1.0;
    }
    if !is_positive(lambda) && !mle_exists(&score) {
        return fail(Undefined::NoFiniteMle);
    }
    let mut theta = vec![0.0f64; m];
    let mut converged = false;
    let mut previous = f64::INFINITY;
    for _ in 0..500 {
        let mut grad = vec![0.0f64; m];
        let mut hess = vec![vec![0.0f64; m]; m];
        for i in 0..m {
            for j in i + 1..m {
                let g = games[i][j];
                if g == 0.0 {
                    continue;
                }
                // p = P(i beats j), q = 1 − p, each computed directly: for a lopsided
                // record p rounds to 1 and 1 − p would lose every digit of q.
                let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
                let q = 1.0 / (1.0 + (theta[i] - theta[j]).exp());
                // score_ij − g·p, with g = score_ij + score_ji and p + q = 1.
                let d = score[i][j] * q - score[j][i] * p;
                grad[i] += d;
                grad[j] -= d;
                let w = g * p * q;
                hess[i][i] += w;
                hess[j][j] += w;
                hess[i][j] -= w;
                hess[j][i] -= w;
            }
        }
        for i in 0..m {
            grad[i] -= lambda * theta[i];
            hess[i][i] += lambda;
            if !is_positive(lambda) {
                // Fix the translation invariance: adds 11ᵀ/m to the (negated) Hessian.
                for h in hess[i].iter_mut() {
                    *h += 1.0 / m as f64;
                }
            }
        }
        let Some(step) = solve(hess, grad) else {
            return fail(Undefined::NotConverged);
        };
        let mut largest = 0.0f64;
        for (t, s) in theta.iter_mut().zip(&step) {
            *t += s;
            largest = largest.max(s.abs());
        }
        if !largest.is_finite() {
            return fail(Undefined::NotConverged);
        }
        // Converged at max |step| < 1e-13 (§12.4); far from 0, θ's own rounding can keep the
        // step just above that: a step below 1e-10 that no longer shrinks is that floor.
        if largest < 1e-13 || (largest < 1e-10 && largest >= previous) {
            converged = true;
            break;
        }
        previous = largest;
    }
    if !converged {
        return fail(Undefined::NotConverged);
    }
    let mean = theta.iter().sum::<f64>() / m as f64;
    let unit = params.scale / params.base.ln();
    BradleyTerry {
        ratings: Some(theta.iter().map(|t| params.init + unit * (t - mean)).collect()),
        lambda,
        undefined: None,
    }
}

/// Zermelo/Ford condition: every model played and "i scored against j" is strongly connected.
fn mle_exists(score: &[Vec<f64>]) -> bool {
    let m = score.len();
    let reach = |forward: bool| {
        let mut seen = vec![false; m];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..m {
                let edge = if forward { score[i][j] > 0.0 } else { score[j][i] > 0.0 };
                if edge && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.into_iter().all(|s| s)
    };
    // A single listed model has played no one (§12.4: every listed model must have played).
    m > 1 && reach(true) && reach(false)
}

/// Solve `a·x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if !is_positive(a[pivot][col].abs() - 1e-300) {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[row][col] / a[col][col];
            if f != 0.0 {
                let (upper, lower) = a.split_at_mut(row);
                for (x, &p) in lower[0][col..].iter_mut().zip(&upper[col][col..]) {
                    *x -= f * p;
                }
                b[row] -= f * b[col];
            }
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - s) / a[row][row];
    }
    Some(x)
}
