//! Carrying a run out in the browser: the core's [`Scheduler`] decides what to send and when;
//! this module sends it ([`crate::edge::http`]), stores every sample in IndexedDB the moment it
//! arrives ([`crate::edge::store`], store `responses`, one entry per cache key), and reports
//! progress and the run log through a callback.
//!
//! Nothing already stored is sent again: [`execute`] skips every call whose samples are all in
//! the cache, so re-running a configuration costs nothing and a reloaded page resumes where
//! the last stored sample left off. Calls in flight when the page goes away are lost (the
//! browser aborts them); everything stored before is kept.
//!
//! The screens that run LLM calls (Run, Pairwise & meta-evaluation, CoEval) all go through
//! [`execute`]: give it the calls (a [`Calls`]: a list of [`CallSpec`]s, or a study's plan that
//! renders each request when it is sent), a [`Connection`] and a [`RunControl`]; it returns
//! how the run finished. Read stored texts back with [`cached_texts`].

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::CallUsage;
use concord_core::judge::ChatRequest;
use concord_core::judge::aggregate::{ScoreToken, score_tokens};
use concord_core::run::{
    Action, ApiError, CallOptions, CallSize, Capabilities, FailureOutcome, Finish, FinishReason,
    Job, JobId, ParseError, Progress, SampleBatch, Scheduler, SchedulerConfig, StopReason,
    build_chat, classify_error, parse_chat_response,
};
use concord_core::study::workbench::results::{SampleInfo, call_usage};
use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::{Either, select};
use serde::{Deserialize, Serialize};
use wasm_bindgen_futures::spawn_local;

use crate::edge::http::{self, AbortHandle, FetchError, HttpReply};
use crate::edge::lifecycle;
use crate::edge::store::{Store, StoreName};
use crate::edge::time;

use super::connection::Connection;

/// One HTTP call: samples `samples` of `request`, filling their cache keys. The request and
/// the prompt's keys are shared (a run's plan holds them once, however many calls it has).
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    pub request: Arc<ChatRequest>,
    pub samples: SampleBatch,
    /// The cache key of every sample of the prompt, by sample index.
    pub prompt_keys: Arc<[String]>,
}

impl CallSpec {
    /// A call for sample 0 of `request`, stored under `key`.
    pub fn single(request: ChatRequest, key: String) -> CallSpec {
        CallSpec {
            request: Arc::new(request),
            samples: SampleBatch { first: 0, count: 1 },
            prompt_keys: Arc::from(vec![key]),
        }
    }

    /// The keys this call fills, one per sample of its batch, in order.
    pub fn keys(&self) -> &[String] {
        let first = (self.samples.first as usize).min(self.prompt_keys.len());
        let end = first.saturating_add(self.samples.count as usize).min(self.prompt_keys.len());
        &self.prompt_keys[first..end]
    }
}

/// The calls of a run, described on demand. A large study (40,000 prompts, 800,000 sample
/// keys) does not hold every prompt's text and keys at once: its [`Calls`] renders a request
/// when it is sent and derives keys when they are looked up. A list of [`CallSpec`]s is the
/// simple case (the meta-evaluation and CoEval screens).
pub trait Calls {
    /// How many calls there are; calls are numbered from 0.
    fn count(&self) -> usize;
    /// The samples call `call` asks for.
    fn batch(&self, call: usize) -> SampleBatch;
    /// The cache keys of those samples, in sample order.
    fn keys(&self, call: usize) -> Vec<String>;
    /// The request to send; `None` when it cannot be built (the call fails with a reason).
    fn request(&self, call: usize) -> Option<Cow<'_, ChatRequest>>;
    /// What the call's cost depends on, cheaply (without building its request when that is
    /// costly): what is reserved against the spend cap while it is in flight.
    fn size(&self, call: usize) -> CallSize;
    /// The item the call rates and its prompt, in words ("item 12", "item 12 · score-only ·
    /// coherence"), shared by the calls of one prompt: how the run log names an item that
    /// failed, and what a prompt too long for the model is remembered by. `None`: the call is
    /// its own prompt.
    fn prompt_label(&self, _call: usize) -> Option<concord_core::run::PromptRef> {
        None
    }
    /// The call whose request is the same as `call`'s once log-probabilities are dropped (a
    /// "+weighted" call's plain twin, and back): once they are, one answer serves both.
    fn twin(&self, _call: usize) -> Option<usize> {
        None
    }
}

/// The size of a built request for `samples` samples.
pub fn request_size(request: &ChatRequest, samples: u32) -> CallSize {
    CallSize {
        prompt_chars: request.messages.iter().map(|m| m.content.chars().count()).sum(),
        samples,
        max_tokens: request.max_tokens,
    }
}

impl Calls for Vec<CallSpec> {
    fn count(&self) -> usize {
        self.len()
    }
    fn batch(&self, call: usize) -> SampleBatch {
        self.get(call).map_or(SampleBatch { first: 0, count: 0 }, |c| c.samples)
    }
    fn keys(&self, call: usize) -> Vec<String> {
        self.get(call).map_or_else(Vec::new, |c| c.keys().to_vec())
    }
    fn size(&self, call: usize) -> CallSize {
        self.get(call).map_or_else(CallSize::default, |c| request_size(&c.request, c.samples.count))
    }
    fn request(&self, call: usize) -> Option<Cow<'_, ChatRequest>> {
        self.get(call).map(|c| Cow::Borrowed(&*c.request))
    }
}

/// Single samples of some calls of `calls` (`(call, sample offset in its batch)`): a provider
/// that answered fewer samples than asked (it ignores `n`) is asked for the rest one by one.
struct Singles<'a> {
    calls: &'a dyn Calls,
    list: Vec<(usize, u32)>,
}

impl Calls for Singles<'_> {
    fn count(&self) -> usize {
        self.list.len()
    }
    fn batch(&self, call: usize) -> SampleBatch {
        let Some(&(c, offset)) = self.list.get(call) else {
            return SampleBatch { first: 0, count: 0 };
        };
        SampleBatch { first: self.calls.batch(c).first + offset, count: 1 }
    }
    fn keys(&self, call: usize) -> Vec<String> {
        let Some(&(c, offset)) = self.list.get(call) else { return Vec::new() };
        self.calls.keys(c).into_iter().nth(offset as usize).into_iter().collect()
    }
    fn request(&self, call: usize) -> Option<Cow<'_, ChatRequest>> {
        self.list.get(call).and_then(|&(c, _)| self.calls.request(c))
    }
    fn size(&self, call: usize) -> CallSize {
        let Some(&(c, _)) = self.list.get(call) else { return CallSize::default() };
        CallSize { samples: 1, ..self.calls.size(c) }
    }
    fn prompt_label(&self, call: usize) -> Option<concord_core::run::PromptRef> {
        self.list.get(call).and_then(|&(c, _)| self.calls.prompt_label(c))
    }
}

/// Some calls of `calls`, renumbered from 0: a run without the calls a pending batch will
/// answer.
pub struct Subset<'a> {
    pub calls: &'a dyn Calls,
    /// The numbers in `calls` of the calls kept, in order.
    pub list: Vec<usize>,
}

impl Calls for Subset<'_> {
    fn count(&self) -> usize {
        self.list.len()
    }
    fn batch(&self, call: usize) -> SampleBatch {
        self.list.get(call).map_or(SampleBatch { first: 0, count: 0 }, |&c| self.calls.batch(c))
    }
    fn keys(&self, call: usize) -> Vec<String> {
        self.list.get(call).map_or_else(Vec::new, |&c| self.calls.keys(c))
    }
    fn request(&self, call: usize) -> Option<Cow<'_, ChatRequest>> {
        self.list.get(call).and_then(|&c| self.calls.request(c))
    }
    fn size(&self, call: usize) -> CallSize {
        self.list.get(call).map_or_else(CallSize::default, |&c| self.calls.size(c))
    }
    fn prompt_label(&self, call: usize) -> Option<concord_core::run::PromptRef> {
        self.list.get(call).and_then(|&c| self.calls.prompt_label(c))
    }
    fn twin(&self, call: usize) -> Option<usize> {
        let twin = self.calls.twin(*self.list.get(call)?)?;
        self.list.binary_search(&twin).ok()
    }
}

/// The calls of `calls` none of whose samples is in `skip` (in slices between yields).
pub async fn without_keys(calls: &dyn Calls, skip: &HashSet<String>) -> Vec<usize> {
    let mut slice = time::monotonic_ms();
    let mut list = Vec::with_capacity(calls.count());
    for call in 0..calls.count() {
        if !calls.keys(call).iter().any(|k| skip.contains(k)) {
            list.push(call);
        }
        breathe(&mut slice).await;
    }
    list
}

/// What is stored per sample under its cache key (JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredSample {
    pub text: String,
    /// The model that answered, as the API reported it.
    #[serde(default)]
    pub model: String,
    /// Unix ms when it arrived.
    #[serde(default)]
    pub at: u64,
    /// The provider cut it off at the token limit (`finish_reason: length`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cut_off: bool,
    /// Its digit-bearing tokens with their top log-probabilities, when the request asked for
    /// them (a probability-weighted method) and the provider returned them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<ScoreToken>,
    /// The reasoning tokens it cost (its call's reported count shared among the call's
    /// samples), when the provider reported some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
    /// On the first sample of each call: the call — samples answered, the tokens the provider
    /// reported, whether through a batch — which Results prices (`JudgeRecord::calls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<CallUsage>,
}

thread_local! {
    /// What the stored samples that carry anything beside their text carry (filled as answers
    /// arrive and as stored ones are read back): the few a collected run marks as cut off, the
    /// log-probabilities a probability-weighted method weighs by, reasoning tokens, and on each
    /// call's first sample the call's reported usage.
    static SAMPLE_INFO: RefCell<HashMap<String, SampleInfo>> = RefCell::new(HashMap::new());
}

/// What the sample stored under `key` carries beside its text (nothing when it is unknown).
pub fn sample_info(key: &str) -> SampleInfo {
    SAMPLE_INFO.with(|c| c.borrow().get(key).cloned().unwrap_or_default())
}

fn keep_info(key: &str, sample: &StoredSample) {
    let info = SampleInfo {
        cut_off: sample.cut_off,
        tokens: sample.tokens.clone(),
        reasoning_tokens: sample.reasoning_tokens,
        call: sample.call,
    };
    if info != SampleInfo::default() {
        SAMPLE_INFO.with(|c| c.borrow_mut().insert(key.to_owned(), info));
    }
}

/// Requests from the page to a running run. Cheap to clone; shared with the UI.
#[derive(Clone, Default)]
pub struct RunControl {
    inner: Rc<ControlInner>,
}

#[derive(Default)]
struct ControlInner {
    pause: Cell<bool>,
    cancel: Cell<bool>,
    abort: RefCell<Option<AbortHandle>>,
}

impl RunControl {
    pub fn new() -> RunControl {
        RunControl::default()
    }
    /// Sends nothing new; calls in flight still land and are stored.
    pub fn pause(&self) {
        self.inner.pause.set(true);
    }
    pub fn resume(&self) {
        self.inner.pause.set(false);
    }
    pub fn is_paused(&self) -> bool {
        self.inner.pause.get()
    }
    /// Stops the run and aborts the calls in flight (they are not stored, so a later run
    /// sends them again; the provider may still bill an aborted call it already answered).
    pub fn cancel(&self) {
        self.inner.cancel.set(true);
        if let Some(abort) = self.inner.abort.borrow().as_ref() {
            abort.abort();
        }
    }
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancel.get()
    }
}

/// What the progress callback receives.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub progress: Progress,
    /// Calls skipped because every sample was already stored.
    pub cached: usize,
    /// New run-log lines since the last report.
    pub log: Vec<String>,
    pub paused: bool,
    /// Every kind of failure met so far in this run (all of it, not only since the last
    /// report), with what to do about it.
    pub problems: Vec<Problem>,
}

/// One kind of failure met during a run: what it was, how often, the provider's last words
/// about it and what the user can do.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// What went wrong with its status, e.g. "rate limited (HTTP 429)", "timed out".
    pub what: String,
    pub count: usize,
    /// The last message of this kind (the provider's or the browser's words).
    pub last: String,
    /// What to do, from [`ApiError::advice`].
    pub advice: String,
}

/// The tally of [`Problem`]s of a run, in the order they were first met.
#[derive(Default)]
struct Problems(RefCell<Vec<Problem>>);

impl Problems {
    fn note(&self, connection: &Connection, error: &ApiError) {
        let what = if error.status == 0 {
            error.what()
        } else {
            format!("{} (HTTP {})", error.what(), error.status)
        };
        let mut list = self.0.borrow_mut();
        let last: String = error.message.chars().take(300).collect();
        match list.iter_mut().find(|p| p.what == what) {
            Some(p) => {
                p.count += 1;
                p.last = last;
            }
            None => list.push(Problem {
                what,
                count: 1,
                last,
                advice: error.advice(connection.endpoint.provider),
            }),
        }
    }

    fn snapshot(&self) -> Vec<Problem> {
        self.0.borrow().clone()
    }
}

/// How a run ended, with the numbers a user wants.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub finish: Finish,
    pub progress: Progress,
    pub cached: usize,
    /// Parameters the API rejected and the run dropped.
    pub dropped: Vec<String>,
    /// Prompts too long for the model in this run (by [`Calls::prompt_label`]).
    pub overflowed: Vec<String>,
    /// Their items.
    pub overflowed_items: Vec<String>,
    /// Storage failures (the sample is kept in memory for this session).
    pub storage_errors: usize,
    /// Calls answered with their twin's answer, not sent: a "+weighted" call and its plain
    /// twin are the same request once log-probabilities are dropped ([`Calls::twin`]).
    pub reused: usize,
}

/// The stored samples whose keys `wanted` accepts, with their texts. The store is read a page
/// at a time with a yield to the browser after each, so a cache of hundreds of thousands of
/// samples never blocks the page.
pub async fn cached_texts(store: &Store, wanted: impl Fn(&str) -> bool) -> HashMap<String, String> {
    const PAGE: u32 = 5_000;
    let mut out = HashMap::new();
    let mut after: Option<String> = None;
    loop {
        let Ok(page) = store.get_page(StoreName::Responses, after.as_deref(), PAGE).await else {
            break;
        };
        let last = page.len() < PAGE as usize;
        after = page.last().map(|(k, _)| k.clone());
        for (key, value) in page {
            if wanted(&key) {
                let text = match serde_json::from_str::<StoredSample>(&value) {
                    Ok(s) => {
                        keep_info(&key, &s);
                        s.text
                    }
                    Err(_) => value,
                };
                out.insert(key, text);
            }
        }
        if last || after.is_none() {
            break;
        }
        time::yield_now().await;
    }
    out
}

/// A 64-bit fingerprint of a key: the set of keys a run looks for in the store is kept as
/// these (8 bytes each instead of a 64-character string). A stored sample whose fingerprint
/// matches by chance is only loaded into memory, never mistaken for another.
fn fingerprint(key: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// Yields to the browser once about a frame's worth of work has been done since `since`.
async fn breathe(since: &mut f64) {
    if time::monotonic_ms() - *since > 12.0 {
        time::yield_now().await;
        *since = time::monotonic_ms();
    }
}

type Completion = (JobId, Result<HttpReply, FetchError>);

/// Runs `calls`, skipping those already stored, until done, cancelled or stopped. Every
/// sample that arrives is written to `store` (and to `memory`) before the scheduler hears of
/// it. `on_report` is called after every event. Looking up what is already stored is done in
/// slices between yields, so a run of 40,000 calls starts without blocking the page.
pub async fn execute(
    connection: Connection,
    calls: &dyn Calls,
    store: Store,
    memory: Rc<RefCell<HashMap<String, String>>>,
    control: RunControl,
    mut on_report: impl FnMut(Report),
) -> Outcome {
    // A cap with no price could not hold anything back: nothing is sent.
    if connection.spend_cap_usd.is_some() && connection.price.is_none() {
        return Outcome {
            finish: Finish::Stopped(StopReason::NoPrice {
                model: connection.endpoint.model.clone(),
            }),
            progress: Progress::default(),
            cached: 0,
            dropped: Vec::new(),
            overflowed: Vec::new(),
            overflowed_items: Vec::new(),
            storage_errors: 0,
            reused: 0,
        };
    }
    let (todo, cached) = uncached_calls(calls, &store, &memory).await;
    let short = Cell::new(false);
    let problems = Problems::default();
    let mut outcome = pass(
        &connection,
        connection.caps.clone(),
        calls,
        &todo,
        cached,
        &store,
        &memory,
        &control,
        &mut on_report,
        &short,
        &problems,
    )
    .await;
    if short.get() && matches!(outcome.finish, Finish::Completed) && !control.is_cancelled() {
        // The provider answered with fewer samples than asked (it ignores `n`): ask for the
        // missing ones one call each.
        let list: Vec<(usize, u32)> = {
            let mem = memory.borrow();
            todo.iter()
                .flat_map(|&call| {
                    let keys = calls.keys(call);
                    (0..keys.len() as u32)
                        .filter(|&i| !mem.contains_key(&keys[i as usize]))
                        .map(move |i| (call, i))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        if !list.is_empty() {
            on_report(Report {
                progress: outcome.progress,
                cached,
                log: vec![format!(
                    "the provider returned fewer samples than asked for (it ignores `n`); requesting the {} missing samples one by one",
                    list.len()
                )],
                paused: false,
                problems: problems.snapshot(),
            });
            let missing = Singles { calls, list };
            let every: Vec<usize> = (0..missing.count()).collect();
            let mut caps = connection.caps.clone();
            caps.max_n = 1;
            let second = pass(
                &connection,
                caps,
                &missing,
                &every,
                cached,
                &store,
                &memory,
                &control,
                &mut on_report,
                &short,
                &problems,
            )
            .await;
            let mut overflowed = outcome.overflowed;
            overflowed.extend(
                second
                    .overflowed
                    .iter()
                    .filter(|p| !overflowed.contains(p))
                    .cloned()
                    .collect::<Vec<_>>(),
            );
            outcome = Outcome {
                storage_errors: outcome.storage_errors + second.storage_errors,
                reused: outcome.reused + second.reused,
                overflowed,
                ..second
            };
        }
    }
    outcome
}

/// The calls of `calls` with a sample not stored yet (numbers), and how many are stored
/// whole. Samples not in `memory` are looked up in the store (an earlier session, a reload),
/// in slices between yields, so 40,000 calls are looked up without blocking the page.
pub async fn uncached_calls(
    calls: &dyn Calls,
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
) -> (Vec<usize>, usize) {
    let samples: usize = (0..calls.count()).map(|c| calls.batch(c).count as usize).sum();
    let mut wanted: HashSet<u64> = HashSet::with_capacity(samples);
    let mut slice = time::monotonic_ms();
    for call in 0..calls.count() {
        let keys = calls.keys(call);
        {
            let mem = memory.borrow();
            wanted.extend(keys.iter().filter(|k| !mem.contains_key(*k)).map(|k| fingerprint(k)));
        }
        breathe(&mut slice).await;
    }
    if !wanted.is_empty() {
        let stored = cached_texts(store, |k| wanted.contains(&fingerprint(k))).await;
        memory.borrow_mut().extend(stored);
    }
    // Room for every answer to come, now: growing a table of 800,000 entries rehashes it all
    // at once (a 170 ms pause in the middle of a 10,000-item run).
    memory.borrow_mut().reserve(wanted.len());
    drop(wanted);
    let mut todo: Vec<usize> = Vec::new();
    let mut cached = 0;
    for call in 0..calls.count() {
        let keys = calls.keys(call);
        if keys.iter().all(|k| memory.borrow().contains_key(k)) {
            cached += 1;
        } else {
            todo.push(call);
        }
        breathe(&mut slice).await;
    }
    (todo, cached)
}

/// Stores answers that arrived another way (a provider batch) exactly as a run stores its
/// own: under their cache keys, in the store and in `memory`. `Err` counts the answers that
/// could not be written to the store (they are kept in memory for this session).
pub async fn store_answers(
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
    answers: &[concord_core::run::batch::BatchAnswer],
) -> Result<(), usize> {
    let at = time::now_ms();
    let mut failed = 0;
    for chunk in answers.chunks(500) {
        let entries: Vec<(String, String)> = chunk
            .iter()
            .map(|a| {
                let sample = StoredSample {
                    text: a.text.clone(),
                    model: a.model.clone(),
                    at,
                    cut_off: a.cut_off,
                    tokens: a.tokens.clone(),
                    reasoning_tokens: a.reasoning_tokens,
                    call: a.line.map(|l| call_usage(l.samples as usize, l.usage, true)),
                };
                keep_info(&a.key, &sample);
                (a.key.clone(), serde_json::to_string(&sample).unwrap_or_default())
            })
            .collect();
        if store.put_many(StoreName::Responses, &entries).await.is_err() {
            failed += chunk.len();
        }
        {
            let mut mem = memory.borrow_mut();
            for a in chunk {
                mem.insert(a.key.clone(), a.text.clone());
            }
        }
        time::yield_now().await;
    }
    if failed == 0 { Ok(()) } else { Err(failed) }
}

/// One pass of the scheduler over the calls numbered in `todo`. The scheduler's jobs carry
/// call numbers; a call's request is built when it is sent and its keys derived when it
/// lands, so nothing per call is held beyond that.
#[allow(clippy::too_many_arguments)]
async fn pass(
    connection: &Connection,
    caps: Capabilities,
    calls: &dyn Calls,
    todo: &[usize],
    cached: usize,
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
    control: &RunControl,
    on_report: &mut impl FnMut(Report),
    short: &Cell<bool>,
    problems: &Problems,
) -> Outcome {
    // Jobs are told apart by their payload (the call number); the key is not needed.
    let jobs: Vec<Job<usize>> = todo
        .iter()
        .map(|&call| Job {
            key: String::new(),
            payload: call,
            // Held against the spend cap while the call is in flight.
            estimated_cost_usd: connection.price.map_or(0.0, |p| p.reserve_usd(calls.size(call))),
            prompt: calls.prompt_label(call),
        })
        .collect();
    let config = SchedulerConfig {
        max_concurrency: connection.max_concurrency.max(1),
        requests_per_minute: connection.requests_per_minute,
        spend_cap_usd: connection.spend_cap_usd,
        price: connection.price,
        seed: time::now_ms(),
        known_overflow: connection.known_overflow.clone(),
        ..SchedulerConfig::default()
    };
    let mut scheduler = Scheduler::new(jobs, config);
    // Twins by job (positions in `todo`, which is in call order); a twin already stored is
    // found when the call is sent.
    scheduler.set_twins(todo.iter().enumerate().filter_map(|(job, &call)| {
        let twin = calls.twin(call)?;
        (twin > call).then(|| todo.binary_search(&twin).ok().map(|t| (job, t))).flatten()
    }));
    let abort = AbortHandle::new();
    *control.inner.abort.borrow_mut() = Some(abort.clone());
    let (tx, mut rx) = mpsc::unbounded::<Completion>();
    let start = time::monotonic_ms();
    let now = move || (time::monotonic_ms() - start).max(0.0) as u64;
    let mut caps = caps;
    let mut logged = 0;
    let mut storage_errors = 0;
    let mut paused = false;
    let mut arrived: Option<Completion> = None;
    let mut report = |scheduler: &Scheduler<usize>, paused: bool, logged: &mut usize| {
        let log = scheduler.log()[*logged..].iter().map(|e| e.message.clone()).collect();
        *logged = scheduler.log().len();
        on_report(Report {
            progress: scheduler.progress(now()),
            cached,
            log,
            paused,
            problems: problems.snapshot(),
        });
    };
    report(&scheduler, paused, &mut logged);
    lifecycle::watch();
    let finish = loop {
        // Requests from the page.
        if control.is_cancelled() {
            scheduler.cancel(now());
        } else if control.is_paused() != paused {
            paused = control.is_paused();
            if paused {
                scheduler.pause(now())
            } else {
                scheduler.resume(now())
            }
            report(&scheduler, paused, &mut logged);
        }
        // Everything that has arrived (including what woke the wait below).
        while let Some((id, result)) = arrived.take().or_else(|| rx.try_recv().ok()) {
            handle(
                connection,
                &mut scheduler,
                calls,
                &mut caps,
                store,
                memory,
                id,
                result,
                now(),
                &mut storage_errors,
                short,
                problems,
            )
            .await;
            report(&scheduler, paused, &mut logged);
        }
        if lifecycle::leaving() {
            // The page is going away (a reload, a closed tab): its fetches are being aborted
            // and a call sent now would be paid for and never read. The stored run resumes.
            time::sleep(250).await;
            continue;
        }
        let wait_ms = match scheduler.next_action(now()) {
            Action::Send(id) => {
                let Some(call) = scheduler.job(id).map(|j| j.payload) else {
                    continue;
                };
                caps.dropped = scheduler.dropped_params().clone();
                // Without log-probabilities a call and its twin are the same request: the
                // twin's stored answer is this call's too, not paid twice.
                if !caps.allows(concord_core::run::Param::Logprobs)
                    && let Some(twin) = calls.twin(call)
                    && reuse_twin(
                        calls.keys(twin),
                        calls.keys(call),
                        store,
                        memory,
                        &mut storage_errors,
                    )
                    .await
                {
                    let _ = scheduler.on_reused(id, now());
                    continue;
                }
                let built = match calls.request(call) {
                    Some(request) => build_chat(
                        &connection.endpoint,
                        &caps,
                        &request,
                        calls.batch(call),
                        &connection.api_key,
                        CallOptions::default(),
                    )
                    .map_err(|e| e.to_string()),
                    None => Err("the prompt of this call could not be rendered".to_owned()),
                };
                match built {
                    Ok(call) => {
                        let tx = tx.clone();
                        let abort = abort.clone();
                        let timeout = connection.timeout_ms;
                        spawn_local(async move {
                            let result = http::send(&call.http, timeout, Some(&abort)).await;
                            let _ = tx.unbounded_send((id, result));
                        });
                    }
                    Err(e) => {
                        // Cannot be built (no key, bad URL): a fatal error for the whole run.
                        let mut error = ApiError::network(e);
                        error.kind = concord_core::run::ErrorKind::Auth;
                        problems.note(connection, &error);
                        let _ = scheduler.on_failure(id, now(), error);
                    }
                }
                continue;
            }
            Action::Done(finish) => break finish,
            Action::Wait(ms) => ms.min(1000),
            // Responses (or the user) will wake us; poll the controls a few times a second.
            _ => 250,
        };
        let sleep = Box::pin(time::sleep(wait_ms as u32));
        if let Either::Left((Some(completion), _)) = select(rx.next(), sleep).await {
            arrived = Some(completion);
            continue;
        }
        report(&scheduler, paused, &mut logged);
    };
    *control.inner.abort.borrow_mut() = None;
    report(&scheduler, paused, &mut logged);
    Outcome {
        finish,
        progress: scheduler.progress(now()),
        cached,
        dropped: scheduler.dropped_params().iter().map(|p| p.name().to_owned()).collect(),
        overflowed: scheduler.overflowed().to_vec(),
        overflowed_items: scheduler.overflowed_items().to_vec(),
        storage_errors,
        reused: scheduler.reused(),
    }
}

/// Stores the answers of `from` (a twin's, already stored) under `to`, when every one of them
/// is there: `true` when it did. Copied answers carry no call (nothing was paid for them).
async fn reuse_twin(
    from: Vec<String>,
    to: Vec<String>,
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
    storage_errors: &mut usize,
) -> bool {
    if from.len() != to.len() || to.is_empty() {
        return false;
    }
    let texts: Option<Vec<String>> = {
        let mem = memory.borrow();
        from.iter().map(|k| mem.get(k).cloned()).collect()
    };
    let Some(texts) = texts else { return false };
    let at = time::now_ms();
    let entries: Vec<(String, String)> = from
        .iter()
        .zip(&to)
        .zip(&texts)
        .map(|((f, t), text)| {
            let info = sample_info(f);
            let sample = StoredSample {
                text: text.clone(),
                model: String::new(),
                at,
                cut_off: info.cut_off,
                tokens: info.tokens,
                reasoning_tokens: info.reasoning_tokens,
                call: None,
            };
            keep_info(t, &sample);
            (t.clone(), serde_json::to_string(&sample).unwrap_or_default())
        })
        .collect();
    if store.put_many(StoreName::Responses, &entries).await.is_err() {
        *storage_errors += 1;
    }
    let mut mem = memory.borrow_mut();
    for (t, text) in to.into_iter().zip(texts) {
        mem.insert(t, text);
    }
    true
}

/// Stores a successful answer and tells the scheduler; classifies failures.
#[allow(clippy::too_many_arguments)]
async fn handle(
    connection: &Connection,
    scheduler: &mut Scheduler<usize>,
    calls: &dyn Calls,
    caps: &mut Capabilities,
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
    id: JobId,
    result: Result<HttpReply, FetchError>,
    at: u64,
    storage_errors: &mut usize,
    short: &Cell<bool>,
    problems: &Problems,
) {
    let api = connection.endpoint.provider.api();
    let reply = match result {
        Ok(reply) => reply,
        Err(FetchError::Aborted) => {
            let _ = scheduler.on_aborted(id);
            return;
        }
        Err(e) => {
            let error = e.api_error().unwrap_or_else(|| ApiError::network(e.to_string()));
            problems.note(connection, &error);
            let _ = scheduler.on_failure(id, at, error);
            return;
        }
    };
    if !reply.is_success() {
        let error = classify_error(reply.status, &reply.headers, &reply.body, time::now_ms());
        problems.note(connection, &error);
        if let Ok(FailureOutcome::RetryWithout(param)) = scheduler.on_failure(id, at, error) {
            caps.drop_param(param);
        }
        return;
    }
    let response = match parse_chat_response(api, &reply.body) {
        Ok(r) if !r.choices.is_empty() => r,
        Ok(_) => {
            let error = ApiError::malformed("the answer has no choices");
            problems.note(connection, &error);
            let _ = scheduler.on_failure(id, at, error);
            return;
        }
        Err(e) => {
            // A prompt the provider will not answer is the item's failure, not retried.
            let error = if matches!(e, ParseError::Blocked { .. }) {
                ApiError::blocked(e.to_string())
            } else {
                ApiError::malformed(e.to_string())
            };
            problems.note(connection, &error);
            let _ = scheduler.on_failure(id, at, error);
            return;
        }
    };
    let Some(call) = scheduler.job(id).map(|j| j.payload) else { return };
    let keys = calls.keys(call);
    if response.choices.len() < keys.len() {
        short.set(true);
    }
    let arrived = time::now_ms();
    let reasoning_tokens =
        response.usage.and_then(|u| u.reasoning_per_sample(response.choices.len()));
    let answered = keys.len().min(response.choices.len());
    let entries: Vec<(String, String)> = keys
        .iter()
        .zip(&response.choices)
        .enumerate()
        .map(|(i, (key, choice))| {
            let sample = StoredSample {
                text: choice.text.clone(),
                model: response.model.clone().unwrap_or_default(),
                at: arrived,
                cut_off: choice.finish_reason == Some(FinishReason::Length),
                tokens: choice.top_logprobs.as_deref().map(score_tokens).unwrap_or_default(),
                reasoning_tokens,
                call: (i == 0).then(|| call_usage(answered, response.usage, false)),
            };
            keep_info(key, &sample);
            (key.clone(), serde_json::to_string(&sample).unwrap_or_default())
        })
        .collect();
    // Stored the moment it arrives, before anything else can go wrong.
    if store.put_many(StoreName::Responses, &entries).await.is_err() {
        *storage_errors += 1;
    }
    {
        let mut mem = memory.borrow_mut();
        for (key, choice) in keys.iter().zip(&response.choices) {
            mem.insert(key.clone(), choice.text.clone());
        }
    }
    let _ = scheduler.on_success_priced(id, at, response.usage, response.cost_usd);
}
