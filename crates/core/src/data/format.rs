//! What a load produces: the file's `Format`, and `Loaded` — the dataset, the judge runs the
//! file carries, the mapping and columns of a tabular file, the diagnostics and the `Summary`
//! `concord inspect` prints.

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};

use super::diag::{Diagnostic, LoadError, Severity};
use super::mapping::{ColumnInfo, ColumnMapping};
use super::model::{Dataset, JudgeRun};
use super::text;

/// The file formats Concord recognises; [`Format::name`] is what `concord inspect` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// G-Eval's `summeval.json`: doc_id, system_id, source, reference, system_output, scores.
    SummevalGeval,
    /// PPairS' `summeval.jsonl`: article_id, summary_id, article, summary, four attributes.
    SummevalPpairs,
    /// UniEval / Chiang & Lee `topical_chat.json`: source, context, system_output, scores.
    TopicalChat,
    /// Chiang & Lee result files: the item plus `prompt` and `all_responses`.
    ChiangLeeResults,
    /// UniEval predictions: the item plus `predict_scores`.
    UnievalPredictions,
    /// meta-evaluation pairwise datasets (MT-bench, LLMBar): input, output_1, output_2, label.
    Pairwise,
    /// meta-evaluation scoring datasets (OpenMEVA, SummEval): text, score.
    Scoring,
    /// meta-evaluation evaluator results, pairwise.
    EvaluatorPairwise,
    /// meta-evaluation evaluator results, pointwise.
    EvaluatorPointwise,
    /// meta-evaluation meta-evaluator results, pairwise (JDEval).
    MetaEvaluatorPairwise,
    /// meta-evaluation meta-evaluator results, pointwise (JDEval-i, BSMEval).
    MetaEvaluatorPointwise,
    /// lmsys MT-bench human judgments: question_id, model_a, model_b, winner, judge, conversations.
    MtBenchHuman,
    /// CoEval `combine_data.json`.
    CoevalCombined,
    /// CoEval `*_annotator_scores.json`.
    CoevalAnnotatorScores,
    /// CoEval `*_action.json`.
    CoevalActions,
    /// CoEval annotator session logs (`A01.json` … `A15.json`).
    CoevalSession,
    /// Comma-separated values with a header row, through a column mapping.
    Csv,
    /// Tab-separated values with a header row, through a column mapping.
    Tsv,
    /// A JSON array of flat objects, through a column mapping.
    Json,
    /// JSON Lines of flat objects, through a column mapping.
    Jsonl,
    /// Several annotators (and LLMs) per instance: AltTest's `{who: {instance: annotation}}`
    /// ([`annotations`]).
    Annotations,
}

impl Format {
    /// A table of the user's own read through a column mapping (CSV, TSV, JSON, JSON Lines),
    /// not one of the papers' released shapes.
    pub fn is_generic_table(self) -> bool {
        matches!(self, Format::Csv | Format::Tsv | Format::Json | Format::Jsonl)
    }

    /// The format called `name` ([`Format::name`], which is also its serde name).
    pub fn from_name(name: &str) -> Option<Format> {
        serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::SummevalGeval => "summeval-geval",
            Format::SummevalPpairs => "summeval-ppairs",
            Format::TopicalChat => "topical-chat",
            Format::ChiangLeeResults => "chiang-lee-results",
            Format::UnievalPredictions => "unieval-predictions",
            Format::Pairwise => "pairwise",
            Format::Scoring => "scoring",
            Format::EvaluatorPairwise => "evaluator-pairwise",
            Format::EvaluatorPointwise => "evaluator-pointwise",
            Format::MetaEvaluatorPairwise => "meta-evaluator-pairwise",
            Format::MetaEvaluatorPointwise => "meta-evaluator-pointwise",
            Format::MtBenchHuman => "mt-bench-human",
            Format::CoevalCombined => "coeval-combined",
            Format::CoevalAnnotatorScores => "coeval-annotator-scores",
            Format::CoevalActions => "coeval-actions",
            Format::CoevalSession => "coeval-session",
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Annotations => "annotations",
        }
    }
}

/// Everything [`load`] produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub format: Format,
    pub dataset: Dataset,
    /// Judge outputs found in the file (result files carry both items and responses).
    pub runs: Vec<JudgeRun>,
    /// The column mapping used for generic tabular files (guessed unless one was given), so
    /// the UI can show and edit it.
    pub mapping: Option<ColumnMapping>,
    /// The columns of a tabular file in file order, with example values (empty for the
    /// papers' shapes), for the mapping editor.
    pub columns: Vec<ColumnInfo>,
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
}

/// The counts `concord inspect` prints; also what the UI shows after loading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub format: String,
    pub counts: Counts,
    pub attributes: Vec<AttributeRange>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub items: usize,
    pub documents: usize,
    pub systems: usize,
    pub pairs: usize,
    /// Distinct human raters with per-rater scores or votes (0 when only aggregates ship).
    pub raters: usize,
    pub tasks: usize,
    pub judge_records: usize,
}

/// An attribute's declared scale (or observed range, for generic files).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeRange {
    pub name: String,
    pub min: f64,
    pub max: f64,
}

/// A tabular file's mapping and columns.
pub(super) type Tabular = (ColumnMapping, Vec<ColumnInfo>);

/// Computes the summary of a loaded dataset and its runs.
pub fn summarize(format: Format, dataset: &Dataset, runs: &[JudgeRun]) -> Summary {
    let mut documents = BTreeSet::new();
    let mut systems = BTreeSet::new();
    let mut raters = BTreeSet::new();
    for item in &dataset.items {
        documents.insert(item.document_id.as_str());
        systems.insert(item.system_id.as_str());
        for r in item.ratings.iter().flatten() {
            raters.extend(r.raters.iter().map(|s| s.rater.as_str()));
        }
    }
    raters.extend(dataset.actions.iter().map(|a| a.rater.as_str()));
    for pair in &dataset.pairs {
        systems.extend(pair.model_a.as_deref());
        systems.extend(pair.model_b.as_deref());
        raters.extend(pair.votes.iter().map(|v| v.rater.as_str()));
    }
    Summary {
        format: format.name().to_owned(),
        counts: Counts {
            items: dataset.items.len(),
            documents: documents.len(),
            systems: systems.len(),
            pairs: dataset.pairs.len(),
            raters: raters.len(),
            tasks: dataset.tasks.len(),
            judge_records: runs.iter().map(|r| r.records.len()).sum(),
        },
        attributes: dataset
            .attributes
            .iter()
            .map(|a| AttributeRange { name: a.name.clone(), min: a.scale.min, max: a.scale.max })
            .collect(),
    }
}

pub(super) fn finish(
    name: &str,
    format: Format,
    dataset: Dataset,
    runs: Vec<JudgeRun>,
    tabular: Option<Tabular>,
    diagnostics: Vec<Diagnostic>,
) -> Result<Loaded, LoadError> {
    let records: usize = runs.iter().map(|r| r.records.len()).sum();
    if dataset.items.is_empty() && dataset.pairs.is_empty() && records == 0 {
        return Err(LoadError::NoRecords {
            file: name.to_owned(),
            format: format.name().to_owned(),
            first_problem: diagnostics
                .into_iter()
                .find(|d| d.severity == Severity::Warning)
                .map(Box::new),
        });
    }
    let mut dataset = dataset;
    let mut diagnostics = diagnostics;
    unique_ids(name, &mut dataset, tabular.is_some(), &mut diagnostics);
    let summary = summarize(format, &dataset, &runs);
    let (mapping, columns) = match tabular {
        Some((m, c)) => (Some(m), c),
        None => (None, Vec::new()),
    };
    Ok(Loaded { format, dataset, runs, mapping, columns, diagnostics, summary })
}

/// Item and pair ids are unique within a dataset (runs made in Concord are joined by id): a
/// repeated id is renamed `id#2`, `id#3`, … and one warning says how many and the first (and,
/// for a generic table, that an id column can be mapped).
fn unique_ids(name: &str, dataset: &mut Dataset, mapped: bool, diags: &mut Vec<Diagnostic>) {
    let mut seen: HashSet<String> = HashSet::with_capacity(dataset.items.len());
    let mut renamed = 0usize;
    let mut first: Option<(String, String)> = None;
    let ids = dataset
        .items
        .iter_mut()
        .map(|i| &mut i.id)
        .chain(dataset.pairs.iter_mut().map(|p| &mut p.id));
    for id in ids {
        if seen.contains(id.as_str()) {
            let mut k = 2;
            let new = loop {
                let candidate = format!("{id}#{k}");
                if !seen.contains(&candidate) {
                    break candidate;
                }
                k += 1;
            };
            renamed += 1;
            first.get_or_insert_with(|| (id.clone(), new.clone()));
            *id = new;
        }
        seen.insert(id.clone());
    }
    if let Some((old, new)) = first {
        diags.push(Diagnostic::warning(
            name,
            None,
            None,
            format!(
                "{} an earlier one and {} renamed (first: `{}` → `{}`){}",
                crate::words::count(renamed, "id repeats", "ids repeat"),
                crate::words::plural(renamed, "was", "were"),
                text::clip(&old),
                text::clip(&new),
                if mapped { "; map an id column with unique values to keep your own" } else { "" }
            ),
        ));
    }
}
