//! The Results table panel: statistic, level and baseline controls, the methods × attributes
//! table built by the core ([`report::results_table`]), intervals on demand, parse failures,
//! and the exports (the core's writers: the same bytes as `concord report`).

use std::sync::Arc;

use concord_core::bundle::{IntervalSettingError, Settings};
use concord_core::study::workbench::report::{self, parse_failures_table};
use concord_core::study::workbench::results::{Granularity, Statistic};
use concord_core::study::workbench::{ResultsTable, ensemble_name};
use leptos::prelude::*;

use crate::components::table_view::{ExportButtons, TableView};
use crate::links::CopyLink;

use super::state::use_results;

/// The Statistic select's value for Chiang & Lee's two-column layout.
const PAPER: &str = "paper";

/// The table and how long tabulating it took (ms), and how long reading the runs took.
#[component]
pub fn TablePanel(table: Memo<(ResultsTable, f64)>, read_ms: Signal<f64>) -> impl IntoView {
    let results = use_results();
    let settings = move || results.settings.get();
    let shown = Memo::new(move |_| {
        let (t, _) = table.get();
        let s = results.settings.get();
        let intervals = results.intervals.get();
        Arc::new(report::results_table(&t, &s.columns(), intervals.as_ref(), &s))
    });
    let failures = Memo::new(move |_| Arc::new(parse_failures_table(&table.get().0)));
    let on_cell = Callback::new(move |(row, column): (usize, usize)| {
        let per = results.settings.with_untracked(|s| s.columns().len()).max(1);
        let named = table.with_untracked(|(t, _)| {
            Some((t.methods.get(row)?.clone(), t.attributes.get(column / per)?.clone()))
        });
        results.item.set(None);
        results.selected.set(named);
    });
    view! {
        <section class="panel" aria-labelledby="table-heading">
            <div class="row heading-row">
                <h2 id="table-heading">"Correlation with human ratings"</h2>
                <CopyLink/>
            </div>
            <div class="row">
                <label>"Statistic "
                    <select aria-label="Statistic" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if v == PAPER {
                            results.settings.update(|x| x.paper_layout = true);
                        } else if let Some(s) = Statistic::ALL.into_iter().find(|s| s.name() == v) {
                            results.settings.update(|x| { x.statistic = s; x.paper_layout = false; });
                        }
                    }>
                        <option value=PAPER selected=move || settings().paper_layout>"r (dataset) and τ (document), as Chiang & Lee report them"</option>
                        {Statistic::ALL.into_iter().map(|s| view! { <option value=s.name() selected=move || { let x = settings(); !x.paper_layout && x.statistic == s }>{s.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Level "
                    <select aria-label="Level" disabled=move || settings().paper_layout on:change=move |ev| {
                        let level = if event_target_value(&ev) == "document" { Granularity::Document } else { Granularity::Dataset };
                        results.settings.update(|x| x.level = level);
                    }>
                        <option value="dataset" selected=move || settings().level == Granularity::Dataset>"dataset level"</option>
                        <option value="document" selected=move || settings().level == Granularity::Document>"document level"</option>
                    </select>
                </label>
                <label>"Baseline "
                    <select aria-label="Baseline" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        results.settings.update(|x| x.baseline = (!v.is_empty()).then_some(v));
                    }>
                        <option value="" selected=move || settings().baseline.is_none()>"none"</option>
                        {move || table.get().0.methods.into_iter().map(|m| {
                            let (value, label) = (m.clone(), m.clone());
                            view! { <option value=value selected=move || settings().baseline.as_deref() == Some(m.as_str())>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class="check" title="The mean and the median of the methods of each attribute, as two more rows">
                    <input type="checkbox" data-testid="juries" prop:checked=move || settings().juries
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            results.settings.update(|s| s.juries = on);
                        }/>
                    "Juries"
                </label>
                <button type="button" class="secondary" disabled=move || results.computing.get()
                    on:click=move |_| results.settings.update(|s| s.intervals = !s.intervals)>
                    {move || if results.computing.get() { "Computing intervals…" } else if settings().intervals { "Hide CIs" } else { "Bootstrap CIs" }}
                </button>
            </div>
            <IntervalSettings/>
            <Ensembles table=table/>
            {move || {
                let t = shown.get();
                view! { <TableView table=t testid="results-table" on_cell=on_cell caption=false exports=false class="results-table"/> }
            }}
            <p class="muted" data-testid="computed">
                {move || {
                    let (_, took) = table.get();
                    format!(
                        "Click a cell for its plots and items. Computed in {}. Responses read in {} in all, once per run, in the background.",
                        duration(took),
                        duration(read_ms.get())
                    )
                }}
            </p>
            <details>
                <summary>"Parse failures"</summary>
                {move || view! { <TableView table=failures.get() testid="parse-failures" caption=false/> }}
            </details>
            <div class="row exports">
                {move || view! { <ExportButtons table=shown.get()/> }}
            </div>
            {move || {
                let errors = table.get().0.errors;
                (!errors.is_empty()).then(|| view! {
                    <div class="error-box" role="alert"><ul>{errors.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul></div>
                })
            }}
        </section>
    }
}

/// The intervals' settings: resamples, confidence and seed of every bootstrap on the screen
/// (the table's intervals, the judge audit's, the review's and revisions'); what cannot be
/// taken is refused where it is typed, and the setting keeps its value.
#[component]
fn IntervalSettings() -> impl IntoView {
    let results = use_results();
    let error = RwSignal::new(None::<String>);
    type Setter = fn(&mut Settings, &str) -> Result<(), IntervalSettingError>;
    let set = move |apply: Setter, shown: fn(&Settings) -> String| {
        move |ev: leptos::ev::Event| {
            let text = event_target_value(&ev);
            let mut next = results.settings.get_untracked();
            match apply(&mut next, &text) {
                Ok(()) => {
                    error.set(None);
                    if next != results.settings.get_untracked() {
                        results.settings.set(next);
                    }
                }
                Err(e) => {
                    // The setting keeps its value, and the field shows it again.
                    let kept = results.settings.with_untracked(shown);
                    error.set(Some(format!("{e}; kept {kept}.")));
                    event_target::<web_sys::HtmlInputElement>(&ev).set_value(&kept);
                }
            }
        }
    };
    view! {
        <fieldset class="row interval-settings" data-testid="interval-settings">
            <legend>"Intervals"</legend>
            <label>"Resamples "
                <input type="text" inputmode="numeric" size="7" data-testid="interval-resamples"
                    prop:value=move || results.settings.with(|s| s.resamples.to_string())
                    on:change=set(|s, t| s.set_resamples(t), |s| s.resamples.to_string())/>
            </label>
            <label>"Confidence (%) "
                <input type="text" inputmode="decimal" size="5" data-testid="interval-confidence"
                    prop:value=move || results.settings.with(|s| s.confidence_percent())
                    on:change=set(|s, t| s.set_confidence(t), Settings::confidence_percent)/>
            </label>
            <label>"Seed "
                <input type="text" inputmode="numeric" size="8" data-testid="interval-seed"
                    prop:value=move || results.settings.with(|s| s.seed.to_string())
                    on:change=set(|s, t| s.set_seed(t), |s| s.seed.to_string())/>
            </label>
            <span class="muted">"Every bootstrap on this screen uses these: the table's CIs, the judge audit, the review's agreement and the revisions."</span>
            {move || error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="interval-error">{e}</p> })}
        </fieldset>
    }
}

/// A duration for people: under a millisecond is said so, not "0 ms".
fn duration(ms: f64) -> String {
    if ms < 1.0 { "under 1 ms".to_owned() } else { format!("{ms:.0} ms") }
}

/// Ensembles: the methods ticked here are averaged item by item into one more row (seed 002
/// suggests combining rate-explain and analyze-rate); each is listed with a Remove button.
#[component]
fn Ensembles(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let results = use_results();
    let ticked = RwSignal::new(Vec::<String>::new());
    let judges = move || {
        // Only judges are members (not juries, ensembles, probes or human-corrected rows).
        table.with(|(t, _)| t.judges().map(|m| t.methods[m].clone()).collect::<Vec<_>>())
    };
    let add = move |_| {
        // In the table's order, whatever order they were ticked in.
        let order = judges();
        let mut members = ticked.get_untracked();
        members.sort_by_key(|m| order.iter().position(|x| x == m));
        if members.len() >= 2 {
            results.settings.update(|s| {
                if !s.ensembles.contains(&members) {
                    s.ensembles.push(members);
                }
            });
            ticked.set(Vec::new());
        }
    };
    view! {
        <details class="ensembles" data-testid="ensembles">
            <summary>{move || match results.settings.with(|s| s.ensembles.len()) {
                0 => "Ensembles".to_owned(),
                n => format!("Ensembles ({n})"),
            }}</summary>
            <p class="muted">"An ensemble's score of an item is the mean of its methods' scores (of those that scored it); it joins the table as a row, and the judge audit tests it against each member with Williams' test."</p>
            <fieldset class="row">
                <legend>"Methods to average"</legend>
                {move || judges().into_iter().map(|m| {
                    let name = m.clone();
                    let checked = {
                        let m = m.clone();
                        move || ticked.with(|t| t.contains(&m))
                    };
                    view! {
                        <label class="check">
                            <input type="checkbox" prop:checked=checked on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                ticked.update(|t| {
                                    t.retain(|x| *x != name);
                                    if on { t.push(name.clone()); }
                                });
                            }/>
                            {m}
                        </label>
                    }
                }).collect_view()}
                <button type="button" class="secondary" disabled=move || ticked.with(|t| t.len() < 2) on:click=add>"Add ensemble"</button>
            </fieldset>
            <ul data-testid="ensemble-list">
                {move || results.settings.with(|s| s.ensembles.clone()).into_iter().map(|members| {
                    let name = ensemble_name(&members);
                    view! {
                        <li>{name.clone()}" "
                            <button type="button" class="secondary small" aria-label=format!("Remove {name}")
                                on:click=move |_| results.settings.update(|s| s.ensembles.retain(|e| *e != members))>"Remove"</button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </details>
    }
}
