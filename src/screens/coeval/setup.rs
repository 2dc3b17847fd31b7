//! Task setup: the study from a loaded CoEval file (`combine_data.json`) or typed in, and the
//! annotator's name.

use concord_core::judge::coeval::TaskInfo;
use concord_core::study::coeval::{Study, check_task_name, parse_criteria, typed_instance};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use super::common::use_ctx;
use super::state::Tab;
use crate::edge::files::read_file;
use crate::state::use_workspace;

#[component]
pub fn SetupPanel() -> impl IntoView {
    view! {
        <AnnotatorPanel/>
        <FromFilePanel/>
        <TypedPanel/>
    }
}

#[component]
fn AnnotatorPanel() -> impl IntoView {
    let ctx = use_ctx();
    let name = RwSignal::new(ctx.annotator.get_untracked());
    let others = move || ctx.logs.with(|m| m.keys().cloned().collect::<Vec<_>>().join(", "));
    view! {
        <section class="panel" aria-labelledby="coeval-annotator-heading">
            <h2 id="coeval-annotator-heading">"Annotator"</h2>
            <form class="row" on:submit=move |ev| {
                ev.prevent_default();
                ctx.set_annotator(name.get_untracked());
            }>
                <label for="coeval-annotator-name">"Your name (annotator)"</label>
                <input id="coeval-annotator-name" type="text" autocomplete="off"
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))/>
                <button class="primary" type="submit">"Use this name"</button>
            </form>
            <p class="muted">
                "Several annotators can take turns on this device: each name keeps its own log. "
                "Annotators on this device: " <span data-testid="local-annotators">{others}</span>
            </p>
        </section>
    }
}

#[component]
fn FromFilePanel() -> impl IntoView {
    let ctx = use_ctx();
    let ws = use_workspace();
    let tasks = move || Study::tasks_in(&ws.dataset.get().loaded);
    let task = RwSignal::new(String::new());
    let limit = RwSignal::new(String::new());
    let reading = RwSignal::new(None::<String>);
    let on_pick = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        let name = file.name();
        reading.set(Some(name.clone()));
        spawn_local(async move {
            match read_file(&file).await {
                Ok(bytes) => ws.open_file(&name, &bytes),
                Err(e) => {
                    ws.load_error.try_set(Some(e));
                }
            }
            reading.try_set(None);
        });
    };
    let start = move |_| {
        let loaded = ws.dataset.get_untracked().loaded;
        let chosen = task.get_untracked();
        let chosen = if chosen.is_empty() {
            Study::tasks_in(&loaded).into_iter().next().unwrap_or_default()
        } else {
            chosen
        };
        let limit = limit.get_untracked().trim().parse::<usize>().ok().filter(|n| *n > 0);
        match Study::from_loaded(&loaded, &chosen, limit) {
            Ok(study) => {
                ctx.open_study(study);
                ctx.tab.set(Tab::Criteria);
            }
            Err(e) => ctx.fail(e),
        }
    };
    view! {
        <section class="panel" aria-labelledby="coeval-file-heading">
            <h2 id="coeval-file-heading">"From a CoEval file"</h2>
            <p class="muted">
                "CoEval's " <code>"combine_data.json"</code> " (tasks, instances, criteria and ChatGPT's "
                "evaluations), loaded here or on the Data screen. Current dataset: "
                <span data-testid="coeval-dataset">{move || ws.dataset.get().view.name.clone()}</span>
            </p>
            <div class="row">
                <label for="coeval-combined-file">"CoEval combine_data.json"</label>
                <input id="coeval-combined-file" type="file" accept=".json,application/json" on:change=on_pick/>
                <Show when=move || reading.get().is_some()>
                    <span role="status">"Reading " {move || reading.get().unwrap_or_default()} "…"</span>
                </Show>
            </div>
            <Show when=move || ws.load_error.get().is_some()>
                <p class="error-box" role="alert">{move || ws.load_error.get().unwrap_or_default()}</p>
            </Show>
            <Show when=move || !tasks().is_empty()
                fallback=|| view! { <p class="muted">"This dataset has no CoEval task."</p> }>
                <div class="row">
                    <label for="coeval-task">"Task"</label>
                    <select id="coeval-task" on:change=move |ev| task.set(event_target_value(&ev))>
                        {move || tasks().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                    <label for="coeval-limit">"Instances (empty: all)"</label>
                    <input id="coeval-limit" type="number" min="1" class="narrow"
                        prop:value=move || limit.get()
                        on:input=move |ev| limit.set(event_target_value(&ev))/>
                    <button class="primary" type="button" on:click=start>"Start with this task"</button>
                </div>
            </Show>
        </section>
    }
}

#[component]
fn TypedPanel() -> impl IntoView {
    let ctx = use_ctx();
    let task = RwSignal::new("my-task".to_owned());
    let description = RwSignal::new(String::new());
    let input_name = RwSignal::new("input".to_owned());
    let output_name = RwSignal::new("output".to_owned());
    let criteria = RwSignal::new(String::new());
    let instances = RwSignal::new(Vec::<(String, String, String)>::new());
    let (inp, out, sys) =
        (RwSignal::new(String::new()), RwSignal::new(String::new()), RwSignal::new(String::new()));
    let field = |id: &'static str, label: &'static str, sig: RwSignal<String>| {
        view! {
            <label for=id>{label}</label>
            <input id=id type="text" prop:value=move || sig.get() on:input=move |ev| sig.set(event_target_value(&ev))/>
        }
    };
    let add = move |_| match typed_instance(
        &inp.get_untracked(),
        &out.get_untracked(),
        &sys.get_untracked(),
    ) {
        Ok(instance) => {
            instances.update(|v| v.push(instance));
            inp.set(String::new());
            out.set(String::new());
        }
        Err(e) => ctx.fail(e),
    };
    let start = move |_| {
        let name = task.get_untracked();
        if let Err(e) = check_task_name(&name) {
            ctx.fail(e);
            return;
        }
        let info = TaskInfo {
            description: description.get_untracked(),
            input_name: input_name.get_untracked(),
            output_name: output_name.get_untracked(),
        };
        let study = Study::typed(
            &name,
            info,
            parse_criteria(&criteria.get_untracked()),
            instances.get_untracked(),
        );
        ctx.open_study(study);
        ctx.tab.set(Tab::Criteria);
    };
    view! {
        <section class="panel" aria-labelledby="coeval-typed-heading">
            <h2 id="coeval-typed-heading">"Or type a task"</h2>
            <div class="form-grid coeval-form">
                {field("coeval-typed-task", "Task name", task)}
                {field("coeval-typed-description", "Task description (\"The task is …\")", description)}
                {field("coeval-typed-input", "Input field", input_name)}
                {field("coeval-typed-output", "Output field", output_name)}
                <label for="coeval-typed-criteria">"Criteria (one per line)"</label>
                <textarea id="coeval-typed-criteria" rows="4" prop:value=move || criteria.get()
                    on:input=move |ev| criteria.set(event_target_value(&ev))></textarea>
            </div>
            <h3>"Instances"</h3>
            <div class="form-grid coeval-form">
                {field("coeval-typed-inst-input", "Instance input", inp)}
                {field("coeval-typed-inst-output", "Instance output", out)}
                {field("coeval-typed-inst-system", "Generating model", sys)}
            </div>
            <div class="row">
                <button class="secondary" type="button" on:click=add>"Add instance"</button>
                <span class="muted">{move || concord_core::report::count(instances.get().len(), "instance", "instances")}</span>
                <button class="primary" type="button" on:click=start>"Start typed task"</button>
            </div>
        </section>
    }
}
