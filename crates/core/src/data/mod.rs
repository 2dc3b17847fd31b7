//! The data model and the loaders that turn user files into it, with diagnostics.
//!
//! Bytes in, model out: [`load`] takes a file name and its bytes, detects the format, and
//! returns a [`Loaded`] with the [`Dataset`], any imported [`JudgeRun`]s, the diagnostics and
//! a [`Summary`] (the counts `concord inspect` prints). Nothing here reads files or panics on
//! bad input: a partly broken file loads what it can and reports each problem with file, line
//! and field; an unusable file gives one [`LoadError`].
//!
//! ```
//! use concord_core::data;
//! let csv = b"doc_id,system_id,source,output,coherence\nd1,s1,An article.,A summary.,4\n";
//! let loaded = data::load("mine.csv", csv).unwrap();
//! assert_eq!(loaded.summary.counts.items, 1);
//! assert_eq!(loaded.dataset.items[0].inputs.get("source"), Some("An article."));
//! ```
//!
//! Module map: [`model`] (the types), `text` (decoding and JSON record splitting), [`mapping`]
//! (generic tables and the column mapping), `papers` and `coeval` (the released shapes),
//! [`join`] (judge runs ↔ items by key).

pub(crate) mod coeval;
pub mod diag;
pub mod join;
pub mod mapping;
pub mod model;
mod papers;
mod text;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

pub use diag::{Diagnostic, LoadError, Severity};
pub use join::{Joined, Target, join};
pub use mapping::{ColumnInfo, ColumnMapping, MappingProblem, RatingColumn, Role, validate_roles};
pub use model::{
    Aggregate, Attribute, Dataset, Fields, HumanRating, ItemKey, JudgeRecord, JudgeRun,
    MetaAssessment, MetaBranch, OpenEndedTask, PairLabel, PairVote, PairwiseItem, RaterScore,
    RatingItem, RecordKey, ReviewAction, ReviewedLine, Scale, ScaleKind, content_id, mean_in_order,
};

use text::{Obj, Record};

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
}

impl Format {
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

/// Detects the format of `bytes` (from the content) and loads it. `name` is the file name: it
/// labels diagnostics, its extension settles CSV vs TSV, and CoEval and Chiang & Lee file names
/// give the task (`eli5_…`) and the attribute judged (`gpt3.5_coh_…`).
///
/// Cost: one pass splits the records, one interprets them. Natively (release) the 28 Chiang &
/// Lee Topical-Chat result files (70.5 MB) take about 0.4 s of CPU in total; in V8 (wasm32) a
/// 30 MB result file takes about 0.5 s of CPU, so the web app should call this from a worker
/// (it is pure and synchronous) rather than on the UI thread.
pub fn load(name: &str, bytes: &[u8]) -> Result<Loaded, LoadError> {
    load_with_mapping(name, bytes, None)
}

/// Like [`load`], but tabular files (CSV, TSV, flat JSON/JSONL) use `mapping` instead of a
/// guessed one; with a mapping, even a file in a known paper shape is read as a generic table.
pub fn load_with_mapping(
    name: &str,
    bytes: &[u8],
    mapping: Option<&ColumnMapping>,
) -> Result<Loaded, LoadError> {
    let mut diags = Vec::new();
    let text = text::decode(name, bytes, &mut diags);
    let text: &str = &text;
    let trimmed = text.trim_start();
    if trimmed.trim_end().is_empty() {
        return Err(LoadError::Empty { file: name.to_owned() });
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    let (format, dataset, runs, used_mapping) = match trimmed.as_bytes()[0] {
        b'[' => {
            let records = text::split_array(name, text, &mut diags);
            from_records(name, &records, Format::Json, mapping, &mut diags)?
        }
        b'{' => match serde_json::from_str::<Obj<'_>>(text) {
            Ok(top) => from_object(name, text, top, mapping, &mut diags)?,
            Err(whole) => {
                // Not one object: JSON Lines, if the first line is a value on its own.
                let first = trimmed.lines().next().unwrap_or("");
                if serde_json::from_str::<&serde_json::value::RawValue>(first.trim()).is_ok() {
                    let records = text::split_lines(name, text, &mut diags);
                    from_records(name, &records, Format::Jsonl, mapping, &mut diags)?
                } else {
                    return Err(LoadError::Malformed {
                        file: name.to_owned(),
                        line: whole.line(),
                        message: format!("invalid JSON: {}", text::strip_position(&whole)),
                    });
                }
            }
        },
        _ => {
            let first = trimmed.lines().next().unwrap_or("");
            let (tabs, commas) = (first.matches('\t').count(), first.matches(',').count());
            let tsv = matches!(ext.as_str(), "tsv" | "tab") || tabs > commas;
            if !tsv && commas == 0 && !matches!(ext.as_str(), "csv" | "txt") {
                return Err(LoadError::UnknownFormat {
                    file: name.to_owned(),
                    detail: "expected JSON, JSON Lines, CSV or TSV with a header row".to_owned(),
                });
            }
            let table =
                mapping::read_delimited(name, text, if tsv { b'\t' } else { b',' }, &mut diags)?;
            let format = if tsv { Format::Tsv } else { Format::Csv };
            let (dataset, used) = tabular(name, &table, mapping, &mut diags)?;
            (format, dataset, Vec::new(), Some(used))
        }
    };
    finish(name, format, dataset, runs, used_mapping, diags)
}

/// A tabular file's mapping and columns.
type Tabular = (ColumnMapping, Vec<ColumnInfo>);
type Parts = (Format, Dataset, Vec<JudgeRun>, Option<Tabular>);

fn finish(
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
    let summary = summarize(format, &dataset, &runs);
    let (mapping, columns) = match tabular {
        Some((m, c)) => (Some(m), c),
        None => (None, Vec::new()),
    };
    Ok(Loaded { format, dataset, runs, mapping, columns, diagnostics, summary })
}

fn tabular(
    name: &str,
    table: &mapping::Table,
    given: Option<&ColumnMapping>,
    diags: &mut Vec<Diagnostic>,
) -> Result<(Dataset, Tabular), LoadError> {
    let mapping = match given {
        Some(m) => m.clone(),
        None => {
            let m = mapping::guess(table);
            diags.push(Diagnostic::info(name, None, None, mapping::describe(&m)));
            m
        }
    };
    let dataset = mapping::apply(name, table, &mapping, diags)?;
    Ok((dataset, (mapping, mapping::column_infos(table))))
}

/// Chooses the loader for JSON records from the keys of the first object.
fn from_records(
    name: &str,
    records: &[Record<'_>],
    generic: Format,
    mapping: Option<&ColumnMapping>,
    diags: &mut Vec<Diagnostic>,
) -> Result<Parts, LoadError> {
    let first =
        if mapping.is_some() { None } else { records.iter().find_map(|r| Obj::parse(r.raw)) };
    let has = |k: &str| first.as_ref().is_some_and(|o| o.has(k));
    let one = |run: Option<JudgeRun>| run.into_iter().collect::<Vec<_>>();
    let parts = if first.is_none() {
        None
    } else if has("all_responses") && has("system_output") {
        let (d, r) = papers::pointwise(name, records, diags);
        Some((Format::ChiangLeeResults, d, one(r)))
    } else if has("predict_scores") && has("system_output") {
        let (d, r) = papers::pointwise(name, records, diags);
        Some((Format::UnievalPredictions, d, one(r)))
    } else if has("system_output") && has("system_id") {
        let format = if has("doc_id") { Format::SummevalGeval } else { Format::TopicalChat };
        let (d, r) = papers::pointwise(name, records, diags);
        Some((format, d, one(r)))
    } else if has("article_id") && has("summary_id") && has("summary") {
        Some((Format::SummevalPpairs, papers::ppairs(name, records, diags), Vec::new()))
    } else if has("meta_eval_result") && has("answer1") {
        let (d, r) = papers::meta_pairwise(name, records, diags);
        Some((Format::MetaEvaluatorPairwise, d, vec![r]))
    } else if has("meta_eval_result") && has("text") {
        let (d, r) = papers::meta_pointwise(name, records, diags);
        Some((Format::MetaEvaluatorPointwise, d, vec![r]))
    } else if has("answer1") && has("answer2") && has("response") {
        let (d, r) = papers::evaluator_pairwise(name, records, diags);
        Some((Format::EvaluatorPairwise, d, vec![r]))
    } else if has("text") && has("response") && has("score") {
        let (d, r) = papers::evaluator_pointwise(name, records, diags);
        Some((Format::EvaluatorPointwise, d, vec![r]))
    } else if has("input") && has("output_1") && has("output_2") {
        Some((Format::Pairwise, papers::pairwise(name, records, diags), Vec::new()))
    } else if has("model_a") && has("model_b") && has("winner") && has("question_id") {
        Some((Format::MtBenchHuman, papers::mt_bench_human(name, records, diags), Vec::new()))
    } else if has("text") && has("score") && first.as_ref().is_some_and(|o| o.0.len() == 2) {
        Some((Format::Scoring, papers::scoring(name, records, diags), Vec::new()))
    } else {
        None
    };
    match parts {
        Some((format, dataset, runs)) => Ok((format, dataset, runs, None)),
        None => {
            let table = mapping::table_from_records(name, records, diags);
            let (dataset, used) = tabular(name, &table, mapping, diags)?;
            Ok((generic, dataset, Vec::new(), Some(used)))
        }
    }
}

/// A top-level JSON object: one of CoEval's files, a wrapper around a record array
/// (`{"data": [...]}`), or a single record.
fn from_object(
    name: &str,
    text: &str,
    top: Obj<'_>,
    mapping: Option<&ColumnMapping>,
    diags: &mut Vec<Diagnostic>,
) -> Result<Parts, LoadError> {
    if mapping.is_none() {
        match coeval::detect(&top) {
            Some(coeval::Shape::Combined) => {
                let (d, runs) = coeval::combined(name, text, &top, diags);
                return Ok((Format::CoevalCombined, d, runs, None));
            }
            Some(coeval::Shape::AnnotatorScores) => {
                let (d, runs) = coeval::annotator_scores(name, text, &top, diags);
                return Ok((Format::CoevalAnnotatorScores, d, runs, None));
            }
            Some(coeval::Shape::Actions) => {
                return Ok((
                    Format::CoevalActions,
                    coeval::actions(name, text, &top, diags),
                    Vec::new(),
                    None,
                ));
            }
            Some(coeval::Shape::Session) => {
                let dataset = coeval::session(name, text, &top, diags);
                return Ok((Format::CoevalSession, dataset, Vec::new(), None));
            }
            None => {}
        }
    }
    // A wrapper object with exactly one array of objects: read that array.
    let arrays: Vec<_> = top.0.iter().filter(|(_, v)| v.get().starts_with('[')).collect();
    if let [(key, raw)] = arrays.as_slice() {
        let start = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let line_offset = text[..start.min(text.len())].matches('\n').count();
        let mut records = text::split_array(name, raw.get(), diags);
        for r in &mut records {
            r.line += line_offset;
        }
        diags.push(Diagnostic::info(
            name,
            None,
            Some(key),
            format!("records read from the `{key}` array"),
        ));
        return from_records(name, &records, Format::Json, mapping, diags);
    }
    let whole: &serde_json::value::RawValue = match serde_json::from_str(text.trim()) {
        Ok(r) => r,
        Err(e) => {
            return Err(LoadError::Malformed {
                file: name.to_owned(),
                line: e.line(),
                message: text::strip_position(&e),
            });
        }
    };
    let format =
        if name.to_ascii_lowercase().ends_with(".jsonl") { Format::Jsonl } else { Format::Json };
    from_records(name, &[Record { line: 1, raw: whole }], format, mapping, diags)
}

/// The mapping of the built-in example CSV: two raters per attribute on 1–5.
pub fn example_mapping() -> ColumnMapping {
    let rating = |column: &str, attribute: &str, rater: &str| RatingColumn {
        column: column.to_owned(),
        attribute: attribute.to_owned(),
        rater: Some(rater.to_owned()),
        scale: Some(Scale::likert(1.0, 5.0)),
    };
    ColumnMapping {
        id: None,
        document: Some("doc_id".to_owned()),
        system: Some("system_id".to_owned()),
        inputs: vec!["source".to_owned()],
        output: Some("output".to_owned()),
        ratings: vec![
            rating("coherence_r1", "coherence", "r1"),
            rating("coherence_r2", "coherence", "r2"),
            rating("fluency_r1", "fluency", "r1"),
            rating("fluency_r2", "fluency", "r2"),
        ],
    }
}

/// The built-in example ([`crate::example::EXAMPLE_CSV`]) through the generic CSV loader.
pub fn example() -> Result<Loaded, LoadError> {
    load_with_mapping(
        crate::example::EXAMPLE_NAME,
        crate::example::EXAMPLE_CSV.as_bytes(),
        Some(&example_mapping()),
    )
}

/// The example's dataset, which the app opens on. The CSV is compiled in and covered by tests;
/// should it ever fail to load, the app opens on an empty dataset rather than crashing.
pub fn example_dataset() -> Dataset {
    example().map(|l| l.dataset).unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Format;

    /// `Format::name` (printed by `concord inspect`) and the serde form (bundles) agree.
    #[test]
    fn format_names_match_serde() {
        use Format::*;
        for f in [
            SummevalGeval,
            SummevalPpairs,
            TopicalChat,
            ChiangLeeResults,
            UnievalPredictions,
            Pairwise,
            Scoring,
            EvaluatorPairwise,
            EvaluatorPointwise,
            MetaEvaluatorPairwise,
            MetaEvaluatorPointwise,
            MtBenchHuman,
            CoevalCombined,
            CoevalAnnotatorScores,
            CoevalActions,
            CoevalSession,
            Csv,
            Tsv,
            Json,
            Jsonl,
        ] {
            assert_eq!(serde_json::to_string(&f).unwrap(), format!("\"{}\"", f.name()));
        }
    }
}
