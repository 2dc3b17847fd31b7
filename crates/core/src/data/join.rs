//! Joining imported judge runs to a dataset by key (document + system, or item id), never by
//! row position: each Chiang & Lee result file covers a different subset of the 360
//! Topical-Chat items.

use std::collections::HashMap;

use super::diag::Diagnostic;
use super::model::{Dataset, JudgeRun, RecordKey};

/// What a judge record was matched to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Index into [`Dataset::items`].
    Item(usize),
    /// Index into [`Dataset::pairs`].
    Pair(usize),
}

/// The result of [`join`]: matched (record index, target) pairs in record order, plus what did
/// not match.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Joined {
    pub matched: Vec<(usize, Target)>,
    /// Indices of records with no item in the dataset.
    pub unmatched_records: Vec<usize>,
    /// How many dataset items (and pairs) no record refers to.
    pub uncovered: usize,
    pub diagnostics: Vec<Diagnostic>,
}

impl Joined {
    /// For each dataset item, the index of the first record matched to it.
    pub fn record_per_item(&self, item_count: usize) -> Vec<Option<usize>> {
        let mut out = vec![None; item_count];
        for &(record, target) in &self.matched {
            if let Target::Item(i) = target
                && let Some(slot) = out.get_mut(i)
            {
                slot.get_or_insert(record);
            }
        }
        out
    }
}

/// Matches every record of `run` to the dataset item or pair it names. Unmatched records get
/// one diagnostic each (file = run name, line = the record's line); uncovered items get one
/// summary diagnostic, since partial coverage is normal for released runs.
pub fn join(dataset: &Dataset, run: &JudgeRun) -> Joined {
    let mut by_key = HashMap::with_capacity(dataset.items.len());
    let mut by_id = HashMap::with_capacity(dataset.items.len() + dataset.pairs.len());
    for (i, item) in dataset.items.iter().enumerate() {
        by_key.entry(item.key()).or_insert(i);
        by_id.entry(item.id.as_str()).or_insert(Target::Item(i));
    }
    for (i, pair) in dataset.pairs.iter().enumerate() {
        by_id.entry(pair.id.as_str()).or_insert(Target::Pair(i));
    }
    let mut joined = Joined::default();
    let mut covered_items = vec![false; dataset.items.len()];
    let mut covered_pairs = vec![false; dataset.pairs.len()];
    for (r, record) in run.records.iter().enumerate() {
        let target = match &record.key {
            RecordKey::Item(key) => by_key.get(key).map(|&i| Target::Item(i)),
            RecordKey::Id(id) => by_id.get(id.as_str()).copied(),
        };
        match target {
            Some(t) => {
                match t {
                    Target::Item(i) => covered_items[i] = true,
                    Target::Pair(i) => covered_pairs[i] = true,
                }
                joined.matched.push((r, t));
            }
            None => {
                let what = match &record.key {
                    RecordKey::Item(k) => format!("document {}, system {}", k.document, k.system),
                    RecordKey::Id(id) => format!("id {id}"),
                };
                joined.unmatched_records.push(r);
                joined.diagnostics.push(Diagnostic::warning(
                    &run.name,
                    Some(record.line),
                    None,
                    format!("no item in {} with {what}; record not joined", dataset.name),
                ));
            }
        }
    }
    joined.uncovered = covered_items.iter().chain(&covered_pairs).filter(|c| !**c).count();
    if joined.uncovered > 0 {
        joined.diagnostics.push(Diagnostic::info(
            &run.name,
            None,
            None,
            format!(
                "{} of {} items of {} have no record in this run",
                joined.uncovered,
                covered_items.len() + covered_pairs.len(),
                dataset.name
            ),
        ));
    }
    joined
}
