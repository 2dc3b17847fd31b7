//! Components and helpers shared by several screens.

pub mod download;
pub mod drop_zone;
pub mod figure_view;
pub mod instance_timer;
pub mod table_view;
pub mod virtual_table;
