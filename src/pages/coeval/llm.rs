//! The LLM runs of CoEval through the browser run engine ([`crate::runner`]): criteria
//! ideation (seed 004 §3.1) and per-criterion instance evaluation (§3.2), with the connection
//! set on the Run screen. Every answer is cached in IndexedDB by the runner, so running again
//! costs nothing; the parsed results go into the study (and are saved with it).

use std::collections::HashMap;

use concord_core::judge::coeval::{evaluation_prompt, ideation_prompt};
use concord_core::judge::meta_eval::list_items;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::{ChatRequest, Message};
use concord_core::run::{Finish, SampleBatch, cache_key};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::model::{Evaluation, Stage2Criterion, Study};
use super::{Ctx, use_ctx};
use crate::runner::{self, CallSpec, Connection, RunControl};
use crate::state::Workbench;

fn call(connection: &Connection, request: ChatRequest) -> CallSpec {
    let key = cache_key(&connection.endpoint, &request, 0);
    CallSpec { request, samples: SampleBatch { first: 0, count: 1 }, keys: vec![key] }
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
    wb: Workbench,
    ctx: Ctx,
    connection: Connection,
    calls: Vec<CallSpec>,
    status: RwSignal<Option<String>>,
) -> Option<HashMap<String, String>> {
    let store = ctx.store.get_untracked()?;
    let memory = wb.memory.get_value();
    let control = RunControl::new();
    let outcome = runner::execute(connection, calls, store, memory.clone(), control, move |r| {
        status.try_set(Some(format!(
            "{} of {} calls done, {} cached, {} failed",
            r.progress.done, r.progress.total, r.cached, r.progress.failed
        )));
    })
    .await;
    match outcome.finish {
        Finish::Completed => {}
        Finish::Cancelled => {
            ctx.error.try_set(Some("the LLM run was cancelled".to_owned()));
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

/// The "LLM" panel: ideate criteria, evaluate instances.
#[component]
pub fn LlmPanel() -> impl IntoView {
    let ctx = use_ctx();
    let wb = expect_context::<Workbench>();
    let status = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let connected = move || {
        let f = wb.connection.get();
        !f.model.trim().is_empty() && !f.base_url.trim().is_empty()
    };
    let ideate = move |_| {
        let Some(study) = ctx.study.get_untracked() else { return };
        let connection = wb.connection.get_untracked().connection();
        let request = Sampling::single()
            .request("coeval/ideation", vec![Message::user(ideation_prompt(&study.info))]);
        let spec = call(&connection, request);
        let key = spec.keys[0].clone();
        busy.set(true);
        spawn_local(async move {
            if let Some(texts) = run_calls(wb, ctx, connection, vec![spec], status).await {
                match texts.get(&key).map(|t| list_items(t)) {
                    Some(criteria) if !criteria.is_empty() => {
                        let mut next = (*study).clone();
                        next.criteria = criteria;
                        ctx.replace_study(next);
                        status.try_set(Some("Criteria ideated: scrutinise them below.".to_owned()));
                    }
                    _ => {
                        ctx.error.try_set(Some("the LLM's answer lists no criteria".to_owned()));
                    }
                }
            }
            busy.try_set(false);
        });
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
        busy.set(true);
        spawn_local(async move {
            let (specs, targets): (Vec<_>, Vec<_>) = calls.into_iter().unzip();
            let keys: Vec<String> = specs.iter().map(|s| s.keys[0].clone()).collect();
            if let Some(texts) = run_calls(wb, ctx, connection, specs, status).await {
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
        });
    };
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
                <button class="secondary" type="button" disabled=move || busy.get() || !connected() || ctx.study.get().is_none()
                    on:click=ideate>"Ideate criteria with the LLM"</button>
                <button class="secondary" type="button" disabled=move || busy.get() || !connected() || ctx.study.get().is_none()
                    on:click=evaluate>"Evaluate instances with the LLM"</button>
                <span role="status" data-testid="llm-status">{move || status.get().unwrap_or_default()}</span>
            </div>
        </section>
    }
}
