//! Live runs of the meta-evaluation workspace as values: what a run is ([`RunSpec`]: its
//! settings and the pairs, texts or assessments it judges), the requests it sends (the core's
//! protocol state machines: [`Pairwise`] with seed 003's Table 7 prompt, [`Pointwise`] with its
//! Table 8 prompt, and [`crate::judge::meta_eval`]'s JDEval, MDEval, JDEval-i and BSMEval), and
//! what its raw answers make ([`LiveRun::replay`]): the pairwise and individual-scoring run
//! tables' figures, and workspace files that feed the same tables, figures and viewers as the
//! released files.
//!
//! A [`LiveRun`] is the spec plus every answer by request tag. The browser drives the protocols
//! of [`RunSpec::protocols`] and records the answers it feeds them; the workspace then rebuilds
//! the outcomes by replaying those answers into fresh protocols — the path a bundle takes too,
//! so a run restored with no key shows exactly what the run showed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::debate::{Branch, BranchRecord, Debate, Round, label_text, verdict_text, winner_text};
use super::files::{
    Content, FileKind, IndividualInput, LIVE_FORMAT, MetaFile, PairInput, ScoredText, jdeval_file,
    judged_pairs,
};
use crate::data::{PairLabel, mean_in_order};
use crate::judge::ChatResponse;
use crate::judge::meta_eval::{
    AssessedPair, BsmEval, BsmOutcome, IndividualTask, JdEval, JdEvalI, JdEvalIOutcome,
    JdEvalOutcome, MdEval, MdEvalOutcome,
};
use crate::judge::parse::{Policy, Verdict};
use crate::judge::protocol::{
    Pairwise, PairwiseOutcome, Pointwise, PointwiseOutcome, Protocol, Reader, Sampling,
    individual_template,
};
use crate::judge::template::RenderError;
use crate::meta::{
    self, EvaluatorRow, JdEvalRecord, MetaProtocol, MetaScore, PairwiseAccuracy,
    PositionConsistency,
};

/// Seed 003's individual scoring (Table 8 prompt: OpenMEVA stories or SummEval coherence; the
/// score read from `<Rating>` on 1–5) of every text by every evaluator: `[evaluator][text]`.
pub fn scoring_protocols(
    texts: &[ScoredText],
    evaluators: &[String],
    openmeva: bool,
) -> Result<Vec<Vec<Pointwise>>, RenderError> {
    let template = individual_template(openmeva);
    evaluators
        .iter()
        .map(|e| {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    Pointwise::new(
                        &format!("score/{e}/{i}"),
                        &template,
                        &[("text", t.text.as_str())],
                        &Sampling::single(),
                        Reader::Tag { name: "Rating".into(), policy: Policy::Concord },
                        Some((1.0, 5.0)),
                    )
                })
                .collect()
        })
        .collect()
}

/// A finished individual-scoring run: the texts, the evaluators and each one's outcome per
/// text (`None` where the run stopped before the answer came).
#[derive(Debug, Clone, PartialEq)]
pub struct ScoringRun {
    pub texts: Vec<ScoredText>,
    pub evaluators: Vec<String>,
    /// The OpenMEVA prompt (else SummEval coherence).
    pub openmeva: bool,
    /// `[evaluator][text]`.
    pub outcomes: Vec<Vec<Option<PointwiseOutcome>>>,
}

/// One evaluator's figures in an individual-scoring run.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoringFigures {
    pub evaluator: String,
    /// Texts with both a read score and a human score.
    pub n: usize,
    /// Answers with no readable `<Rating>` on the scale.
    pub unreadable: usize,
    /// Pearson's r of the scores with the human scores (Table 1's Pearson column).
    pub pearson: Option<f64>,
}

impl ScoringRun {
    /// The evaluator's score of each text (`None`: no answer, or none readable).
    fn scores(&self, evaluator: usize) -> Vec<Option<f64>> {
        self.outcomes.get(evaluator).map_or_else(Vec::new, |o| {
            o.iter().map(|o| o.as_ref().and_then(|o| o.score.mean)).collect()
        })
    }

    /// Per evaluator: how many texts were scored, how many answers were unreadable, and
    /// Pearson with the human scores.
    pub fn figures(&self) -> Vec<ScoringFigures> {
        let gold: Vec<Option<f64>> = self.texts.iter().map(|t| t.gold).collect();
        self.evaluators
            .iter()
            .enumerate()
            .map(|(e, name)| {
                let scores = self.scores(e);
                let unreadable = self
                    .outcomes
                    .get(e)
                    .map_or(0, |o| o.iter().flatten().map(|o| o.score.failures.len()).sum());
                ScoringFigures {
                    evaluator: name.clone(),
                    n: scores.iter().zip(&gold).filter(|(s, g)| s.is_some() && g.is_some()).count(),
                    unreadable,
                    pearson: crate::stats::pearson(&gold, &scores).value,
                }
            })
            .collect()
    }

    /// One workspace file per evaluator: its Pearson joins Table 1, and its answers are the
    /// assessments JDEval-i and BSMEval can meta-evaluate.
    pub fn files(&self) -> Vec<MetaFile> {
        self.figures()
            .into_iter()
            .enumerate()
            .map(|(e, f)| {
                let row = EvaluatorRow {
                    name: f.evaluator.clone(),
                    kind: "pointwise",
                    n: f.n,
                    accuracy: None,
                    accuracy_no_ties: None,
                    pearson: f.pearson,
                    n_no_ties: 0,
                };
                let mut file = run_file(
                    format!("scoring run · {}", f.evaluator),
                    FileKind::Pointwise,
                    format!("{} texts", self.texts.len()),
                    Content::Evaluator(row),
                );
                file.individual = self
                    .texts
                    .iter()
                    .zip(self.outcomes.get(e).into_iter().flatten())
                    .filter_map(|(t, o)| {
                        Some(IndividualInput {
                            evaluator: f.evaluator.clone(),
                            text: t.text.clone(),
                            gold: t.gold,
                            assessment: o.as_ref()?.responses.first()?.clone(),
                        })
                    })
                    .collect();
                file
            })
            .collect()
    }
}

/// Seed 003's pairwise protocol (Table 7 prompt, optional position swap) for every pair and
/// evaluator: `[evaluator][pair]`.
pub fn pairwise_protocols(
    pairs: &[PairInput],
    evaluators: &[String],
    swap: bool,
) -> Result<Vec<Vec<Pairwise>>, RenderError> {
    let template = Pairwise::default_template();
    let sampling = Sampling::single();
    evaluators
        .iter()
        .map(|e| {
            pairs
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    Pairwise::new(
                        &format!("meta/pairwise/{e}/{i}"),
                        &template,
                        &p.question,
                        &p.answer_a,
                        &p.answer_b,
                        swap,
                        &sampling,
                    )
                })
                .collect()
        })
        .collect()
}

/// A finished pairwise run: the pairs, the evaluators and each one's outcome per pair
/// (`None` where the run stopped before the answers came).
#[derive(Debug, Clone, PartialEq)]
pub struct PairwiseRun {
    pub pairs: Vec<PairInput>,
    pub evaluators: Vec<String>,
    pub swap: bool,
    /// `[evaluator][pair]`.
    pub outcomes: Vec<Vec<Option<PairwiseOutcome>>>,
}

/// One evaluator's figures in a pairwise run.
#[derive(Debug, Clone, PartialEq)]
pub struct PairwiseFigures {
    pub evaluator: String,
    /// The verdicts with the answers in the given order, against the labels.
    pub accuracy: PairwiseAccuracy,
    /// With swap: both orders compared (the core's `position_consistency`).
    pub position: Option<PositionConsistency>,
    /// With swap: the order probe of STATS_SPEC §15.2 (flip rate, and how often the answer
    /// shown first wins), with Wilson intervals.
    pub order: Option<crate::stats::OrderProbe>,
}

/// The order probe of both orders' verdicts, each in the positions the judge saw (`First` is
/// the answer shown first: §15.2's `A`).
fn order_probe(
    original: &[Option<Verdict>],
    swapped: &[Option<Verdict>],
) -> Option<crate::stats::OrderProbe> {
    use crate::stats::Label;
    let label = |v: &Option<Verdict>| {
        v.map(|v| match v {
            Verdict::First => Label::A,
            Verdict::Second => Label::B,
            Verdict::Tie => Label::Tie,
        })
    };
    let forward: Vec<Option<Label>> = original.iter().map(label).collect();
    let backward: Vec<Option<Label>> = swapped.iter().map(label).collect();
    crate::stats::flip_rate(&forward, &backward, super::settings::RATE_CONFIDENCE).ok()
}

impl PairwiseRun {
    fn labels(&self) -> Vec<Option<PairLabel>> {
        self.pairs.iter().map(|p| p.label).collect()
    }

    /// Evaluator `e`'s verdicts with the answers in the given order, per pair.
    fn original_verdicts(&self, e: usize) -> Vec<Option<Verdict>> {
        self.outcomes
            .get(e)
            .into_iter()
            .flatten()
            .map(|o| o.as_ref().and_then(|o| o.original.as_ref().ok().copied()))
            .collect()
    }

    /// Per evaluator: accuracy (ties a class of their own, and gold ties excluded) of the
    /// verdicts in the given order, and with swap the consistency and position bias between
    /// the two orders.
    pub fn figures(&self) -> Vec<PairwiseFigures> {
        let labels = self.labels();
        self.evaluators
            .iter()
            .zip(&self.outcomes)
            .enumerate()
            .map(|(i, (e, outcomes))| {
                let original = self.original_verdicts(i);
                // The outcome keeps the swapped verdict in the original orientation; the
                // consistency wants it in the positions the judge saw.
                let swapped: Vec<Option<Verdict>> = outcomes
                    .iter()
                    .map(|o| {
                        o.as_ref()
                            .and_then(|o| o.swapped.as_ref())
                            .and_then(|s| s.as_ref().ok())
                            .map(|v| v.swapped())
                    })
                    .collect();
                PairwiseFigures {
                    evaluator: e.clone(),
                    accuracy: meta::verdict_accuracy(e, &original, &labels),
                    position: if self.swap {
                        meta::position_consistency(&original, &swapped).ok()
                    } else {
                        None
                    },
                    order: if self.swap { order_probe(&original, &swapped) } else { None },
                }
            })
            .collect()
    }

    /// One workspace file per evaluator (Table 1's accuracy columns, ranking agreement).
    pub fn files(&self) -> Vec<MetaFile> {
        self.figures()
            .into_iter()
            .enumerate()
            .map(|(e, f)| {
                let row = EvaluatorRow {
                    name: f.evaluator.clone(),
                    kind: "pairwise",
                    n: f.accuracy.n,
                    accuracy: f.accuracy.accuracy,
                    accuracy_no_ties: f.accuracy.accuracy_no_ties,
                    pearson: None,
                    n_no_ties: f.accuracy.n_no_ties,
                };
                let mut file = run_file(
                    format!("pairwise run · {}", f.evaluator),
                    FileKind::Pairwise,
                    format!("{} pairs", self.pairs.len()),
                    Content::Evaluator(row),
                );
                file.judged = judged_pairs(&self.pairs, &self.original_verdicts(e));
                file
            })
            .collect()
    }

    /// The evaluators' assessments (the verdict responses in the given order) of pair `p`.
    fn assessment(&self, evaluator: usize, pair: usize) -> Option<&str> {
        let o = self.outcomes.get(evaluator)?.get(pair)?.as_ref()?;
        o.responses.first().map(String::as_str)
    }
}

fn run_file(name: String, kind: FileKind, counts: String, content: Content) -> MetaFile {
    let mut file = MetaFile::empty(&name, LIVE_FORMAT, kind);
    file.counts = counts;
    file.content = content;
    file
}

/// Which meta-evaluation protocol a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaMethod {
    JdEval,
    MdEval,
    JdEvalI,
    BsmEval,
}

impl MetaMethod {
    pub const ALL: [MetaMethod; 4] =
        [MetaMethod::JdEval, MetaMethod::MdEval, MetaMethod::JdEvalI, MetaMethod::BsmEval];

    pub fn id(self) -> &'static str {
        match self {
            MetaMethod::JdEval => "jdeval",
            MetaMethod::MdEval => "mdeval",
            MetaMethod::JdEvalI => "jdeval-i",
            MetaMethod::BsmEval => "bsmeval",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            MetaMethod::JdEval => "JDEval (pairwise: judge directly)",
            MetaMethod::MdEval => "MDEval (pairwise: multi-round debate)",
            MetaMethod::JdEvalI => "JDEval-i (individual: score an assessment)",
            MetaMethod::BsmEval => "BSMEval (individual: branch, solve, merge)",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            MetaMethod::JdEval => "JDEval",
            MetaMethod::MdEval => "MDEval",
            MetaMethod::JdEvalI => "JDEval-i",
            MetaMethod::BsmEval => "BSMEval",
        }
    }

    /// The method with this id; JDEval for an unknown one.
    pub fn from_id(id: &str) -> MetaMethod {
        MetaMethod::ALL.into_iter().find(|m| m.id() == id).unwrap_or(MetaMethod::JdEval)
    }

    /// Whether it meta-evaluates pairs of evaluators' judgements (else single assessments).
    pub fn is_pairwise(self) -> bool {
        matches!(self, MetaMethod::JdEval | MetaMethod::MdEval)
    }
}

/// One JDEval / MDEval job: a pair, its gold label, and the two evaluators whose assessments
/// are compared. Self-contained, so a restored run needs nothing but its spec.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoupleJob {
    /// The pair's index in the pairwise run.
    pub pair: usize,
    pub evaluator_1: String,
    pub evaluator_2: String,
    pub label: Option<PairLabel>,
    pub assessed: AssessedPair,
}

/// Every (pair, couple of evaluators) of a pairwise run where both evaluators answered: the
/// pairwise paradigm's matches.
pub fn couple_jobs(run: &PairwiseRun) -> Vec<CoupleJob> {
    let mut out = Vec::new();
    for (p, pair) in run.pairs.iter().enumerate() {
        for i in 0..run.evaluators.len() {
            for j in i + 1..run.evaluators.len() {
                let (Some(a1), Some(a2)) = (run.assessment(i, p), run.assessment(j, p)) else {
                    continue;
                };
                out.push(CoupleJob {
                    pair: p,
                    evaluator_1: run.evaluators[i].clone(),
                    evaluator_2: run.evaluators[j].clone(),
                    label: pair.label,
                    assessed: AssessedPair {
                        question: pair.question.clone(),
                        answer_a: pair.answer_a.clone(),
                        answer_b: pair.answer_b.clone(),
                        assessment_1: a1.to_owned(),
                        assessment_2: a2.to_owned(),
                    },
                });
            }
        }
    }
    out
}

/// JDEval protocols for the jobs.
pub fn jdeval_protocols(jobs: &[CoupleJob]) -> Result<Vec<JdEval>, RenderError> {
    let sampling = Sampling::single();
    jobs.iter()
        .enumerate()
        .map(|(k, j)| JdEval::new(&format!("meta/jdeval/{k}"), &j.assessed, &sampling))
        .collect()
}

/// MDEval protocols for the jobs, at most `rounds` question rounds each.
pub fn mdeval_protocols(jobs: &[CoupleJob], rounds: usize) -> Result<Vec<MdEval>, RenderError> {
    jobs.iter()
        .enumerate()
        .map(|(k, j)| {
            MdEval::new(&format!("meta/mdeval/{k}"), j.assessed.clone(), Sampling::single())
                .map(|m| m.with_max_rounds(rounds))
        })
        .collect()
}

/// JDEval-i protocols, one per input.
pub fn jdeval_i_protocols(
    inputs: &[IndividualInput],
    task: IndividualTask,
) -> Result<Vec<JdEvalI>, RenderError> {
    let sampling = Sampling::single();
    inputs
        .iter()
        .enumerate()
        .map(|(k, i)| {
            JdEvalI::new(
                &format!("meta/jdeval-i/{k}"),
                task,
                &i.text,
                &i.assessment,
                Policy::Concord,
                &sampling,
            )
        })
        .collect()
}

/// BSMEval protocols, one per input.
pub fn bsmeval_protocols(inputs: &[IndividualInput]) -> Vec<BsmEval> {
    inputs
        .iter()
        .enumerate()
        .map(|(k, i)| {
            BsmEval::new(
                &format!("meta/bsmeval/{k}"),
                &i.text,
                &i.assessment,
                Policy::Concord,
                Sampling::single(),
            )
        })
        .collect()
}

/// The workspace file of a JDEval run: its judgements as matches (Elo, heatmap, post
/// accuracy) and one debate-viewer record per judgement. `outcomes[k]` belongs to `jobs[k]`.
pub fn jdeval_run_file(
    meta_evaluator: &str,
    jobs: &[CoupleJob],
    outcomes: &[Option<JdEvalOutcome>],
) -> MetaFile {
    let mut records = Vec::new();
    let mut debates = Vec::new();
    for (k, (job, outcome)) in jobs.iter().zip(outcomes).enumerate() {
        let Some(o) = outcome else { continue };
        let (e1, e2) = (job.evaluator_1.clone(), job.evaluator_2.clone());
        let winner = o.better_assistant.as_ref().ok().copied();
        let better_answer = o.better_answer.as_ref().ok().copied();
        debates.push(Debate {
            line: k + 1,
            question: job.assessed.question.clone(),
            answer_1: job.assessed.answer_a.clone(),
            answer_2: job.assessed.answer_b.clone(),
            label: label_text(job.label),
            opening: None,
            rounds: vec![Round {
                judge_question: None,
                debaters: [
                    (e1.clone(), job.assessed.assessment_1.clone()),
                    (e2.clone(), job.assessed.assessment_2.clone()),
                ],
            }],
            decision: o.response.clone(),
            verdict: winner_text(winner, &e1, &e2),
            better_answer: verdict_text(better_answer, "Answer 1", "Answer 2"),
        });
        records.push(JdEvalRecord {
            evaluator_1: e1,
            evaluator_2: e2,
            winner,
            better_answer,
            label: job.label,
            line: k + 1,
        });
    }
    meta_pairwise_file(MetaMethod::JdEval, meta_evaluator, records, debates)
}

/// The workspace file of an MDEval run: as [`jdeval_run_file`], each debate with its opening
/// assessments, the judge's questions and both debaters' answers per round, and the decision.
/// MDEval's judge does not choose between the answers, so post accuracy has nothing to read.
pub fn mdeval_run_file(
    meta_evaluator: &str,
    jobs: &[CoupleJob],
    outcomes: &[Option<MdEvalOutcome>],
) -> MetaFile {
    let mut records = Vec::new();
    let mut debates = Vec::new();
    for (k, (job, outcome)) in jobs.iter().zip(outcomes).enumerate() {
        let Some(o) = outcome else { continue };
        let (e1, e2) = (job.evaluator_1.clone(), job.evaluator_2.clone());
        let winner = o.better_assistant.as_ref().ok().copied();
        let verdict = match &o.better_assistant {
            Ok(_) => winner_text(winner, &e1, &e2),
            Err(e) => format!("draw ({e})"),
        };
        debates.push(Debate {
            line: k + 1,
            question: job.assessed.question.clone(),
            answer_1: job.assessed.answer_a.clone(),
            answer_2: job.assessed.answer_b.clone(),
            label: label_text(job.label),
            opening: Some([
                (e1.clone(), job.assessed.assessment_1.clone()),
                (e2.clone(), job.assessed.assessment_2.clone()),
            ]),
            rounds: o
                .rounds
                .iter()
                .map(|r| Round {
                    judge_question: Some(r.question.clone()),
                    debaters: [(e1.clone(), r.answer_1.clone()), (e2.clone(), r.answer_2.clone())],
                })
                .collect(),
            decision: o.judge_responses.last().cloned().unwrap_or_default(),
            verdict,
            better_answer: "not asked (MDEval)".to_owned(),
        });
        records.push(JdEvalRecord {
            evaluator_1: e1,
            evaluator_2: e2,
            winner,
            better_answer: None,
            label: job.label,
            line: k + 1,
        });
    }
    meta_pairwise_file(MetaMethod::MdEval, meta_evaluator, records, debates)
}

fn meta_pairwise_file(
    method: MetaMethod,
    meta_evaluator: &str,
    records: Vec<JdEvalRecord>,
    debates: Vec<Debate>,
) -> MetaFile {
    let counts = format!("{} judgements", records.len());
    let name = format!("{meta_evaluator} · {}", method.name());
    run_file(
        format!("{} run · {meta_evaluator}", method.name()),
        FileKind::JdEval,
        counts,
        Content::JdEval(Box::new(jdeval_file(name, records, debates))),
    )
}

/// The score a JDEval-i outcome gives the assessment, or a BSMEval outcome's merged score.
enum Scored<'a> {
    JdEvalI(&'a JdEvalIOutcome),
    Bsm(&'a BsmOutcome),
}

/// The workspace files of an individual-paradigm run: per evaluator the mean meta score
/// (Table 5 / 6 cell, empty scores dropped as the paper does) and, for BSMEval, a viewer record
/// per assessment with its sub-tasks and branch scores.
fn individual_files(
    method: MetaMethod,
    meta_evaluator: &str,
    inputs: &[IndividualInput],
    scored: &[Option<Scored<'_>>],
) -> Vec<MetaFile> {
    let mut by_evaluator: BTreeMap<&str, (Vec<f64>, usize, Vec<BranchRecord>)> = BTreeMap::new();
    for (k, (input, s)) in inputs.iter().zip(scored).enumerate() {
        let Some(s) = s else { continue };
        let entry = by_evaluator.entry(input.evaluator.as_str()).or_default();
        let (score, branches) = match s {
            Scored::JdEvalI(o) => (o.assessment_score.as_ref().ok().copied(), Vec::new()),
            Scored::Bsm(o) => (
                o.merged,
                o.branches
                    .iter()
                    .zip(&o.scores)
                    .enumerate()
                    .map(|(i, (b, s))| Branch {
                        subtask: Some(b.clone()),
                        response: match (o.responses.get(i), s) {
                            (Some(text), _) => text.clone(),
                            (None, Err(e)) => format!("unreadable: {e}"),
                            (None, Ok(_)) => String::new(),
                        },
                        score: s.as_ref().ok().copied(),
                    })
                    .collect(),
            ),
        };
        match score {
            Some(x) => entry.0.push(x),
            None => entry.1 += 1,
        }
        entry.2.push(BranchRecord {
            line: k + 1,
            text: input.text.clone(),
            gold: input.gold,
            assessment: input.assessment.clone(),
            branches,
            score,
        });
    }
    let (protocol, kind) = match method {
        MetaMethod::BsmEval => (MetaProtocol::BsmEval, FileKind::BsmEval),
        _ => (MetaProtocol::JdEvalI, FileKind::JdEvalI),
    };
    by_evaluator
        .into_iter()
        .map(|(evaluator, (scores, empty, records))| {
            let score = MetaScore {
                meta_evaluator: meta_evaluator.to_owned(),
                evaluator: evaluator.to_owned(),
                protocol,
                n: scores.len(),
                mean: mean_in_order(&scores),
                empty,
            };
            run_file(
                format!("{} run · {meta_evaluator} on {evaluator}", method.name()),
                kind,
                format!("{} assessments", scores.len() + empty),
                Content::MetaScore { score, records },
            )
        })
        .collect()
}

/// The workspace files of a JDEval-i run (`outcomes[k]` belongs to `inputs[k]`).
pub fn jdeval_i_run_files(
    meta_evaluator: &str,
    inputs: &[IndividualInput],
    outcomes: &[Option<JdEvalIOutcome>],
) -> Vec<MetaFile> {
    let scored: Vec<Option<Scored<'_>>> =
        outcomes.iter().map(|o| o.as_ref().map(Scored::JdEvalI)).collect();
    individual_files(MetaMethod::JdEvalI, meta_evaluator, inputs, &scored)
}

/// The workspace files of a BSMEval run (`outcomes[k]` belongs to `inputs[k]`).
pub fn bsmeval_run_files(
    meta_evaluator: &str,
    inputs: &[IndividualInput],
    outcomes: &[Option<BsmOutcome>],
) -> Vec<MetaFile> {
    let scored: Vec<Option<Scored<'_>>> =
        outcomes.iter().map(|o| o.as_ref().map(Scored::Bsm)).collect();
    individual_files(MetaMethod::BsmEval, meta_evaluator, inputs, &scored)
}

// ---------------------------------------------------------------------------------------------
// A run as a value: its spec and raw answers.

/// Per evaluator, its protocols.
fn by_model<P>(evaluators: &[String], protocols: Vec<Vec<P>>) -> Vec<(String, Vec<P>)> {
    evaluators.iter().cloned().zip(protocols).collect()
}

/// What a live run judges and how: everything but the answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "protocol")]
pub enum RunSpec {
    /// Pairwise judging (Table 7 prompt) of `pairs` by each evaluator model.
    #[serde(rename = "pairwise")]
    Pairwise { evaluators: Vec<String>, swap: bool, pairs: Vec<PairInput> },
    /// Individual scoring (Table 8 prompt) of `texts` by each evaluator model.
    #[serde(rename = "scoring")]
    Scoring { evaluators: Vec<String>, openmeva: bool, texts: Vec<ScoredText> },
    #[serde(rename = "jdeval")]
    JdEval { meta_evaluator: String, jobs: Vec<CoupleJob> },
    #[serde(rename = "mdeval")]
    MdEval { meta_evaluator: String, rounds: usize, jobs: Vec<CoupleJob> },
    #[serde(rename = "jdeval_i")]
    JdEvalI { meta_evaluator: String, task: IndividualTask, inputs: Vec<IndividualInput> },
    #[serde(rename = "bsmeval")]
    BsmEval { meta_evaluator: String, inputs: Vec<IndividualInput> },
}

/// A run's protocols, ready to drive: per model, the protocols it answers (pairwise judging
/// and scoring: one group per evaluator; meta-evaluation: one group, the meta-evaluator's).
#[derive(Debug, Clone)]
pub enum Protocols {
    Pairwise(Vec<(String, Vec<Pairwise>)>),
    Scoring(Vec<(String, Vec<Pointwise>)>),
    JdEval(Vec<(String, Vec<JdEval>)>),
    MdEval(Vec<(String, Vec<MdEval>)>),
    JdEvalI(Vec<(String, Vec<JdEvalI>)>),
    BsmEval(Vec<(String, Vec<BsmEval>)>),
}

impl RunSpec {
    /// The protocols that ask what this run asks.
    pub fn protocols(&self) -> Result<Protocols, RenderError> {
        Ok(match self {
            RunSpec::Pairwise { evaluators, swap, pairs } => Protocols::Pairwise(by_model(
                evaluators,
                pairwise_protocols(pairs, evaluators, *swap)?,
            )),
            RunSpec::Scoring { evaluators, openmeva, texts } => Protocols::Scoring(by_model(
                evaluators,
                scoring_protocols(texts, evaluators, *openmeva)?,
            )),
            RunSpec::JdEval { meta_evaluator, jobs } => {
                Protocols::JdEval(vec![(meta_evaluator.clone(), jdeval_protocols(jobs)?)])
            }
            RunSpec::MdEval { meta_evaluator, rounds, jobs } => {
                Protocols::MdEval(vec![(meta_evaluator.clone(), mdeval_protocols(jobs, *rounds)?)])
            }
            RunSpec::JdEvalI { meta_evaluator, task, inputs } => Protocols::JdEvalI(vec![(
                meta_evaluator.clone(),
                jdeval_i_protocols(inputs, *task)?,
            )]),
            RunSpec::BsmEval { meta_evaluator, inputs } => {
                Protocols::BsmEval(vec![(meta_evaluator.clone(), bsmeval_protocols(inputs))])
            }
        })
    }

    /// The protocol's name, as the screen says it (`Pairwise judging`, `JDEval`, …).
    pub fn name(&self) -> &'static str {
        match self {
            RunSpec::Pairwise { .. } => "Pairwise judging",
            RunSpec::Scoring { .. } => "Individual scoring",
            RunSpec::JdEval { .. } => MetaMethod::JdEval.name(),
            RunSpec::MdEval { .. } => MetaMethod::MdEval.name(),
            RunSpec::JdEvalI { .. } => MetaMethod::JdEvalI.name(),
            RunSpec::BsmEval { .. } => MetaMethod::BsmEval.name(),
        }
    }

    /// What the run covers: `7 pairs`, `5 texts`, `7 judgements`, `7 debates`, `5 assessments`.
    pub fn size(&self) -> String {
        match self {
            RunSpec::Pairwise { pairs, .. } => format!("{} pairs", pairs.len()),
            RunSpec::Scoring { texts, .. } => format!("{} texts", texts.len()),
            RunSpec::JdEval { jobs, .. } => format!("{} judgements", jobs.len()),
            RunSpec::MdEval { jobs, .. } => format!("{} debates", jobs.len()),
            RunSpec::JdEvalI { inputs, .. } | RunSpec::BsmEval { inputs, .. } => {
                format!("{} assessments", inputs.len())
            }
        }
    }
}

/// A live run: what it asked and every answer it got, by request tag. No key, no address:
/// replaying the answers rebuilds every table, figure and viewer record the run made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LiveRun {
    pub spec: RunSpec,
    pub answers: BTreeMap<String, String>,
}

/// What replaying a run gives: its workspace files, and the run itself for the pairwise and
/// individual-scoring run tables (and the JDEval / MDEval jobs of a pairwise run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Replayed {
    pub files: Vec<MetaFile>,
    pub pairwise: Option<PairwiseRun>,
    pub scoring: Option<ScoringRun>,
}

/// Feeds `answers` to the protocols' pending requests until none is answered any more (a
/// multi-step protocol asks its next step only once the last is answered).
pub fn replay_into<P: Protocol>(protocols: &mut [P], answers: &BTreeMap<String, String>) {
    // MDEval needs 1 + 2 × 5 steps at most; the bound only guards against a protocol bug.
    for _ in 0..32 {
        let mut answered = false;
        for p in protocols.iter_mut() {
            for request in p.pending() {
                if let Some(text) = answers.get(&request.tag)
                    && p.respond(&request.tag, &[ChatResponse::text(text.clone())]).is_ok()
                {
                    answered = true;
                }
            }
        }
        if !answered {
            return;
        }
    }
}

fn outcomes<P: Protocol>(
    groups: &mut [(String, Vec<P>)],
    answers: &BTreeMap<String, String>,
) -> Vec<Vec<Option<P::Outcome>>> {
    groups
        .iter_mut()
        .map(|(_, ps)| {
            replay_into(ps, answers);
            ps.iter().map(|p| p.outcome()).collect()
        })
        .collect()
}

/// The outcomes of the one group of a meta-evaluation run.
fn single<T>(mut groups: Vec<Vec<Option<T>>>) -> Vec<Option<T>> {
    if groups.is_empty() { Vec::new() } else { groups.swap_remove(0) }
}

impl LiveRun {
    /// Rebuilds the run's outcomes from its answers.
    pub fn replay(&self) -> Result<Replayed, RenderError> {
        let a = &self.answers;
        Ok(match (&self.spec, self.spec.protocols()?) {
            (RunSpec::Pairwise { evaluators, swap, pairs }, Protocols::Pairwise(mut ps)) => {
                let run = PairwiseRun {
                    pairs: pairs.clone(),
                    evaluators: evaluators.clone(),
                    swap: *swap,
                    outcomes: outcomes(&mut ps, a),
                };
                Replayed { files: run.files(), pairwise: Some(run), scoring: None }
            }
            (RunSpec::Scoring { evaluators, openmeva, texts }, Protocols::Scoring(mut ps)) => {
                let run = ScoringRun {
                    texts: texts.clone(),
                    evaluators: evaluators.clone(),
                    openmeva: *openmeva,
                    outcomes: outcomes(&mut ps, a),
                };
                Replayed { files: run.files(), pairwise: None, scoring: Some(run) }
            }
            (RunSpec::JdEval { meta_evaluator, jobs }, Protocols::JdEval(mut ps)) => {
                let o = single(outcomes(&mut ps, a));
                Replayed {
                    files: vec![jdeval_run_file(meta_evaluator, jobs, &o)],
                    ..Replayed::default()
                }
            }
            (RunSpec::MdEval { meta_evaluator, jobs, .. }, Protocols::MdEval(mut ps)) => {
                let o = single(outcomes(&mut ps, a));
                Replayed {
                    files: vec![mdeval_run_file(meta_evaluator, jobs, &o)],
                    ..Replayed::default()
                }
            }
            (RunSpec::JdEvalI { meta_evaluator, inputs, .. }, Protocols::JdEvalI(mut ps)) => {
                let o = single(outcomes(&mut ps, a));
                Replayed {
                    files: jdeval_i_run_files(meta_evaluator, inputs, &o),
                    ..Replayed::default()
                }
            }
            (RunSpec::BsmEval { meta_evaluator, inputs }, Protocols::BsmEval(mut ps)) => {
                let o = single(outcomes(&mut ps, a));
                Replayed {
                    files: bsmeval_run_files(meta_evaluator, inputs, &o),
                    ..Replayed::default()
                }
            }
            // `protocols` builds the variant of the spec it is given.
            _ => Replayed::default(),
        })
    }
}

#[cfg(test)]
mod tests;
