//! The rating workbench: seed 002's workflow as values the app and the CLI share.
//!
//! ```text
//! Dataset ──► study (methods × attributes, prompt templates) ──► plan (prompts, calls, cache keys)
//!                                                                   │  the edge sends the calls and
//!                                                                   ▼  stores each sample by key
//!            bundle ◄── results (methods × attributes table) ◄── collect (judge runs)
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`study`] | methods (output mode, auto-CoT, persona, sampling, parser, templates) and grids |
//! | [`checks`] | prompts not to send as they are: a placeholder criterion, no item text |
//! | [`steps`] | auto-CoT's evaluation steps per attribute: G-Eval's released ones, the judge's, or the user's |
//! | [`import`] | released judge outputs joined as runs (method names, attributes) |
//! | [`probe`] | the length probe's variants: outputs padded or truncated, methods renamed |
//! | [`paper`] | seed 002's Table 4: Chiang & Lee's released files (pinned, hashed), printed against recomputed |
//! | [`plan`] | rendered prompts, calls split by `n` support, one cache key per sample, cost |
//! | [`scores`] | a run's samples parsed and averaged per item; correlation rows (`concord table`) |
//! | [`results`] | judge runs from stored samples, the table with Williams' marks, bootstrap CIs, rater agreement |
//! | [`audit`] | judge against judge, juries, prediction-powered corrected means |
//! | [`agreement`] | a rating vector against a reference: r, τ-b and α with bootstrap intervals (the one `Agreement`) |
//! | [`review`] | humans correct the judge: the review log ([`crate::annotation`]), merging reviewers, agreement before and after |
//! | [`revise`] | the judge revised from the disagreements: the split, the meta-prompt, the held-out test |
//! | [`report`] | the Results screen's tables and figures as one [`crate::report::Report`] |
//! | [`crate::bundle`] | the versioned, key-free export that recomputes every table on import |

pub mod agreement;
pub mod audit;
pub mod checks;
pub mod import;
pub mod paper;
pub mod plan;
pub mod probe;
pub mod report;
pub mod results;
pub mod review;
pub mod revise;
pub mod scores;
pub mod settings;
pub mod steps;
pub mod study;

pub use plan::{Call, Plan, PlanProblem, Planner, Prompt, fallback_note, plan, prompt_request};
pub use results::{
    AgreementRow, AttributeAgreement, BootstrapSpec, Cell, Granularity, Interval, JURY_MEAN,
    JURY_MEDIAN, JudgedRun, RaterKind, ResultsTable, RunKind, Scored, Statistic, agreement,
    assemble, bootstrap_interval, collect, compute, ensemble_name, run_kind, score, score_run,
    tabulate, with_ensembles, with_juries,
};
pub use settings::{ExtraRater, Settings, combined};
pub use steps::{StepsError, StepsSource, WrittenSteps};
pub use study::{
    GridSpec, Method, Study, default_study, default_template, grid, is_default_study, method,
};
