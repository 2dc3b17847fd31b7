//! One module per screen, and where the app is split: with the `split` feature (which `cargo
//! xtask build`'s release pipeline turns on) every screen but Data is a split point
//! (`wasm_split`, what Leptos' `#[lazy]` expands to, here `fallible`), its own wasm chunk
//! fetched the first time its tab opens. Without the feature (`cargo test`, `cargo xtask build
//! --dev`) the same functions are plain calls: an unsplit build cannot load a split function.
//!
//! Only views are split off: each screen's state is created by `app::App` and provided as a
//! context, so opening a bundle, restoring a workspace or a run on another screen never waits
//! for a chunk. The Class screen is the exception: nothing outside it and the Rate screen reads
//! its state, so its signals are made on first use, in those chunks (`class::state`).

pub mod class;
pub mod coeval;
pub mod data;
pub mod judge;
pub mod meta;
pub mod prefetch;
pub mod rate;
pub mod results;
pub mod run;

use leptos::prelude::*;

use crate::state::Screen;

/// A screen's chunk could not be fetched (offline, or a new deploy removed its `pkg-<hash>/`): said in
/// the tab panel with a way to try again, where a failed load would otherwise abort the app.
#[derive(Debug, thiserror::Error)]
#[error("the {screen} screen could not be loaded ({cause}); check the connection and try again")]
pub struct ChunkError {
    screen: &'static str,
    cause: String,
}

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for ChunkError {
    fn from(e: leptos::wasm_split::SplitLoaderError) -> ChunkError {
        // Which screen is filled in by `loading`, which knows it.
        ChunkError { screen: "", cause: e.to_string() }
    }
}

/// Calls a split point: awaited inside `Suspense` when split, called directly otherwise.
macro_rules! lazy_view {
    ($screen:expr, $view:ident) => {{
        #[cfg(feature = "split")]
        {
            loading($screen, || Box::pin(async { $view().await }))
        }
        #[cfg(not(feature = "split"))]
        {
            match $view() {
                Ok(make) => make(),
                Err(e) => view! { <p role="alert">{e.to_string()}</p> }.into_any(),
            }
        }
    }};
}

/// The view of `screen` for the tab panel: Data at once; any other screen once its chunk is
/// loaded, with a short "Loading …" note until then (the first time only: a loaded chunk
/// renders at once).
pub fn screen_view(screen: Screen) -> AnyView {
    match screen {
        Screen::Data => view! { <data::DataScreen/> }.into_any(),
        Screen::Judge => lazy_view!(screen, judge_view),
        Screen::Run => lazy_view!(screen, run_view),
        Screen::Results => lazy_view!(screen, results_view),
        Screen::Rate => lazy_view!(screen, rate_view),
        Screen::Meta => lazy_view!(screen, meta_view),
        Screen::CoEval => lazy_view!(screen, coeval_view),
        Screen::Class => lazy_view!(screen, class_view),
    }
}

/// Whether screens may be fetched ahead of their tabs: not when the browser asks to save data
/// (`navigator.connection.saveData`, the user's "Lite mode" or data saver) or the address says
/// `prefetch=off` (kept in links like any unknown parameter; the load benchmark uses it to
/// measure each screen's own download).
pub fn prefetch_allowed() -> bool {
    use crate::edge::js::{global_property, property};
    let navigator = global_property("navigator");
    let save_data =
        property(&property(&navigator, "connection"), "saveData").as_bool() == Some(true);
    let search = property(&global_property("location"), "search").as_string().unwrap_or_default();
    let off = search.trim_start_matches('?').split('&').any(|p| p == "prefetch=off");
    !save_data && !off
}

/// The split modules the idle prefetch loads, in this order (`wasm_split` module names: the
/// first argument of the split points below and of `persist/bundle.rs`'s): what the Data screen needs
/// next (saving the workspace, opening bundles, loading a file), then every other screen in tab
/// order.
#[cfg(feature = "split")]
const PREFETCH: [&str; 8] = [
    "page_io",
    "screen_judge",
    "screen_run",
    "screen_results",
    "screen_rate",
    "screen_meta",
    "screen_coeval",
    "screen_class",
];

/// Once the first screen is up and the browser idle, loads [`PREFETCH`] one module at a time,
/// each after an idle moment, so a tab opened later shows at once (its chunk is then in
/// memory, as after a first visit). The user's clicks come first: nothing is prefetched while
/// a screen the user opened is loading, and the chunk loader fetches a prefetch at low
/// priority and aborts it (to fetch it again afterwards) when the user opens a screen that
/// does not need it (`edge::chunks`). A failed fetch is forgotten (the tab tries again, and
/// says so if it fails then).
pub fn prefetch_when_idle() {
    /// `<html data-prefetched>`: `screens` once every chunk was asked for, `off` when not
    /// allowed, `unsplit` in a build without chunks (tests wait for it before going offline).
    fn mark(value: &str) {
        if let Some(root) =
            web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element())
        {
            let _ = root.set_attribute("data-prefetched", value);
        }
    }
    #[cfg(not(feature = "split"))]
    mark("unsplit");
    #[cfg(feature = "split")]
    leptos::task::spawn_local(async {
        use crate::edge::chunks;
        use crate::edge::time::{idle, sleep};
        if !prefetch_allowed() {
            mark("off");
            return;
        }
        const WAIT_MS: u32 = 2_000;
        for name in PREFETCH {
            loop {
                idle(WAIT_MS).await;
                if !chunks::user_loading() {
                    break;
                }
                sleep(100).await;
            }
            if chunks::prefetch(name).await.is_none() {
                load_split(name).await;
            }
        }
        mark("screens");
    });
}

/// Loads split module `name` through its split point, as its screen would: for a chunk
/// loader without a prefetch of its own.
#[cfg(feature = "split")]
async fn load_split(name: &str) {
    let _ = match name {
        "page_io" => {
            crate::persist::bundle::prefetch_io().await;
            return;
        }
        "screen_judge" => judge_view().await,
        "screen_run" => run_view().await,
        "screen_results" => results_view().await,
        "screen_rate" => rate_view().await,
        "screen_meta" => meta_view().await,
        "screen_coeval" => coeval_view().await,
        "screen_class" => class_view().await,
        _ => return,
    };
}

/// Installs [`prefetch_rate`] and [`prefetch_results`] for the code below this module that
/// asks for them ([`prefetch`]). Called once by the app at start-up.
pub fn install_prefetch() {
    prefetch::install(prefetch::Prefetch { rate: prefetch_rate, results: prefetch_results });
}

/// Fetches the Rate screen's chunk ahead of its tab, so a student who goes offline after
/// opening an exercise can still rate it (without the `split` feature there is nothing to
/// fetch).
pub fn prefetch_rate() {
    #[cfg(feature = "split")]
    leptos::task::spawn_local(async {
        let _ = rate_view().await;
    });
}

/// Fetches the Results screen's chunk ahead of its tab: a student who opened a correct-judge
/// exercise reviews the judge there, offline too.
pub fn prefetch_results() {
    #[cfg(feature = "split")]
    leptos::task::spawn_local(async {
        let _ = results_view().await;
    });
}

/// A split screen's view once its chunk is in: the screen's constructor.
#[cfg(feature = "split")]
type Loading = std::pin::Pin<Box<dyn Future<Output = Result<fn() -> AnyView, ChunkError>> + Send>>;

/// A screen whose chunk may still be on its way; a failed fetch is said, with Try again
/// (a failed load is not remembered: the next call fetches afresh). One function for every
/// screen (the future boxed): a generic one was compiled once per screen into the main module.
#[cfg(feature = "split")]
fn loading(screen: Screen, load: fn() -> Loading) -> AnyView {
    let attempt = RwSignal::new(0_u32);
    let fallback = move || {
        view! {
            <p class="muted" role="status" data-testid="screen-loading">
                {format!("Loading the {} screen…", screen.label())}
            </p>
        }
    };
    view! {
        <Suspense fallback=fallback>
            {move || {
                attempt.track();
                let view = load();
                // Disposed with this rendering: a chunk that arrives after the screen was left
                // (or shown again) builds nothing under an owner that is gone.
                let alive = StoredValue::new(());
                Suspend::new(async move {
                    match view.await {
                        Ok(make) if alive.try_with_value(|_| ()).is_some() => untrack(make),
                        Ok(_) => ().into_any(),
                        Err(e) => {
                            let e = ChunkError { screen: screen.label(), ..e };
                            view! {
                                <div class="panel" role="alert" data-testid="screen-load-error">
                                    <p>{e.to_string()}</p>
                                    <button type="button" on:click=move |_| attempt.update(|n| *n += 1)>
                                        "Try again"
                                    </button>
                                </div>
                            }
                            .into_any()
                        }
                    }
                })
            }}
        </Suspense>
    }
    .into_any()
}

// Each screen's view in its own chunk (`split_screen_<name>.wasm`, plus the `chunk_<n>.wasm`
// they share). `fallible`: a failed fetch is an `Err`, not a panic (which would abort the app).
// A split point returns the screen's constructor (its code is in the chunk), called once the
// chunk is in only if the screen is still wanted.

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_judge, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn judge_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <judge::JudgeScreen/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_run, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn run_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <run::RunScreen/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_results, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn results_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <results::ResultsScreen/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_rate, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn rate_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <rate::RateScreen/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_meta, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn meta_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <meta::MetaPage/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_coeval, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn coeval_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <coeval::CoEvalPage/> }.into_any())
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(screen_class, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn class_view() -> Result<fn() -> AnyView, ChunkError> {
    Ok(|| view! { <class::ClassScreen/> }.into_any())
}
