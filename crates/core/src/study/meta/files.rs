//! The workspace's files: each released evaluator or meta-evaluator results file analysed on
//! its own into a [`MetaFile`] — what it is ([`FileKind`]), its Table 1 row, Table 5/6 cell or
//! JDEval judgements, the viewer records, and the pairs and texts a live run can take from it.
//!
//! Every number comes from the functions `concord meta` uses ([`crate::meta`]): a file is
//! analysed by [`meta::analyze_file`], the per-format step of [`meta::analyze`] (a test checks
//! that the rows gathered from the files equal `meta::analyze`'s report), so the browser can
//! load files one at a time, yielding in between, and drop one without recomputing the others.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::debate::{BranchRecord, Debate, released_branch_records, released_debates};
use crate::data::{self, Loaded, PairLabel, Target};
use crate::judge::parse::Verdict;
use crate::meta::{
    self, EvaluatorRow, FileAnalysis, JdEvalRecord, MatchSet, MetaProtocol, MetaScore,
    PostAccuracy, WinRates,
};

/// What a loaded file is to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// Evaluator results, pairwise (Table 1 accuracy).
    Pairwise,
    /// Evaluator results, pointwise (Table 1 Pearson).
    Pointwise,
    /// Meta-evaluator results, pairwise (Elo, win rates, Bradley–Terry, post accuracy).
    #[serde(rename = "jdeval")]
    JdEval,
    /// Meta-evaluator results, individual scoring (Table 5).
    #[serde(rename = "jdeval_i")]
    JdEvalI,
    /// Meta-evaluator results, branch-solve-merge (Table 6).
    #[serde(rename = "bsmeval")]
    BsmEval,
    /// Anything else (a dataset, another paper's file): listed, not analysed.
    Unused,
}

impl FileKind {
    pub fn label(self) -> &'static str {
        match self {
            FileKind::Pairwise => "evaluator, pairwise",
            FileKind::Pointwise => "evaluator, pointwise",
            FileKind::JdEval => "meta-evaluator, JDEval",
            FileKind::JdEvalI => "meta-evaluator, JDEval-i",
            FileKind::BsmEval => "meta-evaluator, BSMEval",
            FileKind::Unused => "not used here",
        }
    }
}

/// A pair a pairwise run can judge (from an evaluator-pairwise file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairInput {
    pub id: String,
    pub question: String,
    pub answer_a: String,
    pub answer_b: String,
    pub label: Option<PairLabel>,
}

/// One pair as an evaluator judged it: the human label and the evaluator's verdict, each in
/// the pair's own order (output 1 first) — what the corrected win rate of output 1 reads
/// ([`super::win_rate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct JudgedPair {
    pub id: String,
    pub label: Option<PairLabel>,
    /// `None` where the evaluator's answer could not be read (or the run stopped first).
    pub verdict: Option<Verdict>,
}

/// The pairs of `pairs` with the verdicts at the same positions.
pub fn judged_pairs(pairs: &[PairInput], verdicts: &[Option<Verdict>]) -> Vec<JudgedPair> {
    pairs
        .iter()
        .enumerate()
        .map(|(i, p)| JudgedPair {
            id: p.id.clone(),
            label: p.label,
            verdict: verdicts.get(i).copied().flatten(),
        })
        .collect()
}

/// A text with one evaluator's assessment of it (from an evaluator-pointwise file), what
/// JDEval-i and BSMEval meta-evaluate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndividualInput {
    pub evaluator: String,
    pub text: String,
    pub gold: Option<f64>,
    pub assessment: String,
}

/// A text with its human score (an item of a scoring file or of an evaluator-pointwise file),
/// what individual-scoring judges rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredText {
    pub text: String,
    pub gold: Option<f64>,
}

/// The pairs of a loaded file, in file order.
pub fn pair_inputs(loaded: &Loaded) -> Vec<PairInput> {
    loaded
        .dataset
        .pairs
        .iter()
        .map(|p| PairInput {
            id: p.id.clone(),
            question: p.inputs.0.first().map(|(_, v)| v.clone()).unwrap_or_default(),
            answer_a: p.output_a.clone(),
            answer_b: p.output_b.clone(),
            label: p.label,
        })
        .collect()
}

/// The items of a loaded evaluator-pointwise file with the evaluator's assessment (its first
/// response), joined by key; items without a response are left out.
pub fn individual_inputs(evaluator: &str, loaded: &Loaded) -> Vec<IndividualInput> {
    let Some(run) = loaded.runs.first() else { return Vec::new() };
    let joined = data::join(&loaded.dataset, run);
    let mut record_of = vec![None; loaded.dataset.items.len()];
    for &(r, target) in &joined.matched {
        if let Target::Item(i) = target
            && let Some(slot) = record_of.get_mut(i)
        {
            slot.get_or_insert(r);
        }
    }
    loaded
        .dataset
        .items
        .iter()
        .zip(record_of)
        .filter_map(|(item, r)| {
            let record = run.records.get(r?)?;
            Some(IndividualInput {
                evaluator: evaluator.to_owned(),
                text: item.output.clone(),
                gold: item.ratings.first().cloned().flatten().map(|h| h.aggregate),
                assessment: record.responses.first().cloned()?,
            })
        })
        .collect()
}

/// The rated texts of a loaded file: every item's output with its first attribute's human
/// score, in file order (items without text left out).
pub fn scored_texts(loaded: &Loaded) -> Vec<ScoredText> {
    loaded
        .dataset
        .items
        .iter()
        .filter(|item| !item.output.trim().is_empty())
        .map(|item| ScoredText {
            text: item.output.clone(),
            gold: item.ratings.first().cloned().flatten().map(|h| h.aggregate),
        })
        .collect()
}

/// A JDEval file's analysis inputs and viewer records.
#[derive(Debug, Clone, PartialEq)]
pub struct JdEvalFile {
    pub meta_evaluator: String,
    pub records: Vec<JdEvalRecord>,
    pub set: MatchSet,
    pub win_rates: WinRates,
    pub post: PostAccuracy,
    pub debates: Vec<Debate>,
}

/// The JDEval view of judgements: matches, win rates, post accuracy and the debates.
pub fn jdeval_file(
    meta_evaluator: String,
    records: Vec<JdEvalRecord>,
    debates: Vec<Debate>,
) -> JdEvalFile {
    let set = meta::match_set(&records);
    JdEvalFile {
        meta_evaluator,
        win_rates: meta::win_rates(&set),
        post: meta::post_accuracy(&records),
        debates,
        set,
        records,
    }
}

/// What the workspace computed from one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Evaluator(EvaluatorRow),
    MetaScore { score: MetaScore, records: Vec<BranchRecord> },
    JdEval(Box<JdEvalFile>),
    Nothing,
}

/// The `format` of the files a live run makes (released files carry the loader's format name).
pub const LIVE_FORMAT: &str = "live run";

/// A file in the workspace's list.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaFile {
    pub name: String,
    pub format: String,
    pub kind: FileKind,
    /// "491 pairs · 491 judge records".
    pub counts: String,
    /// The loader's diagnostics, one line each.
    pub diagnostics: Vec<String>,
    /// Why the file is not in the results, if it is not.
    pub problem: Option<String>,
    pub content: Content,
    /// Pairs a pairwise run can judge (evaluator-pairwise files), each with the file's label.
    pub pairs: Vec<PairInput>,
    /// The pairs with the evaluator's verdicts (evaluator-pairwise files and pairwise runs):
    /// the corrected win rate's input.
    pub judged: Vec<JudgedPair>,
    /// Texts with an assessment JDEval-i / BSMEval runs can meta-evaluate (evaluator-pointwise
    /// files).
    pub individual: Vec<IndividualInput>,
    /// Texts with a human score individual-scoring judges can rate (scoring files,
    /// evaluator-pointwise files).
    pub texts: Vec<ScoredText>,
}

impl MetaFile {
    /// An empty file entry of `kind` (filled in by the callers).
    pub(crate) fn empty(name: &str, format: &str, kind: FileKind) -> MetaFile {
        MetaFile {
            name: name.to_owned(),
            format: format.to_owned(),
            kind,
            counts: String::new(),
            diagnostics: Vec::new(),
            problem: None,
            content: Content::Nothing,
            pairs: Vec::new(),
            judged: Vec::new(),
            individual: Vec::new(),
            texts: Vec::new(),
        }
    }

    /// A file the loader could not read: listed with why.
    pub fn unreadable(name: &str, why: impl fmt::Display) -> MetaFile {
        let mut file = MetaFile::empty(name, "", FileKind::Unused);
        file.problem = Some(why.to_string());
        file
    }

    /// The JDEval judgements, if this is a JDEval file.
    pub fn jdeval(&self) -> Option<&JdEvalFile> {
        match &self.content {
            Content::JdEval(j) => Some(j),
            _ => None,
        }
    }

    /// The BSMEval / JDEval-i viewer records (empty for other files).
    pub fn branch_records(&self) -> &[BranchRecord] {
        match &self.content {
            Content::MetaScore { records, .. } => records,
            _ => &[],
        }
    }

    /// Whether a live run made this file.
    pub fn is_live(&self) -> bool {
        self.format == LIVE_FORMAT
    }
}

fn counts_text(loaded: &Loaded) -> String {
    let c = &loaded.summary.counts;
    let mut parts = Vec::new();
    for (n, what) in [(c.pairs, "pairs"), (c.items, "items"), (c.judge_records, "judge records")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if parts.is_empty() { "empty".to_owned() } else { parts.join(" · ") }
}

/// Loads one file and analyses it as [`meta::analyze`] does (with [`meta::analyze_file`]).
/// `name` is the file's name (evaluator and meta-evaluator names are read from it).
pub fn analyze_file(name: &str, bytes: &[u8]) -> MetaFile {
    match data::load(name, bytes) {
        Ok(loaded) => analyze_loaded(name, &loaded),
        Err(e) => MetaFile::unreadable(name, e),
    }
}

/// [`analyze_file`] for a file already loaded (in the browser, by a Web Worker).
pub fn analyze_loaded(name: &str, loaded: &Loaded) -> MetaFile {
    let mut file = MetaFile::empty(name, loaded.format.name(), FileKind::Unused);
    file.counts = counts_text(loaded);
    file.diagnostics = loaded.diagnostics.iter().map(ToString::to_string).collect();
    file.texts = scored_texts(loaded);
    match meta::analyze_file(name, loaded) {
        Ok(FileAnalysis::Evaluator(row)) => {
            if row.kind == "pairwise" {
                file.kind = FileKind::Pairwise;
                file.pairs = pair_inputs(loaded);
                // The verdicts were read once already for the accuracy; a file without a run
                // has no row.
                let verdicts = meta::verdicts_per_pair(name, loaded).unwrap_or_default();
                file.judged = judged_pairs(&file.pairs, &verdicts);
            } else {
                file.kind = FileKind::Pointwise;
                file.individual = individual_inputs(&row.name, loaded);
            }
            file.content = Content::Evaluator(row);
        }
        Ok(FileAnalysis::MetaScore(score)) => {
            file.kind = match score.protocol {
                MetaProtocol::JdEvalI => FileKind::JdEvalI,
                MetaProtocol::BsmEval => FileKind::BsmEval,
            };
            // JDEval-i files are large and their viewer adds little; BSMEval's branches are the
            // point of its viewer.
            let records = if score.protocol == MetaProtocol::BsmEval {
                released_branch_records(loaded)
            } else {
                Vec::new()
            };
            file.content = Content::MetaScore { score, records };
        }
        Ok(FileAnalysis::JdEval { meta_evaluator, records }) => {
            file.kind = FileKind::JdEval;
            let debates = released_debates(loaded, &records);
            file.content = Content::JdEval(Box::new(jdeval_file(meta_evaluator, records, debates)));
        }
        Err(e) => file.problem = Some(e.to_string()),
    }
    file
}

/// The evaluator rows and meta scores of `files`, sorted as [`meta::analyze`] sorts them.
pub fn report_rows<'a>(
    files: impl IntoIterator<Item = &'a MetaFile>,
) -> (Vec<EvaluatorRow>, Vec<MetaScore>) {
    let mut rows = Vec::new();
    let mut scores = Vec::new();
    for f in files {
        match &f.content {
            Content::Evaluator(r) => rows.push(r.clone()),
            Content::MetaScore { score, .. } => scores.push(score.clone()),
            _ => {}
        }
    }
    rows.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    scores.sort_by(|a, b| {
        (a.protocol.name(), &a.meta_evaluator, &a.evaluator).cmp(&(
            b.protocol.name(),
            &b.meta_evaluator,
            &b.evaluator,
        ))
    });
    (rows, scores)
}

/// SHA-256 of a file's bytes, fed a slice at a time (the browser hashes a large file between
/// frames): what a snapshot names a released file by.
#[derive(Debug, Clone, Default)]
pub struct FileHasher(Sha256);

impl FileHasher {
    pub fn new() -> FileHasher {
        FileHasher(Sha256::new())
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest as 64 lower-case hex digits.
    pub fn finish(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// SHA-256 of `bytes` as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = FileHasher::new();
    h.update(bytes);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_in_slices_equal_the_whole() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        let want = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_hex(b"abc"), want);
        let mut h = FileHasher::new();
        h.update(b"a");
        h.update(b"bc");
        assert_eq!(h.finish(), want);
    }
}
