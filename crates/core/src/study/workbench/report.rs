//! What the Results screen shows, as one [`Report`]: the methods × attributes table (bold where
//! Williams' test beats the baseline, intervals when computed), parse failures, cost against
//! quality, agreement with the raters of "Rate it yourself", and every cell's scatter and
//! histograms. The screen renders it and `concord report` exports it, so the two agree byte
//! for byte. `concord table`'s table ([`run_table`]) is built here too.

use crate::data::Dataset;
use crate::report::figure::{Figure, Histogram, Scatter};
use crate::report::{Cell, Column as TableColumn, Report, Row as TableRow, Table, count};
use crate::run::{Price, ProviderId};
use crate::words;

use super::results::{
    self, BootstrapSpec, Column, Granularity, Interval, JudgedRun, RaterKind, ResultsTable,
    Statistic, bootstrap_interval, column_heading, value,
};
use super::scores::{Levels, Row};
use super::settings::{ExtraRater, Settings};

/// The results table's id: its export is `concord-results.<ext>`.
pub const RESULTS_TABLE: &str = "concord-results";

/// A cell of the results table under one of its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRef {
    pub method: usize,
    pub attribute: usize,
    pub column: Column,
}

/// Bootstrap intervals of the results table's cells (STATS_SPEC §8), with how they were drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CellIntervals {
    pub cells: Vec<(CellRef, Interval)>,
}

impl CellIntervals {
    pub fn get(&self, cell: CellRef) -> Option<&Interval> {
        self.cells.iter().find(|(c, _)| *c == cell).map(|(_, i)| i)
    }
}

/// The cells to bootstrap under `columns`, in table order (row by row).
pub fn interval_cells(table: &ResultsTable, columns: &[Column]) -> Vec<CellRef> {
    let mut out = Vec::new();
    for method in 0..table.methods.len() {
        for attribute in 0..table.attributes.len() {
            if table.cell(method, attribute).is_none() {
                continue;
            }
            for &column in columns {
                out.push(CellRef { method, attribute, column });
            }
        }
    }
    out
}

/// The bootstrap interval of one cell under the view's resampling settings; `None` when the
/// statistic is undefined on too many resamples or the cell has too few items.
pub fn cell_interval(
    dataset: &Dataset,
    table: &ResultsTable,
    cell: CellRef,
    settings: &Settings,
) -> Option<Interval> {
    let c = table.cell(cell.method, cell.attribute)?;
    // Labels have no correlation to resample (`scores::LABELS_REASON`).
    let a = dataset.attribute_index(table.attributes.get(cell.attribute)?)?;
    if dataset.attributes[a].scale.kind == crate::data::ScaleKind::Categorical {
        return None;
    }
    let spec = BootstrapSpec {
        statistic: cell.column.0,
        level: cell.column.1,
        resamples: settings.resamples,
        seed: settings.seed,
        confidence: settings.confidence,
    };
    bootstrap_interval(dataset, table.attributes.get(cell.attribute)?, &c.scores.scores, spec)
}

/// Every cell's interval at once (the CLI; the screen computes them a cell at a time).
pub fn all_intervals(
    dataset: &Dataset,
    table: &ResultsTable,
    settings: &Settings,
) -> CellIntervals {
    let cells = interval_cells(table, &settings.columns())
        .into_iter()
        .filter_map(|c| Some((c, cell_interval(dataset, table, c, settings)?)))
        .collect();
    CellIntervals { cells }
}

fn levels(row: &Row, stat: Statistic) -> &Levels {
    match stat {
        Statistic::Pearson => &row.pearson,
        Statistic::Spearman => &row.spearman,
        Statistic::KendallB => &row.kendall_b,
    }
}

/// The items (dataset level) or documents (document level) a value rests on.
fn n_of(row: &Row, (stat, level): Column) -> usize {
    match level {
        Granularity::Dataset => row.n,
        Granularity::Document => levels(row, stat).documents,
    }
}

fn undefined_reason(row: &Row, (stat, level): Column) -> Option<&str> {
    let l = levels(row, stat);
    match level {
        Granularity::Dataset => l.dataset_undefined.as_deref(),
        Granularity::Document => l.document_undefined.as_deref(),
    }
}

/// A p-value as a note shows it, with its relation: `= 0.0123`, `< 0.0001`.
fn p_text(p: f64) -> String {
    if p < 0.0001 { "< 0.0001".to_owned() } else { format!("= {p:.4}") }
}

/// The methods × attributes table under `columns` (one column per attribute, or several
/// grouped under it). A cell's note says n, parse failures, Williams' p on the column the test
/// compared (dataset-level Pearson r) and why a value is missing.
pub fn results_table(
    table: &ResultsTable,
    columns: &[Column],
    intervals: Option<&CellIntervals>,
    settings: &Settings,
) -> Table {
    let several = columns.len() > 1;
    let mut out = Table::new(RESULTS_TABLE, "Correlation with human ratings", "Method");
    for attribute in &table.attributes {
        for &(stat, level) in columns {
            let description = format!("{} at {}", stat.label(), level.label());
            out.columns.push(if several {
                TableColumn::number(column_heading((stat, level)))
                    .in_group(attribute.clone())
                    .with_latex(format!("{} ({})", stat.latex_symbol(), level.name()))
                    .described(description)
            } else {
                TableColumn::number(attribute.clone()).described(description)
            });
        }
    }
    let base = table.baseline.as_deref();
    for (m, method) in table.methods.iter().enumerate() {
        let mut cells = Vec::new();
        for a in 0..table.attributes.len() {
            for &column in columns {
                let Some(c) = table.cell(m, a) else {
                    cells.push(Cell::blank("no run of this method on this attribute"));
                    continue;
                };
                let mut cell = Cell::number(value(&c.row, column.0, column.1), 3)
                    .with_n(n_of(&c.row, column))
                    .bold(c.bold_in(column));
                let mut note = match column.1 {
                    Granularity::Dataset => format!(
                        "n = {}, parse failures = {}",
                        words::int(c.row.n),
                        words::int(c.row.parse_failures)
                    ),
                    Granularity::Document => document_n(&c.row, column),
                };
                // Williams' test compares dataset-level Pearson r: its p belongs to that column.
                let tested = column == (Statistic::Pearson, Granularity::Dataset)
                    && base.is_some_and(|b| b != method);
                if tested && let Some(p) = c.row.williams.p {
                    cell = cell.with_p(Some(p));
                    note.push_str(&format!(", Williams p {} vs baseline", p_text(p)));
                    if c.row.williams.n != c.row.n {
                        note.push_str(&format!(
                            " (on the {} items both judges rated)",
                            c.row.williams.n
                        ));
                    }
                }
                if let Some(fallback) = c.scores.weighting {
                    note.push_str(&format!(
                        "; probability-weighted: {} of {} weighted by their log-probabilities, {} could not be ({})",
                        c.scores.weighted,
                        count(c.scores.samples, "sample", "samples"),
                        c.scores.fell_back,
                        fallback.describe()
                    ));
                }
                if cell.value.is_none()
                    && let Some(why) = undefined_reason(&c.row, column)
                {
                    note.push_str(&format!("; undefined: {why}"));
                }
                cell = cell.with_note(note);
                if let Some(i) =
                    intervals.and_then(|x| x.get(CellRef { method: m, attribute: a, column }))
                {
                    cell = cell.with_interval(i.low, i.high, i.confidence);
                }
                cells.push(cell.keyed(format!(
                    "{method}/{}/{}",
                    table.attributes[a],
                    column_key(column)
                )));
            }
        }
        out.rows.push(TableRow::new(method.clone(), cells));
    }
    let shown = if several {
        "Pearson r at dataset level and Kendall τ-b at document level (Chiang & Lee's layout)"
            .to_owned()
    } else {
        let (stat, level) =
            columns.first().copied().unwrap_or((Statistic::Pearson, Granularity::Dataset));
        format!("{} at {}", stat.label(), level.label())
    };
    out.notes.push(format!("{shown}, against the human ratings."));
    if let Some(note) = single_item_documents(table, columns) {
        out.notes.push(note);
    }
    let labels: Vec<&str> = table
        .attributes
        .iter()
        .enumerate()
        .filter(|&(a, _)| {
            (0..table.methods.len()).any(|m| {
                table.cell(m, a).is_some_and(|c| {
                    c.row.pearson.dataset_undefined.as_deref() == Some(super::scores::LABELS_REASON)
                })
            })
        })
        .map(|(_, name)| name.as_str())
        .collect();
    if !labels.is_empty() {
        out.notes.push(format!(
            "{}: labels without order, so no correlation (the cells are blank); the judges' accuracy against the annotators is in “Can the judge replace the annotators?”.",
            labels.join(", ")
        ));
    }
    match &table.baseline {
        Some(b) => out.notes.push(format!(
            "Bold: Williams' test says the method's dataset-level Pearson r is higher than {b}'s (one-sided p < 0.05)."
        )),
        None => out.notes.push("No baseline chosen: no Williams' test.".to_owned()),
    }
    if intervals.is_some_and(|i| !i.cells.is_empty()) {
        out.notes.push(format!(
            "Intervals: {:.0} % percentile bootstrap, {} resamples, seed {} (items resampled at dataset level, documents at document level).",
            settings.confidence * 100.0,
            settings.resamples,
            settings.seed
        ));
    }
    if table.kinds.iter().any(|k| matches!(k, results::RunKind::Jury { .. })) {
        // Only judges are members (not ensembles, probes or human-corrected rows).
        let members: Vec<&str> = table.judges().map(|m| table.methods[m].as_str()).collect();
        out.notes.push(format!(
            "Juries: on each attribute, an item's score is the mean (median) of the methods that scored it ({}); the judge audit tests each jury against each member.",
            members.join(", ")
        ));
    }
    if table.kinds.iter().any(|k| matches!(k, results::RunKind::Ensemble { .. })) {
        out.notes.push("Ensembles: an item's score is the mean of the named methods' scores (of those that scored it); the judge audit tests each ensemble against its members.".to_owned());
    }
    for e in &table.errors {
        out.notes.push(format!("Not shown: {e}"));
    }
    out
}

/// A document-level cell's note: its items and documents, and — when the value rests on fewer
/// documents than hold the items — on how many it does (the cell's n).
fn document_n(row: &Row, column: Column) -> String {
    let valid = n_of(row, column);
    if valid == row.documents {
        format!(
            "n = {} items, {} documents, parse failures = {}",
            words::int(row.n),
            words::int(valid),
            words::int(row.parse_failures)
        )
    } else {
        format!(
            "n = {} items in {}, {} defined on {} of them, parse failures = {}",
            words::int(row.n),
            words::count(row.documents, "document", "documents"),
            column.0.label(),
            words::int(valid),
            words::int(row.parse_failures)
        )
    }
}

/// The note under a table showing a document-level column when no document holds two rated
/// items: why every such cell is blank, and what to do (a file without a document column makes
/// each row its own document).
fn single_item_documents(table: &ResultsTable, columns: &[Column]) -> Option<String> {
    if !columns.iter().any(|c| c.1 == Granularity::Document) {
        return None;
    }
    // Labels have no correlation at either level, whatever their documents (said apart).
    let rows: Vec<&Row> = table
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|c| &c.row)
        .filter(|r| r.pearson.dataset_undefined.as_deref() != Some(super::scores::LABELS_REASON))
        .collect();
    let all_single = !rows.is_empty() && rows.iter().all(|r| r.documents_with_several == 0);
    all_single.then(|| {
        let documents = rows.iter().map(|r| r.documents).max().unwrap_or(0);
        format!(
            "Document level is undefined: each of the {} holds one rated item, and a correlation within a document needs two or more (several systems' outputs for one input). A file without a document column makes each row its own document; on the Data screen, map the column that says which input an output answers as “document”.",
            words::count(documents, "document", "documents")
        )
    })
}

/// `pearson_dataset`, `kendall_b_document`: a column in keys and CSV names.
pub fn column_key((stat, level): Column) -> String {
    format!("{}_{}", stat.name(), level.name())
}

/// Samples read and unparseable, per method and attribute.
pub fn parse_failures_table(table: &ResultsTable) -> Table {
    let mut out = Table::new("parse-failures", "Parse failures", "Method");
    out.columns = vec![
        TableColumn::text("Attribute"),
        TableColumn::number("Samples"),
        TableColumn::number("Unparseable"),
        TableColumn::number("Unparseable, cut off").described(
            "unparseable samples the provider cut off at the token limit (finish_reason length): the rating was never written",
        ),
        TableColumn::number("Unparseable, complete").described(
            "unparseable samples that ended by themselves: the judge wrote no rating the parser could read",
        ),
        TableColumn::number("Cut off, all")
            .described("samples cut off at the token limit, whether a rating could be read or not"),
    ];
    // Columns for probability-weighted methods, when the table has one.
    let weighted = table.cells.iter().flatten().flatten().any(|c| c.scores.weighting.is_some());
    if weighted {
        out.columns.push(TableColumn::number("Weighted").described(
            "samples scored G-Eval's way: Σ p(s)·s over the scale's tokens at the rating's token",
        ));
        out.columns.push(TableColumn::number("Not weighted").described(
            "samples with a rating but no usable log-probabilities at it (the provider returned none, or the rating's token has no alternatives): left out, or read plainly, as the method says",
        ));
    }
    let mut cut = 0;
    let mut fell_back = 0;
    for (m, method) in table.methods.iter().enumerate() {
        for (a, attribute) in table.attributes.iter().enumerate() {
            if let Some(c) = table.cell(m, a) {
                let s = &c.scores;
                cut += s.cut_off;
                let key = format!("{method}/{attribute}");
                let mut cells = vec![
                    Cell::text(attribute.clone()),
                    Cell::count(s.samples),
                    Cell::count(s.parse_failures).keyed(format!("{key}/unparseable")),
                    Cell::count(s.cut_off_failures).keyed(format!("{key}/cut_off_failures")),
                    Cell::count(s.parse_failures.saturating_sub(s.cut_off_failures))
                        .keyed(format!("{key}/complete_failures")),
                    Cell::count(s.cut_off).keyed(format!("{key}/cut_off")),
                ];
                if weighted {
                    match s.weighting {
                        Some(fallback) => {
                            fell_back += s.fell_back;
                            cells.push(Cell::count(s.weighted).keyed(format!("{key}/weighted")));
                            cells.push(
                                Cell::count(s.fell_back)
                                    .keyed(format!("{key}/not_weighted"))
                                    .with_note(fallback.describe()),
                            );
                        }
                        None => {
                            cells.push(Cell::blank("not a probability-weighted method"));
                            cells.push(Cell::blank("not a probability-weighted method"));
                        }
                    }
                }
                out.rows.push(TableRow::new(method.clone(), cells));
            }
        }
    }
    if fell_back > 0 {
        out.notes.push(format!(
            "{} could not be weighted by their log-probabilities (the provider returned none at the rating, or no alternatives): a probability-weighted method left them out or read their rating plainly, as set on the Judge screen.",
            count(fell_back, "sample with a rating", "samples with a rating")
        ));
    }
    if cut > 0 {
        out.notes.push(format!(
            "{} cut off at the token limit: raise Max tokens on the Judge screen (an analyze-rate answer, or a reasoning model's thinking, needs room before its rating).",
            count(cut, "sample was", "samples were")
        ));
    }
    out
}

/// The model the runs are priced with, and whether it is the one they were made with.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing {
    pub provider: ProviderId,
    pub model: String,
    /// The list price, when the table knows the model.
    pub price: Option<Price>,
    /// Samples one call returns (the prompt is paid once per call).
    pub samples_per_call: u32,
    /// `true` when this is the model the runs were made with, `false` when it is the one
    /// selected on the Run screen (imported runs that do not say).
    pub made_with: bool,
}

/// Quality (the first shown column's statistic, averaged over attributes) against estimated
/// tokens and cost, per method.
pub fn cost_table(
    table: &ResultsTable,
    runs: &[JudgedRun],
    settings: &Settings,
    pricing: &Pricing,
) -> Table {
    let (statistic, level) =
        settings.columns().first().copied().unwrap_or((Statistic::Pearson, Granularity::Dataset));
    let rows = results::cost_quality(
        table,
        runs,
        statistic,
        level,
        pricing.samples_per_call,
        pricing.price,
    );
    let mut out = Table::new("cost-quality", "Cost and quality", "Method");
    out.columns = vec![
        TableColumn::number("Quality (mean over attributes)"),
        TableColumn::number("Tokens in"),
        TableColumn::number("Tokens out"),
        TableColumn::number("Est. cost"),
        TableColumn::number("Quality per $"),
    ];
    // Every run some row prices, once: what the note says the tokens are.
    let mut used = results::RunUsage::default();
    for r in
        runs.iter().filter(|r| (0..table.methods.len()).any(|m| results::is_cost_of(table, m, r)))
    {
        used.add(results::run_usage(r, pricing.samples_per_call));
    }
    let kept = used.reported_calls > 0 || used.batch_calls > 0;
    for r in rows {
        let cost = match r.cost_usd {
            Some(c) => {
                let cell =
                    Cell { value: Some(c), text: words::usd(c), decimals: 4, ..Cell::default() };
                // Where some runs kept what the providers said, each row says what it priced.
                if kept {
                    cell.with_note(cost_source(r.reported_calls, r.calls, r.batch_calls))
                } else {
                    cell
                }
            }
            None => Cell::text("unknown").with_note("no price for this model"),
        };
        // Why a quality per dollar is missing, said rather than shown as a number.
        let per_usd = match (r.quality_per_usd, r.quality, r.cost_usd) {
            (Some(v), _, _) => Cell::number(Some(v), 1),
            (None, Some(q), Some(c)) if c > 0.0 && q <= 0.0 => Cell::number(None, 1)
                .with_note("undefined: the quality is not positive, so it has no worth per dollar"),
            (None, _, Some(c)) if c <= 0.0 => {
                Cell::number(None, 1).with_note("undefined: the runs cost nothing")
            }
            (None, None, _) => Cell::number(None, 1).with_note("undefined: no quality to divide"),
            (None, _, None) => {
                Cell::number(None, 1).with_note("undefined: no price for this model")
            }
            _ => Cell::number(None, 1),
        };
        out.rows.push(TableRow::new(
            r.method,
            vec![
                Cell::number(r.quality, 3),
                Cell::count(r.input_tokens as usize),
                Cell::count(r.output_tokens as usize),
                cost,
                per_usd,
            ],
        ));
    }
    let model = if pricing.model.is_empty() { "(no model)" } else { pricing.model.as_str() };
    let provider = pricing.provider.preset().name;
    let which = if pricing.made_with {
        "the model the runs were made with"
    } else {
        "the model selected on the Run screen"
    };
    let (statistic, level) = (statistic.label(), level.label());
    if !kept {
        out.notes.push(format!(
            "Quality is {statistic} at {level}. Tokens are estimated from the prompts and responses (4 characters a token), plus the reasoning tokens providers reported as output; cost uses the shipped list price of {model} on {provider} ({which})."
        ));
        return out;
    }
    let calls = usize::try_from(used.calls()).unwrap_or(usize::MAX);
    let reported = usize::try_from(used.reported_calls).unwrap_or(usize::MAX);
    let tokens = if reported == calls {
        format!(
            "Tokens are the usage the providers reported for {}.",
            if calls == 1 {
                "the call".to_owned()
            } else {
                format!("all {}", count(calls, "call", "calls"))
            }
        )
    } else if reported == 0 {
        "Tokens are estimated from the prompts and responses (4 characters a token), plus the reasoning tokens providers reported as output.".to_owned()
    } else {
        format!(
            "Tokens are the usage the providers reported for {} of {}; the other {} {} estimated from their prompts and responses (4 characters a token, plus the reasoning tokens providers reported as output).",
            words::int(reported),
            count(calls, "call", "calls"),
            words::int(calls - reported),
            words::plural(calls - reported, "is", "are"),
        )
    };
    let batch = match usize::try_from(used.batch_calls).unwrap_or(usize::MAX) {
        0 => String::new(),
        n => format!(
            "; {} answered through a provider's batch API at {}% of it (the batch discount)",
            count(n, "call", "calls"),
            crate::run::batch::BATCH_DISCOUNT * 100.0,
        ),
    };
    out.notes.push(format!(
        "Quality is {statistic} at {level}. {tokens} Cost uses the shipped list price of {model} on {provider} ({which}){batch}."
    ));
    out
}

/// What a row's cost was computed from, said in its cell's note.
fn cost_source(reported: u64, calls: u64, batch: u64) -> String {
    let n = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
    let tokens = if reported == calls {
        format!("the providers' reported usage of {}", count(n(calls), "call", "calls"))
    } else if reported == 0 {
        format!(
            "{} estimated at 4 characters a token (no usage reported)",
            count(n(calls), "call", "calls")
        )
    } else {
        format!(
            "the providers' reported usage of {} of {}, the rest estimated at 4 characters a token",
            words::int(n(reported)),
            count(n(calls), "call", "calls")
        )
    };
    match batch {
        0 => tokens,
        b if b == calls => format!("{tokens}, at the batch price"),
        b => format!("{tokens}; {} of them at the batch price", words::int(n(b))),
    }
}

/// For each attribute someone rated in "Rate it yourself": every rater (the dataset's humans,
/// those raters, the judges) against the human aggregate, and α with the dataset's raters.
pub fn agreement_tables(
    dataset: &Dataset,
    table: &ResultsTable,
    raters: &[ExtraRater],
) -> Vec<Table> {
    let mut attributes: Vec<&str> = Vec::new();
    for r in raters {
        if !attributes.contains(&r.attribute.as_str()) {
            attributes.push(&r.attribute);
        }
    }
    attributes
        .into_iter()
        .filter_map(|attribute| {
            let mut others: Vec<(String, RaterKind, Vec<Option<f64>>)> = raters
                .iter()
                .filter(|r| r.attribute == attribute)
                .map(|r| (r.name.clone(), RaterKind::Student, r.aligned(dataset)))
                .collect();
            if let Some(a) = table.attributes.iter().position(|x| x == attribute) {
                // Each row says what it is: only judges are listed as "judge".
                for (m, method) in table.methods.iter().enumerate() {
                    if let Some(c) = table.cell(m, a) {
                        let kind = RaterKind::of(table.kind(m));
                        others.push((method.clone(), kind, c.scores.scores.clone()));
                    }
                }
            }
            let agreement = results::agreement(dataset, attribute, &others)?;
            let mut out = Table::new(
                format!("agreement-{}", file_safe(attribute)),
                format!(
                    "{attribute}: α among the dataset's raters {}",
                    crate::report::format_value(agreement.alpha_humans, 3)
                ),
                "Rater",
            );
            out.columns = vec![
                TableColumn::text("Kind"),
                TableColumn::number("n"),
                TableColumn::number("r"),
                TableColumn::number("ρ"),
                TableColumn::number("τ-b"),
                TableColumn::number("α with the dataset's raters"),
            ];
            for r in agreement.rows {
                let kind = r.kind.label();
                out.rows.push(TableRow::new(
                    r.name,
                    vec![
                        Cell::text(kind),
                        Cell::count(r.n),
                        Cell::number(r.pearson, 3),
                        Cell::number(r.spearman, 3),
                        Cell::number(r.kendall_b, 3),
                        Cell::number(r.alpha_with_humans, 3),
                    ],
                ));
            }
            out.notes.push("Correlations are with the dataset's human aggregate; α is Krippendorff's (interval) over the dataset's raters plus this one.".to_owned());
            Some(out)
        })
        .collect()
}

/// A name usable in a file name: letters, digits, `.`, `-` and `_` kept, anything else `_`.
pub fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .collect()
}

/// A cell's three figures: the judge against the humans (one point per item), the judge's
/// ratings and the humans' ratings as histograms. Ids: `<method>-<attribute>-scatter`,
/// `<method>-<attribute>-judge-histogram`, `human-<attribute>-histogram`.
pub fn cell_figures(dataset: &Dataset, table: &ResultsTable, m: usize, a: usize) -> Vec<Figure> {
    let (Some(method), Some(attribute), Some(cell)) =
        (table.methods.get(m), table.attributes.get(a), table.cell(m, a))
    else {
        return Vec::new();
    };
    let Some(index) = dataset.attribute_index(attribute) else { return Vec::new() };
    let human = dataset.human_scores(index);
    let judge = &cell.scores.scores;
    let mut points = Vec::new();
    let mut labels = Vec::new();
    for ((item, h), j) in dataset.items.iter().zip(&human).zip(judge) {
        if let (Some(h), Some(j)) = (h, j) {
            points.push((*h, *j));
            labels.push(item.id.clone());
        }
    }
    let base = format!("{}-{}", file_safe(method), file_safe(attribute));
    // Both ratings are on the attribute's scale: every axis spans all of it.
    let scale = dataset.attributes.get(index).map(|a| (a.scale.min, a.scale.max));
    vec![
        Figure::new(
            format!("{base}-scatter"),
            Scatter::new(
                format!("{method} vs humans: {attribute}"),
                "human rating",
                "judge rating",
                points,
            )
            .labels(labels)
            .ranges(scale, scale),
        ),
        Figure::new(
            format!("{base}-judge-histogram"),
            Histogram::of_ratings(
                format!("{method}: judge ratings"),
                judge.iter().flatten().copied().collect(),
                scale,
            ),
        ),
        Figure::new(
            format!("human-{}-histogram", file_safe(attribute)),
            Histogram::of_ratings(
                format!("Humans: {attribute}"),
                human.iter().flatten().copied().collect(),
                scale,
            ),
        ),
    ]
}

/// Everything the Results screen shows for a view.
#[derive(Debug, Clone, Copy)]
pub struct ResultsView<'a> {
    pub dataset: &'a Dataset,
    pub table: &'a ResultsTable,
    pub runs: &'a [JudgedRun],
    pub raters: &'a [ExtraRater],
    pub settings: &'a Settings,
    pub intervals: Option<&'a CellIntervals>,
    pub pricing: &'a Pricing,
}

/// The Results screen's report: the results table, parse failures, cost and quality, the
/// agreement tables, seed 002's Table 4 beside the recomputed values when Chiang & Lee's released
/// files are on the table, then every cell's figures (a human histogram once per attribute).
pub fn report(view: ResultsView<'_>) -> Report {
    let ResultsView { dataset, table, runs, raters, settings, intervals, pricing } = view;
    let mut report = Report::default();
    report.tables.push(results_table(table, &settings.columns(), intervals, settings));
    report.tables.push(parse_failures_table(table));
    report.tables.push(cost_table(table, runs, settings, pricing));
    report.tables.extend(agreement_tables(dataset, table, raters));
    report.tables.extend(super::paper::reproduction(table, runs));
    for m in 0..table.methods.len() {
        for a in 0..table.attributes.len() {
            for f in cell_figures(dataset, table, m, a) {
                if report.figure(&f.id).is_none() {
                    report.figures.push(f);
                }
            }
        }
    }
    report
}

/// `concord table`: one row per run with n, parse failures, r, ρ and τ-b at both levels, and
/// Williams' p against the first run of the same attribute.
pub fn run_table(rows: &[Row]) -> Table {
    let mut out = Table::new("concord-table", "Judge runs against human ratings", "Run");
    out.columns = vec![
        TableColumn::text("Attribute"),
        TableColumn::number("n"),
        TableColumn::number("Parse failures"),
    ];
    for stat in Statistic::ALL {
        for level in [Granularity::Dataset, Granularity::Document] {
            out.columns.push(
                TableColumn::number(level.name()).in_group(stat.label()).described(format!(
                    "{} at {}",
                    stat.label(),
                    level.label()
                )),
            );
        }
    }
    out.columns.push(TableColumn::number("Williams p").described(
        "one-sided p that the run's dataset-level Pearson r is greater than the first run's of the same attribute",
    ));
    for r in rows {
        let mut cells =
            vec![Cell::text(r.attribute.clone()), Cell::count(r.n), Cell::count(r.parse_failures)];
        for stat in Statistic::ALL {
            for level in [Granularity::Dataset, Granularity::Document] {
                let column = (stat, level);
                let mut cell = Cell::number(value(r, stat, level), 3)
                    .with_n(n_of(r, column))
                    .keyed(format!("{}/{}", r.run, column_key(column)));
                if let Some(why) = undefined_reason(r, column).filter(|_| cell.value.is_none()) {
                    cell = cell.with_note(why.to_owned());
                }
                cells.push(cell);
            }
        }
        let mut p = Cell::p_value(r.williams.p).keyed(format!("{}/williams_p", r.run));
        if r.williams.p.is_some() && r.williams.n != r.n {
            p = p.with_note(format!("on the {} items both runs rated", r.williams.n));
        }
        cells.push(p);
        out.rows.push(TableRow::new(r.run.clone(), cells));
    }
    out.notes.push("Document level: one correlation per source document, averaged over the documents where it is defined. Williams' test compares each run with the first run of the same attribute.".to_owned());
    out
}

/// How runs made with `endpoint` are priced: the shipped list price of its model, or "no
/// model" (unknown price) when the runs do not say where they were made.
pub fn pricing(endpoint: Option<&crate::run::Endpoint>, made_with: bool) -> Pricing {
    pricing_typed(endpoint, made_with, None)
}

/// [`pricing`] with a price typed for the model (the Run screen's, or the one a bundle's
/// endpoint carries), used before the shipped list's.
pub fn pricing_typed(
    endpoint: Option<&crate::run::Endpoint>,
    made_with: bool,
    typed: Option<crate::run::Price>,
) -> Pricing {
    let (provider, model) = match endpoint {
        Some(e) => (e.provider, e.model.trim().to_owned()),
        None => (ProviderId::OpenAi, String::new()),
    };
    let caps = crate::run::Capabilities::for_model(provider, &model);
    let price = typed.or_else(|| {
        crate::run::PriceTable::shipped().ok().and_then(|(t, _)| t.lookup(provider, &model))
    });
    Pricing { provider, model, price, samples_per_call: caps.samples_per_call(), made_with }
}

/// The Results screen's report of a bundle, as the app shows it right after opening it: its
/// runs read, tabulated against its baseline, intervals when its settings say they are shown.
pub fn bundle_report(bundle: &crate::bundle::Bundle) -> Report {
    let dataset = &bundle.dataset.embedded;
    let table = bundle_table(bundle);
    let intervals =
        bundle.settings.intervals.then(|| all_intervals(dataset, &table, &bundle.settings));
    let endpoint = bundle.endpoint.as_ref().and_then(|e| e.to_endpoint());
    let typed = bundle.endpoint.as_ref().and_then(|e| e.price).map(crate::run::Price::from);
    let pricing = pricing_typed(endpoint.as_ref(), endpoint.is_some(), typed);
    let mut out = report(ResultsView {
        dataset,
        table: &table,
        runs: &bundle.runs,
        raters: &bundle.raters,
        settings: &bundle.settings,
        intervals: intervals.as_ref(),
        pricing: &pricing,
    });
    // The review panel's tables follow the Results screen's, as the screen shows them.
    if let Some(review) = &bundle.review {
        let judges = judges_table(bundle);
        out.tables.extend(review.tables(
            dataset,
            &judges,
            review_resampling(&bundle.settings),
            history_resampling(&bundle.settings),
        ));
    }
    out
}

/// How the review table's intervals are drawn: the Results screen's resamples, seed and
/// confidence while its intervals are shown, none otherwise (every action recomputes the
/// table, and a bootstrap of a large run takes long).
pub fn review_resampling(settings: &Settings) -> super::review::Resampling {
    super::review::Resampling {
        resamples: if settings.intervals { settings.resamples } else { 0 },
        ..history_resampling(settings)
    }
}

/// How the revision history's intervals of the difference are drawn: always, with the Results
/// screen's resamples, seed and confidence (computed once per revision, on the held-out
/// items only).
pub fn history_resampling(settings: &Settings) -> super::review::Resampling {
    super::review::Resampling {
        resamples: settings.resamples,
        seed: settings.seed,
        confidence: settings.confidence,
    }
}

/// The judge audit of a bundle as the Results screen's "Judge audit" panel shows it: its runs
/// read and tabulated as [`bundle_report`] does, audited under its settings.
pub fn bundle_audit(bundle: &crate::bundle::Bundle) -> Report {
    let dataset = &bundle.dataset.embedded;
    let table = judges_table(bundle);
    super::audit::Audit::new(dataset, &table, &bundle.settings).finish().report()
}

/// A bundle's runs read and tabulated against its baseline, with the juries when its settings
/// show them and a `<method> + review` row per reviewed run: the table the Results screen
/// shows after opening it.
pub fn bundle_table(bundle: &crate::bundle::Bundle) -> ResultsTable {
    let dataset = &bundle.dataset.embedded;
    let scored =
        super::settings::combined(&results::score(dataset, &bundle.runs), &bundle.settings);
    let scored = match bundle.review.as_ref().map(|r| r.merged()) {
        Some(Ok(merged)) => super::review::with_reviews(dataset, &scored, &merged.reviews),
        _ => scored,
    };
    results::tabulate(dataset, &scored, bundle.settings.baseline.as_deref())
}

/// [`bundle_table`] without the reviewed rows: the judges alone, as the judge audit and the
/// review panel read them.
pub fn judges_table(bundle: &crate::bundle::Bundle) -> ResultsTable {
    let dataset = &bundle.dataset.embedded;
    let scored =
        super::settings::combined(&results::score(dataset, &bundle.runs), &bundle.settings);
    results::tabulate(dataset, &scored, bundle.settings.baseline.as_deref())
}
