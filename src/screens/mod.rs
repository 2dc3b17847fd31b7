//! One module per screen.

pub mod coeval;
pub mod data;
pub mod judge;
pub mod meta;
pub mod rate;
pub mod results;
pub mod run;
