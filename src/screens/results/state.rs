//! The Results screen's state: how the table is viewed (statistic, level, baseline, layout,
//! resampling), the intervals computed under that view, the selected cell, and where the
//! shown results came from.

use concord_core::study::workbench::Settings;
use concord_core::study::workbench::report::CellIntervals;
use leptos::prelude::*;

/// The Results screen's state, provided as context (bundles read and write it).
#[derive(Clone, Copy)]
pub struct ResultsState {
    /// Statistic, level, baseline, layout, bootstrap settings.
    pub settings: RwSignal<Settings>,
    /// Bootstrap intervals of the shown table's cells, when computed.
    pub intervals: RwSignal<Option<CellIntervals>>,
    /// Set while intervals are being computed.
    pub computing: RwSignal<bool>,
    /// The cell whose plots and items are shown: (method, attribute).
    pub selected: RwSignal<Option<(usize, usize)>>,
    /// Set when results came from a bundle: where from.
    pub bundle_source: RwSignal<Option<String>>,
    /// Why the last bundle could not be opened.
    pub bundle_error: RwSignal<Option<String>>,
}

impl ResultsState {
    pub fn new() -> ResultsState {
        ResultsState {
            settings: RwSignal::new(Settings::default()),
            intervals: RwSignal::new(None),
            computing: RwSignal::new(false),
            selected: RwSignal::new(None),
            bundle_source: RwSignal::new(None),
            bundle_error: RwSignal::new(None),
        }
    }
}

impl Default for ResultsState {
    fn default() -> Self {
        ResultsState::new()
    }
}

/// The Results screen's state from context.
pub fn use_results() -> ResultsState {
    expect_context::<ResultsState>()
}
