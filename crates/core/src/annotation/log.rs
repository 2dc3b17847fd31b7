//! One person's append-only event log: decisions, the item timer's stretches and undos,
//! replayed into a state.

use serde::{Deserialize, Serialize};

/// What one event of a log is to the log: a decision (undoable), time spent (never undone,
/// always counted) or an undo of the latest decision still in effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Decision,
    Timer,
    Undo,
}

/// An event of one kind of annotation (CoEval's scrutiny, a review of a judge run): how it is
/// checked, what it is to the log and what it does to the replayed state.
pub trait Entry: Clone + PartialEq {
    /// What a log of these events replays to.
    type State: Default;
    /// Why an event was refused.
    type Error;
    /// The undo event.
    const UNDO: Self;

    fn kind(&self) -> Kind;
    /// Checks the event on its own (names, values).
    fn validate(&self) -> Result<(), Self::Error>;
    /// The refusal of an undo with no decision left to undo.
    fn nothing_to_undo() -> Self::Error;
    /// What the event does to the state (undos and undone events are never applied).
    fn apply(&self, state: &mut Self::State);
}

/// An append-only event log of one person. [`Log::push`] validates before appending, so a log
/// built through it always replays; undo is itself an event, so the log never shrinks (a crash
/// between an action and its undo loses neither), and the browser stores each event the moment
/// it is made and replays after a reload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Log<E> {
    events: Vec<E>,
}

impl<E> Default for Log<E> {
    fn default() -> Self {
        Log { events: Vec::new() }
    }
}

impl<E: Entry> Log<E> {
    pub fn new() -> Log<E> {
        Log::default()
    }

    /// Rebuilds a log from stored events, refusing the first invalid one (by index).
    pub fn from_events(events: Vec<E>) -> Result<Log<E>, (usize, E::Error)> {
        let mut log = Log::new();
        for (i, e) in events.into_iter().enumerate() {
            log.push(e).map_err(|err| (i, err))?;
        }
        Ok(log)
    }

    pub fn events(&self) -> &[E] {
        &self.events
    }

    /// Appends `event` if it is valid (and, for undo, if a decision can be undone).
    pub fn push(&mut self, event: E) -> Result<(), E::Error> {
        event.validate()?;
        if event.kind() == Kind::Undo && self.live().is_empty() {
            return Err(E::nothing_to_undo());
        }
        self.events.push(event);
        Ok(())
    }

    /// Appends an undo of the latest decision in effect.
    pub fn undo(&mut self) -> Result<(), E::Error> {
        self.push(E::UNDO)
    }

    /// Indices of the decisions still in effect after undos, in order. Time spent stays spent:
    /// keeping timer events out of the undo stack also means undo after a timer tick still
    /// undoes the person's last decision.
    fn live(&self) -> Vec<usize> {
        let mut live: Vec<usize> = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            match e.kind() {
                Kind::Undo => {
                    live.pop();
                }
                Kind::Timer => {}
                Kind::Decision => live.push(i),
            }
        }
        live
    }

    /// The latest decision in effect (what undo would take back).
    pub fn last_decision(&self) -> Option<&E> {
        self.live().last().and_then(|&i| self.events.get(i))
    }

    /// The state after every event, honouring undos.
    pub fn replay(&self) -> E::State {
        let mut state = E::State::default();
        let live = self.live();
        for (i, e) in self.events.iter().enumerate() {
            if e.kind() == Kind::Timer || live.binary_search(&i).is_ok() {
                e.apply(&mut state);
            }
        }
        state
    }
}
