//! The teacher's class view: the exercise file and many submissions dropped at once (or the
//! exercise just made), merged and measured by the core ([`class_report`]) and rendered as
//! its tables and figures, each with the export buttons `concord class` matches byte for byte.
//! The report is built a measurement at a time between yields ([`ClassBuilder`]): a class of
//! thirty never holds the page for long.

use std::sync::Arc;

use concord_core::study::exercise::class::{ClassBuilder, ClassReport, RESAMPLING};
use concord_core::study::exercise::{Exercise, ExerciseError, Submission, SubmissionError};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::drop_zone::DropZone;
use crate::components::figure_view::FigureView;
use crate::components::table_view::TableView;
use crate::edge::time::FrameBudget;

use super::state::use_class;

/// What one dropped file turned out to be.
enum Dropped {
    Exercise(Arc<Exercise>),
    Submission(Box<Submission>),
}

/// Why a dropped file was left out.
#[derive(Debug, Clone, thiserror::Error)]
enum DropProblem {
    #[error("{file}: {error}")]
    Exercise { file: String, error: ExerciseError },
    #[error("{file}: {error}")]
    Submission { file: String, error: SubmissionError },
    #[error("{file}: not a text file; drop the .json exercise and submissions")]
    NotText { file: String },
    #[error("{0}")]
    Read(String),
}

/// Reads a dropped file as an exercise or, failing that, a submission; the error names the
/// file and says what it is not.
fn read_dropped(file: &str, text: &str) -> Result<Dropped, DropProblem> {
    match Exercise::from_json(text) {
        Ok(ex) => Ok(Dropped::Exercise(Arc::new(ex))),
        Err(ExerciseError::NotAnExercise { .. }) => Submission::from_json(text)
            .map(|s| Dropped::Submission(Box::new(s)))
            .map_err(|error| DropProblem::Submission { file: file.to_owned(), error }),
        Err(error) => Err(DropProblem::Exercise { file: file.to_owned(), error }),
    }
}

#[component]
pub fn ClassViewPanel() -> impl IntoView {
    let class = use_class();
    let problems = RwSignal::new(Vec::<String>::new());
    let report = RwSignal::new(None::<Arc<ClassReport>>);
    let computing = RwSignal::new(false);
    let generation = StoredValue::new(0_u64);
    // Recomputed after any change, in a task of its own (the page shows "Computing…" first).
    Effect::new(move |_| {
        let exercise = class.class_exercise.get();
        let files = class.submissions.get();
        // Whatever is being computed is out of date now.
        let this = generation.get_value() + 1;
        generation.set_value(this);
        let Some((_, exercise)) = exercise else {
            report.set(None);
            computing.set(false);
            return;
        };
        if files.is_empty() {
            report.set(None);
            computing.set(false);
            return;
        }
        computing.set(true);
        // A measurement at a time between yields (each bootstraps one agreement); a later
        // change makes this one stop.
        spawn_local(async move {
            let mut builder = ClassBuilder::new(&exercise, &files, RESAMPLING);
            let mut budget = FrameBudget::new();
            budget.yield_now().await;
            while !builder.step() {
                if generation.try_get_value() != Some(this) {
                    return;
                }
                budget.tick().await;
            }
            if generation.try_get_value() == Some(this) {
                report.try_set(Some(Arc::new(builder.finish())));
                computing.try_set(false);
            }
        });
    });
    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        spawn_local(async move {
            let mut said = Vec::new();
            let mut added = Vec::new();
            for file in files {
                let name = file.name();
                let text = match crate::edge::files::read_file(&file).await {
                    Err(why) => {
                        said.push(DropProblem::Read(why).to_string());
                        continue;
                    }
                    Ok(bytes) => match String::from_utf8(bytes) {
                        Ok(t) => t,
                        Err(_) => {
                            said.push(DropProblem::NotText { file: name }.to_string());
                            continue;
                        }
                    },
                };
                match read_dropped(&name, &text) {
                    Ok(Dropped::Exercise(ex)) => {
                        class.class_exercise.try_set(Some((name, ex)));
                    }
                    Ok(Dropped::Submission(s)) => added.push((name, *s)),
                    Err(e) => said.push(e.to_string()),
                }
            }
            if !added.is_empty() {
                class.submissions.try_update(|s| s.extend(added));
            }
            problems.try_set(said);
        });
    });
    view! {
        <section class="panel" aria-labelledby="class-heading" data-testid="class-panel">
            <h2 id="class-heading">"Class view"</h2>
            <p class="muted">"Drop the students' submission files — many at once — and the exercise file (or make the exercise above). A later file of the same student with other ratings replaces the earlier one, and the items they differ on are listed; a file twice, or one for another exercise, is named and left out."</p>
            <DropZone id="class-files" label="Exercise and submissions" accept=".json,application/json" multiple=true on_files=on_files>
                <button type="button" class="secondary" on:click=move |_| { class.submissions.set(Vec::new()); problems.set(Vec::new()); }>"Clear submissions"</button>
            </DropZone>
            <p class="muted" data-testid="class-exercise">{move || match class.class_exercise.get() {
                Some((file, ex)) => format!("Exercise “{}” ({file}); {}.", ex.title, concord_core::words::count(class.submissions.with(Vec::len), "submission file", "submission files")),
                None => "No exercise yet: drop its file with the submissions.".to_owned(),
            }}</p>
            {move || (!problems.with(Vec::is_empty)).then(|| view! {
                <ul class="error-box" role="alert" data-testid="class-file-errors">
                    {problems.get().into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
                </ul>
            })}
            {move || computing.get().then(|| view! { <p class="muted" role="status">"Computing the class view…"</p> })}
            {move || report.get().map(|r| {
                let tables = r.report.tables.iter().map(|t| {
                    let id = t.id.clone();
                    view! { <TableView table=Arc::new(t.clone()) testid=id/> }
                }).collect_view();
                let figures = r.report.figures.iter().map(|f| {
                    let id = f.id.clone();
                    // "The students' ratings of x" → "Export the students' ratings of x SVG".
                    let title = f.title();
                    let label = title.get(..1).map_or_else(String::new, str::to_lowercase) + title.get(1..).unwrap_or_default();
                    view! { <FigureView figure=f.clone() label=label testid=id/> }
                }).collect_view();
                view! { <div data-testid="class-report">{tables}{figures}</div> }
            })}
        </section>
    }
}
