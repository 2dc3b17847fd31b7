//! Classroom exercises (issue 26): a teacher turns the open dataset (and the CoEval screen's
//! study, to scrutinise) into an [`Exercise`] file, students rate its items (and scrutinise
//! the study) offline and export a [`Submission`] each, and the teacher's class
//! view merges the submissions into a [`class::ClassReport`] — each student against the
//! reference and the judges, agreement among the students, the distribution of the ratings.
//!
//! | module | what lives there |
//! |---|---|
//! | [`file`] | the exercise file: kind + version checked on open, the dataset (or a seeded sample), tasks, instructions, the reference ratings (optionally hidden), the judges' ratings and (version 2) the judge run a correct-judge task reviews, the Judge screen's study a run-judges task runs, or the CoEval study to scrutinise |
//! | [`markdown`] | the instructions' safe Markdown subset as plain blocks a view renders as text |
//! | [`submission`] | one student's file: the exercise's id and SHA-256, the name, the ratings, the time per item, (version 2) the review of the judge run, the CoEval decisions and the runs of the given judges (model and per-item scores) — never a key |
//! | [`class`] | the class view: submissions merged (conflicts, duplicates, other exercises named) and the report's tables and figures, each student's corrections of the judge and runs of the given judges among them |
//! | [`scrutiny`] | the class view of a CoEval exercise: the students' scrutinies merged as CoEval merges annotators, each student's actions, the study's results over the class |
//!
//! A file cannot keep a secret from its reader: "hidden" reference ratings are inside the
//! exercise file, and the app only refrains from showing them before the submission is
//! exported.

pub mod class;
pub mod file;
pub mod markdown;
pub mod merge;
pub mod scrutiny;
pub mod submission;

pub use class::{ClassReport, class_report};
pub use file::{Exercise, ExerciseError, ExerciseSpec, Task, check_rate_task};
pub use submission::{Submission, SubmissionError};
