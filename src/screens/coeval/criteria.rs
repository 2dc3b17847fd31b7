//! Stage 1: criteria scrutiny. The current annotator approves, deletes or revises each LLM
//! criterion (with a reason) or adds one; the final criteria follow the most frequent action, and
//! the action rates are seed 004's Table 5.

use concord_core::coeval::{Action, Event};
use concord_core::study::coeval::{Stage1, numbered_by_themselves};
use leptos::prelude::*;

use super::common::{CoEvalTable, use_ctx};

#[component]
pub fn CriteriaPanel() -> impl IntoView {
    let ctx = use_ctx();
    let criteria = move || ctx.study.get().map(|s| s.criteria.clone()).unwrap_or_default();
    view! {
        <super::llm::LlmPanel/>
        <section class="panel" aria-labelledby="coeval-criteria-heading">
            <h2 id="coeval-criteria-heading">"Stage 1: scrutinise the criteria"</h2>
            <Show when=move || ctx.study.get().is_some()
                fallback=|| view! { <p class="muted">"Set up a task first."</p> }>
                <p class="muted">
                    "For each criterion the LLM proposed: approve, delete or revise it, with a reason. "
                    "Add criteria it missed. Each annotator decides on their own; for each criterion the "
                    "most frequent action wins (CoEval's majority vote; a tie with delete keeps it), and an "
                    "added criterion stays when more than half of the annotators added it."
                </p>
                <ol data-testid="criteria-list"
                    class=move || if numbered_by_themselves(&criteria()) { "criteria-list own-numbers" } else { "criteria-list" }>
                    {move || criteria().into_iter().enumerate().map(|(i, c)| view! { <CriterionRow index=i criterion=c/> }).collect_view()}
                </ol>
                <AddCriterion/>
            </Show>
        </section>
        <FinalCriteria/>
    }
}

#[component]
fn CriterionRow(index: usize, criterion: String) -> impl IntoView {
    let ctx = use_ctx();
    let reason = RwSignal::new(String::new());
    let revised = RwSignal::new(criterion.clone());
    let c = criterion.clone();
    let decision = move || ctx.state().criteria.get(&c).cloned();
    let act = {
        let criterion = criterion.clone();
        move |action: Action| {
            let text = (action == Action::Revise).then(|| revised.get_untracked());
            if ctx.record(vec![Event::Criterion {
                criterion: criterion.clone(),
                action,
                text,
                reason: reason.get_untracked(),
            }]) {
                reason.set(String::new());
            }
        }
    };
    let (a1, a2, a3) = (act.clone(), act.clone(), act);
    let id = format!("criterion-{index}");
    view! {
        <li class="criterion" data-testid="criterion">
            <div class="criterion-text">{criterion.clone()}</div>
            <div class="row">
                <label for=format!("{id}-reason")>"Reason"</label>
                <input id=format!("{id}-reason") type="text" aria-label=format!("Reason for criterion {}", index + 1)
                    prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))/>
                <label for=format!("{id}-revised")>"Revised wording"</label>
                <input id=format!("{id}-revised") type="text" aria-label=format!("Revised wording of criterion {}", index + 1)
                    prop:value=move || revised.get() on:input=move |ev| revised.set(event_target_value(&ev))/>
            </div>
            <div class="row">
                <button class="secondary" type="button" aria-label=format!("Approve criterion {}", index + 1) on:click=move |_| a1(Action::Approve)>"Approve"</button>
                <button class="secondary" type="button" aria-label=format!("Delete criterion {}", index + 1) on:click=move |_| a2(Action::Delete)>"Delete"</button>
                <button class="secondary" type="button" aria-label=format!("Revise criterion {}", index + 1) on:click=move |_| a3(Action::Revise)>"Revise"</button>
                <span class="decision" data-testid="criterion-decision">
                    {move || match decision() {
                        Some(d) => {
                            let mut s = format!("Your decision: {}", d.action.name());
                            if let Some(t) = d.text { s.push_str(&format!(" → “{t}”")); }
                            if !d.reason.is_empty() { s.push_str(&format!(" (reason: {})", d.reason)); }
                            s
                        }
                        None => "Not decided yet".to_owned(),
                    }}
                </span>
            </div>
        </li>
    }
}

#[component]
fn AddCriterion() -> impl IntoView {
    let ctx = use_ctx();
    let text = RwSignal::new(String::new());
    let reason = RwSignal::new(String::new());
    let added = move || {
        let llm = ctx.study.get().map(|s| s.criteria.clone()).unwrap_or_default();
        ctx.state()
            .criteria
            .into_iter()
            .filter(|(c, d)| d.action == Action::Add && !llm.contains(c))
            .map(|(c, d)| format!("{c} (reason: {})", d.reason))
            .collect::<Vec<_>>()
    };
    view! {
        <form class="row" on:submit=move |ev| {
            ev.prevent_default();
            let name = text.get_untracked();
            if ctx.record(vec![Event::Criterion { criterion: name.trim().to_owned(), action: Action::Add, text: None, reason: reason.get_untracked() }]) {
                text.set(String::new());
                reason.set(String::new());
            }
        }>
            <label for="coeval-new-criterion">"New criterion"</label>
            <input id="coeval-new-criterion" type="text" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))/>
            <label for="coeval-new-criterion-reason">"Reason for adding"</label>
            <input id="coeval-new-criterion-reason" type="text" prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))/>
            <button class="primary" type="submit">"Add criterion"</button>
        </form>
        <ul class="added-criteria">{move || added().into_iter().map(|a| view! { <li>{a}</li> }).collect_view()}</ul>
    }
}

#[component]
fn FinalCriteria() -> impl IntoView {
    let ctx = use_ctx();
    let stage1 = move || {
        let study = ctx.study.get()?;
        Some(Stage1::compute(&study, &ctx.annotations()))
    };
    view! {
        {move || stage1().map(|stage1| {
            view! {
                <section class="panel" aria-labelledby="coeval-final-heading">
                    <h2 id="coeval-final-heading">"Final criteria (majority vote)"</h2>
                    <p class="muted">{format!("{} annotators decided on criteria (this device and imported files).", stage1.voters)}</p>
                    <ol data-testid="final-criteria"
                        class:own-numbers=numbered_by_themselves(&stage1.finals.iter().map(|f| f.criterion.clone()).collect::<Vec<_>>())>
                        {stage1.lines().into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                    </ol>
                    <CoEvalTable table=stage1.table5() testid="table5"/>
                </section>
            }
        })}
    }
}
