//! A meta-evaluation workspace as a value a bundle carries: the released files by name and
//! SHA-256 (their bytes stay with the user), each live run's spec and raw answers, and the
//! settings — everything that rebuilds the screen with no key.
//!
//! ```text
//! Workspace ──snapshot()──► Snapshot (serde) ──restore()──► Workspace, released files "needed"
//!                                                 └──from_snapshot(files)──► Workspace, complete
//! ```
//!
//! Restoring replays each run's answers into fresh protocols ([`LiveRun::replay`]), the path a
//! finished run takes on the screen too, so the restored tables equal the run's.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::files::{self, FileKind};
use super::live::LiveRun;
use super::settings::Settings;
use super::workspace::{Entry, Origin, StoredRun, Workspace};
use crate::judge::template::RenderError;

/// The snapshot format this Concord writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// What rebuilds the meta-evaluation screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub version: u32,
    pub settings: Settings,
    /// The file list, in order.
    pub files: Vec<SnapshotFile>,
    /// The live runs the list's files or the run tables come from.
    pub runs: Vec<LiveRun>,
    /// The run (index into `runs`) whose pairwise table the screen shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairwise_run: Option<usize>,
    /// The run (index into `runs`) whose individual-scoring table the screen shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring_run: Option<usize>,
}

/// One file of the list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum SnapshotFile {
    /// A released file: the user loads it again; its SHA-256 says it is the same file.
    Released { name: String, sha256: String, kind: FileKind },
    /// A file live run `run` makes, by name.
    Live { run: usize, name: String },
}

/// A released file a snapshot names that the files given do not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileProblem {
    /// No file given has its SHA-256.
    Missing { name: String, sha256: String },
    /// A file of that name was given, with other bytes.
    Mismatch { name: String, expected: String, actual: String },
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::Missing { name, sha256 } => write!(f, "load {name} (sha256 {sha256})"),
            FileProblem::Mismatch { name, expected, actual } => write!(
                f,
                "{name} has sha256 {actual}, the snapshot's has {expected}: load the file the snapshot was made with"
            ),
        }
    }
}

/// Why a snapshot cannot be rebuilt.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SnapshotError {
    #[error(
        "this meta-evaluation snapshot is version {found}; this Concord reads version {SNAPSHOT_VERSION}: open it with the Concord that wrote it"
    )]
    Version { found: u32 },
    #[error("the snapshot refers to live run {index}, which it does not hold: it is damaged")]
    RunIndex { index: usize },
    #[error("live run {index} cannot be rebuilt: {source}")]
    Run { index: usize, source: RenderError },
    #[error(
        "the snapshot lists `{name}` from live run {run}, which replaying the run does not make: it is damaged"
    )]
    LiveFile { run: usize, name: String },
    #[error("released files missing or different: {}", list(.0))]
    Files(Vec<FileProblem>),
}

fn list(problems: &[FileProblem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

impl Workspace {
    /// The snapshot of this workspace under `settings`: every released file by name and
    /// SHA-256, every run still shown by its spec and answers.
    pub fn snapshot(&self, settings: &Settings) -> Snapshot {
        let mut runs: Vec<u64> = Vec::new();
        let mut index = |id: u64| match runs.iter().position(|r| *r == id) {
            Some(i) => i,
            None => {
                runs.push(id);
                runs.len() - 1
            }
        };
        let files = self
            .entries
            .iter()
            .map(|e| match &e.origin {
                Origin::Released { name, sha256, kind } => SnapshotFile::Released {
                    name: name.clone(),
                    sha256: sha256.clone(),
                    kind: *kind,
                },
                Origin::Live { run } => {
                    SnapshotFile::Live { run: index(*run), name: e.name().to_owned() }
                }
            })
            .collect();
        let pairwise_run = self.pairwise.as_ref().map(|(id, _)| index(*id));
        let scoring_run = self.scoring.as_ref().map(|(id, _)| index(*id));
        let run_of = |id: &u64| self.runs.iter().find(|r| r.id == *id).map(|r| (*r.run).clone());
        Snapshot {
            version: SNAPSHOT_VERSION,
            settings: *settings,
            files,
            // Every id above names a kept run: `prune_runs` keeps exactly those.
            runs: runs.iter().filter_map(run_of).collect(),
            pairwise_run,
            scoring_run,
        }
    }

    /// The workspace of `snapshot` with its live runs replayed and its released files waiting
    /// to be loaded ([`Entry::needed`]; [`Workspace::add_released`] fills them in).
    pub fn restore(snapshot: &Snapshot) -> Result<Workspace, SnapshotError> {
        if snapshot.version != SNAPSHOT_VERSION {
            return Err(SnapshotError::Version { found: snapshot.version });
        }
        let mut w = Workspace::new();
        let mut replayed = Vec::with_capacity(snapshot.runs.len());
        for (index, run) in snapshot.runs.iter().enumerate() {
            let r = run.replay().map_err(|source| SnapshotError::Run { index, source })?;
            let id = w.take_id();
            w.runs.push(StoredRun { id, run: Arc::new(run.clone()) });
            replayed.push((id, r));
        }
        let run_id = |index: usize| {
            replayed.get(index).map(|(id, _)| *id).ok_or(SnapshotError::RunIndex { index })
        };
        for file in &snapshot.files {
            let id = w.take_id();
            let entry = match file {
                SnapshotFile::Released { name, sha256, kind } => Entry {
                    id,
                    origin: Origin::Released {
                        name: name.clone(),
                        sha256: sha256.clone(),
                        kind: *kind,
                    },
                    file: None,
                },
                SnapshotFile::Live { run, name } => {
                    let made = replayed
                        .get(*run)
                        .ok_or(SnapshotError::RunIndex { index: *run })?
                        .1
                        .files
                        .iter()
                        .find(|f| &f.name == name)
                        .ok_or_else(|| SnapshotError::LiveFile { run: *run, name: name.clone() })?;
                    Entry {
                        id,
                        origin: Origin::Live { run: run_id(*run)? },
                        file: Some(Arc::new(made.clone())),
                    }
                }
            };
            w.entries.push(entry);
        }
        if let Some(index) = snapshot.pairwise_run {
            let id = run_id(index)?;
            w.pairwise = replayed[index].1.pairwise.clone().map(|p| (id, Arc::new(p)));
        }
        if let Some(index) = snapshot.scoring_run {
            let id = run_id(index)?;
            w.scoring = replayed[index].1.scoring.clone().map(|s| (id, Arc::new(s)));
        }
        Ok(w)
    }

    /// The workspace of `snapshot`, complete: `files` (name, bytes) are the released files,
    /// matched to the snapshot's by SHA-256 (and analysed under the snapshot's names). Every
    /// released file the snapshot names must be among them, but those no table uses (a dataset
    /// listed as "not used here"): without them the list still shows them as needed.
    pub fn from_snapshot(
        snapshot: &Snapshot,
        given: &[(&str, &[u8])],
    ) -> Result<Workspace, SnapshotError> {
        let mut w = Workspace::restore(snapshot)?;
        let hashed: Vec<(&str, &[u8], String)> =
            given.iter().map(|(n, b)| (*n, *b, files::sha256_hex(b))).collect();
        let mut problems = Vec::new();
        let needed: Vec<(String, String, bool)> = w
            .entries
            .iter()
            .filter_map(|e| {
                let used = !matches!(e.origin, Origin::Released { kind: FileKind::Unused, .. });
                e.needed().map(|(n, h)| (n.to_owned(), h.to_owned(), used))
            })
            .collect();
        for (name, sha256, used) in needed {
            let base = |n: &str| n.rsplit(['/', '\\']).next().unwrap_or(n).to_owned();
            match hashed.iter().find(|(_, _, h)| *h == sha256) {
                Some((_, bytes, _)) => {
                    w.add_released(sha256, files::analyze_file(&name, bytes));
                }
                None if !used => {}
                None => {
                    problems.push(match hashed.iter().find(|(n, _, _)| base(n) == base(&name)) {
                        Some((_, _, actual)) => {
                            FileProblem::Mismatch { name, expected: sha256, actual: actual.clone() }
                        }
                        None => FileProblem::Missing { name, sha256 },
                    })
                }
            }
        }
        if problems.is_empty() { Ok(w) } else { Err(SnapshotError::Files(problems)) }
    }
}
