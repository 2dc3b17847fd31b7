//! What the meta-evaluation viewers show of one judgement: a JDEval or MDEval debate
//! ([`Debate`]) and a BSMEval record with its branches ([`BranchRecord`]), read from a released
//! file's records here and from a live run's outcomes in [`super::live`].
//!
//! The debate layout: a released JDEval record is one round (the two evaluators' assessments)
//! and a decision (the meta response); a live MDEval debate has the opening assessments and then
//! one round per question of the judge.

use std::collections::HashMap;

use crate::data::{self, Loaded, PairLabel, RecordKey};
use crate::judge::parse::Verdict;
use crate::meta::JdEvalRecord;

/// One round of a debate: what the judge asked (none in JDEval) and both debaters' answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    pub judge_question: Option<String>,
    /// (assessor name, answer).
    pub debaters: [(String, String); 2],
}

/// A JDEval (or MDEval) record as the debate viewer shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Debate {
    pub line: usize,
    pub question: String,
    pub answer_1: String,
    pub answer_2: String,
    /// Gold label of the pair, as text (`Answer 1`, `Answer 2`, `tie`).
    pub label: String,
    /// MDEval: the two assessments the debate is about (assessor name, assessment), shown before
    /// the question rounds; `None` for JDEval, whose single round holds them.
    pub opening: Option<[(String, String); 2]>,
    pub rounds: Vec<Round>,
    /// The meta-evaluator's final response(s).
    pub decision: String,
    /// Which assessor won (`evaluator_1`'s name, `evaluator_2`'s, or `draw`).
    pub verdict: String,
    /// The meta-evaluator's own answer choice.
    pub better_answer: String,
}

/// One branch of a BSMEval judgement: the branch response and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    /// The sub-task the meta-evaluator generated, when known (live runs; the release names it
    /// only inside the response).
    pub subtask: Option<String>,
    pub response: String,
    pub score: Option<f64>,
}

/// A JDEval-i / BSMEval record as the individual-judgement viewer shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchRecord {
    pub line: usize,
    pub text: String,
    pub gold: Option<f64>,
    /// The evaluator's assessment being judged.
    pub assessment: String,
    pub branches: Vec<Branch>,
    /// `score_for_evaluator`: the branch mean under BSMEval.
    pub score: Option<f64>,
}

/// A gold label in words.
pub fn label_text(label: Option<PairLabel>) -> String {
    match label {
        Some(PairLabel::A) => "Answer 1".to_owned(),
        Some(PairLabel::B) => "Answer 2".to_owned(),
        Some(PairLabel::Tie) => "tie".to_owned(),
        None => "unknown".to_owned(),
    }
}

/// A verdict in words, `first` and `second` naming the two sides.
pub fn verdict_text(v: Option<Verdict>, first: &str, second: &str) -> String {
    match v {
        Some(Verdict::First) => first.to_owned(),
        Some(Verdict::Second) => second.to_owned(),
        Some(Verdict::Tie) => "equally good".to_owned(),
        None => "unreadable".to_owned(),
    }
}

/// Which assessor won: a tie or no verdict is a draw, as Elo counts it.
pub fn winner_text(v: Option<Verdict>, e1: &str, e2: &str) -> String {
    match v {
        Some(Verdict::Tie) | None => "draw".to_owned(),
        v => verdict_text(v, e1, e2),
    }
}

/// The debates of a released JDEval file: each record's pair (joined by id), the two
/// assessments as one round and the meta response as the decision.
pub fn released_debates(loaded: &Loaded, records: &[JdEvalRecord]) -> Vec<Debate> {
    let Some(run) = loaded.runs.first() else { return Vec::new() };
    let pairs: HashMap<&str, &data::PairwiseItem> =
        loaded.dataset.pairs.iter().map(|p| (p.id.as_str(), p)).collect();
    let by_line: HashMap<usize, &JdEvalRecord> = records.iter().map(|r| (r.line, r)).collect();
    run.records
        .iter()
        .filter_map(|rec| {
            let jd = by_line.get(&rec.line)?;
            let pair = match &rec.key {
                RecordKey::Id(id) => pairs.get(id.as_str()).copied(),
                RecordKey::Item(_) => None,
            };
            let response = |i: usize| rec.responses.get(i).cloned().unwrap_or_default();
            Some(Debate {
                line: rec.line,
                question: pair
                    .and_then(|p| p.inputs.0.first().map(|(_, v)| v.clone()))
                    .unwrap_or_default(),
                answer_1: pair.map(|p| p.output_a.clone()).unwrap_or_default(),
                answer_2: pair.map(|p| p.output_b.clone()).unwrap_or_default(),
                label: label_text(jd.label),
                opening: None,
                rounds: vec![Round {
                    judge_question: None,
                    debaters: [
                        (jd.evaluator_1.clone(), response(0)),
                        (jd.evaluator_2.clone(), response(1)),
                    ],
                }],
                decision: rec.responses.get(2..).map(|r| r.join("\n\n")).unwrap_or_default(),
                verdict: winner_text(jd.winner, &jd.evaluator_1, &jd.evaluator_2),
                better_answer: verdict_text(jd.better_answer, "Answer 1", "Answer 2"),
            })
        })
        .collect()
}

/// The records of a released BSMEval file: the text, the assessment, each branch's response
/// and score (the loader's `MetaAssessment` branches) and the merged score.
pub fn released_branch_records(loaded: &Loaded) -> Vec<BranchRecord> {
    let Some(run) = loaded.runs.first() else { return Vec::new() };
    let items: HashMap<data::ItemKey, &data::RatingItem> =
        loaded.dataset.items.iter().map(|i| (i.key(), i)).collect();
    run.records
        .iter()
        .map(|rec| {
            let item = match &rec.key {
                RecordKey::Item(k) => items.get(k).copied(),
                RecordKey::Id(_) => None,
            };
            let branches = rec
                .meta
                .iter()
                .flat_map(|m| &m.branches)
                .map(|b| Branch { subtask: None, response: b.response.clone(), score: b.score })
                .collect();
            BranchRecord {
                line: rec.line,
                text: item.map(|i| i.output.clone()).unwrap_or_default(),
                gold: item.and_then(|i| i.ratings.first().cloned().flatten()).map(|h| h.aggregate),
                assessment: rec.responses.first().cloned().unwrap_or_default(),
                branches,
                score: rec.parsed.iter().find(|(k, _)| k == "score_for_evaluator").map(|&(_, x)| x),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_for_labels_and_verdicts() {
        assert_eq!(label_text(Some(PairLabel::B)), "Answer 2");
        assert_eq!(label_text(None), "unknown");
        assert_eq!(verdict_text(Some(Verdict::Tie), "x", "y"), "equally good");
        assert_eq!(winner_text(Some(Verdict::Second), "x", "y"), "y");
        assert_eq!(winner_text(Some(Verdict::Tie), "x", "y"), "draw");
        assert_eq!(winner_text(None, "x", "y"), "draw");
    }
}
