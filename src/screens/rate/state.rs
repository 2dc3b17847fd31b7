//! Rate it yourself's state: the raters added in Concord, with their scores.

use concord_core::study::workbench::ExtraRater;
use leptos::prelude::*;

/// Rate it yourself's state, provided as context (the Results screen compares these raters
/// with the judges; bundles carry them).
#[derive(Clone, Copy)]
pub struct RateState {
    pub raters: RwSignal<Vec<ExtraRater>>,
}

impl RateState {
    pub fn new() -> RateState {
        RateState { raters: RwSignal::new(Vec::new()) }
    }
}

impl Default for RateState {
    fn default() -> Self {
        RateState::new()
    }
}

/// Rate it yourself's state from context.
pub fn use_rate() -> RateState {
    expect_context::<RateState>()
}
