//! Seed 003's meta-evaluation study: released evaluator and meta-evaluator files and live runs
//! in, the tables and figures of the Pairwise & meta-evaluation screen out — one
//! [`Workspace::report`] that the screen renders and `concord meta --format md|csv|latex`
//! prints (its Table 1, 5, 6 and Elo table: [`Workspace::paper_report`]).
//!
//! ```text
//! released file ──files::analyze_file──► MetaFile ─┐
//! live run (RunSpec + answers) ──LiveRun::replay──► MetaFile… ─┤
//!                                                              ▼
//!                     Workspace ──compute (Elo, Bradley–Terry, seed spread)──► Computed
//!                         │                                                        │
//!                         └──────────────── report_with(settings, computed) ◄──────┘
//!                                                 │
//!                                   Report { tables, figures } ──► screen, CLI, bundle
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`files`] | a released file analysed on its own; the pairs, texts and assessments runs take |
//! | [`debate`] | the viewers' records: JDEval / MDEval debates, BSMEval branches |
//! | [`live`] | live runs: protocols, specs, raw answers, replay into files |
//! | [`targets`] | where a run's models are served: `model @ provider URL` entries |
//! | [`settings`] | the controls as a value ([`Settings`]) |
//! | [`compute`] | Elo in steps, Bradley–Terry, the seed spread ([`Computed`]) |
//! | [`tables`] | every [`report::Table`](crate::report::Table) |
//! | [`figures`] | every [`report::Figure`](crate::report::Figure) |
//! | [`win_rate`] | the corrected win rate of output 1 (PPI / PPI++ from a labelled subset) |
//! | [`workspace`] | the files and runs, and the report builder |
//! | [`snapshot`] | the workspace as a bundle carries it, and its rebuilding |
//!
//! The statistics themselves are [`crate::meta`]'s (accuracy, Pearson, meta scores, Elo,
//! Bradley–Terry, win rates, ranking agreement); nothing here re-derives one.

pub mod compute;
pub mod debate;
pub mod figures;
pub mod files;
pub mod live;
pub mod settings;
pub mod snapshot;
pub mod tables;
pub mod targets;
pub mod win_rate;
pub mod workspace;

pub use compute::{Computed, PairwiseResult, SeedSpread};
pub use files::{FileKind, MetaFile};
pub use live::{LiveRun, RunSpec};
pub use settings::{Settings, TieConvention};
pub use snapshot::{FileProblem, Snapshot, SnapshotError, SnapshotFile};
pub use tables::PAPER_TABLES;
pub use win_rate::WIN_RATE_TABLE;
pub use workspace::{Entry, Origin, Workspace};

#[cfg(test)]
mod tests;
