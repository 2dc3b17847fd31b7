//! The CoEval screen (seed 004): task setup, stage-1 criteria scrutiny, stage-2 instance
//! scrutiny driven by the keyboard, many annotators (export, import, merge with conflicts),
//! results, and the reproduction of seed 004's released files.
//!
//! The study, the scrutiny commands, the results and the released-file tables are
//! `concord_core::study::coeval`; the screen renders what it returns.
//!
//! # Nothing is lost
//!
//! An annotator's work is `concord_core::coeval::Log`, an append-only list of events (undo is
//! an event too). Every event is written to IndexedDB ([`crate::edge::store`], store
//! `annotations`, key `coeval/<task>/<annotator>/<seq>`) the moment it is made, in its own
//! transaction; on load the screen reads the logs back, replays them and resumes at the saved
//! cursor (or the latest decision). The study itself (task, criteria, instances, the LLM's
//! answers), the annotator's name and the cursor live in the `settings` store. The save
//! status (`data-testid="save-state"`) says when every write has committed.
//!
//! # Files
//!
//! * [`state`] — the screen's signals ([`state::Ctx`]), its storage keys, and the bundle's
//!   [`state::snapshot`] / [`state::apply_snapshot`].
//! * [`tasks`] — its async work: restoring from storage, importing files, computing the
//!   released-file view, the LLM runs.
//! * [`common`] — what the panels share: the context ([`common::use_ctx`]) and the report's
//!   tables and figures.
//! * [`setup`], [`criteria`], [`scrutiny`], [`exchange`], [`results`], [`released`] — one
//!   panel each, under the screen's own tabs; [`llm`] — the LLM run panel.

pub mod common;
pub mod criteria;
pub mod exchange;
pub mod llm;
pub mod released;
pub mod results;
pub mod scrutiny;
pub mod setup;
pub mod state;
pub mod tasks;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::screens::run::state::LlmAccess;
pub use common::use_ctx;
pub use state::{Ctx, Tab, apply_snapshot, snapshot};

#[component]
pub fn CoEvalPage() -> impl IntoView {
    let ctx = Ctx::new();
    provide_context(ctx);
    ctx.mount();
    let app_store = LlmAccess::try_from_context().and_then(|wb| wb.store.get_untracked());
    spawn_local(tasks::init(ctx, app_store));
    let exercise = crate::screens::class::state::use_class().exercise;
    view! {
        <section class="panel coeval-head" aria-labelledby="coeval-heading">
            <h2 id="coeval-heading">"CoEval: LLM evaluation with human scrutiny"</h2>
            <p class="muted">
                "CoEval's pipeline (Li et al., Collaborative Evaluation): the LLM proposes criteria and evaluates each instance; "
                "annotators approve, delete, revise or add. Every action is saved in this browser "
                "the moment it is made."
            </p>
            <div class="row">
                <span data-testid="coeval-study">
                    {move || match ctx.study.get() {
                        Some(s) => s.summary(),
                        None => "No task set up yet".to_owned(),
                    }}
                </span>
                <span data-testid="coeval-annotator">
                    {move || {
                        let a = ctx.annotator.get();
                        if a.is_empty() { "Annotator: (none)".to_owned() } else { format!("Annotator: {a}") }
                    }}
                </span>
                <span class="save-state" data-testid="save-state" role="status">
                    {move || {
                        if !ctx.ready.get() {
                            "Restoring saved work…".to_owned()
                        } else {
                            match ctx.pending.get() {
                                0 => "All actions saved".to_owned(),
                                n => format!("Saving {n}…"),
                            }
                        }
                    }}
                </span>
            </div>
            {move || exercise.get().filter(|e| e.coeval.is_some()).map(|ex| view! {
                <p class="notice-line" role="status" data-testid="coeval-exercise">
                    {format!("Exercise “{}”: scrutinise this study under your name; your decisions go into your submission (Class screen → Export submission).", ex.title)}
                    " "
                    <button type="button" class="secondary small" on:click=move |_| crate::state::use_workspace().screen.set(crate::state::Screen::Class)>"Back to the exercise"</button>
                </p>
            })}
            <Show when=move || ctx.storage_note.get().is_some()>
                <p class="error-box" role="alert">{move || ctx.storage_note.get().unwrap_or_default()}</p>
            </Show>
            <Show when=move || ctx.error.get().is_some()>
                <p class="error-box" role="alert" data-testid="coeval-error">{move || ctx.error.get().unwrap_or_default()}</p>
            </Show>
            <nav class="subtabs" role="tablist" aria-label="CoEval steps">
                {Tab::ALL
                    .into_iter()
                    .map(|tab| {
                        view! {
                            <button role="tab" type="button"
                                aria-selected=move || (ctx.tab.get() == tab).to_string()
                                on:click=move |_| ctx.tab.set(tab)>
                                {tab.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
        </section>
        {move || {
            if !ctx.ready.get() {
                return view! { <p class="muted">"Restoring saved work…"</p> }.into_any();
            }
            match ctx.tab.get() {
                Tab::Setup => view! { <setup::SetupPanel/> }.into_any(),
                Tab::Criteria => view! { <criteria::CriteriaPanel/> }.into_any(),
                Tab::Instances => view! { <scrutiny::ScrutinyPanel/> }.into_any(),
                Tab::Annotators => view! { <exchange::ExchangePanel/> }.into_any(),
                Tab::Results => view! { <results::ResultsPanel/> }.into_any(),
                Tab::Released => view! { <released::ReleasedPanel/> }.into_any(),
            }
        }}
    }
}
