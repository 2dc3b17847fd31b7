//! The LLM panel of CoEval: criteria ideation (seed 004 §3.1, once or repeatedly to see which
//! criteria recur) and per-criterion instance evaluation (§3.2) through the browser run engine,
//! with the connection set on the Run screen. The runs themselves are [`super::tasks::ideate`]
//! and [`super::tasks::evaluate`]; every answer is cached in IndexedDB by the runner, so
//! running again costs nothing, and the answers are kept with the study.

use concord_core::study::coeval::{recurrence_table, recurring_criteria};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::common::{CoEvalTable, use_ctx};
use super::state::LlmRun;
use super::tasks;
use crate::screens::run::state::LlmAccess;

/// The "LLM" panel: ideate criteria (once, or repeatedly to see which recur), evaluate
/// instances; a run can be paused, resumed and cancelled.
#[component]
pub fn LlmPanel() -> impl IntoView {
    let ctx = use_ctx();
    let wb = LlmAccess::from_context();
    let run = LlmRun::new();
    let LlmRun { status, busy, paused, control, recurring, min_samples } = run;
    let samples = RwSignal::new(1u32);
    let temperature = RwSignal::new(0.7f64);
    let connected = move || {
        let f = wb.connection.get();
        !f.model.trim().is_empty() && !f.base_url.trim().is_empty()
    };
    let ideate = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let connection = wb.connection.get_untracked().connection();
        let n = samples.get_untracked().clamp(1, 50);
        // One answer at the provider's default temperature, as the paper; repeated answers
        // need sampling to differ.
        let t = (n > 1).then(|| temperature.get_untracked());
        run.start();
        spawn_local(tasks::ideate(wb, ctx, study, connection, n, t, run));
    };
    let use_recurring = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let Some((_, rec)) = recurring.get_untracked() else { return };
        let k = min_samples.get_untracked();
        let chosen = recurring_criteria(&rec, k);
        if chosen.is_empty() {
            ctx.fail(format!("no criterion recurs in {k} or more answers"));
            return;
        }
        let n = chosen.len();
        let mut next = (*study).clone();
        next.criteria = chosen;
        ctx.replace_study(next);
        status.set(Some(format!(
            "{n} criteria recurring in at least {k} answers are the task's criteria now: scrutinise them below."
        )));
    };
    let evaluate = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let connection = wb.connection.get_untracked().connection();
        run.start();
        spawn_local(tasks::evaluate(wb, ctx, study, connection, run));
    };
    let idle_blocked = move || busy.get() || !connected() || ctx.study.get().is_none();
    view! {
        <section class="panel" aria-labelledby="coeval-llm-heading">
            <h2 id="coeval-llm-heading">"LLM runs"</h2>
            <p class="muted">
                "Uses the connection of the Run screen (provider, base URL, model, key). Answers are "
                "cached in this browser: running again sends nothing already answered."
            </p>
            <Show when=move || !connected()>
                <p class="muted" data-testid="llm-not-connected">"Set a base URL and a model on the Run screen first."</p>
            </Show>
            <div class="row">
                <label for="coeval-ideation-samples">"Ideation answers"</label>
                <input id="coeval-ideation-samples" type="number" min="1" max="50" step="1"
                    prop:value=move || samples.get().to_string()
                    on:change=move |ev| samples.set(event_target_value(&ev).parse().unwrap_or(1).clamp(1, 50))/>
                <label for="coeval-ideation-temperature">"Temperature for repeated ideation"</label>
                <input id="coeval-ideation-temperature" type="number" min="0" max="2" step="0.1"
                    disabled=move || samples.get() <= 1
                    prop:value=move || temperature.get().to_string()
                    on:change=move |ev| temperature.set(event_target_value(&ev).parse().unwrap_or(0.7_f64).clamp(0.0, 2.0))/>
            </div>
            <div class="row">
                <button class="secondary" type="button" disabled=idle_blocked
                    on:click=ideate>"Ideate criteria with the LLM"</button>
                <button class="secondary" type="button" disabled=idle_blocked
                    on:click=evaluate>"Evaluate instances with the LLM"</button>
                <button class="secondary" type="button" disabled=move || !busy.get() || paused.get()
                    on:click=move |_| { control.get_value().pause(); paused.set(true); status.set(Some("Paused: calls in flight still land and are kept.".to_owned())); }>"Pause LLM run"</button>
                <button class="secondary" type="button" disabled=move || !paused.get()
                    on:click=move |_| { control.get_value().resume(); paused.set(false); }>"Resume LLM run"</button>
                <button class="secondary" type="button" disabled=move || !busy.get()
                    on:click=move |_| { control.get_value().cancel(); paused.set(false); }>"Cancel LLM run"</button>
                <span role="status" data-testid="llm-status">{move || status.get().unwrap_or_default()}</span>
            </div>
            {move || recurring.get().map(|(n, rec)| {
                view! {
                    <h3>{format!("How often each criterion recurs in {n} answers")}</h3>
                    <CoEvalTable table=recurrence_table(&rec, n) testid="ideation-recurrence" caption=false exports=false/>
                    <div class="row">
                        <label for="coeval-min-recurrence">"Keep criteria listed in at least this many answers"</label>
                        <input id="coeval-min-recurrence" type="number" min="1" max=n.to_string() step="1"
                            prop:value=move || min_samples.get().to_string()
                            on:change=move |ev| min_samples.set(event_target_value(&ev).parse().unwrap_or(1).clamp(1, n.max(1)))/>
                        <button class="secondary" type="button" on:click=use_recurring>"Use the recurring criteria"</button>
                    </div>
                }
            })}
        </section>
    }
}
