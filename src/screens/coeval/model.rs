//! The CoEval screen's view model: the study under scrutiny (task, criteria, instances, the
//! LLM's evaluations), the keyboard map and cursor of stage 2, the results tables of a study
//! and of seed 004's released files, and their exports (CSV, Markdown, LaTeX, SVG).
//!
//! Plain values only — no signals, no DOM — so everything here is tested natively
//! (`cargo test -p concord-web --lib`). The annotation itself (events, undo, replay, export,
//! merge, statistics) is `concord_core::coeval`; this module only arranges it for the screen.

use std::collections::BTreeMap;

use concord_core::coeval::{
    self, Action, Annotation, ComponentCounts, Decision, Event, FinalCriterion, Log, Part,
    Reproduction, Review, ScoreTable, Unit,
};
use concord_core::data::{Loaded, RecordKey};
use concord_core::judge::coeval::{TaskInfo, read_evaluation, read_score};
use concord_core::judge::parse::Policy;
use concord_core::stats::KrippendorffLevel;
use serde::{Deserialize, Serialize};

use concord_core::report::figure::Heatmap;

/// The rater name of the LLM in a study's results.
pub const LLM: &str = "LLM";

/// One output under scrutiny: a generating system's answer to one input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Stable id (the dataset's item id, or `i1`, `i2`… for typed instances).
    pub id: String,
    pub input: String,
    pub output: String,
    /// The generating model (Figure 2 groups scores by it).
    pub system: String,
}

/// The LLM's evaluation of one instance on one criterion, split into its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub instance: String,
    pub criterion: String,
    pub conclusion: String,
    /// The 1–5 score read with CoEval's policy; `None` when the answer had none.
    pub score: Option<f64>,
    pub evidence: Vec<String>,
}

impl Evaluation {
    /// Splits a raw LLM answer (seed 004 §3.2 format) into its parts.
    pub fn from_response(instance: &str, criterion: &str, response: &str) -> Evaluation {
        let e = read_evaluation(criterion, response, Policy::Coeval);
        // The core reads step "2." with CoEval's rule; an answer that fails it (no number, or
        // one off the scale) gets Concord's reading, which skips scale ranges and labels.
        let score = e.score.ok().or_else(|| read_score(response, Policy::Concord).ok());
        Evaluation {
            instance: instance.to_owned(),
            criterion: criterion.to_owned(),
            conclusion: e.conclusion,
            score,
            evidence: e.evidence,
        }
    }
}

/// Everything a scrutiny session needs besides the annotators' logs. Persisted as one JSON
/// value so a reload restores the screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// The task's short name (`eli5`, or what the user typed); logs and exports carry it.
    pub task: String,
    pub info: TaskInfo,
    /// The LLM's (or released, or typed) criteria, in order.
    pub criteria: Vec<String>,
    pub instances: Vec<Instance>,
    pub evaluations: Vec<Evaluation>,
}

/// Why a study could not be built from a loaded file.
#[derive(Debug, Clone, PartialEq)]
pub enum StudyError {
    /// The file has no CoEval task (it is not `combine_data.json` or a file like it).
    NoTask,
    /// The file has tasks, but none of this name.
    UnknownTask { task: String, known: Vec<String> },
}

impl std::fmt::Display for StudyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StudyError::NoTask => f.write_str(
                "this dataset has no CoEval task (load CoEval's combine_data.json, or type a task)",
            ),
            StudyError::UnknownTask { task, known } => {
                write!(f, "no task `{task}` in this dataset (it has: {})", known.join(", "))
            }
        }
    }
}

impl Study {
    /// The CoEval tasks of a loaded file (`combine_data.json` has `eli5`, `roc`,
    /// `self_instruct`).
    pub fn tasks_in(loaded: &Loaded) -> Vec<String> {
        loaded.dataset.tasks.iter().map(|t| t.name.clone()).collect()
    }

    /// The study of `task` in a loaded CoEval file: its description and field names, its
    /// criteria, the first `limit` instances (all when `None`) and ChatGPT's evaluations.
    pub fn from_loaded(
        loaded: &Loaded,
        task: &str,
        limit: Option<usize>,
    ) -> Result<Study, StudyError> {
        let known = Study::tasks_in(loaded);
        if known.is_empty() {
            return Err(StudyError::NoTask);
        }
        let Some(t) = loaded.dataset.tasks.iter().find(|t| t.name == task) else {
            return Err(StudyError::UnknownTask { task: task.to_owned(), known });
        };
        let description = t.description.trim();
        let description =
            description.strip_prefix("The task is ").unwrap_or(description).trim_end_matches('.');
        let info = TaskInfo {
            description: description.to_owned(),
            input_name: t.input_name.clone(),
            output_name: t.output_name.clone(),
        };
        let items: Vec<_> = loaded
            .dataset
            .items
            .iter()
            .filter(|i| i.task.as_deref() == Some(task))
            .take(limit.unwrap_or(usize::MAX))
            .collect();
        let instances: Vec<Instance> = items
            .iter()
            .map(|i| Instance {
                id: i.id.clone(),
                input: i.inputs.0.first().map(|(_, v)| v.clone()).unwrap_or_default(),
                output: i.output.clone(),
                system: i.system_id.clone(),
            })
            .collect();
        let by_key: BTreeMap<_, &str> = items.iter().map(|i| (i.key(), i.id.as_str())).collect();
        let suffix = format!(": {task}: ChatGPT");
        let mut evaluations = Vec::new();
        for run in loaded.runs.iter().filter(|r| r.name.ends_with(&suffix)) {
            let Some(criterion) = &run.attribute else { continue };
            for record in &run.records {
                let RecordKey::Item(key) = &record.key else { continue };
                let (Some(id), Some(text)) = (by_key.get(key), record.responses.first()) else {
                    continue;
                };
                evaluations.push(Evaluation::from_response(id, criterion, text));
            }
        }
        Ok(Study {
            task: task.to_owned(),
            info,
            criteria: t.criteria.clone(),
            instances,
            evaluations,
        })
    }

    /// A study typed in by hand: instances get ids `i1`, `i2`…; no LLM evaluations yet.
    pub fn typed(
        task: &str,
        info: TaskInfo,
        criteria: Vec<String>,
        instances: Vec<(String, String, String)>,
    ) -> Study {
        Study {
            task: task.trim().to_owned(),
            info,
            criteria,
            instances: instances
                .into_iter()
                .enumerate()
                .map(|(i, (input, output, system))| Instance {
                    id: format!("i{}", i + 1),
                    input,
                    output,
                    system,
                })
                .collect(),
            evaluations: Vec::new(),
        }
    }

    /// The LLM's evaluation of `instance` on `criterion`.
    pub fn evaluation(&self, instance: &str, criterion: &str) -> Option<&Evaluation> {
        self.evaluations.iter().find(|e| e.instance == instance && e.criterion == criterion)
    }

    /// Replaces (or adds) the LLM's evaluation of one instance on one criterion.
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        match self
            .evaluations
            .iter_mut()
            .find(|e| e.instance == evaluation.instance && e.criterion == evaluation.criterion)
        {
            Some(slot) => *slot = evaluation,
            None => self.evaluations.push(evaluation),
        }
    }

    /// The generating system of an instance id (`?` when unknown).
    pub fn system_of(&self, instance: &str) -> String {
        self.instances
            .iter()
            .find(|i| i.id == instance)
            .map_or_else(|| "?".to_owned(), |i| i.system.clone())
    }

    /// The LLM's scores as units of a [`ScoreTable`].
    pub fn llm_scores(&self) -> Vec<(Unit, f64)> {
        self.evaluations
            .iter()
            .filter_map(|e| {
                let unit = Unit {
                    instance: e.instance.clone(),
                    system: self.system_of(&e.instance),
                    criterion: e.criterion.clone(),
                };
                e.score.map(|s| (unit, s))
            })
            .collect()
    }

    /// The criteria of stage 2: the final criteria of stage 1 when anyone voted, else the
    /// study's. Each comes with the criterion whose LLM evaluation it shows.
    pub fn stage2_criteria(
        &self,
        finals: &[FinalCriterion],
        anyone_voted: bool,
    ) -> Vec<Stage2Criterion> {
        if !anyone_voted {
            return self
                .criteria
                .iter()
                .map(|c| Stage2Criterion { name: c.clone(), evaluated_as: c.clone() })
                .collect();
        }
        finals
            .iter()
            .map(|f| Stage2Criterion {
                name: f.criterion.clone(),
                evaluated_as: f.original.clone().unwrap_or_else(|| f.criterion.clone()),
            })
            .collect()
    }
}

/// A criterion of stage 2 and the criterion its LLM evaluation is stored under (they differ
/// when annotators revised the wording in stage 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage2Criterion {
    pub name: String,
    pub evaluated_as: String,
}

/// Splits typed criteria: one per non-empty line.
pub fn parse_criteria(text: &str) -> Vec<String> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

// ---------------------------------------------------------------------------------------------
// Stage 2: the parts under scrutiny, the cursor and the keyboard.

/// One part of an evaluation as the scrutiny screen lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartRow {
    pub part: Part,
    /// "Conclusion", "Score", "Evidence 1"…
    pub label: String,
    /// What the LLM wrote (empty for evidence the annotator added).
    pub llm_text: String,
    pub decision: Option<Decision>,
}

/// The parts of the LLM's evaluation (conclusion, score, each evidence quote) followed by
/// the evidence the annotator added, with the annotator's current decision on each.
pub fn part_rows(evaluation: Option<&Evaluation>, review: Option<&Review>) -> Vec<PartRow> {
    let decision = |p: Part| review.and_then(|r| r.parts.get(&p)).cloned();
    let mut rows = vec![
        PartRow {
            part: Part::Conclusion,
            label: "Conclusion".to_owned(),
            llm_text: evaluation.map(|e| e.conclusion.clone()).unwrap_or_default(),
            decision: decision(Part::Conclusion),
        },
        PartRow {
            part: Part::Score,
            label: "Score".to_owned(),
            llm_text: evaluation
                .and_then(|e| e.score)
                .map(format_score)
                .unwrap_or_else(|| "(none)".to_owned()),
            decision: decision(Part::Score),
        },
    ];
    let quotes = evaluation.map_or(0, |e| e.evidence.len());
    for (k, q) in evaluation.map(|e| e.evidence.as_slice()).unwrap_or_default().iter().enumerate() {
        rows.push(PartRow {
            part: Part::Evidence(k),
            label: format!("Evidence {}", k + 1),
            llm_text: q.clone(),
            decision: decision(Part::Evidence(k)),
        });
    }
    if let Some(r) = review {
        for (part, d) in &r.parts {
            if let Part::Evidence(k) = part
                && *k >= quotes
            {
                rows.push(PartRow {
                    part: *part,
                    label: format!("Evidence {} (added)", k + 1),
                    llm_text: String::new(),
                    decision: Some(d.clone()),
                });
            }
        }
    }
    rows
}

/// The index of the next evidence part an annotator adds to an evaluation.
pub fn next_evidence_index(rows: &[PartRow]) -> usize {
    rows.iter()
        .filter_map(|r| match r.part {
            Part::Evidence(k) => Some(k + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Where the annotator is: instance, criterion (of stage 2) and part (row of [`part_rows`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cursor {
    pub instance: usize,
    pub criterion: usize,
    pub part: usize,
}

impl Cursor {
    /// The next evaluation (criterion, then instance), at its first part; stays at the end.
    pub fn next_evaluation(self, instances: usize, criteria: usize) -> Cursor {
        if criteria == 0 || instances == 0 {
            return self;
        }
        if self.criterion + 1 < criteria {
            Cursor { criterion: self.criterion + 1, part: 0, ..self }
        } else if self.instance + 1 < instances {
            Cursor { instance: self.instance + 1, criterion: 0, part: 0 }
        } else {
            self
        }
    }

    /// The previous evaluation, at its first part; stays at the start.
    pub fn prev_evaluation(self, criteria: usize) -> Cursor {
        if self.criterion > 0 {
            Cursor { criterion: self.criterion - 1, part: 0, ..self }
        } else if self.instance > 0 && criteria > 0 {
            Cursor { instance: self.instance - 1, criterion: criteria - 1, part: 0 }
        } else {
            Cursor { part: 0, ..self }
        }
    }

    /// Clamped to the study's size (after criteria or instances changed).
    pub fn clamp(self, instances: usize, criteria: usize, parts: usize) -> Cursor {
        Cursor {
            instance: self.instance.min(instances.saturating_sub(1)),
            criterion: self.criterion.min(criteria.saturating_sub(1)),
            part: self.part.min(parts.saturating_sub(1)),
        }
    }
}

/// The cursor after a reload when none was saved: the evaluation of the annotator's latest
/// decision still in effect (undone ones do not count), or the start.
pub fn resume_cursor(log: &Log, instances: &[Instance], criteria: &[Stage2Criterion]) -> Cursor {
    let state = log.replay();
    for e in log.events().iter().rev() {
        let (instance, criterion) = match e {
            Event::Part { instance, criterion, .. } | Event::Score { instance, criterion, .. } => {
                (instance, criterion)
            }
            _ => continue,
        };
        if !state.reviews.contains_key(&(instance.clone(), criterion.clone())) {
            continue;
        }
        let i = instances.iter().position(|x| x.id == *instance);
        let c = criteria.iter().position(|x| x.name == *criterion);
        if let (Some(i), Some(c)) = (i, c) {
            return Cursor { instance: i, criterion: c, part: 0 };
        }
    }
    Cursor::default()
}

/// What a key press does on the scrutiny screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    NextPart,
    PrevPart,
    NextEvaluation,
    PrevEvaluation,
    /// Approve the focused part.
    Approve,
    /// Approve every part not decided yet.
    ApproveRest,
    /// Open the editor to delete the focused part (with a reason).
    Delete,
    /// Open the editor to revise the focused part.
    Revise,
    /// Open the editor to add an evidence quote.
    AddEvidence,
    /// Set the annotator's own score.
    Score(u8),
    Undo,
}

/// The keys, as the screen documents them: (keys, what they do).
pub const KEY_HELP: [(&str, &str); 10] = [
    ("↓ / j, ↑ / k", "next / previous part"),
    ("→ / n, ← / p", "next / previous criterion (then instance)"),
    ("a", "approve the focused part"),
    ("Shift+A", "approve every undecided part"),
    ("r", "revise the focused part (Enter saves, Esc cancels)"),
    ("x / Delete", "delete the focused part, with a reason"),
    ("e", "add an evidence quote"),
    ("1–5", "your own score"),
    ("u / Ctrl+Z", "undo the last action (also after a reload)"),
    ("Tab", "leave the list (buttons do the same as keys)"),
];

/// The command of a key (`KeyboardEvent.key`) with Ctrl or ⌘ held or not.
pub fn key_command(key: &str, ctrl: bool) -> Option<Command> {
    if ctrl {
        return matches!(key, "z" | "Z").then_some(Command::Undo);
    }
    Some(match key {
        "ArrowDown" | "j" => Command::NextPart,
        "ArrowUp" | "k" => Command::PrevPart,
        "ArrowRight" | "n" => Command::NextEvaluation,
        "ArrowLeft" | "p" => Command::PrevEvaluation,
        "a" => Command::Approve,
        "A" => Command::ApproveRest,
        "x" | "Delete" => Command::Delete,
        "r" => Command::Revise,
        "e" => Command::AddEvidence,
        "u" => Command::Undo,
        "1" => Command::Score(1),
        "2" => Command::Score(2),
        "3" => Command::Score(3),
        "4" => Command::Score(4),
        "5" => Command::Score(5),
        _ => return None,
    })
}

/// The events of "approve every undecided part".
pub fn approve_rest(instance: &str, criterion: &str, rows: &[PartRow]) -> Vec<Event> {
    rows.iter()
        .filter(|r| r.decision.is_none())
        .map(|r| Event::Part {
            instance: instance.to_owned(),
            criterion: criterion.to_owned(),
            part: r.part,
            action: Action::Approve,
            text: None,
            reason: String::new(),
        })
        .collect()
}

/// A short description of an event for the activity list and the undo button.
pub fn describe(event: &Event) -> String {
    match event {
        Event::Criterion { criterion, action, .. } => {
            format!("{} criterion {}", action.name(), clip(criterion, 40))
        }
        Event::Part { instance, part, action, .. } => {
            format!("{} {} of {instance}", action.name(), part_name(*part))
        }
        Event::Score { instance, score, .. } => {
            format!("score {} for {instance}", format_score(*score))
        }
        Event::Timer { instance, ms } => format!("{:.1} s on {instance}", *ms as f64 / 1000.0),
        Event::Undo => "undo".to_owned(),
        _ => "event".to_owned(),
    }
}

fn part_name(p: Part) -> String {
    match p {
        Part::Conclusion => "conclusion".to_owned(),
        Part::Score => "score".to_owned(),
        Part::Evidence(k) => format!("evidence {}", k + 1),
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// A score as printed: `4`, or `3.5`.
pub fn format_score(s: f64) -> String {
    if s.fract() == 0.0 { format!("{s:.0}") } else { format!("{s}") }
}

// ---------------------------------------------------------------------------------------------
// Tables and their exports.

/// A table as every export writes it: text cells, numbers already formatted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub title: String,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// RFC 4180 CSV (fields with a comma, quote or newline are quoted).
    pub fn to_csv(&self) -> String {
        let field = |s: &str| {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_owned()
            }
        };
        let line = |cells: &[String]| cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(",");
        let mut out = line(&self.headers);
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }

    /// A GitHub-flavoured Markdown table under a bold title.
    pub fn to_markdown(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        let line = |cells: &[String]| {
            format!("| {} |", cells.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "))
        };
        let mut out = format!("**{}**\n\n{}\n", self.title, line(&self.headers));
        out.push_str(&format!("|{}\n", "---|".repeat(self.headers.len())));
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }

    /// A LaTeX `tabular` (booktabs) in a `table` float with the title as caption.
    pub fn to_latex(&self) -> String {
        let esc = |s: &str| {
            let mut o = String::new();
            for ch in s.chars() {
                match ch {
                    '\\' => o.push_str("\\textbackslash{}"),
                    '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                        o.push('\\');
                        o.push(ch);
                    }
                    '~' => o.push_str("\\textasciitilde{}"),
                    '^' => o.push_str("\\textasciicircum{}"),
                    '\n' => o.push(' '),
                    _ => o.push(ch),
                }
            }
            o
        };
        let line = |cells: &[String]| {
            format!("{} \\\\\n", cells.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" & "))
        };
        let cols = format!("l{}", "r".repeat(self.headers.len().saturating_sub(1)));
        let mut out = format!(
            "\\begin{{table}}[t]\n\\centering\n\\caption{{{}}}\n\\begin{{tabular}}{{{cols}}}\n\\toprule\n",
            esc(&self.title)
        );
        out.push_str(&line(&self.headers));
        out.push_str("\\midrule\n");
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
        out
    }
}

fn pct(x: f64) -> String {
    format!("{x:.2}")
}

fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"))
}

/// Seed 004 Table 6 (or Table 5 with one row): approve / revise / delete / add in percent,
/// with the number of actions.
pub fn rates_table(title: &str, rows: &[(&str, &coeval::ActionCounts)]) -> Table {
    Table {
        title: title.to_owned(),
        headers: ["component", "approve %", "revise %", "delete %", "add %", "actions"]
            .map(str::to_owned)
            .to_vec(),
        rows: rows
            .iter()
            .map(|(name, c)| {
                let mut row = vec![(*name).to_owned()];
                match c.percentages() {
                    Some(r) => row.extend([r.approve, r.revise, r.delete, r.add].map(pct)),
                    None => row.extend(std::iter::repeat_n("–".to_owned(), 4)),
                }
                row.push(c.total().to_string());
                row
            })
            .collect(),
    }
}

/// Table 6 rows of component counts.
pub fn table6(title: &str, c: &ComponentCounts) -> Table {
    rates_table(
        title,
        &[
            ("overall", &c.all),
            ("conclusion", &c.conclusion),
            ("score", &c.score),
            ("evidence", &c.evidence),
        ],
    )
}

/// Figure 3 as a table: the α matrix with rater names on both sides.
pub fn alpha_table(title: &str, raters: &[String], matrix: &[Vec<Option<f64>>]) -> Table {
    let mut headers = vec!["".to_owned()];
    headers.extend(raters.iter().cloned());
    Table {
        title: title.to_owned(),
        headers,
        rows: raters
            .iter()
            .zip(matrix)
            .map(|(r, row)| {
                let mut cells = vec![r.clone()];
                cells.extend(row.iter().map(|v| num(*v)));
                cells
            })
            .collect(),
    }
}

/// Figure 2 as a table: counts of scores 1–5 per generating system and rater.
pub fn distribution_table(title: &str, table: &ScoreTable) -> Table {
    Table {
        title: title.to_owned(),
        headers: ["system", "rater", "1", "2", "3", "4", "5"].map(str::to_owned).to_vec(),
        rows: table
            .distribution(None)
            .into_iter()
            .map(|d| {
                let mut row = vec![d.system, d.rater];
                row.extend(d.counts.iter().map(usize::to_string));
                row
            })
            .collect(),
    }
}

/// The CSS class of an α cell (a five-step scale), for the on-screen heatmap.
pub fn alpha_class(v: Option<f64>) -> &'static str {
    match v {
        None => "alpha-none",
        Some(v) if v >= 0.8 => "alpha-5",
        Some(v) if v >= 0.667 => "alpha-4",
        Some(v) if v >= 0.4 => "alpha-3",
        Some(v) if v >= 0.0 => "alpha-2",
        Some(_) => "alpha-1",
    }
}

/// Figure 3 as a plot: the α matrix as a heatmap (values in the cells, colour from 0 to 1).
pub fn alpha_heatmap(title: &str, raters: &[String], matrix: &[Vec<Option<f64>>]) -> Heatmap {
    Heatmap::new(title, raters.to_vec(), raters.to_vec(), matrix.to_vec())
        .decimals(3)
        .range(0.0, 1.0)
}

/// Figure 2 as a plot: one row per (generating system, rater), one column per score 1–5, each
/// cell the share of that row's scores.
pub fn distribution_heatmap(title: &str, table: &ScoreTable) -> Heatmap {
    let groups = table.distribution(None);
    let rows = groups.iter().map(|d| format!("{} · {}", d.system, d.rater)).collect();
    let values = groups
        .iter()
        .map(|d| {
            let total: usize = d.counts.iter().sum();
            d.counts.iter().map(|&c| (total > 0).then(|| c as f64 / total as f64)).collect()
        })
        .collect();
    let columns = (1..=5).map(|k| k.to_string()).collect();
    Heatmap::new(title, rows, columns, values).decimals(2).range(0.0, 1.0)
}

// ---------------------------------------------------------------------------------------------
// Results of a study run in Concord.

/// Everything the results panel shows for a study and a set of annotators.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyResults {
    /// Table 5: stage-1 decisions on criteria.
    pub table5: Table,
    /// Final criteria by majority vote: (criterion, "kept by k of n").
    pub finals: Vec<FinalCriterion>,
    /// Table 6: stage-2 decisions per component.
    pub table6: Table,
    /// Share (0–1) of the LLM's scores annotators revised.
    pub share_revised: Option<f64>,
    pub raters: Vec<String>,
    pub alpha: Vec<Vec<Option<f64>>>,
    pub alpha_table: Table,
    /// Table 8: mean Pearson between the LLM and each annotator, and among annotators.
    pub pearson_llm_annotators: Option<f64>,
    pub pearson_annotators: Option<f64>,
    pub distribution: Table,
    pub scores: ScoreTable,
    pub minutes_per_sample: Option<f64>,
}

impl StudyResults {
    /// Computes the results over the annotators' (name, state) at α level `level`.
    pub fn compute(
        study: &Study,
        annotators: &[(String, Annotation)],
        level: KrippendorffLevel,
    ) -> StudyResults {
        let states: Vec<&Annotation> = annotators.iter().map(|(_, a)| a).collect();
        let table5_counts = coeval::criterion_actions(states.iter().copied());
        let finals = coeval::majority_criteria(&study.criteria, &states);
        let parts = coeval::part_actions(states.iter().copied());
        let llm: BTreeMap<(String, String), f64> = study
            .evaluations
            .iter()
            .filter_map(|e| Some(((e.instance.clone(), e.criterion.clone()), e.score?)))
            .collect();
        let share_revised = coeval::share_scores_revised(states.iter().copied(), |i, c| {
            llm.get(&(i.to_owned(), c.to_owned())).copied()
        });
        let named: Vec<(&str, &Annotation)> =
            annotators.iter().map(|(n, a)| (n.as_str(), a)).collect();
        let scores =
            ScoreTable::from_annotations(LLM, &study.llm_scores(), &named, |i| study.system_of(i));
        let alpha = scores.alpha_matrix(level);
        let names: Vec<&str> = annotators.iter().map(|(n, _)| n.as_str()).collect();
        let level_label = coeval::results::level_name(level);
        StudyResults {
            table5: rates_table(
                "Table 5: criteria scrutiny (stage 1)",
                &[("criteria", &table5_counts)],
            ),
            finals,
            table6: table6("Table 6: instance scrutiny (stage 2)", &parts),
            share_revised,
            alpha_table: alpha_table(
                &format!("Figure 3: Krippendorff's α ({level_label})"),
                &scores.raters,
                &alpha,
            ),
            raters: scores.raters.clone(),
            alpha,
            pearson_llm_annotators: scores.mean_pearson(&[LLM], Some(&names)),
            pearson_annotators: scores.mean_pearson(&names, None),
            distribution: distribution_table(
                "Figure 2: score distribution by generating model",
                &scores,
            ),
            scores,
            minutes_per_sample: coeval::minutes_per_sample(states.iter().copied()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Seed 004's released files.

/// What the released-file import shows: the `concord coeval` report as tables.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleasedView {
    pub report: coeval::Report,
    /// Table 6 per task.
    pub table6: Vec<Table>,
    /// Figure 3 per task.
    pub matrices: Vec<TaskMatrix>,
    /// The ROCStories A08–A10 block the paper's Figure 3 shows, when present: its table and
    /// the mean of the three ChatGPT–annotator values ("Group 1 α ≈ 0.754").
    pub figure3: Option<(Table, Option<f64>)>,
    /// Minutes per sample from the session logs, per task.
    pub minutes: Vec<(String, f64)>,
}

/// One task's α matrix among the raters of its score file.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskMatrix {
    pub task: String,
    pub raters: Vec<String>,
    pub matrix: Vec<Vec<Option<f64>>>,
}

/// The raters of Figure 3's ChatGPT/A3/A4/A5 block in the released ROCStories scores.
pub const FIGURE3_RATERS: [&str; 4] = [coeval::CHATGPT, "A08", "A09", "A10"];

impl ReleasedView {
    /// The view of `report`, which must be `reproduction`'s report at `level` (the released
    /// panel computes it task by task: `Reproduction::report_task`).
    pub fn from_report(
        reproduction: &Reproduction,
        report: coeval::Report,
        level: KrippendorffLevel,
    ) -> ReleasedView {
        let rate_row = |name: &'static str, r: &Option<coeval::released::Rates>| -> Vec<String> {
            let mut row = vec![name.to_owned()];
            match r {
                Some(r) => row.extend([r.approve, r.revise, r.delete, r.add].map(pct)),
                None => row.extend(std::iter::repeat_n("–".to_owned(), 4)),
            }
            row
        };
        let table6 = report
            .tasks
            .iter()
            .map(|t| {
                let r = &t.action_rates;
                Table {
                    title: format!(
                        "Table 6 — {} (score row from {})",
                        t.task,
                        t.score_source.as_deref().unwrap_or("–")
                    ),
                    headers: ["component", "approve %", "revise %", "delete %", "add %"]
                        .map(str::to_owned)
                        .to_vec(),
                    rows: vec![
                        rate_row("overall", &r.all),
                        rate_row("conclusion", &r.conclusion),
                        rate_row("score", &r.score),
                        rate_row("evidence", &r.evidence),
                    ],
                }
            })
            .collect();
        let mut matrices = Vec::new();
        let mut figure3 = None;
        for task in coeval::released::TASKS {
            let Some(table) = reproduction.score_table(task) else { continue };
            matrices.push(TaskMatrix {
                task: task.to_owned(),
                raters: table.raters.clone(),
                matrix: table.alpha_matrix(level),
            });
            if task == "roc" && FIGURE3_RATERS.iter().all(|r| table.raters.iter().any(|x| x == r)) {
                let names: Vec<String> = FIGURE3_RATERS.iter().map(|s| (*s).to_owned()).collect();
                let m: Vec<Vec<Option<f64>>> =
                    FIGURE3_RATERS
                        .iter()
                        .map(|a| {
                            FIGURE3_RATERS
                                .iter()
                                .map(|b| {
                                    if a == b {
                                        Some(1.0)
                                    } else {
                                        table.alpha(&[a, b], level).value
                                    }
                                })
                                .collect()
                        })
                        .collect();
                let group: Vec<f64> = m[0][1..].iter().flatten().copied().collect();
                let mean = (group.len() == 3).then(|| group.iter().sum::<f64>() / 3.0);
                figure3 = Some((
                    alpha_table(
                        "Figure 3 block (ROCStories A08–A10 = the paper's A3–A5)",
                        &names,
                        &m,
                    ),
                    mean,
                ));
            }
        }
        let minutes = report
            .tasks
            .iter()
            .filter_map(|t| Some((t.task.clone(), t.minutes_per_sample?)))
            .collect();
        ReleasedView { report, table6, matrices, figure3, minutes }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::*;
    use concord_core::coeval::AnnotatorFile;

    /// A CoEval `combine_data.json` with one task, two instances and two criteria.
    pub const FIXTURE: &str = r#"{"tiny": {
      "task_info": ["The task is to write a story."],
      "source_name": ["story requirement"], "target_name": ["story"],
      "source": ["A cat.", "A dog."], "target": ["The cat slept.", "The dog ran home."],
      "model_name": ["turbo", "human"],
      "criteria": ["1. Fluent.", "2. On topic."],
      "criteria_kv": {
        "1. Fluent.": ["1. It is fluent.\n\n2. Score: 4\n\n3. Evidence: \"The cat slept.\"", "1. Fluent enough.\n\n2. Score: 3\n\n3. Evidence: \"The dog\" and \"ran home\""],
        "2. On topic.": ["1. On topic.\n\n2. Score: 5\n\n3. Evidence: \"cat\"", "1. Yes.\n\n2. Score: 2\n\n3. Evidence: none"]
      }}}"#;

    fn study() -> Study {
        let loaded = concord_core::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap();
        Study::from_loaded(&loaded, "tiny", None).unwrap()
    }

    #[test]
    fn study_from_combined_file() {
        let s = study();
        assert_eq!(s.info.description, "to write a story");
        assert_eq!(
            (s.info.input_name.as_str(), s.info.output_name.as_str()),
            ("story requirement", "story")
        );
        assert_eq!(s.criteria, ["1. Fluent.", "2. On topic."]);
        assert_eq!(s.instances.len(), 2);
        assert_eq!(s.instances[1].output, "The dog ran home.");
        assert_eq!(s.instances[1].system, "human");
        assert_eq!(s.evaluations.len(), 4);
        let e = s.evaluation(&s.instances[1].id, "1. Fluent.").unwrap();
        assert_eq!(e.conclusion, "Fluent enough.");
        assert_eq!(e.score, Some(3.0));
        assert_eq!(e.evidence, ["The dog", "ran home"]);
        let e = s.evaluation(&s.instances[1].id, "2. On topic.").unwrap();
        assert_eq!((e.score, e.evidence.len()), (Some(2.0), 0));
        let limited = Study::from_loaded(
            &concord_core::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap(),
            "tiny",
            Some(1),
        )
        .unwrap();
        assert_eq!((limited.instances.len(), limited.evaluations.len()), (1, 2));
    }

    #[test]
    fn score_is_read_from_the_score_step() {
        let check = |response: &str, want: Option<f64>| {
            assert_eq!(Evaluation::from_response("i", "c", response).score, want, "{response}");
        };
        // combine_data.json's own wording (eli5, first evaluation).
        check(
            "1. The answer is simple.\n\n2. I would assign a score of 5 to this answer candidate based on the premise.\n\n3. Evidence: \"x\"",
            Some(5.0),
        );
        check("1. Meh.\n2. 3/5\n3. none", Some(3.0));
        check("1. Meh.\n2. 2 out of 5", Some(2.0));
        // No score step: Concord's reading of the whole answer; nothing on the scale: none.
        check("Conclusion: fine. Score: 4", Some(4.0));
        check("1. Bad.\n2. Score: 9", None);
    }

    #[test]
    fn study_errors_name_the_tasks() {
        let loaded = concord_core::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap();
        let err = Study::from_loaded(&loaded, "eli5", None).unwrap_err();
        assert_eq!(err.to_string(), "no task `eli5` in this dataset (it has: tiny)");
        let example = concord_core::data::example().unwrap();
        assert_eq!(Study::from_loaded(&example, "x", None).unwrap_err(), StudyError::NoTask);
    }

    #[test]
    fn keyboard_map() {
        let cases: [(&str, bool, Option<Command>); 9] = [
            ("j", false, Some(Command::NextPart)),
            ("ArrowUp", false, Some(Command::PrevPart)),
            ("n", false, Some(Command::NextEvaluation)),
            ("a", false, Some(Command::Approve)),
            ("A", false, Some(Command::ApproveRest)),
            ("4", false, Some(Command::Score(4))),
            ("z", true, Some(Command::Undo)),
            ("a", true, None),
            ("q", false, None),
        ];
        for (key, ctrl, want) in cases {
            assert_eq!(key_command(key, ctrl), want, "{key} ctrl={ctrl}");
        }
    }

    #[test]
    fn cursor_walks_evaluations_and_resumes_from_the_log() {
        let c = Cursor::default();
        let c = c.next_evaluation(2, 2);
        assert_eq!(c, Cursor { instance: 0, criterion: 1, part: 0 });
        let c = c.next_evaluation(2, 2);
        assert_eq!(c, Cursor { instance: 1, criterion: 0, part: 0 });
        assert_eq!(
            c.next_evaluation(2, 2).next_evaluation(2, 2),
            Cursor { instance: 1, criterion: 1, part: 0 }
        );
        assert_eq!(c.prev_evaluation(2), Cursor { instance: 0, criterion: 1, part: 0 });
        assert_eq!(Cursor::default().prev_evaluation(2), Cursor::default());

        let s = study();
        let crit = s.stage2_criteria(&[], false);
        let mut log = Log::new();
        assert_eq!(resume_cursor(&log, &s.instances, &crit), Cursor::default());
        log.push(part(&s.instances[1].id, "2. On topic.", Part::Score, Action::Approve)).unwrap();
        log.push(Event::Timer { instance: s.instances[1].id.clone(), ms: 5 }).unwrap();
        assert_eq!(
            resume_cursor(&log, &s.instances, &crit),
            Cursor { instance: 1, criterion: 1, part: 0 }
        );
        log.undo().unwrap();
        assert_eq!(resume_cursor(&log, &s.instances, &crit), Cursor::default());
    }

    fn part(instance: &str, criterion: &str, part: Part, action: Action) -> Event {
        let text = matches!(action, Action::Revise | Action::Add).then(|| "new".to_owned());
        Event::Part {
            instance: instance.to_owned(),
            criterion: criterion.to_owned(),
            part,
            action,
            text,
            reason: String::new(),
        }
    }

    #[test]
    fn part_rows_list_llm_parts_then_added_evidence() {
        let s = study();
        let id = s.instances[1].id.clone();
        let e = s.evaluation(&id, "1. Fluent.");
        let mut log = Log::new();
        log.push(part(&id, "1. Fluent.", Part::Evidence(1), Action::Delete)).unwrap();
        log.push(part(&id, "1. Fluent.", Part::Evidence(2), Action::Add)).unwrap();
        let state = log.replay();
        let review = state.reviews.get(&(id.clone(), "1. Fluent.".to_owned()));
        let rows = part_rows(e, review);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(
            labels,
            ["Conclusion", "Score", "Evidence 1", "Evidence 2", "Evidence 3 (added)"]
        );
        assert_eq!(rows[1].llm_text, "3");
        assert_eq!(rows[3].decision.as_ref().unwrap().action, Action::Delete);
        assert_eq!(next_evidence_index(&rows), 3);
        let rest = approve_rest(&id, "1. Fluent.", &rows);
        assert_eq!(rest.len(), 3, "conclusion, score and evidence 1 were undecided");
    }

    /// Two annotators over the fixture: every result pinned by hand.
    #[test]
    fn study_results() {
        let s = study();
        let (i0, i1) = (s.instances[0].id.clone(), s.instances[1].id.clone());
        let crit = |c: &str, a: Action| Event::Criterion {
            criterion: c.to_owned(),
            action: a,
            text: (a == Action::Revise).then(|| "1. Fluency.".to_owned()),
            reason: "r".to_owned(),
        };
        let score = |i: &str, c: &str, s: f64| Event::Score {
            instance: i.to_owned(),
            criterion: c.to_owned(),
            score: s,
        };
        let mut ann = Log::new();
        for e in [
            crit("1. Fluent.", Action::Approve),
            crit("2. On topic.", Action::Delete),
            part(&i0, "1. Fluent.", Part::Conclusion, Action::Approve),
            part(&i0, "1. Fluent.", Part::Score, Action::Revise),
            score(&i0, "1. Fluent.", 3.0),
            score(&i1, "1. Fluent.", 3.0),
            Event::Timer { instance: i0.clone(), ms: 60_000 },
            Event::Timer { instance: i1.clone(), ms: 120_000 },
        ] {
            ann.push(e).unwrap();
        }
        let mut bob = Log::new();
        for e in [
            crit("1. Fluent.", Action::Approve),
            crit("2. On topic.", Action::Approve),
            part(&i0, "1. Fluent.", Part::Score, Action::Approve),
            part(&i0, "1. Fluent.", Part::Evidence(0), Action::Delete),
            score(&i0, "1. Fluent.", 4.0),
            score(&i1, "1. Fluent.", 2.0),
        ] {
            bob.push(e).unwrap();
        }
        let annotators = vec![("Ann".to_owned(), ann.replay()), ("Bob".to_owned(), bob.replay())];
        let r = StudyResults::compute(&s, &annotators, KrippendorffLevel::Interval);
        // Stage 1: 3 approvals and 1 delete of 4.
        assert_eq!(r.table5.rows[0][1..], ["75.00", "0.00", "25.00", "0.00", "4"]);
        // "2. On topic.": Bob approves, Ann deletes; the most frequent action decides (seed
        // 004 §3.1), and a tie with delete keeps it.
        assert_eq!(
            r.finals.iter().map(|f| f.criterion.as_str()).collect::<Vec<_>>(),
            ["1. Fluent.", "2. On topic."]
        );
        // Stage 2: conclusion approve (Ann), score revise (Ann) + approve (Bob), evidence delete.
        assert_eq!(r.table6.rows[0][1..], ["50.00", "25.00", "25.00", "0.00", "4"]);
        assert_eq!(r.table6.rows[2][1..], ["50.00", "50.00", "0.00", "0.00", "2"]);
        // Scores: i0 LLM 4 / Ann 3 (revised) / Bob 4 (approved); i1 LLM 3 / Ann 3 / Bob 2.
        // Reviews with a score: Ann i0 (revised part), Ann i1 (same as LLM), Bob i0
        // (approved, own = LLM), Bob i1 (differs) → 2 of 4.
        assert_eq!(r.share_revised, Some(0.5));
        assert_eq!(r.raters, ["LLM", "Ann", "Bob"]);
        // LLM has 4 scores (two criteria), annotators only criterion 1: α(Ann, Bob) over the
        // units (3, 4) and (3, 2): D_o = (2·1 + 2·1)/4 = 1; D_e over the values 3, 4, 3, 2 =
        // 16/12 = 4/3; α = 1 − 3/4 = 0.25.
        let ann_bob = r.alpha[1][2].unwrap();
        let expected = concord_core::stats::krippendorff_alpha(
            &[vec![Some(3.0), Some(3.0)], vec![Some(4.0), Some(2.0)]],
            KrippendorffLevel::Interval,
        )
        .value
        .unwrap();
        assert!((ann_bob - expected).abs() < 1e-12);
        assert!((expected - 0.25).abs() < 1e-12, "{expected}");
        // Pearson: Ann (3, 3) is constant → undefined with everyone; Bob vs LLM (4,3)/(4,2) = 1.
        assert_eq!(r.pearson_llm_annotators, Some(1.0));
        assert_eq!(r.pearson_annotators, None);
        assert_eq!(r.minutes_per_sample, Some(1.5));
        // Figure 2: turbo's LLM scores are 4 and 5.
        let turbo_llm =
            r.distribution.rows.iter().find(|row| row[0] == "turbo" && row[1] == "LLM").unwrap();
        assert_eq!(turbo_llm[2..], ["0", "0", "0", "1", "1"]);
    }

    #[test]
    fn exports() {
        let t = Table {
            title: "T_1 & more".to_owned(),
            headers: vec!["a".into(), "b".into()],
            rows: vec![vec!["x,y".into(), "50%".into()], vec!["q\"r".into(), "|".into()]],
        };
        assert_eq!(t.to_csv(), "a,b\n\"x,y\",50%\n\"q\"\"r\",|\n");
        assert_eq!(
            t.to_markdown(),
            "**T_1 & more**\n\n| a | b |\n|---|---|\n| x,y | 50% |\n| q\"r | \\| |\n"
        );
        let latex = t.to_latex();
        assert!(latex.contains("\\caption{T\\_1 \\& more}"), "{latex}");
        assert!(latex.contains("x,y & 50\\% \\\\"), "{latex}");
        assert!(latex.contains("\\begin{tabular}{lr}"), "{latex}");
        let map = alpha_heatmap(
            "α <x>",
            &["A".into(), "B&C".into()],
            &[vec![Some(1.0), None], vec![None, Some(1.0)]],
        );
        let svg = map.scene().to_svg();
        assert!(svg.contains("&lt;x&gt;") && svg.contains("B&amp;C"), "{svg}");
        assert_eq!(map.range, Some((0.0, 1.0)));
    }

    #[test]
    fn exported_file_round_trips_into_results() {
        let s = study();
        let mut log = Log::new();
        log.push(Event::Score {
            instance: s.instances[0].id.clone(),
            criterion: "1. Fluent.".into(),
            score: 4.0,
        })
        .unwrap();
        let file = AnnotatorFile::new("Ann", &s.task, &log);
        let bytes = serde_json::to_vec(&file).unwrap();
        let back = coeval::import(&bytes).unwrap();
        let merged = coeval::merge(&back).unwrap();
        let named: Vec<(String, Annotation)> =
            merged.annotators.into_iter().map(|m| (m.annotator, m.state)).collect();
        let r = StudyResults::compute(&s, &named, KrippendorffLevel::Interval);
        assert_eq!(r.raters, ["LLM", "Ann"]);
    }
}
