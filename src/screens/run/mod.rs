//! The Run screen: provider, base URL, model and key (memory only unless the user opts in),
//! Check this model (see [`check`]), limits, a cost estimate, start / pause / resume / cancel, progress, the
//! run log, errors with what to do, resuming an interrupted run, batch mode (half price,
//! answers within 24 hours) with the submitted batches, and the response cache. Its state is in
//! [`state`], its async work (planning, the run, the manifest) in [`tasks`], batch mode in
//! [`batch`].

pub mod batch;
pub mod check;
pub mod state;
pub mod tasks;

use concord_core::report::count;
use concord_core::run::batch::{BatchApi, batch_price, no_batch_api};
use concord_core::run::tokens::Encoding;
use concord_core::run::{Capabilities, PRESETS, Price, ProviderId};
use concord_core::study::workbench::checks::prompt_warnings;
use concord_core::study::workbench::default_study;
use concord_core::study::workbench::plan::{
    CountedPrompts, EstimateGroup, estimate_groups, estimate_inputs,
};
use concord_core::study::workbench::probe::{Variant, variant_dataset, variant_study};
use concord_core::study::workbench::study::{short_budget_warning, short_budgets};
use concord_core::words;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::edge::store::StoreName;
use crate::edge::time;
use crate::state::{OpenDataset, Screen};

use state::{ConnectionForm, Counting, RunMode, RunView, price_key};
use tasks::{
    Manifest, RunContext, clear_manifest, items_of, load_manifest, remember_key, save_prices,
    start_run,
};

#[component]
pub fn RunScreen() -> impl IntoView {
    // A dataset brought straight here, the Judge screen never opened, runs the study that
    // screen suggests (`default_study`), not nothing.
    let ctx = RunContext::from_context();
    Effect::new(move |_| {
        ctx.ws.dataset.track();
        let empty =
            ctx.judge.study.with_untracked(|s| s.attributes.is_empty() && s.methods.is_empty());
        if empty {
            let study = ctx.ws.dataset.with_untracked(|d| default_study(&d.loaded.dataset));
            ctx.judge.study.set(study);
        }
    });
    view! {
        <ResumePanel/>
        <ProviderPanel/>
        <LaunchPanel/>
        <batch::BatchesPanel/>
        <CachePanel/>
    }
}

/// Offers to resume a run a reload or a closed tab interrupted.
#[component]
fn ResumePanel() -> impl IntoView {
    let ctx = RunContext::from_context();
    let pending = RwSignal::new(None::<Manifest<'static>>);
    Effect::new(move |_| {
        if let Some(store) = ctx.storage.store.get() {
            spawn_local(async move {
                let manifest = load_manifest(&store).await;
                if !ctx.run.view.get_untracked().running {
                    pending.try_set(manifest);
                }
            });
        }
    });
    let resume = move |_| {
        let Some(m) = pending.get_untracked() else { return };
        let provider = ProviderId::from_slug(&m.provider).unwrap_or(ProviderId::Custom);
        ctx.run.connection.update(|c| {
            c.provider = provider;
            c.base_url = m.base_url.clone();
            c.model = m.model.clone();
            c.item_limit = m.item_limit;
            c.max_concurrency = m.max_concurrency;
            c.requests_per_minute = m.requests_per_minute;
        });
        // The dataset's own format, so what is written next (a bundle) says what it was.
        let format = concord_core::data::Format::from_name(&m.format)
            .unwrap_or(concord_core::data::Format::Csv);
        let loaded = concord_core::data::Loaded {
            summary: concord_core::data::summarize(format, &m.dataset, &[]),
            format,
            dataset: m.dataset.into_owned(),
            runs: Vec::new(),
            mapping: None,
            columns: Vec::new(),
            diagnostics: Vec::new(),
        };
        let open = OpenDataset::new(loaded);
        ctx.ws.dataset.set(open.clone());
        let study = m.study.into_owned();
        ctx.judge.study.set(study.clone());
        ctx.run.overflowed.set_value((m.model.trim().to_owned(), m.overflowed.clone()));
        ctx.run.probe.set(m.probe);
        pending.set(None);
        // A run that sent a key needs one again (a custom server may check keys although its
        // preset does not ask for one): nothing is sent until it is given.
        let needs_key = (provider.preset().needs_key || m.had_key)
            && ctx.run.connection.get_untracked().api_key.trim().is_empty();
        if needs_key {
            ctx.run.view.set(RunView { error: Some("Enter the API key below, then press Run to resume: stored answers are not requested again.".into()), ..RunView::default() });
        } else {
            start_run(ctx, open, study, m.probe);
        }
    };
    view! {
        <Show when=move || pending.get().is_some()>
            <section class="panel notice" role="region" aria-label="Interrupted run" data-testid="resume-panel">
                <h2>"A run was interrupted"</h2>
                <p>{move || pending.get().map(|m| format!(
                    "{} × {} on {} with {} — answers already stored will not be requested again.",
                    count(m.study.methods.len(), "method", "methods"), count(m.study.attributes.len(), "attribute", "attributes"), m.dataset.name, m.model))}</p>
                <div class="row">
                    <button class="primary" type="button" on:click=resume>"Resume run"</button>
                    <button class="secondary" type="button" on:click=move |_| {
                        pending.set(None);
                        if let Some(store) = ctx.storage.store.get_untracked() {
                            spawn_local(async move { clear_manifest(&store).await; });
                        }
                    }>"Discard"</button>
                </div>
            </section>
        </Show>
    }
}

#[component]
fn ProviderPanel() -> impl IntoView {
    let ctx = RunContext::from_context();
    let models = RwSignal::new(Vec::<String>::new());
    let form = move || ctx.run.connection.get();
    let set = move |f: &dyn Fn(&mut ConnectionForm)| ctx.run.connection.update(|c| f(c));
    // A price entered for the model (the other half from the price list, or 0); an emptied
    // field forgets the entered price.
    let set_price = move |text: &str, input: bool| {
        ctx.run.connection.update(|c| {
            let key = price_key(c.provider, &c.model);
            match text.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0) {
                None => {
                    c.prices.remove(&key);
                }
                Some(v) => {
                    let mut p =
                        c.entered_price().or_else(|| c.table_price()).unwrap_or(Price::ZERO);
                    if input {
                        p.input_per_million = v;
                    } else {
                        p.output_per_million = v;
                    }
                    c.prices.insert(key, p);
                }
            }
            save_prices(&c.prices);
        });
    };
    let on_provider = move |ev: leptos::ev::Event| {
        let slug = event_target_value(&ev);
        if let Some(id) = ProviderId::from_slug(&slug) {
            ctx.run.connection.update(|c| {
                c.provider = id;
                c.base_url = id.preset().base_url.to_owned();
            });
        }
    };
    view! {
        <section class="panel" aria-labelledby="provider-heading">
            <h2 id="provider-heading">"Provider"</h2>
            <div class="form-grid">
                <label for="provider">"Provider"</label>
                <select id="provider" on:change=on_provider>
                    {PRESETS.iter().map(|p| view! {
                        <option value=p.slug selected=move || form().provider == p.id>{p.name}</option>
                    }).collect_view()}
                </select>
                <label for="base-url">"Base URL"</label>
                <input id="base-url" type="url" prop:value=move || form().base_url
                    on:change=move |ev| { let v = event_target_value(&ev); set(&|c| c.base_url = v.clone()) }/>
                <span></span>
                <label class="check" data-testid="proxy-choice">
                    <input type="checkbox" prop:checked=move || form().proxy
                        on:change=move |ev| { let on = event_target_checked(&ev); set(&|c| c.proxy = on) }/>
                    {move || format!("This address is a proxy for {}'s API (answers are stored under {}, so they serve runs made either way)", form().provider, form().provider.preset().base_url)}
                </label>
                <label for="model">"Model"</label>
                <input id="model" type="text" list="model-list" autocomplete="off" prop:value=move || form().model
                    on:change=move |ev| { let v = event_target_value(&ev); set(&|c| c.model = v.clone()) }/>
                <datalist id="model-list">{move || models.get().into_iter().map(|m| view! { <option value=m/> }).collect_view()}</datalist>
                <label for="api-key" class="key-label">"API key"</label>
                <div class="row key-row">
                    <input id="api-key" type="password" autocomplete="off" spellcheck="false"
                        placeholder=move || if form().provider.preset().needs_key { "needed for this provider" } else { "not needed for local servers" }
                        prop:value=move || form().api_key
                        on:change=move |ev| {
                            let v = event_target_value(&ev);
                            set(&|c| c.api_key = v.clone());
                            let f = ctx.run.connection.get_untracked();
                            if f.remember { remember_key(true, &f.api_key) }
                        }/>
                    <label class="check">
                        <input type="checkbox" prop:checked=move || form().remember
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                set(&|c| c.remember = on);
                                remember_key(on, &ctx.run.connection.get_untracked().api_key);
                            }/>
                        "Remember on this device"
                    </label>
                    <button type="button" class="secondary" on:click=move |_| {
                        set(&|c| { c.api_key.clear(); c.remember = false; });
                        remember_key(false, "");
                    }>"Forget key"</button>
                </div>
            </div>
            <p class="muted">"The key stays in this page's memory and goes only to the provider. It is never written to storage, exports or the address bar unless you tick “Remember on this device” (then it is kept in this browser's local storage until you press Forget key)."</p>
            <check::CheckModel models=models/>
            <details>
                <summary>"Limits and price"</summary>
                <p class="muted" data-testid="price-date">{price_list_note()}</p>
                <div class="form-grid">
                    <label for="concurrency">"Parallel requests"</label>
                    <input id="concurrency" type="number" min="1" max="64" prop:value=move || form().max_concurrency.to_string()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(6); set(&|c| c.max_concurrency = v) }/>
                    <label for="rpm">"Requests per minute"</label>
                    <input id="rpm" type="number" min="1" placeholder="no limit" prop:value=move || form().requests_per_minute.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.requests_per_minute = v) }/>
                    <label for="spend-cap">"Spend cap (USD)"</label>
                    <input id="spend-cap" type="number" min="0" step="0.01" placeholder="none" prop:value=move || form().spend_cap_usd.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.spend_cap_usd = v) }/>
                    <label for="price-in">"Input $ / M tokens"</label>
                    <input id="price-in" type="number" min="0" step="any" data-testid="price-input"
                        prop:placeholder=move || price_placeholder(form().table_price().map(|p| p.input_per_million))
                        prop:value=move || form().entered_price().map(|p| p.input_per_million.to_string()).unwrap_or_default()
                        on:change=move |ev| set_price(&event_target_value(&ev), true)/>
                    <label for="price-out">"Output $ / M tokens"</label>
                    <input id="price-out" type="number" min="0" step="any" data-testid="price-output"
                        prop:placeholder=move || price_placeholder(form().table_price().map(|p| p.output_per_million))
                        prop:value=move || form().entered_price().map(|p| p.output_per_million.to_string()).unwrap_or_default()
                        on:change=move |ev| set_price(&event_target_value(&ev), false)/>
                    <label for="timeout">"Timeout per request (s)"</label>
                    <input id="timeout" type="number" min="5" prop:value=move || form().timeout_s.to_string()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().unwrap_or(120); set(&|c| c.timeout_s = v) }/>
                    <label for="item-limit">"Rate only the first N items"</label>
                    <input id="item-limit" type="number" min="1" placeholder="all" prop:value=move || form().item_limit.map(|v| v.to_string()).unwrap_or_default()
                        on:change=move |ev| { let v = event_target_value(&ev).parse().ok(); set(&|c| c.item_limit = v) }/>
                </div>
            </details>
        </section>
    }
}

/// What an estimate is computed from: the study's prompts (a probe's on what it sends), the
/// model's encoding when one is known, and the price.
#[derive(Clone, PartialEq)]
struct EstimateSetup {
    groups: Vec<EstimateGroup>,
    encoding: Option<Encoding>,
    caps: Capabilities,
    price: Option<Price>,
    batch: bool,
}

/// The counts of every group's prompts under `encoding`, when all are known.
fn counted_prompts(
    counts: &std::collections::HashMap<(Encoding, String), u64>,
    encoding: Encoding,
    groups: &[EstimateGroup],
) -> Option<CountedPrompts> {
    let tokens = groups
        .iter()
        .map(|g| g.prompts.iter().map(|p| counts.get(&(encoding, p.clone())).copied()).collect())
        .collect::<Option<Vec<Vec<u64>>>>()?;
    Some(CountedPrompts { encoding, tokens })
}

/// The estimate before a run, in words (the numbers are the core's
/// [`estimate_groups`]); in batch mode at the batch price, with what it saves. Input tokens
/// are counted with the model's encoding once its counts are in, approximate until then and
/// for models without a known tokenizer — and the text says which.
fn estimate_text(
    setup: &EstimateSetup,
    counted: Option<&CountedPrompts>,
    counting: &Counting,
) -> String {
    let price = setup.price.map(|p| if setup.batch { batch_price(p) } else { p });
    let Some(e) = estimate_groups(&setup.groups, counted, &setup.caps, price) else {
        return "Nothing to estimate yet: add methods on the Judge screen.".into();
    };
    let money = match e.cost_usd {
        Some(c) if setup.batch => format!("about {} at the batch price ({} interactively)", words::usd(c), words::usd(c * 2.0)),
        Some(c) => format!("about {}", words::usd(c)),
        None => "unknown cost (this model is not in the price list: enter its price under \"Limits and price\" above)".into(),
    };
    let basis = match (counted, setup.encoding, counting) {
        (Some(c), _, _) => format!(
            "Input tokens counted with {} (the encoding this model reads, and the chat format's {} tokens a call); output tokens estimated.",
            c.encoding,
            concord_core::run::tokens::CHAT_TOKENS_PER_CALL
        ),
        (None, Some(enc), Counting::Busy(_)) => {
            format!(
                "Tokens approximate (4 characters a token) while the prompts are counted with {enc}…"
            )
        }
        (None, Some(_), Counting::Failed(why)) => {
            format!("Tokens approximate (4 characters a token): {why}.")
        }
        (None, Some(enc), Counting::Idle) => format!(
            "Tokens approximate (4 characters a token) until the prompts are counted with {enc}."
        ),
        (None, None, _) => {
            "Tokens approximate (4 characters a token: no tokenizer is known for this model)."
                .into()
        }
    };
    format!(
        "{}, ~{} input and ~{} output tokens: {money}. {basis}",
        words::count(e.calls as usize, "call", "calls"),
        words::thousands(e.input_tokens),
        words::thousands(e.output_tokens)
    )
}

#[component]
fn LaunchPanel() -> impl IntoView {
    let ctx = RunContext::from_context();
    let setup = Memo::new(move |_| {
        let dataset = ctx.ws.dataset.get();
        let study = ctx.judge.study.get();
        let form = ctx.run.connection.get();
        let items = items_of(&dataset.loaded.dataset, form.item_limit);
        // A probe is priced on what it sends: the changed outputs.
        let groups = if study.methods.is_empty() || study.attributes.is_empty() {
            Vec::new()
        } else {
            match ctx.run.probe.get() {
                Some(v) => estimate_inputs(
                    &variant_dataset(&dataset.loaded.dataset, v),
                    &variant_study(&study, v),
                    &items,
                ),
                None => estimate_inputs(&dataset.loaded.dataset, &study, &items),
            }
        };
        EstimateSetup {
            groups,
            encoding: Encoding::for_model(&form.model),
            caps: form.caps(),
            price: form.price(),
            batch: ctx.run.mode.get() == RunMode::Batch,
        }
    });
    // The prompts of a model with a known encoding are counted (each text once a session, in
    // the worker, the tokenizer's chunk fetched the first time).
    Effect::new(move |_| {
        ctx.run.counted.track();
        let (encoding, missing) = setup.with(|s| {
            let Some(enc) = s.encoding else { return (None, Vec::new()) };
            let mut seen = std::collections::HashSet::new();
            let missing: Vec<String> = ctx.run.token_counts.with_value(|counts| {
                s.groups
                    .iter()
                    .flat_map(|g| &g.prompts)
                    .filter(|p| !counts.contains_key(&(enc, (*p).clone())) && seen.insert(*p))
                    .cloned()
                    .collect()
            });
            (Some(enc), missing)
        });
        let Some(encoding) = encoding else { return };
        if missing.is_empty() || matches!(ctx.run.counting.get_untracked(), Counting::Busy(_)) {
            return;
        }
        ctx.run.counting.set(Counting::Busy(encoding));
        spawn_local(async move {
            match crate::edge::worker::tokens::count_prompts(encoding, &missing).await {
                Ok(counts) => {
                    ctx.run.token_counts.update_value(|c| {
                        c.extend(missing.into_iter().map(|p| (encoding, p)).zip(counts));
                    });
                    ctx.run.counting.set(Counting::Idle);
                    ctx.run.counted.update(|n| *n += 1);
                }
                Err(e) => ctx.run.counting.set(Counting::Failed(e.to_string())),
            }
        });
    });
    // The estimate in words, and what its input tokens rest on (`data-tokens`, for tests).
    let estimate = Memo::new(move |_| {
        ctx.run.counted.track();
        let counting = ctx.run.counting.get();
        setup.with(|s| {
            let counted = s.encoding.and_then(|enc| {
                ctx.run.token_counts.with_value(|c| counted_prompts(c, enc, &s.groups))
            });
            let basis = match (&counted, &counting) {
                (Some(_), _) => "counted",
                (None, Counting::Busy(_)) if s.encoding.is_some() => "counting",
                _ => "approximate",
            };
            (estimate_text(s, counted.as_ref(), &counting), basis)
        })
    });
    // Prompts with a placeholder criterion or without the item's text are sent only once the
    // user says so (asked again whenever the study changes).
    let warnings = Memo::new(move |_| {
        ctx.ws.dataset.with(|d| ctx.judge.study.with(|s| prompt_warnings(&d.loaded.dataset, s)))
    });
    let send_anyway = RwSignal::new(false);
    Effect::new(move |_| {
        warnings.track();
        send_anyway.set(false);
    });
    let run = move |_| {
        if let Some(first) = warnings.with_untracked(|w| w.first().cloned())
            && !send_anyway.get_untracked()
        {
            let more = warnings.with_untracked(Vec::len) - 1;
            let more = if more > 0 {
                format!(
                    " (and {} more, listed above)",
                    concord_core::words::count(more, "prompt", "prompts")
                )
            } else {
                String::new()
            };
            ctx.run.view.set(RunView {
                error: Some(format!(
                    "Nothing sent: {first}{more}. Or tick “Send them as they are”."
                )),
                ..RunView::default()
            });
            return;
        }
        let (dataset, study, probe) = (
            ctx.ws.dataset.get_untracked(),
            ctx.judge.study.get_untracked(),
            ctx.run.probe.get_untracked(),
        );
        match ctx.run.mode.get_untracked() {
            RunMode::Interactive => start_run(ctx, dataset, study, probe),
            RunMode::Batch => batch::submit(ctx, dataset, study, probe),
        }
    };
    let batch_mode = move || ctx.run.mode.get() == RunMode::Batch;
    // What batch mode needs from this provider, said before anything is sent.
    let batch_note = move || {
        let provider = ctx.run.connection.with(|c| c.provider);
        match BatchApi::for_provider(provider) {
            Some(api) => (
                false,
                format!(
                    "{} charges half the interactive price and answers within 24 hours. {}",
                    api.name(),
                    api.cors_note()
                ),
            ),
            None => (true, no_batch_api(provider)),
        }
    };
    // Reads of the run's state borrow it: the log can hold thousands of lines.
    let running = move || ctx.run.view.with(|v| v.running);
    let paused = move || ctx.run.view.with(|v| v.paused);
    let progress = move || ctx.run.view.with(|v| v.report.as_ref().map(|r| (r.progress, r.cached)));
    view! {
        <section class="panel" aria-labelledby="launch-heading">
            <h2 id="launch-heading">"Run"</h2>
            <ProbeChoice/>
            <div class="row">
                <label class="probe-choice">"How to run"
                    <select aria-label="How to run" data-testid="run-mode" on:change=move |ev| {
                        let batch = event_target_value(&ev) == "batch";
                        ctx.run.mode.set(if batch { RunMode::Batch } else { RunMode::Interactive });
                    }>
                        <option value="interactive" selected=move || !batch_mode()>"interactive: answers as they come"</option>
                        <option value="batch" selected=batch_mode>"batch: half price, results within 24 h"</option>
                    </select>
                </label>
            </div>
            {move || batch_mode().then(|| {
                let (refused, text) = batch_note();
                view! { <p class=if refused { "warn-box" } else { "muted" } data-testid="batch-note-provider">{text}</p> }
            })}
            {move || {
                // Probability-weighted methods on a provider without log-probabilities: said
                // before the run, not found out after it.
                let weighted = ctx.judge.study.with(|s| s.methods.iter().filter(|m| m.weighting.is_some()).count());
                let (provider, model, caps) = ctx.run.connection.with(|f| (f.provider, f.model.clone(), f.caps()));
                (weighted > 0 && caps.max_top_logprobs.is_none()).then(|| view! {
                    <p class="warn-box" data-testid="no-logprobs">{crate::screens::judge::logprobs_warning(provider, &model)}</p>
                })
            }}
            {move || {
                // A reasoning model thinks within Max tokens: a budget too small is said before
                // the run, not found out from its cut-off answers.
                let model = ctx.run.connection.with(|f| f.model.clone());
                let caps = ctx.run.connection.with(|f| f.caps());
                ctx.judge.study.with(|s| short_budget_warning(&model, &short_budgets(s, &caps)))
                    .map(|w| view! { <p class="warn-box" data-testid="reasoning-budget">{w}</p> })
            }}
            {move || {
                // Gemini 2.5 Flash / Flash-Lite: thinking off unless the user turns it on.
                let optional = ctx.run.connection.with(|f| Capabilities::for_model(f.provider, f.model.trim()).thinking_optional());
                optional.then(|| view! {
                    <label class="check" data-testid="gemini-thinking-control">
                        <input type="checkbox" data-testid="gemini-thinking"
                            prop:checked=move || ctx.run.connection.with(|f| f.gemini_thinking)
                            on:change=move |ev| {
                                let on = event_target_checked(&ev);
                                ctx.run.connection.update(|f| f.gemini_thinking = on);
                            }/>
                        "Let the model think before it answers (Gemini sends thinkingConfig.thinkingBudget −1, dynamic; off, 0). Thinking is billed as output and counts against Max tokens: give methods 4,096 or more."
                    </label>
                })
            }}
            {move || {
                let list = warnings.get();
                (!list.is_empty()).then(|| view! {
                    <div class="warn-box" role="region" aria-label="Prompts not ready to send" data-testid="run-prompt-warnings">
                        <p>"These prompts are not ready to send:"</p>
                        <ul>{list.into_iter().map(|w| view! { <li>{w.to_string()}</li> }).collect_view()}</ul>
                        <label class="check"><input type="checkbox" data-testid="send-anyway" prop:checked=move || send_anyway.get()
                            on:change=move |ev| send_anyway.set(event_target_checked(&ev))/>"Send them as they are"</label>
                    </div>
                })
            }}
            <p data-testid="estimate" data-tokens=move || estimate.with(|e| e.1)>{move || estimate.with(|e| e.0.clone())}</p>
            <div class="row">
                <button class="primary" type="button" on:click=run disabled=running>{move || if batch_mode() { "Submit batch" } else { "Run" }}</button>
                <button class="secondary" type="button" disabled=move || !running() || paused()
                    on:click=move |_| ctx.run.control.get_value().pause()>"Pause"</button>
                <button class="secondary" type="button" disabled=move || !paused()
                    on:click=move |_| ctx.run.control.get_value().resume()>"Resume"</button>
                <button class="secondary" type="button" disabled=move || !running()
                    on:click=move |_| ctx.run.control.get_value().cancel()>"Cancel"</button>
                <button class="secondary" type="button" on:click=move |_| ctx.ws.screen.set(Screen::Results)>"See results"</button>
            </div>
            {move || ctx.run.view.with(|v| v.planning.clone()).map(|m| view! { <p class="notice-line" role="status" data-testid="run-planning">{m}</p> })}
            {move || progress().map(|(p, cached)| {
                let finished = p.done + p.failed;
                let eta = p.eta_ms.map_or("–".to_owned(), |ms| format!("{:.0} s", ms as f64 / 1000.0));
                // A model with no price has spent an unknown amount, not $0.
                let priced = ctx.run.connection.with_untracked(|f| f.connection().price.is_some());
                let by_provider = if p.provider_priced > 0 { format!(" ({} priced by the provider)", count(p.provider_priced as usize, "call", "calls")) } else { String::new() };
                let cost = if priced || p.provider_priced > 0 { format!("{}{by_provider}", concord_core::words::usd(p.cost_usd)) } else { "cost unknown (no price for this model)".to_owned() };
                view! {
                    <progress max=p.total.max(1).to_string() value=finished.to_string() aria-label="Run progress"></progress>
                    <p data-testid="progress" role="status">
                        {{
                            let n = concord_core::words::int;
                            let t = |x: u64| concord_core::words::thousands(x);
                            format!(
                                "{} of {} calls done, {} failed, {} in flight, {} cached · {:.0} calls/min · ETA {eta} · {} tokens in, {} out · {cost} · concurrency {} · {}",
                                n(p.done), n(p.total), n(p.failed), n(p.in_flight), n(cached),
                                p.rate_per_minute, t(p.usage.prompt_tokens), t(p.usage.completion_tokens), p.concurrency,
                                concord_core::words::count(p.retries as usize, "retry", "retries")
                            )
                        }}
                        {(p.usage.reasoning_tokens > 0).then(|| format!(" · {} of the output tokens spent reasoning", p.usage.reasoning_tokens))}
                        {move || paused().then_some(" · paused: Resume continues, nothing is sent meanwhile")}
                    </p>
                }
            })}
            {move || ctx.run.view.with(|v| v.finished.clone()).map(|m| view! { <p class="ok-box" role="status" data-testid="run-finished">{m}</p> })}
            {move || ctx.run.view.with(|v| v.error.clone()).map(|m| view! { <p class="error-box" role="alert" data-testid="run-error">{m}</p> })}
            {move || {
                let problems = ctx.run.view.with(|v| v.report.as_ref().map(|r| r.problems.clone()).unwrap_or_default());
                (!problems.is_empty()).then(|| view! {
                    <section class="warn-box" role="region" aria-label="Problems during this run" data-testid="run-problems">
                        <p>"Problems met during this run. Calls that can succeed later are retried on their own; the run only stops for problems that retrying cannot fix."</p>
                        <ul>
                            {problems.into_iter().map(|p| view! {
                                <li>
                                    <strong>{format!("{} — {} time{}", p.what, p.count, if p.count == 1 { "" } else { "s" })}</strong>
                                    " "{p.advice}
                                    <br/><span class="muted">{format!("Last message: {}", p.last)}</span>
                                </li>
                            }).collect_view()}
                        </ul>
                    </section>
                })
            }}
            <Show when=move || ctx.run.view.with(|v| !v.log.is_empty())>
                <details>
                    <summary>{move || format!("Run log ({})", concord_core::words::count(ctx.run.view.with(|v| v.log.len()), "line", "lines"))}</summary>
                    <ul class="run-log" data-testid="run-log" tabindex="0" aria-label="Run log">
                        {move || ctx.run.view.with(|v| v.log.iter().rev().take(200).cloned().collect::<Vec<_>>()).into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
                    </ul>
                </details>
            </Show>
        </section>
    }
}

#[component]
fn CachePanel() -> impl IntoView {
    let ctx = RunContext::from_context();
    let info = RwSignal::new(None::<String>);
    // Each refresh is numbered and only the latest one is shown: the browser's size estimate
    // can answer after a later refresh did, and an early "0 stored answers" must not win.
    let asked = StoredValue::new(0_u64);
    let refresh = move || {
        if let Some(store) = ctx.storage.store.get_untracked() {
            asked.update_value(|n| *n += 1);
            let this = asked.get_value();
            spawn_local(async move {
                let n = store.count(StoreName::Responses).await.unwrap_or(0);
                let latest = move || asked.try_get_value() == Some(this);
                if !latest() {
                    return;
                }
                let answers = count(n as usize, "stored answer", "stored answers");
                if !store.is_persistent() {
                    info.try_set(Some(format!("{answers}, in memory only.")));
                    return;
                }
                // The count at once; the browser's size estimate (which can take a while while
                // a run writes) when it comes. Reading the store to measure it would copy every
                // answer (800,000 of them after a 10,000-item run) into the page.
                info.try_set(Some(format!("{answers} in this browser (IndexedDB).")));
                if let Some((usage, quota)) = crate::edge::store::origin_usage().await
                    && latest()
                {
                    info.try_set(Some(format!(
                        "{answers} in this browser (IndexedDB); this site uses about {:.1} MB of {:.0} MB available.",
                        usage as f64 / 1e6,
                        quota as f64 / 1e6
                    )));
                }
            });
        }
    };
    // Refresh when storage opens, when a run starts or ends, and as its answers are stored —
    // at most once a second while it runs (every finished call is stored before it counts).
    let running = Memo::new(move |_| ctx.run.view.with(|r| r.running));
    let stored = Memo::new(move |_| {
        ctx.run.view.with(|r| r.report.as_ref().map_or(0, |r| r.progress.done + r.progress.failed))
    });
    let last = StoredValue::new(f64::NEG_INFINITY);
    let waiting = StoredValue::new(false);
    // Memos are read with `get`: `track` alone does not compute a memo, and a memo never
    // computed does not follow its sources (which is why this panel used to stay at its count
    // of the run's start).
    Effect::new(move |_| {
        ctx.storage.store.track();
        // A collected batch stores its answers too.
        ctx.run.batches.track();
        running.get();
        last.set_value(time::monotonic_ms());
        refresh();
    });
    Effect::new(move |_| {
        stored.get();
        let wait = 1000.0 - (time::monotonic_ms() - last.get_value());
        if wait <= 0.0 {
            last.set_value(time::monotonic_ms());
            refresh();
        } else if !waiting.get_value() {
            // Answers stored within the second are counted when it is over (a paused run's
            // last ones too).
            waiting.set_value(true);
            spawn_local(async move {
                time::sleep(wait.ceil() as u32).await;
                if waiting.try_set_value(false).is_none() {
                    last.set_value(time::monotonic_ms());
                    refresh();
                }
            });
        }
    });
    view! {
        <section class="panel" aria-labelledby="cache-heading">
            <h2 id="cache-heading">"Response cache"</h2>
            <p class="muted">"Every answer is stored the moment it arrives, keyed by provider, base URL, model, parameters, prompt and sample number. Running the same configuration again costs nothing."</p>
            {move || ctx.storage.problem.get().map(|p| view! { <p class="warn-box" role="status">{format!("Answers are kept in memory only: {p}")}</p> })}
            <p data-testid="cache-info">{move || info.get().unwrap_or_else(|| "Opening storage…".into())}</p>
            <button type="button" class="secondary" disabled=move || ctx.run.view.get().running on:click=move |_| {
                if let Some(store) = ctx.storage.store.get_untracked() {
                    spawn_local(async move {
                        let _ = store.clear(StoreName::Responses).await;
                        ctx.storage.memory.get_value().borrow_mut().clear();
                        refresh();
                    });
                }
            }>"Clear cache"</button>
        </section>
    }
}

/// What the Run button runs: the study, or the length probe (the same methods on the outputs
/// padded or truncated, for the judge audit), with the first item's variants shown.
#[component]
fn ProbeChoice() -> impl IntoView {
    let ctx = RunContext::from_context();
    let first =
        move || ctx.ws.dataset.with(|d| d.loaded.dataset.items.first().map(|i| i.output.clone()));
    view! {
        <div class="row">
            <label class="probe-choice">"What to run"
                <select aria-label="What to run" data-testid="probe-choice" on:change=move |ev| {
                    ctx.run.probe.set(Variant::from_name(&event_target_value(&ev)));
                }>
                    <option value="" selected=move || ctx.run.probe.get().is_none()>"the study"</option>
                    {Variant::ALL.into_iter().map(|v| view! {
                        <option value=v.name() selected=move || ctx.run.probe.get() == Some(v)>
                            {format!("length probe: {}", v.label())}
                        </option>
                    }).collect_view()}
                </select>
            </label>
        </div>
        <Show when=move || ctx.run.probe.get().is_some()>
            <details data-testid="probe-variants">
                <summary>"The first item's output and its variants"</summary>
                {move || first().map(|output| view! {
                    <dl class="variants">
                        <dt>"original"</dt><dd>{output.clone()}</dd>
                        {Variant::ALL.into_iter().map(|v| view! {
                            <dt>{v.name()}</dt><dd>{v.apply(&output)}</dd>
                        }).collect_view()}
                    </dl>
                })}
                <p class="muted">"The probe's runs join the Results table as 'method [padded]' or 'method [truncated]'; the judge audit there measures how far each method's ratings move."</p>
            </details>
        </Show>
    }
}

/// The shipped price list's date and what a price is looked up by.
fn price_list_note() -> String {
    match concord_core::run::PriceTable::shipped() {
        Ok((table, _)) => format!(
            "Prices from the list of {}: public list prices, which change. A model is priced by its exact name (never by a shorter one: o3-pro is not o3); enter the price of a model the list does not name.",
            table.snapshot_date
        ),
        Err(e) => format!("The price list could not be read: {e}."),
    }
}

/// The placeholder of a price field: the shipped table's figure, or what an empty field means.
fn price_placeholder(table: Option<f64>) -> String {
    match table {
        Some(v) => format!("{v} (price list)"),
        None => "not in the price list".to_owned(),
    }
}
