//! The Class screen's state, provided as context by `app::App` (the Rate screen reads the
//! open exercise, and start-up hands over a `?exercise=` address): the student's open exercise
//! and their session, and the teacher's class view.

use std::sync::Arc;

use concord_core::study::exercise::{Exercise, Submission};
use leptos::prelude::*;

/// The Class screen's signals.
#[derive(Clone, Copy)]
pub struct ClassState {
    /// The exercise a student has open (its items are the open workspace's dataset).
    pub exercise: RwSignal<Option<Arc<Exercise>>>,
    /// The student's name, as typed on the Class or Rate screen.
    pub student: RwSignal<String>,
    /// Milliseconds on each exercise item, as measured on the Rate screen.
    pub time_ms: RwSignal<Vec<(String, u64)>>,
    /// The submission was exported (the hidden reference may now be shown).
    pub exported: RwSignal<bool>,
    /// An exercise address from `?exercise=`, fetched when the Class screen opens.
    pub pending_url: RwSignal<Option<String>>,
    /// Whether this browser's saved session was looked for (once per page).
    pub restored: RwSignal<bool>,
    /// The class view: the exercise (file name, exercise) and the submissions dropped.
    pub class_exercise: RwSignal<Option<(String, Arc<Exercise>)>>,
    pub submissions: RwSignal<Vec<(String, Submission)>>,
}

impl ClassState {
    pub fn new() -> ClassState {
        ClassState {
            exercise: RwSignal::new(None),
            student: RwSignal::new(String::new()),
            time_ms: RwSignal::new(Vec::new()),
            exported: RwSignal::new(false),
            pending_url: RwSignal::new(None),
            restored: RwSignal::new(false),
            class_exercise: RwSignal::new(None),
            submissions: RwSignal::new(Vec::new()),
        }
    }
}

impl Default for ClassState {
    fn default() -> Self {
        ClassState::new()
    }
}

/// The Class screen's state from context.
pub fn use_class() -> ClassState {
    expect_context::<ClassState>()
}
