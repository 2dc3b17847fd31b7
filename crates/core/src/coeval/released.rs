//! Seed 004's released CoEval files read for reproduction: the action and annotator-score
//! files (through [`crate::data::load`]), and the files `data` does not cover yet — the
//! annotators' session logs (`A01.json` … `A15.json`), `*_criteria_to_action.json` and
//! `*_score_change.json` — parsed here.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::results::{ActionCounts, ComponentCounts, PairAlpha, ScoreTable, Unit};
use super::session::{Action, Component};
use crate::data::{self, Dataset, Diagnostic, Format, JudgeRun, RecordKey, content_id};
use crate::stats::KrippendorffLevel;

/// The rater name of ChatGPT in the annotator-score files.
pub const CHATGPT: &str = "chatgpt";

/// Why a released file could not be used.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReleasedError {
    /// The name says which file it is, but the content is not JSON of that shape.
    Json { file: String, message: String },
    /// `data::load` refused the file.
    Load { file: String, message: String },
    /// Not one of CoEval's files (by name and content).
    Unrecognised { file: String },
    /// The task (ELI5, ROCStories, Self-Instruct) cannot be told from the path or content.
    UnknownTask { file: String },
}

impl fmt::Display for ReleasedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReleasedError::Json { file, message } => write!(f, "{file}: {message}"),
            ReleasedError::Load { file, message } => write!(f, "{file}: {message}"),
            ReleasedError::Unrecognised { file } => write!(
                f,
                "{file}: not a CoEval file (expected *_action.json, *annotator_scores.json, \
                 A01.json…A15.json, *_criteria_to_action.json or *_score_change.json)"
            ),
            ReleasedError::UnknownTask { file } => write!(
                f,
                "{file}: cannot tell the task; keep the released folder names (ELI5, ROCStories, \
                 Self-Instruct) or file prefixes (eli5_, roc_, self_instruct_)"
            ),
        }
    }
}

impl std::error::Error for ReleasedError {}

/// The three CoEval tasks, named as the released file prefixes name them.
pub const TASKS: [&str; 3] = ["eli5", "roc", "self_instruct"];

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The task of a released file: from its prefix (`eli5_action.json`), else its folder
/// (`ROCStories/annotator_scores.json`), else, for session logs, the annotator number
/// (A01–A05 ELI5, A06–A10 ROCStories, A11–A15 Self-Instruct).
pub fn task_of(path: &str) -> Option<&'static str> {
    let base = base_name(path).to_ascii_lowercase();
    if let Some(t) = TASKS.iter().find(|t| base.starts_with(*t)) {
        return Some(t);
    }
    let parent = path.rsplit(['/', '\\']).nth(1).unwrap_or("").to_ascii_lowercase();
    match parent.as_str() {
        "eli5" => return Some("eli5"),
        "rocstories" | "roc" => return Some("roc"),
        "self-instruct" | "self_instruct" => return Some("self_instruct"),
        _ => {}
    }
    match session_number(&base)? {
        1..=5 => Some("eli5"),
        6..=10 => Some("roc"),
        11..=15 => Some("self_instruct"),
        _ => None,
    }
}

/// `a07.json` → 7.
fn session_number(base: &str) -> Option<u32> {
    let digits = base.strip_prefix('a')?.strip_suffix(".json")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One line of an `eval_result` in a session log: the LLM's text and what the annotator did.
///
/// Released as `[text, pass, delete_reason, revise_reason, revised_text]`; lines an annotator
/// added have empty LLM text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalLine {
    pub text: String,
    /// Non-empty when the annotator approved the line (usually `"1"`; a few lines hold other
    /// text — seed 004's own counts treat any non-empty flag as approval).
    pub pass: String,
    pub delete_reason: String,
    pub revise_reason: String,
    pub revised: String,
}

/// One criterion of one instance in a session log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCriterion {
    pub criterion: String,
    pub final_score: Option<f64>,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub lines: Vec<EvalLine>,
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

#[derive(Deserialize)]
struct RawCriterion {
    #[serde(default)]
    final_score: Option<f64>,
    // Some released entries hold `0` instead of a timestamp (never timed); kept as JSON and
    // read as "no time".
    #[serde(default)]
    start_time: Option<serde_json::Value>,
    #[serde(default)]
    end_time: Option<serde_json::Value>,
    #[serde(default)]
    eval_result: Vec<Vec<serde_json::Value>>,
}

fn text_of(v: Option<serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

#[derive(Deserialize)]
struct RawEntry {
    model: String,
    criteria: BTreeMap<String, RawCriterion>,
    #[serde(flatten)]
    fields: BTreeMap<String, serde_json::Value>,
}

/// The input field names of the three tasks, in the order the released files use them.
const INPUT_FIELDS: [&str; 3] = ["reddit question", "instruction", "story requirement"];
const OUTPUT_FIELDS: [&str; 3] = ["answer", "response", "story"];

/// Parses a session log (`{"A01": {"1": {…}, …}}`). Entries that do not parse are skipped with
/// a diagnostic naming their key.
pub fn parse_session(
    file: &str,
    bytes: &[u8],
) -> Result<(SessionLog, Vec<Diagnostic>), ReleasedError> {
    let json_err = |e: serde_json::Error| ReleasedError::Json {
        file: file.to_owned(),
        message: format!("not a session log: {e}"),
    };
    let top: BTreeMap<String, BTreeMap<String, Box<RawValue>>> =
        serde_json::from_slice(bytes).map_err(json_err)?;
    let mut diags = Vec::new();
    let Some((annotator, entries)) = top.into_iter().next() else {
        return Err(ReleasedError::Json {
            file: file.to_owned(),
            message: "empty session log (no annotator key)".to_owned(),
        });
    };
    let mut keyed: Vec<(u64, SessionEntry)> = Vec::new();
    for (key, raw) in entries {
        let entry: RawEntry = match serde_json::from_str(raw.get()) {
            Ok(e) => e,
            Err(e) => {
                diags.push(Diagnostic::warning(
                    file,
                    None,
                    Some(&format!("{annotator}.{key}")),
                    format!("entry skipped: {e}"),
                ));
                continue;
            }
        };
        let text = |names: &[&str]| {
            names.iter().find_map(|n| entry.fields.get(*n)?.as_str()).map(str::to_owned)
        };
        let Some(input) = text(&INPUT_FIELDS) else {
            diags.push(Diagnostic::warning(
                file,
                None,
                Some(&format!("{annotator}.{key}")),
                format!("entry skipped: no input field (one of {INPUT_FIELDS:?})"),
            ));
            continue;
        };
        let criteria = entry
            .criteria
            .into_iter()
            .map(|(criterion, c)| SessionCriterion {
                criterion,
                final_score: c.final_score,
                start_time: text_of(c.start_time),
                end_time: text_of(c.end_time),
                lines: c.eval_result.into_iter().map(eval_line).collect(),
            })
            .collect();
        let order = key.parse::<u64>().unwrap_or(u64::MAX);
        keyed.push((
            order,
            SessionEntry {
                key,
                input,
                output: text(&OUTPUT_FIELDS).unwrap_or_default(),
                system: entry.model,
                criteria,
            },
        ));
    }
    // Keys are "1" … "200"; JSON object order is lexicographic after the map, so sort by number.
    keyed.sort_by_key(|(n, _)| *n);
    Ok((SessionLog { annotator, entries: keyed.into_iter().map(|(_, e)| e).collect() }, diags))
}

fn eval_line(fields: Vec<serde_json::Value>) -> EvalLine {
    // Non-string cells (none in the released files) are kept as their JSON text.
    let mut fields: Vec<String> = fields
        .into_iter()
        .map(|v| match v {
            serde_json::Value::String(s) => s,
            other => other.to_string(),
        })
        .collect();
    fields.resize(5, String::new());
    let mut it = fields.into_iter();
    let mut next = || it.next().unwrap_or_default();
    EvalLine {
        text: next(),
        pass: next(),
        delete_reason: next(),
        revise_reason: next(),
        revised: next(),
    }
}

impl SessionLog {
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
    let finals: Vec<(String, BTreeMap<Unit, f64>)> = sessions
        .iter()
        .map(|s| (s.annotator.clone(), s.final_scores().into_iter().collect()))
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
                for (u, unit) in table.units.iter().enumerate() {
                    if let (Some(x), Some(y)) = (table.scores[r][u], scores.get(unit)) {
                        shared += 1;
                        equal += usize::from(x == *y);
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

/// Table 6 for one task, in percent; a component is `None` when no file gave its actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRates {
    pub all: Option<Rates>,
    pub conclusion: Option<Rates>,
    pub score: Option<Rates>,
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
        if session_number(&base).is_some() {
            let task = task_of(path).ok_or_else(unknown_task)?;
            let (log, diags) = parse_session(path, bytes)?;
            self.diagnostics.extend(diags);
            self.tasks.entry(task).or_default().sessions.push(log);
            return Ok(FileKind::Session);
        }
        let loaded = data::load(path, bytes)
            .map_err(|e| ReleasedError::Load { file: path.to_owned(), message: e.to_string() })?;
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
        let mut report = Report {
            tasks: Vec::new(),
            alpha: Vec::new(),
            key_checks: Vec::new(),
            notes: self.notes.clone(),
        };
        for (task, files) in &self.tasks {
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
