//! The Results screen's background work: reading every run's samples into per-item scores
//! (a run at a time, a slice of items at a time between yields, and only runs not read
//! before), and bootstrapping the shown table's intervals a cell at a time.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use concord_core::data;
use concord_core::study::workbench::report::{CellIntervals, cell_interval, interval_cells};
use concord_core::study::workbench::scores::{JudgeScores, ScoreReader, TableError};
use concord_core::study::workbench::{JudgedRun, ResultsTable, Scored, assemble};
use leptos::prelude::*;

use crate::edge::time::{FrameBudget, monotonic_ms};
use crate::state::{JudgeRuns, Workspace};

use super::state::ResultsState;

/// What a run is, for the cache of read scores: where it came from, what it rates, how it is
/// read, and what its records and responses say (a run in progress grows, and the same study
/// run again with another model has other answers of the same size: both are read again).
#[derive(Clone, PartialEq, Eq, Hash)]
struct RunKey {
    origin: String,
    method: String,
    attribute: String,
    policy: &'static str,
    weighting: Option<&'static str>,
    records: usize,
    responses: usize,
    /// FNV-1a of every record's key, responses, cut-off marks and log-probabilities, in
    /// order: a run of another model can answer the same texts with other log-probabilities.
    content: u64,
}

/// FNV-1a, 64 bits, continued from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl RunKey {
    fn of(r: &JudgedRun) -> RunKey {
        let mut responses = 0;
        let mut content = 0xcbf2_9ce4_8422_2325;
        for rec in &r.run.records {
            responses += rec.responses.len();
            content = match &rec.key {
                data::RecordKey::Id(id) => fnv(content, id.as_bytes()),
                data::RecordKey::Item(k) => {
                    fnv(fnv(fnv(content, k.document.as_bytes()), &[0xfe]), k.system.as_bytes())
                }
            };
            for text in &rec.responses {
                content = fnv(content, text.as_bytes());
                content = fnv(content, &[0xff]);
            }
            for &i in &rec.cut_off {
                content = fnv(content, &(i as u64).to_le_bytes());
            }
            content = fnv(content, &[0xfd]);
            for tokens in &rec.logprobs {
                for token in tokens {
                    content = fnv(content, &(token.at as u64).to_le_bytes());
                    for (alt, logprob) in &token.alternatives {
                        content = fnv(content, alt.as_bytes());
                        content = fnv(content, &logprob.to_bits().to_le_bytes());
                    }
                }
                content = fnv(content, &[0xfc]);
            }
        }
        RunKey {
            origin: r.origin.clone(),
            method: r.method.clone(),
            attribute: r.attribute.clone(),
            policy: r.policy.name(),
            weighting: r.weighting.map(|w| w.name()),
            records: r.run.records.len(),
            responses,
            content,
        }
    }
}

thread_local! {
    /// Runs read before, kept while the page lives (the Results screen is mounted anew on
    /// each visit).
    static CACHE: RefCell<ScoreCache> = RefCell::new(ScoreCache::default());
}

fn with_cache<T>(f: impl FnOnce(&mut ScoreCache) -> T) -> T {
    CACHE.with(|c| f(&mut c.borrow_mut()))
}

/// A run read: its scores (or why it could not be read), and how long reading took (ms).
type Read = (Option<Result<JudgeScores, TableError>>, f64);

/// Runs read before, for the open dataset.
#[derive(Default)]
struct ScoreCache {
    /// The dataset they were read against (held, so its address cannot be reused).
    dataset: Option<Arc<data::Loaded>>,
    runs: HashMap<RunKey, Read>,
}

/// Reads every run not read before (one at a time, yielding to the browser between slices),
/// then publishes the scores and the time reading took; stops early when `current()` says
/// the runs changed.
pub async fn read_scores(
    ws: Workspace,
    runs: JudgeRuns,
    current: impl Fn() -> bool,
    scored: RwSignal<Option<(Arc<Scored>, f64)>>,
    reading: RwSignal<Option<String>>,
) {
    if !current() {
        return;
    }
    let open = ws.dataset.get_untracked();
    with_cache(|c| {
        if !c.dataset.as_ref().is_some_and(|d| Arc::ptr_eq(d, &open.loaded)) {
            *c = ScoreCache { dataset: Some(open.loaded.clone()), ..ScoreCache::default() };
        }
    });
    // A run at a time, yielding between (a 50 MB study's responses are all hashed).
    let mut keys: Vec<RunKey> = Vec::new();
    let mut budget = FrameBudget::new();
    for i in 0..runs.runs.with_untracked(Vec::len) {
        let Some(key) = runs.runs.with_untracked(|runs| runs.get(i).map(RunKey::of)) else {
            return;
        };
        keys.push(key);
        budget.tick().await;
        if !current() {
            return;
        }
    }
    let missing: Vec<usize> =
        with_cache(|c| (0..keys.len()).filter(|&i| !c.runs.contains_key(&keys[i])).collect());
    if !missing.is_empty() {
        scored.set(None);
        let dataset = &open.loaded.dataset;
        let mut budget = FrameBudget::new();
        for (done, &i) in missing.iter().enumerate() {
            reading.set(Some(format!(
                "Reading the responses of {}: {done} done…",
                concord_core::report::count(missing.len(), "judge run", "judge runs")
            )));
            // Time spent reading, not waiting between slices.
            let mut started = monotonic_ms();
            let mut took = 0.0;
            let reader = runs.runs.with_untracked(|runs| {
                runs.get(i).map(|r| {
                    (!r.run.records.is_empty()).then(|| {
                        ScoreReader::new(dataset, &r.method, &r.attribute, &r.run, r.policy)
                            .map(|reader| reader.with_weighting(r.weighting))
                    })
                })
            });
            let Some(reader) = reader else { return };
            // A run is read a slice of items at a time (a 10,000-item run of 20 samples is
            // 200,000 parses).
            let read = match reader {
                Some(Ok(mut reader)) => loop {
                    let finished = runs.runs.with_untracked(|runs| {
                        runs.get(i).is_none_or(|r| reader.step(&r.run, 500))
                    });
                    if finished {
                        break Some(Ok(reader.finish()));
                    }
                    if budget.spent() {
                        took += monotonic_ms() - started;
                        budget.yield_now().await;
                        started = monotonic_ms();
                        if !current() {
                            return;
                        }
                    }
                },
                Some(Err(e)) => Some(Err(e)),
                None => None,
            };
            took += monotonic_ms() - started;
            with_cache(|c| c.runs.insert(keys[i].clone(), (read, took)));
            budget.tick().await;
            if !current() {
                return;
            }
        }
    }
    if !current() {
        return;
    }
    let s = runs.runs.with_untracked(|runs| {
        with_cache(|c| assemble(runs, |i| c.runs.get(&keys[i]).and_then(|(read, _)| read.clone())))
    });
    // Keep the cache to the runs there are (an import replaces runs, a run in progress grows).
    let ms = with_cache(|c| {
        c.runs.retain(|k, _| keys.contains(k));
        c.runs.values().map(|(_, ms)| ms).sum::<f64>()
    });
    scored.set(Some((Arc::new(s), ms)));
    reading.set(None);
}

/// Bootstraps every cell of `table` under the current settings, one cell at a time with a
/// yield in between, and publishes the intervals; stops if the screen's state is disposed or
/// the table or settings change meanwhile (`current()`).
pub async fn compute_intervals(
    ws: Workspace,
    results: ResultsState,
    table: ResultsTable,
    current: impl Fn() -> bool,
) {
    let settings = results.settings.get_untracked();
    let dataset = ws.dataset.get_untracked();
    let mut out = CellIntervals::default();
    let mut budget = FrameBudget::new();
    for cell in interval_cells(&table, &settings.columns()) {
        if let Some(ci) = cell_interval(&dataset.loaded.dataset, &table, cell, &settings) {
            out.cells.push((cell, ci));
        }
        // One cell can take a while (1,000 resamples): yield after each.
        budget.yield_now().await;
        if !current() {
            results.computing.try_set(false);
            return;
        }
    }
    results.intervals.try_set(Some(out));
    results.computing.try_set(false);
}
