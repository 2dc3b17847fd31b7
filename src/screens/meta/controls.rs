//! Small view pieces the meta-evaluation panels share: a table or figure of the report,
//! labelled text inputs, the record picker of the viewers and the select options of the JDEval
//! files.

use concord_core::report::Figure;
use leptos::prelude::*;

use super::state::State;
use crate::components::table_view::TableView;

/// A labelled text input for a number.
pub(super) fn labelled_number(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
) -> impl IntoView {
    view! {
        <label class="control" for=id>
            <span>{label}</span>
            <input id=id type="text" inputmode="decimal" size="6" prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
        </label>
    }
}

/// A labelled text input with a placeholder.
pub(super) fn text_input(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    placeholder: Signal<String>,
) -> impl IntoView {
    view! {
        <label class="control" for=id>
            <span>{label}</span>
            <input id=id type="text" class="model-entry" size="24" prop:value=move || value.get()
                placeholder=move || placeholder.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
        </label>
    }
}

/// A record picker: previous / next buttons and a number input, 1-based for people.
pub(super) fn record_picker(
    id: &'static str,
    index: RwSignal<usize>,
    len: Signal<usize>,
) -> impl IntoView {
    view! {
        <div class="row controls">
            <button type="button" class="secondary" aria-label="Previous record"
                on:click=move |_| index.update(|i| *i = i.saturating_sub(1))>"‹"</button>
            <label class="control" for=id><span>"Record"</span>
                <input id=id type="number" min="1" prop:max=move || len.get().to_string()
                    prop:value=move || (index.get() + 1).to_string()
                    on:change=move |ev| {
                        if let Ok(n) = event_target_value(&ev).trim().parse::<usize>() {
                            index.set(n.clamp(1, len.get_untracked().max(1)) - 1);
                        }
                    }/>
            </label>
            <span class="muted">{move || format!("of {}", len.get())}</span>
            <button type="button" class="secondary" aria-label="Next record"
                on:click=move |_| index.update(|i| *i = (*i + 1).min(len.get_untracked().saturating_sub(1)))>"›"</button>
        </div>
    }
}

/// The JDEval files as (entry id, meta-evaluator, file name), in list order.
pub(super) fn jdeval_entries(state: State) -> Vec<(u64, String, String)> {
    state.workspace.with(|w| {
        w.files()
            .filter_map(|(id, f)| Some((id, f.jdeval()?.meta_evaluator.clone(), f.name.clone())))
            .collect()
    })
}

/// The entry `selected` names, or the first JDEval file.
pub(super) fn chosen_jdeval(state: State, selected: RwSignal<Option<u64>>) -> Option<u64> {
    let entries = jdeval_entries(state);
    let chosen = selected.get();
    entries.iter().find(|e| Some(e.0) == chosen).or(entries.first()).map(|e| e.0)
}

/// Select options of the JDEval files, by meta-evaluator.
pub(super) fn jdeval_options(state: State, selected: RwSignal<Option<u64>>) -> impl IntoView {
    move || {
        let chosen = selected.get();
        jdeval_entries(state)
            .into_iter()
            .map(|(id, meta, name)| {
                let label = format!("{} — {name}", state.workspace.with(|w| w.model_label(&meta)));
                view! { <option value=id.to_string() selected={chosen == Some(id)}>{label}</option> }
            })
            .collect_view()
    }
}

/// The report's table `id`, rendered, when the report has it. The table is a memo of the
/// report, so it renders again only when it changed (not when another table did).
pub(super) fn report_table(
    state: State,
    id: impl Fn() -> String + Send + Sync + 'static,
) -> impl IntoView {
    let table = Memo::new(move |_| {
        let id = id();
        state.report.with(|r| r.table(&id).cloned())
    });
    move || table.get().map(|t| view! { <TableView table=t class="meta-table"/> })
}

/// The report's figure `id` (none while `id` is `None`), as a memo of the report.
pub(super) fn report_figure(
    state: State,
    id: impl Fn() -> Option<String> + Send + Sync + 'static,
) -> Memo<Option<Figure>> {
    Memo::new(move |_| {
        let id = id()?;
        state.report.with(|r| r.figure(&id).cloned())
    })
}
