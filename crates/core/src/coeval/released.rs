//! Seed 004's released CoEval files read for reproduction: the action and annotator-score
//! files and the annotators' session logs (`A01.json` … `A15.json`) through
//! [`crate::data::load`], and the two summary files `data` does not model —
//! `*_criteria_to_action.json` and `*_score_change.json` — parsed here.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::results::{ActionCounts, ComponentCounts, PairAlpha, ScoreTable, Unit};
use super::session::{Action, Component};
use crate::data::{
    self, Dataset, Diagnostic, Format, JudgeRun, Loaded, RecordKey, ReviewAction, ReviewedLine,
    content_id,
};
use crate::stats::KrippendorffLevel;

/// The rater name of ChatGPT in the annotator-score files.
pub const CHATGPT: &str = "chatgpt";

/// Why a released file could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReleasedError {
    /// The name says which file it is, but the content is not JSON of that shape.
    #[error("{file}: {message}")]
    Json { file: String, message: String },
    /// `data::load` refused the file.
    #[error("{file}: {message}")]
    Load { file: String, message: String },
    /// Not one of CoEval's files (by name and content).
    #[error(
        "{file}: not a CoEval file (expected *_action.json, *annotator_scores.json, \
         A01.json…A15.json, *_criteria_to_action.json or *_score_change.json)"
    )]
    Unrecognised { file: String },
    /// The task (ELI5, ROCStories, Self-Instruct) cannot be told from the path or content.
    #[error(
        "{file}: cannot tell the task; keep the released folder names (ELI5, ROCStories, \
         Self-Instruct) or file prefixes (eli5_, roc_, self_instruct_)"
    )]
    UnknownTask { file: String },
}

/// The three CoEval tasks, named as the released file prefixes name them.
pub const TASKS: [&str; 3] = ["eli5", "roc", "self_instruct"];

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The task of a released file: from its prefix (`eli5_action.json`), else its folder
/// (`ROCStories/annotator_scores.json`), else, for session logs, the annotator number
/// (A01–A05 ELI5, A06–A10 ROCStories, A11–A15 Self-Instruct).
pub fn task_of(path: &str) -> Option<&'static str> {
    data::coeval::task_of(path, None)
}

/// One criterion of one instance in a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCriterion {
    pub criterion: String,
    pub final_score: Option<f64>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    /// The lines of ChatGPT's evaluation as the annotator reviewed them.
    pub lines: Vec<ReviewedLine>,
}

/// One instance an annotator scrutinised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEntry {
    /// The entry's key in the file ("1" … "200").
    pub key: String,
    /// The task input (reddit question, instruction or story requirement).
    pub input: String,
    pub output: String,
    pub system: String,
    pub criteria: Vec<SessionCriterion>,
}

/// An annotator's released session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionLog {
    pub annotator: String,
    pub entries: Vec<SessionEntry>,
}

/// Parses a session log (`{"A01": {"1": {…}, …}}`) with [`data::load`] and reads the first
/// annotator's log from the dataset ([`SessionLog::from_dataset`]). Entries that do not parse
/// are skipped with a diagnostic naming their key (`A01.3`).
pub fn parse_session(
    file: &str,
    bytes: &[u8],
) -> Result<(SessionLog, Vec<Diagnostic>), ReleasedError> {
    let loaded = data::load(file, bytes)
        .map_err(|e| ReleasedError::Load { file: file.to_owned(), message: e.to_string() })?;
    if loaded.format != Format::CoevalSession {
        return Err(ReleasedError::Json {
            file: file.to_owned(),
            message: format!("not a session log (read as {})", loaded.format.name()),
        });
    }
    let log = SessionLog::from_dataset(&loaded.dataset).into_iter().next().ok_or_else(|| {
        ReleasedError::Json { file: file.to_owned(), message: "empty session log".to_owned() }
    })?;
    Ok((log, loaded.diagnostics))
}

impl SessionLog {
    /// The session logs of a dataset loaded from session files ([`Format::CoevalSession`]),
    /// one per annotator in file order: items are the entries (id `annotator/key`), review
    /// actions the criteria, and the annotator's ratings the final scores.
    pub fn from_dataset(dataset: &Dataset) -> Vec<SessionLog> {
        let mut reviews: HashMap<&str, Vec<&ReviewAction>> = HashMap::new();
        for r in &dataset.actions {
            reviews.entry(r.item_id.as_str()).or_default().push(r);
        }
        let mut logs: Vec<SessionLog> = Vec::new();
        for item in &dataset.items {
            let Some((annotator, key)) = item.id.split_once('/') else { continue };
            if logs.last().is_none_or(|l| l.annotator != annotator) {
                logs.push(SessionLog { annotator: annotator.to_owned(), entries: Vec::new() });
            }
            let final_score = |r: &ReviewAction| {
                let a = dataset.attribute_index(&r.criterion)?;
                let rating = item.ratings.get(a)?.as_ref()?;
                rating.raters.iter().find(|s| s.rater == r.rater).map(|s| s.score)
            };
            let criteria = reviews
                .get(item.id.as_str())
                .into_iter()
                .flatten()
                .map(|r| SessionCriterion {
                    criterion: r.criterion.clone(),
                    final_score: final_score(r),
                    start_time: r.start_time.clone(),
                    end_time: r.end_time.clone(),
                    lines: r.lines.clone(),
                })
                .collect();
            if let Some(log) = logs.last_mut() {
                log.entries.push(SessionEntry {
                    key: key.to_owned(),
                    input: item.inputs.0.first().map(|(_, v)| v.clone()).unwrap_or_default(),
                    output: item.output.clone(),
                    system: item.system_id.clone(),
                    criteria,
                });
            }
        }
        logs
    }

    /// Table 6's score row: the score line (the second line of each `eval_result`) counts as
    /// approved when its pass flag is set, otherwise as revised.
    pub fn score_actions(&self) -> ActionCounts {
        let mut counts = ActionCounts::default();
        for c in self.entries.iter().flat_map(|e| &e.criteria) {
            if let Some(line) = c.lines.get(1) {
                counts.add_one(if line.pass.is_empty() { Action::Revise } else { Action::Approve });
            }
        }
        counts
    }

    /// Seconds spent per instance: the sum over its criteria of end − start, where both
    /// timestamps parse (`YYYY-MM-DD HH:MM:SS`); instances without any are left out.
    pub fn seconds_per_instance(&self) -> Vec<f64> {
        self.entries
            .iter()
            .filter_map(|e| {
                let spans: Vec<i64> = e
                    .criteria
                    .iter()
                    .filter_map(|c| {
                        Some(
                            timestamp(c.end_time.as_deref()?)?
                                - timestamp(c.start_time.as_deref()?)?,
                        )
                    })
                    .collect();
                (!spans.is_empty()).then(|| spans.iter().sum::<i64>() as f64)
            })
            .collect()
    }

    /// The annotator's final scores as (unit, score), units keyed like [`score_table`]'s.
    pub fn final_scores(&self) -> Vec<(Unit, f64)> {
        let mut out = Vec::new();
        for e in &self.entries {
            let instance = content_id(&e.input);
            for c in &e.criteria {
                if let Some(s) = c.final_score {
                    let unit = Unit {
                        instance: instance.clone(),
                        system: e.system.clone(),
                        criterion: c.criterion.clone(),
                    };
                    out.push((unit, s));
                }
            }
        }
        out
    }
}

/// Seconds since 1970 of `YYYY-MM-DD HH:MM:SS` (UTC assumed; only differences are used).
fn timestamp(s: &str) -> Option<i64> {
    let (date, time) = s.trim().split_once([' ', 'T'])?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next().flatten().unwrap_or(0));
    if !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// One criterion's action shares from `*_criteria_to_action.json`, as fractions (0–1).
///
/// The file writes them as `"0.87%"`: despite the sign these are fractions (0.87 = 87 %), as
/// the four shares of each criterion sum to 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CriterionShares {
    pub criterion: String,
    pub approve: f64,
    pub revise: f64,
    pub delete: f64,
    pub add: f64,
}

/// Parses `*_criteria_to_action.json`.
pub fn parse_criteria_shares(
    file: &str,
    bytes: &[u8],
) -> Result<Vec<CriterionShares>, ReleasedError> {
    let err = |message: String| ReleasedError::Json { file: file.to_owned(), message };
    let top: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))?;
    let mut out = Vec::new();
    for (criterion, shares) in top {
        let share = |name: &str| -> Result<f64, ReleasedError> {
            let v = shares.get(name).ok_or_else(|| err(format!("{criterion:?}: no `{name}`")))?;
            let text = v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string());
            text.trim()
                .trim_end_matches('%')
                .trim()
                .parse::<f64>()
                .map_err(|_| err(format!("{criterion:?}.{name}: `{text}` is not a number")))
        };
        out.push(CriterionShares {
            approve: share("pass")?,
            revise: share("revise")?,
            delete: share("delete")?,
            add: share("add")?,
            criterion,
        });
    }
    Ok(out)
}

/// One criterion's score changes from `*_score_change.json`: annotators' final scores above,
/// below and equal to ChatGPT's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreChange {
    pub criterion: String,
    pub improve: u64,
    pub decrease: u64,
    #[serde(rename = "unchange")]
    pub unchanged: u64,
}

/// Parses `*_score_change.json` (the `prediction` pseudo-criterion, all zeros, is dropped).
pub fn parse_score_change(file: &str, bytes: &[u8]) -> Result<Vec<ScoreChange>, ReleasedError> {
    #[derive(Deserialize)]
    struct Raw {
        improve: u64,
        decrease: u64,
        unchange: u64,
    }
    let top: BTreeMap<String, Raw> = serde_json::from_slice(bytes)
        .map_err(|e| ReleasedError::Json { file: file.to_owned(), message: e.to_string() })?;
    Ok(top
        .into_iter()
        .filter(|(c, _)| c != "prediction")
        .map(|(criterion, r)| ScoreChange {
            criterion,
            improve: r.improve,
            decrease: r.decrease,
            unchanged: r.unchange,
        })
        .collect())
}

/// Table 6 from an action file loaded by [`data::load`]: every action of every position
/// (0 conclusion, 1 score, 2+ evidence), rater, criterion and instance. Unknown action words
/// are counted in the second value.
pub fn action_counts(dataset: &Dataset) -> (ComponentCounts, usize) {
    let mut counts = ComponentCounts::default();
    let mut unknown = 0;
    for review in &dataset.actions {
        for (position, word) in review.actions.iter().enumerate() {
            match Action::from_released(word) {
                Some(a) => counts.add_one(Component::of_position(position), a),
                None => unknown += 1,
            }
        }
    }
    (counts, unknown)
}

/// The score table of an annotator-score file loaded by [`data::load`]: ChatGPT first, then
/// the annotators in file order, over (question, system, criterion) units.
pub fn score_table(dataset: &Dataset, runs: &[JudgeRun]) -> ScoreTable {
    let mut triples = Vec::new();
    let chatgpt = runs.iter().find(|r| r.name.ends_with(CHATGPT));
    if let Some(run) = chatgpt {
        for record in &run.records {
            let RecordKey::Item(key) = &record.key else { continue };
            for (criterion, x) in &record.parsed {
                let unit = Unit {
                    instance: key.document.clone(),
                    system: key.system.clone(),
                    criterion: criterion.clone(),
                };
                triples.push((unit, CHATGPT.to_owned(), *x));
            }
        }
    }
    for item in &dataset.items {
        for (a, rating) in item.ratings.iter().enumerate() {
            let (Some(rating), Some(attr)) = (rating, dataset.attributes.get(a)) else { continue };
            for r in &rating.raters {
                let unit = Unit {
                    instance: item.document_id.clone(),
                    system: item.system_id.clone(),
                    criterion: attr.name.clone(),
                };
                triples.push((unit, r.rater.clone(), r.score));
            }
        }
    }
    ScoreTable::from_triples(triples)
}

/// How well one rater key of a score file matches each session log's final scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyCheck {
    pub task: String,
    pub key: String,
    /// The session annotator whose final scores agree with this key's on most shared units
    /// (the first such in log order); `None` when no log shares a unit.
    pub best: Option<String>,
    /// Whether `best` agrees on every shared unit.
    pub exact: bool,
    /// Per session annotator: (name, equal scores, shared units).
    pub agreement: Vec<(String, usize, usize)>,
}

/// Checks each non-ChatGPT key of a score table against session logs of the same task.
pub fn check_keys(task: &str, table: &ScoreTable, sessions: &[SessionLog]) -> Vec<KeyCheck> {
    // Each log's final scores laid out like the table's units (one hash lookup per table
    // cell, once), so the comparisons below index arrays instead of searching an ordered map
    // per table cell, key and log.
    let finals: Vec<(String, Vec<Option<f64>>)> = sessions
        .iter()
        .map(|s| {
            let scores: HashMap<Unit, f64> = s.final_scores().into_iter().collect();
            (s.annotator.clone(), table.units.iter().map(|u| scores.get(u).copied()).collect())
        })
        .collect();
    let mut out = Vec::new();
    for (r, key) in table.raters.iter().enumerate() {
        if key == CHATGPT {
            continue;
        }
        let agreement: Vec<(String, usize, usize)> = finals
            .iter()
            .map(|(name, scores)| {
                let (mut equal, mut shared) = (0, 0);
                for (x, y) in table.scores[r].iter().zip(scores) {
                    if let (Some(x), Some(y)) = (x, y) {
                        shared += 1;
                        equal += usize::from(x == y);
                    }
                }
                (name.clone(), equal, shared)
            })
            .collect();
        let mut best: Option<&(String, usize, usize)> = None;
        for a in agreement.iter().filter(|a| a.2 > 0) {
            // Compare shares exactly: e₁/n₁ > e₂/n₂ ⇔ e₁·n₂ > e₂·n₁.
            if best.is_none_or(|b| a.1 * b.2 > b.1 * a.2) {
                best = Some(a);
            }
        }
        out.push(KeyCheck {
            task: task.to_owned(),
            key: key.clone(),
            best: best.map(|b| b.0.clone()),
            exact: best.is_some_and(|b| b.1 == b.2),
            agreement: agreement.clone(),
        });
    }
    out
}

/// Rates in percent, as the CLI prints them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    pub approve: f64,
    pub revise: f64,
    pub delete: f64,
    pub add: f64,
}

fn rates(c: &ActionCounts) -> Option<Rates> {
    c.percentages().map(|r| Rates {
        approve: r.approve,
        revise: r.revise,
        delete: r.delete,
        add: r.add,
    })
}

/// Table 6 for one task, in percent; a component is `None` (left out of the JSON) when no file
/// gave its actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRates {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all: Option<Rates>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conclusion: Option<Rates>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Rates>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Rates>,
}

/// One task of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskReport {
    pub task: String,
    pub action_rates: TaskRates,
    /// Where the score row comes from: `session_logs` (reproduces Table 6) or `action_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_source: Option<String>,
    /// Mean minutes per instance in the session logs (start/end stamps per criterion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minutes_per_sample: Option<f64>,
}

/// One α row of the report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskAlpha {
    pub task: String,
    #[serde(flatten)]
    pub pair: PairAlpha,
}

/// `concord coeval --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub tasks: Vec<TaskReport>,
    pub alpha: Vec<TaskAlpha>,
    /// Score-file keys checked against session logs (when both were given).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub key_checks: Vec<KeyCheck>,
    /// Decisions the reader should know about (which file was used, what was skipped).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Report {
    /// Appends `other` (another task's part) to this report.
    pub fn extend(&mut self, other: Report) {
        self.tasks.extend(other.tasks);
        self.alpha.extend(other.alpha);
        self.key_checks.extend(other.key_checks);
        self.notes.extend(other.notes);
    }
}

/// What kind of released file was added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileKind {
    Actions,
    AnnotatorScores,
    Session,
    CriteriaShares,
    ScoreChange,
    /// `combine_data.json`: recognised, not needed by the report.
    Combined,
}

#[derive(Default)]
struct TaskFiles {
    actions: Option<ComponentCounts>,
    /// (file, table); the largest is used when several are given.
    scores: Vec<(String, ScoreTable)>,
    sessions: Vec<SessionLog>,
    shares: Vec<CriterionShares>,
    changes: Vec<ScoreChange>,
}

/// Collects released files (bytes in, no I/O) and computes the [`Report`].
#[derive(Default)]
pub struct Reproduction {
    tasks: BTreeMap<&'static str, TaskFiles>,
    pub diagnostics: Vec<Diagnostic>,
    notes: Vec<String>,
}

impl Reproduction {
    pub fn new() -> Reproduction {
        Reproduction::default()
    }

    /// Adds one released file by path (used for its name and folder) and content.
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> Result<FileKind, ReleasedError> {
        let base = base_name(path).to_ascii_lowercase();
        let unknown_task = || ReleasedError::UnknownTask { file: path.to_owned() };
        if base == "combine_data.json" {
            return Ok(FileKind::Combined);
        }
        if base.ends_with("_criteria_to_action.json") {
            let task = task_of(path).ok_or_else(unknown_task)?;
            let shares = parse_criteria_shares(path, bytes)?;
            self.tasks.entry(task).or_default().shares = shares;
            return Ok(FileKind::CriteriaShares);
        }
        if base.ends_with("_score_change.json") {
            let task = task_of(path).ok_or_else(unknown_task)?;
            let changes = parse_score_change(path, bytes)?;
            self.tasks.entry(task).or_default().changes = changes;
            return Ok(FileKind::ScoreChange);
        }
        let loaded = data::load(path, bytes)
            .map_err(|e| ReleasedError::Load { file: path.to_owned(), message: e.to_string() })?;
        self.add_loaded(path, &loaded)
    }

    /// Whether [`Reproduction::add`] reads the file at `path` with [`data::load`] (the big
    /// ones: session logs, action and score files), so a caller can run that load elsewhere
    /// (a Web Worker) and hand the result to [`Reproduction::add_loaded`].
    pub fn reads_with_loader(path: &str) -> bool {
        let base = base_name(path).to_ascii_lowercase();
        !(base == "combine_data.json"
            || base.ends_with("_criteria_to_action.json")
            || base.ends_with("_score_change.json"))
    }

    /// Adds a released file that was already parsed by [`data::load`]; the same as
    /// [`Reproduction::add`] on its bytes.
    pub fn add_loaded(&mut self, path: &str, loaded: &Loaded) -> Result<FileKind, ReleasedError> {
        let unknown_task = || ReleasedError::UnknownTask { file: path.to_owned() };
        self.diagnostics.extend(loaded.diagnostics.iter().cloned());
        match loaded.format {
            Format::CoevalActions => {
                let task = task_of(path).ok_or_else(unknown_task)?;
                let (counts, unknown) = action_counts(&loaded.dataset);
                if unknown > 0 {
                    self.notes.push(format!("{path}: {unknown} unknown action words not counted"));
                }
                self.tasks.entry(task).or_default().actions = Some(counts);
                Ok(FileKind::Actions)
            }
            Format::CoevalAnnotatorScores => {
                let task = task_of(path).ok_or_else(unknown_task)?;
                let table = score_table(&loaded.dataset, &loaded.runs);
                self.tasks.entry(task).or_default().scores.push((path.to_owned(), table));
                Ok(FileKind::AnnotatorScores)
            }
            Format::CoevalSession => {
                for log in SessionLog::from_dataset(&loaded.dataset) {
                    let task = data::coeval::task_of(path, Some(&log.annotator))
                        .ok_or_else(unknown_task)?;
                    self.tasks.entry(task).or_default().sessions.push(log);
                }
                Ok(FileKind::Session)
            }
            Format::CoevalCombined => Ok(FileKind::Combined),
            _ => Err(ReleasedError::Unrecognised { file: path.to_owned() }),
        }
    }

    /// The per-criterion shares of `*_criteria_to_action.json` for `task`, as given.
    pub fn criteria_shares(&self, task: &str) -> &[CriterionShares] {
        self.tasks.get(task).map_or(&[], |t| &t.shares)
    }

    /// The score changes of `*_score_change.json` for `task`, as given.
    pub fn score_changes(&self, task: &str) -> &[ScoreChange] {
        self.tasks.get(task).map_or(&[], |t| &t.changes)
    }

    /// The session logs given for `task`.
    pub fn sessions(&self, task: &str) -> &[SessionLog] {
        self.tasks.get(task).map_or(&[], |t| &t.sessions)
    }

    /// The score table used for `task` (the one with most scores when several were given).
    pub fn score_table(&self, task: &str) -> Option<&ScoreTable> {
        self.tasks.get(task).and_then(|t| best_table(&t.scores)).map(|(_, t)| t)
    }

    /// Table 6 rows, α pairs at `level`, key checks and notes.
    pub fn report(&self, level: KrippendorffLevel) -> Report {
        let mut report = self.report_start();
        for task in self.task_names() {
            report.extend(self.report_task(task, level));
        }
        report
    }

    /// The tasks files were given for, in report order.
    pub fn task_names(&self) -> Vec<&'static str> {
        self.tasks.keys().copied().collect()
    }

    /// A report with the notes about the files only; [`Reproduction::report`] is this
    /// extended with [`Reproduction::report_task`] of every task in [`Reproduction::task_names`]
    /// order, so a caller can compute one task at a time (and let a page breathe between).
    pub fn report_start(&self) -> Report {
        Report {
            tasks: Vec::new(),
            alpha: Vec::new(),
            key_checks: Vec::new(),
            notes: self.notes.clone(),
        }
    }

    /// One task's part of the report (no notes about the files); empty for an unknown task.
    pub fn report_task(&self, task: &str, level: KrippendorffLevel) -> Report {
        let mut report = Report {
            tasks: Vec::new(),
            alpha: Vec::new(),
            key_checks: Vec::new(),
            notes: Vec::new(),
        };
        for (task, files) in self.tasks.iter().filter(|(t, _)| **t == task) {
            let mut score_source = None;
            let mut table_rates =
                TaskRates { all: None, conclusion: None, score: None, evidence: None };
            if let Some(c) = &files.actions {
                table_rates.all = rates(&c.all);
                table_rates.conclusion = rates(&c.conclusion);
                table_rates.evidence = rates(&c.evidence);
                table_rates.score = rates(&c.score);
                score_source = Some("action_file".to_owned());
            }
            if !files.sessions.is_empty() {
                let mut score = ActionCounts::default();
                for s in &files.sessions {
                    let c = s.score_actions();
                    score.approve += c.approve;
                    score.revise += c.revise;
                }
                if score.total() > 0 {
                    table_rates.score = rates(&score);
                    score_source = Some("session_logs".to_owned());
                }
            }
            let seconds: Vec<f64> =
                files.sessions.iter().flat_map(SessionLog::seconds_per_instance).collect();
            let minutes_per_sample = (!seconds.is_empty())
                .then(|| seconds.iter().sum::<f64>() / seconds.len() as f64 / 60.0);
            if files.actions.is_some() || !files.sessions.is_empty() {
                report.tasks.push(TaskReport {
                    task: (*task).to_owned(),
                    action_rates: table_rates,
                    score_source,
                    minutes_per_sample,
                });
            }
            if let Some((file, table)) = best_table(&files.scores) {
                if files.scores.len() > 1 {
                    report.notes.push(format!(
                        "{task}: {} score files given; α uses {file}, the one with most scores",
                        files.scores.len()
                    ));
                }
                report.alpha.extend(
                    table
                        .alpha_pairs(level)
                        .into_iter()
                        .map(|pair| TaskAlpha { task: (*task).to_owned(), pair }),
                );
                if !files.sessions.is_empty() {
                    let checks = check_keys(task, table, &files.sessions);
                    for c in &checks {
                        let (equal, shared) = c
                            .agreement
                            .iter()
                            .find(|a| Some(&a.0) == c.best.as_ref())
                            .map_or((0, 0), |a| (a.1, a.2));
                        match &c.best {
                            Some(b) if *b != c.key => report.notes.push(format!(
                                "{task}: key {} in {file} holds {b}'s scores ({equal} of {shared} equal to {b}'s session log)",
                                c.key
                            )),
                            Some(_) if !c.exact => report.notes.push(format!(
                                "{task}: key {} in {file} equals its session log's final scores on {equal} of {shared} units",
                                c.key
                            )),
                            Some(_) => {}
                            None => report.notes.push(format!(
                                "{task}: key {} in {file} shares no unit with the session logs",
                                c.key
                            )),
                        }
                    }
                    report.key_checks.extend(checks);
                }
            }
        }
        report
    }
}

fn best_table(tables: &[(String, ScoreTable)]) -> Option<&(String, ScoreTable)> {
    // Most scores wins (ROCStories ships two near-duplicate files); ties keep the first given,
    // hence `rev()`: `max_by_key` keeps the last maximum.
    let present = |t: &ScoreTable| t.scores.iter().flatten().filter(|s| s.is_some()).count();
    tables.iter().rev().max_by_key(|(_, t)| present(t))
}
