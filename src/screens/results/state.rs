//! The Results screen's state: how the table is viewed (statistic, level, baseline, layout,
//! resampling), the intervals computed under that view, the selected cell, and where the
//! shown results came from.

use concord_core::study::workbench::report::CellIntervals;
use concord_core::study::workbench::{JudgedRun, Settings};
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
    /// The cell whose plots and items are shown: (method, attribute), by name (a link or a
    /// new table keeps it on the same cell).
    pub selected: RwSignal<Option<(String, String)>>,
    /// The item of that cell shown in full, by id.
    pub item: RwSignal<Option<String>>,
    /// Where the bundle on the table was downloaded from (a link to this view names it).
    pub bundle_url: RwSignal<Option<String>>,
    /// Set when results came from a bundle: where from.
    pub bundle_source: RwSignal<Option<String>>,
    /// The runs that bundle brought (origin, method, attribute): the banner speaks of the bundle
    /// only while its runs are on the table.
    pub bundle_runs: RwSignal<Vec<RunId>>,
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
            item: RwSignal::new(None),
            bundle_url: RwSignal::new(None),
            bundle_source: RwSignal::new(None),
            bundle_runs: RwSignal::new(Vec::new()),
            bundle_error: RwSignal::new(None),
        }
    }
}

impl Default for ResultsState {
    fn default() -> Self {
        ResultsState::new()
    }
}

/// What names a run on the table: its origin (`study` or a file), method and attribute.
pub type RunId = (String, String, String);

/// The id of `run`.
pub fn run_id(run: &JudgedRun) -> RunId {
    (run.origin.clone(), run.method.clone(), run.attribute.clone())
}

/// What the source banner says: where the runs on the table come from, or nothing when none
/// came from a bundle.
pub fn source_line(source: &str, bundle_runs: &[RunId], runs: &[JudgedRun]) -> Option<String> {
    let from_bundle = runs.iter().filter(|r| bundle_runs.contains(&run_id(r))).count();
    let others = runs.len() - from_bundle;
    match (from_bundle, others) {
        (0, _) => None,
        (_, 0) => Some(format!(
            "Showing the bundle {source}: every number below was recomputed from its raw responses."
        )),
        (b, o) => Some(format!(
            "Showing {b} run{} of the bundle {source} (recomputed from its raw responses) and {o} run{} made or imported since.",
            if b == 1 { "" } else { "s" },
            if o == 1 { "" } else { "s" }
        )),
    }
}

/// The Results screen's state from context.
pub fn use_results() -> ResultsState {
    expect_context::<ResultsState>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use concord_core::data::JudgeRun;
    use concord_core::judge::parse::Policy;

    fn run(origin: &str, method: &str) -> JudgedRun {
        JudgedRun {
            method: method.into(),
            attribute: "coherence".into(),
            policy: Policy::Concord,
            weighting: None,
            run: JudgeRun { name: method.into(), attribute: None, records: Vec::new() },
            origin: origin.into(),
        }
    }

    #[test]
    fn the_banner_follows_the_runs_on_the_table() {
        let from_bundle = vec![run("study", "a"), run("study", "b")];
        let ids: Vec<RunId> = from_bundle.iter().map(run_id).collect();
        let all = source_line("demo.json", &ids, &from_bundle).unwrap_or_default();
        assert!(all.starts_with("Showing the bundle demo.json"), "{all}");
        // A run of this session replaced one of them: both are said.
        let mixed = vec![run("study", "a"), run("file.json", "c")];
        assert_eq!(
            source_line("demo.json", &ids, &mixed).as_deref(),
            Some(
                "Showing 1 run of the bundle demo.json (recomputed from its raw responses) and 1 run made or imported since."
            )
        );
        // None of the bundle's runs is left: no banner about it.
        assert_eq!(source_line("demo.json", &ids, &[run("file.json", "c")]), None);
    }
}
