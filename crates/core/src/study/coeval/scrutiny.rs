//! Stage 2 as state transitions: the parts of the evaluation under the cursor, the cursor and
//! its moves, the keyboard map, what each command does ([`Focus::command`]: move, record
//! events, or open the editor), the editor's event, and the per-instance timer. The screen
//! turns keys into [`Command`]s and carries out the [`Step`] it gets back.

use serde::{Deserialize, Serialize};

use super::study::{Evaluation, Instance, Stage2Criterion, Study};
use crate::annotation::ItemTimer;
use crate::coeval::{Action, Annotation, Decision, Event, Log, Part, Review};

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

impl PartRow {
    /// The decision as the screen shows it: `revise: “Score: 3” (reason: too generous)`, or
    /// `undecided`.
    pub fn decision_text(&self) -> String {
        let Some(d) = &self.decision else { return "undecided".to_owned() };
        let mut s = d.action.name().to_owned();
        if let Some(t) = &d.text {
            s.push_str(&format!(": “{t}”"));
        }
        if !d.reason.is_empty() {
            s.push_str(&format!(" (reason: {})", d.reason));
        }
        s
    }
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
    // A batch's decisions count as if made one after another.
    let latest_first = log.events().iter().rev().flat_map(|e| match e {
        Event::Batch { events } => events.iter().rev().collect::<Vec<_>>(),
        e => vec![e],
    });
    for e in latest_first {
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

/// What the part editor is open for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Editing {
    Revise(Part),
    Delete(Part),
    Add(Part),
}

impl Editing {
    /// The editor's instruction.
    pub fn prompt(self) -> &'static str {
        match self {
            Editing::Revise(_) => "Revise: new text, then Enter",
            Editing::Delete(_) => "Delete: why? then Enter",
            Editing::Add(_) => "Add evidence: the quote, then Enter",
        }
    }

    /// Whether the editor asks for a new text (delete asks for a reason only).
    pub fn has_text(self) -> bool {
        !matches!(self, Editing::Delete(_))
    }
}

/// What the screen does after a command.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Move the cursor (and remember it).
    Move(Cursor),
    /// Append these events to the annotator's log.
    Record(Vec<Event>),
    /// Open the editor, its text field holding `text`.
    Edit { mode: Editing, text: String },
    /// Nothing to do (no focused part, nothing undecided).
    Nothing,
}

/// Everything shown about the evaluation under the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct Focus {
    pub cursor: Cursor,
    pub instances: usize,
    pub criteria: usize,
    pub instance: Instance,
    pub criterion: Stage2Criterion,
    pub evaluation: Option<Evaluation>,
    pub rows: Vec<PartRow>,
    pub own_score: Option<f64>,
    /// Evaluations this annotator has touched.
    pub done: usize,
}

impl Focus {
    /// The evaluation at `cursor` for an annotator whose state is `state`; `None` when the
    /// study has no instance or criterion there.
    pub fn at(
        study: &Study,
        criteria: &[Stage2Criterion],
        cursor: Cursor,
        state: &Annotation,
    ) -> Option<Focus> {
        let instance = study.instances.get(cursor.instance)?.clone();
        let criterion = criteria.get(cursor.criterion)?.clone();
        let evaluation = study.evaluation(&instance.id, &criterion.evaluated_as).cloned();
        let review = state.reviews.get(&(instance.id.clone(), criterion.evaluated_as.clone()));
        let rows = part_rows(evaluation.as_ref(), review);
        Some(Focus {
            cursor,
            instances: study.instances.len(),
            criteria: criteria.len(),
            own_score: review.and_then(|r| r.score),
            instance,
            criterion,
            evaluation,
            rows,
            done: state.reviews.len(),
        })
    }

    /// `Instance 1 of 2 · criterion 1 of 2`.
    pub fn position(&self) -> String {
        format!(
            "Instance {} of {} · criterion {} of {}",
            self.cursor.instance + 1,
            self.instances,
            self.cursor.criterion + 1,
            self.criteria
        )
    }

    /// `3 of 4 evaluations touched`.
    pub fn progress(&self) -> String {
        format!("{} of {} evaluations touched", self.done, self.instances * self.criteria)
    }

    /// An event on one part of this evaluation.
    pub fn part_event(
        &self,
        part: Part,
        action: Action,
        text: Option<String>,
        reason: String,
    ) -> Event {
        Event::Part {
            instance: self.instance.id.clone(),
            criterion: self.criterion.evaluated_as.clone(),
            part,
            action,
            text,
            reason,
        }
    }

    /// What `command` does here.
    pub fn command(&self, command: Command) -> Step {
        let focused = self.rows.get(self.cursor.part);
        let c = self.cursor;
        match command {
            Command::NextPart => Step::Move(Cursor {
                part: (c.part + 1).min(self.rows.len().saturating_sub(1)),
                ..c
            }),
            Command::PrevPart => Step::Move(Cursor { part: c.part.saturating_sub(1), ..c }),
            Command::NextEvaluation => Step::Move(c.next_evaluation(self.instances, self.criteria)),
            Command::PrevEvaluation => Step::Move(c.prev_evaluation(self.criteria)),
            Command::Approve => match focused {
                Some(row) => Step::Record(vec![self.part_event(
                    row.part,
                    Action::Approve,
                    None,
                    String::new(),
                )]),
                None => Step::Nothing,
            },
            Command::ApproveRest => {
                let events =
                    approve_rest(&self.instance.id, &self.criterion.evaluated_as, &self.rows);
                // One command, one step to undo.
                match events.len() {
                    0 => Step::Nothing,
                    1 => Step::Record(events),
                    _ => Step::Record(vec![Event::Batch { events }]),
                }
            }
            Command::Delete => match focused {
                Some(row) => Step::Edit { mode: Editing::Delete(row.part), text: String::new() },
                None => Step::Nothing,
            },
            Command::Revise => match focused {
                Some(row) => Step::Edit {
                    mode: Editing::Revise(row.part),
                    // The annotator's own revision when there is one, else the LLM's text.
                    text: row
                        .decision
                        .as_ref()
                        .and_then(|d| d.text.clone())
                        .unwrap_or_else(|| row.llm_text.clone()),
                },
                None => Step::Nothing,
            },
            Command::AddEvidence => Step::Edit {
                mode: Editing::Add(Part::Evidence(next_evidence_index(&self.rows))),
                text: String::new(),
            },
            Command::Score(s) => Step::Record(vec![Event::Score {
                instance: self.instance.id.clone(),
                criterion: self.criterion.evaluated_as.clone(),
                score: f64::from(s),
            }]),
            Command::Undo => Step::Record(vec![Event::Undo]),
        }
    }

    /// The event the editor saves, and where the cursor goes once it is recorded (an added
    /// quote is focused: it is the new last row).
    pub fn edit(&self, mode: Editing, text: String, reason: String) -> (Event, Option<Cursor>) {
        match mode {
            Editing::Revise(p) => (self.part_event(p, Action::Revise, Some(text), reason), None),
            Editing::Delete(p) => (self.part_event(p, Action::Delete, None, reason), None),
            Editing::Add(p) => (
                self.part_event(p, Action::Add, Some(text), reason),
                Some(Cursor { part: self.rows.len(), ..self.cursor }),
            ),
        }
    }
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
        Event::Batch { events } => match events.as_slice() {
            [one] => describe(one),
            [Event::Part { instance, action, .. }, ..]
                if events.iter().all(|e| {
                    matches!(e, Event::Part { instance: i, action: a, .. } if i == instance && a == action)
                }) =>
            {
                format!("{} {} parts of {instance}", action.name(), events.len())
            }
            _ => format!("{} decisions", events.len()),
        },
    }
}

/// The latest action of a log that is not a timer value, described ("Last: …" on screen).
pub fn last_action(log: &Log) -> Option<String> {
    log.events().iter().rev().find(|e| !matches!(e, Event::Timer { .. })).map(describe)
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

/// Seconds shown on the timer: what the log holds for `instance` plus the running stretch.
pub fn seconds_on(state: &Annotation, instance: &str, timer: &ItemTimer, now: f64) -> f64 {
    let saved = state.time_ms.get(instance).copied().unwrap_or(0) as f64;
    (saved + timer.running_ms(now)) / 1000.0
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
mod tests {
    use super::super::study::tests::{part, study};
    use super::*;

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
        assert_eq!(rows[4].decision_text(), "add: “new”");
        assert_eq!(rows[0].decision_text(), "undecided");
        assert_eq!(next_evidence_index(&rows), 3);
        let rest = approve_rest(&id, "1. Fluent.", &rows);
        assert_eq!(rest.len(), 3, "conclusion, score and evidence 1 were undecided");
    }

    /// A scrutiny session run through [`Focus::command`] and [`Focus::edit`] alone: the
    /// commands of the keys the end-to-end test presses, with the log they leave.
    #[test]
    fn commands_move_record_and_edit() {
        let s = study();
        let criteria = vec![
            Stage2Criterion { name: "1. Fluent.".into(), evaluated_as: "1. Fluent.".into() },
            Stage2Criterion {
                name: "2. Stays on topic.".into(),
                evaluated_as: "2. On topic.".into(),
            },
        ];
        let mut log = Log::new();
        let mut cursor = Cursor::default();
        let focus =
            |cursor: Cursor, log: &Log| Focus::at(&s, &criteria, cursor, &log.replay()).unwrap();
        let run = |cmd: Command, log: &mut Log, cursor: &mut Cursor| -> Step {
            let step = focus(*cursor, log).command(cmd);
            match &step {
                Step::Move(c) => *cursor = *c,
                Step::Record(events) => events.iter().for_each(|e| log.push(e.clone()).unwrap()),
                _ => {}
            }
            step
        };
        let f = focus(cursor, &log);
        assert_eq!(f.position(), "Instance 1 of 2 · criterion 1 of 2");
        assert_eq!(f.progress(), "0 of 4 evaluations touched");
        run(Command::Approve, &mut log, &mut cursor);
        run(Command::NextPart, &mut log, &mut cursor);
        // Revise opens the editor on the LLM's text.
        let step = run(Command::Revise, &mut log, &mut cursor);
        assert_eq!(step, Step::Edit { mode: Editing::Revise(Part::Score), text: "4".into() });
        let (event, to) = focus(cursor, &log).edit(
            Editing::Revise(Part::Score),
            "Score: 3".into(),
            "too generous".into(),
        );
        log.push(event).unwrap();
        assert_eq!(to, None);
        run(Command::Score(3), &mut log, &mut cursor);
        // Add evidence: the editor is for a fourth part (after 3 rows), and the cursor
        // lands on it once saved.
        let step = run(Command::AddEvidence, &mut log, &mut cursor);
        assert_eq!(step, Step::Edit { mode: Editing::Add(Part::Evidence(1)), text: String::new() });
        let (event, to) =
            focus(cursor, &log).edit(Editing::Add(Part::Evidence(1)), "slept".into(), "key".into());
        log.push(event).unwrap();
        assert_eq!(to, Some(Cursor { part: 3, ..cursor }));
        let f = focus(cursor, &log);
        let decisions: Vec<String> = f.rows.iter().map(PartRow::decision_text).collect();
        assert_eq!(
            decisions,
            [
                "approve",
                "revise: “Score: 3” (reason: too generous)",
                "undecided",
                "add: “slept” (reason: key)"
            ]
        );
        assert_eq!(f.own_score, Some(3.0));
        // Next criterion: the revised wording, shown with the original's evaluation.
        run(Command::NextEvaluation, &mut log, &mut cursor);
        let f = focus(cursor, &log);
        assert_eq!(f.criterion.name, "2. Stays on topic.");
        assert_eq!(f.rows[0].llm_text, "On topic.");
        // Approve-all is one step: described as one, undone as one.
        let before = log.events().len();
        run(Command::ApproveRest, &mut log, &mut cursor);
        assert_eq!(log.events().len(), before + 1);
        let instance = &s.instances[0].id;
        assert_eq!(last_action(&log), Some(format!("approve 3 parts of {instance}")));
        let f = focus(cursor, &log);
        let decisions: Vec<String> = f.rows.iter().map(PartRow::decision_text).collect();
        assert_eq!(decisions, ["approve", "approve", "approve"]);
        assert_eq!(f.progress(), "2 of 4 evaluations touched");
        assert_eq!(focus(cursor, &log).command(Command::ApproveRest), Step::Nothing);
        run(Command::Undo, &mut log, &mut cursor);
        let f = focus(cursor, &log);
        let decisions: Vec<String> = f.rows.iter().map(PartRow::decision_text).collect();
        assert_eq!(decisions, ["undecided", "undecided", "undecided"]);
        assert_eq!(f.progress(), "1 of 4 evaluations touched");
        assert_eq!(last_action(&log).as_deref(), Some("undo"));
        // The log with its batch reads back from its JSON, as after a reload.
        let json = serde_json::to_string(&log).unwrap();
        let back = Log::from_events(serde_json::from_str(&json).unwrap()).unwrap();
        assert_eq!(back.replay(), log.replay());
        // Approving one remaining part is a plain decision.
        run(Command::Approve, &mut log, &mut cursor);
        run(Command::NextPart, &mut log, &mut cursor);
        run(Command::Approve, &mut log, &mut cursor);
        let step = focus(cursor, &log).command(Command::ApproveRest);
        assert!(
            matches!(&step, Step::Record(e) if matches!(e.as_slice(), [Event::Part { .. }])),
            "{step:?}"
        );
        log.undo().unwrap();
        log.undo().unwrap();
        cursor.part = 0;
        // Delete asks for a reason only.
        let step = run(Command::Delete, &mut log, &mut cursor);
        assert_eq!(
            step,
            Step::Edit { mode: Editing::Delete(Part::Conclusion), text: String::new() }
        );
        assert!(!Editing::Delete(Part::Conclusion).has_text());
        run(Command::PrevEvaluation, &mut log, &mut cursor);
        assert_eq!(cursor, Cursor::default());
    }

    #[test]
    fn the_timer_shows_the_logged_time_and_the_running_stretch() {
        let mut t = ItemTimer::new();
        t.focus(Some("i2"), 23_000.0, true);
        let mut state = Annotation::default();
        state.time_ms.insert("i2".into(), 4_000);
        assert_eq!(seconds_on(&state, "i2", &t, 25_000.0), 6.0);
    }
}
