//! The Judge screen's "Evaluation steps (auto-CoT)" panel: per attribute, where the steps of
//! every "+cot" method come from (G-Eval's released steps where a built-in prompt fits, steps
//! the judge writes from the task and criteria, or the user's own), the steps in an editable
//! text area, and the request and raw answer that made the judge's. Asking the judge goes
//! through the runner with the Run screen's connection, so the answer is cached like every
//! call (asking again costs nothing). The core's `study::workbench::steps` decides the rest.

use concord_core::run::{Finish, cache_key_for};
use concord_core::study::workbench::StepsSource;
use concord_core::study::workbench::steps::{
    current_steps, has_released_steps, is_current, released_steps, steps_request, written_steps,
};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::use_judge;
use crate::run::runner::{self, CallSpec, RunControl};
use crate::screens::run::state::LlmAccess;
use crate::state::use_workspace;

/// The attributes some "+cot" method judges, in the study's order.
fn cot_attributes() -> Vec<String> {
    let judge = use_judge();
    judge.study.with(|s| {
        s.attributes
            .iter()
            .filter(|a| s.methods.iter().any(|m| m.auto_cot && m.template(a).is_some()))
            .cloned()
            .collect()
    })
}

#[component]
pub fn StepsPanel() -> impl IntoView {
    view! {
        <Show when=move || !cot_attributes().is_empty()>
            <section class="panel" aria-labelledby="steps-heading" data-testid="steps-panel">
                <h2 id="steps-heading">"Evaluation steps (auto-CoT)"</h2>
                <p class="muted">
                    "Every method with auto-CoT (\"+cot\") puts these steps in its prompt for the attribute. "
                    "As G-Eval does, the judge can write them once from the task and criteria (the Run screen's "
                    "provider and model; the answer is cached, so asking again costs nothing); you can edit them, "
                    "type your own, or, where the paper's prompts fit the dataset, use G-Eval's released steps."
                </p>
                <For each=cot_attributes key=|a| a.clone() let:attribute>
                    <AttributeSteps attribute/>
                </For>
            </section>
        </Show>
    }
}

#[component]
fn AttributeSteps(attribute: String) -> impl IntoView {
    let ws = use_workspace();
    let judge = use_judge();
    // `None` outside the app (a component test): writing then says so instead of panicking.
    let wb = LlmAccess::try_from_context();
    let status = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    // The judge's last steps for this attribute, kept while another source is chosen.
    let last_written = RwSignal::new(None);
    let attr = StoredValue::new(attribute.clone());
    let source = move || judge.study.with(|s| s.steps_source(&attr.get_value()).cloned());
    Effect::new(move |_| {
        if let Some(StepsSource::Judge(w)) = source() {
            last_written.set(Some(w));
        }
    });
    let released = move || {
        let dataset = ws.dataset.get();
        has_released_steps(&dataset.loaded.dataset, &attr.get_value())
    };
    let set = move |next: StepsSource| {
        let dataset = ws.dataset.get_untracked();
        let mut result = Ok(());
        judge.study.update(|s| {
            result = s.set_steps(&dataset.loaded.dataset, &attr.get_value(), next);
        });
        status.try_set(result.err().map(|e| e.to_string()));
    };
    let write = move || {
        let Some(wb) = wb else {
            status.set(Some("This page has no Run screen connection to ask a judge with.".into()));
            return;
        };
        let form = wb.connection.get_untracked();
        if form.model.trim().is_empty() || form.base_url.trim().is_empty() {
            status.set(Some(
                "No judge yet: set a provider, base URL and model (and key) on the Run screen; that judge writes the steps.".into(),
            ));
            return;
        }
        if form.provider.preset().needs_key && form.api_key.trim().is_empty() {
            status.set(Some(format!(
                "No API key: enter your {} key on the Run screen; that judge writes the steps.",
                form.provider.preset().name
            )));
            return;
        }
        let Some(store) = wb.store.get_untracked() else {
            status
                .set(Some("The browser's storage is not open yet: try again in a moment.".into()));
            return;
        };
        let attribute = attr.get_value();
        let (method, request) = match judge.study.with_untracked(|s| steps_request(s, &attribute)) {
            Ok(r) => r,
            Err(e) => {
                status.set(Some(e.to_string()));
                return;
            }
        };
        let connection = form.connection();
        let endpoint = connection.endpoint.clone();
        let provider = endpoint.provider;
        let key = cache_key_for(&endpoint, &connection.caps, &request, 0);
        let calls = vec![CallSpec::single(request.clone(), key.clone())];
        let memory = wb.memory.get_value();
        busy.set(true);
        status.set(Some(format!("Asking {} for the {attribute} steps…", endpoint.model)));
        spawn_local(async move {
            let outcome = runner::execute(
                connection,
                &calls,
                store,
                memory.clone(),
                RunControl::new(),
                |_| {},
            )
            .await;
            busy.try_set(false);
            let answer = memory.borrow().get(&key).cloned();
            let Some(answer) = answer else {
                let said = outcome.finish.describe(provider);
                let text = match (&outcome.finish, said.advice) {
                    (Finish::Completed, _) => "The judge gave no answer: try again.".to_owned(),
                    (_, Some(advice)) => format!("{} {advice}", said.message),
                    (_, None) => said.message,
                };
                status.try_set(Some(text));
                return;
            };
            match written_steps(&attribute, &endpoint, method, request, &answer) {
                Ok(w) => {
                    let model = w.endpoint.model.clone();
                    set(StepsSource::Judge(Box::new(w)));
                    let cached = if outcome.cached > 0 { " (from the cache)" } else { "" };
                    status.try_set(Some(format!("{model} wrote the {attribute} steps{cached}.")));
                }
                Err(e) => {
                    status.try_set(Some(e.to_string()));
                }
            }
        });
    };
    let choose = move |value: String| match value.as_str() {
        "released" => set(StepsSource::Released),
        "judge" => match last_written.get_untracked() {
            Some(w) => set(StepsSource::Judge(w)),
            // Nothing written yet: choosing the judge asks it.
            None => write(),
        },
        "own" => {
            // Starting from the steps the "+cot" methods carry now.
            let text = judge
                .study
                .with_untracked(|s| current_steps(s, &attr.get_value()))
                .unwrap_or_default();
            set(StepsSource::Own { text })
        }
        _ => {}
    };
    let edit = move |text: String| match source() {
        Some(StepsSource::Judge(mut w)) => {
            w.steps = text;
            set(StepsSource::Judge(w));
        }
        Some(StepsSource::Own { .. }) => set(StepsSource::Own { text }),
        _ => {}
    };
    let select_id = format!("steps-source-{attribute}");
    let text_id = format!("steps-text-{attribute}");
    let write_label = format!("Write the {attribute} steps with the judge");
    let testid = format!("steps-{attribute}");
    view! {
        <fieldset class="steps" data-testid=testid>
            <legend>{attribute.clone()}</legend>
            <div class="row">
                <label for=select_id.clone()>"Steps "</label>
                <select id=select_id on:change=move |ev| choose(event_target_value(&ev))>
                    <option value="" disabled=true selected=move || source().is_none()>"none yet"</option>
                    <Show when=released>
                        <option value="released" selected=move || matches!(source(), Some(StepsSource::Released))>"G-Eval's released steps"</option>
                    </Show>
                    <option value="judge" selected=move || matches!(source(), Some(StepsSource::Judge(_)))>"written by the judge"</option>
                    <option value="own" selected=move || matches!(source(), Some(StepsSource::Own { .. }))>"my own steps"</option>
                </select>
                <button class="secondary" type="button" aria-label=write_label disabled=move || busy.get()
                    on:click=move |_| write()>"Write the steps with the judge"</button>
                <span role="status" class="muted" data-testid="steps-status">{move || status.get().unwrap_or_default()}</span>
            </div>
            {move || match source() {
                None => match judge.study.with(|s| current_steps(s, &attr.get_value())) {
                    None => view! {
                        <p class="warn-box" data-testid="steps-missing">
                            "No steps yet: the \"+cot\" methods do not run on this attribute until the judge writes the steps or you type your own."
                        </p>
                    }.into_any(),
                    // A study saved before steps had sources: its templates' steps, named as such.
                    Some(text) => view! {
                        <p class="muted" data-testid="steps-unsourced">
                            "The \"+cot\" methods carry these steps from a study saved before Concord recorded where steps come from; choose a source to replace them."
                        </p>
                        <pre class="prompt part-steps" tabindex="0" role="region" aria-label="Evaluation steps">{text}</pre>
                    }.into_any(),
                },
                Some(StepsSource::Released) => {
                    let dataset = ws.dataset.get();
                    let text = released_steps(&dataset.loaded.dataset, &attr.get_value(), concord_core::judge::builtin::OutputMode::ScoreOnly).unwrap_or_default();
                    view! {
                        <p class="muted">"G-Eval's released steps (Liu et al., 2023), byte for byte as in the paper's prompts; no LLM wrote them for this study."</p>
                        <pre class="prompt part-steps" data-testid="steps-released" tabindex="0" role="region" aria-label="G-Eval's released steps">{text}</pre>
                    }.into_any()
                }
                Some(StepsSource::Own { text }) => view! {
                    <label for=text_id.clone() class="sr-only">{format!("Evaluation steps for {}", attr.get_value())}</label>
                    <textarea id=text_id.clone() class="steps-text part-steps" rows="6" data-testid="steps-text"
                        prop:value=text on:change=move |ev| edit(event_target_value(&ev))></textarea>
                }.into_any(),
                Some(StepsSource::Judge(w)) => {
                    let stale = judge.study.with(|s| !is_current(s, &attr.get_value(), &w));
                    let model = wb.map(|wb| wb.connection.get().model.trim().to_owned()).unwrap_or_default();
                    let other_model = !model.is_empty() && model != w.endpoint.model;
                    let edited = w.steps != w.answer.trim();
                    let request_text = w.request.messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>().join("\n\n");
                    view! {
                        <p class="muted" data-testid="steps-origin">
                            {format!("Written by {} at {}, asked from the task and criteria of “{}”{}.",
                                w.endpoint.model, w.endpoint.base_url, w.method, if edited { "; edited since" } else { "" })}
                        </p>
                        {stale.then(|| view! { <p class="warn-box" data-testid="steps-stale">"The task or criteria changed since the judge wrote these steps: write them again to follow G-Eval's procedure."</p> })}
                        {other_model.then(|| view! { <p class="muted">{format!("The Run screen now names {model}; these steps stay {}'s until you write them again.", w.endpoint.model)}</p> })}
                        <label for=text_id.clone() class="sr-only">{format!("Evaluation steps for {}", attr.get_value())}</label>
                        <textarea id=text_id.clone() class="steps-text part-steps" rows="6" data-testid="steps-text"
                            prop:value=w.steps.clone() on:change=move |ev| edit(event_target_value(&ev))></textarea>
                        <details data-testid="steps-request">
                            <summary>"The request that made them, and the judge's answer"</summary>
                            <h3>"Request (one sample, the provider's defaults)"</h3>
                            <pre class="prompt" tabindex="0" role="region" aria-label="Request">{request_text}</pre>
                            <h3>"The judge's answer, as received"</h3>
                            <pre class="response" tabindex="0" role="region" aria-label="The judge's answer">{w.answer.clone()}</pre>
                        </details>
                    }.into_any()
                }
            }}
        </fieldset>
    }
}
