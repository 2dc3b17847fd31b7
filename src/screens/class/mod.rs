//! The Class screen (classrooms, issue 26): a student opens an exercise (a file, or
//! `?exercise=URL`), reads its instructions, rates its items on the Rate screen and exports a
//! submission ([`student`]); a teacher makes an exercise from the open workspace ([`make`])
//! and opens many submissions at once in the class view ([`class_view`]). The files, the
//! merge and every number are the core's ([`concord_core::study::exercise`]); this screen
//! renders them.

pub mod class_view;
pub mod instructions;
pub mod make;
pub mod session;
pub mod state;
pub mod student;

use leptos::prelude::*;

/// The Class screen. With an exercise open, the student sees their exercise: the teacher's
/// panels (making an exercise, the class view) fold away under "Teacher's tools".
#[component]
pub fn ClassScreen() -> impl IntoView {
    let class = state::use_class();
    let teaching = move || class.exercise.with(Option::is_none);
    view! {
        <student::StudentPanel/>
        <details class="teacher-tools" data-testid="teacher-tools" prop:open=teaching>
            <summary>{move || if teaching() {
                "Teacher's tools: make an exercise, open the class view"
            } else {
                "Teacher's tools (you have an exercise open as a student): make an exercise, open the class view"
            }}</summary>
            <make::MakePanel/>
            <class_view::ClassViewPanel/>
        </details>
    }
}
