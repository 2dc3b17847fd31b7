//! Persistence, below the screens: bundles opened and written ([`bundle`]) and the workspaces
//! saved in this browser ([`workspaces`]).

pub mod bundle;
pub mod workspaces;
