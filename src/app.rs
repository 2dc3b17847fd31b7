//! The application shell: header, screen tabs, the state contexts, and start-up (storage,
//! the saved workspace, `?bundle=` and `?exercise=` links, the view a link names).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::edge::store::Store;
use crate::persist::Workspaces;
use crate::persist::bundle::BundleTargets;
use crate::screens::class::state::PendingExercise;
use crate::screens::judge::state::JudgeState;
use crate::screens::rate::state::RateState;
use crate::screens::results::state::ResultsState;
use crate::screens::run::state::RunState;
use crate::state::{JudgeRuns, Screen, Storage, Workspace};

/// The id of a screen's tab (what the panel is labelled by).
fn tab_id(screen: Screen) -> String {
    format!("tab-{}", screen.label().to_ascii_lowercase().replace([' ', '&'], "-"))
}

#[component]
pub fn App() -> impl IntoView {
    // Each piece of state is owned by one screen (or shared, `crate::state`) and provided
    // as its own context.
    let ws = Workspace::new();
    provide_context(ws);
    provide_context(JudgeState::new());
    let run = RunState::new();
    provide_context(run);
    provide_context(ResultsState::new());
    provide_context(RateState::new());
    let pending_exercise = PendingExercise(RwSignal::new(None));
    provide_context(pending_exercise);
    provide_context(JudgeRuns::new());
    let storage = Storage::new();
    provide_context(storage);
    let saved = Workspaces::new();
    provide_context(saved);
    crate::screens::run::tasks::restore_remembered_key(run);
    crate::screens::run::tasks::restore_prices(run);
    crate::screens::run::check::restore_checks(run);
    crate::screens::install_prefetch();
    let targets = BundleTargets::from_context();
    crate::persist::workspaces::autosave(targets, saved);
    // Once the saved workspace is restored (or storage was too slow to wait for), the chunks
    // are fetched while the browser is idle.
    let prefetching = StoredValue::new(false);
    Effect::new(move |_| {
        if saved.ready.get() && !prefetching.get_value() {
            prefetching.set_value(true);
            crate::screens::prefetch_when_idle();
        }
    });
    // Storage opens in the background (if the browser refuses it, runs keep their results in
    // memory only, and the Run screen says so); then the saved workspace is restored, and
    // only then are the screens shown.
    let link_problem = RwSignal::new(None::<String>);
    // A change of screen moves the focus to its heading (`focus_heading`), so a screen
    // reader says where the user landed: not at start-up (the screen shown before
    // `focus_from` is set is where the page starts, nothing to announce), and not when the
    // arrow keys walk the tabs (`keep_focus`: the focus stays on the tab, as the ARIA tabs
    // pattern wants, so the next arrow works).
    let focus_from = StoredValue::new(None::<Screen>);
    let keep_focus = StoredValue::new(false);
    Effect::new(move |_| {
        let screen = ws.screen.get();
        let by_arrows = keep_focus.get_value();
        keep_focus.set_value(false);
        let Some(before) = focus_from.get_value() else { return };
        focus_from.set_value(Some(screen));
        if before != screen && !by_arrows {
            focus_heading(ws, screen);
        }
    });
    let owner = Owner::current();
    leptos::task::spawn_local(async move {
        let (store, problem) = Store::open_or_memory().await;
        storage.store.set(Some(store));
        storage.problem.set(problem.map(|e| e.to_string()));
        crate::persist::workspaces::start(targets, saved).await;
        // `?bundle=URL` opens a bundle (a static demo page, a reviewer's link) as a new
        // workspace. A bundle is data only: it cannot change the provider settings, so it
        // cannot send the key anywhere.
        let (link, problems) = crate::links::from_address();
        if let Some(url) = link.bundle.as_deref() {
            crate::persist::workspaces::open_bundle_url(targets, url).await;
            // Saved before the address forgets the bundle: a reload at once must find it.
            if saved.ready.get_untracked() {
                crate::persist::workspaces::flush(targets, saved).await;
            }
            crate::persist::workspaces::forget_bundle_param();
        }
        // `?exercise=URL`: a student's exercise, fetched and opened by the Class screen (its
        // code is in that screen's chunk).
        if let Some(url) = link.exercise.clone() {
            pending_exercise.0.set(Some(url));
            ws.screen.set(Screen::Class);
        }
        // Then the view the address names (`?screen=results&stat=…&method=…`), and from now
        // on the address follows the view.
        crate::links::show(targets, &link);
        // A saved workspace that could not be read is said on the Data screen: shown first.
        if saved.message.with_untracked(|m| m.as_ref().is_some_and(|(ok, _)| !ok)) {
            ws.screen.set(Screen::Data);
        }
        if !problems.is_empty() {
            let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
            link_problem.set(Some(format!("Part of this link was not used: {}.", said.join("; "))));
        }
        match &owner {
            Some(owner) => owner.with(|| crate::links::follow(targets)),
            None => crate::links::follow(targets),
        }
        // From now on a change of screen is the user's: its heading takes the focus.
        focus_from.set_value(Some(ws.screen.get_untracked()));
    });
    leptos::task::spawn_local(crate::persist::workspaces::start_deadline(storage, saved));
    view! {
        <header class="app-header">
            <h1>"Concord"</h1>
            <span class="tagline">"LLM-as-a-judge evaluation, in your browser"</span>
            // The WAI-ARIA tabs pattern: one tab in the Tab order (the selected one), ← / →
            // (and Home / End) move between screens, each tab names the panel it controls.
            <nav class="tabs" role="tablist" aria-label="Screens" on:keydown=move |ev| {
                let index = Screen::ALL.iter().position(|s| *s == ws.screen.get_untracked()).unwrap_or(0);
                let last = Screen::ALL.len() - 1;
                let next = match ev.key().as_str() {
                    "ArrowRight" => if index == last { 0 } else { index + 1 },
                    "ArrowLeft" => if index == 0 { last } else { index - 1 },
                    "Home" => 0,
                    "End" => last,
                    _ => return,
                };
                ev.prevent_default();
                if next != index {
                    keep_focus.set_value(true);
                    ws.screen.set(Screen::ALL[next]);
                }
                if let Some(tab) = document().get_element_by_id(&tab_id(Screen::ALL[next]))
                    && let Ok(tab) = tab.dyn_into::<web_sys::HtmlElement>()
                {
                    let _ = tab.focus();
                }
            }>
                {Screen::ALL
                    .into_iter()
                    .map(|screen| {
                        let selected = move || ws.screen.get() == screen;
                        view! {
                            <button role="tab" type="button" id=tab_id(screen) aria-controls="screen-panel"
                                aria-selected=move || selected().to_string()
                                tabindex=move || if selected() { "0" } else { "-1" }
                                on:click=move |_| {
                                    // Enter or Space on the selected tab (after the arrows
                                    // chose it) goes to the screen, as a click on another.
                                    if ws.screen.get_untracked() == screen {
                                        focus_heading(ws, screen);
                                    } else {
                                        ws.screen.set(screen);
                                    }
                                }>
                                {screen.label()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
            <ThemeChoice/>
        </header>
        // The tab panel sits inside <main>, which stays the page's main landmark.
        <main>
            {move || link_problem.get().map(|text| view! { <p class="error-box" role="alert" data-testid="link-problem">{text}</p> })}
            <div id="screen-panel" role="tabpanel" aria-labelledby=move || tab_id(ws.screen.get())>
            // The screen's name, for screen readers (the selected tab shows it): what takes the
            // focus when the user goes to another screen.
            <h2 id="screen-heading" class="visually-hidden" tabindex="-1">{move || ws.screen.get().label()}</h2>
            {move || if !saved.ready.get() {
                view! { <p class="muted" role="status" data-testid="workspace-restoring">"Opening your saved workspace…"</p> }.into_any()
            } else {
                crate::screens::screen_view(ws.screen.get())
            }}
            </div>
        </main>
    }
}

/// Moves the focus to the heading of `screen` once its view is in (a split screen's chunk
/// may still be on its way: the "Loading …" note is there until it is), unless the user went
/// on to another screen meanwhile or the screen put the focus in itself. Waits at most 30 s.
fn focus_heading(ws: Workspace, screen: Screen) {
    leptos::task::spawn_local(async move {
        for attempt in 0..600 {
            // First a pause: the heading's text and the panel follow the change in effects.
            crate::edge::time::sleep(if attempt == 0 { 0 } else { 50 }).await;
            if ws.screen.get_untracked() != screen {
                return;
            }
            let doc = document();
            let loading =
                doc.query_selector("#screen-panel [data-testid='screen-loading']").ok().flatten();
            let heading = doc
                .get_element_by_id("screen-heading")
                .filter(|h| h.text_content().as_deref() == Some(screen.label()))
                .and_then(|h| h.dyn_into::<web_sys::HtmlElement>().ok());
            if let (None, Some(heading)) = (loading, heading) {
                // A screen that took the focus itself as it showed keeps it.
                let claimed = doc.active_element().is_some_and(|el| {
                    el.id() != "screen-heading"
                        && el.closest("#screen-panel").ok().flatten().is_some()
                });
                if !claimed {
                    let _ = heading.focus();
                }
                return;
            }
        }
    });
}

/// Where the theme chosen on this device is kept (`light`, `dark`; absent: the system's).
const THEME_STORAGE: &str = "concord.theme";

/// The theme control: Auto (the system's preference), Light or Dark, kept on this device.
/// `boot.js` applies it (before the first paint, and on the `concord-theme` event sent here).
#[component]
fn ThemeChoice() -> impl IntoView {
    let storage = || web_sys::window().and_then(|w| w.local_storage().ok().flatten());
    let initial = storage()
        .and_then(|s| s.get_item(THEME_STORAGE).ok().flatten())
        .filter(|t| t == "light" || t == "dark")
        .unwrap_or_else(|| "auto".to_owned());
    let chosen = RwSignal::new(initial);
    let choose = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        if let Some(s) = storage() {
            let _ = if value == "auto" {
                s.remove_item(THEME_STORAGE)
            } else {
                s.set_item(THEME_STORAGE, &value)
            };
        }
        chosen.set(value);
        if let (Some(w), Ok(event)) = (web_sys::window(), web_sys::Event::new("concord-theme")) {
            let _ = w.dispatch_event(&event);
        }
    };
    view! {
        <label class="theme-choice">"Theme"
            <select aria-label="Theme" data-testid="theme" on:change=choose>
                {[("auto", "Auto"), ("light", "Light"), ("dark", "Dark")].into_iter().map(|(value, label)| view! {
                    <option value=value selected=move || chosen.get() == value>{label}</option>
                }).collect_view()}
            </select>
        </label>
    }
}
