//! The Results screen's "Judge audit" panel: judge against judge, juries and the
//! prediction-powered corrected means of the runs on the table, from the core's
//! [`Audit`](concord_core::study::workbench::audit::Audit) — computed on request in the
//! background, a step at a time, and exported byte for byte as `concord audit` prints them.

use std::sync::Arc;

use concord_core::report::Report;
use concord_core::study::workbench::ResultsTable;
use concord_core::study::workbench::audit::Audit;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::table_view::TableView;
use crate::edge::time::FrameBudget;
use crate::state::use_workspace;

use super::state::use_results;

/// The panel: what the audit needs, the labelled-items control, the button and the tables.
#[component]
pub fn AuditPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let ws = use_workspace();
    let results = use_results();
    let report = RwSignal::new(None::<Arc<Report>>);
    let progress = RwSignal::new(None::<(usize, usize)>);
    let generation = StoredValue::new(0u64);
    // What the audit depends on besides the table: a change makes a shown audit stale.
    let inputs = Memo::new(move |_| {
        results.settings.with(|s| {
            (
                s.resamples,
                s.seed,
                s.confidence.to_bits(),
                s.audit_labelled,
                s.audit_own_systems.clone(),
            )
        })
    });
    Effect::new(move |_| {
        table.track();
        // Read, not only tracked: a memo that is never read is never computed, so it would not
        // follow the settings.
        let _ = inputs.get();
        generation.update_value(|g| *g += 1);
        report.set(None);
        progress.set(None);
    });
    let compute = move |_| {
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        let current = move || generation.try_get_value() == Some(this);
        let dataset = ws.dataset.get_untracked();
        let settings = results.settings.get_untracked();
        let (t, _) = table.get_untracked();
        let mut audit = Audit::new(&dataset.loaded.dataset, &t, &settings);
        progress.set(Some(audit.progress()));
        spawn_local(async move {
            let mut budget = FrameBudget::new();
            loop {
                let done = audit.step();
                if done || budget.spent() {
                    progress.try_set(Some(audit.progress()));
                    budget.yield_now().await;
                }
                if !current() {
                    return;
                }
                if done {
                    break;
                }
            }
            report.try_set(Some(Arc::new(audit.report())));
            progress.try_set(None);
        });
    };
    let labelled_text = move || {
        results.settings.with(|s| s.audit_labelled.map(|n| n.to_string()).unwrap_or_default())
    };
    let set_labelled = move |ev| {
        let text = event_target_value(&ev);
        let value = text.trim().parse::<usize>().ok().filter(|&n| n > 0);
        results.settings.update(|s| s.audit_labelled = value);
    };
    // The dataset's systems, in order of first appearance, for the self-preference probe.
    let systems = Memo::new(move |_| {
        ws.dataset.with(|open| {
            let mut out: Vec<String> = Vec::new();
            for item in &open.loaded.dataset.items {
                if !out.contains(&item.system_id) {
                    out.push(item.system_id.clone());
                }
            }
            out
        })
    });
    let own_systems = move || {
        systems.get().into_iter().map(|system| {
            let name = system.clone();
            let checked = move || results.settings.with(|s| s.audit_own_systems.contains(&name));
            let toggle = {
                let system = system.clone();
                move |ev| {
                    let on = event_target_checked(&ev);
                    results.settings.update(|s| {
                        s.audit_own_systems.retain(|x| *x != system);
                        if on {
                            s.audit_own_systems.push(system.clone());
                        }
                    });
                }
            };
            view! {
                <label class="check"><input type="checkbox" prop:checked=checked on:change=toggle/>{system}</label>
            }
        }).collect_view()
    };
    view! {
        <section class="panel" aria-labelledby="audit-heading" data-testid="audit-panel">
            <h2 id="audit-heading">"Judge audit"</h2>
            <p class="muted">
                "How far the judges of one attribute agree with each other (α with a bootstrap interval, κ, AC1) and whether their errors are correlated; juries (the mean and median of every judge of an attribute) against each member with Williams' test; and per system the judge's mean corrected by the human labels (prediction-powered inference, PPI and PPI++), next to the judge-only and human-only means; two bias probes on the same runs: whether the judge's errors follow the output's length, and whether they are larger on the outputs of its own model family. Its resamples, confidence and seed are the table's Intervals settings (Resamples, Confidence, Seed, under Correlation with human ratings)."
            </p>
            <div class="row">
                <label class="control" for="audit-labelled">
                    <span>"Human labels kept per attribute"</span>
                    <input id="audit-labelled" type="number" min="1" placeholder="all"
                        data-testid="audit-labelled"
                        prop:value=labelled_text on:change=set_labelled/>
                </label>
                <button type="button" data-testid="audit-compute" on:click=compute
                    prop:disabled=move || progress.with(Option::is_some)>
                    {move || if report.with(Option::is_some) { "Compute again" } else { "Compute the audit" }}
                </button>
                {move || progress.get().map(|(done, all)| view! {
                    <span class="muted" role="status" data-testid="audit-progress">{format!("Computing… step {done} of {all}")}</span>
                })}
            </div>
            <fieldset class="row" data-testid="audit-own">
                <legend>"Systems written by the judges' own model family (self-preference)"</legend>
                {own_systems}
            </fieldset>
            <p class="muted">
                "Empty keeps every label. A number keeps the labels of that many items (a choice seeded by the Intervals' Seed, under Correlation with human ratings) and treats the rest as unlabelled, to see what a correction from so few labels gives; the last column then shows the mean of every label. "
                <code>"concord audit BUNDLE"</code>" prints the same tables from an exported bundle."
            </p>
            {move || report.get().map(|r| r.tables.iter().map(|t| view! {
                <TableView table=Arc::new(t.clone()) testid="audit-table"/>
            }).collect_view())}
        </section>
    }
}
