//! The Results screen: Chiang & Lee's table (methods × attributes; statistic, level and
//! baseline switchable; bold where Williams' test beats the baseline), bootstrap intervals on
//! demand, scatter and histograms of a cell, cost against quality, parse failures, a per-item
//! drill-down, seed 002's Table 4 as printed beside the recomputed values (when Chiang & Lee's
//! released files are on the table), agreement with raters from "Rate it yourself", the judge audit ([`audit`]), whether a judge can replace the annotators and where it can be trusted ([`validity`]), human review
//! and correction of a judge run ([`review`]) and its revision tested on held-out items ([`revise`]),
//! importing released judge outputs, and the exports (CSV, Markdown, LaTeX, JSON, SVG/PNG, the bundle).
//!
//! Every table and figure comes from the core's
//! [`study::workbench::report`](concord_core::study::workbench::report), the same builders
//! `concord report` uses; this folder renders them ([`table`], [`cell`]), runs the background
//! work ([`tasks`]) and keeps the view's state ([`state`]).

pub mod audit;
pub mod cell;
pub mod import;
pub mod review;
pub mod revise;
pub mod state;
pub mod table;
pub mod tasks;
pub mod validity;

use std::sync::Arc;

use concord_core::study::workbench::report::{self, Pricing, agreement_tables, cost_table};
use concord_core::study::workbench::review::{Reviews, with_reviews};
use concord_core::study::workbench::{ResultsTable, Scored, combined, paper, tabulate};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::table_view::TableView;
use crate::edge::time;
use crate::screens::rate::state::use_rate;
use crate::screens::run::state::{RunState, use_run};
use crate::state::{JudgeRuns, use_runs, use_workspace};

use audit::AuditPanel;
use cell::CellPanel;
use import::ImportPanel;
use review::ReviewPanel;
use state::use_results;
use table::TablePanel;
use validity::ValidityPanel;

#[component]
pub fn ResultsScreen() -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let results = use_results();
    let review = state::use_review();
    // Reading every sample (the expensive half) happens off the reactive path: in the
    // background, one run at a time, yielding to the browser, and only for runs not read
    // before. A new baseline, statistic or level re-tabulates the read scores.
    let scored = RwSignal::new(None::<(Arc<Scored>, f64)>);
    let pending = runs.runs.with_untracked(|r| !r.is_empty());
    let reading = RwSignal::new(pending.then(|| "Reading the judge runs…".to_owned()));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        ws.dataset.track();
        runs.runs.track();
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        // `current` is false once the runs changed or the screen was left (its signals are
        // then disposed, and every write below is guarded by it).
        let current = move || generation.try_get_value() == Some(this);
        spawn_local(tasks::read_scores(ws, runs, current, scored, reading));
    });
    // The judges alone (the audit and the review read these), and the table shown: the same
    // with a `<method> + review` row per reviewed run. Each recomputes only when its inputs
    // change — the judges never with the review, the table with the review's decisions, not
    // with its timer events — and notifies only when the table itself changed (the time it
    // took is carried beside it, not compared), so a review timer tick cannot reset the audit.
    let combined_scores = Memo::new(move |_| {
        let settings = results.settings.get();
        scored.with(|s| s.as_ref().map(|(scored, _)| Arc::new(combined(scored, &settings))))
    });
    let decisions = Memo::new(move |_| match review.merged() {
        Ok(merged) => Some(merged.reviews.verdicts),
        Err(_) => None,
    });
    let same_table = |a: Option<&(ResultsTable, f64)>, b: Option<&(ResultsTable, f64)>| {
        a.map(|(t, _)| t) != b.map(|(t, _)| t)
    };
    let tabulated = move |scored: Option<&Scored>| {
        let started = time::monotonic_ms();
        let baseline = results.settings.with(|s| s.baseline.clone());
        let t = ws.dataset.with(|open| {
            let dataset = &open.loaded.dataset;
            match scored {
                Some(s) => tabulate(dataset, s, baseline.as_deref()),
                None => tabulate(dataset, &Scored::default(), None),
            }
        });
        (t, time::monotonic_ms() - started)
    };
    let judges = Memo::new_with_compare(
        move |_| combined_scores.with(|c| tabulated(c.as_deref())),
        same_table,
    );
    let table = Memo::new_with_compare(
        move |_| {
            let Some(judges) = combined_scores.get() else { return tabulated(None) };
            let reviewed = decisions.with(|d| match d {
                Some(verdicts) if !verdicts.is_empty() => {
                    let reviews = Reviews { verdicts: verdicts.clone(), ..Reviews::default() };
                    ws.dataset.with(|open| with_reviews(&open.loaded.dataset, &judges, &reviews))
                }
                _ => (*judges).clone(),
            });
            tabulated(Some(&reviewed))
        },
        same_table,
    );
    // Intervals belong to one table and one view: computed again (when shown) whenever either
    // changes, a cell at a time in the background.
    let interval_generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        let (t, _) = table.get();
        let show = results.settings.with(|s| s.intervals);
        results.settings.track();
        interval_generation.update_value(|g| *g += 1);
        results.intervals.set(None);
        if !show || t.methods.is_empty() {
            results.computing.set(false);
            return;
        }
        let this = interval_generation.get_value();
        let current = move || interval_generation.try_get_value() == Some(this);
        results.computing.set(true);
        spawn_local(tasks::compute_intervals(ws, results, t, current));
    });
    let read_ms = Signal::derive(move || scored.with(|s| s.as_ref().map_or(0.0, |(_, ms)| *ms)));
    view! {
        <ImportPanel/>
        {move || results.bundle_error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="bundle-error">{e}</p> })}
        {move || {
            let source = results.bundle_source.get()?;
            // While a bundle is loading its runs are not on the table yet.
            if source.ends_with("(loading…)") {
                return Some(view! { <p class="notice-line" data-testid="bundle-source">{format!("Opening the bundle {source}")}</p> });
            }
            let line = results.bundle_runs.with(|b| runs.runs.with(|r| state::source_line(&source, b, r)))?;
            Some(view! { <p class="notice-line" data-testid="bundle-source">{line}</p> })
        }}
        {move || reading.get().map(|text| view! { <p class="notice-line" role="status" data-testid="results-reading">{text}</p> })}
        // How the runs were made: parameters a provider refused, weighted methods that fell back
        // to their plain twins, methods the model's check says it cannot serve.
        {move || runs.notes.with(|n| n.iter().map(|note| view! { <p class="notice-line" data-testid="run-note">{note.clone()}</p> }).collect_view())}
        <Show
            when=move || !table.with(|(t, _)| t.methods.is_empty())
            fallback=move || reading.with(Option::is_none).then(|| view! {
                <section class="panel"><p class="muted" data-testid="results-empty">
                    "No results yet. Run methods from the Run screen, import released judge outputs or a bundle above, or reproduce a published table from the Data screen."
                </p></section>
            })
        >
            <TablePanel table=table read_ms=read_ms/>
            <PaperPanel table=table/>
            <CellPanel table=table/>
            <CostPanel table=table/>
            <AuditPanel table=judges/>
            <ReviewPanel table=judges/>
            <ValidityPanel/>
        </Show>
        <AgreementPanel table=table/>
    }
}

/// How the runs are priced: with the model they were made with (a run here, or an opened
/// bundle's), else the Run screen's.
fn pricing(runs: JudgeRuns, run: RunState) -> Pricing {
    let made_with = runs.ran_with.with_value(|r| r.as_ref().and_then(|(_, e)| e.clone()));
    match made_with {
        // A price typed on the Run screen for the runs' model (or carried by their bundle)
        // before the shipped list, as `concord report` prices the bundle.
        Some(e) => {
            let typed = run.connection.with(|f| {
                f.prices.get(&crate::screens::run::state::price_key(e.provider, &e.model)).copied()
            });
            report::pricing_typed(Some(&e), true, typed)
        }
        None => {
            let (endpoint, typed) = run.connection.with(|f| (f.endpoint(), f.entered_price()));
            report::pricing_typed(Some(&endpoint), false, typed)
        }
    }
}

#[component]
fn CostPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let runs = use_runs();
    let results = use_results();
    let run = use_run();
    let shown = Memo::new(move |_| {
        let (t, _) = table.get();
        run.connection.track();
        let settings = results.settings.get();
        let pricing = pricing(runs, run);
        Arc::new(runs.runs.with(|r| cost_table(&t, r, &settings, &pricing)))
    });
    view! {
        <section class="panel" aria-labelledby="cost-heading">
            <h2 id="cost-heading">"Cost and quality"</h2>
            {move || view! { <TableView table=shown.get() testid="cost-table" caption=false/> }}
        </section>
    }
}

/// Seed 002's Table 4 beside the values recomputed here, while Chiang & Lee's released files
/// are on the table.
#[component]
fn PaperPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let runs = use_runs();
    let shown = Memo::new(move |_| {
        let (t, _) = table.get();
        runs.runs.with(|r| paper::reproduction(&t, r)).map(Arc::new)
    });
    move || {
        shown.get().map(|t| {
            view! {
                <section class="panel" aria-labelledby="paper-heading">
                    <h2 id="paper-heading">"The published table"</h2>
                    <TableView table=t testid="paper-table"/>
                </section>
            }
        })
    }
}

#[component]
fn AgreementPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let ws = use_workspace();
    let rate = use_rate();
    view! {
        <Show when=move || !rate.raters.with(Vec::is_empty)>
            <section class="panel" aria-labelledby="agreement-heading">
                <h2 id="agreement-heading">"Agreement with your ratings"</h2>
                {move || {
                    let open = ws.dataset.get();
                    let (t, _) = table.get();
                    let tables = rate.raters.with(|r| agreement_tables(&open.loaded.dataset, &t, r));
                    tables.into_iter().map(|a| view! {
                        <TableView table=Arc::new(a) testid="agreement-table"/>
                    }).collect_view()
                }}
            </section>
        </Show>
    }
}
