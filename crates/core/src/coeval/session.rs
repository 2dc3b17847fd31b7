//! One annotator's CoEval session as an append-only log of events, replayed into a state.
//!
//! The log is the one annotation log ([`crate::annotation::Log`]): the browser persists each
//! [`Event`] the moment it is made (one IndexedDB record per event) and rebuilds the
//! [`Annotation`] by [`Log::replay`](crate::annotation::Log::replay) after a reload.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a human did with one thing the LLM proposed (a criterion, or a part of an evaluation).
///
/// Seed 004 calls approval "pass" in its released files; [`Action::from_released`] maps them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Approve,
    Revise,
    Delete,
    Add,
}

impl Action {
    pub const ALL: [Action; 4] = [Action::Approve, Action::Revise, Action::Delete, Action::Add];

    /// The released files' spelling (`pass`, `revise`, `delete`, `add`), case-insensitive.
    pub fn from_released(word: &str) -> Option<Action> {
        match word.trim().to_ascii_lowercase().as_str() {
            "pass" | "approve" => Some(Action::Approve),
            "revise" => Some(Action::Revise),
            "delete" => Some(Action::Delete),
            "add" => Some(Action::Add),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Action::Approve => "approve",
            Action::Revise => "revise",
            Action::Delete => "delete",
            Action::Add => "add",
        }
    }
}

/// The three components of an LLM evaluation that seed 004's Table 6 reports on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    Conclusion,
    Score,
    Evidence,
}

impl Component {
    /// The component of a line position in the released `*_action.json` arrays: 0 is the
    /// conclusion, 1 the score, 2 and later the evidence.
    pub fn of_position(position: usize) -> Component {
        match position {
            0 => Component::Conclusion,
            1 => Component::Score,
            _ => Component::Evidence,
        }
    }
}

/// One part of an LLM evaluation under scrutiny: the conclusion, the score line, or the
/// `n`-th evidence quote (new quotes an annotator adds get indices after the LLM's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    Conclusion,
    Score,
    Evidence(usize),
}

impl Part {
    pub fn component(self) -> Component {
        match self {
            Part::Conclusion => Component::Conclusion,
            Part::Score => Component::Score,
            Part::Evidence(_) => Component::Evidence,
        }
    }
}

/// One thing an annotator did. Events are what is persisted, exported and merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// Stage 1: a decision on an LLM criterion (or, with [`Action::Add`], a new criterion named
    /// `criterion`). `text` is the revised wording for [`Action::Revise`].
    Criterion {
        criterion: String,
        action: Action,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default)]
        reason: String,
    },
    /// Stage 2: a decision on one part of the LLM's evaluation of `instance` under `criterion`.
    Part {
        instance: String,
        criterion: String,
        part: Part,
        action: Action,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default)]
        reason: String,
    },
    /// Stage 2: the annotator's own 1–5 score.
    Score { instance: String, criterion: String, score: f64 },
    /// Time spent on an instance, in milliseconds, as measured by the UI (the core has no
    /// clock); successive timer events for one instance add up.
    Timer { instance: String, ms: u64 },
    /// Undoes the latest event not yet undone (timer events are never undone: time was spent).
    Undo,
    /// Several decisions made by one command (approve every remaining part, Shift+A): applied
    /// in order and undone as one. Holds decisions only (criteria, parts, scores).
    Batch { events: Vec<Event> },
}

/// Why an event was refused. Nothing is appended when an event is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EventError {
    /// A name (criterion, instance) is empty.
    #[error("the {field} is empty")]
    EmptyName { field: &'static str },
    /// Revise and add need the new text.
    #[error("`{}` needs the new text", action.name())]
    MissingText { action: Action },
    /// Scores are on the 1–5 scale of seed 004.
    #[error("score {score} is outside the 1–5 scale")]
    ScoreOutOfRange { score: f64 },
    /// Undo with nothing left to undo.
    #[error("nothing to undo")]
    NothingToUndo,
    /// A batch is empty or holds something other than decisions (an undo, a timer, a batch).
    #[error("a batch holds one or more decisions on criteria, parts or scores, nothing else")]
    BadBatch,
}

/// A decision on a criterion or a part, as the latest event left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub action: Action,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub reason: String,
}

/// What an annotator did to one (instance, criterion) evaluation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Review {
    #[serde(with = "as_list")]
    pub parts: BTreeMap<Part, Decision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// The state a log replays to: one annotator's criteria decisions, reviews and timers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    pub criteria: BTreeMap<String, Decision>,
    /// Keyed by (instance, criterion).
    #[serde(with = "as_list")]
    pub reviews: BTreeMap<(String, String), Review>,
    /// Milliseconds per instance.
    pub time_ms: BTreeMap<String, u64>,
}

impl Annotation {
    /// The shortest event list that replays to this state (used to export merged work).
    pub fn to_events(&self) -> Vec<Event> {
        let mut out = Vec::new();
        for (criterion, d) in &self.criteria {
            out.push(Event::Criterion {
                criterion: criterion.clone(),
                action: d.action,
                text: d.text.clone(),
                reason: d.reason.clone(),
            });
        }
        for ((instance, criterion), review) in &self.reviews {
            for (part, d) in &review.parts {
                out.push(Event::Part {
                    instance: instance.clone(),
                    criterion: criterion.clone(),
                    part: *part,
                    action: d.action,
                    text: d.text.clone(),
                    reason: d.reason.clone(),
                });
            }
            if let Some(score) = review.score {
                out.push(Event::Score {
                    instance: instance.clone(),
                    criterion: criterion.clone(),
                    score,
                });
            }
        }
        for (instance, ms) in &self.time_ms {
            out.push(Event::Timer { instance: instance.clone(), ms: *ms });
        }
        out
    }
}

/// Checks an event on its own (names, text, score range).
pub fn validate(event: &Event) -> Result<(), EventError> {
    let needs_text = |action: Action, text: &Option<String>| match action {
        Action::Revise | Action::Add if text.as_deref().is_none_or(|t| t.trim().is_empty()) => {
            Err(EventError::MissingText { action })
        }
        _ => Ok(()),
    };
    let named = |value: &str, field: &'static str| {
        if value.trim().is_empty() { Err(EventError::EmptyName { field }) } else { Ok(()) }
    };
    match event {
        Event::Criterion { criterion, action, text, .. } => {
            named(criterion, "criterion")?;
            // Adding a criterion names it in `criterion`; only revision needs a new wording.
            if *action == Action::Revise { needs_text(*action, text) } else { Ok(()) }
        }
        Event::Part { instance, criterion, action, text, .. } => {
            named(instance, "instance")?;
            named(criterion, "criterion")?;
            needs_text(*action, text)
        }
        Event::Score { instance, criterion, score } => {
            named(instance, "instance")?;
            named(criterion, "criterion")?;
            if score.is_finite() && (1.0..=5.0).contains(score) {
                Ok(())
            } else {
                Err(EventError::ScoreOutOfRange { score: *score })
            }
        }
        Event::Timer { instance, .. } => named(instance, "instance"),
        Event::Undo => Ok(()),
        Event::Batch { events } => {
            let decision = |e: &Event| {
                matches!(e, Event::Criterion { .. } | Event::Part { .. } | Event::Score { .. })
            };
            if events.is_empty() || !events.iter().all(decision) {
                return Err(EventError::BadBatch);
            }
            events.iter().try_for_each(validate)
        }
    }
}

/// One annotator's append-only event log ([`crate::annotation::Log`]). Timer events are
/// never undone: time was spent.
pub type Log = crate::annotation::Log<Event>;

impl crate::annotation::Entry for Event {
    type State = Annotation;
    type Error = EventError;
    const UNDO: Event = Event::Undo;

    fn kind(&self) -> crate::annotation::Kind {
        match self {
            Event::Undo => crate::annotation::Kind::Undo,
            Event::Timer { .. } => crate::annotation::Kind::Timer,
            _ => crate::annotation::Kind::Decision,
        }
    }

    fn validate(&self) -> Result<(), EventError> {
        validate(self)
    }

    fn nothing_to_undo() -> EventError {
        EventError::NothingToUndo
    }

    fn apply(&self, state: &mut Annotation) {
        apply(state, self);
    }
}

impl From<crate::annotation::Stretch> for Event {
    fn from(s: crate::annotation::Stretch) -> Event {
        Event::Timer { instance: s.item, ms: s.ms }
    }
}

fn apply(state: &mut Annotation, event: &Event) {
    match event {
        Event::Criterion { criterion, action, text, reason } => {
            state.criteria.insert(
                criterion.clone(),
                Decision { action: *action, text: text.clone(), reason: reason.clone() },
            );
        }
        Event::Part { instance, criterion, part, action, text, reason } => {
            state.reviews.entry((instance.clone(), criterion.clone())).or_default().parts.insert(
                *part,
                Decision { action: *action, text: text.clone(), reason: reason.clone() },
            );
        }
        Event::Score { instance, criterion, score } => {
            state.reviews.entry((instance.clone(), criterion.clone())).or_default().score =
                Some(*score);
        }
        Event::Timer { instance, ms } => {
            let t = state.time_ms.entry(instance.clone()).or_default();
            *t = t.saturating_add(*ms);
        }
        Event::Undo => {}
        Event::Batch { events } => {
            for e in events {
                apply(state, e);
            }
        }
    }
}

/// JSON object keys must be strings; maps keyed by tuples or [`Part`] are written as lists of
/// `[key, value]` pairs instead.
mod as_list {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<K: Serialize, V: Serialize, S: Serializer>(
        map: &BTreeMap<K, V>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(map.iter())
    }

    pub fn deserialize<'de, K, V, D>(d: D) -> Result<BTreeMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}
