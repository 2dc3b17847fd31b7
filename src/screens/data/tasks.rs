//! The Data screen's async work: reading a picked, dropped or downloaded file (or an AltTest
//! folder's two files) and parsing it in the Web Worker (each stage said on the screen), and
//! reading the open file again with an edited column mapping.

use std::rc::Rc;

use concord_core::data::ColumnMapping;
use concord_core::data::presets::{DownloadCause, PinnedFile, explain_download};
use concord_core::run::connection::NetworkCause;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;
use web_sys::File;

use crate::edge::http::FetchError;
use crate::edge::worker::folder::{FolderFile, load_folder_in_worker};
use crate::edge::worker::{
    LoadStage, WorkerError, load_buffer_in_worker, load_buffer_with_mapping_in_worker,
    load_in_worker, load_with_mapping_in_worker,
};
use concord_core::judge::parse::Policy;

use super::model::folder_notice;
use concord_core::study::workbench::import::imported_runs;
use concord_core::study::workbench::{Granularity, JudgedRun, Statistic, paper};

use crate::persist::bundle::BundleTargets;
use crate::state::{DataSource, Workspace};

/// Why a dataset could not be opened.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum DataLoadError {
    #[error("The browser could not read {name}: {why}; pick the file again")]
    Read { name: String, why: String },
    #[error("Could not load {name}: {error}")]
    Load { name: String, error: WorkerError },
    #[error(
        "Could not download {url}: {error}. If the address is right, the server may not allow web pages to read it (CORS), or its origin is not in this page's connect-src (README, “Custom base URL”); download the file and load it from disk instead."
    )]
    Download { url: String, error: FetchError },
    /// The download got no readable response, and the probe says why.
    #[error("Could not download {url}: {said} {advice}")]
    Unreachable { url: String, said: String, advice: String },
    #[error("The file of this dataset is no longer at hand: load it again to change its mapping.")]
    NoSource,
}

/// Reads `file` and parses it in a Web Worker (the page stays responsive however big the
/// file), showing each stage, then opens it in the workspace or says why it could not.
pub fn open_file(ws: Workspace, file: File) {
    let name = file.name();
    ws.loading.set(Some(format!("Reading {name}…")));
    spawn_local(async move {
        let buffer = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => buffer.unchecked_into::<js_sys::ArrayBuffer>(),
            Err(e) => {
                let why = crate::edge::js::error_message(&e);
                ws.load_error
                    .set(Some(DataLoadError::Read { name: name.clone(), why }.to_string()));
                ws.loading.set(None);
                return;
            }
        };
        let label = name.clone();
        let progress = move |stage: LoadStage| {
            let text = match stage {
                LoadStage::StartingWorker => format!("Starting a background worker for {label}…"),
                LoadStage::Parsing { in_worker: true } => {
                    format!("Parsing {label} in the background…")
                }
                LoadStage::Parsing { in_worker: false } => format!("Parsing {label}…"),
                LoadStage::Receiving => format!("Opening {label}…"),
            };
            ws.loading.set(Some(text));
        };
        match load_buffer_in_worker(name.clone(), buffer, progress).await {
            Ok(loaded) => {
                ws.source.set_value(Some((name.clone(), DataSource::File(file))));
                ws.open_loaded(loaded);
            }
            Err(error) => ws.load_error.set(Some(DataLoadError::Load { name, error }.to_string())),
        }
        ws.loading.set(None);
    });
}

/// Fetches `url` and opens it as a dataset, parsing in a worker.
pub fn open_url(ws: Workspace, url: String) {
    let name = url
        .rsplit('/')
        .find(|s| !s.is_empty())
        .unwrap_or("download")
        .split('?')
        .next()
        .unwrap_or("download")
        .to_owned();
    open_download(ws, url, name, None);
}

/// Downloads a preset at its pinned commit, checks it, and opens it as a dataset.
pub fn open_preset(ws: Workspace, file: PinnedFile) {
    open_download(ws, file.url.clone(), file.name.clone(), Some(file));
}

fn open_download(ws: Workspace, url: String, name: String, pinned: Option<PinnedFile>) {
    ws.loading.set(Some(format!("Downloading {url}…")));
    spawn_local(async move {
        let downloaded =
            download(&url).await.map_err(|e| e.to_string()).and_then(|bytes| match &pinned {
                Some(file) => file.check(&bytes).map(|()| bytes).map_err(|e| e.to_string()),
                None => Ok(bytes),
            });
        match downloaded {
            Err(error) => ws.load_error.set(Some(error)),
            Ok(bytes) => {
                ws.loading.set(Some(format!("Parsing {name} in the background…")));
                let kept: Rc<[u8]> = Rc::from(bytes.as_slice());
                match load_in_worker(name.clone(), bytes, |_| {}).await {
                    Ok(loaded) => {
                        ws.source.set_value(Some((name.clone(), DataSource::Bytes(kept))));
                        ws.open_loaded(loaded);
                    }
                    Err(error) => {
                        ws.load_error.set(Some(DataLoadError::Load { name, error }.to_string()))
                    }
                }
            }
        }
        ws.loading.set(None);
    });
}

/// Downloads `url`; when nothing readable came back, probes whether the page's policy, CORS
/// or an absent server is the cause ("Failed to fetch" says nothing).
async fn download(url: &str) -> Result<Vec<u8>, DataLoadError> {
    match crate::edge::http::get_bytes(url, 120_000).await {
        Ok(bytes) => Ok(bytes),
        Err(FetchError::Network(_)) => {
            let cause = if online() {
                match crate::edge::http::network_cause(url).await {
                    NetworkCause::BlockedByPage => DownloadCause::BlockedByPage,
                    NetworkCause::CorsRefused => DownloadCause::CorsRefused,
                    _ => DownloadCause::Unreachable,
                }
            } else {
                DownloadCause::Offline
            };
            let (said, advice) = explain_download(url, cause);
            Err(DataLoadError::Unreachable { url: url.to_owned(), said, advice })
        }
        Err(error) => Err(DataLoadError::Download { url: url.to_owned(), error }),
    }
}

/// Whether the browser says it has a network connection (`navigator.onLine`; true when it
/// cannot tell).
fn online() -> bool {
    let navigator = crate::edge::js::global_property("navigator");
    crate::edge::js::property(&navigator, "onLine").as_bool().unwrap_or(true)
}

/// Downloads Chiang & Lee's Topical-Chat dataset and their released GPT-3.5 answers for one
/// column of seed 002's Table 4 (pinned commit, each file's SHA-256 checked), reads them in
/// the worker, and only when every file is in hand opens them as a new workspace on the
/// Results screen (what was open is saved and kept). A failure says which file and why, and
/// changes nothing.
pub fn open_paper(t: BundleTargets, attribute: String) {
    let ws = t.ws;
    ws.load_error.set(None);
    spawn_local(async move {
        match fetch_paper(ws, &attribute).await {
            Err(e) => ws.load_error.set(Some(e.to_string())),
            Ok((source, dataset, runs)) => {
                let name = format!("Chiang & Lee Table 4, {attribute}");
                crate::persist::workspaces::fork(t, t.saved, &name).await;
                crate::persist::workspaces::reset_workbench(t);
                ws.source.set_value(Some(source));
                ws.open_loaded(dataset);
                let baseline = runs.first().map(|r| r.method.clone());
                t.runs.runs.set(runs);
                t.results.settings.update(|s| {
                    s.paper_layout = false;
                    s.statistic = Statistic::Pearson;
                    s.level = Granularity::Document;
                    s.baseline = baseline;
                });
                ws.screen.set(crate::state::Screen::Results);
            }
        }
        ws.loading.set(None);
    });
}

type PaperFiles = ((String, DataSource), concord_core::data::Loaded, Vec<JudgedRun>);

/// Why Table 4's released files could not be opened.
#[derive(Debug, thiserror::Error)]
enum PaperError {
    #[error(transparent)]
    Column(#[from] paper::UnknownColumn),
    #[error(transparent)]
    Data(#[from] DataLoadError),
    #[error(transparent)]
    NotPinned(#[from] concord_core::data::presets::NotPinned),
    #[error("{0}")]
    Import(concord_core::study::workbench::import::ImportProblem),
}

async fn fetch_paper(ws: Workspace, attribute: &str) -> Result<PaperFiles, PaperError> {
    let files = paper::run_files(attribute)?;
    let all: Vec<PinnedFile> = std::iter::once(paper::dataset_file()).chain(files).collect();
    let mut downloaded = Vec::with_capacity(all.len());
    for (i, file) in all.iter().enumerate() {
        ws.loading.set(Some(format!(
            "Downloading {} ({} of {}) from Chiang & Lee's repository on GitHub…",
            file.name,
            i + 1,
            all.len()
        )));
        let bytes = download(&file.url).await?;
        file.check(&bytes)?;
        downloaded.push(bytes);
    }
    let mut downloaded = downloaded.into_iter();
    let dataset_file = &all[0];
    ws.loading.set(Some(format!("Parsing {} in the background…", dataset_file.name)));
    let bytes = downloaded.next().unwrap_or_default();
    let kept: Rc<[u8]> = Rc::from(bytes.as_slice());
    let dataset = load_in_worker(dataset_file.name.clone(), bytes, |_| {})
        .await
        .map_err(|error| DataLoadError::Load { name: dataset_file.name.clone(), error })?;
    let mut runs = Vec::new();
    for (file, bytes) in all[1..].iter().zip(downloaded) {
        ws.loading.set(Some(format!("Reading {} in the background…", file.name)));
        let loaded = load_in_worker(file.name.clone(), bytes, |_| {})
            .await
            .map_err(|error| DataLoadError::Load { name: file.name.clone(), error })?;
        let (new, problems) = imported_runs(&dataset.dataset, &loaded, &file.name, paper::POLICY);
        if let Some(p) = problems.into_iter().next() {
            return Err(PaperError::Import(p));
        }
        runs.extend(new);
        crate::edge::time::yield_now().await;
    }
    Ok(((dataset_file.name.clone(), DataSource::Bytes(kept)), dataset, runs))
}

/// Reads the open dataset's file again, in the worker, with `mapping` (`None`: the guess),
/// and opens the result; `message` gets what happened.
pub fn reread(
    ws: Workspace,
    mapping: Option<ColumnMapping>,
    message: RwSignal<Option<(bool, String)>>,
) {
    let open_name = ws.dataset.with_untracked(|d| d.loaded.dataset.name.clone());
    let source = ws.source.get_value().filter(|(name, _)| *name == open_name);
    let Some((name, source)) = source else {
        message.set(Some((false, DataLoadError::NoSource.to_string())));
        return;
    };
    let what =
        if mapping.is_some() { "with the edited mapping" } else { "with the guessed mapping" };
    ws.loading.set(Some(format!("Reading {name} again {what}…")));
    message.set(None);
    spawn_local(async move {
        let result = match source {
            DataSource::File(file) => {
                match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => {
                        let buffer = buffer.unchecked_into::<js_sys::ArrayBuffer>();
                        load_buffer_with_mapping_in_worker(name.clone(), buffer, mapping, |_| {})
                            .await
                            .map_err(|e| e.to_string())
                    }
                    Err(e) => Err(format!(
                        "the browser could not read it again ({}); if it changed on disk, load it again",
                        crate::edge::js::error_message(&e)
                    )),
                }
            }
            DataSource::Bytes(bytes) => {
                load_with_mapping_in_worker(name.clone(), bytes.to_vec(), mapping, |_| {})
                    .await
                    .map_err(|e| e.to_string())
            }
        };
        match result {
            Ok(loaded) => {
                let counts = &loaded.summary.counts;
                let attributes: Vec<&str> =
                    loaded.summary.attributes.iter().map(|a| a.name.as_str()).collect();
                let text = format!(
                    "Read {name} again {what}: {} items, {} raters, attributes: {}.",
                    counts.items,
                    counts.raters,
                    if attributes.is_empty() { "none".to_owned() } else { attributes.join(", ") }
                );
                ws.open_loaded(loaded);
                message.try_set(Some((true, text)));
            }
            Err(e) => {
                message.try_set(Some((false, format!("Could not read {name} {what}: {e}"))));
            }
        }
        ws.loading.set(None);
    });
}

/// Reads an AltTest folder — the annotators' file and, when given, the LLMs' — in the Web
/// Worker, and opens it: the annotators as the dataset's raters, the LLMs as judge runs on the
/// Results table. With both files it opens as a new workspace named after the folder (what
/// was open is saved and kept); the LLMs' file given after the annotators' (`in_place`)
/// completes the open workspace. `notice` says what was read; a failure names the file and
/// changes nothing.
pub fn open_folder(
    t: BundleTargets,
    name: String,
    human: File,
    llm: Option<File>,
    in_place: bool,
    notice: RwSignal<Option<String>>,
) {
    let ws = t.ws;
    let (hname, lname) = (human.name(), llm.as_ref().map(File::name));
    let both = match &lname {
        Some(l) => format!("{hname} and {l}"),
        None => hname.clone(),
    };
    ws.loading.set(Some(format!("Reading {both}…")));
    ws.load_error.set(None);
    notice.set(None);
    spawn_local(async move {
        let read = |file: File| async move {
            let name = file.name();
            wasm_bindgen_futures::JsFuture::from(file.array_buffer())
                .await
                .map(|b| FolderFile { name: name.clone(), bytes: b.unchecked_into() })
                .map_err(|e| {
                    DataLoadError::Read { name, why: crate::edge::js::error_message(&e) }
                        .to_string()
                })
        };
        let files = async {
            let h = read(human.clone()).await?;
            let l = match llm.clone() {
                Some(f) => Some(read(f).await?),
                None => None,
            };
            Ok::<_, String>((h, l))
        };
        let (h, l) = match files.await {
            Ok(x) => x,
            Err(e) => {
                ws.load_error.set(Some(e));
                ws.loading.set(None);
                return;
            }
        };
        let label = both.clone();
        let progress = move |stage: LoadStage| {
            ws.loading.set(Some(match stage {
                LoadStage::StartingWorker => format!("Starting a background worker for {label}…"),
                LoadStage::Parsing { .. } => format!("Parsing {label} in the background…"),
                LoadStage::Receiving => format!("Opening {label}…"),
            }));
        };
        match load_folder_in_worker(name.clone(), h, l, progress).await {
            Err(error) => {
                ws.load_error.set(Some(DataLoadError::Load { name: both, error }.to_string()))
            }
            Ok(loaded) => {
                let text = folder_notice(&loaded, &hname, lname.as_deref());
                let (runs, problems) = match &lname {
                    Some(file) => imported_runs(&loaded.dataset, &loaded, file, Policy::Concord),
                    None => (Vec::new(), Vec::new()),
                };
                if !in_place {
                    crate::persist::workspaces::fork(t, t.saved, &name).await;
                    crate::persist::workspaces::reset_workbench(t);
                }
                ws.source.set_value(Some((hname.clone(), DataSource::File(human))));
                ws.open_loaded(loaded);
                t.runs.runs.set(runs);
                t.results.bundle_source.set(None);
                let mut text = text;
                for p in problems {
                    text.push(' ');
                    text.push_str(&p.to_string());
                }
                notice.set(Some(text));
            }
        }
        ws.loading.set(None);
    });
}
