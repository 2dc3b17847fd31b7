//! Several persons' files merged: the later file wins each decision two files set differently,
//! and every such difference is kept as a [`Conflict`]. Deterministic: the files' order and
//! the decisions' key order decide everything.

use std::collections::BTreeMap;

use super::file::{FileError, Format, PersonFile};

/// A replayed state read as decisions by key: what the merge compares.
pub trait Decisions: Default {
    /// What a decision is about (an item of a run, a part of an evaluation); conflicts are
    /// reported in this key's order.
    type Key: Ord + Clone + std::fmt::Debug;
    type Value: Clone + PartialEq + std::fmt::Debug;

    /// Every decision of the state, in key order.
    fn decisions(&self) -> Vec<(Self::Key, Self::Value)>;
    /// Sets `key` to `value`, returning the value it replaces.
    fn decide(&mut self, key: Self::Key, value: Self::Value) -> Option<Self::Value>;
    /// What a later file adds that is no decision (time spent that adds up); nothing by
    /// default.
    fn absorb(&mut self, _later: Self) {}
}

/// Two files decided `key` differently. The later file wins; both values are kept so the
/// difference can be seen and settled.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict<K, V> {
    pub key: K,
    /// The value kept, from file `kept_from`; `None` when the later file that replaced the
    /// earlier one whole ([`replaced`]) has no value there.
    pub kept: Option<V>,
    pub kept_from: usize,
    pub overridden: V,
    pub overridden_from: usize,
}

/// A conflict of a state's decisions.
pub type ConflictOf<S> = Conflict<<S as Decisions>::Key, <S as Decisions>::Value>;

/// A file refused by [`merge`]: its index and why.
pub type Refused<X> = (usize, FileError<X>);

/// Whose work is united.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Together {
    /// One merged state per person and scope: different persons never conflict.
    PerPerson,
    /// One merged state of everyone: any two files' differing decisions conflict.
    Everyone,
}

/// One merged state: the person and scope of its first file (with [`Together::Everyone`], of
/// the first file of all), and the files it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Group<S: Decisions> {
    pub person: String,
    pub scope: String,
    pub state: S,
    pub sources: Vec<usize>,
    /// Which file last set each key.
    pub origin: BTreeMap<S::Key, usize>,
}

/// The merge: the groups in first-seen order and the conflicts met, with the group of each.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged<S: Decisions> {
    pub groups: Vec<Group<S>>,
    pub conflicts: Vec<(usize, ConflictOf<S>)>,
}

impl<S: Decisions> Default for Merged<S> {
    fn default() -> Self {
        Merged { groups: Vec::new(), conflicts: Vec::new() }
    }
}

/// Merges persons' files in order: each file replayed, then united with its group's state key
/// by key ([`Decisions::decide`]; the rest by [`Decisions::absorb`]), every key two files set
/// differently reported. A file that does not replay is refused by index.
pub fn merge<E>(
    files: &[PersonFile<E>],
    together: Together,
) -> Result<Merged<E::State>, Refused<E::Error>>
where
    E: Format,
    E::State: Decisions,
{
    let mut out = Merged::default();
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (f, file) in files.iter().enumerate() {
        let state = file.log().map_err(|e| (f, e))?.replay();
        let key = match together {
            Together::PerPerson => (file.scope.clone(), file.person.clone()),
            Together::Everyone => (String::new(), String::new()),
        };
        let Some(&slot) = index.get(&key) else {
            index.insert(key, out.groups.len());
            let origin = state.decisions().into_iter().map(|(k, _)| (k, f)).collect();
            out.groups.push(Group {
                person: file.person.clone(),
                scope: file.scope.clone(),
                state,
                sources: vec![f],
                origin,
            });
            continue;
        };
        let group = &mut out.groups[slot];
        group.sources.push(f);
        for (key, value) in state.decisions() {
            let old = group.state.decide(key.clone(), value.clone());
            let overridden_from = group.origin.insert(key.clone(), f);
            if let (Some(old), Some(overridden_from)) = (old, overridden_from)
                && old != value
            {
                let conflict = Conflict {
                    key,
                    kept: Some(value),
                    kept_from: f,
                    overridden: old,
                    overridden_from,
                };
                out.conflicts.push((slot, conflict));
            }
        }
        group.state.absorb(state);
    }
    Ok(out)
}

/// A later file replaced an earlier one whole (a student's later submission): every key the
/// earlier one set that the later one sets differently or not at all, in key order.
pub fn replaced<K: Ord + Clone, V: Clone + PartialEq>(
    earlier: &BTreeMap<K, V>,
    earlier_from: usize,
    later: &BTreeMap<K, V>,
    later_from: usize,
) -> Vec<Conflict<K, V>> {
    earlier
        .iter()
        .filter(|(k, v)| later.get(k) != Some(v))
        .map(|(k, v)| Conflict {
            key: k.clone(),
            kept: later.get(k).cloned(),
            kept_from: later_from,
            overridden: v.clone(),
            overridden_from: earlier_from,
        })
        .collect()
}
