//! The Run screen's state: the connection form (provider, address, model, key, limits), the
//! current or last run as the screen shows it, and the control that pauses or cancels it.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

use concord_core::run::batch::BatchRecord;
use concord_core::run::tokens::Encoding;
use concord_core::run::{Endpoint, Price, ProviderId};
use concord_core::study::workbench::probe::Variant;
use leptos::prelude::*;

use crate::edge::store::Store;
use crate::run::runner::{Report, RunControl};

/// The Run screen's state, provided as context (the meta-evaluation and CoEval screens read
/// the connection too).
#[derive(Clone, Copy)]
pub struct RunState {
    /// Provider settings. The key is only in memory unless the user opts in.
    pub connection: RwSignal<ConnectionForm>,
    /// The current or last run.
    pub view: RwSignal<RunView>,
    pub control: StoredValue<RunControl, LocalStorage>,
    /// What the Run button runs: the study, or the length probe on these variants.
    pub probe: RwSignal<Option<Variant>>,
    /// How the Run button sends the calls: one by one, or as a provider batch.
    pub mode: RwSignal<RunMode>,
    /// The batches submitted from this browser, oldest first (kept in IndexedDB).
    pub batches: RwSignal<Vec<BatchRecord>>,
    /// The last word on a batch (by its store key): a check that failed, what a collection
    /// gave, a key that is missing.
    pub batch_notes: RwSignal<BTreeMap<String, String>>,
    /// Batches being checked now (a check is never run twice at once).
    pub checking: StoredValue<BTreeSet<String>>,
    /// Whether the batch records were read from storage and the periodic check started.
    pub watching: StoredValue<bool>,
    /// Prompts' input tokens counted by their model's encoding this session (each text once).
    pub token_counts: StoredValue<HashMap<(Encoding, String), u64>>,
    /// Bumped when counts arrive (the estimate reads the store again).
    pub counted: RwSignal<u32>,
    /// Whether prompts are being counted, or why they could not be.
    pub counting: RwSignal<Counting>,
    /// The model and the prompts a run of it found too long for its context: a run of the same
    /// model (Resume) does not send them again.
    pub overflowed: StoredValue<(String, Vec<String>)>,
    /// What "Check this model" found, by `provider/model` (kept in local storage).
    pub checks: RwSignal<BTreeMap<String, concord_core::run::check::ModelCheck>>,
}

/// The state of counting the estimate's prompt tokens.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Counting {
    #[default]
    Idle,
    Busy(Encoding),
    /// What went wrong (the estimate stays approximate).
    Failed(String),
}

/// How the Run button sends the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    /// Each call as it is planned, answers as they come.
    #[default]
    Interactive,
    /// Through the provider's batch API: half price, answers within 24 hours.
    Batch,
}

impl RunState {
    pub fn new() -> RunState {
        RunState {
            connection: RwSignal::new(ConnectionForm::default()),
            view: RwSignal::new(RunView::default()),
            control: StoredValue::new_local(RunControl::new()),
            probe: RwSignal::new(None),
            mode: RwSignal::new(RunMode::Interactive),
            batches: RwSignal::new(Vec::new()),
            batch_notes: RwSignal::new(BTreeMap::new()),
            checking: StoredValue::new(BTreeSet::new()),
            watching: StoredValue::new(false),
            token_counts: StoredValue::new(HashMap::new()),
            counted: RwSignal::new(0),
            counting: RwSignal::new(Counting::Idle),
            overflowed: StoredValue::new((String::new(), Vec::new())),
            checks: RwSignal::new(BTreeMap::new()),
        }
    }
}

impl Default for RunState {
    fn default() -> Self {
        RunState::new()
    }
}

/// The Run screen's state from context.
pub fn use_run() -> RunState {
    expect_context::<RunState>()
}

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
    /// Prices the user entered, by `provider/model`: used before the shipped table (and for
    /// models it does not list). Kept in this browser's local storage.
    pub prices: BTreeMap<String, Price>,
    /// The base URL is a CORS proxy for the provider's API: answers are keyed to the
    /// provider's own address, so answers collected through the proxy serve runs made directly
    /// (and the other way round).
    pub proxy: bool,
    /// Gemini 2.5 Flash / Flash-Lite think before they answer (off by default:
    /// `thinkingBudget: 0`; on: `-1`, dynamic). Saved with the other run settings.
    pub gemini_thinking: bool,
}

/// The key of a model's entered price: `openai/gpt-4o-mini`.
pub fn price_key(provider: ProviderId, model: &str) -> String {
    format!("{}/{}", provider.slug(), model.trim())
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
            prices: BTreeMap::new(),
            proxy: false,
            gemini_thinking: false,
        }
    }
}

impl ConnectionForm {
    /// The model's price: the one entered here, else the shipped table's.
    pub fn price(&self) -> Option<Price> {
        self.entered_price().or_else(|| self.table_price())
    }

    /// The price of another model (a batch's): the one entered here, else the shipped table's.
    pub fn price_of(&self, provider: ProviderId, model: &str) -> Option<Price> {
        self.prices.get(&price_key(provider, model)).copied().or_else(|| {
            let table = concord_core::run::PriceTable::shipped().map(|(t, _)| t).ok()?;
            table.lookup(provider, model.trim())
        })
    }

    /// The price entered here for the model.
    pub fn entered_price(&self) -> Option<Price> {
        self.prices.get(&price_key(self.provider, &self.model)).copied()
    }

    /// The shipped table's price for the model.
    pub fn table_price(&self) -> Option<Price> {
        let table = concord_core::run::PriceTable::shipped().map(|(t, _)| t).ok()?;
        table.lookup(self.provider, self.model.trim())
    }

    /// The capability table's row for the form's model, with its optional thinking as chosen
    /// on the Run screen.
    pub fn caps(&self) -> concord_core::run::Capabilities {
        concord_core::run::Capabilities::for_model(self.provider, self.model.trim())
            .with_thinking(self.gemini_thinking)
    }

    /// The run engine's connection for this form. Its capabilities are the table's less what a
    /// "Check this model" of the model found refused, so every screen that calls the model
    /// (meta-evaluation, CoEval, a revised judge) plans around a refused capability as the Run
    /// screen does: a refused parameter is never sent.
    pub fn connection(&self) -> crate::run::connection::Connection {
        let endpoint = self.endpoint();
        let mut caps = self.caps();
        if let Some(check) = saved_check(self.provider.slug(), &self.model) {
            check.apply(&mut caps);
        }
        crate::run::connection::Connection {
            caps,
            price: self.price(),
            endpoint,
            api_key: self.api_key.trim().to_owned(),
            max_concurrency: self.max_concurrency,
            requests_per_minute: self.requests_per_minute,
            spend_cap_usd: self.spend_cap_usd,
            timeout_ms: self.timeout_s.saturating_mul(1000),
            known_overflow: Default::default(),
        }
    }

    /// The endpoint answers are keyed to (cache keys, plans): the provider's own base URL when
    /// the form's is a proxy for it, else the form's.
    pub fn key_endpoint(&self) -> Endpoint {
        let mut endpoint = self.endpoint();
        if self.proxy
            && !matches!(self.provider, ProviderId::Custom)
            && !self.provider.preset().local
        {
            endpoint.base_url = self.provider.preset().base_url.to_owned();
        }
        endpoint
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

/// Where "Check this model" keeps its checks in this browser: `{"provider/model": ModelCheck}`.
pub const CHECKS_STORAGE: &str = "concord.model-checks";

pub fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// The check kept in this browser for `provider`'s `model`: what every screen that calls it
/// (meta-evaluation, CoEval, a revised judge) plans with, like the Run screen.
pub fn saved_check(provider: &str, model: &str) -> Option<concord_core::run::check::ModelCheck> {
    use concord_core::run::check::ModelCheck;
    let text = local_storage()?.get_item(CHECKS_STORAGE).ok().flatten()?;
    let mut saved = serde_json::from_str::<BTreeMap<String, ModelCheck>>(&text).ok()?;
    saved.remove(&ModelCheck::key(provider, model))
}

/// The check of the form's provider and model, if there is one.
pub fn check_of(
    form: &ConnectionForm,
    checks: &BTreeMap<String, concord_core::run::check::ModelCheck>,
) -> Option<concord_core::run::check::ModelCheck> {
    checks
        .get(&concord_core::run::check::ModelCheck::key(form.provider.slug(), &form.model))
        .cloned()
}

/// The capability table's row for `provider`'s `model`, less what a "Check this model" of it
/// found refused: what a run plans with and sends (a refused parameter is never sent).
pub fn planned_caps(
    run: RunState,
    provider: concord_core::run::ProviderId,
    model: &str,
) -> concord_core::run::Capabilities {
    let thinking = run.connection.with_untracked(|f| f.gemini_thinking);
    let mut caps =
        concord_core::run::Capabilities::for_model(provider, model.trim()).with_thinking(thinking);
    if let Some(check) = run.checks.with_untracked(|c| {
        c.get(&concord_core::run::check::ModelCheck::key(provider.slug(), model)).cloned()
    }) {
        check.apply(&mut caps);
    }
    // Parameters a batch of this model was refused for are not sent again.
    let refused: Vec<concord_core::run::Param> = run.batches.with_untracked(|all| {
        all.iter()
            .filter(|r| r.provider == provider.slug() && r.model.trim() == model.trim())
            .flat_map(|r| r.rejected_params())
            .collect()
    });
    for p in refused {
        caps.drop_param(p);
    }
    caps
}

/// What a screen needs to call an LLM outside the Run screen (the meta-evaluation runs,
/// CoEval's LLM steps): the Run screen's connection form and the response storage, so their
/// answers are cached with everyone else's.
#[derive(Clone, Copy)]
pub struct LlmAccess {
    pub connection: RwSignal<ConnectionForm>,
    pub store: RwSignal<Option<Store>, LocalStorage>,
    pub memory: StoredValue<Rc<RefCell<HashMap<String, String>>>, LocalStorage>,
}

impl LlmAccess {
    /// The access from the app's context (`None` outside the app, e.g. in a component test).
    pub fn try_from_context() -> Option<LlmAccess> {
        // A screen whose state lives under its own root owner provides the access again there.
        if let Some(access) = use_context::<LlmAccess>() {
            return Some(access);
        }
        let run = use_context::<RunState>()?;
        let storage = use_context::<crate::state::Storage>()?;
        Some(LlmAccess { connection: run.connection, store: storage.store, memory: storage.memory })
    }

    /// The access from the app's context.
    pub fn from_context() -> LlmAccess {
        LlmAccess::try_from_context()
            .unwrap_or_else(|| panic!("LlmAccess needs the app's RunState and Storage contexts"))
    }
}
