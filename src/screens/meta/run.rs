//! Live runs from the meta-evaluation screen: pairwise judging with several evaluator models
//! (position swap optional), individual scoring of rated texts (Table 8 prompt, Pearson with
//! the human scores), then JDEval / MDEval over pairs of their judgements or JDEval-i / BSMEval
//! over single assessments (of loaded evaluator-pointwise files or of a scoring run), with a
//! chosen meta-evaluator model — on the Run screen's connection (provider, base URL, key,
//! limits), or per model on another provider or address (`model @ provider`, `model @ URL`)
//! with its own key kept in memory on this screen.
//!
//! Every call goes through [`runner::execute`]: answers are stored under their cache keys the
//! moment they arrive and nothing stored is requested again, so a cancelled or failed run
//! continues where it stopped when run again. Multi-step protocols (MDEval's rounds, BSMEval's
//! branch then solve) are driven step by step: each step sends the pending requests of every
//! protocol, then feeds the answers back. The outcomes become workspace files
//! ([`super::live`]) that feed the same tables, plots and viewers as the released files.

use std::sync::Arc;

use concord_core::judge::ChatResponse;
use concord_core::judge::meta_eval::IndividualTask;
use concord_core::judge::protocol::Protocol;
use concord_core::run::{Finish, ProviderId, cache_key};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::live::{self, IndividualInput, MetaMethod, PairwiseRun, ScoringRun};
use super::model::MetaFile;
use super::{State, TableView, add_files, labelled_number};
use crate::edge::store::Store;
use crate::runner::LlmAccess;
use crate::runner::{self, CallSpec, Connection, RunControl};

/// The run controls and the current run, as signals (owned by the screen's root owner).
#[derive(Clone, Copy)]
pub(super) struct RunState {
    evaluators: RwSignal<String>,
    meta_model: RwSignal<String>,
    pair_source: RwSignal<Option<u64>>,
    pair_limit: RwSignal<String>,
    swap: RwSignal<bool>,
    method: RwSignal<MetaMethod>,
    rounds: RwSignal<String>,
    openmeva: RwSignal<bool>,
    item_limit: RwSignal<String>,
    running: RwSignal<bool>,
    paused: RwSignal<bool>,
    status: RwSignal<Option<String>>,
    error: RwSignal<Option<String>>,
    control: StoredValue<RunControl, LocalStorage>,
    /// The last pairwise run: its table, and the assessments JDEval / MDEval compare.
    pairwise: RwSignal<Option<Arc<PairwiseRun>>>,
    score_source: RwSignal<Option<u64>>,
    score_limit: RwSignal<String>,
    score_openmeva: RwSignal<bool>,
    /// The last individual-scoring run and its table.
    scoring: RwSignal<Option<Arc<ScoringRun>>>,
    /// API keys of providers other than the Run screen's, for evaluators named `model @
    /// provider`: in memory only (never stored, exported or logged).
    keys: RwSignal<Vec<(ProviderId, String)>>,
}

impl RunState {
    pub(super) fn new() -> RunState {
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
            pairwise: RwSignal::new(None),
            score_source: RwSignal::new(None),
            score_limit: text("20"),
            score_openmeva: RwSignal::new(true),
            scoring: RwSignal::new(None),
            keys: RwSignal::new(Vec::new()),
        }
    }
}

/// The connection an evaluator entry names ([`live::evaluator_target`]): the Run screen's with
/// another model, or another provider or address with its own key (given on this screen), and
/// the Run screen's limits either way.
fn connection_for(wb: LlmAccess, rs: RunState, entry: &str) -> Result<Connection, String> {
    let target = live::evaluator_target(entry)?;
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
                let at = if provider == form.provider {
                    " at another address than the Run screen's"
                } else {
                    ""
                };
                return Err(format!(
                    "`{entry}` is served by {provider}{at}: give its API key under “Keys for other providers”."
                ));
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

/// The providers the named evaluators need a key of their own for: another provider than the
/// Run screen's, or the Run screen's provider at another address (its key is not sent there).
fn other_providers(rs: RunState, wb: LlmAccess) -> Vec<ProviderId> {
    let (run_screen, run_url) = wb.connection.with(|f| (f.provider, f.base_url.clone()));
    let mut out: Vec<ProviderId> = Vec::new();
    let entries = [rs.evaluators.get(), rs.meta_model.get()];
    for entry in entries.iter().flat_map(|text| live::model_list(text)) {
        if let Ok(target) = live::evaluator_target(&entry)
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

/// The models named in `field`, or the Run screen's model when it is empty.
fn models(field: RwSignal<String>, wb: LlmAccess) -> Vec<String> {
    let named = live::model_list(&field.get_untracked());
    if named.is_empty() { live::model_list(&wb.connection.get_untracked().model) } else { named }
}

fn limit(field: RwSignal<String>, what: &str) -> Result<usize, String> {
    field
        .get_untracked()
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("{what} must be a whole number of at least 1"))
}

/// Drives `protocols` to the end on `connection`: each step sends every pending request
/// through the run engine (cached answers are not sent) and feeds the answers back. Stops at
/// the first step that leaves a request unanswered (cancelled, failed, stopped). Returns how
/// many calls were answered from the cache.
async fn drive<P: Protocol>(
    protocols: &mut [P],
    connection: &Connection,
    wb: LlmAccess,
    rs: RunState,
    what: &str,
) -> Result<usize, String> {
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
                let key = cache_key(&connection.endpoint, &request, 0);
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
                    (Some(text), Some(p)) => p
                        .respond(tag, &[ChatResponse::text(text.clone())])
                        .map_err(|e| e.to_string())?,
                    _ => missing += 1,
                }
            }
        }
        match outcome.finish {
            Finish::Completed if missing == 0 => {}
            Finish::Cancelled => {
                return Err(
                    "Cancelled. Every answer received is stored; run again to continue.".to_owned()
                );
            }
            Finish::Stopped(reason) => return Err(format!("The run stopped: {reason}")),
            _ => {
                return Err(format!(
                    "{missing} call(s) got no answer; run again to retry them (stored answers are not requested again)."
                ));
            }
        }
    }
    Err("the protocol did not finish".to_owned())
}

fn begin(rs: RunState) {
    rs.control.set_value(RunControl::new());
    rs.running.set(true);
    rs.paused.set(false);
    rs.error.set(None);
}

/// Ends a run: `done` is the status of a finished run, followed by how many calls the cache
/// answered.
fn end(rs: RunState, result: Result<usize, String>, done: &str) {
    rs.running.try_set(false);
    rs.paused.try_set(false);
    match result {
        Ok(cached) => {
            rs.status.try_set(Some(format!("{done}; {cached} calls answered from the cache.")));
        }
        Err(e) => {
            rs.error.try_set(Some(e));
        }
    }
}

/// The evaluator models named on the screen (or the Run screen's model); says so when none,
/// or when an entry names no provider or address this page knows, or lacks its key.
fn evaluator_models(rs: RunState, wb: LlmAccess) -> Option<Vec<String>> {
    let evaluators = models(rs.evaluators, wb);
    if evaluators.is_empty() {
        rs.error.set(Some(
            "Name at least one evaluator model (or set a model on the Run screen).".into(),
        ));
        return None;
    }
    if let Some(e) = evaluators.iter().find_map(|e| connection_for(wb, rs, e).err()) {
        rs.error.set(Some(e));
        return None;
    }
    Some(evaluators)
}

/// [`drive`] for each evaluator model in turn, on the Run screen's connection with that model.
/// Returns how many calls the cache answered, or the first error.
async fn drive_each<P: Protocol>(
    evaluators: &[String],
    protocols: &mut [Vec<P>],
    wb: LlmAccess,
    rs: RunState,
    what: &str,
) -> Result<usize, String> {
    let mut cached = 0;
    for (e, ps) in evaluators.iter().zip(protocols.iter_mut()) {
        let connection = connection_for(wb, rs, e)?;
        cached += drive(ps, &connection, wb, rs, &format!("{what} with {e}")).await?;
    }
    Ok(cached)
}

/// What a run takes from a loaded file: its pairs (pairwise judging) or its rated texts
/// (individual scoring). Each has its own choice of file on the panel.
#[derive(Clone, Copy)]
enum Source {
    Pairs,
    Texts,
}

impl Source {
    fn count(self, file: &MetaFile) -> usize {
        match self {
            Source::Pairs => file.pairs.len(),
            Source::Texts => file.texts.len(),
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Source::Pairs => "pairs",
            Source::Texts => "texts",
        }
    }

    fn chosen(self, rs: RunState) -> RwSignal<Option<u64>> {
        match self {
            Source::Pairs => rs.pair_source,
            Source::Texts => rs.score_source,
        }
    }

    /// The chosen file, or the first loaded one that has any; with none, the panel's error
    /// says what to load.
    fn file(self, state: State) -> Option<Arc<MetaFile>> {
        let chosen = self.chosen(state.run).get_untracked();
        let found = state.files.with_untracked(|files| {
            files
                .iter()
                .filter(|e| self.count(&e.file) > 0)
                .find(|e| chosen.is_none() || Some(e.id) == chosen)
                .map(|e| Arc::clone(&e.file))
        });
        if found.is_none() {
            let message = match self {
                Source::Pairs => {
                    "Load a pairwise evaluator results file (question, two answers, human label) first: its pairs are judged."
                }
                Source::Texts => {
                    "Load a file of rated texts first (a scoring file of text and human score, or an evaluator-pointwise results file): its texts are scored."
                }
            };
            state.run.error.set(Some(message.into()));
        }
        found
    }

    /// The `<option>`s of the files that have any, labelled with their count.
    fn options(self, state: State) -> impl IntoView {
        let chosen = self.chosen(state.run).get();
        state
            .files
            .get()
            .into_iter()
            .filter(|e| self.count(&e.file) > 0)
            .map(|e| {
                let label = format!("{} ({} {})", e.file.name, self.count(&e.file), self.noun());
                view! { <option value=e.id.to_string() selected={chosen == Some(e.id)}>{label}</option> }
            })
            .collect_view()
    }
}

fn start_pairwise(state: State, wb: LlmAccess) {
    let rs = state.run;
    let Some(evaluators) = evaluator_models(rs, wb) else { return };
    let n = match limit(rs.pair_limit, "Pairs") {
        Ok(n) => n,
        Err(e) => return rs.error.set(Some(e)),
    };
    let Some(source) = Source::Pairs.file(state) else { return };
    let pairs: Vec<_> = source.pairs.iter().take(n).cloned().collect();
    let swap = rs.swap.get_untracked();
    let mut protocols = match live::pairwise_protocols(&pairs, &evaluators, swap) {
        Ok(p) => p,
        Err(e) => return rs.error.set(Some(e.to_string())),
    };
    begin(rs);
    spawn_local(async move {
        let result = drive_each(&evaluators, &mut protocols, wb, rs, "Pairwise judging").await;
        let outcomes =
            protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect();
        let run = PairwiseRun { pairs, evaluators, swap, outcomes };
        add_files(state, run.files());
        let n = run.pairs.len();
        rs.pairwise.try_set(Some(Arc::new(run)));
        end(rs, result, &format!("Pairwise judging finished: {n} pairs"));
    });
}

fn start_scoring(state: State, wb: LlmAccess) {
    let rs = state.run;
    let Some(evaluators) = evaluator_models(rs, wb) else { return };
    let n = match limit(rs.score_limit, "Texts") {
        Ok(n) => n,
        Err(e) => return rs.error.set(Some(e)),
    };
    let Some(source) = Source::Texts.file(state) else { return };
    let texts: Vec<_> = source.texts.iter().take(n).cloned().collect();
    let openmeva = rs.score_openmeva.get_untracked();
    let mut protocols = match live::scoring_protocols(&texts, &evaluators, openmeva) {
        Ok(p) => p,
        Err(e) => return rs.error.set(Some(e.to_string())),
    };
    begin(rs);
    spawn_local(async move {
        let result = drive_each(&evaluators, &mut protocols, wb, rs, "Individual scoring").await;
        let outcomes =
            protocols.iter().map(|ps| ps.iter().map(|p| p.outcome()).collect()).collect();
        let run = ScoringRun { texts, evaluators, openmeva, outcomes };
        add_files(state, run.files());
        let n = run.texts.len();
        rs.scoring.try_set(Some(Arc::new(run)));
        end(rs, result, &format!("Individual scoring finished: {n} texts"));
    });
}

fn start_meta(state: State, wb: LlmAccess) {
    let rs = state.run;
    let Some(meta_model) = models(rs.meta_model, wb).into_iter().next() else {
        rs.error
            .set(Some("Name the meta-evaluator model (or set a model on the Run screen).".into()));
        return;
    };
    let connection = match connection_for(wb, rs, &meta_model) {
        Ok(c) => c,
        Err(e) => return rs.error.set(Some(e)),
    };
    let method = rs.method.get_untracked();
    if method.is_pairwise() {
        let Some(run) = rs.pairwise.get_untracked() else {
            rs.error.set(Some(format!(
                "{} compares two evaluators' judgements of the same pair: run the pairwise judging first.",
                method.name()
            )));
            return;
        };
        let jobs = live::couple_jobs(&run);
        if jobs.is_empty() {
            rs.error.set(Some(
                "The pairwise run needs at least two evaluator models that both answered.".into(),
            ));
            return;
        }
        if method == MetaMethod::JdEval {
            let mut ps = match live::jdeval_protocols(&jobs) {
                Ok(p) => p,
                Err(e) => return rs.error.set(Some(e.to_string())),
            };
            begin(rs);
            spawn_local(async move {
                let result = drive(&mut ps, &connection, wb, rs, "JDEval").await;
                let outcomes: Vec<_> = ps.iter().map(|p| p.outcome()).collect();
                add_files(state, vec![live::jdeval_run_file(&meta_model, &run, &jobs, &outcomes)]);
                end(rs, result, &format!("JDEval finished: {} judgements", jobs.len()));
            });
        } else {
            let rounds = match limit(rs.rounds, "MDEval rounds") {
                Ok(r) if r <= 5 => r,
                _ => return rs.error.set(Some("MDEval rounds must be from 1 to 5.".into())),
            };
            let mut ps = match live::mdeval_protocols(&jobs, rounds) {
                Ok(p) => p,
                Err(e) => return rs.error.set(Some(e.to_string())),
            };
            begin(rs);
            spawn_local(async move {
                let result = drive(&mut ps, &connection, wb, rs, "MDEval").await;
                let outcomes: Vec<_> = ps.iter().map(|p| p.outcome()).collect();
                add_files(state, vec![live::mdeval_run_file(&meta_model, &run, &jobs, &outcomes)]);
                end(rs, result, &format!("MDEval finished: {} debates", jobs.len()));
            });
        }
        return;
    }
    let n = match limit(rs.item_limit, "Assessments per file") {
        Ok(n) => n,
        Err(e) => return rs.error.set(Some(e)),
    };
    let inputs: Vec<IndividualInput> = state
        .files
        .get_untracked()
        .iter()
        .flat_map(|e| e.file.individual.iter().take(n).cloned().collect::<Vec<_>>())
        .collect();
    if inputs.is_empty() {
        rs.error.set(Some(format!(
            "{} scores single assessments: load an evaluator-pointwise results file (text, human score, the evaluator's response) first.",
            method.name()
        )));
        return;
    }
    begin(rs);
    if method == MetaMethod::JdEvalI {
        let task = if rs.openmeva.get_untracked() {
            IndividualTask::OpenMeva
        } else {
            IndividualTask::SummEvalCoherence
        };
        let mut ps = match live::jdeval_i_protocols(&inputs, task) {
            Ok(p) => p,
            Err(e) => {
                end(rs, Err(e.to_string()), "");
                return;
            }
        };
        spawn_local(async move {
            let result = drive(&mut ps, &connection, wb, rs, "JDEval-i").await;
            let outcomes: Vec<_> = ps.iter().map(|p| p.outcome()).collect();
            add_files(state, live::jdeval_i_run_files(&meta_model, &inputs, &outcomes));
            end(rs, result, &format!("JDEval-i finished: {} assessments", inputs.len()));
        });
    } else {
        let mut ps = live::bsmeval_protocols(&inputs);
        spawn_local(async move {
            let result = drive(&mut ps, &connection, wb, rs, "BSMEval").await;
            let outcomes: Vec<_> = ps.iter().map(|p| p.outcome()).collect();
            add_files(state, live::bsmeval_run_files(&meta_model, &inputs, &outcomes));
            end(rs, result, &format!("BSMEval finished: {} assessments", inputs.len()));
        });
    }
}

fn text_input(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    placeholder: Signal<String>,
) -> impl IntoView {
    view! {
        <label class="control" for=id>
            <span>{label}</span>
            <input id=id type="text" size="24" prop:value=move || value.get()
                placeholder=move || placeholder.get()
                on:input=move |ev| value.set(event_target_value(&ev))/>
        </label>
    }
}

/// The "Run judges and meta-evaluators" panel.
#[component]
pub(super) fn RunPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let wb = LlmAccess::from_context();
    let rs = state.run;
    let connected = move || {
        let f = wb.connection.get();
        !f.base_url.trim().is_empty()
    };
    let run_model = Signal::derive(move || wb.connection.get().model);
    let pair_sources = move || Source::Pairs.options(state);
    let score_sources = move || Source::Texts.options(state);
    let scoring_table =
        move || rs.scoring.get().map(|run| view! { <TableView table=run.table()/> });
    let busy = move || rs.running.get() || !connected();
    let pairwise_table =
        move || rs.pairwise.get().map(|run| view! { <TableView table=run.table()/> });
    view! {
        <section class="panel" aria-labelledby="meta-run-heading">
            <h2 id="meta-run-heading">"Run judges and meta-evaluators"</h2>
            <p class="muted">
                "Uses the connection of the Run screen (provider, base URL, key, limits); each model named here "
                "is called on it, unless named with its own provider or address: "
                <code>"gpt-4o @ openai"</code>", "<code>"claude-3-5-haiku-latest @ anthropic"</code>", "
                <code>"qwen2-7b @ http://127.0.0.1:8000/v1"</code>" (comma-separated). "
                "Answers are stored in this browser: running again sends nothing already answered."
            </p>
            <Show when=move || !connected()>
                <p class="muted" data-testid="meta-run-not-connected">"Set a base URL (and a model) on the Run screen first."</p>
            </Show>
            <h3>"Pairwise judging (seed 003's Table 7 prompt)"</h3>
            <div class="row controls">
                {text_input("meta-evaluators", "Evaluator models", rs.evaluators, run_model)}
                <label class="control" for="meta-pair-source"><span>"Pairs from"</span>
                    <select id="meta-pair-source" on:change=move |ev| rs.pair_source.set(event_target_value(&ev).parse().ok())>
                        {pair_sources}
                    </select>
                </label>
                {labelled_number("meta-pair-limit", "Pairs (first N)", rs.pair_limit)}
                <label class="control" for="meta-swap">
                    <input id="meta-swap" type="checkbox" prop:checked=move || rs.swap.get()
                        on:change=move |ev| rs.swap.set(event_target_checked(&ev))/>
                    <span>"Position swap"</span>
                </label>
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_pairwise(state, wb)>"Run pairwise judging"</button>
            </div>
            <p class="muted">"Accuracy of the verdicts in the given order against the human label (a tie a class of its own; and over the pairs whose label is not a tie). With the swap, each pair is judged again with the answers exchanged: consistency is the share of pairs with the same verdict both times, position bias (first-slot picks − second-slot picks) / pairs."</p>
            {pairwise_table}
            {move || {
                let others = other_providers(rs, wb);
                (!others.is_empty()).then(|| view! {
                    <fieldset class="row controls" data-testid="meta-keys">
                        <legend>"Keys for other providers (kept in memory only: never stored, exported or logged)"</legend>
                        {others.into_iter().map(|p| {
                            let id = format!("meta-key-{}", p.slug());
                            let label = format!("API key for {p}");
                            view! {
                                <label class="control" for=id.clone()><span>{label}</span>
                                    <input id=id.clone() type="password" autocomplete="off" size="24"
                                        prop:value=move || rs.keys.with(|k| k.iter().find(|(q, _)| *q == p).map(|(_, v)| v.clone()).unwrap_or_default())
                                        on:input=move |ev| {
                                            let v = event_target_value(&ev);
                                            rs.keys.update(|k| match k.iter_mut().find(|(q, _)| *q == p) {
                                                Some(slot) => slot.1 = v,
                                                None => k.push((p, v)),
                                            });
                                        }/>
                                </label>
                            }
                        }).collect_view()}
                    </fieldset>
                })
            }}
            <h3>"Individual scoring (seed 003's Table 8 prompt)"</h3>
            <div class="row controls">
                <label class="control" for="meta-score-source"><span>"Texts from"</span>
                    <select id="meta-score-source" on:change=move |ev| rs.score_source.set(event_target_value(&ev).parse().ok())>
                        {score_sources}
                    </select>
                </label>
                {labelled_number("meta-score-limit", "Texts (first N)", rs.score_limit)}
                <label class="control" for="meta-score-task"><span>"Scoring prompt"</span>
                    <select id="meta-score-task" on:change=move |ev| rs.score_openmeva.set(event_target_value(&ev) == "openmeva")>
                        <option value="openmeva" selected=move || rs.score_openmeva.get()>"OpenMEVA stories"</option>
                        <option value="summeval" selected=move || !rs.score_openmeva.get()>"SummEval coherence"</option>
                    </select>
                </label>
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_scoring(state, wb)>"Run individual scoring"</button>
            </div>
            <p class="muted">"Each evaluator model named above rates each text from 1 to 5 (the score read from <Rating>); Pearson's r with the human scores joins Table 1, and the answers are assessments JDEval-i and BSMEval can meta-evaluate."</p>
            {scoring_table}
            <h3>"Meta-evaluation"</h3>
            <div class="row controls">
                {text_input("meta-model", "Meta-evaluator model", rs.meta_model, run_model)}
                <label class="control" for="meta-method"><span>"Protocol"</span>
                    <select id="meta-method" on:change=move |ev| rs.method.set(MetaMethod::from_id(&event_target_value(&ev)))>
                        {MetaMethod::ALL.into_iter().map(|m| view! {
                            <option value=m.id() selected=move || rs.method.get() == m>{m.label()}</option>
                        }).collect_view()}
                    </select>
                </label>
                {labelled_number("meta-rounds", "MDEval rounds (1–5)", rs.rounds)}
                <label class="control" for="meta-task"><span>"JDEval-i prompt"</span>
                    <select id="meta-task" on:change=move |ev| rs.openmeva.set(event_target_value(&ev) == "openmeva")>
                        <option value="openmeva" selected=move || rs.openmeva.get()>"OpenMEVA stories (Table 12)"</option>
                        <option value="summeval" selected=move || !rs.openmeva.get()>"SummEval coherence (Table 13)"</option>
                    </select>
                </label>
                {labelled_number("meta-item-limit", "Assessments per file (first N)", rs.item_limit)}
                <button type="button" class="primary" disabled=busy
                    on:click=move |_| start_meta(state, wb)>"Run meta-evaluation"</button>
            </div>
            <p class="muted">"JDEval and MDEval compare every two evaluators of the pairwise run on each pair (their outcomes join Elo, the heatmap, post accuracy and the debate viewer); JDEval-i and BSMEval score the assessments of the loaded evaluator-pointwise files and of individual-scoring runs (Tables 5 and 6, the BSMEval viewer)."</p>
            <div class="row">
                <button type="button" class="secondary" disabled=move || !rs.running.get()
                    on:click=move |_| {
                        let control = rs.control.get_value();
                        if control.is_paused() { control.resume() } else { control.pause() }
                        rs.paused.set(control.is_paused());
                    }>{move || if rs.paused.get() { "Resume" } else { "Pause" }}</button>
                <button type="button" class="secondary" disabled=move || !rs.running.get()
                    on:click=move |_| rs.control.get_value().cancel()>"Cancel run"</button>
                <span role="status" data-testid="meta-run-status">{move || rs.status.get().unwrap_or_default()}</span>
            </div>
            {move || rs.error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="meta-run-error">{e}</p> })}
        </section>
    }
}

/// Files of a run that replace those of an earlier run with the same name.
pub(super) fn replaces(old: &MetaFile, new: &[MetaFile]) -> bool {
    old.format == "live run" && new.iter().any(|n| n.name == old.name)
}
