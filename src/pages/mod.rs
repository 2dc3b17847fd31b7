//! One module per screen.

pub mod data;
