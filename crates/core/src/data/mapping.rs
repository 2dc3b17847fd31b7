//! Generic tabular data (CSV, TSV, JSON/JSONL of flat objects) and the column mapping that
//! turns it into rating items.
//!
//! The mapping is a serde type because the UI shows the guessed mapping and lets the user edit
//! it, then reloads with [`crate::data::load_with_mapping`].

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::diag::{Diagnostic, LoadError};
use super::model::{
    Attribute, Dataset, Fields, HumanRating, RaterScore, RatingItem, Scale, ScaleKind, content_id,
};
use super::text::{self, Obj, Record, Scalar};

/// Which column plays which role. Column names are matched exactly.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ColumnMapping {
    /// Unique item id; generated from the row number when absent.
    #[serde(default)]
    pub id: Option<String>,
    /// Groups outputs of the same input; when absent, a content hash of the inputs is used.
    #[serde(default)]
    pub document: Option<String>,
    /// The system (model) that produced the output; "system" when absent.
    #[serde(default)]
    pub system: Option<String>,
    /// Input fields, kept under their column names for prompt templates.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// The output being rated.
    #[serde(default)]
    pub output: Option<String>,
    /// Human rating columns.
    #[serde(default)]
    pub ratings: Vec<RatingColumn>,
}

/// One column of human scores: which attribute, which rater, on what scale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingColumn {
    pub column: String,
    pub attribute: String,
    /// Several columns with the same attribute and different raters are averaged by
    /// [`crate::data::model::mean_in_order`]; `None` means the column already is the aggregate.
    #[serde(default)]
    pub rater: Option<String>,
    /// When absent, the observed range of the attribute's values is used.
    #[serde(default)]
    pub scale: Option<Scale>,
}

/// Rows of named text cells, whatever file they came from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub columns: Vec<String>,
    /// (line, cells parallel to `columns`; `None` = absent or empty).
    pub rows: Vec<(usize, Vec<Option<String>>)>,
}

impl Table {
    fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }
}

/// Reads delimited text with the csv crate. `delimiter` is `b','` or `b'\t'`.
pub(crate) fn read_delimited(
    file: &str,
    text: &str,
    delimiter: u8,
    diags: &mut Vec<Diagnostic>,
) -> Result<Table, LoadError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(true)
        .from_reader(text.as_bytes());
    let columns: Vec<String> = match reader.headers() {
        Ok(h) => h.iter().map(|c| c.trim().to_owned()).collect(),
        Err(e) => {
            return Err(LoadError::Malformed {
                file: file.to_owned(),
                line: 1,
                message: format!("cannot read the header row: {e}"),
            });
        }
    };
    if columns.iter().all(String::is_empty) {
        return Err(LoadError::Empty { file: file.to_owned() });
    }
    let mut seen = BTreeMap::new();
    for (i, c) in columns.iter().enumerate() {
        if let Some(first) = seen.insert(c.as_str(), i) {
            diags.push(Diagnostic::warning(
                file,
                Some(1),
                Some(c),
                format!(
                    "column name repeated (columns {} and {}); the first one is used",
                    first + 1,
                    i + 1
                ),
            ));
        }
    }
    let mut table = Table { columns, rows: Vec::new() };
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {
                let line = record.position().map_or(0, |p| p.line() as usize);
                if record.len() == 1 && record.get(0).is_some_and(|c| c.trim().is_empty()) {
                    continue;
                }
                if record.len() != table.columns.len() {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        None,
                        format!(
                            "row has {} cells but the header has {}; missing cells are empty, extra cells ignored",
                            record.len(),
                            table.columns.len()
                        ),
                    ));
                }
                let cells = (0..table.columns.len())
                    .map(|i| record.get(i).filter(|c| !c.trim().is_empty()).map(str::to_owned))
                    .collect();
                table.rows.push((line, cells));
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line() as usize);
                diags.push(Diagnostic::warning(
                    file,
                    Some(line),
                    None,
                    format!("unreadable row: {e}; stopped reading"),
                ));
                break;
            }
        }
    }
    Ok(table)
}

/// Builds a table from JSON records (flat objects). Columns are the union of keys, in order of
/// first appearance; nested values are kept as JSON text.
pub(crate) fn table_from_records(
    file: &str,
    records: &[Record<'_>],
    diags: &mut Vec<Diagnostic>,
) -> Table {
    let mut table = Table::default();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let mut rows = Vec::with_capacity(records.len());
    for rec in records {
        let Some(obj) = Obj::parse(rec.raw) else {
            diags.push(Diagnostic::warning(
                file,
                Some(rec.line),
                None,
                "record is not a JSON object; skipped".to_owned(),
            ));
            continue;
        };
        let mut cells = Vec::new();
        for (k, raw) in &obj.0 {
            let i = *index.entry(k.to_string()).or_insert_with(|| {
                table.columns.push(k.to_string());
                table.columns.len() - 1
            });
            let value = match text::scalar(raw) {
                Scalar::Null => None,
                Scalar::Text(t) if t.trim().is_empty() => None,
                Scalar::Text(t) => Some(t),
                Scalar::Number(x) => Some(format!("{x}")),
                Scalar::Bool(b) => Some(b.to_string()),
                Scalar::Nested(s) => Some(s),
            };
            cells.push((i, value));
        }
        rows.push((rec.line, cells));
    }
    let width = table.columns.len();
    table.rows = rows
        .into_iter()
        .map(|(line, cells)| {
            let mut row = vec![None; width];
            for (i, v) in cells {
                row[i] = v;
            }
            (line, row)
        })
        .collect();
    table
}

const DOCUMENT_NAMES: &[&str] = &[
    "doc_id",
    "document_id",
    "docid",
    "source_id",
    "article_id",
    "dialogue_id",
    "dialog_id",
    "input_id",
    "question_id",
    "prompt_id",
    "doc",
    "document_key",
];
const SYSTEM_NAMES: &[&str] = &[
    "system_id",
    "system",
    "sys",
    "sys_id",
    "system_name",
    "model",
    "model_id",
    "model_name",
    "generator",
    "summary_id",
];
const OUTPUT_NAMES: &[&str] = &[
    "output",
    "system_output",
    "summary",
    "response",
    "answer",
    "prediction",
    "hypothesis",
    "completion",
    "generation",
    "candidate",
    "target",
    "output_text",
    "model_output",
    "generated_text",
    "reply",
];
const ID_NAMES: &[&str] = &["id", "item_id", "item", "uid", "example_id"];

fn find_named(table: &Table, names: &[&str], taken: &[usize]) -> Option<usize> {
    names.iter().find_map(|n| {
        table
            .columns
            .iter()
            .enumerate()
            .find_map(|(i, c)| (!taken.contains(&i) && c.eq_ignore_ascii_case(n)).then_some(i))
    })
}

/// Splits `coherence_r1` into (`coherence`, `r1`): a rater suffix is `r`, `rater`, `annotator`,
/// `expert`, `a` or nothing followed by digits, after `_`, `-` or `.`.
fn split_rater(column: &str) -> (String, Option<String>) {
    if let Some(pos) = column.rfind(['_', '-', '.']) {
        let (attr, suffix) = (&column[..pos], &column[pos + 1..]);
        let lower = suffix.to_ascii_lowercase();
        let digits = lower.trim_start_matches(|c: char| c.is_ascii_alphabetic());
        let prefix = &lower[..lower.len() - digits.len()];
        let rater_prefix =
            matches!(prefix, "" | "r" | "rater" | "annotator" | "ann" | "expert" | "a" | "judge");
        if !attr.is_empty()
            && !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && rater_prefix
        {
            return (attr.to_owned(), Some(suffix.to_owned()));
        }
    }
    (column.to_owned(), None)
}

/// Splits `coherence_a` into (`coherence`, `a`): a one-letter suffix after `_`, `-` or `.`.
/// Only a rater when another numeric column shares the stem (see [`guess`]).
fn split_letter(column: &str) -> Option<(&str, &str)> {
    let pos = column.rfind(['_', '-', '.'])?;
    let (stem, suffix) = (&column[..pos], &column[pos + 1..]);
    (!stem.is_empty() && suffix.len() == 1 && suffix.bytes().all(|b| b.is_ascii_alphabetic()))
        .then_some((stem, suffix))
}

/// Guesses a mapping from column names and contents: id/document/system/output by common
/// names, numeric columns as ratings (with `_r1`-style suffixes as raters, and one-letter
/// suffixes such as `coherence_a`, `coherence_b` as raters when two or more numeric columns
/// share the stem), remaining text columns as inputs — or, when no column is named as an output
/// and only one text column remains, that column as the output.
pub(crate) fn guess(table: &Table) -> ColumnMapping {
    let mut taken = Vec::new();
    let pick = |names: &[&str], taken: &mut Vec<usize>| {
        let i = find_named(table, names, taken);
        if let Some(i) = i {
            taken.push(i);
        }
        i.map(|i| table.columns[i].clone())
    };
    let id = pick(ID_NAMES, &mut taken);
    let document = pick(DOCUMENT_NAMES, &mut taken);
    let system = pick(SYSTEM_NAMES, &mut taken);
    let output = pick(OUTPUT_NAMES, &mut taken);
    let mut inputs = Vec::new();
    let mut ratings = Vec::new();
    for (i, name) in table.columns.iter().enumerate() {
        if taken.contains(&i) || name.is_empty() {
            continue;
        }
        let (filled, numbers) = fill(table, i);
        let any = filled > 0;
        // A majority of numbers makes a rating column: a stray "x" or "n/a" in a score column
        // should cost one diagnostic for that cell, not turn the column into text.
        if any && numbers * 2 > filled {
            let (attribute, rater) = split_rater(name);
            ratings.push(RatingColumn { column: name.clone(), attribute, rater, scale: None });
        } else if any {
            inputs.push(name.clone());
        }
    }
    // No column named as an output, and one text column: that text is what the humans rated
    // (`id,text,system,human score`), not an input to it. With two or more text columns, which
    // one is the output is not guessed.
    let output = match output {
        None if inputs.len() == 1 => inputs.pop(),
        output => output,
    };
    // `fluency_A`, `fluency_B`: one attribute rated by A and B. A lone `score_x` stays as is.
    let stems: Vec<Option<String>> = ratings
        .iter()
        .map(|r| {
            (r.rater.is_none())
                .then(|| split_letter(&r.column).map(|(stem, _)| stem.to_ascii_lowercase()))
                .flatten()
        })
        .collect();
    let firsts: Vec<Option<String>> =
        ratings.iter().map(|r| split_letter(&r.column).map(|(stem, _)| stem.to_owned())).collect();
    for (i, r) in ratings.iter_mut().enumerate() {
        let Some(stem) = &stems[i] else { continue };
        if stems.iter().filter(|s| s.as_ref() == Some(stem)).count() < 2 {
            continue;
        }
        // The attribute is named as the group's first column spells its stem.
        let first = stems.iter().position(|s| s.as_ref() == Some(stem)).unwrap_or(i);
        if let (Some(attribute), Some((_, letter))) = (&firsts[first], split_letter(&r.column)) {
            r.attribute = attribute.clone();
            r.rater = Some(letter.to_owned());
        }
    }
    ColumnMapping { id, document, system, inputs, output, ratings }
}

/// How many example values [`ColumnInfo::samples`] holds.
pub const SAMPLE_VALUES: usize = 3;

/// A column of a tabular file, as the mapping editor lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnInfo {
    pub name: String,
    /// The first few non-empty values in file order (long texts clipped).
    pub samples: Vec<String>,
    /// Most of its non-empty cells are numbers (what makes the guess read it as a rating).
    pub numeric: bool,
}

/// (filled cells, numeric cells) of column `i`.
fn fill(table: &Table, i: usize) -> (usize, usize) {
    let (mut filled, mut numbers) = (0usize, 0usize);
    for (_, cells) in &table.rows {
        if let Some(v) = &cells[i] {
            filled += 1;
            numbers += usize::from(v.trim().parse::<f64>().is_ok_and(f64::is_finite));
        }
    }
    (filled, numbers)
}

/// The columns of `table` in file order with a few example values each.
pub(crate) fn column_infos(table: &Table) -> Vec<ColumnInfo> {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let samples = table
                .rows
                .iter()
                .filter_map(|(_, cells)| cells[i].as_deref())
                .take(SAMPLE_VALUES)
                .map(|v| {
                    let v = v.trim();
                    match v.char_indices().nth(60) {
                        Some((cut, _)) => format!("{}…", &v[..cut]),
                        None => v.to_owned(),
                    }
                })
                .collect();
            let (filled, numbers) = fill(table, i);
            ColumnInfo { name: name.clone(), samples, numeric: filled > 0 && numbers * 2 > filled }
        })
        .collect()
}

/// What one column does in a mapping; the editor shows one per column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Role {
    Ignore,
    Id,
    Document,
    System,
    Input,
    Output,
    Rating {
        attribute: String,
        #[serde(default)]
        rater: Option<String>,
        #[serde(default)]
        scale: Option<Scale>,
    },
}

impl Role {
    /// A short name for the role (also the value of the editor's options).
    pub fn name(&self) -> &'static str {
        match self {
            Role::Ignore => "ignore",
            Role::Id => "item id",
            Role::Document => "document",
            Role::System => "system",
            Role::Input => "input field",
            Role::Output => "output",
            Role::Rating { .. } => "rating",
        }
    }

    /// Every role name, in the order the editor offers them.
    pub const NAMES: [&'static str; 7] =
        ["ignore", "item id", "document", "system", "input field", "output", "rating"];
}

/// One problem with a mapping being edited. `blocking` ones keep it from being applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappingProblem {
    pub column: Option<String>,
    pub message: String,
    pub blocking: bool,
}

impl ColumnMapping {
    /// The role of each of `columns`, in order (a column named twice keeps its first role of
    /// id, document, system, output, rating, input).
    pub fn roles(&self, columns: &[ColumnInfo]) -> Vec<Role> {
        columns
            .iter()
            .map(|c| {
                let is = |o: &Option<String>| o.as_deref() == Some(c.name.as_str());
                if is(&self.id) {
                    Role::Id
                } else if is(&self.document) {
                    Role::Document
                } else if is(&self.system) {
                    Role::System
                } else if is(&self.output) {
                    Role::Output
                } else if let Some(r) = self.ratings.iter().find(|r| r.column == c.name) {
                    Role::Rating {
                        attribute: r.attribute.clone(),
                        rater: r.rater.clone(),
                        scale: r.scale,
                    }
                } else if self.inputs.contains(&c.name) {
                    Role::Input
                } else {
                    Role::Ignore
                }
            })
            .collect()
    }

    /// The mapping that gives `columns[i]` the role `roles[i]`: inputs and ratings in file
    /// order; when a single role is given to several columns, the first wins (see
    /// [`validate_roles`], which reports it). Names are trimmed; empty raters mean none.
    pub fn from_roles(columns: &[ColumnInfo], roles: &[Role]) -> ColumnMapping {
        let mut m = ColumnMapping::default();
        for (c, role) in columns.iter().zip(roles) {
            let name = Some(c.name.clone());
            match role {
                Role::Ignore => {}
                Role::Id => m.id = m.id.take().or(name),
                Role::Document => m.document = m.document.take().or(name),
                Role::System => m.system = m.system.take().or(name),
                Role::Output => m.output = m.output.take().or(name),
                Role::Input => m.inputs.push(c.name.clone()),
                Role::Rating { attribute, rater, scale } => m.ratings.push(RatingColumn {
                    column: c.name.clone(),
                    attribute: attribute.trim().to_owned(),
                    rater: rater
                        .as_deref()
                        .map(str::trim)
                        .filter(|r| !r.is_empty())
                        .map(str::to_owned),
                    scale: *scale,
                }),
            }
        }
        m
    }
}

/// What is wrong with giving `columns` the `roles`: no output column, a single role given
/// twice, a rating without an attribute name, two columns for the same attribute and rater,
/// a scale whose minimum is not below its maximum (blocking); no rating column at all (not
/// blocking: a judge can still run, but there is nothing to correlate with).
pub fn validate_roles(columns: &[ColumnInfo], roles: &[Role]) -> Vec<MappingProblem> {
    let mut out = Vec::new();
    let block = |column: Option<&str>, message: String| MappingProblem {
        column: column.map(str::to_owned),
        message,
        blocking: true,
    };
    let pairs: Vec<(&ColumnInfo, &Role)> = columns.iter().zip(roles).collect();
    for single in [Role::Id, Role::Document, Role::System, Role::Output] {
        let named: Vec<&str> =
            pairs.iter().filter(|(_, r)| **r == single).map(|(c, _)| c.name.as_str()).collect();
        if named.len() > 1 {
            out.push(block(
                Some(named[1]),
                format!(
                    "only one column can be the {}: {} are",
                    single.name(),
                    named.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" and ")
                ),
            ));
        }
    }
    if !roles.contains(&Role::Output) {
        out.push(block(
            None,
            "no output column: choose the column with the text being rated".into(),
        ));
    }
    let mut seen: Vec<(String, Option<String>, &str)> = Vec::new();
    for (c, role) in &pairs {
        let Role::Rating { attribute, rater, scale } = role else { continue };
        let attribute = attribute.trim();
        if attribute.is_empty() {
            out.push(block(
                Some(c.name.as_str()),
                format!("rating column `{}` needs an attribute name", c.name),
            ));
            continue;
        }
        if let Some(s) = scale
            && s.min.partial_cmp(&s.max) != Some(std::cmp::Ordering::Less)
        {
            out.push(block(
                Some(c.name.as_str()),
                format!("the scale of `{}` must have a minimum below its maximum", c.name),
            ));
        }
        let rater = rater.as_deref().map(str::trim).filter(|r| !r.is_empty()).map(str::to_owned);
        if let Some((_, _, other)) = seen.iter().find(|(a, r, _)| a == attribute && *r == rater) {
            let who =
                rater.as_deref().map_or("as the aggregate".to_owned(), |r| format!("by rater {r}"));
            out.push(block(
                Some(c.name.as_str()),
                format!(
                    "`{other}` and `{}` both rate {attribute} {who}: give them different raters",
                    c.name
                ),
            ));
        } else {
            seen.push((attribute.to_owned(), rater, c.name.as_str()));
        }
    }
    if seen.is_empty() {
        out.push(MappingProblem {
            column: None,
            message: "no rating column: a judge can run, but there are no human ratings to compare it with".into(),
            blocking: false,
        });
    }
    out
}

/// Describes a mapping in one sentence, for the "guessed mapping" diagnostic.
pub(crate) fn describe(m: &ColumnMapping) -> String {
    let or_none =
        |c: &Option<String>| c.as_deref().map_or("(none)".to_owned(), |c| format!("`{c}`"));
    let ratings: Vec<String> = m
        .ratings
        .iter()
        .map(|r| match &r.rater {
            Some(rater) => format!("`{}` = {} by {rater}", r.column, r.attribute),
            None => format!("`{}` = {}", r.column, r.attribute),
        })
        .collect();
    format!(
        "guessed column mapping: document {}, system {}, output {}, inputs [{}], ratings [{}]",
        or_none(&m.document),
        or_none(&m.system),
        or_none(&m.output),
        m.inputs.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "),
        ratings.join(", ")
    )
}

/// An attribute being read: its name, declared scale, and (rater, column index) sources.
type MappedAttribute = (String, Option<Scale>, Vec<(Option<String>, usize)>);

/// How many repeated (document, system) rows get a warning of their own.
const MAX_REPEAT_WARNINGS: usize = 5;

/// Applies a mapping to a table. Rows without an output are skipped with a diagnostic;
/// unparsable or out-of-scale ratings are dropped with a diagnostic.
pub(crate) fn apply(
    file: &str,
    table: &Table,
    mapping: &ColumnMapping,
    diags: &mut Vec<Diagnostic>,
) -> Result<Dataset, LoadError> {
    let col = |name: &Option<String>, role: &'static str| -> Result<Option<usize>, LoadError> {
        match name {
            None => Ok(None),
            Some(c) => table.column(c).map(Some).ok_or_else(|| LoadError::BadMapping {
                file: file.to_owned(),
                column: c.clone(),
                role,
            }),
        }
    };
    let id_col = col(&mapping.id, "item id")?;
    let doc_col = col(&mapping.document, "document id")?;
    let sys_col = col(&mapping.system, "system")?;
    let out_col = col(&mapping.output, "output")?;
    let mut input_cols = Vec::new();
    for c in &mapping.inputs {
        input_cols.push((c.clone(), col(&Some(c.clone()), "input")?.unwrap_or(0)));
    }
    // Attributes in order of first rating column; each keeps its list of (rater, column).
    let mut attributes: Vec<MappedAttribute> = Vec::new();
    for r in &mapping.ratings {
        let i = col(&Some(r.column.clone()), "rating")?.unwrap_or(0);
        match attributes.iter_mut().find(|(a, _, _)| *a == r.attribute) {
            Some((_, scale, cols)) => {
                cols.push((r.rater.clone(), i));
                if scale.is_none() {
                    *scale = r.scale;
                }
            }
            None => attributes.push((r.attribute.clone(), r.scale, vec![(r.rater.clone(), i)])),
        }
    }

    if out_col.is_none() {
        diags.push(Diagnostic::warning(
            file,
            None,
            None,
            "no output column is mapped; items have an empty output".to_owned(),
        ));
    }
    if out_col.is_none() && input_cols.is_empty() && attributes.is_empty() && !table.rows.is_empty()
    {
        return Err(LoadError::UnknownFormat {
            file: file.to_owned(),
            detail: format!(
                "read as a table of {}, but none is an output, an input or a rating; map the columns in the editor",
                crate::words::count(table.columns.len(), "column", "columns")
            ),
        });
    }
    let output_name = mapping.output.clone().unwrap_or_else(|| "output".to_owned());
    let mut items = Vec::with_capacity(table.rows.len());
    let mut first_of_key: HashMap<(String, String), usize> = HashMap::new();
    let mut repeats = 0usize;
    let mut observed: Vec<(f64, f64, bool)> =
        vec![(f64::INFINITY, f64::NEG_INFINITY, true); attributes.len()];
    for (row_index, (line, cells)) in table.rows.iter().enumerate() {
        let line = *line;
        let get = |i: Option<usize>| i.and_then(|i| cells.get(i).cloned().flatten());
        let output = match out_col {
            Some(_) => match get(out_col) {
                Some(o) => o,
                None => {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        mapping.output.as_deref(),
                        "empty output; row skipped".to_owned(),
                    ));
                    continue;
                }
            },
            None => String::new(),
        };
        let mut inputs = Fields::default();
        for (name, i) in &input_cols {
            inputs.push(name.clone(), get(Some(*i)).unwrap_or_default());
        }
        let system_id = get(sys_col).unwrap_or_else(|| "system".to_owned());
        let id = get(id_col).unwrap_or_else(|| format!("row{}", row_index + 1));
        // With no document column, rows with the same inputs are one document; with no inputs
        // either, each row is its own.
        let document_id = match doc_col {
            Some(_) => get(doc_col).unwrap_or_default(),
            None if inputs.0.is_empty() => id.clone(),
            None => content_id(
                &inputs.0.iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>().join("\u{1f}"),
            ),
        };
        let mut ratings = Vec::with_capacity(attributes.len());
        for (a, (attr, scale, cols)) in attributes.iter().enumerate() {
            let mut raters = Vec::new();
            let mut aggregate = None;
            for (rater, i) in cols {
                let Some(cell) = cells.get(*i).and_then(|c| c.as_deref()) else { continue };
                let column = &table.columns[*i];
                let value = match cell.trim().parse::<f64>() {
                    Ok(v) if v.is_finite() => v,
                    _ => {
                        diags.push(Diagnostic::warning(
                            file,
                            Some(line),
                            Some(column),
                            format!("rating {:?} is not a number; dropped", text::clip(cell)),
                        ));
                        continue;
                    }
                };
                if let Some(s) = scale
                    && !s.contains(value)
                {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        Some(column),
                        format!(
                            "rating {value} is outside the {attr} scale {}–{}; dropped",
                            s.min, s.max
                        ),
                    ));
                    continue;
                }
                let o = &mut observed[a];
                o.0 = o.0.min(value);
                o.1 = o.1.max(value);
                o.2 &= value.fract() == 0.0;
                match rater {
                    Some(r) => raters.push(RaterScore { rater: r.clone(), score: value }),
                    None => aggregate = Some(value),
                }
            }
            ratings.push(match (aggregate, raters.is_empty()) {
                (Some(v), true) => Some(HumanRating::released(v)),
                (Some(v), false) => {
                    // An explicit aggregate column wins over our mean; raters are still kept.
                    Some(HumanRating { raters, ..HumanRating::released(v) })
                }
                (None, _) => HumanRating::from_raters(raters),
            });
        }
        // Document + system is the key released judge outputs join by, and the document
        // groups document-level correlations: a repeat is kept, but said.
        match first_of_key.entry((document_id.clone(), system_id.clone())) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(line);
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                repeats += 1;
                if repeats <= MAX_REPEAT_WARNINGS {
                    diags.push(Diagnostic::warning(
                        file,
                        Some(line),
                        mapping.system.as_deref().or(mapping.document.as_deref()),
                        format!(
                            "document {}, system {} again (first on line {}): released judge outputs, keyed by document and system, join to the first only (runs made in Concord join by item id); if a column tells these rows apart, map it as system or document",
                            text::clip(&document_id),
                            text::clip(&system_id),
                            o.get()
                        ),
                    ));
                }
            }
        }
        items.push(RatingItem {
            id,
            document_id,
            system_id,
            task: None,
            inputs,
            output_name: output_name.clone(),
            output,
            ratings,
            line,
        });
    }
    if repeats > MAX_REPEAT_WARNINGS {
        diags.push(Diagnostic::warning(
            file,
            None,
            None,
            format!(
                "{repeats} rows in all repeat an earlier row's document and system (the first {MAX_REPEAT_WARNINGS} are listed)"
            ),
        ));
    }
    let attributes = attributes
        .into_iter()
        .zip(observed)
        .map(|((name, scale, _), (lo, hi, integral))| {
            let scale = scale.unwrap_or(if lo > hi {
                Scale { min: 0.0, max: 0.0, kind: ScaleKind::Continuous }
            } else if integral && lo == 0.0 && hi == 1.0 {
                Scale::BINARY
            } else if integral {
                Scale::likert(lo, hi)
            } else {
                Scale { min: lo, max: hi, kind: ScaleKind::Continuous }
            });
            Attribute::new(name, scale)
        })
        .collect();
    Ok(Dataset { name: file.to_owned(), attributes, items, ..Dataset::default() })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rater_suffixes() {
        let check = |col: &str, attr: &str, rater: Option<&str>| {
            assert_eq!(split_rater(col), (attr.to_owned(), rater.map(str::to_owned)), "{col}");
        };
        check("coherence_r1", "coherence", Some("r1"));
        check("fluency-rater12", "fluency", Some("rater12"));
        check("overall_2", "overall", Some("2"));
        check("relevance", "relevance", None);
        check("score_final", "score_final", None);
        check("_r1", "_r1", None);
    }

    /// `id,text,system,human score` with 30 rows: 10 texts of each of 3 systems.
    fn generic(header: &str, row: impl Fn(usize) -> String) -> String {
        let mut out = format!("{header}\n");
        for i in 0..30 {
            out.push_str(&row(i));
            out.push('\n');
        }
        out
    }

    #[test]
    fn a_lone_text_column_beside_a_system_is_the_output() {
        let csv = generic("id,text,system,human score", |i| {
            format!("{i},\"Output number {i}.\",sys{},{}", i % 3, 1 + i % 5)
        });
        let loaded = crate::data::load("mine.csv", csv.as_bytes()).expect("loads");
        let m = loaded.mapping.as_ref().expect("a generic table has a mapping");
        assert_eq!(m.output.as_deref(), Some("text"));
        assert!(m.inputs.is_empty(), "{:?}", m.inputs);
        assert_eq!((m.id.as_deref(), m.system.as_deref()), (Some("id"), Some("system")));
        assert_eq!(m.ratings.len(), 1);
        assert_eq!(m.ratings[0].attribute, "human score");
        let items = &loaded.dataset.items;
        assert_eq!(items.len(), 30);
        assert_eq!(items[4].output, "Output number 4.");
        assert!(!loaded.diagnostics.iter().any(|d| d.message.contains("no output column")));
        // Without a document column each row is its own document: said, with what to do.
        assert_eq!(loaded.summary.counts.documents, 30);
        let note = crate::data::documents_note(&loaded).expect("a note");
        assert!(
            note.starts_with("No document column: every row is its own document. Each of the 30 documents holds one item, so document-level correlations"),
            "{note}"
        );
        assert!(note.contains("map the column that says which input as “document”"), "{note}");
    }

    #[test]
    fn documents_with_several_outputs_need_no_note() {
        let csv = generic("doc,text,system,human score", |i| {
            format!("d{},\"Output {i}.\",sys{},{}", i / 3, i % 3, 1 + i % 5)
        });
        let loaded = crate::data::load("mine.csv", csv.as_bytes()).expect("loads");
        let m = loaded.mapping.as_ref().expect("mapping");
        assert_eq!((m.document.as_deref(), m.output.as_deref()), (Some("doc"), Some("text")));
        assert_eq!(loaded.summary.counts.documents, 10);
        assert_eq!(crate::data::documents_note(&loaded), None);
    }

    #[test]
    fn two_text_columns_keep_the_output_unguessed() {
        // Which of two texts is rated is not guessed: both stay inputs, and the editor says so.
        let csv = generic("id,question,reply_text,system,score", |i| {
            format!("{i},Q{i}?,A{i}.,s{},{}", i % 2, 1 + i % 5)
        });
        let loaded = crate::data::load("mine.csv", csv.as_bytes()).expect("loads");
        let m = loaded.mapping.as_ref().expect("mapping");
        assert_eq!(m.output, None);
        assert_eq!(m.inputs, vec!["question".to_owned(), "reply_text".to_owned()]);
        // A named output still wins over the lone-text rule.
        let csv = generic("id,source,output,score", |i| format!("{i},S{i},O{i},{}", 1 + i % 5));
        let loaded = crate::data::load("mine.csv", csv.as_bytes()).expect("loads");
        let m = loaded.mapping.as_ref().expect("mapping");
        assert_eq!(
            (m.output.as_deref(), m.inputs.clone()),
            (Some("output"), vec!["source".to_owned()])
        );
    }
}
