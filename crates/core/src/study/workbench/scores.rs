//! Judge runs read against human ratings: every sample parsed under a [`Policy`] and averaged
//! per item ([`judge_scores`], or [`ScoreReader`] a slice at a time), the items joined to the
//! dataset by key, then one [`Row`] per run: Pearson r, Spearman ρ and Kendall τ-b at dataset
//! level and at document level (one correlation per source document, averaged over the
//! documents where it is defined — Chiang & Lee's "Method 2", STATS_SPEC §6), and Williams'
//! test against a baseline run of the same attribute. [`compute`] is `concord table`; the
//! Results screen builds its rows with [`row`]. Tables are drawn by
//! [`super::report`] into the one [`crate::report::Table`].
//!
//! # Reproducing seed 002 (Chiang & Lee 2023)
//!
//! With `--parse closer-look`, the dataset `data/topical_chat.json` and the twenty runs
//! `results/topical_chat/gpt3.5_{nat,coh,eng,gro}_{geval,geval_no_auto_cot,llm_eval_no_cot,
//! rate_explain,analyze_rate}.json`, the document-level r and τ-b of every run equal the 40
//! cells of the paper's **Table 4** to three decimals (test `reproduces_seed_002_table_4`).
//! Their `all_eval.py` computes exactly this: per dialogue (`source`), Pearson and Kendall
//! over its responses, documents with constant human or judge scores skipped, then averaged;
//! each item's judge score is the `nanmean` of its 20 parsed samples.
//!
//! **Table 2** (dataset-level r, "Method 1") cannot be matched everywhere, because the
//! paper's own numbers are inconsistent with its data and with each other:
//!
//! * the *rate-explain* row of Table 2 (r 0.524 / 0.477 / 0.567 / 0.58, τ 0.47 / 0.416 /
//!   0.524 / 0.693) is the *analyze-rate* run's dataset-level r and document-level τ; the
//!   rate-explain run's own dataset-level r is 0.569 / 0.505 / 0.564 / 0.561 and its τ is
//!   Table 4's 0.512 / 0.425 / 0.509 / 0.663;
//! * the *analyze-rate* row of Table 2 prints the document-level r of Table 4
//!   (0.573 / 0.486 / 0.628 / 0.725) although the caption says Method 1; its dataset-level r
//!   is 0.524 / 0.477 / 0.567 / 0.580;
//! * Table 3 repeats the first problem (its "✗ rate-explain" row is Table 2's) and labels the
//!   auto-CoT score-only numbers (0.393 …) as "✗ Score only".
//! * Table 3's "✓ rate-explain" row (0.554/0.478, 0.512/0.429, 0.613/0.566, 0.555/0.664) is
//!   reproduced only with `closer-look-zero` (unparseable samples count as 0, as in their
//!   released `all_eval.py`); with `closer-look` coherence and groundedness come out 0.001
//!   off (0.513/0.428, 0.555/0.663). Table 4 in turn needs `closer-look`: so the paper's
//!   tables were not all produced with the same parser setting.
//!
//! Every other Table 2 r (score only with and without auto-CoT, free text) equals the
//! dataset-level r computed here. We print what the data give and do not adjust anything.
//! Chiang & Lee's parser reads only the first digit after the last `rating:` (so `3.5` is 3
//! and `10` is 1); `concord`'s default policy reads full numbers, so its tables differ
//! slightly from the paper's by design.

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, JudgeRun, join};
use crate::judge::aggregate::{ItemScore, WeightFallback, read_samples};
use crate::judge::parse::Policy;
use crate::stats::{self, GroupOptions, Undefined};

/// One run to put in the table: a display name, the attribute it rates, its records.
#[derive(Debug, Clone, Copy)]
pub struct RunSpec<'a> {
    /// Row name.
    pub name: &'a str,
    /// The dataset attribute the run rates (`naturalness`).
    pub attribute: &'a str,
    /// The run.
    pub run: &'a JudgeRun,
}

/// A statistic at both levels, and why a level has no value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Levels {
    /// Over all items of the dataset.
    pub dataset: Option<f64>,
    /// Per document, averaged over documents where it is defined.
    pub document: Option<f64>,
    /// Why `dataset` is undefined ("the judge's ratings are all equal").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_undefined: Option<String>,
    /// Why `document` is undefined.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_undefined: Option<String>,
    /// Documents where the statistic is defined (the document-level mean's n).
    #[serde(default)]
    pub documents: usize,
}

impl Levels {
    fn new(dataset: &stats::Correlation, document: &stats::GroupStat, several: usize) -> Levels {
        let why = |u: Option<Undefined>| u.map(|u| reason(&u));
        // No document holds two items: said as such, not as a property of the ratings.
        let document_why = match document.undefined {
            Some(Undefined::NoValidGroups) if several == 0 => {
                Some(SINGLE_ITEM_DOCUMENTS.to_owned())
            }
            u => why(u),
        };
        Levels {
            dataset: dataset.value,
            document: document.mean,
            dataset_undefined: why(dataset.undefined).filter(|_| dataset.value.is_none()),
            document_undefined: document_why.filter(|_| document.mean.is_none()),
            documents: document.n_valid,
        }
    }
}

/// Why a document-level value is undefined when no document holds two rated items.
pub const SINGLE_ITEM_DOCUMENTS: &str =
    "every document holds one rated item, and a document-level correlation needs two or more";

/// Why a correlation against human ratings is undefined, in a judge table's words.
fn reason(u: &Undefined) -> String {
    match u {
        Undefined::ConstantX => "the human ratings are all equal".to_owned(),
        Undefined::ConstantY => "the judge's ratings are all equal".to_owned(),
        Undefined::NoValidGroups => {
            "no document has two items with varying human and judge ratings".to_owned()
        }
        other => other.to_string(),
    }
}

/// Williams' test of a run against a baseline run of the same attribute.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct WilliamsTest {
    /// One-sided p-value that this run's dataset-level Pearson r is greater than the
    /// baseline's (Graham & Baldwin 2014; STATS_SPEC §7 `p_greater`). `null` for the baseline
    /// itself and whenever the test is undefined.
    pub p: Option<f64>,
    /// Items the test used: those with a human rating and both judges' scores. It can be
    /// fewer than the row's `n` (which needs only this judge's score).
    #[serde(default)]
    pub n: usize,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The run's name.
    pub run: String,
    /// The attribute rated.
    pub attribute: String,
    /// Items with both a human rating and a judge score (dataset-level n).
    pub n: usize,
    /// Documents holding at least one of those items.
    #[serde(default)]
    pub documents: usize,
    /// Documents holding two or more of them: the only ones a document-level correlation can
    /// be defined on (0 when every row is its own document).
    #[serde(default)]
    pub documents_with_several: usize,
    /// Samples no rating could be read from under the policy.
    pub parse_failures: usize,
    /// Pearson r.
    pub pearson: Levels,
    /// Spearman ρ.
    pub spearman: Levels,
    /// Kendall τ-b.
    pub kendall_b: Levels,
    /// Williams' test against the baseline run (`concord table`: the first run of the same
    /// attribute).
    pub williams: WilliamsTest,
}

/// Why a run could not be read against the dataset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The dataset has no attribute of this name.
    #[error("run `{run}`: the dataset has no attribute `{attribute}` (it has: {}); name one of those", available.join(", "))]
    UnknownAttribute {
        /// The run.
        run: String,
        /// The attribute asked for.
        attribute: String,
        /// What the dataset has.
        available: Vec<String>,
    },
    /// None of the run's records matched an item of the dataset.
    #[error(
        "run `{run}`: none of its records matches an item of {dataset}; is it a run on this dataset?"
    )]
    NothingJoined {
        /// The run.
        run: String,
        /// The dataset's name.
        dataset: String,
    },
}

/// A run's per-item judge scores, aligned with the dataset's items.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeScores {
    /// Parallel to [`Dataset::items`]: the mean of the item's parsed samples, `None` where the
    /// run has no record for the item or no sample could be read.
    pub scores: Vec<Option<f64>>,
    /// Samples no rating could be read from.
    pub parse_failures: usize,
    /// Samples read (parsed or not).
    pub samples: usize,
    /// Samples the provider cut off at the token limit (parsed or not).
    pub cut_off: usize,
    /// Of the parse failures, those whose sample was cut off at the token limit.
    pub cut_off_failures: usize,
    /// Probability-weighted runs: samples scored by their log-probabilities, and samples with
    /// a rating that could not be weighted (dropped or read plainly, as `weighting` says).
    pub weighted: usize,
    pub fell_back: usize,
    pub weighting: Option<WeightFallback>,
}

/// Parses every sample of `run` under `policy` (with the attribute's scale), averages per item
/// and aligns the items with `dataset` by key. Records without responses contribute the score
/// their file already parsed under the attribute's name (UniEval, meta-evaluation).
pub fn judge_scores(
    dataset: &Dataset,
    name: &str,
    attribute: &str,
    run: &JudgeRun,
    policy: Policy,
) -> Result<JudgeScores, TableError> {
    let mut reader = ScoreReader::new(dataset, name, attribute, run, policy)?;
    while !reader.step(run, usize::MAX) {}
    Ok(reader.finish())
}

/// [`judge_scores`] a bounded number of items at a time (a 10,000-item run of 20 samples per
/// item is 200,000 parses; the browser reads it between yields). Give every step the run the
/// reader was made for.
#[derive(Debug, Clone)]
pub struct ScoreReader {
    attribute: String,
    policy: Policy,
    weighting: Option<WeightFallback>,
    scale: Option<(f64, f64)>,
    /// The record of each dataset item, if any.
    per_item: Vec<Option<usize>>,
    next: usize,
    out: JudgeScores,
}

impl ScoreReader {
    /// Joins `run` to `dataset`; fails like [`judge_scores`] (unknown attribute, nothing joined).
    pub fn new(
        dataset: &Dataset,
        name: &str,
        attribute: &str,
        run: &JudgeRun,
        policy: Policy,
    ) -> Result<ScoreReader, TableError> {
        let index = attribute_index(dataset, name, attribute)?;
        let scale = dataset.attributes.get(index).map(|a| (a.scale.min, a.scale.max));
        let joined = join(dataset, run);
        if joined.matched.is_empty() {
            return Err(TableError::NothingJoined {
                run: name.to_owned(),
                dataset: dataset.name.clone(),
            });
        }
        Ok(ScoreReader {
            attribute: attribute.to_owned(),
            policy,
            weighting: None,
            scale,
            per_item: joined.record_per_item(dataset.items.len()),
            next: 0,
            out: JudgeScores {
                scores: vec![None; dataset.items.len()],
                parse_failures: 0,
                samples: 0,
                cut_off: 0,
                cut_off_failures: 0,
                weighted: 0,
                fell_back: 0,
                weighting: None,
            },
        })
    }

    /// Reads the samples probability-weighted (G-Eval), with `weighting`'s fallback; `None`
    /// leaves the parsed ratings.
    pub fn with_weighting(mut self, weighting: Option<WeightFallback>) -> ScoreReader {
        self.weighting = weighting;
        self.out.weighting = weighting;
        self
    }

    /// Dataset items in all, and how many have been read.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.per_item.len())
    }

    /// Reads up to `max_items` more items of `run`; `true` once every item is read.
    pub fn step(&mut self, run: &JudgeRun, max_items: usize) -> bool {
        let end = self.next.saturating_add(max_items).min(self.per_item.len());
        for item in self.next..end {
            let Some(rec) = self.per_item[item].and_then(|r| run.records.get(r)) else {
                continue;
            };
            self.out.scores[item] = if rec.responses.is_empty() {
                rec.parsed.iter().find(|(a, _)| *a == self.attribute).map(|(_, v)| *v)
            } else {
                let read = read_samples(
                    &rec.responses,
                    &rec.logprobs,
                    self.policy,
                    self.weighting,
                    self.scale,
                );
                self.out.weighted += read.weighted;
                self.out.fell_back += read.fell_back;
                let s = ItemScore::from_samples(&read.samples);
                self.out.parse_failures += s.failures.len();
                self.out.samples += rec.responses.len();
                for r in rec.cut_off.iter().filter_map(|&i| rec.responses.get(i)) {
                    self.out.cut_off += 1;
                    if self.policy.parse(r, self.scale).is_err() {
                        self.out.cut_off_failures += 1;
                    }
                }
                s.mean
            };
        }
        self.next = end;
        self.next >= self.per_item.len()
    }

    /// The scores read (all of them once [`ScoreReader::step`] returned `true`).
    pub fn finish(self) -> JudgeScores {
        self.out
    }
}

fn attribute_index(dataset: &Dataset, run: &str, attribute: &str) -> Result<usize, TableError> {
    dataset.attribute_index(attribute).ok_or_else(|| TableError::UnknownAttribute {
        run: run.to_owned(),
        attribute: attribute.to_owned(),
        available: dataset.attributes.iter().map(|a| a.name.clone()).collect(),
    })
}

/// One row from item-aligned judge scores: the three correlations at both levels, and
/// Williams' test against `baseline` (another judge's scores for the same attribute).
pub fn row(
    dataset: &Dataset,
    name: &str,
    attribute: &str,
    judge: &JudgeScores,
    baseline: Option<&[Option<f64>]>,
) -> Result<Row, TableError> {
    let index = attribute_index(dataset, name, attribute)?;
    let human = dataset.human_scores(index);
    let scores = &judge.scores;
    if dataset.attributes[index].scale.kind == crate::data::ScaleKind::Categorical {
        return Ok(labels_row(name, attribute, judge, &human));
    }
    let groups: Vec<&str> = dataset.items.iter().map(|i| i.document_id.as_str()).collect();
    let pearson = stats::pearson(&human, scores);
    let spearman = stats::spearman(&human, scores);
    let kendall = stats::kendall(&human, scores);
    let by_doc = stats::group_correlations(&human, scores, &groups, &GroupOptions::default());
    let documents = by_doc.group_sizes_used.iter().filter(|&&s| s > 0).count();
    let several = by_doc.n_groups_min2;
    let williams = baseline
        .map(|base| {
            let w = stats::williams_vectors(&human, scores, base);
            WilliamsTest { p: w.p_greater, n: w.n }
        })
        .unwrap_or_default();
    Ok(Row {
        run: name.to_owned(),
        attribute: attribute.to_owned(),
        n: pearson.n,
        documents,
        documents_with_several: several,
        parse_failures: judge.parse_failures,
        pearson: Levels::new(&pearson, &by_doc.pearson, several),
        spearman: Levels::new(&spearman, &by_doc.spearman, several),
        kendall_b: Levels::new(&kendall.tau_b, &by_doc.kendall_b, several),
        williams,
    })
}

/// Why a labels attribute's cells are blank: its values are categories without order, whose
/// codes have no correlation that means anything.
pub const LABELS_REASON: &str = "the attribute's values are labels without order: a correlation of their codes means nothing; the judge's agreement with the annotators is in “Can the judge replace the annotators?” below";

/// The row of a run on a labels (categorical) attribute: no correlation at either level, with
/// [`LABELS_REASON`]; `n` still counts the items both rated.
fn labels_row(name: &str, attribute: &str, judge: &JudgeScores, human: &[Option<f64>]) -> Row {
    let levels = Levels {
        dataset: None,
        document: None,
        dataset_undefined: Some(LABELS_REASON.to_owned()),
        document_undefined: Some(LABELS_REASON.to_owned()),
        documents: 0,
    };
    let n = human.iter().zip(&judge.scores).filter(|(h, j)| h.is_some() && j.is_some()).count();
    Row {
        run: name.to_owned(),
        attribute: attribute.to_owned(),
        n,
        documents: 0,
        documents_with_several: 0,
        parse_failures: judge.parse_failures,
        pearson: levels.clone(),
        spearman: levels.clone(),
        kendall_b: levels,
        williams: WilliamsTest::default(),
    }
}

/// Reads every run and computes its row: `concord table`. Each run is compared by Williams'
/// test with the first run given for the same attribute (runs of different attributes rate
/// different things and are never compared). `policy` reads every sample; the attribute's
/// declared scale is passed to it (only the `concord` policy uses it).
pub fn compute(
    dataset: &Dataset,
    runs: &[RunSpec<'_>],
    policy: Policy,
) -> Result<Vec<Row>, TableError> {
    let mut rows = Vec::with_capacity(runs.len());
    let mut firsts: Vec<(&str, Vec<Option<f64>>)> = Vec::new();
    for spec in runs {
        let scored = judge_scores(dataset, spec.name, spec.attribute, spec.run, policy)?;
        let first = firsts.iter().find(|(a, _)| *a == spec.attribute).map(|(_, s)| s.as_slice());
        rows.push(row(dataset, spec.name, spec.attribute, &scored, first)?);
        if first.is_none() {
            firsts.push((spec.attribute, scored.scores));
        }
    }
    Ok(rows)
}
