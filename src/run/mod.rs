//! Running LLM calls, below the screens: [`runner`] carries calls out for every screen.

pub mod runner;
