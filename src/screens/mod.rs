//! One module per screen, and where the app is split: with the `split` feature (what `cargo
//! xtask build` builds) every screen but Data is a `#[lazy]` split point, its own wasm chunk
//! fetched the first time its tab opens. Without the feature (`cargo test`, clippy) the same
//! functions are plain calls, since an unsplit build cannot load a `#[lazy]` function.
//!
//! Only views are split off: each screen's state is created by `app::App` and provided as a
//! context, so opening a bundle, restoring a workspace or a run on another screen never waits
//! for a chunk.

pub mod coeval;
pub mod data;
pub mod judge;
pub mod meta;
pub mod rate;
pub mod results;
pub mod run;

use leptos::prelude::*;

use crate::state::Screen;

/// Calls a split point: awaited inside `Suspense` when split, called directly otherwise.
macro_rules! lazy_view {
    ($screen:expr, $view:ident) => {{
        #[cfg(feature = "split")]
        {
            loading($screen, Suspend::new(async move { $view().await }))
        }
        #[cfg(not(feature = "split"))]
        {
            $view()
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
    }
}

/// A screen whose chunk may still be on its way.
#[cfg(feature = "split")]
fn loading(screen: Screen, view: Suspend<AnyView>) -> AnyView {
    view! {
        <Suspense fallback=move || view! {
            <p class="muted" role="status" data-testid="screen-loading">
                {format!("Loading the {} screen…", screen.label())}
            </p>
        }>{view}</Suspense>
    }
    .into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn judge_view() -> AnyView {
    view! { <judge::JudgeScreen/> }.into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn run_view() -> AnyView {
    view! { <run::RunScreen/> }.into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn results_view() -> AnyView {
    view! { <results::ResultsScreen/> }.into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn rate_view() -> AnyView {
    view! { <rate::RateScreen/> }.into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn meta_view() -> AnyView {
    view! { <meta::MetaPage/> }.into_any()
}

#[cfg_attr(feature = "split", lazy)]
fn coeval_view() -> AnyView {
    view! { <coeval::CoEvalPage/> }.into_any()
}
