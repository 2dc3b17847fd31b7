//! Stage 2: instance scrutiny, fully keyboard-driven. For the instance and criterion under the
//! cursor the screen lists the LLM's conclusion, score and evidence quotes; the annotator
//! approves, deletes, revises or adds each part and sets their own 1–5 score. A timer counts
//! the time spent on each instance (time per sample) and writes it to the log every ten
//! seconds and when the instance changes; it stops while the tab is hidden.

use concord_core::coeval::{Action, Event, Part};
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;

use super::model::{
    self, Command, Cursor, Evaluation, Instance, KEY_HELP, PartRow, Stage2Criterion, Study,
    approve_rest, describe, key_command, next_evidence_index, part_rows,
};
use super::{Ctx, use_ctx};
use crate::edge::time::monotonic_ms;

/// The criteria of stage 2 for the annotations on this device and imported.
pub fn stage2_criteria(ctx: Ctx, study: &Study) -> Vec<Stage2Criterion> {
    let annotations: Vec<_> = match ctx.merged_untracked() {
        Ok((m, _)) => m.annotators.into_iter().map(|a| a.state).collect(),
        Err(_) => Vec::new(),
    };
    let states: Vec<_> = annotations.iter().collect();
    let anyone_voted = states.iter().any(|a| !a.criteria.is_empty());
    let finals = concord_core::coeval::majority_criteria(&study.criteria, &states);
    study.stage2_criteria(&finals, anyone_voted)
}

/// Everything shown about the evaluation under the cursor.
#[derive(Debug, Clone, PartialEq)]
struct Current {
    cursor: Cursor,
    instances: usize,
    criteria: usize,
    instance: Instance,
    criterion: Stage2Criterion,
    evaluation: Option<Evaluation>,
    rows: Vec<PartRow>,
    own_score: Option<f64>,
    /// Evaluations this annotator has touched, of all.
    done: usize,
}

/// What the editor is open for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Editing {
    Revise(Part),
    Delete(Part),
    Add(Part),
}

#[component]
pub fn ScrutinyPanel() -> impl IntoView {
    let ctx = use_ctx();
    // Stage-2 criteria depend on stage-1 votes, which do not change on this tab: computed once
    // per study and annotator set.
    let criteria = Memo::new(move |_| {
        let study = ctx.study.get()?;
        ctx.imported.track();
        Some(stage2_criteria(ctx, &study))
    });
    let current = Memo::new(move |_| {
        let study = ctx.study.get()?;
        let criteria = criteria.get()?;
        let cursor = ctx.cursor.get();
        let instance = study.instances.get(cursor.instance)?.clone();
        let criterion = criteria.get(cursor.criterion)?.clone();
        let evaluation = study.evaluation(&instance.id, &criterion.evaluated_as).cloned();
        let state = ctx.state();
        let review = state.reviews.get(&(instance.id.clone(), criterion.evaluated_as.clone()));
        let rows = part_rows(evaluation.as_ref(), review);
        Some(Current {
            cursor,
            instances: study.instances.len(),
            criteria: criteria.len(),
            own_score: review.and_then(|r| r.score),
            instance,
            criterion,
            evaluation,
            rows,
            done: state.reviews.len(),
        })
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
fn Scrutiny(current: Memo<Option<Current>>) -> impl IntoView {
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

    // The per-instance timer. `started` holds the instance and when its current stretch began;
    // the time is `None` while the tab is hidden, so time away from the page is not counted.
    let started = StoredValue::new(None::<(String, Option<f64>)>);
    let now = RwSignal::new(monotonic_ms());
    let flush = move || {
        let Some((instance, Some(t0))) = started.try_get_value().flatten() else { return };
        let t = monotonic_ms();
        let ms = (t - t0).max(0.0) as u64;
        if ms >= 500 {
            ctx.record(vec![Event::Timer { instance: instance.clone(), ms }]);
            started.try_set_value(Some((instance, Some(t))));
        }
    };
    let page_visible = || document().visibility_state() != web_sys::VisibilityState::Hidden;
    Effect::new(move |_| {
        let id = current.with(|c| c.as_ref().map(|c| c.instance.id.clone()));
        let running = started.with_value(|s| s.as_ref().map(|(i, _)| i.clone()));
        if id != running {
            flush();
            let t0 = page_visible().then(monotonic_ms);
            started.set_value(id.map(|i| (i, t0)));
        }
    });
    let ticks = StoredValue::new(0u32);
    if let Ok(handle) = set_interval_with_handle(
        move || {
            now.set(monotonic_ms());
            ticks.update_value(|t| *t += 1);
            // Saved every 5 s (one small IndexedDB put): a crash loses at most 5 s of timing.
            if ticks.get_value().is_multiple_of(5) {
                flush();
            }
        },
        std::time::Duration::from_millis(1000),
    ) {
        on_cleanup(move || handle.clear());
    }
    // Hidden (another tab, minimised): record the stretch so far and stop counting; visible
    // again: count from now.
    let visibility = window_event_listener(leptos::ev::visibilitychange, move |_| {
        if page_visible() {
            started.try_update_value(|s| {
                if let Some((_, t0 @ None)) = s {
                    *t0 = Some(monotonic_ms());
                }
            });
            now.try_set(monotonic_ms());
        } else {
            flush();
            started.try_update_value(|s| {
                if let Some((_, t0)) = s {
                    *t0 = None;
                }
            });
        }
    });
    let hide = window_event_listener(leptos::ev::pagehide, move |_| flush());
    on_cleanup(move || {
        flush();
        hide.remove();
        visibility.remove();
    });

    let part_event =
        move |c: &Current, part: Part, action: Action, text: Option<String>, reason: String| {
            Event::Part {
                instance: c.instance.id.clone(),
                criterion: c.criterion.evaluated_as.clone(),
                part,
                action,
                text,
                reason,
            }
        };
    let open_editor = move |mode: Editing, text: String| {
        edit_text.set(text);
        edit_reason.set(String::new());
        editing.set(Some(mode));
        request_animation_frame(move || {
            let target = match mode {
                Editing::Delete(_) => reason_ref.try_get_untracked().flatten().map(|e| e.focus()),
                _ => text_ref.try_get_untracked().flatten().map(|e| e.focus()),
            };
            let _ = target;
        });
    };
    let run = move |cmd: Command| {
        let Some(c) = current.get_untracked() else { return };
        let focused = c.rows.get(c.cursor.part).cloned();
        match cmd {
            Command::NextPart => ctx.move_to(Cursor {
                part: (c.cursor.part + 1).min(c.rows.len().saturating_sub(1)),
                ..c.cursor
            }),
            Command::PrevPart => {
                ctx.move_to(Cursor { part: c.cursor.part.saturating_sub(1), ..c.cursor })
            }
            Command::NextEvaluation => {
                ctx.move_to(c.cursor.next_evaluation(c.instances, c.criteria))
            }
            Command::PrevEvaluation => ctx.move_to(c.cursor.prev_evaluation(c.criteria)),
            Command::Approve => {
                if let Some(row) = focused {
                    ctx.record(vec![part_event(
                        &c,
                        row.part,
                        Action::Approve,
                        None,
                        String::new(),
                    )]);
                }
            }
            Command::ApproveRest => {
                let events = approve_rest(&c.instance.id, &c.criterion.evaluated_as, &c.rows);
                if !events.is_empty() {
                    ctx.record(events);
                }
            }
            Command::Delete => {
                if let Some(row) = focused {
                    open_editor(Editing::Delete(row.part), String::new());
                }
            }
            Command::Revise => {
                if let Some(row) = focused {
                    let text = row.decision.and_then(|d| d.text).unwrap_or(row.llm_text);
                    open_editor(Editing::Revise(row.part), text);
                }
            }
            Command::AddEvidence => open_editor(
                Editing::Add(Part::Evidence(next_evidence_index(&c.rows))),
                String::new(),
            ),
            Command::Score(s) => {
                ctx.record(vec![Event::Score {
                    instance: c.instance.id.clone(),
                    criterion: c.criterion.evaluated_as.clone(),
                    score: f64::from(s),
                }]);
            }
            Command::Undo => {
                ctx.record(vec![Event::Undo]);
            }
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
        let (text, reason) = (edit_text.get_untracked(), edit_reason.get_untracked());
        let event = match mode {
            Editing::Revise(p) => part_event(&c, p, Action::Revise, Some(text), reason),
            Editing::Delete(p) => part_event(&c, p, Action::Delete, None, reason),
            Editing::Add(p) => part_event(&c, p, Action::Add, Some(text), reason),
        };
        if ctx.record(vec![event]) {
            editing.set(None);
            if matches!(mode, Editing::Add(_)) {
                ctx.move_to(Cursor { part: c.rows.len(), ..c.cursor });
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
    let last_action = move || {
        let log = ctx.log();
        log.events().iter().rev().find(|e| !matches!(e, Event::Timer { .. })).map(describe)
    };
    let seconds = move || {
        // Read the clock first, so the display subscribes to its tick whatever follows.
        let tick = now.get();
        let Some(c) = c() else { return 0.0 };
        let saved = ctx.state().time_ms.get(&c.instance.id).copied().unwrap_or(0) as f64;
        let running = started.with_value(|s| match s {
            Some((_, Some(t0))) => (tick - t0).max(0.0),
            _ => 0.0,
        });
        (saved + running) / 1000.0
    };
    view! {
        {move || c().map(|c| {
            let total = c.instances * c.criteria;
            view! {
                <div class="row scrutiny-head">
                    <span data-testid="scrutiny-position">
                        {format!("Instance {} of {} · criterion {} of {}", c.cursor.instance + 1, c.instances, c.cursor.criterion + 1, c.criteria)}
                    </span>
                    <span class="muted">{format!("system: {}", c.instance.system)}</span>
                    <span class="muted" data-testid="scrutiny-progress">{format!("{} of {total} evaluations touched", c.done)}</span>
                </div>
                <div class="instance-texts">
                    <div><h3>"Input"</h3><p class="long-text" data-testid="instance-input">{c.instance.input.clone()}</p></div>
                    <div><h3>"Output"</h3><p class="long-text" data-testid="instance-output">{c.instance.output.clone()}</p></div>
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
                    let decision = row.decision.as_ref().map(|d| {
                        let mut s = d.action.name().to_owned();
                        if let Some(t) = &d.text { s.push_str(&format!(": “{t}”")); }
                        if !d.reason.is_empty() { s.push_str(&format!(" (reason: {})", d.reason)); }
                        s
                    });
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
                            <span class="part-decision" data-testid="part-decision">{decision.unwrap_or_else(|| "undecided".to_owned())}</span>
                        </div>
                    }
                }).collect_view()
            })}
        </div>
        <Show when=move || editing.get().is_some()>
            <div class="editor row" role="group" aria-label="Edit the focused part">
                <span>{move || match editing.get() {
                    Some(Editing::Revise(_)) => "Revise: new text, then Enter",
                    Some(Editing::Delete(_)) => "Delete: why? then Enter",
                    Some(Editing::Add(_)) => "Add evidence: the quote, then Enter",
                    None => "",
                }}</span>
                <Show when=move || !matches!(editing.get(), Some(Editing::Delete(_)))>
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
            <span data-testid="own-score">{move || c().and_then(|c| c.own_score).map_or_else(|| "not set".to_owned(), model::format_score)}</span>
            <span class="muted">{move || c().and_then(|c| c.evaluation.and_then(|e| e.score)).map(|s| format!("(LLM: {})", model::format_score(s)))}</span>
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
