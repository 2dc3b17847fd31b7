//! The meta-evaluation screen's async work: reading files (hashed between frames, parsed in the
//! Web Worker, analysed by the core), recomputing Elo and Bradley–Terry and the Elo seed spread
//! a frame's worth at a time ([`FrameBudget`]), and the live runs — each a core [`RunSpec`]
//! whose protocols are driven through [`runner::execute`], every answer fed back and recorded,
//! then handed to the workspace as a [`LiveRun`] (which replays them into its files).
//!
//! Every call goes through [`runner::execute`]: answers are stored under their cache keys the
//! moment they arrive and nothing stored is requested again, so a cancelled or failed run
//! continues where it stopped when run again. Multi-step protocols (MDEval's rounds, BSMEval's
//! branch then solve) are driven step by step: each step sends the pending requests of every
//! protocol, then feeds the answers back.

use std::collections::BTreeMap;
use std::sync::Arc;

use concord_core::judge::ChatResponse;
use concord_core::judge::meta_eval::IndividualTask;
use concord_core::judge::protocol::{Protocol, ProtocolError};
use concord_core::judge::template::RenderError;
use concord_core::meta::{BradleyTerryIntervals, EloResult};
use concord_core::run::{Finish, FinishMessage, ProviderId, cache_key_for};
use concord_core::study::meta::compute::{self, PairwiseResult, SeedSpread};
use concord_core::study::meta::files::{
    FileHasher, IndividualInput, JdEvalFile, MetaFile, analyze_loaded,
};
use concord_core::study::meta::live::{LiveRun, MetaMethod, Protocols, RunSpec, couple_jobs};
use concord_core::study::meta::settings::parse_seeds;
use concord_core::study::meta::targets::{TargetError, evaluator_target, model_list};
use concord_core::study::meta::{Computed, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::File;

use super::state::{RunState, State};
use crate::edge::files::read_file;
use crate::edge::store::{Store, StoreName};
use crate::edge::time::{FrameBudget, monotonic_ms, yield_now};
use crate::edge::worker::load_in_worker;
use crate::run::connection::Connection;
use crate::run::runner::{self, CallSpec, RunControl};
use crate::screens::run::state::LlmAccess;

/// Bytes hashed between two looks at the frame budget.
const HASH_SLICE: usize = 256 * 1024;

/// SHA-256 of a file's bytes, a slice at a time between frames.
async fn hash_sliced(bytes: &[u8]) -> String {
    let mut hasher = FileHasher::new();
    let mut budget = FrameBudget::new();
    for chunk in bytes.chunks(HASH_SLICE) {
        hasher.update(chunk);
        budget.tick().await;
    }
    hasher.finish()
}

/// Reads and analyses `files` one after the other, then recomputes the pairwise results. A
/// file a restored snapshot waits for (same SHA-256) takes its place, under the snapshot's
/// name. Each file's bytes are kept in this browser by SHA-256 ([`StoreName::Files`]), so a
/// reload (or a bundle naming the same file) restores it without asking for it again.
pub(super) fn load_files(state: State, store: Option<Store>, files: Vec<File>) {
    if files.is_empty() {
        return;
    }
    spawn_local(async move {
        let total = files.len();
        for (i, file) in files.into_iter().enumerate() {
            let picked = file.name();
            state.loading.set(Some(format!("Reading {picked} ({} of {total})…", i + 1)));
            // Paint the progress before the reading.
            yield_now().await;
            match read_file(&file).await {
                Ok(bytes) => {
                    let sha256 = hash_sliced(&bytes).await;
                    // The same bytes again (under any name) would count every record twice.
                    let same = state
                        .workspace
                        .with_untracked(|w| w.loaded_name(&sha256).map(str::to_owned));
                    if let Some(listed) = same {
                        state.errors.update(|e| {
                            e.push(format!(
                                "{picked} is already loaded (the same content as {listed}): skipped"
                            ))
                        });
                        continue;
                    }
                    if let Some(store) = &store
                        && let Err(e) = store
                            .put_bytes(
                                StoreName::Files,
                                &sha256,
                                &js_sys::Uint8Array::from(&bytes[..]),
                            )
                            .await
                    {
                        state.errors.update(|list| {
                            list.push(format!(
                                "{picked} could not be kept in this browser ({e}): after a reload it is needed again"
                            ))
                        });
                    }
                    add_bytes(state, picked, sha256, bytes).await;
                }
                Err(message) => state.errors.update(|e| e.push(message)),
            }
        }
        state.loading.set(None);
        recompute(state);
    });
}

/// Analyses a released file's `bytes` (hashed `sha256`) and adds it, under the name a restored
/// snapshot gave it when it waits for it, else `picked`.
async fn add_bytes(state: State, picked: String, sha256: String, bytes: Vec<u8>) {
    let name = state
        .workspace
        .with_untracked(|w| w.needed_name(&sha256).map(str::to_owned))
        .unwrap_or(picked);
    // The loader runs in a worker (a 4 MB file takes longer than a frame); what is left on this
    // thread reads a few fields per line.
    let loaded = load_in_worker(name.clone(), bytes, |_| {}).await;
    yield_now().await;
    let analysed = match loaded {
        Ok(l) => analyze_loaded(&name, &l),
        Err(message) => MetaFile::unreadable(&name, message),
    };
    state.workspace.update(|w| {
        w.add_released(sha256, analysed);
    });
}

thread_local! {
    /// The SHA-256s already looked up in this browser's storage this session (found or not),
    /// so a file the storage does not have is asked for once.
    static LOOKED_UP: std::cell::RefCell<std::collections::HashSet<String>> =
        std::cell::RefCell::default();
}

/// Restores the released files the workspace lists as needed from this browser's storage
/// ([`StoreName::Files`], by SHA-256), then recomputes; those it does not have stay needed.
pub(super) fn restore_kept(state: State, store: Store) {
    let needed: Vec<(String, String)> = state.workspace.with_untracked(|w| {
        w.entries()
            .iter()
            .filter_map(|e| e.needed().map(|(n, h)| (n.to_owned(), h.to_owned())))
            .filter(|(_, h)| LOOKED_UP.with(|l| l.borrow_mut().insert(h.clone())))
            .collect()
    });
    if needed.is_empty() {
        return;
    }
    spawn_local(async move {
        let total = needed.len();
        let mut restored = 0;
        for (i, (name, sha256)) in needed.into_iter().enumerate() {
            state.loading.try_set(Some(format!(
                "Restoring {name} from this browser ({} of {total})…",
                i + 1
            )));
            yield_now().await;
            // The workspace may have changed meanwhile (another bundle, the file picked).
            if !state.workspace.with_untracked(|w| w.needed_name(&sha256).is_some()) {
                continue;
            }
            match store.get_bytes(StoreName::Files, &sha256).await {
                Ok(Some(bytes)) => {
                    let bytes = bytes.to_vec();
                    // Kept bytes that no longer match their name are not used.
                    if hash_sliced(&bytes).await == sha256 {
                        add_bytes(state, name, sha256, bytes).await;
                        restored += 1;
                    }
                }
                Ok(None) => {}
                Err(e) => state.errors.update(|list| {
                    list.push(format!("{name} could not be read from this browser's storage: {e}"))
                }),
            }
        }
        state.loading.try_set(None);
        if restored > 0 {
            recompute(state);
        }
    });
}

/// Removes a file of the list and recomputes.
pub(super) fn remove(state: State, id: u64) {
    state.workspace.update(|w| w.remove(id));
    recompute(state);
}

/// Removes every file and recomputes.
pub(super) fn remove_all(state: State) {
    state.workspace.update(|w| w.clear_files());
    state.errors.set(Vec::new());
    recompute(state);
}

/// The Elo of one file (the core's [`compute::EloSteps`]), a frame's worth of shuffled orders
/// at a time (200 shuffles of 300 matches take ~50 ms); `None` when `stale` turns true
/// meanwhile.
async fn elo_sliced(
    file: &JdEvalFile,
    options: &concord_core::meta::EloOptions,
    stale: impl Fn() -> bool,
) -> Option<EloResult> {
    let mut steps = compute::EloSteps::new(&file.set, options);
    let mut budget = FrameBudget::new();
    while steps.step(1) {
        if budget.spent() {
            budget.yield_now().await;
            if stale() {
                return None;
            }
        }
    }
    Some(steps.finish(&file.meta_evaluator))
}

/// [`compute::bradley_terry`] of one file, a frame's worth of bootstrap resamples at a time;
/// `None` when `stale` turns true meanwhile.
async fn bradley_terry_sliced(
    file: &JdEvalFile,
    settings: &Settings,
    stale: impl Fn() -> bool,
) -> Option<BradleyTerryIntervals> {
    let mut boot = compute::bradley_terry_steps(file, settings);
    let mut budget = FrameBudget::new();
    while boot.step(1) {
        if budget.spent() {
            budget.yield_now().await;
            if stale() {
                return None;
            }
        }
    }
    Some(boot.finish())
}

/// The JDEval files of the workspace (not tracked), with their entry ids.
fn jdeval_files(state: State) -> Vec<(u64, Arc<MetaFile>)> {
    state.workspace.with_untracked(|w| {
        w.jdeval().iter().filter_map(|(id, _)| Some((*id, Arc::clone(w.file(*id)?)))).collect()
    })
}

/// Starts a new computation: stale ones stop at their next look.
fn next_generation(state: State) -> impl Fn() -> bool + Copy + 'static {
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    move || state.generation.get_untracked() != generation
}

/// The Elo seed spread of every JDEval file: the shuffle-averaged Elo under seeds `seed`,
/// `seed + 1`, … (the "Seeds" control), summarised by the core's `elo_seed_summary`.
pub(super) fn compute_seed_spread(state: State) {
    let settings = match state.read_controls() {
        Ok(s) => s,
        Err(e) => return state.control_error.set(Some(e.to_string())),
    };
    let count = match parse_seeds(&state.seeds.get_untracked()) {
        Ok(n) => n,
        Err(e) => return state.control_error.set(Some(e.to_string())),
    };
    let settings = Settings { seeds: count, ..settings };
    state.control_error.set(None);
    let stale = next_generation(state);
    let files = jdeval_files(state);
    state.seed_status.set(Some("Computing the spread across seeds…".to_owned()));
    spawn_local(async move {
        let mut out = Vec::new();
        for (i, (_, file)) in files.iter().enumerate() {
            let Some(file) = file.jdeval() else { continue };
            let mut per_seed = Vec::new();
            for k in 0..count {
                state.seed_status.set(Some(format!(
                    "Computing the spread across seeds: meta-evaluator {} of {}, seed {} of {count}…",
                    i + 1,
                    files.len(),
                    k + 1
                )));
                let options = compute::spread_seed(&settings, k);
                let Some(result) = elo_sliced(file, &options, stale).await else { return };
                per_seed.push(result);
                yield_now().await;
                if stale() {
                    return;
                }
            }
            out.push(SeedSpread::new(&file.meta_evaluator, &file.set.evaluators, &per_seed));
        }
        state.computed.update(|c| c.seed_spread = out);
        state.seed_status.set(Some(format!(
            "Spread over {count} seeds ({}…{}), {} shuffles each.",
            settings.seed,
            settings.seed.wrapping_add(count as u64 - 1),
            settings.shuffles
        )));
    });
}

/// Recomputes Elo and Bradley–Terry for every JDEval file under the current controls, a
/// frame's worth of shuffles or bootstrap resamples at a time.
pub(super) fn recompute(state: State) {
    state.stale.set(false);
    let settings = match state.read_controls() {
        Ok(s) => s,
        Err(e) => return state.control_error.set(Some(e.to_string())),
    };
    state.control_error.set(None);
    let stale = next_generation(state);
    state.settings.set(settings);
    // The seed spread was computed for the former files and controls.
    state.seed_status.set(None);
    let files = jdeval_files(state);
    if files.is_empty() {
        state.computed.set(Computed::default());
        state.computing.set(None);
        return;
    }
    state.computed.update(|c| c.seed_spread.clear());
    // Set now, not in the task, so nothing reads the previous run's "Computed in".
    state.computing.set(Some("Computing Elo and Bradley–Terry…".to_owned()));
    state.last_compute_ms.set(None);
    spawn_local(async move {
        let started = monotonic_ms();
        let total = files.len();
        let options = settings.elo();
        let mut out = Vec::with_capacity(total);
        for (i, (id, file)) in files.iter().enumerate() {
            let Some(file) = file.jdeval() else { continue };
            state
                .computing
                .set(Some(format!("Computing Elo and Bradley–Terry: {} of {total}…", i + 1)));
            let Some(elo) = elo_sliced(file, &options, stale).await else { return };
            yield_now().await;
            if stale() {
                return;
            }
            let Some(bradley_terry) = bradley_terry_sliced(file, &settings, stale).await else {
                return;
            };
            out.push((*id, Arc::new(PairwiseResult { elo, bradley_terry })));
            yield_now().await;
            if stale() {
                return;
            }
        }
        state.computed.set(Computed { pairwise: out, seed_spread: Vec::new() });
        state.computing.set(None);
        state.last_compute_ms.set(Some(monotonic_ms() - started));
    });
}

// ---------------------------------------------------------------------------------------------
// Live runs.

/// Why a live run could not start or did not finish; the run panel shows the message.
#[derive(Debug, thiserror::Error)]
pub(super) enum RunError {
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error("`{entry}` is served by {provider}{}: give its API key under “Keys for other providers”.", if *.elsewhere { " at another address than the Run screen's" } else { "" })]
    MissingKey { entry: String, provider: ProviderId, elsewhere: bool },
    #[error("{what} must be a whole number of at least 1")]
    Count { what: &'static str },
    #[error("MDEval rounds must be from 1 to 5.")]
    Rounds,
    #[error("Name at least one evaluator model (or set a model on the Run screen).")]
    NoEvaluator,
    #[error("Name the meta-evaluator model (or set a model on the Run screen).")]
    NoMetaModel,
    #[error(
        "Load a pairwise evaluator results file (question, two answers, human label) first: its pairs are judged."
    )]
    NoPairs,
    #[error(
        "Load a file of rated texts first (a scoring file of text and human score, or an evaluator-pointwise results file): its texts are scored."
    )]
    NoTexts,
    #[error(
        "{method} compares two evaluators' judgements of the same pair: run the pairwise judging first."
    )]
    NoPairwiseRun { method: &'static str },
    #[error("The pairwise run needs at least two evaluator models that both answered.")]
    NoCouples,
    #[error(
        "{method} scores single assessments: load an evaluator-pointwise results file (text, human score, the evaluator's response) first."
    )]
    NoAssessments { method: &'static str },
    #[error("{0}")]
    Render(#[from] RenderError),
    #[error("{0}")]
    Protocol(#[from] ProtocolError),
    /// Cancelled or stopped, in the one wording every screen uses ([`Finish::describe`]).
    #[error("{}{}", .0.message, .0.advice.as_ref().map(|a| format!(" {a}")).unwrap_or_default())]
    Ended(FinishMessage),
    #[error(
        "{} got no answer; run again to retry them (stored answers are not requested again).",
        concord_core::words::count(*missing, "call", "calls")
    )]
    Unanswered { missing: usize },
    #[error("the protocol did not finish")]
    Unfinished,
}

/// The connection an evaluator entry names ([`evaluator_target`]): the Run screen's with
/// another model, or another provider or address with its own key (given on this screen), and
/// the Run screen's limits either way.
fn connection_for(wb: LlmAccess, rs: RunState, entry: &str) -> Result<Connection, RunError> {
    let target = evaluator_target(entry)?;
    let mut form = wb.connection.get_untracked();
    form.model = target.model.clone();
    if !target.is_run_screen() {
        let provider = target.provider_or(form.provider);
        let key = rs.keys.with_untracked(|keys| {
            keys.iter().find(|(p, _)| *p == provider).map(|(_, k)| k.trim().to_owned())
        });
        let run_screen_key = target.may_use_run_screen_key(form.provider, &form.base_url);
        let key = match key.filter(|k| !k.is_empty()) {
            Some(k) => k,
            None if run_screen_key => form.api_key.clone(),
            None if provider.preset().needs_key => {
                return Err(RunError::MissingKey {
                    entry: entry.to_owned(),
                    provider,
                    elsewhere: provider == form.provider,
                });
            }
            None => String::new(),
        };
        form.base_url =
            target.base_url.clone().unwrap_or_else(|| provider.preset().base_url.to_owned());
        form.provider = provider;
        form.api_key = key;
    }
    Ok(form.connection())
}

/// The models named in `field`, or the Run screen's model when it is empty.
fn models(field: RwSignal<String>, wb: LlmAccess) -> Vec<String> {
    let named = model_list(&field.get_untracked());
    if named.is_empty() { model_list(&wb.connection.get_untracked().model) } else { named }
}

fn limit(field: RwSignal<String>, what: &'static str) -> Result<usize, RunError> {
    field
        .get_untracked()
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or(RunError::Count { what })
}

/// Drives `protocols` to the end on `connection`: each step sends every pending request
/// through the run engine (cached answers are not sent), feeds the answers back and records
/// them in `answers` by tag. Stops at the first step that leaves a request unanswered
/// (cancelled, failed, stopped). Returns how many calls were answered from the cache.
async fn drive<P: Protocol>(
    protocols: &mut [P],
    connection: &Connection,
    wb: LlmAccess,
    rs: RunState,
    what: &str,
    answers: &mut BTreeMap<String, String>,
) -> Result<usize, RunError> {
    let store = match wb.store.get_untracked() {
        Some(s) => s,
        None => Store::open_or_memory().await.0,
    };
    let memory = wb.memory.get_value();
    let control = rs.control.get_value();
    let mut cached = 0;
    // MDEval needs 1 + 2 × 5 steps at most; the bound only guards against a protocol bug.
    for step in 1..=32 {
        let mut targets: Vec<(usize, String, String)> = Vec::new();
        let mut calls = Vec::new();
        for (i, p) in protocols.iter().enumerate() {
            for request in p.pending() {
                let key = cache_key_for(&connection.endpoint, &connection.caps, &request, 0);
                targets.push((i, request.tag.clone(), key.clone()));
                calls.push(CallSpec::single(request, key));
            }
        }
        if calls.is_empty() {
            return Ok(cached);
        }
        let label = what.to_owned();
        let outcome = runner::execute(
            connection.clone(),
            &calls,
            store.clone(),
            memory.clone(),
            control.clone(),
            move |r| {
                rs.paused.try_set(r.paused);
                rs.status.try_set(Some(format!(
                    "{label}, step {step}: {} of {} calls done, {} cached, {} failed{}",
                    r.progress.done,
                    r.progress.total,
                    r.cached,
                    r.progress.failed,
                    if r.paused { " (paused)" } else { "" }
                )));
            },
        )
        .await;
        cached += outcome.cached;
        let mut missing = 0;
        {
            let mem = memory.borrow();
            for (i, tag, key) in &targets {
                match (mem.get(key), protocols.get_mut(*i)) {
                    (Some(text), Some(p)) => {
                        p.respond(tag, &[ChatResponse::text(text.clone())])?;
                        answers.insert(tag.clone(), text.clone());
                    }
                    _ => missing += 1,
                }
            }
        }
        match outcome.finish {
            Finish::Completed if missing == 0 => {}
            finish @ (Finish::Cancelled | Finish::Stopped(_)) => {
                return Err(RunError::Ended(finish.describe(connection.endpoint.provider)));
            }
            _ => return Err(RunError::Unanswered { missing }),
        }
    }
    Err(RunError::Unfinished)
}

/// What the run's status calls it: `Pairwise judging with judge-x` for the runs that ask
/// several evaluator models, the protocol's name for a meta-evaluation.
struct Label {
    what: &'static str,
    per_model: bool,
}

/// [`drive`] for each model's protocols in turn, each on its own connection. Returns how many
/// calls the cache answered, or the first error.
async fn drive_groups<P: Protocol>(
    groups: &mut [(String, Vec<P>)],
    connections: &[Connection],
    wb: LlmAccess,
    rs: RunState,
    label: &Label,
    answers: &mut BTreeMap<String, String>,
) -> Result<usize, RunError> {
    let mut cached = 0;
    for ((model, ps), connection) in groups.iter_mut().zip(connections) {
        let what = label.what;
        let label = if label.per_model { format!("{what} with {model}") } else { what.to_owned() };
        cached += drive(ps, connection, wb, rs, &label, answers).await?;
    }
    Ok(cached)
}

fn begin(rs: RunState) {
    rs.control.set_value(RunControl::new());
    rs.running.set(true);
    rs.paused.set(false);
    rs.error.set(None);
}

/// Ends a run: `done` is the status of a finished run, followed by how many calls the cache
/// answered.
fn end(rs: RunState, result: Result<usize, RunError>, done: &str) {
    rs.running.try_set(false);
    rs.paused.try_set(false);
    match result {
        Ok(cached) => {
            rs.status.try_set(Some(format!("{done}; {cached} calls answered from the cache.")));
        }
        Err(e) => {
            rs.error.try_set(Some(e.to_string()));
        }
    }
}

/// The model each group of `protocols` is asked of.
fn models_of(protocols: &Protocols) -> Vec<String> {
    fn names<P>(g: &[(String, Vec<P>)]) -> Vec<String> {
        g.iter().map(|(m, _)| m.clone()).collect()
    }
    match protocols {
        Protocols::Pairwise(g) => names(g),
        Protocols::Scoring(g) => names(g),
        Protocols::JdEval(g) => names(g),
        Protocols::MdEval(g) => names(g),
        Protocols::JdEvalI(g) => names(g),
        Protocols::BsmEval(g) => names(g),
    }
}

/// Runs `spec`: checks every model's connection first, then drives its protocols, and hands
/// the answers received (all of them, or as far as the run got) to the workspace as a
/// [`LiveRun`], whose files join the tables, figures and viewers.
fn launch(state: State, wb: LlmAccess, spec: RunSpec) -> Result<(), RunError> {
    let rs = state.run;
    let protocols = spec.protocols()?;
    let connections = models_of(&protocols)
        .iter()
        .map(|m| connection_for(wb, rs, m))
        .collect::<Result<Vec<_>, _>>()?;
    begin(rs);
    spawn_local(async move {
        let mut answers = BTreeMap::new();
        let per_model = matches!(spec, RunSpec::Pairwise { .. } | RunSpec::Scoring { .. });
        let l = Label { what: spec.name(), per_model };
        let (c, a) = (&connections, &mut answers);
        let result = match protocols {
            Protocols::Pairwise(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
            Protocols::Scoring(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
            Protocols::JdEval(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
            Protocols::MdEval(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
            Protocols::JdEvalI(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
            Protocols::BsmEval(mut g) => drive_groups(&mut g, c, wb, rs, &l, a).await,
        };
        let done = format!("{} finished: {}", l.what, spec.size());
        let added = state.workspace.try_update(|w| w.add_run(LiveRun { spec, answers }));
        let result = match added {
            Some(Err(e)) => Err(RunError::from(e)),
            _ => result,
        };
        recompute(state);
        end(rs, result, &done);
    });
    Ok(())
}

/// Reports a run that could not start.
fn refuse(state: State, result: Result<(), RunError>) {
    if let Err(e) = result {
        state.run.error.set(Some(e.to_string()));
    }
}

/// The evaluator models named on the screen (or the Run screen's model).
fn evaluator_models(rs: RunState, wb: LlmAccess) -> Result<Vec<String>, RunError> {
    let evaluators = models(rs.evaluators, wb);
    if evaluators.is_empty() { Err(RunError::NoEvaluator) } else { Ok(evaluators) }
}

/// The chosen file with `count(file) > 0`, or the first loaded one that has any.
fn source_file(
    state: State,
    chosen: Option<u64>,
    count: impl Fn(&MetaFile) -> usize,
) -> Option<Arc<MetaFile>> {
    state.workspace.with_untracked(|w| {
        w.files()
            .filter(|(_, f)| count(f) > 0)
            .find(|(id, _)| chosen.is_none() || Some(*id) == chosen)
            .and_then(|(id, _)| w.file(id).cloned())
    })
}

/// Pairwise judging of the chosen file's first pairs by the named evaluators.
pub(super) fn start_pairwise(state: State, wb: LlmAccess) {
    let rs = state.run;
    let spec = (|| {
        let evaluators = evaluator_models(rs, wb)?;
        let n = limit(rs.pair_limit, "Pairs")?;
        let source = source_file(state, rs.pair_source.get_untracked(), |f| f.pairs.len())
            .ok_or(RunError::NoPairs)?;
        let pairs = source.pairs.iter().take(n).cloned().collect();
        Ok(RunSpec::Pairwise { evaluators, swap: rs.swap.get_untracked(), pairs })
    })();
    refuse(state, spec.and_then(|spec| launch(state, wb, spec)));
}

/// Individual scoring of the chosen file's first texts by the named evaluators.
pub(super) fn start_scoring(state: State, wb: LlmAccess) {
    let rs = state.run;
    let spec = (|| {
        let evaluators = evaluator_models(rs, wb)?;
        let n = limit(rs.score_limit, "Texts")?;
        let source = source_file(state, rs.score_source.get_untracked(), |f| f.texts.len())
            .ok_or(RunError::NoTexts)?;
        let texts = source.texts.iter().take(n).cloned().collect();
        Ok(RunSpec::Scoring { evaluators, openmeva: rs.score_openmeva.get_untracked(), texts })
    })();
    refuse(state, spec.and_then(|spec| launch(state, wb, spec)));
}

/// A meta-evaluation run with the chosen protocol: JDEval / MDEval over the last pairwise
/// run's couples of judgements, JDEval-i / BSMEval over the loaded assessments.
pub(super) fn start_meta(state: State, wb: LlmAccess) {
    let rs = state.run;
    let spec = (|| {
        let meta_evaluator =
            models(rs.meta_model, wb).into_iter().next().ok_or(RunError::NoMetaModel)?;
        let method = rs.method.get_untracked();
        if method.is_pairwise() {
            let run = state
                .workspace
                .with_untracked(|w| w.last_pairwise().cloned())
                .ok_or(RunError::NoPairwiseRun { method: method.name() })?;
            let jobs = couple_jobs(&run);
            if jobs.is_empty() {
                return Err(RunError::NoCouples);
            }
            if method == MetaMethod::JdEval {
                return Ok(RunSpec::JdEval { meta_evaluator, jobs });
            }
            let rounds = match limit(rs.rounds, "MDEval rounds") {
                Ok(r) if r <= 5 => r,
                _ => return Err(RunError::Rounds),
            };
            return Ok(RunSpec::MdEval { meta_evaluator, rounds, jobs });
        }
        let n = limit(rs.item_limit, "Assessments per file")?;
        let inputs: Vec<IndividualInput> = state.workspace.with_untracked(|w| {
            w.files().flat_map(|(_, f)| f.individual.iter().take(n).cloned()).collect()
        });
        if inputs.is_empty() {
            return Err(RunError::NoAssessments { method: method.name() });
        }
        Ok(if method == MetaMethod::JdEvalI {
            let task = if rs.openmeva.get_untracked() {
                IndividualTask::OpenMeva
            } else {
                IndividualTask::SummEvalCoherence
            };
            RunSpec::JdEvalI { meta_evaluator, task, inputs }
        } else {
            RunSpec::BsmEval { meta_evaluator, inputs }
        })
    })();
    refuse(state, spec.and_then(|spec| launch(state, wb, spec)));
}

/// The providers the named evaluators need a key of their own for: another provider than the
/// Run screen's, or the Run screen's provider at another address (its key is not sent there).
pub(super) fn other_providers(rs: RunState, wb: LlmAccess) -> Vec<ProviderId> {
    let (run_screen, run_url) = wb.connection.with(|f| (f.provider, f.base_url.clone()));
    let mut out: Vec<ProviderId> = Vec::new();
    let entries = [rs.evaluators.get(), rs.meta_model.get()];
    for entry in entries.iter().flat_map(|text| model_list(text)) {
        if let Ok(target) = evaluator_target(&entry)
            && !target.may_use_run_screen_key(run_screen, &run_url)
        {
            let p = target.provider_or(run_screen);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}
