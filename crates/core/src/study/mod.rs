//! Every study a screen runs, as values the app and the CLI share: each takes settings and
//! inputs, says which requests to send, reads the raw answers into an outcome, and turns the
//! outcome into a [`Report`](crate::report::Report) of tables and figures.
//!
//! | module | study |
//! |---|---|
//! | [`workbench`] | Chiang & Lee's rating workbench: methods × attributes against human ratings |
//! | [`meta`] | seed 003's meta-evaluation: released evaluator and meta-evaluator files, live JDEval / MDEval / JDEval-i / BSMEval runs, Tables 1, 5, 6, Elo, Bradley–Terry |
//! | [`exercise`] | classroom exercises: the exercise and submission files, the class view's report |
//! | [`coeval`] | CoEval (seed 004): LLM criteria and evaluations scrutinised by annotators; results and the released files |
//! | [`validity`] | judge validity (§16): the alternative annotator test, selective trust and the cascade, the label planner, stability |
//!
//! [`corrected`] is what two studies share: the prediction-powered corrected estimate as
//! table cells (the judge audit's corrected means, the meta-evaluation's corrected win rate).

pub mod coeval;
pub mod corrected;
pub mod exercise;
pub mod meta;
pub mod validity;
pub mod workbench;
