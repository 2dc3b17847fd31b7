//! The workspace shared by all screens, provided as Leptos context.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{self, Loaded};
use concord_core::run::{Endpoint, ProviderId};
use concord_core::study::workbench::{ExtraRater, JudgedRun, Settings, Study};
use leptos::prelude::*;

use crate::edge::store::Store;
use crate::runner::{Report, RunControl};

use crate::view_model::DatasetView;

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
}

impl Screen {
    pub const ALL: [Screen; 7] = [
        Screen::Data,
        Screen::Judge,
        Screen::Run,
        Screen::Results,
        Screen::Rate,
        Screen::Meta,
        Screen::CoEval,
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

/// How results are shown and where runs go: the workbench's state (Judge, Run, Results,
/// Rate it yourself), provided as context next to [`Workspace`].
#[derive(Clone, Copy)]
pub struct Workbench {
    /// Attributes and methods (Judge screen).
    pub study: RwSignal<Study>,
    /// Provider settings (Run screen). The key is only in memory unless the user opts in.
    pub connection: RwSignal<ConnectionForm>,
    /// The runs the Results screen tabulates: made here, imported from files or a bundle.
    pub runs: RwSignal<Vec<JudgedRun>>,
    /// Raters added on the Rate screen.
    pub raters: RwSignal<Vec<ExtraRater>>,
    /// Results view settings (statistic, level, baseline, bootstrap).
    pub settings: RwSignal<Settings>,
    /// The current or last run of the Run screen.
    pub run: RwSignal<RunView>,
    pub control: StoredValue<RunControl, LocalStorage>,
    /// Every stored sample this session knows, by cache key.
    pub memory: StoredValue<Rc<RefCell<HashMap<String, String>>>, LocalStorage>,
    /// IndexedDB, once opened (memory-only when the browser refuses storage).
    pub store: RwSignal<Option<Store>, LocalStorage>,
    /// Why storage is memory-only, if it is.
    pub store_problem: RwSignal<Option<String>>,
    /// Set when results came from a bundle: where from.
    pub bundle_source: RwSignal<Option<String>>,
    /// Why the last bundle could not be opened.
    pub bundle_error: RwSignal<Option<String>>,
    /// The study and endpoint the study runs in `runs` were made with (the Judge screen may
    /// have changed since): their prompts are rendered from it when shown or exported.
    pub ran_with: StoredValue<Option<RanWith>, LocalStorage>,
    /// What a bundle must say about how its runs were made that the study does not (e.g. the
    /// parameters a provider rejected, which the runs then did not send).
    pub run_notes: RwSignal<Vec<String>>,
}

/// The study (and endpoint, when known) that study runs were made with.
pub type RanWith = (Rc<Study>, Option<Endpoint>);

/// The Run screen's form.
#[derive(Clone, PartialEq)]
pub struct ConnectionForm {
    pub provider: ProviderId,
    pub base_url: String,
    pub model: String,
    /// Memory only, unless `remember` (then also in this browser's localStorage).
    pub api_key: String,
    pub remember: bool,
    pub max_concurrency: u32,
    pub requests_per_minute: Option<u32>,
    pub spend_cap_usd: Option<f64>,
    pub timeout_s: u32,
    /// Rate only the first N items (a trial run); `None` = all.
    pub item_limit: Option<usize>,
}

impl std::fmt::Debug for ConnectionForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectionForm")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl Default for ConnectionForm {
    fn default() -> ConnectionForm {
        let preset = ProviderId::OpenAi.preset();
        ConnectionForm {
            provider: preset.id,
            base_url: preset.base_url.to_owned(),
            model: String::new(),
            api_key: String::new(),
            remember: false,
            max_concurrency: 6,
            requests_per_minute: None,
            spend_cap_usd: None,
            timeout_s: 120,
            item_limit: None,
        }
    }
}

impl ConnectionForm {
    /// The run engine's connection for this form (price from the shipped table).
    pub fn connection(&self) -> crate::runner::Connection {
        let endpoint = self.endpoint();
        let table = concord_core::run::PriceTable::shipped().map(|(t, _)| t).ok();
        crate::runner::Connection {
            caps: concord_core::run::Capabilities::for_model(endpoint.provider, &endpoint.model),
            price: table.and_then(|t| t.lookup(endpoint.provider, &endpoint.model)),
            endpoint,
            api_key: self.api_key.trim().to_owned(),
            max_concurrency: self.max_concurrency,
            requests_per_minute: self.requests_per_minute,
            spend_cap_usd: self.spend_cap_usd,
            timeout_ms: self.timeout_s.saturating_mul(1000),
        }
    }

    pub fn endpoint(&self) -> Endpoint {
        Endpoint {
            provider: self.provider,
            base_url: self.base_url.trim().to_owned(),
            model: self.model.trim().to_owned(),
        }
    }
}

/// The Run screen's view of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunView {
    pub running: bool,
    /// What a starting run is doing before its first call (planning, looking up stored
    /// answers) or a finishing one after its last (collecting the answers).
    pub planning: Option<String>,
    pub paused: bool,
    pub report: Option<Report>,
    /// Every log line of the run.
    pub log: Vec<String>,
    /// How it ended, in words, and what to do.
    pub finished: Option<String>,
    pub error: Option<String>,
}

impl Workbench {
    pub fn new() -> Workbench {
        Workbench {
            study: RwSignal::new(Study::default()),
            connection: RwSignal::new(ConnectionForm::default()),
            runs: RwSignal::new(Vec::new()),
            raters: RwSignal::new(Vec::new()),
            settings: RwSignal::new(Settings::default()),
            run: RwSignal::new(RunView::default()),
            control: StoredValue::new_local(RunControl::new()),
            memory: StoredValue::new_local(Rc::new(RefCell::new(HashMap::new()))),
            store: RwSignal::new_local(None),
            store_problem: RwSignal::new(None),
            bundle_source: RwSignal::new(None),
            bundle_error: RwSignal::new(None),
            ran_with: StoredValue::new_local(None),
            run_notes: RwSignal::new(Vec::new()),
        }
    }
}

impl Default for Workbench {
    fn default() -> Self {
        Workbench::new()
    }
}

/// The workbench from context (provided by [`crate::app::App`]).
pub fn use_workbench() -> Workbench {
    expect_context::<Workbench>()
}
