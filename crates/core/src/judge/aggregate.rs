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

/// A generated token that contains a digit — one a rating can be read from — where it starts
/// in the response (bytes) and its most likely alternatives with their natural-log
/// probabilities. A sample keeps only these (a 128-token answer with 20 alternatives a token
/// would otherwise be stored whole).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreToken {
    /// Byte offset of the token in the response text.
    pub at: usize,
    pub token: String,
    pub alternatives: Vec<(String, f64)>,
}

/// The digit-bearing tokens of a response, located in its text by concatenating the tokens
/// (the generated text is their concatenation; where a provider's tokens do not spell the
/// text, offsets follow the tokens' lengths, and a rating may then find no token).
pub fn score_tokens(tokens: &[TokenLogprobs]) -> Vec<ScoreToken> {
    let mut at = 0;
    let mut out = Vec::new();
    for t in tokens {
        if t.token.bytes().any(|b| b.is_ascii_digit()) {
            out.push(ScoreToken {
                at,
                token: t.token.clone(),
                alternatives: t.top_logprobs.iter().map(|a| (a.token.clone(), a.logprob)).collect(),
            });
        }
        at += t.token.len();
    }
    out
}

/// What a probability-weighted method does with a sample whose rating cannot be weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WeightFallback {
    /// Leave the sample out of the item's mean (counted as a parse failure).
    #[default]
    Drop,
    /// Use the rating the parser read from its text.
    Parsed,
}

impl WeightFallback {
    pub const ALL: [WeightFallback; 2] = [WeightFallback::Drop, WeightFallback::Parsed];

    /// Stable name (settings, bundles, `concord`).
    pub fn name(self) -> &'static str {
        match self {
            WeightFallback::Drop => "drop",
            WeightFallback::Parsed => "parsed",
        }
    }

    pub fn from_name(name: &str) -> Option<WeightFallback> {
        WeightFallback::ALL.into_iter().find(|f| f.name() == name)
    }

    /// In words, for a table's note.
    pub fn describe(self) -> &'static str {
        match self {
            WeightFallback::Drop => "left out",
            WeightFallback::Parsed => "their parsed rating used",
        }
    }
}

/// G-Eval's probability-weighted score of one sample **at its rating**: the parser under
/// `policy` reads the rating from `text`; the token that starts where the rating starts is the
/// rating's token, and Σ p(s)·s over the score tokens among its alternatives (renormalised over
/// those valid tokens) is the score. Falls back (with the parsed rating in `score`) when the
/// sample has no log-probabilities, the parser read no rating, no token starts the rating or it
/// is not a score on the scale, or it has no alternatives.
pub fn weighted_at_rating(
    text: &str,
    tokens: Option<&[ScoreToken]>,
    scale: (i64, i64),
    policy: Policy,
) -> WeightedScore {
    let bounds = Some((scale.0 as f64, scale.1 as f64));
    let reading = policy.read(text, bounds).ok();
    let fallback = |reason| WeightedScore {
        score: reading.as_ref().map(|r| r.value),
        valid_mass: None,
        fallback: Some(reason),
    };
    let Some(tokens) = tokens.filter(|t| !t.is_empty()) else {
        return fallback(Fallback::NoLogprobs);
    };
    let Some(start) = reading.as_ref().and_then(|r| r.span.as_ref()).map(|s| s.start) else {
        return fallback(Fallback::NoScoreToken);
    };
    let Some(at) = token_at(tokens, start) else {
        return fallback(Fallback::NoScoreToken);
    };
    if score_token(&at.token, scale).is_none() {
        return fallback(Fallback::NoScoreToken);
    }
    if at.alternatives.is_empty() {
        return fallback(Fallback::NoAlternatives);
    }
    // Several alternatives can spell the same score (`"3"`, `" 3"`); their masses add up.
    let mut mass = 0.0;
    let mut weighted = 0.0;
    for (token, logprob) in &at.alternatives {
        if let Some(s) = score_token(token, scale) {
            let p = logprob.exp();
            mass += p;
            weighted += p * s as f64;
        }
    }
    if mass <= 0.0 {
        return fallback(Fallback::NoScoreToken);
    }
    WeightedScore { score: Some(weighted / mass), valid_mass: Some(mass), fallback: None }
}

/// The token holding the byte `start` of the rating (a token may carry a leading space).
fn token_at(tokens: &[ScoreToken], start: usize) -> Option<&ScoreToken> {
    tokens.iter().find(|t| {
        let digits = t.token.len() - t.token.trim_start().len();
        t.at + digits == start || (t.at <= start && start < t.at + t.token.len())
    })
}

/// The probability the model gave the rating a sample chose, at the token where the parser
/// read it: the summed probability of the alternatives that spell that rating (`"3"`, `" 3"`),
/// unnormalised. `None` when the sample has no log-probabilities, no rating, no token at the
/// rating, or the chosen rating is not among its alternatives. A judge's confidence for
/// selective trust (STATS_SPEC §16.2).
pub fn rating_probability(
    text: &str,
    tokens: &[ScoreToken],
    scale: (i64, i64),
    policy: Policy,
) -> Option<f64> {
    let bounds = Some((scale.0 as f64, scale.1 as f64));
    let reading = policy.read(text, bounds).ok()?;
    let at = token_at(tokens, reading.span.as_ref()?.start)?;
    let chosen = score_token(&at.token, scale)?;
    let p: f64 = at
        .alternatives
        .iter()
        .filter(|(t, _)| score_token(t, scale) == Some(chosen))
        .map(|(_, lp)| lp.exp())
        .sum();
    (p > 0.0).then_some(p.min(1.0))
}

/// [`weighted_at_rating`] on a provider's token list.
pub fn probability_weighted(
    text: &str,
    logprobs: Option<&[TokenLogprobs]>,
    scale: (i64, i64),
    policy: Policy,
) -> WeightedScore {
    let tokens = logprobs.map(score_tokens);
    match (logprobs, tokens) {
        // Tokens with no digit at all: the rating has no token to be weighted at.
        (Some(l), Some(t)) if !l.is_empty() && t.is_empty() => {
            let bounds = Some((scale.0 as f64, scale.1 as f64));
            WeightedScore {
                score: policy.parse(text, bounds).ok(),
                valid_mass: None,
                fallback: Some(Fallback::NoScoreToken),
            }
        }
        (_, t) => weighted_at_rating(text, t.as_deref(), scale, policy),
    }
}

/// One record's samples as a method reads them: each rating, parsed or probability-weighted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SamplesRead {
    /// Per sample kept, its score or why no rating could be read (a sample dropped because it
    /// could not be weighted is not here).
    pub samples: Vec<Result<f64, ParseFailure>>,
    /// Samples scored by their log-probabilities.
    pub weighted: usize,
    /// Samples with a rating that could not be weighted (dropped or read plainly, as the method
    /// says).
    pub fell_back: usize,
}

/// Reads `responses` under `policy`; with `weighting`, each sample whose rating can be weighted
/// by its `logprobs` (parallel to `responses`, empty when there are none) is scored G-Eval's
/// way ([`weighted_at_rating`]) and the others are dropped or read plainly.
pub fn read_samples(
    responses: &[String],
    logprobs: &[Vec<ScoreToken>],
    policy: Policy,
    weighting: Option<WeightFallback>,
    scale: Option<(f64, f64)>,
) -> SamplesRead {
    let mut out = SamplesRead::default();
    let Some(fallback) = weighting else {
        out.samples = responses.iter().map(|r| policy.parse(r, scale)).collect();
        return out;
    };
    let (lo, hi) = scale.unwrap_or((1.0, 5.0));
    let int_scale = (lo.round() as i64, hi.round() as i64);
    for (i, response) in responses.iter().enumerate() {
        let parsed = policy.parse(response, scale);
        if parsed.is_err() {
            out.samples.push(parsed);
            continue;
        }
        let tokens = logprobs.get(i).map(Vec::as_slice);
        let w = weighted_at_rating(response, tokens, int_scale, policy);
        match (w.fallback, fallback) {
            (None, _) => {
                out.weighted += 1;
                out.samples.push(w.score.ok_or(ParseFailure::NoNumber));
            }
            (Some(_), WeightFallback::Parsed) => {
                out.fell_back += 1;
                out.samples.push(parsed);
            }
            (Some(_), WeightFallback::Drop) => out.fell_back += 1,
        }
    }
    out
}
