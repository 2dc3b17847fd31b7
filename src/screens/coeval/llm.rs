//! The LLM runs of CoEval through the browser run engine ([`crate::runner`]): criteria
//! ideation (seed 004 §3.1) and per-criterion instance evaluation (§3.2), with the connection
//! set on the Run screen. Every answer is cached in IndexedDB by the runner, so running again
//! costs nothing; the parsed results go into the study (and are saved with it).

use std::collections::HashMap;
use std::sync::Arc;

use concord_core::judge::coeval::{Recurrence, evaluation_prompt, ideation_prompt, recurrence};
use concord_core::judge::meta_eval::list_items;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::{ChatRequest, Message};
use concord_core::run::{Finish, cache_key, sample_batches};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::model::{Evaluation, Stage2Criterion, Study};
use super::{Ctx, use_ctx};
use crate::runner::LlmAccess;
use crate::runner::{self, CallSpec, Connection, RunControl};

fn call(connection: &Connection, request: ChatRequest) -> CallSpec {
    let key = cache_key(&connection.endpoint, &request, 0);
    CallSpec::single(request, key)
}

/// What one evaluation call is for: (instance id, criterion).
type Target = (String, String);

/// The evaluation calls of every (instance, stage-2 criterion) the LLM has not evaluated yet:
/// the prompt has the final wording, the result is stored under the criterion stage 2 looks
/// it up by.
fn evaluation_calls(
    study: &Study,
    criteria: &[Stage2Criterion],
    connection: &Connection,
) -> Vec<(CallSpec, Target)> {
    let sampling = Sampling::single();
    let mut out = Vec::new();
    for inst in &study.instances {
        for c in criteria {
            if study.evaluation(&inst.id, &c.evaluated_as).is_some() {
                continue;
            }
            let prompt = evaluation_prompt(&study.info, &c.name, &inst.input, &inst.output);
            let tag = format!("coeval/{}/{}", inst.id, c.evaluated_as);
            let request = sampling.request(tag, vec![Message::user(prompt)]);
            out.push((call(connection, request), (inst.id.clone(), c.evaluated_as.clone())));
        }
    }
    out
}

/// Runs `calls` and returns the stored text of each first sample, by cache key.
async fn run_calls(
    wb: LlmAccess,
    ctx: Ctx,
    connection: Connection,
    calls: Vec<CallSpec>,
    status: RwSignal<Option<String>>,
    control: RunControl,
) -> Option<HashMap<String, String>> {
    let store = ctx.store.try_get_untracked().flatten()?;
    let memory = wb.memory.get_value();
    let outcome = runner::execute(connection, &calls, store, memory.clone(), control, move |r| {
        status.try_set(Some(format!(
            "{} of {} calls done, {} cached, {} failed",
            r.progress.done, r.progress.total, r.cached, r.progress.failed
        )));
    })
    .await;
    match outcome.finish {
        Finish::Completed => {}
        Finish::Cancelled => {
            ctx.error.try_set(Some(
                "the LLM run was cancelled: what had arrived is kept; run again to send the rest"
                    .to_owned(),
            ));
        }
        Finish::Stopped(reason) => {
            ctx.error.try_set(Some(format!("the LLM run stopped: {reason}")));
        }
        _ => {
            ctx.error.try_set(Some("the LLM run ended early".to_owned()));
        }
    }
    let texts = memory.borrow().clone();
    Some(texts)
}

/// The calls of `samples` ideation answers (one request with `n = samples`, split as the
/// provider allows) and the cache key of each sample, in order.
fn ideation_calls(
    study: &Study,
    connection: &Connection,
    samples: u32,
    temperature: Option<f64>,
) -> (Vec<CallSpec>, Vec<String>) {
    let sampling = Sampling { n: samples, temperature, ..Sampling::single() };
    let request =
        sampling.request("coeval/ideation", vec![Message::user(ideation_prompt(&study.info))]);
    let keys: Vec<String> =
        (0..samples).map(|i| cache_key(&connection.endpoint, &request, i)).collect();
    let (request, prompt_keys) = (Arc::new(request), Arc::<[String]>::from(keys.clone()));
    let calls = sample_batches(samples, &connection.caps)
        .into_iter()
        .map(|b| CallSpec {
            request: request.clone(),
            samples: b,
            prompt_keys: prompt_keys.clone(),
        })
        .collect();
    (calls, keys)
}

/// The "LLM" panel: ideate criteria (once, or repeatedly to see which recur), evaluate
/// instances; a run can be paused, resumed and cancelled.
#[component]
pub fn LlmPanel() -> impl IntoView {
    let ctx = use_ctx();
    let wb = LlmAccess::from_context();
    let status = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let paused = RwSignal::new(false);
    let control = StoredValue::new_local(RunControl::new());
    let samples = RwSignal::new(1u32);
    let temperature = RwSignal::new(0.7f64);
    // (number of samples, recurrence) of the last repeated ideation.
    let recurring = RwSignal::new(None::<(usize, Vec<Recurrence>)>);
    let min_samples = RwSignal::new(1usize);
    let connected = move || {
        let f = wb.connection.get();
        !f.model.trim().is_empty() && !f.base_url.trim().is_empty()
    };
    let start = move || {
        let c = RunControl::new();
        control.set_value(c.clone());
        paused.set(false);
        busy.set(true);
        c
    };
    let ideate = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let connection = wb.connection.get_untracked().connection();
        let n = samples.get_untracked().clamp(1, 50);
        // One answer at the provider's default temperature, as the paper; repeated answers
        // need sampling to differ.
        let t = (n > 1).then(|| temperature.get_untracked());
        let (calls, keys) = ideation_calls(&study, &connection, n, t);
        let c = start();
        spawn_local(async move {
            if let Some(texts) = run_calls(wb, ctx, connection, calls, status, c).await {
                let lists: Vec<Vec<String>> =
                    keys.iter().filter_map(|k| texts.get(k)).map(|t| list_items(t)).collect();
                if n == 1 {
                    match lists.into_iter().next() {
                        Some(criteria) if !criteria.is_empty() => {
                            let mut next = (*study).clone();
                            next.criteria = criteria;
                            ctx.replace_study(next);
                            recurring.try_set(None);
                            status.try_set(Some(
                                "Criteria ideated: scrutinise them below.".to_owned(),
                            ));
                        }
                        _ => {
                            ctx.error
                                .try_set(Some("the LLM's answer lists no criteria".to_owned()));
                        }
                    }
                } else if lists.iter().all(Vec::is_empty) {
                    ctx.error.try_set(Some("none of the LLM's answers lists criteria".to_owned()));
                } else {
                    let got = lists.len();
                    min_samples.try_set(got.div_ceil(2));
                    recurring.try_set(Some((got, recurrence(&lists))));
                    status.try_set(Some(format!(
                        "{got} of {n} ideation answers received: see how often each criterion recurs below."
                    )));
                }
            }
            busy.try_set(false);
            paused.try_set(false);
        });
    };
    let use_recurring = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let Some((_, rec)) = recurring.get_untracked() else { return };
        let k = min_samples.get_untracked();
        let chosen: Vec<String> =
            rec.iter().filter(|r| r.samples >= k).map(|r| r.wording.clone()).collect();
        if chosen.is_empty() {
            ctx.error.set(Some(format!("no criterion recurs in {k} or more answers")));
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
        let criteria = super::scrutiny::stage2_criteria(ctx, &study);
        let calls = evaluation_calls(&study, &criteria, &connection);
        if calls.is_empty() {
            status.set(Some(
                "Every instance already has the LLM's evaluation on every criterion.".to_owned(),
            ));
            return;
        }
        let c = start();
        spawn_local(async move {
            let (specs, targets): (Vec<_>, Vec<_>) = calls.into_iter().unzip();
            let keys: Vec<String> = specs.iter().map(|s| s.keys()[0].clone()).collect();
            if let Some(texts) = run_calls(wb, ctx, connection, specs, status, c).await {
                let mut next: Study = (*study).clone();
                let mut n = 0;
                for (key, (instance, criterion)) in keys.iter().zip(targets) {
                    if let Some(text) = texts.get(key) {
                        next.set_evaluation(Evaluation::from_response(&instance, &criterion, text));
                        n += 1;
                    }
                }
                ctx.replace_study(next);
                status.try_set(Some(format!("{n} evaluations received.")));
            }
            busy.try_set(false);
            paused.try_set(false);
        });
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
                let rows = rec.into_iter().map(|r| {
                    let variants = r.variants.join("\n");
                    view! {
                        <tr>
                            <td class="text" title=variants>{r.wording}</td>
                            <td class="num">{r.samples}</td>
                            <td class="num">{format!("{:.0} %", 100.0 * r.share)}</td>
                            <td class="num">{r.variants.len()}</td>
                        </tr>
                    }
                }).collect_view();
                view! {
                    <h3>{format!("How often each criterion recurs in {n} answers")}</h3>
                    <div class="table-wrap">
                        <table class="data" data-testid="ideation-recurrence">
                            <thead><tr>
                                <th scope="col">"criterion (first wording)"</th>
                                <th scope="col" class="num">"answers listing it"</th>
                                <th scope="col" class="num">"share"</th>
                                <th scope="col" class="num">"wordings"</th>
                            </tr></thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
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
