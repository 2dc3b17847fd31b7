//! The Results screen's "Can the judge replace the annotators?" panel (issue 38, STATS_SPEC
//! §16): per judge run the alternative annotator test against the dataset's raters (and those
//! added in Concord), where it can be trusted (selective trust with its coverage–agreement
//! curve, the cascade of an attribute's judges in order of cost), the label planner and the
//! judge's stability — the core's [`PanelBuilder`] computed a judge at a time between frames,
//! its tables and figures rendered as they are (`concord report --screen validity` prints
//! the same bytes). The controls write the panel's settings into the Results settings, so a
//! bundle and a saved workspace keep them.

use std::sync::Arc;

use concord_core::data::Dataset;
use concord_core::report::Report;
use concord_core::study::validity::{
    self, ConfidenceSource, EpsilonPreset, JudgeCost, PanelBuilder, Parts, Scoring, Settings,
    StrataBy,
};
use concord_core::study::workbench::report::pricing;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::figure_view::FigureView;
use crate::components::table_view::TableView;
use crate::edge::time::FrameBudget;
use crate::screens::rate::state::use_rate;
use crate::screens::run::state::{RunState, use_run};
use crate::state::{JudgeRuns, use_runs, use_workspace};

use super::state::{use_results, use_review};

/// The runs' estimated costs as a bundle of this workspace would price them: at the model the
/// study runs were made with (else the Run screen's, as the bundle would record it), none
/// without study runs ([`validity::bundle_costs`] reads the same endpoint back).
fn panel_costs(runs: JudgeRuns, run: RunState) -> Vec<JudgeCost> {
    let has_study_runs = runs.runs.with_untracked(|r| r.iter().any(|r| r.origin == "study"));
    if !has_study_runs {
        return Vec::new();
    }
    let endpoint = runs
        .ran_with
        .with_value(|r| r.as_ref().map(|(_, e)| e.clone()))
        .unwrap_or_else(|| Some(run.connection.with_untracked(|f| f.endpoint())));
    match endpoint {
        Some(e) => runs.runs.with_untracked(|r| validity::judge_costs(r, &pricing(Some(&e), true))),
        None => Vec::new(),
    }
}

/// The dataset the panel measures against: the open one, with the raters added in Concord
/// (Rate it yourself, other bundles, submissions) as annotators.
enum Measured {
    Open(Arc<concord_core::data::Loaded>),
    WithRaters(Box<Dataset>),
}

impl Measured {
    fn dataset(&self) -> &Dataset {
        match self {
            Measured::Open(l) => &l.dataset,
            Measured::WithRaters(d) => d,
        }
    }
}

#[component]
pub fn ValidityPanel() -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let results = use_results();
    let review = use_review();
    let rate = use_rate();
    let run = use_run();
    let report = RwSignal::new(None::<Arc<Report>>);
    let progress = RwSignal::new(None::<(usize, usize)>);
    // Set once the panel was computed: from then on a change recomputes it.
    let live = RwSignal::new(false);
    let generation = StoredValue::new(0u64);
    let settings =
        Memo::new(move |_| results.settings.with(|s| s.validity.clone().unwrap_or_default()));
    let update = move |f: &dyn Fn(&mut Settings)| {
        results.settings.update(|s| {
            let mut v = s.validity.clone().unwrap_or_default();
            f(&mut v);
            s.validity = Some(v);
        });
    };
    let compute = move || {
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        let current = move || generation.try_get_value() == Some(this);
        let open = ws.dataset.get_untracked().loaded;
        let added = rate.raters.get_untracked();
        let measured = if added.is_empty() {
            Measured::Open(open)
        } else {
            Measured::WithRaters(Box::new(validity::with_added_raters(&open.dataset, &added)))
        };
        let s = settings.get_untracked();
        let split = review.split.get_untracked();
        let costs = panel_costs(runs, run);
        let mut builder = runs
            .runs
            .with_untracked(|r| PanelBuilder::new(r, &s, split.as_ref(), costs, Parts::ALL));
        live.set(true);
        progress.set(Some(builder.progress()));
        spawn_local(async move {
            let mut budget = FrameBudget::new();
            loop {
                let done = runs.runs.with_untracked(|r| builder.step(measured.dataset(), r));
                if done || budget.spent() {
                    progress.try_set(Some(builder.progress()));
                    budget.yield_now().await;
                }
                if !current() {
                    return;
                }
                if done {
                    break;
                }
            }
            report.try_set(Some(Arc::new(builder.finish())));
            progress.try_set(None);
        });
    };
    // A change of the runs, the dataset, the raters, the split or the settings makes a shown
    // panel stale: computed again (once computed), else cleared.
    Effect::new(move |_| {
        runs.runs.track();
        ws.dataset.track();
        rate.raters.track();
        review.split.track();
        let _ = settings.get();
        generation.update_value(|g| *g += 1);
        if live.get_untracked() {
            compute();
        } else {
            report.set(None);
            progress.set(None);
        }
    });
    let judges =
        Memo::new(move |_| runs.runs.with(|r| r.iter().filter(|r| validity::is_judge(r)).count()));
    // The parts' main tables are headed by their titles (the panel's h2 heads the alt-test's
    // summary); the tables under them keep their captions.
    let tables = move |pick: fn(&str) -> bool| {
        report.get().map(|r| {
            r.tables
                .iter()
                .filter(|t| pick(&t.id))
                .map(|t| {
                    let headed = [
                        validity::TRUST_TABLE,
                        validity::PLANNER_TABLE,
                        validity::STABILITY_TABLE,
                    ]
                    .contains(&t.id.as_str());
                    let caption = !headed && t.id != validity::ALT_TEST_TABLE;
                    let heading = headed.then(|| view! { <h3>{t.title.clone()}</h3> });
                    view! {
                        {heading}
                        <TableView table=Arc::new(t.clone()) testid="validity-table" caption=caption/>
                    }
                })
                .collect_view()
        })
    };
    let figures = move || {
        report.get().map(|r| {
            r.figures
                .iter()
                .map(|f| {
                    let label = f.id.clone();
                    view! { <FigureView figure=f.clone() label=label testid="validity-figure"/> }
                })
                .collect_view()
        })
    };
    view! {
        <section class="panel validity" aria-labelledby="validity-heading" data-testid="validity-panel">
            <h2 id="validity-heading">"Can the judge replace the annotators?"</h2>
            <p class="muted">
                "Each judge run against the dataset's annotators (and the raters added here): the alternative annotator test leaves each annotator out in turn and asks whether the judge represents the others at least as well as that annotator, with a margin ε for what the judge saves (Calderon, Reichart & Dror, ACL 2025); where the judge can be trusted with a guaranteed agreement, and a cascade of judges that sends the rest to a person (Jung, Brahman & Choi, ICLR 2025); how many human labels a corrected estimate needs (Fisch et al., NeurIPS 2024); and whether the judge agrees with itself. "
                <code>"concord report BUNDLE --screen validity"</code>" prints the same tables."
            </p>
            <AltTestControls settings=settings update=update/>
            <TrustControls settings=settings update=update/>
            <CascadeControls settings=settings update=update/>
            <PlannerControls settings=settings update=update/>
            <div class="row">
                <button type="button" class="primary" data-testid="validity-compute"
                    prop:disabled=move || progress.with(Option::is_some) || judges.get() == 0
                    on:click=move |_| compute()>
                    {move || if report.with(Option::is_some) { "Compute again" } else { "Test the judges" }}
                </button>
                {move || progress.get().map(|(done, all)| view! {
                    <span class="muted" role="status" data-testid="validity-progress">{format!("Computing… step {done} of {all}")}</span>
                })}
                {move || (judges.get() == 0).then(|| view! {
                    <span class="muted">"No judge run to test: run one, import one, or open an AltTest folder on the Data screen."</span>
                })}
            </div>
            {move || tables(|id| id.starts_with("validity-alt-test"))}
            {move || tables(|id| id == validity::TRUST_TABLE)}
            <div class="figure-grid">{figures}</div>
            {move || tables(|id| id == validity::CASCADE_TABLE)}
            {move || tables(|id| id == validity::PLANNER_TABLE)}
            {move || tables(|id| id == validity::STABILITY_TABLE)}
        </section>
    }
}

/// A number typed in a field: `None` when empty or not a number.
fn number(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

#[component]
fn AltTestControls(
    settings: Memo<Settings>,
    update: impl Fn(&dyn Fn(&mut Settings)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let preset = move || {
        EpsilonPreset::of(settings.with(|s| s.epsilon)).map_or("other", EpsilonPreset::name)
    };
    let set_preset = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        if let Some(p) = EpsilonPreset::ALL.into_iter().find(|p| p.name() == v) {
            update(&move |s: &mut Settings| s.epsilon = p.epsilon());
        }
    };
    let scoring = move || settings.with(|s| s.scoring.map_or("auto", Scoring::name));
    view! {
        <fieldset class="row" data-testid="validity-alt-controls">
            <legend>"Alternative annotator test"</legend>
            <label class="control" for="validity-epsilon-preset">
                <span>"The annotators are"</span>
                <select id="validity-epsilon-preset" on:change=set_preset>
                    {EpsilonPreset::ALL.into_iter().map(|p| {
                        let name = p.name();
                        view! { <option value=name selected=move || preset() == name>{format!("{name} (ε = {})", p.epsilon())}</option> }
                    }).collect_view()}
                    <option value="other" selected=move || preset() == "other">"other (ε typed)"</option>
                </select>
            </label>
            <label class="control" for="validity-epsilon">
                <span>"ε"</span>
                <input id="validity-epsilon" type="number" min="0" max="0.99" step="0.01"
                    prop:value=move || settings.with(|s| s.epsilon.to_string())
                    on:change=move |ev| { if let Some(x) = number(&event_target_value(&ev)) {
                        update(&move |s: &mut Settings| s.epsilon = x);
                    } }/>
            </label>
            <label class="control" for="validity-scoring">
                <span>"Scoring"</span>
                <select id="validity-scoring" on:change=move |ev| {
                    let v = Scoring::from_name(&event_target_value(&ev));
                    update(&move |s: &mut Settings| s.scoring = v);
                }>
                    <option value="auto" selected=move || scoring() == "auto">"automatic: accuracy for labels, negative RMSE for scores"</option>
                    <option value="accuracy" selected=move || scoring() == "accuracy">"accuracy"</option>
                    <option value="neg_rmse" selected=move || scoring() == "neg_rmse">"negative RMSE"</option>
                </select>
            </label>
            <label class="control" for="validity-q">
                <span>"FDR q"</span>
                <input id="validity-q" type="number" min="0.001" max="0.5" step="0.01"
                    prop:value=move || settings.with(|s| s.q.to_string())
                    on:change=move |ev| { if let Some(x) = number(&event_target_value(&ev)) {
                        update(&move |s: &mut Settings| s.q = x);
                    } }/>
            </label>
        </fieldset>
    }
}

#[component]
fn TrustControls(
    settings: Memo<Settings>,
    update: impl Fn(&dyn Fn(&mut Settings)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let source = move || settings.with(|s| s.confidence_source.name());
    view! {
        <fieldset class="row" data-testid="validity-trust-controls">
            <legend>"Selective trust"</legend>
            <label class="control" for="validity-alpha">
                <span>"α (tolerated disagreement)"</span>
                <input id="validity-alpha" type="number" min="0.01" max="0.99" step="0.01"
                    prop:value=move || settings.with(|s| s.alpha.to_string())
                    on:change=move |ev| { if let Some(x) = number(&event_target_value(&ev)) {
                        update(&move |s: &mut Settings| s.alpha = x);
                    } }/>
            </label>
            <label class="control" for="validity-delta">
                <span>"δ (risk)"</span>
                <input id="validity-delta" type="number" min="0.01" max="0.99" step="0.01"
                    prop:value=move || settings.with(|s| s.delta.to_string())
                    on:change=move |ev| { if let Some(x) = number(&event_target_value(&ev)) {
                        update(&move |s: &mut Settings| s.delta = x);
                    } }/>
            </label>
            <label class="control" for="validity-tolerance">
                <span>"Scores agree within"</span>
                <input id="validity-tolerance" type="number" min="0" step="0.1" placeholder="0.5"
                    prop:value=move || settings.with(|s| s.tolerance.map(|t| t.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let t = number(&event_target_value(&ev)).filter(|t| *t >= 0.0);
                        update(&move |s: &mut Settings| s.tolerance = t);
                    }/>
            </label>
            <label class="control" for="validity-source">
                <span>"Confidence from"</span>
                <select id="validity-source" on:change=move |ev| {
                    if let Some(c) = ConfidenceSource::from_name(&event_target_value(&ev)) {
                        update(&move |s: &mut Settings| s.confidence_source = c);
                    }
                }>
                    <option value="auto" selected=move || source() == "auto">"automatic: samples, else log-probabilities"</option>
                    <option value="samples" selected=move || source() == "samples">"the share of samples giving the majority rating"</option>
                    <option value="logprobs" selected=move || source() == "logprobs">"the probability of the chosen rating token"</option>
                </select>
            </label>
            <label class="control" for="validity-seed">
                <span>"Seed (held-out half, pilot)"</span>
                <input id="validity-seed" type="number" min="0" step="1"
                    prop:value=move || settings.with(|s| s.seed.to_string())
                    on:change=move |ev| { if let Ok(x) = event_target_value(&ev).trim().parse::<u64>() {
                        update(&move |s: &mut Settings| s.seed = x);
                    } }/>
            </label>
        </fieldset>
    }
}

/// The cascade's order: the attribute's judges with their estimated cost, moved up and down
/// (the order is kept in the settings), or back to the order by cost.
#[component]
fn CascadeControls(
    settings: Memo<Settings>,
    update: impl Fn(&dyn Fn(&mut Settings)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let runs = use_runs();
    let run = use_run();
    let plan = Memo::new(move |_| {
        let s = settings.get();
        runs.runs.track();
        let costs = panel_costs(runs, run);
        runs.runs.with_untracked(|r| validity::cascade_plan(r, &s, &costs))
    });
    let swap = move |from: usize, to: usize| {
        let (list, _) = plan.get_untracked();
        let mut order: Vec<String> = Vec::new();
        for c in &list {
            if !order.contains(&c.method) {
                order.push(c.method.clone());
            }
        }
        if from < order.len() && to < order.len() {
            order.swap(from, to);
            update(&move |s: &mut Settings| s.cascade = order.clone());
        }
    };
    let how = move || match plan.with(|(_, how)| *how) {
        "settings" => "in the order set here",
        "cost" => "by estimated cost, cheapest first",
        _ => {
            "in the order of the runs: not every judge's cost is known (no price for the model, or imported runs)"
        }
    };
    view! {
        <fieldset data-testid="validity-cascade-controls">
            <legend>"The cascade's order"</legend>
            <p class="muted">{move || format!("Judges {}. An item goes to the first judge that trusts it, else to a person.", how())}</p>
            <ol class="cascade-order">
                {move || {
                    let (list, _) = plan.get();
                    let mut methods: Vec<(String, Option<f64>)> = Vec::new();
                    for c in list {
                        if !methods.iter().any(|(m, _)| *m == c.method) {
                            methods.push((c.method, c.usd));
                        }
                    }
                    let last = methods.len().saturating_sub(1);
                    methods.into_iter().enumerate().map(|(k, (method, usd))| {
                        let cost = usd.map(|c| format!(" ({})", concord_core::words::usd(c))).unwrap_or_default();
                        let up = format!("Move {method} earlier in the cascade");
                        let down = format!("Move {method} later in the cascade");
                        view! {
                            <li>
                                <span>{format!("{method}{cost}")}</span>
                                <button type="button" class="secondary small" aria-label=up disabled=k == 0
                                    on:click=move |_| swap(k, k.saturating_sub(1))>"↑"</button>
                                <button type="button" class="secondary small" aria-label=down disabled=k == last
                                    on:click=move |_| swap(k, k + 1)>"↓"</button>
                            </li>
                        }
                    }).collect_view()
                }}
            </ol>
            <button type="button" class="secondary small"
                disabled=move || settings.with(|s| s.cascade.is_empty())
                on:click=move |_| update(&|s: &mut Settings| s.cascade.clear())>
                "Order by cost again"
            </button>
        </fieldset>
    }
}

#[component]
fn PlannerControls(
    settings: Memo<Settings>,
    update: impl Fn(&dyn Fn(&mut Settings)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let strata = move || settings.with(|s| s.strata);
    view! {
        <fieldset class="row" data-testid="validity-planner-controls">
            <legend>"Label planner"</legend>
            <label class="control" for="validity-half-width">
                <span>"Interval half-width"</span>
                <input id="validity-half-width" class="wide" type="number" min="0" step="0.01" placeholder="range ÷ 10"
                    prop:value=move || settings.with(|s| s.half_width.map(|h| h.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let h = number(&event_target_value(&ev)).filter(|h| *h > 0.0);
                        update(&move |s: &mut Settings| s.half_width = h);
                    }/>
            </label>
            <label class="control" for="validity-strata">
                <span>"Strata by"</span>
                <select id="validity-strata" on:change=move |ev| {
                    let by = if event_target_value(&ev) == "confidence" { StrataBy::Confidence } else { StrataBy::System };
                    update(&move |s: &mut Settings| s.strata = by);
                }>
                    <option value="system" selected=move || strata() == StrataBy::System>"system"</option>
                    <option value="confidence" selected=move || strata() == StrataBy::Confidence>"the judge's confidence (terciles)"</option>
                </select>
            </label>
            <label class="control" for="validity-pilot">
                <span>"Pilot: labels kept"</span>
                <input id="validity-pilot" class="wide" type="number" min="2" step="1" placeholder="every label"
                    prop:value=move || settings.with(|s| s.pilot.map(|p| p.to_string()).unwrap_or_default())
                    on:change=move |ev| {
                        let p = event_target_value(&ev).trim().parse::<usize>().ok().filter(|p| *p > 0);
                        update(&move |s: &mut Settings| s.pilot = p);
                    }/>
            </label>
        </fieldset>
    }
}
