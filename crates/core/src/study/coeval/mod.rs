//! CoEval (seed 004) as a study the screen and the CLI share: the study under scrutiny, the
//! scrutiny cursor and commands, the results of a study run in Concord and of seed 004's
//! released files as [`Report`](crate::report::Report)s, and the snapshot a bundle carries.
//!
//! The annotation model itself (event log with undo, annotator files, merge, action rates, α,
//! the reading of the released files) is [`crate::coeval`]; the prompts and the reading of the
//! LLM's answers are [`crate::judge::coeval`]. This module arranges them as the screen shows
//! them.
//!
//! | module | what |
//! |---|---|
//! | [`study`] | [`Study`]: task, criteria, instances, the LLM's evaluations (raw answer and parts); stage-2 criteria; the evaluations still to ask for |
//! | [`scrutiny`] | stage 2 as state transitions: part rows, [`Cursor`], keys → [`Command`] → [`Step`] ([`Focus::command`]), the editor's event, the timer's seconds (`seconds_on`, over [`crate::annotation::ItemTimer`]) |
//! | [`tables`] | action rates, α matrix, score distributions as `report` tables and heatmaps |
//! | [`results`] | stage 1 ([`Stage1`]), merging annotators, [`StudyResults`] and [`StudyResults::report`] (the Results panel) |
//! | [`released`] | [`ReleasedView`] and [`ReleasedView::report`] (the Released panel, `concord coeval --format md`) |
//! | [`snapshot`] | [`Snapshot`]: what rebuilds the screen from a bundle, with no key |
//!
//! The modules depend on each other in one direction: `study` ← `scrutiny`; `tables` ←
//! `results`, `released`; `study`, `results` ← `snapshot`.

pub mod released;
pub mod results;
pub mod scrutiny;
pub mod snapshot;
pub mod study;
pub mod tables;

/// The level α is computed at, a choice of the Results panel (the statistic itself stays in
/// [`crate::stats`]).
pub use crate::stats::KrippendorffLevel;
pub use released::{FIGURE3_RATERS, Figure3, ReleasedView, TaskMatrix, task_title};
pub use results::{
    MergeError, Stage1, StudyResults, annotations_of, merge_annotators, merge_tables,
    recurrence_table, recurring_criteria,
};
pub use scrutiny::{
    Command, Cursor, Editing, Focus, KEY_HELP, PartRow, Step, approve_rest, describe, format_score,
    key_command, last_action, next_evidence_index, part_rows, resume_cursor, seconds_on,
};
pub use snapshot::{
    Answer, ImportedFile, Parts, Restored, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, Snapshot,
    SnapshotError,
};
pub use study::{
    Evaluation, EvaluationTarget, IdeationError, Instance, LLM, Stage2Criterion, Study, StudyError,
    check_task_name, numbered_by_themselves, parse_criteria, typed_instance,
};
