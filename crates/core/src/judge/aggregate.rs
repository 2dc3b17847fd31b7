//! From samples to one score per item: the mean of N samples, the rate-explain +
//! analyze-rate ensemble (seed 002 §3.3), G-Eval's probability-weighted score, and the
//! per-item spread.

use super::parse::{ParseFailure, Policy};
use super::request::TokenLogprobs;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One item's aggregate over its samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemScore {
    /// Mean of the parsed samples (summed in sample order, then divided), or `None` when no
    /// sample could be parsed.
    pub mean: Option<f64>,
    /// Samples that gave a rating.
    pub used: usize,
    /// Samples that did not, with the reason.
    pub failures: Vec<ParseFailure>,
    /// Population standard deviation of the parsed samples (how much the judge disagrees with
    /// itself on this item); `None` below two samples.
    pub std_dev: Option<f64>,
    /// Smallest and largest parsed sample.
    pub range: Option<(f64, f64)>,
}

impl ItemScore {
    /// Aggregates already-parsed samples. A failure is left out of the mean (numpy's
    /// `nanmean`, which Chiang & Lee use) and counted; policies that read failures as 0 have
    /// already turned them into `Ok(0.0)`.
    pub fn from_samples(samples: &[Result<f64, ParseFailure>]) -> ItemScore {
        let values: Vec<f64> = samples.iter().filter_map(|s| s.as_ref().ok().copied()).collect();
        let failures = samples.iter().filter_map(|s| s.as_ref().err().copied()).collect();
        let used = values.len();
        let mean = mean_in_order(&values);
        let std_dev = match (mean, used) {
            (Some(m), n) if n >= 2 => {
                let mut ss = 0.0;
                for v in &values {
                    ss += (v - m) * (v - m);
                }
                Some((ss / n as f64).sqrt())
            }
            _ => None,
        };
        let range = values.iter().fold(None, |acc: Option<(f64, f64)>, &v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        });
        ItemScore { mean, used, failures, std_dev, range }
    }

    /// Parses every response under `policy` and aggregates.
    pub fn parse<S: AsRef<str>>(
        responses: &[S],
        policy: Policy,
        scale: Option<(f64, f64)>,
    ) -> ItemScore {
        let samples: Vec<_> = responses.iter().map(|r| policy.parse(r.as_ref(), scale)).collect();
        ItemScore::from_samples(&samples)
    }

    /// The ensemble of several prompts' samples for the same item (002 §3.3: sample some
    /// ratings with rate-explain, some with analyze-rate, average them all): the samples are
    /// pooled, so each prompt weighs by how many of its samples parsed.
    pub fn ensemble(parts: &[&[Result<f64, ParseFailure>]]) -> ItemScore {
        let pooled: Vec<Result<f64, ParseFailure>> =
            parts.iter().flat_map(|p| p.iter().copied()).collect();
        ItemScore::from_samples(&pooled)
    }
}

/// Sum in input order, then divide: the same order everywhere, so that equal sample sets
/// give bit-identical means and ties are detected as in the reference scripts.
fn mean_in_order(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sum = 0.0;
    for v in values {
        sum += v;
    }
    Some(sum / values.len() as f64)
}

/// G-Eval's probability-weighted score of one response: at the first generated token that is a
/// score, Σ p(s)·s over the score tokens among its `top_logprobs`, with the probabilities
/// renormalised over those valid tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightedScore {
    /// The weighted score, or the plain parsed score when it fell back.
    pub score: Option<f64>,
    /// Total probability of the valid score tokens before renormalisation (how much of the
    /// model's belief the score covers); `None` on fallback.
    pub valid_mass: Option<f64>,
    /// Why the weighting was not applied, if it was not.
    pub fallback: Option<Fallback>,
}

/// Why a probability-weighted score fell back to the sampled text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Fallback {
    /// The response carries no log-probabilities (provider without them, or not requested).
    NoLogprobs,
    /// No generated token is a score on the scale.
    NoScoreToken,
    /// The score token has no alternatives (`top_logprobs` empty): only its own probability
    /// is known, so the weighted score would be the sampled score anyway.
    NoAlternatives,
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fallback::NoLogprobs => "the response has no log-probabilities",
            Fallback::NoScoreToken => "no generated token is a score on the scale",
            Fallback::NoAlternatives => "the score token has no top_logprobs alternatives",
        })
    }
}

/// The integer score a token stands for, if it is one on the scale (tokens may carry spaces).
fn score_token(token: &str, scale: (i64, i64)) -> Option<i64> {
    let v: i64 = token.trim().parse().ok()?;
    (scale.0..=scale.1).contains(&v).then_some(v)
}

/// Computes G-Eval's weighted score. `text` is the response (used for the fallback under
/// `policy`), `logprobs` its tokens, `scale` the integer score range.
pub fn probability_weighted(
    text: &str,
    logprobs: Option<&[TokenLogprobs]>,
    scale: (i64, i64),
    policy: Policy,
) -> WeightedScore {
    let fallback = |reason| WeightedScore {
        score: policy.parse(text, Some((scale.0 as f64, scale.1 as f64))).ok(),
        valid_mass: None,
        fallback: Some(reason),
    };
    let Some(tokens) = logprobs.filter(|t| !t.is_empty()) else {
        return fallback(Fallback::NoLogprobs);
    };
    let Some(at) = tokens.iter().find(|t| score_token(&t.token, scale).is_some()) else {
        return fallback(Fallback::NoScoreToken);
    };
    if at.top_logprobs.is_empty() {
        return fallback(Fallback::NoAlternatives);
    }
    // Several alternatives can spell the same score (`"3"`, `" 3"`); their masses add up.
    let mut mass = 0.0;
    let mut weighted = 0.0;
    for alt in &at.top_logprobs {
        if let Some(s) = score_token(&alt.token, scale) {
            let p = alt.logprob.exp();
            mass += p;
            weighted += p * s as f64;
        }
    }
    if mass <= 0.0 {
        return fallback(Fallback::NoScoreToken);
    }
    WeightedScore { score: Some(weighted / mass), valid_mass: Some(mass), fallback: None }
}
