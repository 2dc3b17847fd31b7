//! Saved workspaces: the list of workspaces a browser keeps (their names, which one is open)
//! and what each carries beside its bundle — the provider settings without the key, the Judge
//! screen's study when it differs from the one the runs were made with, and where the runs on
//! the Results table came from. The app stores the list as JSON and each workspace's bundle
//! ([`crate::bundle::Bundle`], key-free by design) as bytes; this module decides names and ids
//! and reads the list back, refusing a damaged one with [`WorkspaceError`].

use serde::{Deserialize, Serialize};

use crate::bundle::public_url;
use crate::study::workbench::Study;

/// The name a new workspace gets.
pub const DEFAULT_NAME: &str = "My workspace";

/// Why the saved workspaces could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The list of workspaces is not what this version of Concord writes.
    #[error(
        "the list of saved workspaces is damaged ({0}); Concord opened the built-in example, and a new list is written when you change something"
    )]
    Index(String),
    /// The open workspace is listed but its bundle is not stored.
    #[error(
        "the saved workspace “{0}” has no stored data (the browser may have cleared part of this site's storage); Concord opened the built-in example"
    )]
    Missing(String),
    /// The workspace's bundle could not be read back (`why` says what was wrong with it).
    #[error(
        "the saved workspace “{name}” could not be read ({why}); Concord opened the built-in example instead. The response cache, the CoEval annotations and the other workspaces are untouched"
    )]
    Damaged { name: String, why: String },
}

/// The provider settings a workspace keeps: never the key (a remembered key is kept apart, by
/// the Run screen, only when the user asked for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedConnection {
    /// The provider preset's slug (`openai`, `custom`, …).
    pub provider: String,
    /// The base URL without user info, query or fragment (where a key could hide).
    pub base_url: String,
    pub model: String,
    pub max_concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub spend_cap_usd: Option<f64>,
    pub timeout_s: u32,
    pub item_limit: Option<usize>,
    /// Gemini 2.5 Flash / Flash-Lite's thinking turned on (absent in workspaces saved before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gemini_thinking: bool,
}

impl SavedConnection {
    /// Keeps `base_url` only up to its path: `https://user:sk@host/v1?key=sk` is saved as
    /// `https://host/v1`.
    pub fn with_public_url(mut self) -> SavedConnection {
        self.base_url = public_url(&self.base_url);
        self
    }
}

/// What a workspace carries beside its bundle.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Extras {
    #[serde(default)]
    pub connection: Option<SavedConnection>,
    /// The Judge screen's study, when it is not the one the bundle's runs were made with (it
    /// was edited after the run).
    #[serde(default)]
    pub judge_study: Option<Study>,
    /// Where the runs on the Results table came from when a bundle brought them, and which
    /// runs (origin, method, attribute) it brought.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub source_runs: Vec<(String, String, String)>,
}

/// One saved workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub name: String,
    /// When it was last saved (ISO 8601, from the caller's clock).
    pub saved: String,
    #[serde(default)]
    pub extras: Extras,
}

/// Every saved workspace and the one that is open.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Index {
    /// The id of the open workspace (empty when none was saved yet).
    pub current: String,
    pub entries: Vec<Entry>,
}

impl Index {
    /// Reads the list as the app stored it.
    pub fn from_json(text: &str) -> Result<Index, WorkspaceError> {
        let index: Index =
            serde_json::from_str(text).map_err(|e| WorkspaceError::Index(e.to_string()))?;
        let mut ids: Vec<&str> = index.entries.iter().map(|e| e.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Err(WorkspaceError::Index("a workspace is listed twice".into()));
        }
        if ids.iter().any(|id| id.is_empty()) {
            return Err(WorkspaceError::Index("a workspace has no id".into()));
        }
        Ok(index)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The open workspace's entry, if it was saved.
    pub fn current(&self) -> Option<&Entry> {
        self.get(&self.current)
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }

    /// Records `entry` (replacing the entry of the same id) and makes it the open one.
    pub fn save(&mut self, entry: Entry) {
        self.current = entry.id.clone();
        match self.entries.iter_mut().find(|e| e.id == entry.id) {
            Some(slot) => *slot = entry,
            None => self.entries.push(entry),
        }
    }

    /// A fresh id, `ws-<time>` (with a suffix when a workspace already has it).
    pub fn new_id(&self, now_ms: u64) -> String {
        let base = format!("ws-{now_ms}");
        let mut id = base.clone();
        let mut n = 2;
        while self.get(&id).is_some() {
            id = format!("{base}-{n}");
            n += 1;
        }
        id
    }

    /// The name of a copy of `name`: `name (copy)`, then `name (copy 2)`, … — one no saved
    /// workspace has.
    pub fn copy_name(&self, name: &str) -> String {
        let taken = |candidate: &str| self.entries.iter().any(|e| e.name == candidate);
        let first = format!("{name} (copy)");
        if !taken(&first) {
            return first;
        }
        (2..).map(|n| format!("{name} (copy {n})")).find(|c| !taken(c)).unwrap_or(first)
    }

    /// The entries by name, for a list to choose from (ties keep their saved order).
    pub fn by_name(&self) -> Vec<&Entry> {
        let mut entries: Vec<&Entry> = self.entries.iter().collect();
        entries.sort_by_key(|e| e.name.to_lowercase());
        entries
    }
}

/// The edits a page had not saved yet when it was hidden or closed. A workspace's bundle is
/// written by a Web Worker, which a closing page does not wait for, so the page writes these
/// small parts at once instead (one IndexedDB write, started in the `pagehide` handler) and the
/// next start applies them over the saved workspace they were made on. The dataset, the runs
/// and the released files are not here: they are saved as they come, and a page closed while
/// one of them changed is saved as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// The workspace these edits belong to (its id).
    pub workspace: String,
    /// The save they follow ([`Entry::saved`]).
    pub after: String,
    pub name: String,
    pub extras: Extras,
    /// The Results screen's view (statistic, level, baseline, ensembles, intervals, audit).
    pub settings: crate::bundle::Settings,
    /// The raters added in Concord ("Rate it yourself").
    pub raters: Vec<crate::bundle::ExtraRater>,
    /// The meta-evaluation screen's settings.
    #[serde(default)]
    pub meta: Option<crate::study::meta::Settings>,
}

impl Pending {
    /// The setting it is kept under (one per browser: only the open workspace has edits).
    pub const KEY: &'static str = "workspace-pending";

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The edits as stored; `None` when they cannot be read (they are then left out).
    pub fn from_json(text: &str) -> Option<Pending> {
        serde_json::from_str(text).ok()
    }

    /// Whether these edits were made on `entry` as it is saved: the same workspace, and no
    /// save since (a later save already carries them, or newer ones).
    pub fn applies_to(&self, entry: &Entry) -> bool {
        self.workspace == entry.id && self.after == entry.saved
    }
}

/// A workspace name as typed: trimmed, at most 80 characters, [`DEFAULT_NAME`] when blank.
pub fn clean_name(typed: &str) -> String {
    let name: String = typed.trim().chars().take(80).collect();
    if name.trim().is_empty() { DEFAULT_NAME.to_owned() } else { name.trim_end().to_owned() }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn entry(id: &str, name: &str) -> Entry {
        Entry { id: id.into(), name: name.into(), saved: String::new(), extras: Extras::default() }
    }

    #[test]
    fn pending_edits_apply_only_to_the_save_they_follow() {
        let mut saved = entry("a", "First");
        saved.saved = "2026-01-01T00:00:00Z".into();
        let pending = Pending {
            workspace: "a".into(),
            after: saved.saved.clone(),
            name: "First, renamed".into(),
            extras: Extras::default(),
            settings: crate::bundle::Settings::default(),
            raters: Vec::new(),
            meta: None,
        };
        let back = Pending::from_json(&pending.to_json()).unwrap();
        assert_eq!(back, pending);
        assert!(back.applies_to(&saved));
        // Another workspace, or a later save of this one: not applied.
        assert!(!back.applies_to(&entry("b", "Second")));
        let mut later = saved.clone();
        later.saved = "2026-01-01T00:00:05Z".into();
        assert!(!back.applies_to(&later));
        assert_eq!(Pending::from_json("{not json"), None);
    }

    #[test]
    fn saving_replaces_by_id_and_opens_it() {
        let mut index = Index::default();
        index.save(entry("a", "First"));
        index.save(entry("b", "Second"));
        index.save(entry("a", "First, renamed"));
        assert_eq!(index.current, "a");
        assert_eq!(index.entries.len(), 2);
        assert_eq!(index.current().map(|e| e.name.as_str()), Some("First, renamed"));
        let back = Index::from_json(&index.to_json()).unwrap();
        assert_eq!(back, index);
    }

    #[test]
    fn ids_and_copy_names_are_unique() {
        let mut index = Index::default();
        assert_eq!(index.new_id(7), "ws-7");
        index.save(entry("ws-7", "Study"));
        assert_eq!(index.new_id(7), "ws-7-2");
        assert_eq!(index.copy_name("Study"), "Study (copy)");
        index.save(entry("ws-8", "Study (copy)"));
        assert_eq!(index.copy_name("Study"), "Study (copy 2)");
        let names: Vec<&str> = index.by_name().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Study", "Study (copy)"]);
    }

    #[test]
    fn a_damaged_list_is_refused_with_what_happens_next() {
        for text in [
            "{not json",
            r#"{"current":"a","entries":[{"id":"a","name":"x","saved":""},{"id":"a","name":"y","saved":""}]}"#,
            r#"{"current":"","entries":[{"id":"","name":"x","saved":""}]}"#,
        ] {
            let err = Index::from_json(text).unwrap_err();
            assert!(matches!(err, WorkspaceError::Index(_)), "{text}: {err:?}");
            assert!(err.to_string().contains("opened the built-in example"), "{err}");
        }
    }

    #[test]
    fn the_connection_keeps_no_secret_in_its_address() {
        let saved = SavedConnection {
            provider: "custom".into(),
            base_url: "https://user:sk-secret@llm.example/v1?key=sk-secret#x".into(),
            model: "m".into(),
            max_concurrency: 4,
            requests_per_minute: None,
            spend_cap_usd: None,
            timeout_s: 60,
            item_limit: None,
            gemini_thinking: false,
        }
        .with_public_url();
        assert_eq!(saved.base_url, "https://llm.example/v1");
        assert!(!serde_json::to_string(&saved).unwrap().contains("sk-secret"));
    }

    #[test]
    fn names_are_trimmed_and_never_blank() {
        assert_eq!(clean_name("  Summ  "), "Summ");
        assert_eq!(clean_name("   "), DEFAULT_NAME);
        assert_eq!(clean_name(&"x".repeat(200)).chars().count(), 80);
    }
}
