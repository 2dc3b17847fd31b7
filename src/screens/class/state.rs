//! The Class screen's state: the student's open exercise and their session, and the teacher's
//! class view. The Rate screen reads the open exercise too. Its signals are made the first time
//! either screen asks ([`use_class`]) and kept for the page's life, so their code lives in those
//! screens' chunks; the main module only hands over a `?exercise=` address
//! ([`PendingExercise`]).

use std::sync::Arc;

use concord_core::study::exercise::{Exercise, Submission};
use leptos::prelude::*;

/// An exercise address from `?exercise=`, provided as context by `app::App` at start-up and
/// fetched when the Class screen opens.
#[derive(Clone, Copy)]
pub struct PendingExercise(pub RwSignal<Option<String>>);

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
    /// Whether this browser's saved session was looked for (once per page).
    pub restored: RwSignal<bool>,
    /// The class view: the exercise (file name, exercise) and the submissions dropped.
    pub class_exercise: RwSignal<Option<(String, Arc<Exercise>)>>,
    pub submissions: RwSignal<Vec<(String, Submission)>>,
}

/// The signals behind every [`ClassState`]: reference-counted, so they outlive the screen that
/// first asked for them.
struct Shared {
    exercise: ArcRwSignal<Option<Arc<Exercise>>>,
    student: ArcRwSignal<String>,
    time_ms: ArcRwSignal<Vec<(String, u64)>>,
    exported: ArcRwSignal<bool>,
    restored: ArcRwSignal<bool>,
    class_exercise: ArcRwSignal<Option<(String, Arc<Exercise>)>>,
    submissions: ArcRwSignal<Vec<(String, Submission)>>,
}

thread_local! {
    static SHARED: Shared = Shared {
        exercise: ArcRwSignal::new(None),
        student: ArcRwSignal::new(String::new()),
        time_ms: ArcRwSignal::new(Vec::new()),
        exported: ArcRwSignal::new(false),
        restored: ArcRwSignal::new(false),
        class_exercise: ArcRwSignal::new(None),
        submissions: ArcRwSignal::new(Vec::new()),
    };
}

/// The Class screen's state (the same signals on every call, for the page's life).
pub fn use_class() -> ClassState {
    SHARED.with(|s| ClassState {
        exercise: s.exercise.clone().into(),
        student: s.student.clone().into(),
        time_ms: s.time_ms.clone().into(),
        exported: s.exported.clone().into(),
        restored: s.restored.clone().into(),
        class_exercise: s.class_exercise.clone().into(),
        submissions: s.submissions.clone().into(),
    })
}
