//! Components and helpers shared by several screens.

pub mod download;
pub mod plot;
pub mod virtual_table;
