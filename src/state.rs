//! The state several screens share, provided as Leptos context by [`crate::app::App`]: the
//! open dataset and the showing screen ([`Workspace`]), the judge runs on the Results table
//! ([`JudgeRuns`]: made on the Run screen, imported on Results, compared on Rate it
//! yourself) and the response store ([`Storage`]). Each screen's own state lives in its
//! folder (`screens/<name>/state.rs`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{self, Loaded};
use concord_core::run::Endpoint;
use concord_core::study::workbench::{JudgedRun, Study};
use leptos::prelude::*;

use crate::edge::store::Store;
use crate::screens::data::model::DatasetView;

/// Which screen is showing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Data,
    Judge,
    Run,
    Results,
    Rate,
    Meta,
    CoEval,
    Class,
}

impl Screen {
    pub const ALL: [Screen; 8] = [
        Screen::Data,
        Screen::Judge,
        Screen::Run,
        Screen::Results,
        Screen::Rate,
        Screen::Meta,
        Screen::CoEval,
        Screen::Class,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Screen::Data => "Data",
            Screen::Judge => "Judge",
            Screen::Run => "Run",
            Screen::Results => "Results",
            Screen::Rate => "Rate it yourself",
            Screen::Meta => "Pairwise & meta-evaluation",
            Screen::CoEval => "CoEval",
            Screen::Class => "Class",
        }
    }

    /// Its name in a link (`?screen=`), one of [`concord_core::link::SCREENS`].
    pub fn link_name(self) -> &'static str {
        concord_core::link::SCREENS[Screen::ALL.iter().position(|s| *s == self).unwrap_or(0)]
    }

    /// The screen a link names.
    pub fn from_link_name(name: &str) -> Option<Screen> {
        let i = concord_core::link::SCREENS.iter().position(|s| *s == name)?;
        Screen::ALL.get(i).copied()
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

/// Where the open dataset's bytes came from, kept so the Data screen can read the same file
/// again with an edited column mapping without the user picking it again.
#[derive(Clone)]
pub enum DataSource {
    /// A file the user picked or dropped: read again when needed (no copy is kept).
    File(web_sys::File),
    /// Downloaded or built-in bytes.
    Bytes(Rc<[u8]>),
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
    /// The file name and source of the open dataset when it came from the Data screen.
    pub source: StoredValue<Option<(String, DataSource)>, LocalStorage>,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace {
            screen: RwSignal::new(Screen::Data),
            dataset: RwSignal::new_local(OpenDataset::example()),
            load_error: RwSignal::new(None),
            loading: RwSignal::new(None),
            source: StoredValue::new_local(Some(example_source())),
        }
    }

    /// Parses `bytes` as the file `name` and opens it, or records why it could not be used.
    pub fn open_file(&self, name: &str, bytes: &[u8]) {
        match data::load(name, bytes) {
            Ok(loaded) => self.open_loaded(loaded),
            Err(err) => self.load_error.set(Some(format!("Could not load {name}: {err}"))),
        }
    }

    /// Opens a dataset that has been parsed (e.g. in a worker).
    pub fn open_loaded(&self, loaded: Loaded) {
        self.dataset.set(OpenDataset::new(loaded));
        self.load_error.set(None);
    }
}

impl Default for Workspace {
    fn default() -> Self {
        Workspace::new()
    }
}

/// The built-in example's name and bytes.
pub fn example_source() -> (String, DataSource) {
    let bytes: Rc<[u8]> = Rc::from(concord_core::example::EXAMPLE_CSV.as_bytes());
    (concord_core::example::EXAMPLE_NAME.to_owned(), DataSource::Bytes(bytes))
}

fn empty(name: &str) -> Loaded {
    let dataset = data::Dataset { name: name.to_string(), ..Default::default() };
    let summary = data::summarize(data::Format::Csv, &dataset, &[]);
    Loaded {
        format: data::Format::Csv,
        dataset,
        runs: Vec::new(),
        mapping: None,
        columns: Vec::new(),
        diagnostics: Vec::new(),
        summary,
    }
}

/// The workspace from context (provided by [`crate::app::App`]).
pub fn use_workspace() -> Workspace {
    expect_context::<Workspace>()
}

/// The judge runs the Results screen tabulates, and how the study's runs were made.
#[derive(Clone, Copy)]
pub struct JudgeRuns {
    /// Made here (origin `study`), imported from files or opened from a bundle.
    pub runs: RwSignal<Vec<JudgedRun>>,
    /// The study and endpoint the study runs in `runs` were made with (the Judge screen may
    /// have changed since): their prompts are rendered from it when shown or exported.
    pub ran_with: StoredValue<Option<RanWith>, LocalStorage>,
    /// What a bundle must say about how its runs were made that the study does not (e.g. the
    /// parameters a provider rejected, which the runs then did not send).
    pub notes: RwSignal<Vec<String>>,
}

/// The study (and endpoint, when known) that study runs were made with.
pub type RanWith = (Rc<Study>, Option<Endpoint>);

impl JudgeRuns {
    pub fn new() -> JudgeRuns {
        JudgeRuns {
            runs: RwSignal::new(Vec::new()),
            ran_with: StoredValue::new_local(None),
            notes: RwSignal::new(Vec::new()),
        }
    }
}

impl Default for JudgeRuns {
    fn default() -> Self {
        JudgeRuns::new()
    }
}

/// The judge runs from context.
pub fn use_runs() -> JudgeRuns {
    expect_context::<JudgeRuns>()
}

/// Where answers are kept: IndexedDB once opened, and every sample this session knows.
#[derive(Clone, Copy)]
pub struct Storage {
    /// Every stored sample this session knows, by cache key.
    pub memory: StoredValue<Rc<RefCell<HashMap<String, String>>>, LocalStorage>,
    /// IndexedDB, once opened (memory-only when the browser refuses storage).
    pub store: RwSignal<Option<Store>, LocalStorage>,
    /// Why storage is memory-only, if it is.
    pub problem: RwSignal<Option<String>>,
}

impl Storage {
    pub fn new() -> Storage {
        Storage {
            memory: StoredValue::new_local(Rc::new(RefCell::new(HashMap::new()))),
            store: RwSignal::new_local(None),
            problem: RwSignal::new(None),
        }
    }
}

impl Default for Storage {
    fn default() -> Self {
        Storage::new()
    }
}

/// The storage from context.
pub fn use_storage() -> Storage {
    expect_context::<Storage>()
}
