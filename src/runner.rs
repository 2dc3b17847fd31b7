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
//! [`execute`]: give it the calls (request + sample batch + one cache key per sample), a
//! [`Connection`] and a [`RunControl`]; it returns how the run finished. Read the stored texts
//! back with [`cached_texts`].

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use concord_core::judge::ChatRequest;
use concord_core::run::{
    Action, ApiError, CallOptions, Capabilities, Endpoint, FailureOutcome, Finish, Job, JobId,
    Price, Progress, SampleBatch, Scheduler, SchedulerConfig, build_chat, classify_error,
    parse_chat_response,
};
use futures::StreamExt;
use futures::channel::mpsc;
use futures::future::{Either, select};
use serde::{Deserialize, Serialize};
use wasm_bindgen_futures::spawn_local;

use crate::edge::http::{self, AbortHandle, FetchError, HttpReply};
use crate::edge::store::{Store, StoreName};
use crate::edge::time;

/// Where calls go, with what key and limits. The key lives only in this value (memory).
#[derive(Clone, PartialEq)]
pub struct Connection {
    pub endpoint: Endpoint,
    pub api_key: String,
    pub caps: Capabilities,
    pub max_concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub spend_cap_usd: Option<f64>,
    pub price: Option<Price>,
    /// Per-request time limit.
    pub timeout_ms: u32,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key, even in a debug dump.
        f.debug_struct("Connection")
            .field("endpoint", &self.endpoint)
            .field("api_key", &if self.api_key.is_empty() { "(none)" } else { "(set)" })
            .finish_non_exhaustive()
    }
}

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
    /// Storage failures (the sample is kept in memory for this session).
    pub storage_errors: usize,
}

/// The keys among `wanted` that are stored, with their texts. The store is read a page at a
/// time with a yield to the browser after each, so a cache of hundreds of thousands of
/// samples never blocks the page.
pub async fn cached_texts(store: &Store, wanted: &HashSet<&str>) -> HashMap<String, String> {
    const PAGE: u32 = 5_000;
    let mut out = HashMap::with_capacity(wanted.len().min(1 << 16));
    if wanted.is_empty() {
        return out;
    }
    let mut after: Option<String> = None;
    loop {
        let Ok(page) = store.get_page(StoreName::Responses, after.as_deref(), PAGE).await else {
            break;
        };
        let last = page.len() < PAGE as usize;
        after = page.last().map(|(k, _)| k.clone());
        for (key, value) in page {
            if wanted.contains(key.as_str()) {
                let text =
                    serde_json::from_str::<StoredSample>(&value).map(|s| s.text).unwrap_or(value);
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

type Completion = (JobId, Result<HttpReply, FetchError>);

/// Runs `calls`, skipping those already stored, until done, cancelled or stopped. Every
/// sample that arrives is written to `store` (and to `memory`) before the scheduler hears of
/// it. `on_report` is called after every event.
pub async fn execute(
    connection: Connection,
    calls: Vec<CallSpec>,
    store: Store,
    memory: Rc<RefCell<HashMap<String, String>>>,
    control: RunControl,
    mut on_report: impl FnMut(Report),
) -> Outcome {
    // Samples neither in memory nor yet looked up in the store.
    let wanted: HashSet<&str> = {
        let mem = memory.borrow();
        calls
            .iter()
            .flat_map(CallSpec::keys)
            .map(String::as_str)
            .filter(|k| !mem.contains_key(*k))
            .collect()
    };
    let stored = cached_texts(&store, &wanted).await;
    drop(wanted);
    memory.borrow_mut().extend(stored);
    let (todo, cached): (Vec<CallSpec>, Vec<CallSpec>) = {
        let mem = memory.borrow();
        calls.into_iter().partition(|c| !c.keys().iter().all(|k| mem.contains_key(k)))
    };
    let short = Cell::new(false);
    let problems = Problems::default();
    let cached = cached.len();
    let mut outcome = pass(
        &connection,
        connection.caps.clone(),
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
        let missing: Vec<CallSpec> = {
            let mem = memory.borrow();
            todo.iter()
                .flat_map(|c| {
                    c.keys().iter().enumerate().filter(|(_, k)| !mem.contains_key(*k)).map(
                        |(i, _)| CallSpec {
                            request: c.request.clone(),
                            samples: SampleBatch { first: c.samples.first + i as u32, count: 1 },
                            prompt_keys: c.prompt_keys.clone(),
                        },
                    )
                })
                .collect()
        };
        if !missing.is_empty() {
            on_report(Report {
                progress: outcome.progress,
                cached,
                log: vec![format!(
                    "the provider returned fewer samples than asked for (it ignores `n`); requesting the {} missing samples one by one",
                    missing.len()
                )],
                paused: false,
                problems: problems.snapshot(),
            });
            let mut caps = connection.caps.clone();
            caps.max_n = 1;
            let second = pass(
                &connection,
                caps,
                &missing,
                cached,
                &store,
                &memory,
                &control,
                &mut on_report,
                &short,
                &problems,
            )
            .await;
            outcome = Outcome {
                storage_errors: outcome.storage_errors + second.storage_errors,
                ..second
            };
        }
    }
    outcome
}

/// One pass of the scheduler over `todo`. The scheduler's jobs carry indices into `todo`, so
/// the calls (their prompts can add up to hundreds of megabytes) are never copied.
#[allow(clippy::too_many_arguments)]
async fn pass(
    connection: &Connection,
    caps: Capabilities,
    todo: &[CallSpec],
    cached: usize,
    store: &Store,
    memory: &Rc<RefCell<HashMap<String, String>>>,
    control: &RunControl,
    on_report: &mut impl FnMut(Report),
    short: &Cell<bool>,
    problems: &Problems,
) -> Outcome {
    let jobs: Vec<Job<usize>> = todo
        .iter()
        .enumerate()
        .map(|(i, c)| Job {
            key: c.keys().first().cloned().unwrap_or_default(),
            payload: i,
            estimated_cost_usd: 0.0,
        })
        .collect();
    let config = SchedulerConfig {
        max_concurrency: connection.max_concurrency.max(1),
        requests_per_minute: connection.requests_per_minute,
        spend_cap_usd: connection.spend_cap_usd,
        price: connection.price,
        seed: time::now_ms(),
        ..SchedulerConfig::default()
    };
    let mut scheduler = Scheduler::new(jobs, config);
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
                todo,
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
        let wait_ms = match scheduler.next_action(now()) {
            Action::Send(id) => {
                let Some(spec) = scheduler.job(id).and_then(|j| todo.get(j.payload)) else {
                    continue;
                };
                caps.dropped = scheduler.dropped_params().clone();
                let built = build_chat(
                    &connection.endpoint,
                    &caps,
                    &spec.request,
                    spec.samples,
                    &connection.api_key,
                    CallOptions::default(),
                );
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
                        let mut error = ApiError::network(e.to_string());
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
        storage_errors,
    }
}

/// Stores a successful answer and tells the scheduler; classifies failures.
#[allow(clippy::too_many_arguments)]
async fn handle(
    connection: &Connection,
    scheduler: &mut Scheduler<usize>,
    todo: &[CallSpec],
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
            let error = ApiError::malformed(e.to_string());
            problems.note(connection, &error);
            let _ = scheduler.on_failure(id, at, error);
            return;
        }
    };
    let Some(spec) = scheduler.job(id).and_then(|j| todo.get(j.payload)) else { return };
    if response.choices.len() < spec.keys().len() {
        short.set(true);
    }
    let arrived = time::now_ms();
    let entries: Vec<(String, String)> = spec
        .keys()
        .iter()
        .zip(&response.choices)
        .map(|(key, choice)| {
            let sample = StoredSample {
                text: choice.text.clone(),
                model: response.model.clone().unwrap_or_default(),
                at: arrived,
            };
            (key.clone(), serde_json::to_string(&sample).unwrap_or_default())
        })
        .collect();
    // Stored the moment it arrives, before anything else can go wrong.
    if store.put_many(StoreName::Responses, &entries).await.is_err() {
        *storage_errors += 1;
    }
    {
        let mut mem = memory.borrow_mut();
        for (key, choice) in spec.keys().iter().zip(&response.choices) {
            mem.insert(key.clone(), choice.text.clone());
        }
    }
    let _ = scheduler.on_success(id, at, response.usage);
}
