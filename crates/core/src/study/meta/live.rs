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
use crate::run::ProviderId;

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
}

impl PairwiseRun {
    fn labels(&self) -> Vec<Option<PairLabel>> {
        self.pairs.iter().map(|p| p.label).collect()
    }

    /// Per evaluator: accuracy (ties a class of their own, and gold ties excluded) of the
    /// verdicts in the given order, and with swap the consistency and position bias between
    /// the two orders.
    pub fn figures(&self) -> Vec<PairwiseFigures> {
        let labels = self.labels();
        self.evaluators
            .iter()
            .zip(&self.outcomes)
            .map(|(e, outcomes)| {
                let original: Vec<Option<Verdict>> = outcomes
                    .iter()
                    .map(|o| o.as_ref().and_then(|o| o.original.as_ref().ok().copied()))
                    .collect();
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
                }
            })
            .collect()
    }

    /// One workspace file per evaluator (Table 1's accuracy columns, ranking agreement).
    pub fn files(&self) -> Vec<MetaFile> {
        self.figures()
            .into_iter()
            .map(|f| {
                let row = EvaluatorRow {
                    name: f.evaluator.clone(),
                    kind: "pairwise",
                    n: f.accuracy.n,
                    accuracy: f.accuracy.accuracy,
                    accuracy_no_ties: f.accuracy.accuracy_no_ties,
                    pearson: None,
                };
                run_file(
                    format!("pairwise run · {}", f.evaluator),
                    FileKind::Pairwise,
                    format!("{} pairs", self.pairs.len()),
                    Content::Evaluator(row),
                )
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

// ---------------------------------------------------------------------------------------------
// Naming the models a run calls.

/// Model names from a comma- or line-separated list, trimmed, empty ones and repeats dropped.
pub fn model_list(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in text.split([',', '\n']).map(str::trim).filter(|m| !m.is_empty()) {
        if !out.iter().any(|o| o == m) {
            out.push(m.to_owned());
        }
    }
    out
}

/// Where an evaluator entry's model is served. An entry is `model` (the Run screen's
/// connection), `model @ provider` (that provider's preset base URL, e.g. `gpt-4o @ openai`,
/// `claude-3-5-haiku-latest @ anthropic`), `model @ URL` (an OpenAI-compatible server, e.g.
/// `qwen2-7b @ http://127.0.0.1:8000/v1`) or `model @ provider URL` (that provider's API at
/// another address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatorTarget {
    pub model: String,
    pub provider: Option<ProviderId>,
    pub base_url: Option<String>,
}

impl EvaluatorTarget {
    /// The provider whose key the calls need, given the Run screen's provider.
    pub fn provider_or(&self, run_screen: ProviderId) -> ProviderId {
        match (self.provider, &self.base_url) {
            (Some(p), _) => p,
            (None, Some(_)) => ProviderId::Custom,
            (None, None) => run_screen,
        }
    }

    /// Whether the calls go to the Run screen's connection (and use its key).
    pub fn is_run_screen(&self) -> bool {
        self.provider.is_none() && self.base_url.is_none()
    }

    /// Whether the Run screen's key may be sent with these calls: only to the Run screen's own
    /// provider at the Run screen's own address. A key is never sent to an address the user
    /// typed for another entry; such an entry needs a key of its own.
    pub fn may_use_run_screen_key(&self, run_screen: ProviderId, run_screen_url: &str) -> bool {
        let same = |u: &str| u.trim_end_matches('/') == run_screen_url.trim_end_matches('/');
        self.provider_or(run_screen) == run_screen && self.base_url.as_deref().is_none_or(same)
    }
}

/// Why an evaluator entry names no model and place the page can call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    #[error("`{entry}`: name the model before the @")]
    NoModel { entry: String },
    #[error("`{entry}`: no provider `{word}`; use one of {known} or a base URL")]
    UnknownProvider { entry: String, word: String, known: String },
    #[error(
        "`{entry}`: after the @ write a provider (`openai`), a base URL, or both (`anthropic https://…`)"
    )]
    Shape { entry: String },
}

/// Reads an evaluator entry (see [`EvaluatorTarget`]); says what is wrong with one it cannot.
pub fn evaluator_target(entry: &str) -> Result<EvaluatorTarget, TargetError> {
    let Some((model, at)) = entry.split_once(" @ ").or_else(|| {
        entry.split_once('@').filter(|(_, at)| {
            let at = at.trim_start();
            at.starts_with("http://")
                || at.starts_with("https://")
                || ProviderId::from_slug(at.split_whitespace().next().unwrap_or("")).is_some()
        })
    }) else {
        return Ok(EvaluatorTarget {
            model: entry.trim().to_owned(),
            provider: None,
            base_url: None,
        });
    };
    let model = model.trim();
    if model.is_empty() {
        return Err(TargetError::NoModel { entry: entry.to_owned() });
    }
    let words: Vec<&str> = at.split_whitespace().collect();
    let url = |w: &str| w.starts_with("http://") || w.starts_with("https://");
    let provider = |w: &str| {
        ProviderId::from_slug(w).ok_or_else(|| {
            let known: Vec<&str> = crate::run::PRESETS.iter().map(|p| p.slug).collect();
            TargetError::UnknownProvider {
                entry: entry.to_owned(),
                word: w.to_owned(),
                known: known.join(", "),
            }
        })
    };
    let (provider, base_url) = match words.as_slice() {
        [w] if url(w) => (None, Some(w.trim_end_matches('/').to_owned())),
        [w] => (Some(provider(w)?), None),
        [p, w] if url(w) => (Some(provider(p)?), Some(w.trim_end_matches('/').to_owned())),
        _ => return Err(TargetError::Shape { entry: entry.to_owned() }),
    };
    Ok(EvaluatorTarget { model: model.to_owned(), provider, base_url })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

    use super::*;
    use crate::study::meta::tables;

    pub(crate) fn pair(i: usize, label: PairLabel) -> PairInput {
        PairInput {
            id: i.to_string(),
            question: format!("Q{i}?"),
            answer_a: format!("A{i}"),
            answer_b: format!("B{i}"),
            label: Some(label),
        }
    }

    /// Answers every pending request of `p` with `reply(prompt of the last message)`.
    fn drive<P: Protocol>(p: &mut P, reply: &dyn Fn(&str) -> String) {
        for _ in 0..20 {
            let pending = p.pending();
            if pending.is_empty() {
                return;
            }
            for r in pending {
                let text = reply(&r.messages.last().unwrap().content);
                p.respond(&r.tag, &[ChatResponse::text(text)]).unwrap();
            }
        }
    }

    #[test]
    fn scoring_run_pearson_with_the_human_scores_and_assessments_for_meta_evaluation() {
        let texts: Vec<ScoredText> = (1..=5)
            .map(|i| ScoredText { text: format!("Story number {i}."), gold: Some(f64::from(i)) })
            .collect();
        let evaluators = vec!["tracks".to_owned(), "flat".to_owned()];
        let mut protocols = scoring_protocols(&texts, &evaluators, true).unwrap();
        // The OpenMEVA prompt of Table 8, with the text in it.
        let first = &protocols[0][0].pending()[0].messages[0].content;
        assert!(first.starts_with("Please act as an impartial judge and evaluate the overall quality of the five-line story."));
        assert!(first.contains("Here is the story: Story number 1. Please output"));
        let tracks = |prompt: &str| {
            let i = ["number 1.", "number 2.", "number 3.", "number 4.", "number 5."]
                .iter()
                .position(|t| prompt.contains(t))
                .unwrap();
            [
                "<Rating> 2 </Rating>",
                "<Rating>2</Rating>",
                "<Rating> 3 </Rating>",
                "<Explanation>fine</Explanation> <Rating> 5 </Rating>",
                "no tag at all",
            ][i]
                .to_owned()
        };
        for p in &mut protocols[0] {
            drive(p, &tracks);
        }
        for p in &mut protocols[1] {
            drive(p, &|_| "<Rating> 3 </Rating>".to_owned());
        }
        let outcomes =
            protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect();
        let run = ScoringRun { texts, evaluators, openmeva: true, outcomes };
        let f = run.figures();
        // (1, 2, 3, 4) against (2, 2, 3, 5): r = 5 / sqrt(5 · 6), by hand.
        assert_eq!((f[0].n, f[0].unreadable), (4, 1));
        assert!((f[0].pearson.unwrap() - 5.0 / 30f64.sqrt()).abs() < 1e-12);
        assert_eq!(
            (f[1].n, f[1].unreadable, f[1].pearson),
            (5, 0, None),
            "constant scores: undefined"
        );
        let files = run.files();
        assert_eq!(files.len(), 2);
        match &files[0].content {
            Content::Evaluator(row) => {
                assert_eq!((row.kind, row.n), ("pointwise", 4));
                assert_eq!(row.pearson, f[0].pearson);
            }
            other => panic!("{other:?}"),
        }
        // Every answered text is an assessment JDEval-i / BSMEval can score, unreadable or not.
        assert_eq!(files[0].individual.len(), 5);
        assert_eq!(
            files[0].individual[3].assessment,
            "<Explanation>fine</Explanation> <Rating> 5 </Rating>"
        );
        assert_eq!(files[0].individual[3].gold, Some(4.0));
        let table = tables::scoring_run_table(&run);
        let headings: Vec<&str> = table.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(headings, ["n", "Pearson r", "Unreadable"]);
        assert_eq!(table.rows[0].cells[1].text, "0.9129");
        assert_eq!(table.keyed("flat/pearson").unwrap().value, None);
    }

    #[test]
    fn pairwise_run_figures_and_files() {
        let pairs = vec![
            pair(0, PairLabel::A),
            pair(1, PairLabel::B),
            pair(2, PairLabel::Tie),
            pair(3, PairLabel::A),
        ];
        let evaluators = vec!["good".to_owned(), "first".to_owned()];
        let mut protocols = pairwise_protocols(&pairs, &evaluators, true).unwrap();
        // "good" names the gold answer in both orders (a tie for the tie); "first" always
        // names whatever is shown first.
        let gold = |prompt: &str| -> &'static str {
            let shown_first_is_a = prompt.find("1:\nA").is_some();
            let i: usize = prompt[prompt.find("### Question:\nQ").unwrap() + 15..]
                .chars()
                .next()
                .unwrap()
                .to_digit(10)
                .unwrap() as usize;
            match (pairs[i].label.unwrap(), shown_first_is_a) {
                (PairLabel::Tie, _) => "0",
                (PairLabel::A, true) | (PairLabel::B, false) => "1",
                _ => "2",
            }
        };
        for p in &mut protocols[0] {
            drive(p, &|prompt| format!("<Winner>{}</Winner>", gold(prompt)));
        }
        for p in &mut protocols[1] {
            drive(p, &|_| "<Winner>1</Winner>".to_owned());
        }
        let run = PairwiseRun {
            pairs: pairs.clone(),
            evaluators: evaluators.clone(),
            swap: true,
            outcomes: protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect(),
        };
        let f = run.figures();
        assert_eq!(f[0].accuracy.accuracy, Some(1.0));
        let pos = f[0].position.as_ref().unwrap();
        assert_eq!((pos.consistency, pos.position_bias), (Some(1.0), Some(0.0)));
        // "first": right on pairs 0 and 3 (gold A) of 4; of the 3 non-tie golds, 2.
        assert_eq!(f[1].accuracy.accuracy, Some(0.5));
        assert_eq!(f[1].accuracy.accuracy_no_ties, Some(2.0 / 3.0));
        let pos = f[1].position.as_ref().unwrap();
        assert_eq!(
            (pos.consistency, pos.position_bias, pos.prefers_first),
            (Some(0.0), Some(1.0), 4)
        );
        let table = tables::pairwise_run_table(&run);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[1].cells[1].text, "0.5000");
        assert_eq!(table.keyed("first/position_bias").unwrap().value, Some(1.0));
        assert_eq!(run.files().len(), 2);

        // JDEval over the one couple per pair: the judge prefers Assistant1 ("good").
        let jobs = couple_jobs(&run);
        assert_eq!(jobs.len(), 4);
        assert!(jobs[0].assessed.assessment_1.contains("<Winner>1</Winner>"));
        assert_eq!((jobs[2].evaluator_1.as_str(), jobs[2].label), ("good", Some(PairLabel::Tie)));
        let mut jd = jdeval_protocols(&jobs).unwrap();
        for p in &mut jd {
            drive(p, &|_| {
                "<Better_answer>AnswerA</Better_answer><Better_assistant>Assistant1</Better_assistant>"
                    .to_owned()
            });
        }
        let outcomes: Vec<_> = jd.iter().map(|p| p.outcome()).collect();
        let file = jdeval_run_file("meta-judge", &jobs, &outcomes);
        let Content::JdEval(j) = &file.content else { panic!("not a JDEval file") };
        assert_eq!(j.meta_evaluator, "meta-judge · JDEval");
        assert_eq!(j.win_rates.wins, vec![0, 4]); // evaluators sorted: first, good
        assert_eq!((j.post.correct, j.post.n), (2, 4)); // AnswerA is right on pairs 0 and 3
        assert_eq!(j.debates.len(), 4);
    }

    #[test]
    fn mdeval_debate_of_three_rounds_becomes_a_debate_record() {
        let pairs = vec![pair(0, PairLabel::A)];
        let run = PairwiseRun {
            pairs,
            evaluators: vec!["x".into(), "y".into()],
            swap: false,
            outcomes: vec![
                vec![Some(PairwiseOutcome {
                    original: Ok(Verdict::First),
                    swapped: None,
                    verdict: Some(Verdict::First),
                    consistent: None,
                    responses: vec!["x says 1".into()],
                })],
                vec![Some(PairwiseOutcome {
                    original: Ok(Verdict::Second),
                    swapped: None,
                    verdict: Some(Verdict::Second),
                    consistent: None,
                    responses: vec!["y says 2".into()],
                })],
            ],
        };
        let jobs = couple_jobs(&run);
        let mut md = mdeval_protocols(&jobs, 3).unwrap();
        drive(&mut md[0], &|prompt| {
            if prompt.contains("You are Assistant") {
                "I am right.".to_owned()
            } else if prompt.contains("Round 3\nJudge") {
                "<Better_assistant>Assistant2</Better_assistant>".to_owned()
            } else {
                "<Question>Why?</Question>".to_owned()
            }
        });
        let outcomes: Vec<_> = md.iter().map(|p| p.outcome()).collect();
        let file = mdeval_run_file("meta-judge", &jobs, &outcomes);
        let Content::JdEval(j) = &file.content else { panic!("not a JDEval file") };
        let d = &j.debates[0];
        assert_eq!(d.rounds.len(), 3);
        assert_eq!(d.rounds[0].judge_question.as_deref(), Some("Why?"));
        assert_eq!(d.verdict, "y");
        assert_eq!(d.opening.as_ref().unwrap()[0].1, "x says 1");
        assert_eq!(j.records[0].winner, Some(Verdict::Second));
    }

    #[test]
    fn individual_runs_give_meta_scores_per_evaluator() {
        let inputs: Vec<IndividualInput> = ["a", "a", "b"]
            .iter()
            .enumerate()
            .map(|(i, e)| IndividualInput {
                evaluator: (*e).to_owned(),
                text: format!("Story {i}."),
                gold: Some(3.0),
                assessment: format!("Rating {i}"),
            })
            .collect();
        let mut jd = jdeval_i_protocols(&inputs, IndividualTask::OpenMeva).unwrap();
        for (i, p) in jd.iter_mut().enumerate() {
            let s = [4, 2, 5][i];
            drive(p, &|_| {
                format!(
                    "<Score_for_story>3</Score_for_story><Score_for_Assistant>{s}</Score_for_Assistant>"
                )
            });
        }
        let outcomes: Vec<_> = jd.iter().map(|p| p.outcome()).collect();
        let files = jdeval_i_run_files("mj", &inputs, &outcomes);
        let means: Vec<(String, Option<f64>)> = files
            .iter()
            .map(|f| match &f.content {
                Content::MetaScore { score, .. } => (score.evaluator.clone(), score.mean),
                _ => panic!("not a meta score"),
            })
            .collect();
        assert_eq!(means, vec![("a".to_owned(), Some(3.0)), ("b".to_owned(), Some(5.0))]);

        let mut bsm = bsmeval_protocols(&inputs[..1]);
        drive(&mut bsm[0], &|prompt| {
            if prompt.contains("sub-tasks") {
                "1. Accuracy\n2. Reasoning".to_owned()
            } else if prompt.contains("Accuracy") {
                "<Score>4</Score>".to_owned()
            } else {
                "<Score>2</Score>".to_owned()
            }
        });
        let outcomes: Vec<_> = bsm.iter().map(|p| p.outcome()).collect();
        let files = bsmeval_run_files("mj", &inputs[..1], &outcomes);
        let Content::MetaScore { score, records } = &files[0].content else { panic!() };
        assert_eq!((score.protocol, score.mean), (MetaProtocol::BsmEval, Some(3.0)));
        let subtasks: Vec<_> = records[0].branches.iter().map(|b| b.subtask.clone()).collect();
        assert_eq!(subtasks, vec![Some("Accuracy".into()), Some("Reasoning".into())]);
        assert_eq!(records[0].branches[1].score, Some(2.0));
    }

    #[test]
    fn a_run_replayed_from_its_answers_equals_the_run_driven() {
        // MDEval, the multi-step protocol: the judge's questions, both debaters, the decision.
        let jobs: Vec<CoupleJob> = (0..2)
            .map(|i| CoupleJob {
                pair: i,
                evaluator_1: "x".into(),
                evaluator_2: "y".into(),
                label: Some(PairLabel::A),
                assessed: AssessedPair {
                    question: format!("Q{i}?"),
                    answer_a: "A".into(),
                    answer_b: "B".into(),
                    assessment_1: "x: 1".into(),
                    assessment_2: "y: 2".into(),
                },
            })
            .collect();
        let spec = RunSpec::MdEval { meta_evaluator: "mj".into(), rounds: 2, jobs: jobs.clone() };
        let Protocols::MdEval(mut groups) = spec.protocols().unwrap() else { panic!() };
        let mut answers = BTreeMap::new();
        for _ in 0..10 {
            for p in &mut groups[0].1 {
                for r in p.pending() {
                    let prompt = &r.messages.last().unwrap().content;
                    let text = if prompt.contains("You are Assistant") {
                        format!("debater answers {}", r.tag)
                    } else if prompt.contains("Round 2\nJudge") {
                        "<Better_assistant>Assistant1</Better_assistant>".to_owned()
                    } else {
                        "<Question>Why?</Question>".to_owned()
                    };
                    answers.insert(r.tag.clone(), text.clone());
                    p.respond(&r.tag, &[ChatResponse::text(text)]).unwrap();
                }
            }
        }
        let outcomes: Vec<_> = groups[0].1.iter().map(|p| p.outcome()).collect();
        assert!(outcomes.iter().all(Option::is_some));
        let driven = mdeval_run_file("mj", &jobs, &outcomes);
        let replayed = LiveRun { spec: spec.clone(), answers: answers.clone() }.replay().unwrap();
        assert_eq!(replayed.files, vec![driven]);
        // Half the answers: the protocols stop where the answers stop, and say so by `None`.
        let first_round: BTreeMap<String, String> =
            answers.into_iter().filter(|(t, _)| t.ends_with("/0")).collect();
        let partial = LiveRun { spec, answers: first_round }.replay().unwrap();
        let Content::JdEval(j) = &partial.files[0].content else { panic!() };
        assert!(j.records.is_empty(), "no debate finished");
    }

    #[test]
    fn evaluator_entries_name_their_provider_and_address() {
        let t = |e: &str| evaluator_target(e).unwrap();
        assert!(t("gpt-4o-mini").is_run_screen());
        assert_eq!(t("llama3:8b").model, "llama3:8b", "a colon is part of a model name");
        assert_eq!(t("Qwen/Qwen2-7B-Instruct").model, "Qwen/Qwen2-7B-Instruct");
        let a = t("claude-3-5-haiku-latest @ anthropic");
        assert_eq!(
            (a.model.as_str(), a.provider, a.base_url),
            ("claude-3-5-haiku-latest", Some(ProviderId::Anthropic), None)
        );
        let u = t("qwen2-7b @ http://127.0.0.1:8000/v1/");
        assert_eq!((u.provider, u.base_url.as_deref()), (None, Some("http://127.0.0.1:8000/v1")));
        assert_eq!(u.provider_or(ProviderId::OpenAi), ProviderId::Custom);
        let both = t("m @ anthropic http://127.0.0.1:9/v1");
        assert_eq!(
            (both.provider, both.base_url.as_deref()),
            (Some(ProviderId::Anthropic), Some("http://127.0.0.1:9/v1"))
        );
        assert_eq!(t("gpt-4o@openai").provider, Some(ProviderId::OpenAi));
        assert!(
            t("user@example").is_run_screen(),
            "an @ not followed by a provider or URL is part of the name"
        );
        let err = |e: &str| evaluator_target(e).unwrap_err();
        assert!(err("m @ nowhere").to_string().contains("no provider `nowhere`"));
        assert!(matches!(err("m @ nowhere"), TargetError::UnknownProvider { .. }));
        assert_eq!(err(" @ openai").to_string(), "` @ openai`: name the model before the @");
        assert!(matches!(err("m @ openai x y"), TargetError::Shape { .. }));
        // The Run screen's key goes to the Run screen's provider at its address, nowhere else.
        let run_url = "https://api.openai.com/v1";
        assert!(t("gpt-4o").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        assert!(t("gpt-4o @ openai").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        assert!(
            t("gpt-4o @ openai https://api.openai.com/v1/")
                .may_use_run_screen_key(ProviderId::OpenAi, run_url)
        );
        assert!(
            !t("gpt-4o @ openai https://elsewhere.example/v1")
                .may_use_run_screen_key(ProviderId::OpenAi, run_url)
        );
        assert!(!t("m @ anthropic").may_use_run_screen_key(ProviderId::OpenAi, run_url));
        let custom = "http://127.0.0.1:8000/v1";
        assert!(
            t("m @ http://127.0.0.1:8000/v1").may_use_run_screen_key(ProviderId::Custom, custom)
        );
        assert!(!t("m @ http://127.0.0.1:9/v1").may_use_run_screen_key(ProviderId::Custom, custom));
    }

    #[test]
    fn model_lists() {
        assert_eq!(model_list(" a, b\nc,,a "), vec!["a", "b", "c"]);
        assert!(model_list(" , ").is_empty());
    }
}
