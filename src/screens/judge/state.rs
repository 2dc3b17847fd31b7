//! The Judge screen's state: the study (attributes and methods with their prompt templates),
//! which the Run screen plans and the Results screen names.

use concord_core::study::workbench::Study;
use leptos::prelude::*;

/// The Judge screen's state, provided as context.
#[derive(Clone, Copy)]
pub struct JudgeState {
    pub study: RwSignal<Study>,
}

impl JudgeState {
    pub fn new() -> JudgeState {
        JudgeState { study: RwSignal::new(Study::default()) }
    }
}

impl Default for JudgeState {
    fn default() -> Self {
        JudgeState::new()
    }
}

/// The Judge screen's state from context.
pub fn use_judge() -> JudgeState {
    expect_context::<JudgeState>()
}
