//! The workspace shared by all screens, provided as Leptos context.

use std::sync::Arc;

use concord_core::data::{self, Loaded};
use leptos::prelude::*;

use crate::view_model::DatasetView;

/// Which screen is showing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Data,
}

impl Screen {
    pub const ALL: [Screen; 1] = [Screen::Data];

    pub fn label(self) -> &'static str {
        match self {
            Screen::Data => "Data",
        }
    }
}

/// The dataset currently open, shared cheaply between screens.
#[derive(Clone)]
pub struct OpenDataset {
    pub loaded: Arc<Loaded>,
    pub view: Arc<DatasetView>,
}

impl OpenDataset {
    pub fn new(loaded: Loaded) -> OpenDataset {
        let view = Arc::new(DatasetView::from_loaded(&loaded));
        OpenDataset { loaded: Arc::new(loaded), view }
    }

    /// The built-in example, or an empty dataset should it ever fail to load (it is tested).
    pub fn example() -> OpenDataset {
        let loaded = data::example().unwrap_or_else(|_| empty(concord_core::example::EXAMPLE_NAME));
        OpenDataset::new(loaded)
    }
}

/// Application-wide state.
#[derive(Clone, Copy)]
pub struct Workspace {
    pub screen: RwSignal<Screen>,
    pub dataset: RwSignal<OpenDataset, LocalStorage>,
    /// The last file that could not be loaded, with why; cleared by the next success.
    pub load_error: RwSignal<Option<String>>,
    /// Set while a file is being read or parsed, with its name.
    pub loading: RwSignal<Option<String>>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace {
            screen: RwSignal::new(Screen::Data),
            dataset: RwSignal::new_local(OpenDataset::example()),
            load_error: RwSignal::new(None),
            loading: RwSignal::new(None),
        }
    }

    /// Parses `bytes` as the file `name` and opens it, or records why it could not be used.
    pub fn open_file(&self, name: &str, bytes: &[u8]) {
        match data::load(name, bytes) {
            Ok(loaded) => {
                self.dataset.set(OpenDataset::new(loaded));
                self.load_error.set(None);
            }
            Err(err) => self.load_error.set(Some(format!("Could not load: {err}"))),
        }
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace::new()
    }
}

fn empty(name: &str) -> Loaded {
    let dataset = data::Dataset { name: name.to_string(), ..Default::default() };
    let summary = data::summarize(data::Format::Csv, &dataset, &[]);
    Loaded {
        format: data::Format::Csv,
        dataset,
        runs: Vec::new(),
        mapping: None,
        diagnostics: Vec::new(),
        summary,
    }
}

/// The workspace from context (provided by [`crate::app::App`]).
pub fn use_workspace() -> Workspace {
    expect_context::<Workspace>()
}
