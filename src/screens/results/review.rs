//! The Results screen's "Review and correct" panel: a reviewer walks through a judge run's
//! items with the keyboard — the text, the judge's rating, samples and rationale, the human
//! rating — and accepts, changes or flags each (the core's
//! [`review`](concord_core::study::workbench::review) log; keys from its `key_command`).
//! Every event is written to IndexedDB as it is made; the time on each item is counted by the
//! app's timer ([`use_instance_timer`], stopped while the tab is hidden or the focus is
//! elsewhere); other reviewers' files are
//! imported and merged with their conflicts shown; the agreement before and after comes from
//! the core's `review_tables`, rendered as they are.
//!
//! With a correct-judge exercise open (Class screen) the panel is in exercise mode: it names
//! the exercise and the run to correct, the reviewer is the student (their name from the Class
//! screen), and their decisions and time go into the submission exported there.

use std::sync::Arc;

use concord_core::annotation::Stretch;
use concord_core::study::workbench::report::review_resampling;
use concord_core::study::workbench::review::{
    self, Command, KEY_HELP, Order, ReviewEvent, ReviewItem, Verdict, format_rating, key_command,
    run_key_of,
};
use concord_core::study::workbench::{JudgedRun, ResultsTable};
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use super::revise::RevisePanel;
use super::state::{ReviewState, use_results, use_review};
use super::tasks;
use crate::components::download::save_text;
use crate::components::instance_timer::{TimerOptions, use_instance_timer};
use crate::components::table_view::TableView;
use crate::edge::files::read_file;
use crate::edge::store::Store;
use crate::screens::class::state::use_class;
use crate::state::{Screen, use_runs, use_storage, use_workspace};

/// Why a reviewer's file could not be imported.
#[derive(Debug, thiserror::Error)]
enum ImportFailure {
    #[error("could not be read ({0}); choose it again")]
    Read(String),
    #[error(transparent)]
    Bad(review::ReviewError),
}

/// Writes `event` to the reviewer's log and, at once, to storage; says why when refused.
fn record(review: ReviewState, store: Option<Store>, event: ReviewEvent) -> bool {
    let reviewer = review.reviewer.get_untracked();
    if reviewer.trim().is_empty() {
        review.error.set(Some("Enter your name (reviewer) first.".to_owned()));
        return false;
    }
    if store.is_some() && !review.loaded.get_untracked() {
        review.error.set(Some(
            "Your review is still being read from this browser; try again in a moment.".to_owned(),
        ));
        return false;
    }
    let scope = review.scope.get_untracked().unwrap_or_default();
    match review.push(event.clone()) {
        Ok(seq) => {
            review.error.set(None);
            if let Some(store) = store {
                spawn_local(async move {
                    if let Err(e) =
                        tasks::append_review(review, &store, &scope, &reviewer, seq, &event).await
                    {
                        review.error.try_set(Some(e.to_string()));
                    }
                });
            }
            true
        }
        Err(e) => {
            review.error.set(Some(e.to_string()));
            false
        }
    }
}

thread_local! {
    /// Set by [`focus_walk_on_open`]: the next walk to open takes the focus.
    static FOCUS_ON_OPEN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The review walk takes the focus (and scrolls into view) when it next opens: for "Correct
/// the judge", which opens the Results screen to review. Opening Results otherwise leaves the
/// focus on the screen's heading and the page at its top.
pub fn focus_walk_on_open() {
    FOCUS_ON_OPEN.with(|f| f.set(true));
}

/// Makes `name` the reviewer in this browser: their stored log is read (decisions wait until it
/// is). The name field and a student's "Correct the judge" call it.
pub fn switch_reviewer(review: ReviewState, store: Option<Store>, name: String) {
    if name == review.reviewer.get_untracked() {
        return;
    }
    // Decisions wait until this reviewer's log is read (they would land in another's).
    review.reviewer.set(name.clone());
    review.log.set(Default::default());
    review.saved.set(0);
    review.cursor.set(0);
    let Some(store) = store else { return };
    review.loaded.set(false);
    spawn_local(async move {
        if let Err(e) = tasks::switch_reviewer(review, &store, name).await {
            review.error.try_set(Some(e.to_string()));
        }
    });
}

#[component]
pub fn ReviewPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let results = use_results();
    let review = use_review();
    let storage = use_storage();
    // The review of the open dataset: read when the screen opens on a dataset other than the
    // one in memory (each dataset has its own review in this browser).
    let scope =
        Memo::new(move |_| ws.dataset.with(|open| review::dataset_scope(&open.loaded.dataset)));
    Effect::new(move |_| {
        let scope = scope.get();
        if let Some(store) = storage.store.get()
            && review.scope.get_untracked().as_deref() != Some(scope.as_str())
        {
            review.loaded.set(false);
            spawn_local(async move {
                if let Err(e) = tasks::load_review(review, &store, scope).await {
                    review.error.try_set(Some(e.to_string()));
                }
            });
        }
    });
    // The runs on the table, by key, with their attribute.
    let choices = Memo::new(move |_| {
        table.with(|(t, _)| {
            let mut out = Vec::new();
            for (m, method) in t.methods.iter().enumerate() {
                for (a, attribute) in t.attributes.iter().enumerate() {
                    if t.cell(m, a).is_some() {
                        out.push(run_key_of(method, attribute));
                    }
                }
            }
            out
        })
    });
    let current_run = Memo::new(move |_| {
        let choices = choices.get();
        review.run.get().filter(|r| choices.contains(r)).or_else(|| choices.first().cloned())
    });
    // The items of the run under review as the table reads it (a later run of the same key
    // replaces one). Read in a task of its own after the change that asked for it, without
    // copying the run: a 1,600-item run of 20 samples is 32,000 parses, which would otherwise
    // lengthen the task that opened a bundle or finished a run.
    let judged = Memo::new(move |_| {
        let key = current_run.get()?;
        runs.runs
            .with(|r| r.iter().rev().find(|r| run_key_of(&r.method, &r.attribute) == key).cloned())
    });
    let items = RwSignal::new(Arc::new(Vec::<ReviewItem>::new()));
    Effect::new(move |_| {
        judged.track();
        ws.dataset.track();
        spawn_local(async move {
            crate::edge::time::yield_now().await;
            let read = judged.try_with_untracked(|run| {
                let run: &JudgedRun = run.as_ref()?;
                ws.dataset
                    .try_with_untracked(|open| review::review_items(&open.loaded.dataset, run))
            });
            items.try_set(Arc::new(read.flatten().unwrap_or_default()));
        });
    });
    let walk = Memo::new(move |_| {
        let items = items.get();
        review::order(&items, review.order.get(), review.seed.get())
    });
    let current = Memo::new(move |_| {
        let walk = walk.get();
        let at = review.cursor.get().min(walk.len().saturating_sub(1));
        let item = walk.get(at).and_then(|&i| items.with(|v| v.get(i).cloned()))?;
        Some((at, walk.len(), item))
    });
    let merged = Memo::new(move |_| review.merged().map_err(|e| e.to_string()));
    let reviews = Memo::new(move |_| merged.get().map(|m| m.reviews).unwrap_or_default());
    let tables = Memo::new(move |_| {
        let Ok(merged) = merged.get() else { return Vec::new() };
        let settings = results.settings.get();
        let (t, _) = table.get();
        ws.dataset.with(|open| {
            review::review_tables(&open.loaded.dataset, &t, &merged, review_resampling(&settings))
        })
    });

    let set_name = move |ev: leptos::ev::Event| {
        let name = event_target_value(&ev).trim().to_owned();
        switch_reviewer(review, storage.store.get_untracked(), name);
    };
    // Exercise mode: the open exercise's run to correct, when it is on the table.
    let class = use_class();
    let exercise = Memo::new(move |_| {
        let ex = class.exercise.get()?;
        let key = ex.correct_judge_key()?;
        Some((ex.title.clone(), key, ex.reference.hidden && !class.exported.get()))
    });
    let save_walk = move || {
        if let Some(store) = storage.store.get_untracked() {
            let (order, seed) = (review.order.get_untracked(), review.seed.get_untracked());
            spawn_local(async move {
                if let Err(e) = tasks::save_walk(&store, order, seed).await {
                    review.error.try_set(Some(e.to_string()));
                }
            });
        }
    };
    let set_order = move |ev: leptos::ev::Event| {
        if let Some(order) = Order::from_name(&event_target_value(&ev)) {
            review.order.set(order);
            review.cursor.set(0);
            save_walk();
        }
    };
    let set_seed = move |ev: leptos::ev::Event| {
        if let Ok(seed) = event_target_value(&ev).trim().parse::<u64>() {
            review.seed.set(seed);
            review.cursor.set(0);
            save_walk();
        }
    };
    let set_run = move |ev: leptos::ev::Event| {
        review.run.set(Some(event_target_value(&ev)));
        review.cursor.set(0);
    };
    let export_mine = move |_| {
        let name = review.reviewer.get_untracked();
        if name.trim().is_empty() {
            review.error.set(Some("Enter your name (reviewer) first.".to_owned()));
            return;
        }
        let file = review.log.with_untracked(|log| review::ReviewerFile::by(&name, log));
        if let Err(e) =
            save_text(&format!("concord-review-{name}.json"), "application/json", &file.to_json())
        {
            review.error.set(Some(e.to_string()));
        }
    };
    let on_import = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(list) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..list.length()).filter_map(|i| list.get(i)).collect();
        input.set_value("");
        let store = storage.store.get_untracked();
        spawn_local(async move {
            for file in files {
                let name = file.name();
                let read = match read_file(&file).await {
                    Ok(bytes) => review::import(&bytes).map_err(ImportFailure::Bad),
                    Err(e) => Err(ImportFailure::Read(e)),
                };
                match read {
                    Ok(f) => {
                        let scope = review.scope.try_get_untracked().flatten().unwrap_or_default();
                        if let Some(store) = &store
                            && let Err(e) = tasks::save_imported(store, &scope, &name, &f).await
                        {
                            review.error.try_set(Some(e.to_string()));
                        }
                        review.imported.try_update(|v| {
                            v.retain(|(n, _)| *n != name);
                            v.push((name, f));
                        });
                    }
                    Err(e) => {
                        review.error.try_set(Some(format!("{name}: {e}")));
                    }
                }
            }
        });
    };

    view! {
        <section class="panel" aria-labelledby="review-heading" data-testid="review-panel"
            data-ready=move || review.loaded.get().to_string()>
            <h2 id="review-heading">"Review and correct"</h2>
            <p class="muted">
                "Walk through a judge run's items: accept the judge's rating, change it, or flag the item with a note. Every action is saved in this browser the moment it is made (reload at any time; undo works after a reload). The agreement with the human ratings before and after your corrections is below; other reviewers' files merge with yours, and where two of you decided an item differently the conflict is listed."
            </p>
            <div class="row">
                <label class="control" for="review-name">
                    <span>"Your name (reviewer)"</span>
                    <input id="review-name" type="text" data-testid="review-name"
                        prop:value=move || review.reviewer.get() on:change=set_name/>
                </label>
                <label class="control" for="review-run">
                    <span>"Judge run"</span>
                    <select id="review-run" data-testid="review-run" on:change=set_run>
                        {move || choices.get().into_iter().map(|key| {
                            let selected = current_run.get().as_deref() == Some(key.as_str());
                            view! { <option value=key.clone() selected=selected>{key.clone()}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <label class="control" for="review-order">
                    <span>"Order"</span>
                    <select id="review-order" data-testid="review-order" on:change=set_order>
                        {Order::ALL.into_iter().map(|o| view! {
                            <option value=o.name() selected=move || review.order.get() == o>{o.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label class="control" for="review-seed">
                    <span>"Seed"</span>
                    <input id="review-seed" type="number" min="0" data-testid="review-seed"
                        prop:value=move || review.seed.get().to_string() on:change=set_seed/>
                </label>
            </div>
            {move || exercise.get().map(|(title, key, hidden)| {
                let student = class.student.get();
                let reviewer = review.reviewer.get();
                view! {
                    <p class="notice-line" role="status" data-testid="review-exercise">
                        {format!("Exercise “{title}”: correct the judge run {key}. ")}
                        {if student.is_empty() || student != reviewer {
                            format!("Your decisions count in the submission only under your name on the Class screen{}; type it as the reviewer's name.", if student.is_empty() { String::new() } else { format!(" ({student})") })
                        } else {
                            format!("Your decisions and your time on each item go into your submission, {student}: export it on the Class screen.")
                        }}
                        {hidden.then_some(" The reference is hidden until you export.")}
                        " "
                        <button type="button" class="secondary small" on:click=move |_| ws.screen.set(Screen::Class)>"Back to the exercise"</button>
                    </p>
                }
            })}
            {move || review.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="review-error">{e}</p> })}
            <Show when=move || current.with(Option::is_some)
                fallback=|| view! { <p class="muted" data-testid="review-empty">"This run has no items to review."</p> }>
                <Walker current=current walk=walk run=current_run/>
            </Show>
            // `data-stored`: every event stored, the timer's included (the line counts actions).
            <p class="muted" role="status" data-testid="review-saved" data-stored=move || review.saved.get().to_string()>
                {move || {
                    let saved = review.saved.get();
                    review.log.with(|l| review::saved_line(l.events(), saved))
                }}
            </p>
            <div class="row">
                <button type="button" class="secondary" data-testid="review-export" on:click=export_mine>"Export my review"</button>
                <label class="control" for="review-import">
                    <span>"Import reviewers' files"</span>
                    <input id="review-import" type="file" multiple accept=".json,application/json"
                        data-testid="review-import" on:change=on_import/>
                </label>
                <span class="muted" data-testid="review-reviewers">
                    {move || merged.get().ok().map(|m| format!("Reviewers: {}", if m.reviewers.is_empty() { "none yet".to_owned() } else { m.reviewers.join(", ") }))}
                </span>
            </div>
            {move || merged.get().err().map(|e| view! { <p class="error-box" role="alert">{e}</p> })}
            {move || tables.get().into_iter().map(|t| {
                let id = if t.id == review::REVIEW_TABLE { "review-table" } else { "review-conflicts" };
                view! { <TableView table=Arc::new(t) testid=id/> }
            }).collect_view()}
            <dl class="keys" data-testid="review-keys">
                {KEY_HELP.iter().map(|(k, what)| view! { <dt><kbd>{*k}</kbd></dt><dd>{*what}</dd> }).collect_view()}
            </dl>
        </section>
        <RevisePanel table=table run=current_run judged=judged items=items reviews=reviews/>
    }
}

#[component]
fn Walker(
    current: Memo<Option<(usize, usize, ReviewItem)>>,
    walk: Memo<Vec<usize>>,
    run: Memo<Option<String>>,
) -> impl IntoView {
    let ws = use_workspace();
    let review = use_review();
    let storage = use_storage();
    let list_ref = NodeRef::<html::Div>::new();
    let note_ref = NodeRef::<html::Input>::new();
    let flagging = RwSignal::new(false);
    let note = RwSignal::new(String::new());
    let focus_walker = move || {
        if let Some(el) = list_ref.get_untracked() {
            let _ = el.focus();
        }
    };
    // The walk takes the focus when it opens only when asked to ("Correct the judge"): the
    // Results screen otherwise opens at its table, the focus on the screen's heading.
    Effect::new(move |_| {
        if list_ref.get().is_some() && FOCUS_ON_OPEN.with(|f| f.replace(false)) {
            focus_walker();
        }
    });

    // The time on each item: the app's one timer, its stretches written as the review's
    // timer events. It counts only while the panel is in use: the page visible and the focus
    // in the review panel (the walk, its buttons, the note). Working elsewhere on Results,
    // another screen or another browser tab stops it; coming back resumes it.
    let record_stretch = move |stretch: Stretch| {
        let Some(event) = review::timer_event(stretch) else { return };
        // Time is kept for a named reviewer only: nobody asked to be timed, so no error either.
        if review.reviewer.try_with_untracked(|r| r.trim().is_empty()).unwrap_or(true) {
            return;
        }
        let store = storage.store.try_get_untracked().flatten();
        record(review, store, event);
    };
    let timer = use_instance_timer(
        move || {
            let id = current.with(|c| c.as_ref().map(|(_, _, item)| item.id.clone()));
            run.get().zip(id).map(|(r, i)| review::timer_item(&r, &i))
        },
        record_stretch,
        // Taken now, recorded once this view is gone: recording it here would re-run this
        // view's closures, whose parent's memos are already disposed.
        move |stretch| spawn_local(async move { record_stretch(stretch) }),
        TimerOptions { within: Some("[data-testid=\"review-panel\"]"), autosave: true },
    );

    let step = move |by: isize| {
        let len = walk.with_untracked(Vec::len);
        review.cursor.update(|c| {
            let at = (*c).min(len.saturating_sub(1)) as isize + by;
            *c = at.clamp(0, len.saturating_sub(1) as isize) as usize;
        });
    };
    let decide = move |make: &dyn Fn(String, String) -> ReviewEvent| {
        let (Some(run), Some((_, _, item))) = (run.get_untracked(), current.get_untracked()) else {
            return;
        };
        let event = make(run, item.id);
        // A new rating off the attribute's scale is refused where it is typed (the core says
        // the scale).
        if let ReviewEvent::Change { run, rating, .. } = &event
            && let Err(e) = ws
                .dataset
                .with_untracked(|open| review::check_change(&open.loaded.dataset, run, *rating))
        {
            review.error.set(Some(e.to_string()));
            return;
        }
        let store = storage.store.get_untracked();
        if record(review, store, event) {
            step(1);
        }
    };
    let run_command = move |cmd: Command| match cmd {
        Command::Next => step(1),
        Command::Previous => step(-1),
        Command::Accept => decide(&|run, item| ReviewEvent::Accept { run, item }),
        Command::Rate(d) => {
            decide(&|run, item| ReviewEvent::Change { run, item, rating: f64::from(d) })
        }
        Command::Flag => {
            note.set(String::new());
            flagging.set(true);
            request_animation_frame(move || {
                if let Some(el) = note_ref.try_get_untracked().flatten() {
                    let _ = el.focus();
                }
            });
        }
        Command::Undo => {
            let store = storage.store.get_untracked();
            record(review, store, ReviewEvent::Undo);
        }
    };
    let on_key = move |ev: KeyboardEvent| {
        if ev.alt_key() {
            return;
        }
        if let Some(cmd) = key_command(&ev.key(), ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            run_command(cmd);
        }
    };
    let save_flag = move || {
        let text = note.get_untracked();
        decide(&|run, item| ReviewEvent::Flag { run, item, note: text.clone() });
        if review.error.with_untracked(Option::is_none) {
            flagging.set(false);
            focus_walker();
        }
    };
    let note_key = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            save_flag();
        }
        "Escape" => {
            ev.prevent_default();
            flagging.set(false);
            focus_walker();
        }
        _ => {}
    };
    let verdict = move || {
        let (Some(run), Some((_, _, item))) =
            (run.try_get().flatten(), current.try_get().flatten())
        else {
            return None;
        };
        let merged = review.merged().ok()?;
        let v = merged.reviews.verdict(&run, &item.id)?.clone();
        let by = merged.by.get(&(run, item.id)).cloned().unwrap_or_default();
        Some((v, by))
    };
    let seconds = move || {
        // The clock is read first, so the display subscribes to its tick whatever follows.
        let running = timer.running_ms();
        let (Some(run), Some((_, _, item))) =
            (run.try_get().flatten(), current.try_get().flatten())
        else {
            return 0.0;
        };
        let saved = review.log.with(|l| l.replay().ms_on(&run, &item.id)) as f64;
        (saved + running) / 1000.0
    };
    let texts = move || {
        let (_, _, item) = current.get()?;
        ws.dataset.with(|open| {
            let it = open.loaded.dataset.items.get(item.index)?;
            let mut fields: Vec<(String, String)> = it.inputs.0.clone();
            fields.push((it.output_name.clone(), it.output.clone()));
            Some(fields)
        })
    };
    view! {
        <div class="review-walk" tabindex="0" node_ref=list_ref role="group" data-testid="review-walk"
            aria-label="The item under review (keys: see the list below)"
            aria-keyshortcuts="j k a Enter 0 1 2 3 4 5 6 7 8 9 f u Control+Z"
            on:keydown=on_key>
            {move || current.get().map(|(at, len, item)| view! {
                <div class="row">
                    <span data-testid="review-position">{format!("Item {} of {len}", at + 1)}</span>
                    <span class="muted" data-testid="review-item-id">{item.id.clone()}</span>
                    <span class="timer" data-testid="review-timer" aria-live="off">{move || format!("Time on this item: {:.0} s", seconds())}</span>
                </div>
                <dl class="review-ratings">
                    <dt>"Judge"</dt>
                    <dd data-testid="review-judge">{item.judge.map_or_else(|| "no rating read".to_owned(), format_rating)}</dd>
                    <dt>"Samples"</dt>
                    <dd data-testid="review-samples">{item.samples.iter().map(|s| format_rating(*s)).collect::<Vec<_>>().join(", ")}
                        {item.spread.map(|s| format!(" (spread {s:.2})"))}</dd>
                    <dt>"Human"</dt>
                    <dd data-testid="review-human">{item.human.map_or_else(|| "none".to_owned(), format_rating)}</dd>
                    <dt>"Decision"</dt>
                    <dd data-testid="review-verdict">{move || match verdict() {
                        None => "not reviewed".to_owned(),
                        Some((v, by)) => format!("{} ({by})", v.describe()),
                    }}</dd>
                </dl>
            })}
            {move || texts().map(|fields| fields.into_iter().map(|(name, text)| view! {
                <div><h3>{name.clone()}</h3><p class="long-text" tabindex="0" role="region" aria-label=name>{text}</p></div>
            }).collect_view())}
            {move || current.get().map(|(_, _, item)| view! {
                <div><h3>"The judge's answer"</h3><p class="long-text" data-testid="review-rationale" tabindex="0" role="region" aria-label="The judge's answer">{item.rationale.clone()}</p></div>
            })}
        </div>
        <Show when=move || flagging.get()>
            <div class="editor row" role="group" aria-label="Flag the item">
                <label for="review-note">"Note"</label>
                <input id="review-note" type="text" node_ref=note_ref data-testid="review-note"
                    prop:value=move || note.get() on:input=move |ev| note.set(event_target_value(&ev))
                    on:keydown=note_key/>
                <button class="primary" type="button" on:click=move |_| save_flag()>"Flag"</button>
                <button class="secondary" type="button" on:click=move |_| { flagging.set(false); focus_walker(); }>"Cancel"</button>
            </div>
        </Show>
        <div class="row">
            <button class="secondary" type="button" on:click=move |_| { run_command(Command::Previous); focus_walker(); }>"Previous"</button>
            <button class="secondary" type="button" on:click=move |_| { run_command(Command::Accept); focus_walker(); }>"Accept"</button>
            <button class="secondary" type="button" on:click=move |_| run_command(Command::Flag)>"Flag…"</button>
            <button class="secondary" type="button" on:click=move |_| { run_command(Command::Next); focus_walker(); }>"Next"</button>
            <button class="secondary" type="button" on:click=move |_| { run_command(Command::Undo); focus_walker(); }>"Undo"</button>
            <span class="muted" data-testid="review-last">{move || review.log.with(|l| l.last_decision().map(describe_event)).map(|d| format!("Last: {d}")).unwrap_or_default()}</span>
        </div>
    }
}

fn describe_event(e: &ReviewEvent) -> String {
    match e {
        ReviewEvent::Accept { item, .. } => format!("{item} accepted"),
        ReviewEvent::Change { item, rating, .. } => {
            format!("{item} {}", Verdict::Change { rating: *rating }.describe())
        }
        ReviewEvent::Flag { item, note, .. } => format!("{item} flagged: {note}"),
        _ => String::new(),
    }
}
