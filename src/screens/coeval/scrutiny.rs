//! Stage 2: instance scrutiny, fully keyboard-driven. For the instance and criterion under the
//! cursor the screen lists the LLM's conclusion, score and evidence quotes; the annotator
//! approves, deletes, revises or adds each part and sets their own 1–5 score. What a key does
//! is `concord_core::study::coeval::Focus::command`; this view carries out the step it returns.
//! The app's timer ([`use_instance_timer`]) counts the time spent on each instance (time per sample) and
//! writes it to the log every five seconds and when the instance changes; it stops while the
//! tab is hidden.

use concord_core::coeval::Action;
use concord_core::study::coeval::{
    Command, Editing, Focus, KEY_HELP, Step, format_score, key_command, last_action, seconds_on,
};
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;

use super::common::use_ctx;
use crate::components::instance_timer::{TimerOptions, use_instance_timer};

#[component]
pub fn ScrutinyPanel() -> impl IntoView {
    let ctx = use_ctx();
    // Stage-2 criteria depend on stage-1 votes, which do not change on this tab: computed once
    // per study and annotator set.
    let criteria = Memo::new(move |_| {
        let study = ctx.study.get()?;
        ctx.imported.track();
        Some(ctx.stage2_criteria(&study))
    });
    let current = Memo::new(move |_| {
        let study = ctx.study.get()?;
        let criteria = criteria.get()?;
        Focus::at(&study, &criteria, ctx.cursor.get(), &ctx.state())
    });
    view! {
        <section class="panel" aria-labelledby="coeval-scrutiny-heading">
            <h2 id="coeval-scrutiny-heading">"Stage 2: scrutinise the LLM's evaluations"</h2>
            {move || {
                if ctx.study.get().is_none() {
                    return view! { <p class="muted">"Set up a task first."</p> }.into_any();
                }
                if ctx.annotator.get().trim().is_empty() {
                    return view! { <p class="muted">"Enter your name (annotator) in Task setup first."</p> }.into_any();
                }
                if current.get().is_none() {
                    return view! { <p class="muted">"This task has no instances or no criteria."</p> }.into_any();
                }
                view! { <Scrutiny current=current/> }.into_any()
            }}
        </section>
        <KeyHelp/>
    }
}

#[component]
fn Scrutiny(current: Memo<Option<Focus>>) -> impl IntoView {
    let ctx = use_ctx();
    let list_ref = NodeRef::<html::Div>::new();
    let editing = RwSignal::new(None::<Editing>);
    let edit_text = RwSignal::new(String::new());
    let edit_reason = RwSignal::new(String::new());
    let text_ref = NodeRef::<html::Input>::new();
    let reason_ref = NodeRef::<html::Input>::new();

    let focus_list = move || {
        if let Some(el) = list_ref.get_untracked() {
            let _ = el.focus();
        }
    };
    // Focus the list when the screen opens so the keys work at once.
    Effect::new(move |_| {
        if list_ref.get().is_some() {
            focus_list();
        }
    });

    // The per-instance timer (the app's one timer wiring; the counting is the core's).
    let timer = use_instance_timer(
        move || current.with(|c| c.as_ref().map(|c| c.instance.id.clone())),
        move |stretch| {
            ctx.record(vec![stretch.into()]);
        },
        // The stretch so far is recorded once this view is gone: recording it while the view
        // is torn down re-runs closures whose memos are already disposed (issue 36).
        move |stretch| ctx.record_later(stretch.into()),
        TimerOptions { within: None, autosave: true },
    );

    let open_editor = move |mode: Editing, text: String| {
        edit_text.set(text);
        edit_reason.set(String::new());
        editing.set(Some(mode));
        request_animation_frame(move || {
            let target = if mode.has_text() { text_ref } else { reason_ref };
            if let Some(el) = target.try_get_untracked().flatten() {
                let _ = el.focus();
            }
        });
    };
    let run = move |cmd: Command| {
        let Some(c) = current.get_untracked() else { return };
        match c.command(cmd) {
            Step::Move(cursor) => ctx.move_to(cursor),
            Step::Record(events) => {
                ctx.record(events);
            }
            Step::Edit { mode, text } => open_editor(mode, text),
            Step::Nothing => {}
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        if ev.alt_key() {
            return;
        }
        if let Some(cmd) = key_command(&ev.key(), ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            run(cmd);
        }
    };
    let save_edit = move || {
        let (Some(mode), Some(c)) = (editing.get_untracked(), current.get_untracked()) else {
            return;
        };
        let (event, cursor) = c.edit(mode, edit_text.get_untracked(), edit_reason.get_untracked());
        if ctx.record(vec![event]) {
            editing.set(None);
            if let Some(cursor) = cursor {
                ctx.move_to(cursor);
            }
            focus_list();
        }
    };
    let editor_key = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            save_edit();
        }
        "Escape" => {
            ev.prevent_default();
            editing.set(None);
            focus_list();
        }
        _ => {}
    };

    let c = move || current.get();
    let last_action = move || last_action(&ctx.log());
    let seconds = move || {
        // The clock is read first, so the display subscribes to its tick whatever follows.
        timer
            .with(|t, now| Some(seconds_on(&ctx.state(), &c()?.instance.id, t, now)))
            .flatten()
            .unwrap_or(0.0)
    };
    view! {
        {move || c().map(|c| {
            view! {
                <div class="row scrutiny-head">
                    <span data-testid="scrutiny-position">{c.position()}</span>
                    <span class="muted">{format!("system: {}", c.instance.system)}</span>
                    <span class="muted" data-testid="scrutiny-progress">{c.progress()}</span>
                </div>
                <div class="instance-texts">
                    <div><h3>"Input"</h3><p class="long-text" data-testid="instance-input" tabindex="0" role="region" aria-label="Input">{c.instance.input.clone()}</p></div>
                    <div><h3>"Output"</h3><p class="long-text" data-testid="instance-output" tabindex="0" role="region" aria-label="Output">{c.instance.output.clone()}</p></div>
                </div>
                <h3>"Criterion: " <span data-testid="scrutiny-criterion">{c.criterion.name.clone()}</span></h3>
                {c.evaluation.is_none().then(|| view! { <p class="muted">"The LLM has no evaluation for this criterion: add evidence and score it yourself."</p> })}
            }
        })}
        <div class="parts" tabindex="0" node_ref=list_ref role="group" data-testid="scrutiny-parts"
            aria-label="The LLM's evaluation, part by part (keys: see Keyboard below)"
            aria-keyshortcuts="j k n p a Shift+A r x e 1 2 3 4 5 u Control+Z"
            on:keydown=on_key>
            {move || c().map(|c| {
                c.rows.iter().enumerate().map(|(i, row)| {
                    let focused = i == c.cursor.part;
                    let decision = row.decision_text();
                    let class = match row.decision.as_ref().map(|d| d.action) {
                        Some(Action::Approve) => "part approved",
                        Some(Action::Revise) => "part revised",
                        Some(Action::Delete) => "part deleted",
                        Some(Action::Add) => "part added",
                        None => "part",
                    };
                    view! {
                        <div class=class class:focused=focused aria-current=focused.then_some("true") data-testid="part">
                            <span class="part-label">{row.label.clone()}</span>
                            <span class="part-text">{row.llm_text.clone()}</span>
                            <span class="part-decision" data-testid="part-decision">{decision}</span>
                        </div>
                    }
                }).collect_view()
            })}
        </div>
        <Show when=move || editing.get().is_some()>
            <div class="editor row" role="group" aria-label="Edit the focused part">
                <span>{move || editing.get().map(Editing::prompt).unwrap_or_default()}</span>
                <Show when=move || editing.get().is_some_and(Editing::has_text)>
                    <label for="coeval-edit-text">"New text"</label>
                    <input id="coeval-edit-text" type="text" node_ref=text_ref prop:value=move || edit_text.get()
                        on:input=move |ev| edit_text.set(event_target_value(&ev)) on:keydown=editor_key/>
                </Show>
                <label for="coeval-edit-reason">"Reason"</label>
                <input id="coeval-edit-reason" type="text" node_ref=reason_ref prop:value=move || edit_reason.get()
                    on:input=move |ev| edit_reason.set(event_target_value(&ev)) on:keydown=editor_key/>
                <button class="primary" type="button" on:click=move |_| save_edit()>"Save"</button>
                <button class="secondary" type="button" on:click=move |_| { editing.set(None); focus_list(); }>"Cancel"</button>
            </div>
        </Show>
        <div class="row score-row">
            <span>"Your score:"</span>
            {(1u8..=5).map(|s| {
                let pressed = move || c().and_then(|c| c.own_score) == Some(f64::from(s));
                view! {
                    <button type="button" class="score-button" aria-label=format!("Score {s}")
                        aria-pressed=move || pressed().to_string()
                        on:click=move |_| { run(Command::Score(s)); focus_list(); }>{s}</button>
                }
            }).collect_view()}
            <span data-testid="own-score">{move || c().and_then(|c| c.own_score).map_or_else(|| "not set".to_owned(), format_score)}</span>
            <span class="muted">{move || c().and_then(|c| c.evaluation.and_then(|e| e.score)).map(|s| format!("(LLM: {})", format_score(s)))}</span>
        </div>
        <div class="row">
            <button class="secondary" type="button" on:click=move |_| { run(Command::PrevEvaluation); focus_list(); }>"Previous"</button>
            <button class="secondary" type="button" on:click=move |_| { run(Command::ApproveRest); focus_list(); }>"Approve the rest"</button>
            <button class="secondary" type="button" on:click=move |_| { run(Command::NextEvaluation); focus_list(); }>"Next"</button>
            <button class="secondary" type="button" on:click=move |_| { run(Command::Undo); focus_list(); }>"Undo"</button>
            <span class="muted" data-testid="last-action">{move || last_action().map(|a| format!("Last: {a}")).unwrap_or_default()}</span>
            <span class="timer" data-testid="instance-timer" aria-live="off">{move || format!("Time on this instance: {:.0} s", seconds())}</span>
        </div>
    }
}

#[component]
fn KeyHelp() -> impl IntoView {
    view! {
        <section class="panel" aria-labelledby="coeval-keys-heading">
            <h2 id="coeval-keys-heading">"Keyboard"</h2>
            <dl class="keys" data-testid="key-help">
                {KEY_HELP.iter().map(|(k, what)| view! { <dt><kbd>{*k}</kbd></dt><dd>{*what}</dd> }).collect_view()}
            </dl>
            <p class="muted">"Every action is saved in this browser the moment it is made; reload at any time."</p>
        </section>
    }
}
