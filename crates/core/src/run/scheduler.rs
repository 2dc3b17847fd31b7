//! The run scheduler: a state machine that decides which call to send next and when.
//!
//! The browser edge drives it in a loop:
//!
//! ```text
//! loop {
//!     match scheduler.next_action(now_ms) {
//!         Action::Send(id)         => start the fetch for scheduler.job(id) (do not await it)
//!         Action::Wait(ms)         => sleep ms, or until a response arrives, whichever is first
//!         Action::AwaitResponses   => wait for the next response
//!         Action::Paused           => wait for resume (responses in flight are still accepted)
//!         Action::Done(finish)     => stop and show `finish`
//!     }
//!     // as each response arrives: store it in the cache first, then
//!     // scheduler.on_success(id, now_ms, usage) or scheduler.on_failure(id, now_ms, error)
//! }
//! ```
//!
//! Time is always passed in, never read, so the machine is deterministic and runs unchanged
//! in wasm32. Concurrency is bounded and adapts to 429s (AIMD: halve on a rate limit, grow by
//! one per window of successes); a known requests-per-minute limit spaces sends evenly.
//! Resumption is the edge's business: it builds the job list from the cache keys that are not
//! in the cache yet, so nothing already paid for is queued again.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};
use std::fmt;

use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

use crate::run::cost::{CostMeter, Price};
use crate::run::error::{ApiError, ErrorKind};
use crate::run::provider::Param;
use crate::run::response::Usage;
use crate::run::retry::{GiveUpReason, RetryDecision, RetryPolicy};

/// Index of a job in the scheduler (its position in the list passed to [`Scheduler::new`]).
pub type JobId = usize;

/// One call to make: its cache key (the sample it produces, or the first of a batch), the
/// edge's payload (what to send), and its estimated cost for the spend cap.
#[derive(Debug, Clone, PartialEq)]
pub struct Job<T> {
    pub key: String,
    pub payload: T,
    pub estimated_cost_usd: f64,
    /// The prompt this call sends and the item it rates: calls of one prompt share it. A
    /// prompt too long for the model fails its calls without sending the others, and the run
    /// stops once prompts of [`SchedulerConfig::overflow_limit`] different items have
    /// overflowed, naming them. `None`: the call is its own prompt and item.
    pub prompt: Option<PromptRef>,
}

/// What a call asks about, in words: the item it rates ("item 12") and its prompt ("item 12 ·
/// score-only · coherence").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptRef {
    pub item: String,
    pub prompt: String,
}

/// How long nothing new is sent after a call got no answer at all (a network error).
pub const NETWORK_PAUSE_MS: u64 = 1_000;

/// Settings of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerConfig {
    /// Upper bound of parallel calls (LLM_PROVIDERS.md suggests 4–8 per provider).
    pub max_concurrency: u32,
    /// Known requests-per-minute limit; sends are spaced to stay under it.
    pub requests_per_minute: Option<u32>,
    /// Fraction of the limit actually used, so timer and network jitter do not trip it.
    pub pacing_fraction: f64,
    pub retry: RetryPolicy,
    /// Stop cleanly (finish what is in flight, send nothing more) once this much is committed.
    pub spend_cap_usd: Option<f64>,
    /// Price used to turn reported usage into cost; `None` when unknown.
    pub price: Option<Price>,
    /// Seed of the backoff jitter.
    pub seed: u64,
    /// The run stops once prompts of this many different items were too long for the model
    /// (one over-long item fails alone, whatever its methods; many say the model's context is
    /// too small for the study).
    pub overflow_limit: usize,
    /// Prompts (and items) an earlier run of the same calls found too long: calls of such a
    /// prompt fail without being sent, and an overflow of such an item does not count towards
    /// the limit (so a resumed run does not stop on them again).
    pub known_overflow: BTreeSet<String>,
}

impl Default for SchedulerConfig {
    fn default() -> SchedulerConfig {
        SchedulerConfig {
            max_concurrency: 6,
            requests_per_minute: None,
            pacing_fraction: 0.95,
            retry: RetryPolicy::default(),
            spend_cap_usd: None,
            price: None,
            seed: 0,
            overflow_limit: 3,
            known_overflow: BTreeSet::new(),
        }
    }
}

/// What the edge should do next.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Action {
    /// Send this job now.
    Send(JobId),
    /// Nothing may be sent for this many ms (pacing, backoff, `retry-after`); a response
    /// arriving earlier is handled as usual.
    Wait(u64),
    /// The concurrency limit is reached, or only in-flight calls remain: wait for a response.
    AwaitResponses,
    /// Paused by the user.
    Paused,
    /// Nothing is in flight and nothing more will be sent.
    Done(Finish),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Finish {
    /// Every job finished (some may have failed; see [`Progress::failed`]).
    Completed,
    /// The user cancelled.
    Cancelled,
    /// The run stopped early; the unsent jobs can be resumed later.
    Stopped(StopReason),
}

/// What a finished run says to the user: one sentence, and what to do when something is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinishMessage {
    pub message: String,
    pub advice: Option<String>,
}

impl Finish {
    /// The one wording of how a run ended, for every screen that runs calls (the Run screen,
    /// the meta-evaluation runs, CoEval's LLM steps); `provider` tailors the advice.
    pub fn describe(&self, provider: super::provider::ProviderId) -> FinishMessage {
        let (message, advice) = match self {
            Finish::Completed => ("Run complete.".to_owned(), None),
            Finish::Cancelled => (
                "Run cancelled. Everything stored so far is kept; Run again to continue."
                    .to_owned(),
                None,
            ),
            Finish::Stopped(StopReason::Fatal(e)) => {
                (format!("Run stopped: {e}"), Some(e.advice(provider)))
            }
            Finish::Stopped(reason @ StopReason::NoPrice { .. }) => (
                format!("Run {reason}."),
                Some(
                    "Enter the model's price per million tokens under Limits and price, or clear the spend cap."
                        .to_owned(),
                ),
            ),
            Finish::Stopped(reason @ StopReason::Overflow { .. }) => (
                format!("Run {reason}."),
                Some(
                    "The model's context window is too small for these prompts: use a model with a \
                     longer context (for a local server, start it with a larger context, e.g. \
                     llama-server -c 8192) or shorten the inputs. Run again to continue: the \
                     prompts named are not sent again, everything stored is kept."
                        .to_owned(),
                ),
            ),
            Finish::Stopped(reason @ StopReason::SpendCap { .. }) => (
                format!("Run {reason}."),
                Some(
                    "Raise the spend cap and Run again to continue; nothing stored is paid twice."
                        .to_owned(),
                ),
            ),
        };
        FinishMessage { message, advice }
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StopReason {
    /// An error no retry can fix (auth, quota/spend, context length, unknown model).
    Fatal(ApiError),
    /// The next call would exceed the spend cap.
    SpendCap { spent_usd: f64, cap_usd: f64 },
    /// A spend cap is set but the model has no price: nothing can be held against the cap,
    /// so nothing was sent.
    NoPrice { model: String },
    /// Prompts of several different items were too long for the model's context (the items).
    Overflow { items: Vec<String> },
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Fatal(e) => write!(f, "stopped: {e}"),
            StopReason::SpendCap { spent_usd, cap_usd } => write!(
                f,
                "stopped at the spend cap: ${spent_usd:.4} spent or committed of ${cap_usd:.4}"
            ),
            StopReason::Overflow { items } => write!(
                f,
                "stopped: the prompts of {} different items were too long for the model ({})",
                items.len(),
                items.join("; ")
            ),
            StopReason::NoPrice { model } => write!(
                f,
                "not started: a spend cap needs a price, and {} has none",
                if model.is_empty() { "this model" } else { model.as_str() }
            ),
        }
    }
}

/// What the scheduler made of a failure (also written to the run log).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FailureOutcome {
    /// The job will be sent again after this many ms.
    Retry { after_ms: u64 },
    /// The parameter is dropped for the rest of the run (see [`Scheduler::dropped_params`]);
    /// the job is sent again at once, rebuilt without it.
    RetryWithout(Param),
    /// The job failed for good; the run continues.
    Failed,
    /// The run stops (see [`Finish::Stopped`]).
    RunStopped,
}

/// Misuse of the scheduler by the edge (a bug there, reported rather than panicking).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchedulerError {
    UnknownJob(JobId),
    /// A response was reported for a job that is not in flight (e.g. reported twice).
    NotInFlight(JobId),
}

impl fmt::Display for SchedulerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedulerError::UnknownJob(id) => write!(f, "job {id} does not exist"),
            SchedulerError::NotInFlight(id) => {
                write!(f, "job {id} is not in flight (reported twice?)")
            }
        }
    }
}

impl std::error::Error for SchedulerError {}

/// A run-log line.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub at_ms: u64,
    pub job: Option<JobId>,
    pub message: String,
}

/// The progress bar's figures.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Progress {
    pub total: usize,
    pub done: usize,
    pub failed: usize,
    pub in_flight: usize,
    /// Finished calls per minute since the first send.
    pub rate_per_minute: f64,
    /// Estimated time to finish at the current rate.
    pub eta_ms: Option<u64>,
    pub usage: Usage,
    pub cost_usd: f64,
    /// Calls whose cost the provider reported itself (in `cost_usd` as reported).
    pub provider_priced: u64,
    /// The current adaptive concurrency limit.
    pub concurrency: u32,
    /// Retries made so far.
    pub retries: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Status {
    Queued,
    /// In `retries_due`.
    Waiting,
    InFlight {
        sent_at: u64,
    },
    Done,
    Failed,
    /// Waiting for its twin's answer (see [`Scheduler::set_twins`]).
    Parked,
}

#[derive(Debug, Clone)]
struct Slot<T> {
    job: Job<T>,
    status: Status,
    attempts: u32,
    /// The parameters already dropped when it was last sent (its request was built without
    /// them): a call sent with a parameter before another call got it dropped is retried
    /// without it, not given up.
    sent_without: BTreeSet<Param>,
}

#[derive(Debug, Clone, PartialEq)]
enum RunState {
    Running,
    Paused,
    Cancelled,
    Stopped(StopReason),
}

/// The scheduler. See the module docs for the driving loop.
#[derive(Debug, Clone)]
pub struct Scheduler<T> {
    config: SchedulerConfig,
    slots: Vec<Slot<T>>,
    /// Jobs never sent, in order.
    queue: VecDeque<JobId>,
    /// Jobs waiting to be retried, earliest first (a heap: runs have tens of thousands of jobs).
    retries_due: BinaryHeap<Reverse<(u64, JobId)>>,
    in_flight: usize,
    done: usize,
    failed: usize,
    retries: u64,
    state: RunState,
    /// AIMD window; the limit is its floor.
    concurrency: f64,
    last_decrease_at: Option<u64>,
    /// Nothing is sent before this (a provider's `retry-after` applies to everyone).
    hold_until: u64,
    /// Earliest time of the next send under per-minute pacing.
    next_slot_ms: f64,
    first_send_at: Option<u64>,
    /// Time spent paused (finished pauses), and when the current pause began: a pause is not
    /// time the run took, so the rate and the ETA leave it out.
    paused_ms: u64,
    paused_at: Option<u64>,
    dropped: BTreeSet<Param>,
    /// Prompts that were too long for the model in this run, in the order met, and their items.
    overflowed: Vec<String>,
    overflowed_items: Vec<String>,
    meter: CostMeter,
    committed_usd: f64,
    rng: ChaCha8Rng,
    log: Vec<LogEntry>,
    /// Jobs whose requests are the same once log-probabilities are dropped, both ways.
    twins: std::collections::HashMap<JobId, JobId>,
    /// Jobs answered with their twin's answer instead of being sent.
    reused: usize,
}

impl<T> Scheduler<T> {
    /// A scheduler for `jobs`, in order.
    pub fn new(jobs: Vec<Job<T>>, config: SchedulerConfig) -> Scheduler<T> {
        let queue = (0..jobs.len()).collect();
        let slots = jobs
            .into_iter()
            .map(|job| Slot {
                job,
                status: Status::Queued,
                attempts: 0,
                sent_without: BTreeSet::new(),
            })
            .collect();
        let concurrency = f64::from(config.max_concurrency.max(1));
        let rng = ChaCha8Rng::seed_from_u64(config.seed);
        Scheduler {
            config,
            slots,
            queue,
            retries_due: BinaryHeap::new(),
            in_flight: 0,
            done: 0,
            failed: 0,
            retries: 0,
            state: RunState::Running,
            concurrency,
            last_decrease_at: None,
            hold_until: 0,
            next_slot_ms: 0.0,
            first_send_at: None,
            paused_ms: 0,
            paused_at: None,
            dropped: BTreeSet::new(),
            overflowed: Vec::new(),
            overflowed_items: Vec::new(),
            meter: CostMeter::default(),
            committed_usd: 0.0,
            rng,
            log: Vec::new(),
            twins: std::collections::HashMap::new(),
            reused: 0,
        }
    }

    /// Pairs of jobs whose requests become the same once log-probabilities are dropped (a
    /// "+weighted" call and its plain twin's). While `logprobs` is not dropped they are
    /// different calls; once it is, a job whose twin is queued, waiting for a retry or in
    /// flight waits for the twin's answer instead of being sent, and is then sent for the edge
    /// to answer with the twin's stored answer ([`Scheduler::on_reused`]) — one request paid
    /// once. A twin that fails releases the job to be sent itself.
    pub fn set_twins(&mut self, pairs: impl IntoIterator<Item = (JobId, JobId)>) {
        for (a, b) in pairs {
            if a != b && a < self.slots.len() && b < self.slots.len() {
                self.twins.insert(a, b);
                self.twins.insert(b, a);
            }
        }
    }

    /// The job whose request is the same as `id`'s once log-probabilities are dropped.
    pub fn twin(&self, id: JobId) -> Option<JobId> {
        self.twins.get(&id).copied()
    }

    /// Jobs answered with their twin's answer (not sent).
    pub fn reused(&self) -> usize {
        self.reused
    }

    /// Whether `id` waits for its twin: log-probabilities are dropped (the two are the same
    /// request) and the twin's answer is still to come.
    fn waits_for_twin(&self, id: JobId) -> bool {
        self.dropped.contains(&Param::Logprobs)
            && self.twins.get(&id).is_some_and(|&t| {
                matches!(
                    self.slots[t].status,
                    Status::Queued | Status::Waiting | Status::InFlight { .. }
                )
            })
    }

    /// `id` finished (answered or failed): its parked twin goes next.
    fn release_twin(&mut self, id: JobId) {
        if let Some(&w) = self.twins.get(&id)
            && self.slots[w].status == Status::Parked
        {
            self.slots[w].status = Status::Queued;
            self.queue.push_front(w);
        }
    }

    /// The edge answered an in-flight job with its twin's stored answer instead of sending it
    /// (the same request once log-probabilities are dropped): done, nothing paid.
    pub fn on_reused(&mut self, id: JobId, now_ms: u64) -> Result<(), SchedulerError> {
        self.take_in_flight(id)?;
        self.slots[id].status = Status::Done;
        self.done += 1;
        self.reused += 1;
        if self.reused == 1 {
            let prompt = self.prompt_of(id);
            let twin = self.twins.get(&id).map_or_else(String::new, |&t| self.prompt_of(t));
            self.note(
                now_ms,
                Some(id),
                format!(
                    "without log-probabilities {prompt} is the same request as {twin}: its answer is reused, not paid twice (and so for every such pair)"
                ),
            );
        }
        self.release_twin(id);
        Ok(())
    }

    /// The job with this id.
    pub fn job(&self, id: JobId) -> Option<&Job<T>> {
        self.slots.get(id).map(|s| &s.job)
    }

    /// How many times this job has been sent.
    pub fn attempts(&self, id: JobId) -> u32 {
        self.slots.get(id).map_or(0, |s| s.attempts)
    }

    /// Parameters the API rejected; the edge builds every request without them.
    pub fn dropped_params(&self) -> &BTreeSet<Param> {
        &self.dropped
    }

    /// The prompts found too long for the model in this run, in the order met (a resumed run
    /// passes them, with [`Scheduler::overflowed_items`], as
    /// [`SchedulerConfig::known_overflow`]).
    pub fn overflowed(&self) -> &[String] {
        &self.overflowed
    }

    /// The items whose prompts were too long in this run (not counting those known before).
    pub fn overflowed_items(&self) -> &[String] {
        &self.overflowed_items
    }

    /// The prompt a job sends, as named in the log.
    fn prompt_of(&self, id: JobId) -> String {
        self.slots[id]
            .job
            .prompt
            .as_ref()
            .map_or_else(|| format!("request {}", id + 1), |p| p.prompt.clone())
    }

    /// The item a job rates, as named in the log.
    fn item_of(&self, id: JobId) -> String {
        self.slots[id]
            .job
            .prompt
            .as_ref()
            .map_or_else(|| format!("request {}", id + 1), |p| p.item.clone())
    }

    /// Whether a job's prompt is known to be too long (this run or an earlier one).
    fn overflows(&self, id: JobId) -> bool {
        let prompt = self.prompt_of(id);
        self.overflowed.contains(&prompt) || self.config.known_overflow.contains(&prompt)
    }

    /// The run log so far.
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// The current concurrency limit.
    pub fn concurrency_limit(&self) -> u32 {
        // The window stays within [1, max_concurrency], so the cast cannot truncate wrongly.
        self.concurrency.floor().max(1.0) as u32
    }

    /// Sets (or clears) the requests-per-minute limit, e.g. from a provider's
    /// `x-ratelimit-limit-requests` header.
    pub fn set_requests_per_minute(&mut self, rpm: Option<u32>, now_ms: u64) {
        if self.config.requests_per_minute != rpm {
            self.config.requests_per_minute = rpm;
            self.note(
                now_ms,
                None,
                match rpm {
                    Some(r) => format!("pacing to {r} requests per minute"),
                    None => "per-minute pacing off".to_string(),
                },
            );
        }
    }

    /// Stops sending; calls in flight still complete.
    pub fn pause(&mut self, now_ms: u64) {
        if self.state == RunState::Running {
            self.state = RunState::Paused;
            self.paused_at = Some(now_ms);
            self.note(now_ms, None, "paused".into());
        }
    }

    /// Resumes a paused run.
    pub fn resume(&mut self, now_ms: u64) {
        if self.state == RunState::Paused {
            self.state = RunState::Running;
            if let Some(at) = self.paused_at.take() {
                self.paused_ms += now_ms.saturating_sub(at);
            }
            self.note(now_ms, None, "resumed".into());
        }
    }

    /// Cancels the run: nothing more is sent. Responses in flight are still accepted (they are
    /// paid for); the edge may also abort them and report [`Scheduler::on_aborted`].
    pub fn cancel(&mut self, now_ms: u64) {
        if matches!(self.state, RunState::Running | RunState::Paused) {
            self.state = RunState::Cancelled;
            self.note(now_ms, None, "cancelled".into());
        }
    }

    fn note(&mut self, at_ms: u64, job: Option<JobId>, message: String) {
        self.log.push(LogEntry { at_ms, job, message });
    }

    fn pacing_interval_ms(&self) -> Option<f64> {
        let rpm = f64::from(self.config.requests_per_minute.filter(|&r| r > 0)?);
        let fraction = self.config.pacing_fraction.clamp(0.01, 1.0);
        Some(60_000.0 / (rpm * fraction))
    }

    /// The next thing to do at time `now_ms`.
    pub fn next_action(&mut self, now_ms: u64) -> Action {
        match &self.state {
            RunState::Cancelled => {
                return if self.in_flight == 0 {
                    Action::Done(Finish::Cancelled)
                } else {
                    Action::AwaitResponses
                };
            }
            RunState::Stopped(reason) => {
                return if self.in_flight == 0 {
                    Action::Done(Finish::Stopped(reason.clone()))
                } else {
                    Action::AwaitResponses
                };
            }
            RunState::Paused => return Action::Paused,
            RunState::Running => {}
        }
        // Calls of a prompt known to be too long fail without being sent; a job whose twin's
        // answer is still to come waits for it (the same request once log-probabilities are
        // dropped: paid once).
        loop {
            let next = match self.retries_due.peek() {
                Some(&Reverse((ready_at, id))) if ready_at <= now_ms => Some((true, id)),
                _ => self.queue.front().map(|&id| (false, id)),
            };
            let Some((retry, id)) = next else { break };
            let (overflows, waits) = (self.overflows(id), self.waits_for_twin(id));
            if !overflows && !waits {
                break;
            }
            if retry {
                self.retries_due.pop();
            } else {
                self.queue.pop_front();
            }
            if !overflows {
                self.slots[id].status = Status::Parked;
                continue;
            }
            self.slots[id].status = Status::Failed;
            self.failed += 1;
            let prompt = self.prompt_of(id);
            self.note(
                now_ms,
                Some(id),
                format!("not sent: {prompt} is too long for the model (it overflowed before)"),
            );
            self.release_twin(id);
        }
        // The earliest retry that is due, else the next fresh job.
        let (due, earliest_wait) = match self.retries_due.peek() {
            Some(&Reverse((ready_at, id))) if ready_at <= now_ms => (Some((ready_at, id)), None),
            Some(&Reverse((ready_at, _))) => (None, Some(ready_at)),
            None => (None, None),
        };
        let candidate = due.map(|(_, id)| id).or_else(|| self.queue.front().copied());
        let Some(id) = candidate else {
            return match earliest_wait {
                Some(t) => Action::Wait(t - now_ms),
                None if self.in_flight > 0 => Action::AwaitResponses,
                None => Action::Done(Finish::Completed),
            };
        };
        if self.in_flight >= self.concurrency_limit() as usize {
            return Action::AwaitResponses;
        }
        if let Some(cap) = self.config.spend_cap_usd {
            let estimate = self.slots[id].job.estimated_cost_usd.max(0.0);
            let committed = self.meter.total_usd() + self.committed_usd;
            if committed + estimate > cap {
                // Calls in flight hold their reservation until they land with their real cost
                // (usually less): wait for them before deciding the cap is reached, so the run
                // stops within one call's cost of the cap.
                if self.in_flight > 0 {
                    return Action::AwaitResponses;
                }
                let reason = StopReason::SpendCap { spent_usd: committed, cap_usd: cap };
                self.note(now_ms, None, reason.to_string());
                self.state = RunState::Stopped(reason);
                return self.next_action(now_ms);
            }
        }
        let mut not_before = self.hold_until;
        if self.pacing_interval_ms().is_some() {
            not_before = not_before.max(self.next_slot_ms.ceil() as u64);
        }
        if not_before > now_ms {
            return Action::Wait(not_before - now_ms);
        }
        // Send it.
        if due.is_some() {
            self.retries_due.pop();
        } else {
            self.queue.pop_front();
        }
        if let Some(interval) = self.pacing_interval_ms() {
            // Lateness of up to one interval is made up, so timer and event-loop delays do not
            // lower throughput; a longer idle gap is not (making it up would be a burst).
            self.next_slot_ms = self.next_slot_ms.max(now_ms as f64 - interval) + interval;
        }
        self.first_send_at.get_or_insert(now_ms);
        let slot = &mut self.slots[id];
        slot.attempts += 1;
        slot.status = Status::InFlight { sent_at: now_ms };
        slot.sent_without.clone_from(&self.dropped);
        self.committed_usd += slot.job.estimated_cost_usd.max(0.0);
        self.in_flight += 1;
        Action::Send(id)
    }

    fn take_in_flight(&mut self, id: JobId) -> Result<u64, SchedulerError> {
        let slot = self.slots.get_mut(id).ok_or(SchedulerError::UnknownJob(id))?;
        let Status::InFlight { sent_at } = slot.status else {
            return Err(SchedulerError::NotInFlight(id));
        };
        self.in_flight -= 1;
        self.committed_usd = (self.committed_usd - slot.job.estimated_cost_usd.max(0.0)).max(0.0);
        Ok(sent_at)
    }

    /// A response arrived and was stored. `usage` is what the provider reported, if anything.
    pub fn on_success(
        &mut self,
        id: JobId,
        now_ms: u64,
        usage: Option<Usage>,
    ) -> Result<(), SchedulerError> {
        self.on_success_priced(id, now_ms, usage, None)
    }

    /// [`Scheduler::on_success`] with the provider's own figure of what the call cost
    /// (OpenRouter's `usage.cost`), counted instead of usage × price.
    pub fn on_success_priced(
        &mut self,
        id: JobId,
        _now_ms: u64,
        usage: Option<Usage>,
        reported_usd: Option<f64>,
    ) -> Result<(), SchedulerError> {
        self.take_in_flight(id)?;
        let estimate = self.slots[id].job.estimated_cost_usd;
        self.meter.record_reported(usage, reported_usd, self.config.price, estimate);
        self.slots[id].status = Status::Done;
        self.done += 1;
        self.release_twin(id);
        // Additive increase: about one more slot per window's worth of successes.
        let max = f64::from(self.config.max_concurrency.max(1));
        self.concurrency = (self.concurrency + 1.0 / self.concurrency).min(max);
        Ok(())
    }

    /// The edge aborted an in-flight call (cancel or pause with abort): it goes back to the
    /// front of the queue and the attempt does not count.
    pub fn on_aborted(&mut self, id: JobId) -> Result<(), SchedulerError> {
        self.take_in_flight(id)?;
        let slot = &mut self.slots[id];
        slot.attempts = slot.attempts.saturating_sub(1);
        slot.status = Status::Queued;
        self.queue.push_front(id);
        Ok(())
    }

    /// A call failed with `error` (classified by [`crate::run::classify_error`]).
    pub fn on_failure(
        &mut self,
        id: JobId,
        now_ms: u64,
        error: ApiError,
    ) -> Result<FailureOutcome, SchedulerError> {
        let sent_at = self.take_in_flight(id)?;
        if let Some(rpm) = error.limit_requests_per_minute
            && self.config.requests_per_minute.is_none()
        {
            self.set_requests_per_minute(Some(rpm), now_ms);
        }
        if error.kind == ErrorKind::RateLimited {
            // Multiplicative decrease, once per burst: only calls sent after the last decrease
            // carry news about the reduced window.
            if self.last_decrease_at.is_none_or(|t| sent_at >= t) {
                self.concurrency = (self.concurrency / 2.0).max(1.0);
                self.last_decrease_at = Some(now_ms);
                self.note(
                    now_ms,
                    Some(id),
                    format!("rate limited: concurrency lowered to {}", self.concurrency_limit()),
                );
            }
            if let Some(wait) = error.retry_after_ms {
                self.hold_until = self.hold_until.max(now_ms + wait);
            }
        }
        if error.kind == ErrorKind::Network {
            // No answer at all: the network, or the page going away (a reload aborts every
            // fetch in flight). Nothing new is sent for a moment, so a dying page does not fill
            // the freed slots with calls a provider bills and nobody reads, and a dead network
            // is not fed one item after another.
            if self.hold_until <= now_ms {
                self.note(
                    now_ms,
                    Some(id),
                    format!("no answer from the network: nothing sent for {NETWORK_PAUSE_MS} ms"),
                );
            }
            self.hold_until = self.hold_until.max(now_ms + NETWORK_PAUSE_MS);
        }
        if error.kind == ErrorKind::ContextLength {
            // One prompt too long is that item's failure; several are the run's.
            self.slots[id].status = Status::Failed;
            self.failed += 1;
            self.release_twin(id);
            let prompt = self.prompt_of(id);
            let item = self.item_of(id);
            let known = self.config.known_overflow.contains(&prompt);
            if !known && !self.overflowed.contains(&prompt) {
                self.overflowed.push(prompt.clone());
            }
            if !self.config.known_overflow.contains(&item) && !self.overflowed_items.contains(&item)
            {
                self.overflowed_items.push(item);
            }
            let limit = self.config.overflow_limit.max(1);
            self.note(
                now_ms,
                Some(id),
                format!(
                    "{prompt}: {error}; this item fails, the run goes on (items too long so far: {} — the run stops at {limit})",
                    self.overflowed_items.len()
                ),
            );
            if self.overflowed_items.len() >= limit
                && matches!(self.state, RunState::Running | RunState::Paused)
            {
                let reason = StopReason::Overflow { items: self.overflowed_items.clone() };
                self.note(now_ms, None, reason.to_string());
                self.state = RunState::Stopped(reason);
                return Ok(FailureOutcome::RunStopped);
            }
            return Ok(FailureOutcome::Failed);
        }
        let attempts = self.slots[id].attempts;
        // Dropped before this attempt was built: the API rejects a call that did not send it.
        let dropped = &self.slots[id].sent_without;
        let decision =
            self.config.retry.decide(&error, attempts, |p| dropped.contains(&p), &mut self.rng);
        let outcome = match decision {
            RetryDecision::RetryAfter(after_ms) => {
                self.retries += 1;
                self.slots[id].status = Status::Waiting;
                self.retries_due.push(Reverse((now_ms + after_ms, id)));
                self.note(now_ms, Some(id), format!("{error}; retry {attempts} in {after_ms} ms"));
                FailureOutcome::Retry { after_ms }
            }
            RetryDecision::DropParamAndRetry(param) => {
                let first = self.dropped.insert(param);
                let slot = &mut self.slots[id];
                // Dropping a parameter is a correction, not a retry of the same thing.
                slot.attempts = slot.attempts.saturating_sub(1);
                slot.status = Status::Waiting;
                self.retries_due.push(Reverse((now_ms, id)));
                let said = if first {
                    format!("the API rejected `{param}` ({}); continuing without it", error.message)
                } else {
                    format!("sent with `{param}` before it was dropped; sending it again without")
                };
                self.note(now_ms, Some(id), said);
                FailureOutcome::RetryWithout(param)
            }
            RetryDecision::GiveUp(reason) => {
                let why = match &reason {
                    GiveUpReason::NotRetryable if error.kind == ErrorKind::Blocked => {
                        "the provider will not answer this prompt; not retried".to_string()
                    }
                    GiveUpReason::NotRetryable => "not retryable".to_string(),
                    GiveUpReason::AttemptsExhausted { attempts } => {
                        format!("gave up after {attempts} attempts")
                    }
                    GiveUpReason::ParamAlreadyDropped(p) => {
                        format!("`{p}` was already dropped and the API still rejects the call")
                    }
                };
                if error.stops_run() {
                    // Leave the job unsent rather than failed, so a later resume retries it.
                    self.slots[id].status = Status::Queued;
                    self.queue.push_front(id);
                    self.note(now_ms, Some(id), format!("{error} ({why}); stopping the run"));
                    if matches!(self.state, RunState::Running | RunState::Paused) {
                        self.state = RunState::Stopped(StopReason::Fatal(error));
                    }
                    FailureOutcome::RunStopped
                } else {
                    self.slots[id].status = Status::Failed;
                    self.failed += 1;
                    self.note(now_ms, Some(id), format!("{error} ({why}); job failed"));
                    self.release_twin(id);
                    FailureOutcome::Failed
                }
            }
        };
        Ok(outcome)
    }

    /// The progress bar's figures at `now_ms`.
    pub fn progress(&self, now_ms: u64) -> Progress {
        let total = self.slots.len();
        let finished = self.done + self.failed;
        // Time spent paused is not the run's: it neither lowers the rate nor grows the ETA,
        // and a paused run has no ETA.
        let paused = self.paused_ms + self.paused_at.map_or(0, |at| now_ms.saturating_sub(at));
        let elapsed =
            self.first_send_at.map_or(0, |t| now_ms.saturating_sub(t).saturating_sub(paused));
        let rate_per_minute =
            if elapsed > 0 { finished as f64 * 60_000.0 / elapsed as f64 } else { 0.0 };
        let remaining = total - finished;
        let eta_ms = (rate_per_minute > 0.0 && self.paused_at.is_none())
            .then(|| (remaining as f64 / rate_per_minute * 60_000.0).round() as u64);
        Progress {
            total,
            done: self.done,
            failed: self.failed,
            in_flight: self.in_flight,
            rate_per_minute,
            eta_ms,
            usage: self.meter.usage,
            cost_usd: self.meter.total_usd(),
            provider_priced: self.meter.calls_provider_priced,
            concurrency: self.concurrency_limit(),
            retries: self.retries,
        }
    }

    /// The cost meter (reported vs estimated spend).
    pub fn cost(&self) -> &CostMeter {
        &self.meter
    }
}
