//! The student's side: open an exercise (a file, or the `?exercise=` address start-up handed
//! over), read its instructions and tasks, rate on the Rate screen and (a correct-judge task)
//! correct the judge on the Results screen's Review panel, (a run-judges task) run the given
//! judges on the Run screen with a provider, model and key of their own, export the submission
//! — and only then, when the teacher hid it, see the reference.

use std::sync::Arc;

use concord_core::run::Endpoint;
use concord_core::study::exercise::class::{
    CORRECTIONS_TABLE, RESAMPLING, RUNS_TABLE, STUDENTS_TABLE, class_report,
};
use concord_core::study::exercise::{Exercise, Submission, SubmissionError};
use concord_core::study::workbench::JudgedRun;
use concord_core::study::workbench::review::{self, Reviews};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::download::save_text;
use crate::components::drop_zone::DropZone;
use crate::components::table_view::TableView;
use crate::persist::bundle::BundleTargets;
use crate::screens::rate::state::{RateState, use_rate};
use crate::screens::results::review::switch_reviewer;
use crate::screens::results::state::{ReviewState, use_review};
use crate::state::{JudgeRuns, Screen, use_storage};

use super::session::{self, OpenFailure};
use super::state::{ClassState, PendingExercise, use_class};

/// The student's review of the exercise's judge run: this browser's review log, when it is
/// the exercise's workspace's and kept under the student's name (else nothing).
fn student_reviews(review: ReviewState, exercise: &Exercise, student: &str) -> Reviews {
    if exercise.correct_judge().is_none() || review.reviewer.get() != student {
        return Reviews::default();
    }
    let scope = review::dataset_scope(&exercise.dataset.embedded);
    if review.scope.get().as_deref() != Some(scope.as_str()) {
        return Reviews::default();
    }
    review.log.with(|log| log.replay())
}

/// The judge runs this student made in this workspace and the endpoint they were made with:
/// none until a run on the Run screen (the runs a workspace opens with — a correct-judge
/// task's — were not made here, and carry no endpoint).
fn student_runs(runs: JudgeRuns) -> (Vec<JudgedRun>, Option<Endpoint>) {
    runs.runs.track();
    let endpoint = runs.ran_with.with_value(|w| w.as_ref().and_then(|(_, e)| e.clone()));
    if endpoint.is_none() {
        return (Vec::new(), None);
    }
    let made = runs.runs.with(|r| {
        r.iter()
            .filter(|r| concord_core::study::workbench::results::made_here(r))
            .cloned()
            .collect()
    });
    (made, endpoint)
}

/// The submission of the open exercise from the ratings, review and judge runs made so far.
fn submission(
    class: ClassState,
    rate: RateState,
    review: ReviewState,
    runs: JudgeRuns,
    exercise: &Exercise,
    student: &str,
) -> Result<Submission, SubmissionError> {
    let created = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
    let reviews = untrack(|| student_reviews(review, exercise, student));
    let (made, endpoint) = untrack(|| student_runs(runs));
    rate.raters
        .with_untracked(|raters| {
            class.time_ms.with_untracked(|t| {
                Submission::answer(exercise, student, created, raters, t, &reviews)
            })
        })?
        .with_runs(exercise, &made, endpoint.as_ref())
}

#[component]
pub fn StudentPanel() -> impl IntoView {
    let class = use_class();
    let rate = use_rate();
    let review = use_review();
    let storage = use_storage();
    let t = BundleTargets::from_context();
    let runs = t.runs;
    let pending = expect_context::<PendingExercise>();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(None::<String>);
    spawn_local(session::restore(t));
    // A `?exercise=` address from start-up.
    Effect::new(move |_| {
        if let Some(url) = pending.0.get() {
            pending.0.set(None);
            busy.set(Some(format!("Fetching the exercise {url}…")));
            spawn_local(async move {
                let outcome = session::open_url(t, &url).await;
                busy.try_set(None);
                error.try_set(outcome.err().map(|e| e.to_string()));
            });
        }
    });
    let on_files = Callback::new(move |files: Vec<web_sys::File>| {
        let Some(file) = files.into_iter().next() else { return };
        busy.set(Some(format!("Opening {}…", file.name())));
        spawn_local(async move {
            let outcome = match crate::edge::files::read_file(&file).await {
                Err(why) => Err(OpenFailure::Read(why)),
                Ok(bytes) => match String::from_utf8(bytes) {
                    Err(_) => Err(OpenFailure::NotText { name: file.name() }),
                    Ok(text) => session::open_text(t, &text, &file.name()).await,
                },
            };
            busy.try_set(None);
            error.try_set(outcome.err().map(|e| e.to_string()));
        });
    });
    let export = move |_| {
        let Some(ex) = class.exercise.get_untracked() else { return };
        let student = class.student.get_untracked();
        spawn_local(async move {
            // The CoEval decisions are read from this browser's store (the CoEval screen keeps
            // them there, action by action).
            let scrutiny = session::scrutiny(t, &ex, &student).await;
            // Asked for after the wait, not carried over it: this panel may be gone by now
            // (the class signals outlive it; its handles do not).
            let class = use_class();
            let made = match scrutiny {
                Err(why) => Err(why.to_string()),
                Ok(log) => submission(class, rate, review, runs, &ex, &student)
                    .and_then(|s| match &log {
                        Some(log) => s.with_coeval(&ex, log),
                        None => Ok(s),
                    })
                    .map_err(|e| e.to_string()),
            };
            match made {
                Err(e) => {
                    error.try_set(Some(e));
                }
                Ok(s) => match save_text(&s.file_name(), "application/json", &s.to_json()) {
                    Err(e) => {
                        error.try_set(Some(e.to_string()));
                    }
                    Ok(()) => {
                        error.try_set(None);
                        class.exported.set(true);
                        session::save(t).await;
                    }
                },
            }
        });
    };
    let progress = move || {
        let ex = class.exercise.get()?;
        if !ex.rates() && ex.correct_judge().is_none() && ex.run_judges().is_empty() {
            return None;
        }
        let student = class.student.get();
        let mut done = rate.raters.with(|raters| {
            ex.attributes()
                .iter()
                .map(|a| {
                    let n = raters
                        .iter()
                        .find(|r| r.name == student && r.attribute == *a)
                        .map_or(0, |r| r.scores.len());
                    format!("{a}: {n} of {}", ex.dataset.items)
                })
                .collect::<Vec<_>>()
        });
        if let Some(key) = ex.correct_judge_key() {
            let decided = student_reviews(review, &ex, &student)
                .verdicts
                .keys()
                .filter(|(run, item)| {
                    *run == key && ex.dataset.embedded.items.iter().any(|i| i.id == *item)
                })
                .count();
            done.push(format!("the judge's ratings reviewed: {decided} of {}", ex.dataset.items));
        }
        let given = ex.run_judges();
        if !given.is_empty() {
            let (made, _) = student_runs(runs);
            let ran = given
                .iter()
                .filter(|(m, a)| {
                    made.iter()
                        .any(|r| r.method == *m && r.attribute == *a && !r.run.records.is_empty())
                })
                .count();
            done.push(format!("the given judges run: {ran} of {}", given.len()));
        }
        Some(format!("Done so far — {}.", done.join("; ")))
    };
    // After the export (or when the teacher did not hide it): the student against the
    // reference, the core's table.
    let feedback = move || {
        // Neither rating nor correcting a judge: no reference to compare with.
        let ex = class
            .exercise
            .get()
            .filter(|e| e.rates() || e.correct_judge().is_some() || !e.run_judges().is_empty())?;
        let shown = !ex.reference.hidden || class.exported.get();
        rate.raters.track();
        if !shown {
            return Some(view! {
                <p class="muted" data-testid="reference-hidden">"The reference ratings are hidden until you export your submission."</p>
            }.into_any());
        }
        runs.runs.track();
        let s = submission(class, rate, review, runs, &ex, &class.student.get()).ok()?;
        let report = class_report(&ex, &[(s.file_name(), s)], RESAMPLING).report;
        let ratings = report.table(STUDENTS_TABLE).cloned().map(|table| {
            view! {
                <h3>"Your ratings against the reference"</h3>
                <TableView table=Arc::new(table) testid="exercise-feedback-table" caption=false/>
            }
        });
        let corrections = report.table(CORRECTIONS_TABLE).cloned().map(|table| view! {
            <h3>"The judge, and the judge with your corrections, against the reference"</h3>
            <TableView table=Arc::new(table) testid="exercise-feedback-corrections" caption=false/>
        });
        let judges = report.table(RUNS_TABLE).cloned().map(|table| {
            view! {
                <h3>"Your runs of the given judges against the reference"</h3>
                <TableView table=Arc::new(table) testid="exercise-feedback-runs" caption=false/>
            }
        });
        Some(
            view! {
                <div data-testid="exercise-feedback">{ratings}{corrections}{judges}</div>
            }
            .into_any(),
        )
    };
    view! {
        <section class="panel" aria-labelledby="student-heading" data-testid="student-panel">
            <h2 id="student-heading">"Do an exercise"</h2>
            {move || busy.get().map(|b| view! { <p class="muted" role="status" data-testid="exercise-busy">{b}</p> })}
            {move || error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="exercise-error">{e}</p> })}
            <Show when=move || class.exercise.with(Option::is_none)>
                <p class="muted">"Open the exercise file your teacher gave you, or follow their link (an address ending in ?exercise=…). It opens as a new workspace; once open it works offline."</p>
                <DropZone id="exercise-file" label="Open an exercise" accept=".json,application/json" on_files=on_files/>
            </Show>
            {move || class.exercise.get().map(|ex| {
                let unsupported = ex.unsupported();
                let sample = ex.sample.map(|s| format!(" (a sample of {} of {} items, seed {})", s.size, s.of, s.seed)).unwrap_or_default();
                view! {
                    <div class="exercise" data-testid="exercise-open">
                        <h3 data-testid="exercise-title">{ex.title.clone()}</h3>
                        <ul data-testid="exercise-tasks">
                            {ex.tasks.iter().map(|task| view! { <li>{task.describe()}</li> }).collect_view()}
                        </ul>
                        {(!unsupported.is_empty()).then(|| view! {
                            <p class="notice-line" role="status">{format!("This Concord cannot do these tasks yet: {}. Do the others.", unsupported.join("; "))}</p>
                        })}
                        <div class="instructions" data-testid="exercise-instructions">{super::instructions::instructions_view(&ex.instructions)}</div>
                        {(!ex.attributes().is_empty() || ex.correct_judge().is_some()).then(|| view! {
                            <p class="muted">{if ex.attributes().is_empty() {
                                format!("{} items{sample}.", ex.dataset.items)
                            } else {
                                format!("{} items{sample}; attributes: {}.", ex.dataset.items, ex.attributes().join(", "))
                            }}</p>
                        })}
                        {(!ex.run_judges().is_empty()).then(|| {
                            let given = ex.run_judges().iter().map(|(m, a)| review::run_key_of(m, a)).collect::<Vec<_>>().join(", ");
                            view! {
                                <p class="muted" data-testid="exercise-run-judges">
                                    {format!("Run the given judges ({given}) on these items: the Judge screen holds their prompts. On the Run screen pick a provider and a model and give your own API key — it stays in this browser and never goes into your submission — then run. Your submission carries each run's scores and the model, for the class to compare.")}
                                    " "
                                    <button type="button" class="secondary small" data-testid="open-run" on:click=move |_| t.ws.screen.set(Screen::Run)>"Open the Run screen"</button>
                                </p>
                            }
                        })}
                        {ex.coeval.as_ref().map(|s| view! {
                            <p class="muted" data-testid="exercise-coeval">
                                {format!("The CoEval study of the task “{}”: {} criteria, {} instances. Scrutinise it on the CoEval screen under your name; your decisions go into your submission.", s.task, s.criteria.len(), s.instances.len())}
                                " "
                                <button type="button" class="secondary small" on:click=move |_| t.ws.screen.set(Screen::CoEval)>"Open the CoEval screen"</button>
                            </p>
                        })}
                    </div>
                }
            })}
            <Show when=move || class.exercise.with(Option::is_some)>
                <div class="row">
                    <label for="student-name">"Your name"</label>
                    <input id="student-name" type="text" prop:value=move || class.student.get()
                        on:input=move |ev| class.student.set(event_target_value(&ev).trim().to_owned())
                        on:change=move |_| {
                            // A correct-judge exercise reviews under the student's name.
                            if class.exercise.with_untracked(|e| e.as_ref().is_some_and(|e| e.correct_judge().is_some())) {
                                switch_reviewer(review, storage.store.get_untracked(), class.student.get_untracked());
                            }
                            spawn_local(session::save(t));
                        }/>
                    <Show when=move || class.exercise.with(|e| e.as_ref().is_some_and(|e| !e.attributes().is_empty()))>
                        <button type="button" class="primary" on:click=move |_| t.ws.screen.set(Screen::Rate)
                            disabled=move || class.student.with(String::is_empty)>"Rate the items"</button>
                    </Show>
                    <Show when=move || class.exercise.with(|e| e.as_ref().is_some_and(|e| e.correct_judge().is_some()))>
                        <button type="button" class="primary" data-testid="correct-judge"
                            disabled=move || class.student.with(String::is_empty)
                            on:click=move |_| {
                                let Some(key) = class.exercise.with_untracked(|e| e.as_ref().and_then(|e| e.correct_judge_key())) else { return };
                                switch_reviewer(review, storage.store.get_untracked(), class.student.get_untracked());
                                review.run.set(Some(key));
                                review.cursor.set(0);
                                crate::screens::results::review::focus_walk_on_open();
                                t.ws.screen.set(Screen::Results);
                            }>"Correct the judge"</button>
                    </Show>
                    <button type="button" class="secondary" data-testid="export-submission" on:click=export>"Export submission"</button>
                    <button type="button" class="secondary" on:click=move |_| spawn_local(session::close(t))>"Close the exercise"</button>
                </div>
                <p class="muted" data-testid="exercise-progress">{progress}</p>
                {move || class.exported.get().then(|| view! {
                    <p class="muted" role="status" data-testid="submission-exported">"Submission exported: hand the file to your teacher."</p>
                })}
                {feedback}
            </Show>
        </section>
    }
}
