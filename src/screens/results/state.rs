//! The Results screen's state: how the table is viewed (statistic, level, baseline, layout,
//! resampling), the intervals computed under that view, the selected cell, and where the
//! shown results came from.

use concord_core::study::workbench::report::CellIntervals;
use concord_core::study::workbench::review::{
    self, Merged, Order, ReviewError, ReviewEvent, ReviewLog, ReviewerFile,
};
use concord_core::study::workbench::revise::{Draft, ReviewSnapshot, Revision, Split};
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
    /// The review of the judge runs (kept here so bundles reach it with the rest).
    pub review: ReviewState,
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
            review: ReviewState::new(),
        }
    }
}

impl Default for ResultsState {
    fn default() -> Self {
        ResultsState::new()
    }
}

/// The review of the judge runs ("Review and correct"), part of [`ResultsState`]: the reviewer
/// working in this browser and their log, the other reviewers' imported files, the walk.
/// Every event is written to IndexedDB as it is made ([`super::tasks::append_review`]), so a
/// reload replays the same state; bundles read and write it.
#[derive(Clone, Copy)]
pub struct ReviewState {
    /// Who reviews in this browser (their log is `review/<name>/…` in the annotations store).
    pub reviewer: RwSignal<String>,
    /// Their events.
    pub log: RwSignal<ReviewLog>,
    /// Other reviewers' files, by the name they were imported under, in import order.
    pub imported: RwSignal<Vec<(String, ReviewerFile)>>,
    pub order: RwSignal<Order>,
    pub seed: RwSignal<u64>,
    /// The run under review, by [`review::run_key`].
    pub run: RwSignal<Option<String>>,
    /// The position in the walk.
    pub cursor: RwSignal<usize>,
    /// The dataset the review in memory belongs to
    /// ([`review::dataset_scope`]); `None` before one was read.
    pub scope: RwSignal<Option<String>>,
    /// Set once the review was read from storage.
    pub loaded: RwSignal<bool>,
    /// Events of the log committed to storage.
    pub saved: RwSignal<usize>,
    /// What went wrong last (a refused event, storage, an import).
    pub error: RwSignal<Option<String>>,
    /// The revision / held-out split, once drawn (never redrawn without the user asking).
    pub split: RwSignal<Option<Split>>,
    /// The meta-prompt's template, when the user edited it.
    pub meta_template: RwSignal<Option<String>>,
    /// The revisions made, in order.
    pub revisions: RwSignal<Vec<Revision>>,
    /// The proposal in the editor (kept in this browser as it is typed).
    pub draft: RwSignal<Option<Draft>>,
}

impl ReviewState {
    pub fn new() -> ReviewState {
        ReviewState {
            reviewer: RwSignal::new(String::new()),
            log: RwSignal::new(ReviewLog::new()),
            imported: RwSignal::new(Vec::new()),
            order: RwSignal::new(Order::default()),
            seed: RwSignal::new(0),
            run: RwSignal::new(None),
            cursor: RwSignal::new(0),
            scope: RwSignal::new(None),
            loaded: RwSignal::new(false),
            saved: RwSignal::new(0),
            error: RwSignal::new(None),
            split: RwSignal::new(None),
            meta_template: RwSignal::new(None),
            revisions: RwSignal::new(Vec::new()),
            draft: RwSignal::new(None),
        }
    }

    /// Every file, the imported ones first and this browser's reviewer last (their decisions
    /// win the merge).
    pub fn files(&self) -> Vec<ReviewerFile> {
        let mut files: Vec<ReviewerFile> =
            self.imported.with(|i| i.iter().map(|(_, f)| f.clone()).collect());
        let name = self.reviewer.get();
        if !name.trim().is_empty() {
            files.push(self.log.with(|log| ReviewerFile::by(&name, log)));
        }
        files
    }

    /// Every reviewer's work merged.
    pub fn merged(&self) -> Result<Merged, ReviewError> {
        review::merge(&self.files()).map_err(|(_, e)| e)
    }

    /// What a bundle of the dataset `scope` carries: `None` when nobody reviewed anything, or
    /// when the review in memory is another dataset's (the Results screen was not opened since
    /// the dataset changed).
    pub fn snapshot(&self, scope: &str) -> Option<ReviewSnapshot> {
        if self.scope.get_untracked().as_deref() != Some(scope) {
            return None;
        }
        let snapshot = ReviewSnapshot {
            reviewer: self.reviewer.get_untracked(),
            order: self.order.get_untracked(),
            seed: self.seed.get_untracked(),
            files: untrack(|| self.files()),
            split: self.split.get_untracked(),
            meta_template: self.meta_template.get_untracked(),
            revisions: self.revisions.get_untracked(),
        };
        (!snapshot.is_empty()).then_some(snapshot)
    }

    /// Appends `event` to the reviewer's log; `Err` says why it was refused (nothing changed).
    pub fn push(&self, event: ReviewEvent) -> Result<usize, ReviewError> {
        let mut log = self.log.get_untracked();
        log.push(event)?;
        let seq = log.events().len() - 1;
        self.log.set(log);
        Ok(seq)
    }
}

impl Default for ReviewState {
    fn default() -> Self {
        ReviewState::new()
    }
}

/// The review's state from context (it lives in the Results screen's state).
pub fn use_review() -> ReviewState {
    use_results().review
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
