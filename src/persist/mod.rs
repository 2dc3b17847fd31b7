//! Persistence, below the screens: bundles opened and written ([`bundle`]) and the workspaces
//! saved in this browser ([`workspaces`]).

pub mod bundle;
pub mod workspaces;

use concord_core::workspace;
use leptos::prelude::*;

/// The workspaces' state, provided as context.
#[derive(Clone, Copy)]
pub struct Workspaces {
    /// The open workspace's id (empty until it is first saved).
    pub id: RwSignal<String>,
    pub name: RwSignal<String>,
    /// Every saved workspace as (id, name), by name.
    pub list: RwSignal<Vec<(String, String)>>,
    /// Set once the saved workspace was restored (or there was none).
    pub ready: RwSignal<bool>,
    /// What the last operation said (ok, text).
    pub message: RwSignal<Option<(bool, String)>>,
    /// Set while a workspace is being opened: its changes are not saved back.
    opening: StoredValue<bool>,
    /// The latest change's number: a pending save runs only if nothing changed since.
    generation: StoredValue<u64>,
    /// A save is running / another was asked for meanwhile.
    saving: StoredValue<bool>,
    again: StoredValue<bool>,
    saves: StoredValue<u64>,
    /// The change number the last finished save carried: a save is pending while
    /// `generation` is past it.
    saved_generation: StoredValue<u64>,
    /// What only a full save carries (the dataset, the runs, the released files) as the last
    /// finished save had it (`workspaces::heavy_signature`).
    saved_heavy: StoredValue<u64>,
    /// When the open workspace was last saved (`Entry::saved`): pending edits follow it.
    saved_at: StoredValue<String>,
}

impl Workspaces {
    pub fn new() -> Workspaces {
        Workspaces {
            id: RwSignal::new(String::new()),
            name: RwSignal::new(workspace::DEFAULT_NAME.to_owned()),
            list: RwSignal::new(Vec::new()),
            ready: RwSignal::new(false),
            message: RwSignal::new(None),
            opening: StoredValue::new(false),
            generation: StoredValue::new(0),
            saving: StoredValue::new(false),
            again: StoredValue::new(false),
            saves: StoredValue::new(0),
            saved_generation: StoredValue::new(0),
            saved_heavy: StoredValue::new(0),
            saved_at: StoredValue::new(String::new()),
        }
    }
}

impl Default for Workspaces {
    fn default() -> Self {
        Workspaces::new()
    }
}
