//! The meta-evaluation workspace's view-model: released files in, the rows, tables, plots and
//! inspector records the screen shows out. Pure and natively tested.
//!
//! Every number comes from the core functions `concord meta` uses ([`concord_core::meta`]): a
//! file is analysed on its own by [`meta::analyze_file`], the per-format step of
//! [`meta::analyze`] (a test checks that the rows gathered from the files equal
//! `meta::analyze`'s report), so the browser can load files one at a time, yielding in between,
//! and drop one without recomputing the others. The JDEval judgements come from the loader's
//! [`concord_core::data::MetaAssessment`] (via [`meta::jdeval_records_from`]), BSMEval's branch
//! responses and scores from its `branches`.
//!
//! The debate layout ([`Debate`]): a released JDEval record is one round (the two evaluators'
//! assessments) and a decision (the meta response); a live MDEval debate ([`super::live`]) has
//! the opening assessments and then one round per question of the judge.

use std::collections::{BTreeMap, HashMap};

use concord_core::data::{self, Loaded, PairLabel, RecordKey};
use concord_core::judge::parse::Verdict;
use concord_core::meta::{
    self, BradleyTerryIntervals, EloOptions, EloResult, EvaluatorRow, FileAnalysis, JdEvalRecord,
    MatchSet, MetaProtocol, MetaScore, PostAccuracy, RankingAgreement, WinRates, names,
};
use concord_core::stats::{self, NullOutcome};

use super::live::{IndividualInput, PairInput, ScoredText};

use concord_core::report::format_value;

/// What a loaded file is to the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Evaluator results, pairwise (Table 1 accuracy).
    Pairwise,
    /// Evaluator results, pointwise (Table 1 Pearson).
    Pointwise,
    /// Meta-evaluator results, pairwise (Elo, win rates, Bradley–Terry, post accuracy).
    JdEval,
    /// Meta-evaluator results, individual scoring (Table 5).
    JdEvalI,
    /// Meta-evaluator results, branch-solve-merge (Table 6).
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

/// A JDEval file's analysis inputs and inspector records.
#[derive(Debug, Clone, PartialEq)]
pub struct JdEvalFile {
    pub meta_evaluator: String,
    pub records: Vec<JdEvalRecord>,
    pub set: MatchSet,
    pub win_rates: WinRates,
    pub post: PostAccuracy,
    pub debates: Vec<Debate>,
}

/// What the workspace computed from one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Evaluator(EvaluatorRow),
    MetaScore { score: MetaScore, records: Vec<BranchRecord> },
    JdEval(Box<JdEvalFile>),
    Nothing,
}

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
    /// Pairs a pairwise run can judge (evaluator-pairwise files), each with the file's verdict.
    pub pairs: Vec<PairInput>,
    /// Texts with an assessment JDEval-i / BSMEval runs can meta-evaluate (evaluator-pointwise
    /// files).
    pub individual: Vec<IndividualInput>,
    /// Texts with a human score individual-scoring judges can rate (scoring files,
    /// evaluator-pointwise files).
    pub texts: Vec<ScoredText>,
}

pub fn label_text(label: Option<PairLabel>) -> String {
    match label {
        Some(PairLabel::A) => "Answer 1".to_owned(),
        Some(PairLabel::B) => "Answer 2".to_owned(),
        Some(PairLabel::Tie) => "tie".to_owned(),
        None => "unknown".to_owned(),
    }
}

pub fn verdict_text(v: Option<Verdict>, first: &str, second: &str) -> String {
    match v {
        Some(Verdict::First) => first.to_owned(),
        Some(Verdict::Second) => second.to_owned(),
        Some(Verdict::Tie) => "equally good".to_owned(),
        None => "unreadable".to_owned(),
    }
}

fn debates(loaded: &Loaded, records: &[JdEvalRecord]) -> Vec<Debate> {
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
                verdict: match jd.winner {
                    Some(Verdict::Tie) | None => "draw".to_owned(),
                    v => verdict_text(v, &jd.evaluator_1, &jd.evaluator_2),
                },
                better_answer: verdict_text(jd.better_answer, "Answer 1", "Answer 2"),
            })
        })
        .collect()
}

fn branch_records(loaded: &Loaded) -> Vec<BranchRecord> {
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
    analyze_loaded(name, data::load(name, bytes).map_err(|e| e.to_string()))
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

/// [`analyze_file`] for a file already loaded (in a worker): `loaded` is the loader's result,
/// or its message.
pub fn analyze_loaded(name: &str, loaded: Result<Loaded, String>) -> MetaFile {
    let mut file = MetaFile {
        name: name.to_owned(),
        format: String::new(),
        kind: FileKind::Unused,
        counts: String::new(),
        diagnostics: Vec::new(),
        problem: None,
        content: Content::Nothing,
        pairs: Vec::new(),
        individual: Vec::new(),
        texts: Vec::new(),
    };
    let loaded = match loaded {
        Ok(l) => l,
        Err(e) => {
            file.problem = Some(e);
            return file;
        }
    };
    file.format = loaded.format.name().to_owned();
    file.counts = counts_text(&loaded);
    file.diagnostics = loaded.diagnostics.iter().map(ToString::to_string).collect();
    file.texts = super::live::scored_texts(&loaded);
    match meta::analyze_file(name, &loaded) {
        Ok(FileAnalysis::Evaluator(row)) => {
            if row.kind == "pairwise" {
                file.kind = FileKind::Pairwise;
                file.pairs = super::live::pair_inputs(&loaded);
            } else {
                file.kind = FileKind::Pointwise;
                file.individual = super::live::individual_inputs(&row.name, &loaded);
            }
            file.content = Content::Evaluator(row);
        }
        Ok(FileAnalysis::MetaScore(score)) => {
            file.kind = match score.protocol {
                MetaProtocol::JdEvalI => FileKind::JdEvalI,
                MetaProtocol::BsmEval => FileKind::BsmEval,
            };
            // JDEval-i files are large and their viewer adds little; BSMEval's branches are the
            // point of its inspector.
            let records = if score.protocol == MetaProtocol::BsmEval {
                branch_records(&loaded)
            } else {
                Vec::new()
            };
            file.content = Content::MetaScore { score, records };
        }
        Ok(FileAnalysis::JdEval { meta_evaluator, records }) => {
            file.kind = FileKind::JdEval;
            let debates = debates(&loaded, &records);
            file.content = Content::JdEval(Box::new(jdeval_file(meta_evaluator, records, debates)));
        }
        Err(e) => file.problem = Some(e.to_string()),
    }
    file
}

/// Elo, Bradley–Terry and the rest for one JDEval file, recomputed when the controls change.
#[derive(Debug, Clone, PartialEq)]
pub struct PairwiseResult {
    pub elo: EloResult,
    pub bradley_terry: BradleyTerryIntervals,
}

/// Bradley–Terry settings: bootstrap resamples and level, seeded like Elo.
pub const BT_LEVEL: f64 = 0.95;

/// Elo and Bradley–Terry of one JDEval file in one go (the page runs them in steps).
pub fn pairwise_result(
    file: &JdEvalFile,
    options: &EloOptions,
    resamples: usize,
) -> PairwiseResult {
    PairwiseResult {
        elo: meta::elo_ratings(&file.meta_evaluator, &file.set, options),
        bradley_terry: bradley_terry(file, options, resamples),
    }
}

/// Bradley–Terry with [`BT_LEVEL`] bootstrap intervals, seeded with the Elo seed.
pub fn bradley_terry(
    file: &JdEvalFile,
    options: &EloOptions,
    resamples: usize,
) -> BradleyTerryIntervals {
    meta::bradley_terry_intervals(&file.set, &options.params, resamples, BT_LEVEL, options.seed)
}

/// [`meta::elo_ratings`] in steps, so the browser can yield between them: the orders to play
/// ([`elo_orders`]), one rating vector per order ([`elo_run`]), then the mean and SD
/// ([`elo_summary`]). Same functions, same seeds, same summation order: the result equals
/// `meta::elo_ratings` (a test checks it).
pub fn elo_orders(set: &MatchSet, options: &EloOptions) -> Vec<Option<Vec<usize>>> {
    if options.shuffles == 0 {
        vec![None]
    } else {
        stats::shuffled_orders(set.matches.len(), options.shuffles, options.seed)
            .into_iter()
            .map(Some)
            .collect()
    }
}

/// The ratings after playing the matches in `order` (file order when `None`).
pub fn elo_run(set: &MatchSet, order: Option<&[usize]>, options: &EloOptions) -> Vec<f64> {
    stats::elo(set.evaluators.len(), &set.matches, order, NullOutcome::Tie, &options.params)
}

/// Mean and sample SD per evaluator over the runs: the core's summary of `meta::elo_ratings`.
pub use meta::elo_summary;

/// The evaluator rows and meta scores of `files`, sorted as [`meta::analyze`] sorts them.
pub fn report_rows(files: &[&MetaFile]) -> (Vec<EvaluatorRow>, Vec<MetaScore>) {
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

// ---------------------------------------------------------------------------------------------
// Tables and their exports.

/// A table cell: the value (full precision, for CSV), an optional spread shown beside it, the
/// text shown, and a key naming what it is (`gpt-4-1106-preview/accuracy`) for tests and tools.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub key: String,
    pub value: Option<f64>,
    pub spread: Option<f64>,
    pub text: String,
}

impl Cell {
    pub fn number(key: impl Into<String>, value: Option<f64>, decimals: usize) -> Cell {
        Cell { key: key.into(), value, spread: None, text: format_value(value, decimals) }
    }

    pub fn text(key: impl Into<String>, text: impl Into<String>) -> Cell {
        Cell { key: key.into(), value: None, spread: None, text: text.into() }
    }

    fn empty() -> Cell {
        Cell::text("", "")
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: String,
    pub cells: Vec<Cell>,
}

/// A table the screen shows and exports as CSV, Markdown and LaTeX.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Stable id: the `data-table` attribute and the export file name.
    pub id: String,
    pub title: String,
    /// Header of the label column.
    pub corner: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn latex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            'τ' => out.push_str("$\\tau$"),
            '–' => out.push_str("--"),
            c => out.push(c),
        }
    }
    out
}

impl Table {
    fn has_spread(&self, column: usize) -> bool {
        self.rows.iter().any(|r| r.cells.get(column).is_some_and(|c| c.spread.is_some()))
    }

    /// Values at full precision (the text where a cell has no value); a column whose cells carry
    /// a spread gets a companion `… sd` column.
    pub fn to_csv(&self) -> String {
        let mut header = vec![csv_field(&self.corner)];
        for (i, c) in self.columns.iter().enumerate() {
            header.push(csv_field(c));
            if self.has_spread(i) {
                header.push(csv_field(&format!("{c} sd")));
            }
        }
        let mut out = header.join(",") + "\n";
        for row in &self.rows {
            let mut fields = vec![csv_field(&row.label)];
            for i in 0..self.columns.len() {
                let cell = row.cells.get(i);
                fields.push(match cell {
                    Some(Cell { value: Some(v), .. }) => v.to_string(),
                    Some(c) if c.text != "–" => csv_field(&c.text),
                    _ => String::new(),
                });
                if self.has_spread(i) {
                    fields.push(
                        cell.and_then(|c| c.spread).map(|s| s.to_string()).unwrap_or_default(),
                    );
                }
            }
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// A GitHub-flavoured Markdown table of the shown texts.
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let mut out = format!("**{}**\n\n| {} |", esc(&self.title), esc(&self.corner));
        for c in &self.columns {
            out.push_str(&format!(" {} |", esc(c)));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(self.columns.len()));
        out.push('\n');
        for row in &self.rows {
            out.push_str(&format!("| {} |", esc(&row.label)));
            for i in 0..self.columns.len() {
                let text = row.cells.get(i).map(|c| c.text.as_str()).unwrap_or_default();
                out.push_str(&format!(" {} |", esc(text)));
            }
            out.push('\n');
        }
        out
    }

    /// A LaTeX `table` with a `tabular` (no package needed) of the shown texts.
    pub fn to_latex(&self) -> String {
        let mut out = format!(
            "\\begin{{table}}[t]\n\\centering\n\\caption{{{}}}\n\\begin{{tabular}}{{l{}}}\n\\hline\n{}",
            latex_escape(&self.title),
            "r".repeat(self.columns.len()),
            latex_escape(&self.corner)
        );
        for c in &self.columns {
            out.push_str(&format!(" & {}", latex_escape(c)));
        }
        out.push_str(" \\\\\n\\hline\n");
        for row in &self.rows {
            out.push_str(&latex_escape(&row.label));
            for i in 0..self.columns.len() {
                let text = row.cells.get(i).map(|c| c.text.as_str()).unwrap_or_default();
                out.push_str(&format!(" & {}", latex_escape(text)));
            }
            out.push_str(" \\\\\n");
        }
        out.push_str("\\hline\n\\end{tabular}\n\\end{table}\n");
        out
    }
}

/// The paper's order of the evaluator families, then other names alphabetically.
fn family_rank(name: &str) -> (usize, String) {
    let canonical = names::canonical(name);
    let rank = ["gpt4", "gpt35", "mistral", "qwen7b", "qwen14b", "qwen72b"]
        .iter()
        .position(|f| *f == canonical)
        .unwrap_or(usize::MAX);
    (rank, canonical)
}

/// Table 1: per evaluator (spellings joined by [`names::canonical`]) the accuracy with ties
/// as a class, without ties, and the Pearson of its pointwise scores.
pub fn table1(rows: &[EvaluatorRow]) -> Table {
    let mut by_family: BTreeMap<(usize, String), Vec<&EvaluatorRow>> = BTreeMap::new();
    for r in rows {
        by_family.entry(family_rank(&r.name)).or_default().push(r);
    }
    let table_rows = by_family
        .values()
        .map(|group| {
            let pairwise = group.iter().find(|r| r.kind == "pairwise");
            let pointwise = group.iter().find(|r| r.kind == "pointwise");
            let label = pairwise.or(pointwise).map(|r| r.name.clone()).unwrap_or_default();
            let cell =
                |r: Option<&&EvaluatorRow>, col: &str, pick: fn(&EvaluatorRow) -> Option<f64>| {
                    match r {
                        Some(r) => Cell::number(format!("{}/{col}", r.name), pick(r), 4),
                        None => Cell::text(String::new(), "–"),
                    }
                };
            Row {
                label,
                cells: vec![
                    cell(pairwise, "accuracy", |r| r.accuracy),
                    cell(pairwise, "accuracy_no_ties", |r| r.accuracy_no_ties),
                    pairwise.map_or_else(Cell::empty, |r| {
                        Cell::text(format!("{}/n_pairwise", r.name), r.n.to_string())
                    }),
                    cell(pointwise, "pearson", |r| r.pearson),
                    pointwise.map_or_else(Cell::empty, |r| {
                        Cell::text(format!("{}/n_pointwise", r.name), r.n.to_string())
                    }),
                ],
            }
        })
        .collect();
    Table {
        id: "table1".to_owned(),
        title: "Table 1: evaluators against humans".to_owned(),
        corner: "Evaluator".to_owned(),
        columns: vec![
            "Accuracy".to_owned(),
            "Accuracy (no ties)".to_owned(),
            "n pairs".to_owned(),
            "Pearson".to_owned(),
            "n items".to_owned(),
        ],
        rows: table_rows,
    }
}

/// Table 5 (JDEval-i) or 6 (BSMEval): meta-evaluators × evaluators, the mean meta score.
pub fn meta_table(scores: &[MetaScore], protocol: MetaProtocol) -> Table {
    let scores: Vec<&MetaScore> = scores.iter().filter(|s| s.protocol == protocol).collect();
    let mut columns: Vec<(usize, String)> =
        scores.iter().map(|s| family_rank(&s.evaluator)).collect();
    columns.sort();
    columns.dedup();
    let mut metas: Vec<((usize, String), String)> =
        scores.iter().map(|s| (family_rank(&s.meta_evaluator), s.meta_evaluator.clone())).collect();
    metas.sort();
    metas.dedup();
    let rows = metas
        .iter()
        .map(|(_, meta)| Row {
            label: meta.clone(),
            cells: columns
                .iter()
                .map(|(_, col)| {
                    scores
                        .iter()
                        .find(|s| {
                            &s.meta_evaluator == meta && &names::canonical(&s.evaluator) == col
                        })
                        .map_or_else(
                            || Cell::text(String::new(), "–"),
                            |s| {
                                Cell::number(
                                    format!("{}/{}", s.meta_evaluator, s.evaluator),
                                    s.mean,
                                    4,
                                )
                            },
                        )
                })
                .collect(),
        })
        .collect();
    let (id, title) = match protocol {
        MetaProtocol::JdEvalI => ("table5", "Table 5: JDEval-i average meta scores"),
        MetaProtocol::BsmEval => ("table6", "Table 6: BSMEval average meta scores"),
    };
    Table {
        id: id.to_owned(),
        title: title.to_owned(),
        corner: "Meta-evaluator".to_owned(),
        columns: columns.into_iter().map(|(_, c)| c).collect(),
        rows,
    }
}

/// Elo: meta-evaluators × evaluators, mean over shuffles with the SD beside it.
pub fn elo_table(results: &[EloResult]) -> Table {
    let mut columns: Vec<(usize, String)> =
        results.iter().flat_map(|r| r.ratings.keys().map(|k| family_rank(k))).collect();
    columns.sort();
    columns.dedup();
    let rows = results
        .iter()
        .map(|r| Row {
            label: r.meta_evaluator.clone(),
            cells: columns
                .iter()
                .map(|(_, col)| {
                    let name = r.ratings.keys().find(|k| &names::canonical(k) == col);
                    match name {
                        Some(name) => {
                            let mean = r.ratings.get(name).copied();
                            let sd = r.spread.get(name).copied();
                            Cell {
                                key: format!("{}/{name}", r.meta_evaluator),
                                value: mean,
                                spread: sd,
                                text: format!(
                                    "{} ({})",
                                    format_value(mean, 1),
                                    format_value(sd, 1)
                                ),
                            }
                        }
                        None => Cell::text(String::new(), "–"),
                    }
                })
                .collect(),
        })
        .collect();
    Table {
        id: "elo".to_owned(),
        title: "Elo over shuffled orders: mean (SD)".to_owned(),
        corner: "Meta-evaluator".to_owned(),
        columns: columns.into_iter().map(|(_, c)| c).collect(),
        rows,
    }
}

/// How the shuffle-averaged Elo of one meta-evaluator moves with the seed.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedSpread {
    pub meta_evaluator: String,
    pub seeds: usize,
    /// Per evaluator: mean and sample SD over the seeds of the mean rating (the core's
    /// `elo_seed_summary`).
    pub across_seeds: BTreeMap<String, (f64, f64)>,
    /// Per evaluator: the SD over shuffles, averaged over the seeds.
    pub within_seed_sd: BTreeMap<String, f64>,
}

impl SeedSpread {
    /// From one [`meta::elo_ratings`] result per seed.
    pub fn new(meta_evaluator: &str, evaluators: &[String], per_seed: &[EloResult]) -> SeedSpread {
        let within_seed_sd = evaluators
            .iter()
            .map(|e| {
                let sds: Vec<f64> =
                    per_seed.iter().filter_map(|r| r.spread.get(e).copied()).collect();
                let mean = if sds.is_empty() {
                    f64::NAN
                } else {
                    sds.iter().sum::<f64>() / sds.len() as f64
                };
                (e.clone(), mean)
            })
            .collect();
        SeedSpread {
            meta_evaluator: meta_evaluator.to_owned(),
            seeds: per_seed.len(),
            across_seeds: meta::elo_seed_summary(evaluators, per_seed),
            within_seed_sd,
        }
    }
}

/// The Elo seed spread: per meta-evaluator and evaluator, the mean rating over seeds, its SD
/// across seeds, and the mean SD over shuffles within a seed.
pub fn seed_spread_table(spreads: &[SeedSpread]) -> Table {
    let finite = |x: f64| x.is_finite().then_some(x);
    let rows = spreads
        .iter()
        .flat_map(|s| {
            s.across_seeds.iter().map(move |(name, &(mean, sd))| {
                let key = format!("{}/{name}", s.meta_evaluator);
                Row {
                    label: format!("{} · {name}", s.meta_evaluator),
                    cells: vec![
                        Cell::number(format!("{key}/mean"), finite(mean), 1),
                        Cell::number(format!("{key}/seed_sd"), finite(sd), 2),
                        Cell::number(
                            format!("{key}/shuffle_sd"),
                            s.within_seed_sd.get(name).copied().and_then(finite),
                            2,
                        ),
                    ],
                }
            })
        })
        .collect();
    Table {
        id: "elo-seeds".to_owned(),
        title: format!(
            "Elo across seeds ({} seeds): the shuffle-averaged rating's spread",
            spreads.first().map_or(0, |s| s.seeds)
        ),
        corner: "Meta-evaluator · evaluator".to_owned(),
        columns: vec![
            "Mean over seeds".to_owned(),
            "SD across seeds".to_owned(),
            "Mean SD over shuffles".to_owned(),
        ],
        rows,
    }
}

/// Bradley–Terry ratings with bootstrap intervals of one meta-evaluator.
pub fn bradley_terry_table(meta: &str, bt: &BradleyTerryIntervals) -> Table {
    let rows = bt
        .evaluators
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let rating = bt.ratings.as_ref().and_then(|r| r.get(i).copied());
            let interval = bt.intervals.get(i).copied().flatten();
            Row {
                label: name.clone(),
                cells: vec![
                    Cell::number(format!("{meta}/{name}/rating"), rating, 1),
                    Cell::number(format!("{meta}/{name}/lower"), interval.map(|x| x[0]), 1),
                    Cell::number(format!("{meta}/{name}/upper"), interval.map(|x| x[1]), 1),
                ],
            }
        })
        .collect();
    Table {
        id: format!("bradley-terry-{meta}"),
        title: format!(
            "Bradley–Terry ({meta}): {:.0} % bootstrap intervals, {} of {} resamples usable",
            bt.level * 100.0,
            bt.valid_resamples,
            bt.resamples
        ),
        corner: "Evaluator".to_owned(),
        columns: vec!["Rating".to_owned(), "Lower".to_owned(), "Upper".to_owned()],
        rows,
    }
}

/// The meta-evaluators' own answer choices against the gold labels.
pub fn post_accuracy_table(files: &[&JdEvalFile]) -> Table {
    let rows = files
        .iter()
        .map(|f| {
            let p = &f.post;
            let m = &f.meta_evaluator;
            Row {
                label: m.clone(),
                cells: vec![
                    Cell::text(format!("{m}/n"), p.n.to_string()),
                    Cell::text(format!("{m}/correct"), p.correct.to_string()),
                    Cell::number(format!("{m}/accuracy"), p.accuracy, 4),
                    Cell::text(format!("{m}/unreadable"), p.unreadable.to_string()),
                ],
            }
        })
        .collect();
    Table {
        id: "post-accuracy".to_owned(),
        title: "Post accuracy: the meta-evaluator's own answer choice".to_owned(),
        corner: "Meta-evaluator".to_owned(),
        columns: vec!["n".into(), "Correct".into(), "Accuracy".into(), "Unreadable".into()],
        rows,
    }
}

/// One ranking comparison: a meta-evaluator's scores of the evaluators against a baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub meta_evaluator: String,
    /// What ranks the evaluators (`Elo (JDEval)`, `JDEval-i mean`…).
    pub ranking: String,
    pub baseline: String,
    pub result: RankingAgreement,
}

/// Kendall τ-b between each meta-evaluator's ranking and the human baseline: Elo (JDEval) vs
/// Table 1 accuracy, JDEval-i / BSMEval means vs Table 1 Pearson.
pub fn ranking_agreements(
    rows: &[EvaluatorRow],
    scores: &[MetaScore],
    elo: &[EloResult],
) -> Vec<Agreement> {
    let baseline = |pick: fn(&EvaluatorRow) -> Option<f64>| -> BTreeMap<String, f64> {
        rows.iter().filter_map(|r| Some((r.name.clone(), pick(r)?))).collect()
    };
    let accuracy = baseline(|r| r.accuracy);
    let pearson = baseline(|r| r.pearson);
    let mut out = Vec::new();
    if !accuracy.is_empty() {
        for e in elo {
            out.push(Agreement {
                meta_evaluator: e.meta_evaluator.clone(),
                ranking: "Elo (JDEval)".to_owned(),
                baseline: "accuracy".to_owned(),
                result: meta::ranking_agreement(&e.ratings, &accuracy),
            });
        }
    }
    if !pearson.is_empty() {
        for protocol in [MetaProtocol::JdEvalI, MetaProtocol::BsmEval] {
            let mut per_meta: BTreeMap<&str, BTreeMap<String, f64>> = BTreeMap::new();
            for s in scores.iter().filter(|s| s.protocol == protocol) {
                if let Some(mean) = s.mean {
                    per_meta
                        .entry(&s.meta_evaluator)
                        .or_default()
                        .insert(s.evaluator.clone(), mean);
                }
            }
            for (meta, ranking) in per_meta {
                out.push(Agreement {
                    meta_evaluator: meta.to_owned(),
                    ranking: format!("{} mean", protocol.name()),
                    baseline: "Pearson".to_owned(),
                    result: meta::ranking_agreement(&ranking, &pearson),
                });
            }
        }
    }
    out
}

pub fn agreement_table(agreements: &[Agreement]) -> Table {
    let rows = agreements
        .iter()
        .map(|a| {
            let key = format!("{}/{}", a.meta_evaluator, a.ranking);
            Row {
                label: format!("{} · {}", a.meta_evaluator, a.ranking),
                cells: vec![
                    Cell::text(format!("{key}/baseline"), a.baseline.clone()),
                    Cell::text(format!("{key}/n"), a.result.evaluators.len().to_string()),
                    Cell::number(format!("{key}/tau_b"), a.result.tau_b, 3),
                    Cell::number(format!("{key}/p"), a.result.p_value, 3),
                    Cell::text(
                        format!("{key}/note"),
                        a.result.undefined.clone().unwrap_or_default(),
                    ),
                ],
            }
        })
        .collect();
    Table {
        id: "ranking-agreement".to_owned(),
        title: "Ranking agreement with the human baseline (Kendall τ-b)".to_owned(),
        corner: "Meta-evaluator · ranking".to_owned(),
        columns: vec![
            "Baseline".into(),
            "Evaluators".into(),
            "τ-b".into(),
            "p".into(),
            "Note".into(),
        ],
        rows,
    }
}

/// Which win-rate convention the heatmap shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieConvention {
    /// Ties in the denominator, no credit (the paper, Eq. 1–2).
    Zero,
    /// Half a point per tie.
    Half,
    /// Ties dropped.
    Dropped,
}

impl TieConvention {
    pub const ALL: [TieConvention; 3] =
        [TieConvention::Zero, TieConvention::Half, TieConvention::Dropped];

    pub fn id(self) -> &'static str {
        match self {
            TieConvention::Zero => "zero",
            TieConvention::Half => "half",
            TieConvention::Dropped => "dropped",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TieConvention::Zero => "ties count, no credit (paper)",
            TieConvention::Half => "ties count half",
            TieConvention::Dropped => "ties dropped",
        }
    }

    pub fn from_id(id: &str) -> TieConvention {
        TieConvention::ALL.into_iter().find(|c| c.id() == id).unwrap_or(TieConvention::Zero)
    }

    pub fn matrix(self, w: &WinRates) -> &Vec<Vec<Option<f64>>> {
        match self {
            TieConvention::Zero => &w.ties_zero,
            TieConvention::Half => &w.tie_half,
            TieConvention::Dropped => &w.no_ties,
        }
    }
}

/// The match distribution as a matrix of counts (`None` on the diagonal).
pub fn games_matrix(w: &WinRates) -> Vec<Vec<Option<f64>>> {
    w.games
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter().enumerate().map(|(j, &g)| (i != j).then_some(g as f64)).collect()
        })
        .collect()
}

/// Number input parsing for the controls: the value if it parses and is finite.
pub fn parse_number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/core/tests/fixtures/meta/");
    const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/meta-evaluation");

    fn read(path: &str) -> Vec<u8> {
        std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// Analyses `paths` file by file and through `meta::analyze`, and checks they agree.
    fn check(paths: &[String]) -> Vec<MetaFile> {
        let contents: Vec<(String, Vec<u8>)> =
            paths.iter().map(|p| (p.rsplit('/').next().unwrap().to_owned(), read(p))).collect();
        let files: Vec<MetaFile> = contents.iter().map(|(n, b)| analyze_file(n, b)).collect();
        let inputs: Vec<meta::Input<'_>> =
            contents.iter().map(|(name, bytes)| meta::Input { name, bytes }).collect();
        let options = EloOptions { shuffles: 20, ..EloOptions::default() };
        let want = meta::analyze(&inputs, &options);
        let refs: Vec<&MetaFile> = files.iter().collect();
        let (rows, scores) = report_rows(&refs);
        assert_eq!(rows, want.report.evaluators);
        assert_eq!(scores, want.report.meta_scores);
        let mut elo: Vec<EloResult> = files
            .iter()
            .filter_map(|f| match &f.content {
                Content::JdEval(j) => Some(pairwise_result(j, &options, 10).elo),
                _ => None,
            })
            .collect();
        elo.sort_by(|a, b| a.meta_evaluator.cmp(&b.meta_evaluator));
        assert_eq!(elo, want.report.elo);
        // The stepwise Elo the page runs equals the core's, shuffled or in file order.
        for f in &files {
            let Content::JdEval(j) = &f.content else { continue };
            for options in [options, EloOptions { shuffles: 0, ..options }] {
                let runs: Vec<Vec<f64>> = elo_orders(&j.set, &options)
                    .iter()
                    .map(|o| elo_run(&j.set, o.as_deref(), &options))
                    .collect();
                assert_eq!(
                    elo_summary(&j.meta_evaluator, &j.set, &runs),
                    meta::elo_ratings(&j.meta_evaluator, &j.set, &options)
                );
            }
        }
        let problems: Vec<&str> = files.iter().filter_map(|f| f.problem.as_deref()).collect();
        assert_eq!(problems.len(), want.problems.len(), "{problems:?}");
        files
    }

    fn list(dir: &str) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path().display().to_string())
            .filter(|p| p.ends_with(".jsonl") || p.ends_with(".json"))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn fixtures_give_the_same_report_as_concord_meta() {
        let files = check(&list(FIXTURES));
        let kinds: Vec<FileKind> = files.iter().map(|f| f.kind).collect();
        assert!(kinds.contains(&FileKind::Pairwise));
        assert!(kinds.contains(&FileKind::BsmEval));
        assert!(kinds.contains(&FileKind::JdEval));
        let bsm = files
            .iter()
            .find_map(|f| match &f.content {
                Content::MetaScore { score, records }
                    if score.protocol == MetaProtocol::BsmEval =>
                {
                    Some(records)
                }
                _ => None,
            })
            .unwrap();
        assert!(!bsm.is_empty());
        // The branches come from the loader's `MetaAssessment`, each with its released score.
        assert!(!bsm[0].branches.is_empty());
        assert!(bsm[0].branches.iter().any(|b| b.score.is_some() && !b.response.is_empty()));
    }

    #[test]
    fn released_files_reproduce_tables_1_5_6() {
        if !std::path::Path::new(SHARED).exists() {
            eprintln!("skipped: {SHARED} is absent");
            return;
        }
        let mut paths = list(&format!("{SHARED}/evaluator_results/pairwise"));
        paths.extend(list(&format!("{SHARED}/evaluator_results/pointwise")));
        paths.extend(list(&format!("{SHARED}/meta-evaluator_results/pairwise/JDEval")));
        // Two JDEval-i and two BSMEval files keep the debug-build test quick; the reproduction
        // of all cells is `crates/core/tests/meta_reproduction.rs`.
        let jdi = list(&format!("{SHARED}/meta-evaluator_results/pointwise/JDEval-i"));
        let bsm = list(&format!("{SHARED}/meta-evaluator_results/pointwise/BSMEval"));
        paths.extend(jdi.into_iter().filter(|p| p.contains("gpt-4-1106-preview_gpt-4")));
        paths.extend(bsm.into_iter().filter(|p| p.contains("qwen72b_gpt4_")));
        let files = check(&paths);
        let refs: Vec<&MetaFile> = files.iter().collect();
        let (rows, scores) = report_rows(&refs);
        let t1 = table1(&rows);
        let cell = |t: &Table, key: &str| -> String {
            t.rows.iter().flat_map(|r| &r.cells).find(|c| c.key == key).unwrap().text.clone()
        };
        // The printed Table 1 (seed 003).
        assert_eq!(cell(&t1, "gpt-4-1106-preview/accuracy"), "0.7332");
        assert_eq!(cell(&t1, "qwen1.5-7B-Chat/accuracy"), "0.5010");
        assert_eq!(cell(&t1, "gpt-4-1106-preview/pearson"), "0.6183");
        assert_eq!(cell(&t1, "qwen1.5-14B-Chat/pearson"), "0.6416");
        assert_eq!(t1.rows.first().unwrap().label, "gpt-4-1106-preview");
        let t6 = meta_table(&scores, MetaProtocol::BsmEval);
        assert_eq!(t6.rows.len(), 1);
        let jd: Vec<&JdEvalFile> = files
            .iter()
            .filter_map(|f| match &f.content {
                Content::JdEval(j) => Some(&**j),
                _ => None,
            })
            .collect();
        // Post accuracy on the released LLMBar matches (docs/reproduction-meta.md).
        let g4 = jd.iter().find(|j| j.meta_evaluator == "g4").unwrap();
        assert_eq!((g4.post.correct, g4.post.n), (268, 300));
        assert_eq!(g4.debates.len(), 300);
        assert!(!g4.debates[0].question.is_empty());
        assert!(!g4.debates[0].rounds[0].debaters[0].1.is_empty());
    }

    #[test]
    fn seed_spread_table_from_per_seed_results() {
        let file =
            analyze_file("mx_fixture_elo.jsonl", &read(&format!("{FIXTURES}mx_fixture_elo.jsonl")));
        let Content::JdEval(j) = &file.content else { panic!("not JDEval") };
        let options = EloOptions { shuffles: 10, ..EloOptions::default() };
        let per_seed: Vec<EloResult> = (0..3)
            .map(|seed| meta::elo_ratings("mx", &j.set, &EloOptions { seed, ..options }))
            .collect();
        let spread = SeedSpread::new("mx", &j.set.evaluators, &per_seed);
        let want = meta::elo_seed_spread(&j.set, &options, &[0, 1, 2]);
        assert_eq!(spread.across_seeds, want);
        let t = seed_spread_table(&[spread]);
        assert_eq!(t.rows.len(), j.set.evaluators.len());
        let a = &t.rows[0].cells[0];
        assert_eq!((a.key.as_str(), a.value), ("mx/a/mean", Some(want["a"].0)));
        assert!(t.rows[0].cells[2].value.unwrap() > 0.0, "shuffles move the rating");
    }

    fn sample_table() -> Table {
        Table {
            id: "t".into(),
            title: "T_1 & co".into(),
            corner: "Who".into(),
            columns: vec!["a".into(), "b".into()],
            rows: vec![
                Row {
                    label: "x,1".into(),
                    cells: vec![
                        Cell::number("x/a", Some(0.123456), 2),
                        Cell {
                            key: "x/b".into(),
                            value: Some(1000.5),
                            spread: Some(2.25),
                            text: "1000.5 (2.3)".into(),
                        },
                    ],
                },
                Row {
                    label: "y|2".into(),
                    cells: vec![Cell::number("y/a", None, 2), Cell::text("", "–")],
                },
            ],
        }
    }

    #[test]
    fn exports() {
        let t = sample_table();
        assert_eq!(t.to_csv(), "Who,a,b,b sd\n\"x,1\",0.123456,1000.5,2.25\ny|2,,,\n");
        assert_eq!(
            t.to_markdown(),
            "**T_1 & co**\n\n| Who | a | b |\n|---|---:|---:|\n| x,1 | 0.12 | 1000.5 (2.3) |\n| y\\|2 | – | – |\n"
        );
        let latex = t.to_latex();
        assert!(latex.contains("\\caption{T\\_1 \\& co}"), "{latex}");
        assert!(latex.contains("\\begin{tabular}{lrr}"));
        assert!(latex.contains("x,1 & 0.12 & 1000.5 (2.3) \\\\"));
        assert!(latex.contains("y|2 & -- & -- \\\\"));
    }

    #[test]
    fn numbers_and_conventions() {
        assert_eq!(parse_number(" 4 "), Some(4.0));
        assert_eq!(parse_number("inf"), None);
        assert_eq!(parse_number("x"), None);
        assert_eq!(TieConvention::from_id("half"), TieConvention::Half);
        assert_eq!(TieConvention::from_id("?"), TieConvention::Zero);
    }
}
