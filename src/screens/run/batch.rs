//! The Run screen's batch mode: submitting the study's unanswered calls through the provider's
//! batch API (half price, answers within 24 hours), keeping each batch in IndexedDB the moment
//! the provider accepts it, checking on pending batches (when the screen opens, every
//! [`POLL_MS`] while any is pending, and on demand), collecting finished ones into the same
//! response cache as interactive calls, cancelling, and the panel that lists them.
//!
//! What to send and how to read the answers is the core's ([`concord_core::run::batch`]);
//! sending and storing is the batch service's ([`crate::run::batch`]); this module decides
//! when and says what happened.

use concord_core::report::count;
use concord_core::run::ProviderId;
use concord_core::run::batch::{
    self, BatchApi, BatchRecord, CollectedSummary, LineRef, batch_line, batch_price,
    failure_causes, fit_under_cap,
};
use concord_core::study::workbench::Study;
use concord_core::study::workbench::probe::Variant;
use concord_core::words;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::edge::store::{Store, StoreName};
use crate::edge::time::{self, FrameBudget};
use crate::run::batch::{self as service, BatchCallError};
use crate::run::runner::{self, Calls, RunControl};
use crate::state::OpenDataset;

use super::state::{RunMode, RunView};
use super::tasks::{
    PlanCalls, Planned, RunContext, pending_keys, plan_run, refresh_results, start_run,
};

/// How often pending batches are checked while the page is open.
pub const POLL_MS: u32 = 30_000;
fn store_of(ctx: RunContext) -> Option<Store> {
    ctx.storage.store.get_untracked()
}

fn note(ctx: RunContext, key: &str, text: impl Into<String>) {
    let text = text.into();
    ctx.run.batch_notes.update(|n| {
        n.insert(key.to_owned(), text);
    });
}

/// Replaces a record in the list by its store key (or adds it).
fn put_record(ctx: RunContext, record: BatchRecord) {
    let key = record.store_key();
    ctx.run.batches.update(|list| match list.iter_mut().find(|r| r.store_key() == key) {
        Some(r) => *r = record,
        None => list.push(record),
    });
}

/// The key for a batch's provider: the one in the form when it is for that provider.
fn key_for(ctx: RunContext, record: &BatchRecord) -> Option<String> {
    let form = ctx.run.connection.get_untracked();
    let key = form.api_key.trim().to_owned();
    (form.provider.slug() == record.provider && !key.is_empty()).then_some(key)
}

/// Why a collected batch's answers are not on the Results table.
#[derive(Debug, Clone, thiserror::Error)]
enum RefreshError {
    #[error(
        "the open study has no methods (the answers wait in the cache for a run of the study they belong to)"
    )]
    NoMethods,
    /// The study could not be planned for the batch's endpoint: what planning said.
    #[error("{0}")]
    NotPlanned(String),
}

/// Reads the batch records kept in this browser and checks the pending ones, then keeps
/// checking every [`POLL_MS`] while any is pending. Called when the Run screen opens; runs once.
pub fn start_watching(ctx: RunContext) {
    if ctx.run.watching.get_value() {
        return;
    }
    let Some(store) = store_of(ctx) else { return };
    ctx.run.watching.set_value(true);
    spawn_local(async move {
        let records = service::load_records(&store).await;
        ctx.run.batches.set(records);
        poll_loop(ctx).await;
    });
}

/// Checks every pending batch now and every [`POLL_MS`] until none is pending.
async fn poll_loop(ctx: RunContext) {
    loop {
        check_all(ctx).await;
        follow_up(ctx);
        let pending = ctx.run.batches.try_with_untracked(|b| b.iter().any(BatchRecord::is_pending));
        if pending != Some(true) {
            break;
        }
        time::sleep(POLL_MS).await;
    }
    ctx.run.watching.try_set_value(false);
    // Batches found since (a new submission) restart the loop.
    if ctx.run.batches.try_with_untracked(|b| b.iter().any(BatchRecord::is_pending)) == Some(true) {
        ctx.run.watching.try_set_value(true);
        spawn_local(Box::pin(poll_loop(ctx)));
    }
}

/// Makes sure pending batches are being checked.
fn ensure_polling(ctx: RunContext) {
    if !ctx.run.watching.get_value() {
        ctx.run.watching.set_value(true);
        spawn_local(poll_loop(ctx));
    }
}

/// Checks every pending batch once.
pub async fn check_all(ctx: RunContext) {
    let keys: Vec<String> = ctx
        .run
        .batches
        .try_with_untracked(|b| {
            b.iter().filter(|r| r.is_pending()).map(BatchRecord::store_key).collect()
        })
        .unwrap_or_default();
    for key in keys {
        check(ctx, &key).await;
    }
}

/// Asks the provider how a batch is doing and collects it once it is over.
pub async fn check(ctx: RunContext, key: &str) {
    let Some(record) =
        ctx.run.batches.with_untracked(|b| b.iter().find(|r| r.store_key() == key).cloned())
    else {
        return;
    };
    if !record.is_pending() || ctx.run.checking.with_value(|c| c.contains(key)) {
        return;
    }
    let Some(store) = store_of(ctx) else { return };
    let Some(api_key) = key_for(ctx, &record) else {
        let name = ProviderId::from_slug(&record.provider)
            .map_or(record.provider.clone(), |p| p.to_string());
        note(
            ctx,
            key,
            format!(
                "Enter the {name} API key above (provider {name}) to check on this batch: the key is not kept with it."
            ),
        );
        return;
    };
    ctx.run.checking.update_value(|c| {
        c.insert(key.to_owned());
    });
    let result = check_inner(ctx, &store, record, &api_key).await;
    ctx.run.checking.update_value(|c| {
        c.remove(key);
    });
    if let Err(message) = result {
        note(ctx, key, message.to_string());
    }
}

async fn check_inner(
    ctx: RunContext,
    store: &Store,
    mut record: BatchRecord,
    api_key: &str,
) -> Result<(), BatchCallError> {
    let key = record.store_key();
    let endpoint = service::endpoint_of(&record);
    if !record.state.phase.is_over() {
        record.state = service::status(record.api, &endpoint, api_key, &record.state.id).await?;
        service::save(store, &record).await;
        put_record(ctx, record.clone());
        if !record.state.phase.is_over() {
            let c = record.state.counts;
            note(
                ctx,
                &key,
                format!(
                    "Checked at {}: {} ({} of {} requests done).",
                    time::local_time(time::now_ms()),
                    record.state.phase.describe(),
                    c.succeeded + c.failed,
                    c.total
                ),
            );
            return Ok(());
        }
    }
    // Over: download the results, store every answer, then mark it collected.
    note(ctx, &key, "Collecting the answers…");
    let files = service::download_results(&record, &endpoint, api_key).await?;
    let collected = batch::collect(record.api, &record.lines, &files, &record.state.phase);
    let memory = ctx.storage.memory.get_value();
    let stored = runner::store_answers(store, &memory, &collected.answers).await;
    record.collected = Some(CollectedSummary {
        at: time::now_ms(),
        answers: collected.answers.len(),
        failures: collected.failures,
        prompt_tokens: collected.usage.prompt_tokens,
        completion_tokens: collected.usage.completion_tokens,
        unreadable: collected.unreadable,
        rejected: collected
            .rejected
            .iter()
            .map(|(p, words)| (p.name().to_owned(), words.clone()))
            .collect(),
    });
    service::save(store, &record).await;
    put_record(ctx, record.clone());
    let mut said = format!("Collected at {}.", time::local_time(time::now_ms()));
    if let Err(n) = stored {
        said.push_str(&format!(" {n} answers could not be saved to this browser's storage (kept in memory for this session)."));
    }
    if let Err(why) = refresh_after(ctx, &record).await {
        said.push_str(&format!(" The Results table does not show them: {why}."));
    }
    let rejected = record.rejected_params();
    if !rejected.is_empty() {
        let names: Vec<&str> = rejected.iter().map(|p| p.name()).collect();
        said.push_str(&format!(
            " The API refused {} in its requests: a re-run of this model is built without {}.",
            names.join(", "),
            if names.len() == 1 { "it" } else { "them" }
        ));
    }
    if batch::queue_full(&record.state.phase) {
        said.push_str(" The model's queue was full (token_limit_exceeded): its requests are submitted again when the batches ahead of it end.");
    }
    note(ctx, &key, said);
    Ok(())
}

/// Submits what a collected batch left for later (the next chunk of its study, or the requests
/// of a batch refused because the model's queue was full) once no batch of its model is
/// pending: one batch at a time. Only for the open study the batch was made from.
fn follow_up(ctx: RunContext) {
    let next = ctx.run.batches.with_untracked(|all| {
        let busy = |r: &BatchRecord| {
            all.iter().any(|o| o.is_pending() && o.provider == r.provider && o.model == r.model)
        };
        all.iter()
            .find(|r| {
                r.collected.is_some()
                    && (r.follow_up || batch::queue_full(&r.state.phase))
                    && !busy(r)
            })
            .cloned()
    });
    let Some(mut record) = next else { return };
    // While a run or a submission is under way the follow-up waits for the next check (it is
    // not consumed: a queue-full batch checked while its own submission was finishing was
    // otherwise left for the user to submit by hand).
    if ctx.run.view.with_untracked(|v| v.running) {
        return;
    }
    record.follow_up = false;
    // A queue-full batch is followed once: its record no longer asks for it.
    if batch::queue_full(&record.state.phase) {
        record.state.phase = batch::BatchPhase::Failed {
            reason: "the model's queue was full: its requests were submitted again".into(),
        };
    }
    let key = record.store_key();
    if let Some(store) = store_of(ctx) {
        let r = record.clone();
        spawn_local(async move {
            service::save(&store, &r).await;
        });
    }
    put_record(ctx, record.clone());
    let (dataset, study) = (ctx.ws.dataset.get_untracked(), ctx.judge.study.get_untracked());
    let label = format!(
        "{} × {} on {}",
        count(study.methods.len(), "method", "methods"),
        count(study.attributes.len(), "attribute", "attributes"),
        dataset.loaded.dataset.name
    );
    if label != record.label || ctx.run.view.with_untracked(|v| v.running) {
        note(
            ctx,
            &key,
            "Requests of this study wait to be submitted: open its study and press Submit batch.",
        );
        return;
    }
    use_endpoint_of(ctx, &record);
    let probe = record.probe.as_deref().and_then(Variant::from_name);
    submit(ctx, dataset, study, probe);
}

/// Puts a collected batch's answers on the Results table: the open study, planned for the
/// batch's endpoint, collected from the cache (what other studies' answers it holds waits in
/// the cache for a run of them). `Err` says why the table could not show them.
async fn refresh_after(ctx: RunContext, record: &BatchRecord) -> Result<(), RefreshError> {
    let dataset = ctx.ws.dataset.get_untracked();
    let study = ctx.judge.study.get_untracked();
    if study.methods.is_empty() {
        return Err(RefreshError::NoMethods);
    }
    let endpoint = service::key_endpoint_of(record);
    let probe = record.probe.as_deref().and_then(Variant::from_name);
    let planned = plan_run(
        ctx,
        dataset.loaded.clone(),
        &study,
        probe,
        &endpoint,
        record.item_limit,
        &RunControl::new(),
        false,
    )
    .await;
    match planned {
        Ok(Planned { loaded, study, origin, plan }) => {
            refresh_results(ctx, loaded, study, endpoint, plan, origin).await;
            Ok(())
        }
        Err(view) => {
            Err(RefreshError::NotPlanned(view.error.or(view.finished).unwrap_or_default()))
        }
    }
}

/// Cancels a running batch (what it answered before is collected).
pub fn cancel(ctx: RunContext, key: String) {
    let Some(record) =
        ctx.run.batches.with_untracked(|b| b.iter().find(|r| r.store_key() == key).cloned())
    else {
        return;
    };
    let Some(api_key) = key_for(ctx, &record) else {
        note(ctx, &key, "Enter the provider's API key above to cancel this batch.");
        return;
    };
    spawn_local(async move {
        let endpoint = service::endpoint_of(&record);
        let result = service::cancel(record.api, &endpoint, &api_key, &record.state.id).await;
        match result {
            Ok(state) => {
                let mut record = record;
                record.state = state;
                if let Some(store) = store_of(ctx) {
                    service::save(&store, &record).await;
                }
                put_record(ctx, record);
                note(
                    ctx,
                    &key,
                    "Cancel requested: what the provider answered before is collected when it has stopped.",
                );
                check(ctx, &key).await;
            }
            Err(e) => note(ctx, &key, format!("Cancelling failed: {e}")),
        }
    });
}

/// Forgets a collected batch (its answers stay in the cache).
pub fn forget(ctx: RunContext, key: String) {
    ctx.run.batches.update(|b| b.retain(|r| r.store_key() != key));
    ctx.run.batch_notes.update(|n| {
        n.remove(&key);
    });
    if let Some(store) = store_of(ctx) {
        spawn_local(async move {
            let _ = store.delete(StoreName::Runs, &key).await;
        });
    }
}

/// Sets the connection form to a batch's provider, address and model (keeping the key when the
/// provider is the same), so a re-run asks the same endpoint for the same answers.
fn use_endpoint_of(ctx: RunContext, record: &BatchRecord) {
    let provider = ProviderId::from_slug(&record.provider).unwrap_or(ProviderId::Custom);
    ctx.run.connection.update(|c| {
        if c.provider != provider {
            c.api_key.clear();
        }
        c.provider = provider;
        c.base_url = record.base_url.clone();
        c.model = record.model.clone();
        c.item_limit = record.item_limit;
        c.proxy = record.proxy;
    });
}

/// Re-runs what a batch left unanswered: interactively, or as a new batch.
pub fn rerun(ctx: RunContext, key: String, mode: RunMode) {
    let Some(record) =
        ctx.run.batches.with_untracked(|b| b.iter().find(|r| r.store_key() == key).cloned())
    else {
        return;
    };
    use_endpoint_of(ctx, &record);
    let probe = record.probe.as_deref().and_then(Variant::from_name);
    ctx.run.probe.set(probe);
    ctx.run.mode.set(mode);
    let (dataset, study) = (ctx.ws.dataset.get_untracked(), ctx.judge.study.get_untracked());
    match mode {
        RunMode::Interactive => start_run(ctx, dataset, study, probe),
        RunMode::Batch => submit(ctx, dataset, study, probe),
    }
}

/// Submits the open study's calls that are neither answered nor in a pending batch as provider
/// batches (split under the provider's limits, held to the spend cap at the batch price). Each
/// batch is kept the moment the provider accepts it.
pub fn submit(ctx: RunContext, dataset: OpenDataset, study: Study, probe: Option<Variant>) {
    let form = ctx.run.connection.get_untracked();
    let mut connection = form.connection();
    // What a check of this model found refused is never sent.
    connection.caps = super::state::planned_caps(ctx.run, form.provider, &form.model);
    let Some(api) = BatchApi::for_provider(form.provider) else {
        ctx.run
            .view
            .set(RunView { error: Some(batch::no_batch_api(form.provider)), ..RunView::default() });
        return;
    };
    if let Some(refused) = super::tasks::cap_without_price(&form) {
        ctx.run.view.set(refused);
        return;
    }
    let Some(store) = store_of(ctx) else {
        ctx.run.view.set(RunView {
            error: Some("Storage is not open yet: try again in a moment.".into()),
            ..RunView::default()
        });
        return;
    };
    let control = RunControl::new();
    ctx.run.control.set_value(control.clone());
    ctx.run.view.set(RunView {
        running: true,
        planning: Some("Planning the batch…".into()),
        ..RunView::default()
    });
    let loaded = dataset.loaded.clone();
    spawn_local(async move {
        let endpoint = connection.endpoint.clone();
        // Keys name the provider, not a proxy's address.
        let key_endpoint = form.key_endpoint();
        let planned = match plan_run(
            ctx,
            loaded.clone(),
            &study,
            probe,
            &key_endpoint,
            form.item_limit,
            &control,
            true,
        )
        .await
        {
            Ok(p) => p,
            Err(view) => {
                ctx.run.view.set(view);
                return;
            }
        };
        ctx.run.view.update(|v| v.planning = Some("Looking up stored answers…".into()));
        let calls = PlanCalls {
            loaded: planned.loaded.clone(),
            study: planned.study.clone(),
            plan: planned.plan.clone(),
        };
        let memory = ctx.storage.memory.get_value();
        let (todo, cached) = runner::uncached_calls(&calls, &store, &memory).await;
        let pending = pending_keys(&ctx.run.batches.get_untracked());
        let mut lines = Vec::new();
        let mut in_batches = 0;
        let mut budget = FrameBudget::new();
        for call in todo {
            let keys = calls.keys(call);
            if keys.iter().any(|k| pending.contains(k)) {
                in_batches += 1;
                continue;
            }
            let Some(request) = calls.request(call) else { continue };
            match batch_line(
                &endpoint,
                &connection.caps,
                &request,
                calls.batch(call),
                &keys,
                &connection.api_key,
            ) {
                Ok(line) => lines.push(line),
                Err(e) => {
                    ctx.run.view.set(RunView {
                        error: Some(format!("The batch could not be built: {e}.")),
                        ..RunView::default()
                    });
                    return;
                }
            }
            budget.tick().await;
        }
        let skipped = format!("{cached} already answered, {in_batches} waiting in a pending batch");
        if lines.is_empty() {
            ctx.run.view.set(RunView {
                finished: Some(format!(
                    "Nothing to submit: every request is answered or on its way ({skipped})."
                )),
                ..RunView::default()
            });
            return;
        }
        // Two calls with the same first cache key would repeat a custom id: one answer fills
        // both, and a repeated custom id makes the provider refuse the whole batch.
        let (mut lines, repeats) = batch::dedupe(lines);
        let wanted = lines.len();
        let mut capped = String::new();
        if let (Some(cap), Some(price)) = (connection.spend_cap_usd, connection.price) {
            let fit = fit_under_cap(&lines, price, cap);
            if fit < wanted {
                lines.truncate(fit);
                capped = format!(
                    " Only {fit} of {wanted} requests were submitted: the rest would pass the spend cap of ${cap:.2} at the batch price."
                );
            }
            if fit == 0 {
                ctx.run.view.set(RunView { error: Some(format!("Nothing submitted: one request may cost more than the spend cap of ${cap:.2} at the batch price.")), ..RunView::default() });
                return;
            }
        }
        let label = format!(
            "{} × {} on {}",
            count(study.methods.len(), "method", "methods"),
            count(study.attributes.len(), "attribute", "attributes"),
            loaded.dataset.name
        );
        let mut chunks = batch::split(api, lines, api.limits());
        // One batch at a time: the provider limits what a model may have enqueued (OpenAI's
        // `token_limit_exceeded`), so the next chunk goes once this one is collected.
        let later: usize = chunks.iter().skip(1).map(Vec::len).sum();
        chunks.truncate(1);
        let (total_batches, total_lines) =
            (chunks.len(), chunks.iter().map(Vec::len).sum::<usize>());
        let mut submitted = 0;
        for (i, chunk) in chunks.into_iter().enumerate() {
            ctx.run.view.update(|v| {
                v.planning = Some(format!(
                    "Submitting batch {} of {total_batches} ({} requests) to {}…",
                    i + 1,
                    chunk.len(),
                    api.name()
                ))
            });
            match service::submit(api, &endpoint, &connection.api_key, &chunk).await {
                Ok(state) => {
                    let record = BatchRecord {
                        api,
                        provider: form.provider.slug().to_owned(),
                        base_url: concord_core::bundle::public_url(&form.base_url),
                        model: endpoint.model.clone(),
                        submitted_at: time::now_ms(),
                        label: label.clone(),
                        item_limit: form.item_limit,
                        probe: probe.map(|v| v.name().to_owned()),
                        lines: chunk.iter().map(LineRef::from).collect(),
                        reserved_usd: connection.price.map(|p| {
                            chunk.iter().map(|l| batch_price(p).reserve_usd(l.size)).sum()
                        }),
                        state,
                        collected: None,
                        follow_up: later > 0,
                        proxy: form.proxy,
                    };
                    // Kept the moment the provider accepts it.
                    let kept = service::save(&store, &record).await;
                    if !kept {
                        note(
                            ctx,
                            &record.store_key(),
                            "This batch could not be saved to this browser's storage: it is known to this page only until it is closed.",
                        );
                    }
                    put_record(ctx, record);
                    submitted += chunk.len();
                }
                Err(e) => {
                    if submitted > 0 {
                        flush_workspace(ctx).await;
                    }
                    let done = if submitted > 0 {
                        format!(
                            " {submitted} requests were submitted before (listed under Batches)."
                        )
                    } else {
                        String::new()
                    };
                    ctx.run.view.set(RunView {
                        error: Some(format!(
                            "Submitting to {}'s batch API failed: {e}.{done}",
                            api.name()
                        )),
                        ..RunView::default()
                    });
                    ensure_polling(ctx);
                    return;
                }
            }
        }
        // The study the answers belong to is saved now, not after the usual pause: a page
        // closed at once must find it when it collects them.
        flush_workspace(ctx).await;
        let repeated = if repeats > 0 {
            format!(
                " {} shared another's first sample (one answer fills both).",
                count(repeats, "request", "requests")
            )
        } else {
            String::new()
        };
        let queued = if later > 0 {
            format!(
                " {} wait: they are submitted when this batch is collected (one batch at a time, under the model's enqueued-token limit).",
                count(later, "more request", "more requests")
            )
        } else {
            String::new()
        };
        ctx.run.view.set(RunView {
            finished: Some(format!(
                "Submitted {} ({}) to {} at half price. Not sent again: {skipped}.{repeated}{capped}{queued} They are listed under Batches and collected when they end — you can close this page and come back.",
                count(total_batches, "batch", "batches"),
                count(total_lines, "request", "requests"),
                api.name()
            )),
            ..RunView::default()
        });
        ensure_polling(ctx);
    });
}

/// Saves the workspace now (the study submitted batches belong to).
async fn flush_workspace(ctx: RunContext) {
    if let Some(t) = ctx.targets
        && t.saved.ready.get_untracked()
    {
        crate::persist::workspaces::flush(t, t.saved).await;
    }
}

/// A batch's state in words.
fn status_text(record: &BatchRecord) -> String {
    let c = record.state.counts;
    match &record.collected {
        Some(done) => format!(
            "{} · collected: {} stored, {} without an answer",
            record.state.phase.describe(),
            count(done.answers, "answer", "answers"),
            count(done.failures.len(), "request", "requests"),
        ),
        None if record.state.phase.is_over() => {
            format!("{} · not collected yet", record.state.phase.describe())
        }
        None => format!(
            "{} · {} of {} requests done",
            record.state.phase.describe(),
            c.succeeded + c.failed,
            c.total.max(record.lines.len() as u64)
        ),
    }
}

/// The batches submitted from this browser, with what each cost and saved, its failures, and
/// what can be done about them.
#[component]
pub fn BatchesPanel() -> impl IntoView {
    let ctx = RunContext::from_context();
    Effect::new(move |_| {
        if ctx.storage.store.get().is_some() {
            start_watching(ctx);
        }
    });
    let checking = RwSignal::new(false);
    let check_now = move |_| {
        checking.set(true);
        spawn_local(async move {
            check_all(ctx).await;
            checking.try_set(false);
            ensure_polling(ctx);
        });
    };
    let totals = move || {
        let form = ctx.run.connection.get();
        let (mut spent, mut saved, mut unpriced) = (0.0, 0.0, 0);
        for r in ctx.run.batches.get().iter().filter(|r| r.collected.is_some()) {
            let provider = ProviderId::from_slug(&r.provider).unwrap_or(ProviderId::Custom);
            match r.cost(form.price_of(provider, &r.model)) {
                Some((b, full)) => {
                    spent += b;
                    saved += full - b;
                }
                None => unpriced += 1,
            }
        }
        let collected =
            ctx.run.batches.with(|b| b.iter().filter(|r| r.collected.is_some()).count());
        if collected == 0 {
            return String::new();
        }
        if unpriced == collected {
            return "What the collected batches cost is unknown: their models have no price (enter one under Limits and price).".to_owned();
        }
        let unpriced = if unpriced > 0 {
            format!(" ({} without a price not counted)", count(unpriced, "batch", "batches"))
        } else {
            String::new()
        };
        // Rounded together, as each batch's own line is, so the sums agree with the lines.
        let (spent, _, saved) = words::usd_difference(spent, spent + saved);
        format!(
            "Collected batches spent {spent} at batch prices and saved {saved} against interactive calls{unpriced}."
        )
    };
    view! {
        <Show when=move || ctx.run.batches.with(|b| !b.is_empty())>
            <section class="panel" aria-labelledby="batches-heading" data-testid="batches">
                <h2 id="batches-heading">"Batches"</h2>
                <p class="muted">{format!("Batches submitted from this browser, kept in its storage (never the key). Pending ones are checked when this screen opens and every {} s while the page is open; their answers go into the response cache like any other.", POLL_MS / 1000)}</p>
                <div class="row">
                    <button type="button" class="secondary" on:click=check_now disabled=move || checking.get()>"Check now"</button>
                    <span data-testid="batch-totals">{totals}</span>
                </div>
                <ul class="batch-list">
                    {move || ctx.run.batches.get().into_iter().rev().map(|r| batch_item(ctx, r)).collect_view()}
                </ul>
            </section>
        </Show>
    }
}

fn batch_item(ctx: RunContext, r: BatchRecord) -> impl IntoView {
    let key = r.store_key();
    let note_key = key.clone();
    let provider = ProviderId::from_slug(&r.provider).map_or(r.provider.clone(), |p| p.to_string());
    let samples: usize = r.lines.iter().map(|l| l.keys.len()).sum();
    let head = format!(
        "{} · {provider} · {} · {} · {} ({} samples) · submitted {}",
        r.state.id,
        r.model,
        r.label,
        count(r.lines.len(), "request", "requests"),
        samples,
        time::local_time(r.submitted_at)
    );
    let form = ctx.run.connection.get_untracked();
    let price = ProviderId::from_slug(&r.provider).and_then(|p| form.price_of(p, &r.model));
    let cost = match (&r.collected, r.cost(price)) {
        (Some(_), Some((b, full))) => {
            let (spent, interactive, saved) = words::usd_difference(b, full);
            Some(format!(
                "Spent {spent} at the batch price (the tokens the provider reported); the same answers interactively: {interactive} (saved {saved})."
            ))
        }
        (Some(_), None) => Some(
            "Cost unknown: this model has no price (enter one under Limits and price).".to_owned(),
        ),
        (None, _) => r.reserved_usd.map(|u| {
            format!(
                "At most {} at the batch price (every request's whole token limit).",
                words::usd(u)
            )
        }),
    };
    let failures = r.collected.as_ref().map(|c| failure_causes(&c.failures)).unwrap_or_default();
    let unreadable = r.collected.as_ref().map(|c| c.unreadable.clone()).unwrap_or_default();
    let rejected = r.collected.as_ref().map(|c| c.rejected.clone()).unwrap_or_default();
    let running = !r.state.phase.is_over();
    let collected = r.collected.is_some();
    let has_failures = !failures.is_empty();
    let (k1, k2, k3, k4) = (key.clone(), key.clone(), key.clone(), key);
    view! {
        <li data-testid="batch">
            <p><strong>{head}</strong></p>
            <p data-testid="batch-status" role="status">{status_text(&r)}</p>
            {cost.map(|c| view! { <p class="muted" data-testid="batch-cost">{c}</p> })}
            {move || ctx.run.batch_notes.with(|n| n.get(&note_key).cloned()).map(|n| view! { <p class="notice-line" data-testid="batch-note">{n}</p> })}
            {has_failures.then(|| view! {
                <div class="warn-box" data-testid="batch-failures">
                    <p>"Requests without an answer, by cause (re-running sends only these; nothing answered is paid twice):"</p>
                    <ul>{failures.into_iter().map(|(cause, n)| view! { <li>{format!("{cause} — {n}")}</li> }).collect_view()}</ul>
                </div>
            })}
            {(!unreadable.is_empty()).then(|| view! { <p class="warn-box">{format!("Result lines that could not be read: {}", unreadable.join("; "))}</p> })}
            {(!rejected.is_empty()).then(|| view! { <p class="warn-box" data-testid="batch-rejected">{format!(
                "The API refused {} — a re-run of this model is built without it (its words: {}).",
                rejected.iter().map(|(p, _)| format!("`{p}`")).collect::<Vec<_>>().join(", "),
                rejected.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join("; ")
            )}</p> })}
            <div class="row">
                {running.then(|| view! { <button type="button" class="secondary" on:click=move |_| cancel(ctx, k1.clone())>"Cancel batch"</button> })}
                {(collected && has_failures).then(|| view! {
                    <button type="button" class="secondary" on:click=move |_| rerun(ctx, k2.clone(), RunMode::Interactive)>"Re-run failed interactively"</button>
                    <button type="button" class="secondary" on:click=move |_| rerun(ctx, k3.clone(), RunMode::Batch)>"Re-run failed as a new batch"</button>
                })}
                {collected.then(|| view! { <button type="button" class="secondary" on:click=move |_| forget(ctx, k4.clone())>"Forget"</button> })}
            </div>
        </li>
    }
}
