//! The meta-evaluation screen's state as signals, owned by a root owner of their own that
//! lives as long as the page: switching to another tab and back keeps the loaded files, and an
//! async task that outlives the component never touches a disposed signal.
//!
//! The workspace itself (files, live runs) is the core's [`Workspace`]; the report the screen
//! renders is a memo of it ([`State::report`]). [`snapshot`] and [`apply_snapshot`] are what a
//! bundle saves and restores of this screen.

use std::cell::Cell;
use std::sync::Arc;

use concord_core::report::Report;
use concord_core::run::ProviderId;
use concord_core::study::meta::live::MetaMethod;
use concord_core::study::meta::settings::{
    Controls, SettingsError, labelled_text, parse_labelled, parse_seeds,
};
use concord_core::study::meta::{
    Computed, Settings, Snapshot, SnapshotError, TieConvention, Workspace,
};
use leptos::prelude::*;

use crate::run::runner::RunControl;

/// The screen's signals (`Copy`, so closures take it freely).
#[derive(Clone, Copy)]
pub struct State {
    pub(super) workspace: RwSignal<Workspace>,
    /// "Reading x (2 of 5)…" while files are being read.
    pub(super) loading: RwSignal<Option<String>>,
    pub(super) errors: RwSignal<Vec<String>>,
    pub(super) k: RwSignal<String>,
    pub(super) init: RwSignal<String>,
    pub(super) scale: RwSignal<String>,
    pub(super) shuffles: RwSignal<String>,
    pub(super) seed: RwSignal<String>,
    pub(super) resamples: RwSignal<String>,
    /// The settings `computed` was made with (the controls as last applied).
    pub(super) settings: RwSignal<Settings>,
    /// Elo and Bradley–Terry per JDEval file, and the seed spread once asked for.
    pub(super) computed: RwSignal<Computed>,
    /// "Computing 2 of 4…" while Elo / Bradley–Terry run.
    pub(super) computing: RwSignal<Option<String>>,
    /// Bumped by each recomputation so a stale one stops.
    pub(super) generation: RwSignal<u64>,
    pub(super) last_compute_ms: RwSignal<Option<f64>>,
    pub(super) control_error: RwSignal<Option<String>>,
    pub(super) convention: RwSignal<TieConvention>,
    pub(super) selected_meta: RwSignal<Option<u64>>,
    pub(super) debate_file: RwSignal<Option<u64>>,
    pub(super) debate_index: RwSignal<usize>,
    pub(super) branch_file: RwSignal<Option<u64>>,
    pub(super) branch_index: RwSignal<usize>,
    /// How many seeds the Elo seed spread uses (seed, seed + 1, …).
    pub(super) seeds: RwSignal<String>,
    /// The "Labelled pairs" control's text, and the count it last said (`None`: every label),
    /// applied at once like the tie convention.
    pub(super) labelled_text: RwSignal<String>,
    pub(super) labelled: RwSignal<Option<usize>>,
    pub(super) labelled_error: RwSignal<Option<String>>,
    pub(super) seed_status: RwSignal<Option<String>>,
    /// Set when a snapshot was applied: the screen recomputes Elo and Bradley–Terry when it
    /// next shows.
    pub(super) stale: RwSignal<bool>,
    /// Every table and figure the screen shows.
    pub(super) report: Memo<Arc<Report>>,
    /// Live runs from this screen.
    pub(super) run: RunState,
}

/// The run controls and the current run, as signals.
#[derive(Clone, Copy)]
pub(super) struct RunState {
    pub evaluators: RwSignal<String>,
    pub meta_model: RwSignal<String>,
    pub pair_source: RwSignal<Option<u64>>,
    pub pair_limit: RwSignal<String>,
    pub swap: RwSignal<bool>,
    pub method: RwSignal<MetaMethod>,
    pub rounds: RwSignal<String>,
    pub openmeva: RwSignal<bool>,
    pub item_limit: RwSignal<String>,
    pub running: RwSignal<bool>,
    pub paused: RwSignal<bool>,
    pub status: RwSignal<Option<String>>,
    pub error: RwSignal<Option<String>>,
    pub control: StoredValue<RunControl, LocalStorage>,
    pub score_source: RwSignal<Option<u64>>,
    pub score_limit: RwSignal<String>,
    pub score_openmeva: RwSignal<bool>,
    /// API keys of providers other than the Run screen's, for evaluators named `model @
    /// provider`: in memory only (never stored, exported or logged).
    pub keys: RwSignal<Vec<(ProviderId, String)>>,
}

impl RunState {
    fn new() -> RunState {
        let text = |s: &str| RwSignal::new(s.to_owned());
        RunState {
            evaluators: text(""),
            meta_model: text(""),
            pair_source: RwSignal::new(None),
            pair_limit: text("20"),
            swap: RwSignal::new(true),
            method: RwSignal::new(MetaMethod::JdEval),
            rounds: text("3"),
            openmeva: RwSignal::new(true),
            item_limit: text("20"),
            running: RwSignal::new(false),
            paused: RwSignal::new(false),
            status: RwSignal::new(None),
            error: RwSignal::new(None),
            control: StoredValue::new_local(RunControl::new()),
            score_source: RwSignal::new(None),
            score_limit: text("20"),
            score_openmeva: RwSignal::new(true),
            keys: RwSignal::new(Vec::new()),
        }
    }
}

/// How the report is computed: [`install_report`] sets it.
type ReportWith = fn(&Workspace, &Settings, &Computed) -> Report;

thread_local! {
    /// Set by the screen's view before it reads [`State::report`]: the tables' and figures'
    /// computation then travels in the screen's chunk, not in the first download (a saved
    /// workspace's autosave creates the state on the page's first load).
    static REPORT_WITH: Cell<Option<ReportWith>> = const { Cell::new(None) };
}

/// Makes [`State::report`] compute the report (before the screen first reads it).
pub(super) fn install_report() {
    REPORT_WITH.with(|r| r.set(Some(|w, settings, computed| w.report_with(settings, computed))));
}

thread_local! {
    // The owner is kept beside the state: dropping it would dispose the signals.
    static STATE: (Owner, State) = {
        let owner = Owner::new_root(None);
        let state = owner.with(State::new);
        (owner, state)
    };
}

impl State {
    fn new() -> State {
        let defaults = Settings::default();
        let controls = Controls::of(&defaults);
        let text = |s: String| RwSignal::new(s);
        let workspace = RwSignal::new(Workspace::new());
        let settings = RwSignal::new(defaults);
        let computed = RwSignal::new(Computed::default());
        let convention = RwSignal::new(defaults.ties);
        let labelled = RwSignal::new(defaults.labelled);
        let report = Memo::new(move |_| {
            let settings =
                Settings { ties: convention.get(), labelled: labelled.get(), ..settings.get() };
            let report_with = REPORT_WITH.with(Cell::get);
            computed.with(|c| {
                workspace
                    .with(|w| Arc::new(report_with.map(|f| f(w, &settings, c)).unwrap_or_default()))
            })
        });
        State {
            workspace,
            loading: RwSignal::new(None),
            errors: RwSignal::new(Vec::new()),
            k: text(controls.k),
            init: text(controls.init),
            scale: text(controls.scale),
            shuffles: text(controls.shuffles),
            seed: text(controls.seed),
            resamples: text(controls.resamples),
            settings,
            computed,
            computing: RwSignal::new(None),
            generation: RwSignal::new(0),
            last_compute_ms: RwSignal::new(None),
            control_error: RwSignal::new(None),
            convention,
            selected_meta: RwSignal::new(None),
            debate_file: RwSignal::new(None),
            debate_index: RwSignal::new(0),
            branch_file: RwSignal::new(None),
            branch_index: RwSignal::new(0),
            seeds: text(defaults.seeds.to_string()),
            labelled_text: text(labelled_text(defaults.labelled)),
            labelled,
            labelled_error: RwSignal::new(None),
            seed_status: RwSignal::new(None),
            stale: RwSignal::new(false),
            report,
            run: RunState::new(),
        }
    }

    /// The screen's state (created on first use).
    pub fn shared() -> State {
        STATE.with(|(_, state)| *state)
    }

    /// The settings the controls say (not tracked), or what is wrong with them.
    pub(super) fn read_controls(&self) -> Result<Settings, SettingsError> {
        let controls = Controls {
            k: self.k.get_untracked(),
            init: self.init.get_untracked(),
            scale: self.scale.get_untracked(),
            shuffles: self.shuffles.get_untracked(),
            seed: self.seed.get_untracked(),
            resamples: self.resamples.get_untracked(),
        };
        let rest = Settings {
            ties: self.convention.get_untracked(),
            labelled: self.labelled.get_untracked(),
            ..self.settings.get_untracked()
        };
        controls.read(&rest)
    }

    /// Shows `settings` in the controls.
    fn show_settings(&self, settings: &Settings) {
        let c = Controls::of(settings);
        self.k.set(c.k);
        self.init.set(c.init);
        self.scale.set(c.scale);
        self.shuffles.set(c.shuffles);
        self.seed.set(c.seed);
        self.resamples.set(c.resamples);
        self.seeds.set(settings.seeds.to_string());
        self.convention.set(settings.ties);
        self.labelled.set(settings.labelled);
        self.labelled_text.set(labelled_text(settings.labelled));
        self.labelled_error.set(None);
        self.settings.set(*settings);
    }

    /// Applies the "Labelled pairs" control's `text`: the corrected win rate follows at once;
    /// text that is no count is said and the last count kept.
    pub(super) fn set_labelled(&self, text: String) {
        match parse_labelled(&text) {
            Ok(k) => {
                self.labelled.set(k);
                self.labelled_error.set(None);
            }
            Err(e) => self.labelled_error.set(Some(e.to_string())),
        }
        self.labelled_text.set(text);
    }
}

/// What a bundle saves of this screen: the released files by name and SHA-256, the live runs'
/// specs and raw answers, and the settings the numbers shown were computed with (the tie
/// convention, seed count and labelled pairs as the controls show them). No key.
pub fn snapshot() -> Snapshot {
    let settings = settings_now();
    State::shared().workspace.with_untracked(|w| w.snapshot(&settings))
}

/// Subscribes the running effect to what [`snapshot`] saves (the workspace and its settings):
/// the saved workspace is written again when they change.
pub fn track_changes() {
    track_files();
    let state = State::shared();
    state.settings.track();
    state.convention.track();
    state.labelled.track();
}

/// Subscribes the running effect to the files and live runs alone (what only a full save of
/// the workspace carries).
pub fn track_files() {
    State::shared().workspace.track();
}

/// A digest of the workspace's files and live runs (their names and SHA-256s as a snapshot
/// lists them): what changes when a file is loaded or removed or a run is added.
pub fn files_signature() -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    State::shared().workspace.with_untracked(|w| {
        for e in w.entries() {
            (e.id, e.needed().is_some()).hash(&mut h);
        }
    });
    h.finish()
}

/// The settings [`snapshot`] saves, as the controls show them now.
pub fn settings_now() -> Settings {
    let state = State::shared();
    let mut settings = state.settings.get_untracked();
    settings.ties = state.convention.get_untracked();
    settings.labelled = state.labelled.get_untracked();
    if let Ok(seeds) = parse_seeds(&state.seeds.get_untracked()) {
        settings.seeds = seeds;
    }
    settings
}

/// Shows `settings` in the controls (a page's unsaved edits restored); Elo and Bradley–Terry
/// follow when the screen next shows.
pub fn apply_settings(settings: &Settings) {
    let state = State::shared();
    state.show_settings(settings);
    state.stale.set(true);
}

/// Restores this screen from a bundle's snapshot: the live runs at once (their tables,
/// viewers and Elo from their raw answers), the released files listed as needed until the user
/// loads files with their SHA-256, the controls as saved. Elo and Bradley–Terry are recomputed
/// when the screen next shows.
pub fn apply_snapshot(snapshot: &Snapshot) -> Result<(), SnapshotError> {
    let workspace = Workspace::restore(snapshot)?;
    let state = State::shared();
    // A computation still running belongs to the former workspace.
    state.generation.update(|g| *g += 1);
    state.show_settings(&snapshot.settings);
    state.workspace.set(workspace);
    state.computed.set(Computed::default());
    state.computing.set(None);
    state.last_compute_ms.set(None);
    state.control_error.set(None);
    state.seed_status.set(None);
    state.errors.set(Vec::new());
    state.selected_meta.set(None);
    state.debate_file.set(None);
    state.debate_index.set(0);
    state.branch_file.set(None);
    state.branch_index.set(0);
    state.run.pair_source.set(None);
    state.run.score_source.set(None);
    state.run.status.set(None);
    state.run.error.set(None);
    state.stale.set(true);
    Ok(())
}
