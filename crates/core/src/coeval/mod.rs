//! CoEval (seed 004) as an annotation tool: criteria and instance scrutiny as an append-only
//! event log with undo, export/import/merge of annotators' work, the study's results, and the
//! reproduction of what seed 004's released files allow.
//!
//! # Module map
//!
//! * [`session`] — the annotation model. An annotator's work is a [`Log`] of [`Event`]s
//!   (criterion decisions, part decisions on conclusion / score / evidence, own scores, timer
//!   values in ms passed in by the UI, undo). [`Log::replay`] rebuilds the [`Annotation`]; the
//!   browser stores each event the moment it is made and replays after a reload.
//! * [`exchange`] — one annotator's work as a versioned JSON file ([`AnnotatorFile`]),
//!   [`import`] (annotator or classroom files), [`merge`] of many files with every
//!   disagreement of the same annotator reported as a [`Conflict`] (later file wins, the other
//!   value is kept in the conflict), and [`Merge::export`] to a classroom file.
//! * [`results`] — action rates (Table 5 over criteria, Table 6 per component), final criteria
//!   by majority vote, recurrence over repeated ideation, the α matrix among the LLM and the
//!   annotators ([`ScoreTable::alpha_pairs`], interval by default, any level), average Pearson
//!   between evaluator groups, score distributions by generating model, time per sample.
//! * [`released`] — seed 004's released files: action and score files through
//!   [`crate::data::load`]; session logs `A01.json`…`A15.json`, `*_criteria_to_action.json`
//!   and `*_score_change.json` parsed here (the data loaders did not cover them when this was
//!   written). [`Reproduction`] collects files and computes the `concord coeval` report.
//!
//! The ideation and evaluation prompts and the parser of the LLM's answers live in
//! [`crate::judge::coeval`]; the statistics in [`crate::stats`].
//!
//! # What the released data reproduces (`../shared/data/CoEval`, commit 8b98295)
//!
//! Pinned by `crates/core/tests/coeval_released.rs` (runs when the data is present):
//!
//! * **Table 6, overall rows, ELI5 and Self-Instruct — exact.** Every action of every position,
//!   annotator, criterion and instance in `<task>_action.json`: ELI5 81.16 / 14.61 / 3.60 /
//!   0.63 % (approve / revise / delete / add, of 21 748 actions), Self-Instruct 91.49 / 4.99 /
//!   2.95 / 0.57 % (of 29 101). ROCStories gives 96.03 / 2.49 / 1.12 / 0.35 % against the
//!   paper's 94.65 / 3.92 / 1.09 / 0.34 %: the released file is not the one the paper counted.
//! * **Table 6, score rows, ELI5 and Self-Instruct — exact,** from the session logs: the second
//!   line of each criterion's `eval_result` is approved when its pass flag is non-empty,
//!   otherwise revised: ELI5 70.66 / 29.34 % (3 533 / 1 467 of 5 000), Self-Instruct 85.06 /
//!   14.94 % (4 253 / 747). Four ELI5 lines and one Self-Instruct line carry text instead of
//!   `"1"` in the flag; counting only `"1"` gives 70.58 % and 85.04 %, so the paper counted
//!   any non-empty flag. The same positions in `*_action.json` give 70.68 % and 84.58 %, and
//!   the conclusion and evidence rows match neither file exactly (e.g. ELI5 conclusion 82.64 %
//!   from the action file, 82.56 % from the logs, 82.61 % in the paper).
//! * **Figure 3 — exact, but it is ROCStories, not ELI5.** Pairwise interval α over
//!   (question, system, criterion) cells of `roc_annotator_scores.json` (1 400 cells): ChatGPT–
//!   A08 0.756, ChatGPT–A09 0.756, ChatGPT–A10 0.749, A08–A09 0.967, A08–A10 0.959, A09–A10
//!   0.968 are the figure's ChatGPT/A3/A4/A5 block, and the text's "Group 1 α ≈ 0.754" is the
//!   mean of the three ChatGPT–Group 1 values (0.7536). The figure is captioned ELI5; ELI5's
//!   own annotators give different values (ChatGPT–A01 0.908). The A1/A2 rows (0.881 between
//!   them, 0.499 / 0.474 with ChatGPT) match no pair of released annotators in any task.
//! * **Swapped Self-Instruct keys.** `self_instruct_annotator_scores.json` has rater keys A11,
//!   A12, A13, **A10, A05**: A10 holds A14's final scores and A05 holds A15's (all 1 000
//!   equal to the session logs). [`check_keys`] finds this and the report notes it; α rows keep
//!   the file's names, as the CLI promises "rater names as in the files". (ROCStories' keys
//!   agree with their own logs on 94–97 % of units only; ELI5's and Self-Instruct's on all.)
//! * **Timestamps may be `0`** in the session logs; such criteria count as untimed.
//! * **`%` strings are fractions.** `*_criteria_to_action.json` writes `"0.87%"` for 87 %;
//!   [`parse_criteria_shares`] returns fractions and the four shares of a criterion sum to 1.
//!
//! # What cannot be reproduced, and why
//!
//! * **Table 5** (criteria scrutiny by crowd and researchers): the stage-1 decisions are not
//!   released; `*_criteria_to_action.json` holds per-criterion shares of *instance* scrutiny.
//! * **Table 7** (minutes per sample, CoEval vs. HumanEval): HumanEval timings are not
//!   released. The session logs carry per-criterion start/end stamps (second resolution);
//!   their sum per instance is reported as `minutes_per_sample` (ELI5 8.37, ROCStories 12.90,
//!   Self-Instruct 5.93 min against the paper's 4.13, 5.34, 4.41) but is not the paper's
//!   measurement (pauses between criteria and revisits are included).
//! * **Table 8** (Pearson between LLM, CoEval and HumanEval): HumanEval scores are not
//!   released; [`ScoreTable::mean_pearson`] computes the statistic for data that has them.
//! * **Figure 2**: the plotted criteria are named but not the binning; the distributions are
//!   computed ([`ScoreTable::distribution`]) but not compared to the figure.
//! * **Repeated-ideation recurrence** (§5): the 10 samples are not released;
//!   [`recurrence`] counts them for new runs.

pub mod exchange;
pub mod released;
pub mod results;
pub mod session;

pub use exchange::{
    ANNOTATOR_FORMAT, AnnotatorFile, CLASSROOM_FORMAT, Classroom, Conflict, ImportError, Merge,
    Merged, VERSION, import, merge,
};
pub use released::{
    CHATGPT, CriterionShares, FileKind, KeyCheck, ReleasedError, Report, Reproduction, ScoreChange,
    SessionLog, check_keys, parse_criteria_shares, parse_score_change, parse_session,
};
pub use results::{
    ActionCounts, ActionRates, ComponentCounts, Distribution, FinalCriterion, PairAlpha,
    Recurrence, ScoreTable, Unit, criterion_actions, majority_criteria, minutes_per_sample,
    parse_level, part_actions, recurrence, share_scores_revised,
};
pub use session::{Action, Annotation, Component, Decision, Event, EventError, Log, Part, Review};
