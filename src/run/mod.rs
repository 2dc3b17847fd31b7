//! Running LLM calls, below the screens: [`runner`] carries calls out for every screen,
//! [`connection`] says where they go, [`batch`] talks to the providers' batch APIs. Each
//! takes what it needs as arguments and reads no screen's state; its errors are typed.

pub mod batch;
pub mod connection;
pub mod runner;
