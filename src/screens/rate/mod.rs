//! Rate it yourself (classrooms): a keyboard-driven screen where a student rates the open
//! dataset's items on one attribute. Their ratings join the study as a rater (kept in this
//! browser as they are made, and in exported bundles), and the Results screen compares them
//! with the dataset's human raters and the LLM judges (correlation, Krippendorff's α).
//!
//! With a classroom exercise open (the Class screen), the open dataset is the exercise's items
//! and attributes: the screen names the exercise, takes the student's name from it and times
//! each item with the app's timer ([`use_instance_timer`], stopped while the tab is hidden) for the
//! submission.

pub mod state;

use concord_core::annotation::Stretch;
use concord_core::study::workbench::ExtraRater;
use leptos::ev::KeyboardEvent;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::instance_timer::{TimerOptions, use_instance_timer};
use crate::edge::store::StoreName;
use crate::persist::bundle::BundleTargets;
use crate::screens::class::state::{ClassState, use_class};
use crate::state::{Screen, Storage, use_storage, use_workspace};

use state::{RateState, use_rate};

/// Where a rater's scores are kept: per dataset (its name and size), student and attribute,
/// so ratings of one dataset never join another whose item ids look alike (`row1`, …).
fn storage_key(wb_dataset: &(String, usize), name: &str, attribute: &str) -> String {
    let (dataset, items) = wb_dataset;
    format!("rate/{dataset}#{items}/{name}/{attribute}")
}

/// Records `score` for `item_id` (replacing an earlier score) and saves the rater at once.
fn record(
    rate: RateState,
    storage: Storage,
    dataset: &(String, usize),
    name: &str,
    attribute: &str,
    item_id: &str,
    score: f64,
) {
    rate.raters.update(|raters| {
        let rater = match raters.iter().position(|r| r.name == name && r.attribute == attribute) {
            Some(i) => &mut raters[i],
            None => {
                raters.push(ExtraRater {
                    name: name.to_owned(),
                    attribute: attribute.to_owned(),
                    scores: Vec::new(),
                });
                let last = raters.len() - 1;
                &mut raters[last]
            }
        };
        rater.scores.retain(|(id, _)| id != item_id);
        rater.scores.push((item_id.to_owned(), score));
    });
    let saved = rate
        .raters
        .with_untracked(|r| r.iter().find(|r| r.name == name && r.attribute == attribute).cloned());
    if let (Some(store), Some(rater)) = (storage.store.get_untracked(), saved) {
        let key = storage_key(dataset, name, attribute);
        spawn_local(async move {
            let _ = store
                .put(StoreName::Settings, &key, &serde_json::to_string(&rater).unwrap_or_default())
                .await;
        });
    }
}

#[component]
pub fn RateScreen() -> impl IntoView {
    let ws = use_workspace();
    let rate = use_rate();
    let storage = use_storage();
    let class = use_class();
    let targets = BundleTargets::from_context();
    spawn_local(crate::screens::class::session::restore(targets));
    let name = RwSignal::new(class.student.get_untracked());
    let attribute = RwSignal::new(0usize);
    let position = RwSignal::new(0usize);
    let started = RwSignal::new(false);
    let in_exercise = move || class.exercise.with(Option::is_some);
    // The name an exercise was opened under is the rater's (it names the submission).
    Effect::new(move |_| {
        let student = class.student.get();
        if in_exercise() && !student.is_empty() && name.get_untracked().is_empty() {
            name.set(student);
        }
    });
    // Read in place: a 10,000-item dataset is not copied on every keypress.
    let which =
        move || ws.dataset.with(|d| (d.loaded.dataset.name.clone(), d.loaded.dataset.items.len()));
    let item_count = move || ws.dataset.with(|d| d.loaded.dataset.items.len());
    let attr =
        move || ws.dataset.with(|d| d.loaded.dataset.attributes.get(attribute.get()).cloned());
    let current = move || ws.dataset.with(|d| d.loaded.dataset.items.get(position.get()).cloned());
    exercise_timer(class, targets, move || {
        (started.get() && in_exercise()).then(current).flatten().map(|item| item.id)
    });
    let score_of = move |item_id: &str| {
        let (n, a) = (name.get(), attr().map(|a| a.name).unwrap_or_default());
        rate.raters.with(|r| {
            r.iter()
                .find(|r| r.name == n && r.attribute == a)
                .and_then(|r| r.scores.iter().find(|(id, _)| id == item_id).map(|(_, s)| *s))
        })
    };
    let done = move || {
        let (n, a) = (name.get(), attr().map(|a| a.name).unwrap_or_default());
        rate.raters.with(|r| {
            r.iter().find(|r| r.name == n && r.attribute == a).map_or(0, |r| r.scores.len())
        })
    };
    // Resume an earlier session of the same rater and attribute from storage.
    let start = move |_| {
        let n = name.get_untracked().trim().to_owned();
        if n.is_empty() {
            return;
        }
        name.set(n.clone());
        started.set(true);
        let a = attr().map(|a| a.name).unwrap_or_default();
        let key = storage_key(&which(), &n, &a);
        // Scores of this rater and attribute held from another dataset do not carry over: they
        // would be saved under this dataset's key with the next rating.
        rate.raters.update(|r| r.retain(|x| !(x.name == n && x.attribute == a)));
        if let Some(store) = storage.store.get_untracked() {
            spawn_local(async move {
                if let Ok(Some(text)) = store.get(StoreName::Settings, &key).await
                    && let Ok(saved) = serde_json::from_str::<ExtraRater>(&text)
                {
                    let first_unrated = {
                        let d = ws.dataset.get_untracked();
                        d.loaded
                            .dataset
                            .items
                            .iter()
                            .position(|it| !saved.scores.iter().any(|(id, _)| *id == it.id))
                            .unwrap_or(0)
                    };
                    rate.raters.update(|r| {
                        r.retain(|x| !(x.name == saved.name && x.attribute == saved.attribute));
                        r.push(saved);
                    });
                    position.try_set(first_unrated);
                }
            });
        }
    };
    let rate = move |score: f64| {
        let Some(item) = current() else { return };
        let Some(a) = attr() else { return };
        record(rate, storage, &which(), &name.get_untracked(), &a.name, &item.id, score);
        let last = item_count().saturating_sub(1);
        position.update(|p| *p = (*p + 1).min(last));
    };
    let on_key = move |ev: KeyboardEvent| {
        let Some(a) = attr() else { return };
        let key = ev.key();
        let last = item_count().saturating_sub(1);
        match key.as_str() {
            "ArrowRight" | "j" => position.update(|p| *p = (*p + 1).min(last)),
            "ArrowLeft" | "k" => position.update(|p| *p = p.saturating_sub(1)),
            k => {
                if let Ok(v) = k.parse::<f64>()
                    && a.scale.contains(v)
                {
                    ev.prevent_default();
                    rate(v);
                }
                return;
            }
        }
        ev.prevent_default();
    };
    // Once rating starts, the card takes the keyboard focus (the keys work at once).
    let card = NodeRef::<leptos::html::Section>::new();
    Effect::new(move |_| {
        if started.get()
            && let Some(el) = card.get()
        {
            let _ = el.focus();
        }
    });
    let empty = move || {
        ws.dataset.with(|d| {
            let d = &d.loaded.dataset;
            if d.items.is_empty() {
                Some("The open dataset has no items to rate (a pairwise or CoEval file?). Open a dataset of rated outputs on the Data screen.")
            } else if d.attributes.is_empty() {
                Some("The open dataset has no rated attribute, so there is no scale to rate on. Map a rating column on the Data screen.")
            } else {
                None
            }
        })
    };
    view! {
        <section class="panel" aria-labelledby="rate-heading">
            <h2 id="rate-heading">"Rate it yourself"</h2>
            {move || empty().map(|why| view! { <p class="notice-line" role="status" data-testid="rate-empty">{why}</p> })}
            {move || class.exercise.get().filter(|ex| ex.rates()).map(|ex| view! {
                <p class="notice-line" role="status" data-testid="rate-exercise">
                    {format!("Exercise “{}”: rate its {} items on {}. Export your submission on the Class screen when you are done.",
                        ex.title, ex.dataset.items, ex.attributes().join(", "))}
                    " "
                    <button type="button" class="secondary small" on:click=move |_| ws.screen.set(Screen::Class)>"Back to the exercise"</button>
                </p>
            })}
            <p class="muted">"Rate the open dataset's outputs; your ratings are compared with the human raters and the LLM judges on the Results screen. They are saved in this browser as you go and travel in exported bundles."</p>
            <div class="row">
                <label for="rater-name">"Your name"</label>
                <input id="rater-name" type="text" prop:value=move || name.get() on:input=move |ev| {
                    let typed = event_target_value(&ev);
                    if in_exercise() {
                        class.student.set(typed.trim().to_owned());
                    }
                    name.set(typed);
                    started.set(false);
                }/>
                <label for="rate-attribute">"Attribute"</label>
                <select id="rate-attribute" on:change=move |ev| { attribute.set(event_target_value(&ev).parse().unwrap_or(0)); started.set(false); }>
                    {move || ws.dataset.with(|d| d.loaded.dataset.attributes.clone()).iter().enumerate().map(|(i, a)| view! {
                        <option value=i.to_string() selected=move || attribute.get() == i>{format!("{} ({}–{})", a.name, a.scale.min, a.scale.max)}</option>
                    }).collect_view()}
                </select>
                <button type="button" class="primary" on:click=start disabled=move || name.get().trim().is_empty() || empty().is_some()>"Start rating"</button>
            </div>
        </section>
        <Show when=move || started.get() && current().is_some()>
            <section class="panel rate-card" tabindex="0" node_ref=card aria-labelledby="rate-item-heading" on:keydown=on_key data-testid="rate-card">
                <h2 id="rate-item-heading">{move || format!("Item {} of {} · {} rated", position.get() + 1, item_count(), done())}</h2>
                <p class="muted">{move || attr().map(|a| format!(
                    "Press {}–{} to rate {} (then the next item shows), ← / → to move. Click here first if the keys do nothing.",
                    a.scale.min, a.scale.max, a.name))}</p>
                {move || current().map(|item| view! {
                    <div class="rate-item">
                        {item.inputs.names().map(|n| {
                            let text = item.inputs.get(n).unwrap_or_default().to_owned();
                            view! { <h3>{n.to_owned()}</h3><pre class="source" tabindex="0" role="region" aria-label=n.to_owned()>{text}</pre> }
                        }).collect_view()}
                        <h3>{item.output_name.clone()}</h3>
                        <pre class="output" data-testid="rate-output" tabindex="0" role="region" aria-label=item.output_name.clone()>{item.output.clone()}</pre>
                    </div>
                })}
                <div class="row" role="group" aria-label="Rating">
                    {move || attr().map(|a| {
                        let lo = a.scale.min.ceil() as i64;
                        let hi = a.scale.max.floor() as i64;
                        (lo..=hi).map(|v| {
                            let id = current().map(|c| c.id).unwrap_or_default();
                            let chosen = Signal::derive(move || score_of(&id) == Some(v as f64));
                            view! { <button type="button" class="secondary rate-button" class:chosen=chosen aria-pressed=move || chosen.get().to_string()
                                on:click=move |_| rate(v as f64)>{v.to_string()}</button> }
                        }).collect_view()
                    })}
                    <button type="button" class="secondary" on:click=move |_| ws.screen.set(Screen::Results)>"See how I agree"</button>
                </div>
            </section>
        </Show>
    }
}

/// Times the exercise item `item()` names (none: not rating an exercise) with the app's timer:
/// each stretch on an item is added to the session's time when the student moves on, hides the
/// tab or leaves the screen.
fn exercise_timer(
    class: ClassState,
    targets: BundleTargets,
    item: impl Fn() -> Option<String> + Send + Sync + 'static,
) {
    let record = move |stretch: Stretch| {
        if class.exercise.try_with_untracked(Option::is_some) != Some(true) {
            return;
        }
        class.time_ms.try_update(|t| t.push((stretch.item, stretch.ms)));
        spawn_local(crate::screens::class::session::save(targets));
    };
    // Taken now, recorded after the teardown: a write while the view is torn down re-runs
    // closures whose memos are already disposed.
    let leave = move |stretch| spawn_local(async move { record(stretch) });
    use_instance_timer(item, record, leave, TimerOptions::default());
}
