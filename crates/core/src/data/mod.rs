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
//! [`annotations`] (several annotators and LLMs per instance: the AltTest folders),
//! [`join`] (judge runs ↔ items by key).

pub mod annotations;
pub(crate) mod coeval;
pub mod diag;
pub mod format;
pub mod join;
pub mod mapping;
pub mod model;
mod papers;
pub mod presets;
mod text;

pub use diag::{Diagnostic, LoadError, Severity};
pub use format::{AttributeRange, Counts, Format, Loaded, Summary, summarize};
use format::{Tabular, finish};
pub use join::{Joined, Target, join};
pub use mapping::{ColumnInfo, ColumnMapping, MappingProblem, RatingColumn, Role, validate_roles};
pub use model::{
    Aggregate, Attribute, CallUsage, Dataset, Fields, HumanRating, ItemKey, JudgeRecord, JudgeRun,
    MetaAssessment, MetaBranch, OpenEndedTask, PairLabel, PairVote, PairwiseItem, RaterScore,
    RatingItem, RecordKey, ReportedTokens, ReviewAction, ReviewedLine, Scale, ScaleKind,
    content_id, mean_in_order,
};

use text::{Obj, Record};

/// What the Data screen says when no document holds two rated items: document-level
/// correlations (one per document, across the systems' outputs for it) are then undefined, and
/// the Results screen's document-level cells blank. Names where the documents came from — the
/// mapped column, rows with the same input text, or each row on its own when the file has
/// neither — and what to do. `None` when some document holds two items, or there are none.
pub fn documents_note(loaded: &Loaded) -> Option<String> {
    let items = &loaded.dataset.items;
    let mut sizes: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for item in items {
        *sizes.entry(item.document_id.as_str()).or_default() += 1;
    }
    if items.len() < 2 || sizes.values().any(|&n| n >= 2) {
        return None;
    }
    let each = format!(
        "Each of the {} holds one item, so document-level correlations (within a document, across the systems' outputs for it) are undefined and the Results screen's document-level cells stay blank",
        crate::words::count(sizes.len(), "document", "documents")
    );
    let fix = "If several rows rate outputs for the same input, map the column that says which input as “document” in the column mapping below.";
    Some(match &loaded.mapping {
        Some(m) => match (&m.document, m.inputs.is_empty()) {
            (Some(column), _) => format!("Documents come from the column {column}. {each}."),
            (None, true) => {
                format!("No document column: every row is its own document. {each}. {fix}")
            }
            (None, false) => format!(
                "No document column: rows with the same input text ({}) are one document, and no two rows share theirs. {each}. {fix}",
                m.inputs.join(", ")
            ),
        },
        None => format!("{each}."),
    })
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
    if let Some(what) = text::binary_kind(bytes) {
        return Err(LoadError::Binary { file: name.to_owned(), what });
    }
    let mut diags = Vec::new();
    let mut text = text::decode(name, bytes, &mut diags);
    if text.trim_start().starts_with(['[', '{'])
        && let Some(fixed) = crate::json_lenient::non_json_numbers_as_null(&text)
    {
        let line = text::LineCounter::new(&text).line_at(fixed.first_offset);
        diags.push(Diagnostic::warning(
            name,
            Some(line),
            None,
            format!(
                "{} (NaN / Infinity), which JSON does not have (Python's json.dump writes them), read as missing",
                crate::words::count(fixed.count, "non-number value", "non-number values")
            ),
        ));
        text = std::borrow::Cow::Owned(fixed.text);
    }
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
                // Not one object: JSON Lines, if its lines are values on their own.
                if looks_like_json_lines(trimmed) {
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
        _ if matches!(ext.as_str(), "json" | "jsonl" | "ndjson") => {
            return Err(LoadError::UnknownFormat {
                file: name.to_owned(),
                detail: format!(
                    "the name says JSON, but the text starts with {:?}, not `{{` or `[`",
                    text::clip(trimmed)
                ),
            });
        }
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

type Parts = (Format, Dataset, Vec<JudgeRun>, Option<Tabular>);

/// JSON Lines: the first non-empty line is a JSON value on its own, or (its first line damaged)
/// at least two of the first five are objects on their own. A pretty-printed object cut short
/// has almost no such lines.
fn looks_like_json_lines(text: &str) -> bool {
    let parses = |line: &str| serde_json::from_str::<&serde_json::value::RawValue>(line).is_ok();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty()).take(5);
    if lines.next().is_some_and(parses) {
        return true;
    }
    lines.filter(|l| l.starts_with('{') && parses(l)).count() >= 2
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

/// The record shapes of the papers' released files, told apart by their keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    ChiangLee,
    Unieval,
    SummevalGeval,
    TopicalChat,
    Ppairs,
    MetaPairwise,
    MetaPointwise,
    EvaluatorPairwise,
    EvaluatorPointwise,
    Pairwise,
    MtBenchHuman,
    Scoring,
}

impl Shape {
    /// The format a file of records of this shape is.
    fn format(self) -> Format {
        match self {
            Shape::ChiangLee => Format::ChiangLeeResults,
            Shape::Unieval => Format::UnievalPredictions,
            Shape::SummevalGeval => Format::SummevalGeval,
            Shape::TopicalChat => Format::TopicalChat,
            Shape::Ppairs => Format::SummevalPpairs,
            Shape::MetaPairwise => Format::MetaEvaluatorPairwise,
            Shape::MetaPointwise => Format::MetaEvaluatorPointwise,
            Shape::EvaluatorPairwise => Format::EvaluatorPairwise,
            Shape::EvaluatorPointwise => Format::EvaluatorPointwise,
            Shape::Pairwise => Format::Pairwise,
            Shape::MtBenchHuman => Format::MtBenchHuman,
            Shape::Scoring => Format::Scoring,
        }
    }

    fn of(o: &Obj<'_>) -> Option<Shape> {
        let has = |k: &str| o.has(k);
        Some(if has("all_responses") && has("system_output") {
            Shape::ChiangLee
        } else if has("predict_scores") && has("system_output") {
            Shape::Unieval
        } else if has("system_output") && has("system_id") {
            if has("doc_id") { Shape::SummevalGeval } else { Shape::TopicalChat }
        } else if has("article_id") && has("summary_id") && has("summary") {
            Shape::Ppairs
        } else if has("meta_eval_result") && has("answer1") {
            Shape::MetaPairwise
        } else if has("meta_eval_result") && has("text") {
            Shape::MetaPointwise
        } else if has("answer1") && has("answer2") && has("response") {
            Shape::EvaluatorPairwise
        } else if has("text") && has("response") && has("score") {
            Shape::EvaluatorPointwise
        } else if has("input") && has("output_1") && has("output_2") {
            Shape::Pairwise
        } else if has("model_a") && has("model_b") && has("winner") && has("question_id") {
            Shape::MtBenchHuman
        } else if has("text") && has("score") && o.0.len() == 2 {
            Shape::Scoring
        } else {
            return None;
        })
    }
}

/// How many of a file's first object records vote on its shape.
const SHAPE_VOTERS: usize = 25;

/// The shape most of the first [`SHAPE_VOTERS`] object records have (`None`, generic, counts
/// as a shape too), so that one damaged or stray record at the top does not decide how the
/// whole file is read. A tie goes to the shape seen first.
fn vote_shape(records: &[Record<'_>]) -> Option<Shape> {
    let mut votes: Vec<(Option<Shape>, usize)> = Vec::new();
    for obj in records.iter().filter_map(|r| Obj::parse(r.raw)).take(SHAPE_VOTERS) {
        let shape = Shape::of(&obj);
        match votes.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, n)) => *n += 1,
            None => votes.push((shape, 1)),
        }
    }
    let best = votes.iter().map(|(_, n)| *n).max()?;
    votes.into_iter().find(|(_, n)| *n == best).and_then(|(s, _)| s)
}

/// Chooses the loader for JSON records by the keys most of the first objects have.
fn from_records(
    name: &str,
    records: &[Record<'_>],
    generic: Format,
    mapping: Option<&ColumnMapping>,
    diags: &mut Vec<Diagnostic>,
) -> Result<Parts, LoadError> {
    let shape = if mapping.is_some() { None } else { vote_shape(records) };
    let one = |run: Option<JudgeRun>| run.into_iter().collect::<Vec<_>>();
    let parts = shape.map(|shape| {
        let (dataset, runs) = match shape {
            Shape::ChiangLee | Shape::Unieval | Shape::SummevalGeval | Shape::TopicalChat => {
                let (d, r) = papers::pointwise(name, records, diags);
                (d, one(r))
            }
            Shape::Ppairs => (papers::ppairs(name, records, diags), Vec::new()),
            Shape::MetaPairwise => {
                let (d, r) = papers::meta_pairwise(name, records, diags);
                (d, vec![r])
            }
            Shape::MetaPointwise => {
                let (d, r) = papers::meta_pointwise(name, records, diags);
                (d, vec![r])
            }
            Shape::EvaluatorPairwise => {
                let (d, r) = papers::evaluator_pairwise(name, records, diags);
                (d, vec![r])
            }
            Shape::EvaluatorPointwise => {
                let (d, r) = papers::evaluator_pointwise(name, records, diags);
                (d, vec![r])
            }
            Shape::Pairwise => (papers::pairwise(name, records, diags), Vec::new()),
            Shape::MtBenchHuman => (papers::mt_bench_human(name, records, diags), Vec::new()),
            Shape::Scoring => (papers::scoring(name, records, diags), Vec::new()),
        };
        (shape.format(), dataset, runs)
    });
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
    // (An array of strings or numbers, as a Chiang & Lee record's `all_responses`, makes it a
    // single record, not a wrapper.)
    let arrays: Vec<_> = top
        .0
        .iter()
        .filter(|(_, v)| {
            v.get().strip_prefix('[').is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.starts_with('{') || rest.starts_with(']')
            })
        })
        .collect();
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
    let parts = from_records(name, &[Record { line: 1, raw: whole }], format, mapping, diags)?;
    // One record of a known shape is a (small) file of that shape; one object of no known
    // shape is not a table of records, unless the user mapped its columns.
    if mapping.is_none() && matches!(parts.0, Format::Json | Format::Jsonl) {
        // CoEval's per-criterion summaries are statistics, not items.
        let summary_of = |fields: &[&str]| {
            !top.0.is_empty()
                && top
                    .0
                    .iter()
                    .all(|(_, v)| Obj::parse(v).is_some_and(|o| fields.iter().all(|f| o.has(f))))
        };
        let coeval_summary = if summary_of(&["pass", "delete", "revise", "add"]) {
            Some("per-criterion action shares (`*_criteria_to_action.json`)")
        } else if summary_of(&["improve", "decrease", "unchange"]) {
            Some("per-criterion score changes (`*_score_change.json`)")
        } else {
            None
        };
        if let Some(what) = coeval_summary {
            return Err(LoadError::UnknownFormat {
                file: name.to_owned(),
                detail: format!(
                    "CoEval's {what}: a summary, not a dataset; `concord coeval` and the CoEval screen read it with the other released files"
                ),
            });
        }
        if annotations::is_annotations(&top) {
            let (dataset, runs) = annotations::single(name, text, &top, diags)?;
            return Ok((Format::Annotations, dataset, runs, None));
        }
        let keys: Vec<&str> = top.0.iter().map(|(k, _)| k.as_ref()).take(8).collect();
        return Err(LoadError::UnknownFormat {
            file: name.to_owned(),
            detail: format!(
                "one JSON object whose keys ({}) match no format Concord knows, with no array of records inside",
                if keys.is_empty() { "none".to_owned() } else { keys.join(", ") }
            ),
        });
    }
    Ok(parts)
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
    // Straight to the CSV reader: code that opens the example (the app, at start-up) links
    // none of the JSON loaders, which the app keeps out of its first download.
    let name = crate::example::EXAMPLE_NAME;
    let mut diags = Vec::new();
    let text = crate::example::EXAMPLE_CSV;
    let table = mapping::read_delimited(name, text, b',', &mut diags)?;
    let (dataset, used) = tabular(name, &table, Some(&example_mapping()), &mut diags)?;
    finish(name, Format::Csv, dataset, Vec::new(), Some(used), diags)
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
