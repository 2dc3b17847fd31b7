//! The judging engine: the papers' prompts, protocols, response parsers and score aggregation.
//!
//! Nothing here performs I/O. A protocol emits [`ChatRequest`] values and consumes the
//! response text the run engine (`crate::run`) brings back; parsers turn that text into
//! ratings or verdicts under a named [`parse::Policy`]; aggregation turns samples into a
//! per-item score.
//!
//! | module | what |
//! |---|---|
//! | [`request`] | the provider-independent chat request and response values |
//! | [`template`] | prompt templates with named parts and `{{placeholders}}` |
//! | [`builtin`] | seed 002's SummEval and Topical-Chat prompts, byte-exact |
//! | [`parse`] | rating policies (`geval`, `closer-look`, …) and tag parsers |
//! | [`aggregate`] | mean of samples, ensembles, G-Eval's probability-weighted score |
//! | [`protocol`] | the [`protocol::Protocol`] state machines: pointwise, auto-CoT, pairwise |
//! | [`meta_eval`] | seed 003's JDEval, MDEval, JDEval-i and BSMEval |
//! | [`coeval`] | seed 004's criteria ideation and instance evaluation |

//!
//! # Example: one Topical-Chat item, rate-explain, Chiang & Lee's parser
//!
//! ```
//! use concord_core::judge::builtin::{builtin, Benchmark, OutputMode};
//! use concord_core::judge::parse::Policy;
//! use concord_core::judge::protocol::{Pointwise, Protocol, Reader, Sampling};
//! use concord_core::judge::ChatResponse;
//!
//! let template = builtin(Benchmark::TopicalChat, "naturalness", OutputMode::RateExplain, false)?;
//! let item = [("source", "a: hi !\n"), ("context", "a fact\n"), ("system_output", "hello !")];
//! let reader = Reader::Policy { policy: Policy::CloserLook };
//! let mut judge = Pointwise::new("item-1/nat", &template, &item, &Sampling::closer_look(), reader, Some((1.0, 3.0)))?;
//!
//! // The run engine sends this request (n = 20, T = 1) and brings back the samples.
//! let request = &judge.pending()[0];
//! assert_eq!(request.n, 20);
//! let samples = [ChatResponse::text("Rating: 3\nRationale: natural."), ChatResponse::text("Rating: 2")];
//! judge.respond("item-1/nat", &samples).unwrap();
//! assert_eq!(judge.outcome().unwrap().score.mean, Some(2.5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod aggregate;
pub mod builtin;
pub mod coeval;
pub mod meta_eval;
pub mod parse;
pub mod protocol;
pub mod request;

pub mod template;

pub use request::{ChatRequest, ChatResponse, Message, Role, TokenLogprobs, TopLogprob};
