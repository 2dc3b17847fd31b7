//! One person's annotation as an append-only event log, exported as a versioned file and merged
//! with others' — the one model behind CoEval's scrutiny ([`crate::coeval`]), the review of a
//! judge run ([`crate::study::workbench::review`]) and the class view's merge of submissions
//! ([`crate::study::exercise::class`]).
//!
//! * [`Log`] — a person's events of a kind ([`Entry`]: decisions, the item timer's stretches,
//!   undos) appended as made, replayed into the kind's state; undo is an event too.
//! * [`ItemTimer`] — the time on the item under the cursor, with the clock passed in; its
//!   [`Stretch`]es become the log's timer events.
//! * [`PersonFile`] — what a person exports and imports (`format`, `version`, the person, what
//!   they worked on, the events; a kind's field names by [`Format`]), read with typed
//!   [`FileError`]s for a truncated, foreign, newer or nameless file or one that does not replay.
//! * [`merge`] — several files united in order ([`Decisions`]: the state read as decisions by
//!   key), per person or everyone together, the later file winning and every differing key a
//!   [`Conflict`]; [`replaced`] — the conflicts of a later file that replaces an earlier whole.

mod file;
mod log;
mod merge;
mod timer;

pub use file::{FileError, Format, PersonFile};
pub use log::{Entry, Kind, Log};
pub use merge::{
    Conflict, ConflictOf, Decisions, Group, Merged, Refused, Together, merge, replaced,
};
pub use timer::{ItemTimer, MIN_TIMED_MS, Stretch};
