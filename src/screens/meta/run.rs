//! The "Run judges and meta-evaluators" panel: pairwise judging with several evaluator models
//! (position swap optional), individual scoring of rated texts (Table 8 prompt, Pearson with
//! the human scores), then JDEval / MDEval over pairs of their judgements or JDEval-i / BSMEval
//! over single assessments (of loaded evaluator-pointwise files or of a scoring run), with a
//! chosen meta-evaluator model — on the Run screen's connection (provider, base URL, key,
//! limits), or per model on another provider or address (`model @ provider`, `model @ URL`)
//! with its own key kept in memory on this screen. The runs themselves are [`super::tasks`]'s.

use concord_core::study::meta::MetaFile;
use concord_core::study::meta::live::MetaMethod;
use leptos::prelude::*;

use super::controls::{labelled_number, report_table, text_input};
use super::state::State;
use super::tasks::{other_providers, start_meta, start_pairwise, start_scoring};
use crate::screens::run::state::LlmAccess;

/// The `<option>`s of the files with anything `count` counts, labelled with it.
fn source_options(
    state: State,
    chosen: RwSignal<Option<u64>>,
    count: fn(&MetaFile) -> usize,
    noun: &'static str,
) -> impl IntoView {
    let chosen = chosen.get();
    state.workspace.with(|w| {
        w.files()
            .filter(|(_, f)| count(f) > 0)
            .map(|(id, f)| {
                let label = format!("{} ({} {noun})", f.name, count(f));
                view! { <option value=id.to_string() selected={chosen == Some(id)}>{label}</option> }
            })
            .collect_view()
    })
}

/// The "Run judges and meta-evaluators" panel.
#[component]
pub(super) fn RunPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let wb = LlmAccess::from_context();
    let rs = state.run;
    let connected = move || {
        let f = wb.connection.get();
        !f.base_url.trim().is_empty()
    };
    let run_model = Signal::derive(move || wb.connection.get().model);
    let pair_sources = move || source_options(state, rs.pair_source, |f| f.pairs.len(), "pairs");
    let score_sources = move || source_options(state, rs.score_source, |f| f.texts.len(), "texts");
    let busy = move || rs.running.get() || !connected();
    view! {
        <section class="panel" aria-labelledby="meta-run-heading">
            <h2 id="meta-run-heading">"Run judges and meta-evaluators"</h2>
            <p class="muted">
                "Uses the connection of the Run screen (provider, base URL, key, limits); each model named here "
                "is called on it, unless named with its own provider or address: "
                <code>"gpt-4o @ openai"</code>", "<code>"claude-3-5-haiku-latest @ anthropic"</code>", "
                <code>"qwen2-7b @ http://127.0.0.1:8000/v1"</code>" (comma-separated). "
                "Answers are stored in this browser: running again sends nothing already answered."
            </p>
            <Show when=move || !connected()>
                <p class="muted" data-testid="meta-run-not-connected">"Set a base URL (and a model) on the Run screen first."</p>
            </Show>
            <h3>"Pairwise judging (the meta-evaluation paper's Table 7 prompt)"</h3>
            <div class="row controls">
                {text_input("meta-evaluators", "Evaluator models", rs.evaluators, run_model)}
                <label class="control" for="meta-pair-source"><span>"Pairs from"</span>
                    <select id="meta-pair-source" on:change=move |ev| rs.pair_source.set(event_target_value(&ev).parse().ok())>
                        {pair_sources}
                    </select>
                </label>
                {labelled_number("meta-pair-limit", "Pairs (first N)", rs.pair_limit)}
                <label class="control" for="meta-swap">
                    <input id="meta-swap" type="checkbox" prop:checked=move || rs.swap.get()
                        on:change=move |ev| rs.swap.set(event_target_checked(&ev))/>
                    <span>"Position swap"</span>
                </label>
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_pairwise(state, wb)>"Run pairwise judging"</button>
            </div>
            <p class="muted">"Accuracy of the verdicts in the given order against the human label (a tie a class of its own; and over the pairs whose label is not a tie). With the swap, each pair is judged again with the answers exchanged: consistency is the share of pairs with the same verdict both times, position bias (first-slot picks − second-slot picks) / pairs."</p>
            {report_table(state, || "pairwise-run".to_owned())}
            {move || {
                let others = other_providers(rs, wb);
                (!others.is_empty()).then(|| view! {
                    <fieldset class="row controls" data-testid="meta-keys">
                        <legend>"Keys for other providers (kept in memory only: never stored, exported or logged)"</legend>
                        {others.into_iter().map(|p| {
                            let id = format!("meta-key-{}", p.slug());
                            let label = format!("API key for {p}");
                            view! {
                                <label class="control" for=id.clone()><span>{label}</span>
                                    <input id=id.clone() type="password" autocomplete="off" size="24"
                                        prop:value=move || rs.keys.with(|k| k.iter().find(|(q, _)| *q == p).map(|(_, v)| v.clone()).unwrap_or_default())
                                        on:input=move |ev| {
                                            let v = event_target_value(&ev);
                                            rs.keys.update(|k| match k.iter_mut().find(|(q, _)| *q == p) {
                                                Some(slot) => slot.1 = v,
                                                None => k.push((p, v)),
                                            });
                                        }/>
                                </label>
                            }
                        }).collect_view()}
                    </fieldset>
                })
            }}
            <h3>"Individual scoring (the meta-evaluation paper's Table 8 prompt)"</h3>
            <div class="row controls">
                <label class="control" for="meta-score-source"><span>"Texts from"</span>
                    <select id="meta-score-source" on:change=move |ev| rs.score_source.set(event_target_value(&ev).parse().ok())>
                        {score_sources}
                    </select>
                </label>
                {labelled_number("meta-score-limit", "Texts (first N)", rs.score_limit)}
                <label class="control" for="meta-score-task"><span>"Scoring prompt"</span>
                    <select id="meta-score-task" on:change=move |ev| rs.score_openmeva.set(event_target_value(&ev) == "openmeva")>
                        <option value="openmeva" selected=move || rs.score_openmeva.get()>"OpenMEVA stories"</option>
                        <option value="summeval" selected=move || !rs.score_openmeva.get()>"SummEval coherence"</option>
                    </select>
                </label>
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_scoring(state, wb)>"Run individual scoring"</button>
            </div>
            <p class="muted">"Each evaluator model named above rates each text from 1 to 5 (the score read from <Rating>); Pearson's r with the human scores joins Table 1, and the answers are assessments JDEval-i and BSMEval can meta-evaluate."</p>
            {report_table(state, || "scoring-run".to_owned())}
            <h3>"Meta-evaluation"</h3>
            <div class="row controls">
                {text_input("meta-model", "Meta-evaluator model", rs.meta_model, run_model)}
                <label class="control" for="meta-method"><span>"Protocol"</span>
                    <select id="meta-method" on:change=move |ev| rs.method.set(MetaMethod::from_id(&event_target_value(&ev)))>
                        {MetaMethod::ALL.into_iter().map(|m| view! {
                            <option value=m.id() selected=move || rs.method.get() == m>{m.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                {labelled_number("meta-rounds", "MDEval rounds (1–5)", rs.rounds)}
                <label class="control" for="meta-task"><span>"JDEval-i prompt"</span>
                    <select id="meta-task" on:change=move |ev| rs.openmeva.set(event_target_value(&ev) == "openmeva")>
                        <option value="openmeva" selected=move || rs.openmeva.get()>"OpenMEVA stories (Table 12)"</option>
                        <option value="summeval" selected=move || !rs.openmeva.get()>"SummEval coherence (Table 13)"</option>
                    </select>
                </label>
                {labelled_number("meta-item-limit", "Assessments per file (first N)", rs.item_limit)}
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_meta(state, wb)>"Run meta-evaluation"</button>
            </div>
            <p class="muted">"JDEval and MDEval compare every two evaluators of the pairwise run on each pair (their outcomes join Elo, the heatmap, post accuracy and the debate viewer); JDEval-i and BSMEval score the assessments of the loaded evaluator-pointwise files and of individual-scoring runs (Tables 5 and 6, the BSMEval viewer)."</p>
            <div class="row">
                <button type="button" class="secondary" disabled=move || !rs.running.get()
                    on:click=move |_| {
                        let control = rs.control.get_value();
                        if control.is_paused() { control.resume() } else { control.pause() }
                        rs.paused.set(control.is_paused());
                    }>{move || if rs.paused.get() { "Resume" } else { "Pause" }}</button>
                <button type="button" class="secondary" disabled=move || !rs.running.get()
                    on:click=move |_| rs.control.get_value().cancel()>"Cancel run"</button>
                <span role="status" data-testid="meta-run-status">{move || rs.status.get().unwrap_or_default()}</span>
            </div>
            {move || rs.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="meta-run-error">{e}</p> })}
        </section>
    }
}
