//! Import and export on the Results screen: released judge outputs (parsed in the Web Worker,
//! joined to the open dataset by key), bundles in and out, and raters added from other
//! bundles and students' submissions (those already here are never replaced).

use concord_core::judge::parse::Policy;
use concord_core::report::count;
use concord_core::study::exercise::Submission;
use concord_core::study::workbench::import::{add_raters, imported_runs, merge_runs};
use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::components::download::save_buffer;
use crate::edge::files::read_file;
use crate::edge::time;
use crate::persist::bundle::{BundleFailure, BundleTargets, open_bundle, save_bundle};
use crate::screens::rate::state::{RateState, use_rate};
use crate::state::{JudgeRuns, Workspace, use_runs, use_workspace};

/// Why a file's raters could not be added.
#[derive(Debug, Clone, thiserror::Error)]
enum RaterFileProblem {
    #[error("{0}")]
    Read(String),
    #[error("{file}: not UTF-8 text; add a submission or a bundle")]
    NotText { file: String },
    #[error("{file}: {error}")]
    Submission { file: String, error: concord_core::study::exercise::SubmissionError },
    #[error("{file}: {error}")]
    Bundle { file: String, error: crate::edge::worker::WorkerError },
}

/// The raters of a dropped file: a student's submission (read here: it is small) or a bundle
/// (read in the Web Worker, like any bundle).
async fn raters_of(
    file: &str,
    bytes: Vec<u8>,
) -> Result<Vec<concord_core::study::workbench::ExtraRater>, RaterFileProblem> {
    // A submission says so in its first field.
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(256)]).into_owned();
    if head.contains("\"concord-submission\"") {
        let text = String::from_utf8(bytes)
            .map_err(|_| RaterFileProblem::NotText { file: file.to_owned() })?;
        return Submission::from_json(&text)
            .map(|s| s.ratings)
            .map_err(|error| RaterFileProblem::Submission { file: file.to_owned(), error });
    }
    crate::edge::worker::bundle::open(file, Uint8Array::from(bytes.as_slice()))
        .await
        .map(|b| b.raters)
        .map_err(|error| RaterFileProblem::Bundle { file: file.to_owned(), error })
}

/// Reads judge outputs (released result files) with `policy` and adds their runs to the
/// Results table; says what was imported and what was not in `message`.
async fn import_outputs(
    ws: Workspace,
    runs: JudgeRuns,
    message: RwSignal<Option<(bool, String)>>,
    policy: Policy,
    files: Vec<web_sys::File>,
) {
    let dataset = ws.dataset.get_untracked();
    let mut added = 0;
    let mut problems = Vec::new();
    for file in files {
        let name = file.name();
        match read_file(&file).await {
            Err(e) => problems.push(e),
            Ok(bytes) => {
                match crate::edge::worker::load_in_worker(name.clone(), bytes, |_| {}).await {
                    Err(e) => problems.push(format!("{name}: {e}")),
                    Ok(loaded) => {
                        let (new, p) =
                            imported_runs(&dataset.loaded.dataset, &loaded, &name, policy);
                        problems.extend(p.into_iter().map(|p| p.to_string()));
                        added += new.len();
                        runs.runs.update(|r| merge_runs(r, new));
                    }
                }
            }
        }
        time::yield_now().await;
    }
    let ok = problems.is_empty();
    let mut text = format!("Imported {}.", count(added, "judge run", "judge runs"));
    for p in problems {
        text.push(' ');
        text.push_str(&p);
    }
    message.try_set(Some((ok, text)));
}

/// Adds the raters of bundles or students' submissions to the agreement table (raters already
/// here are kept); says what was added and what was not in `message`.
async fn add_rater_files(
    ws: Workspace,
    rate: RateState,
    message: RwSignal<Option<(bool, String)>>,
    files: Vec<web_sys::File>,
) {
    let (mut added, mut same) = (0, 0);
    let mut problems = Vec::new();
    for file in files {
        let name = file.name();
        let incoming = match read_file(&file).await {
            Err(e) => Err(RaterFileProblem::Read(e)),
            Ok(bytes) => raters_of(&name, bytes).await,
        };
        match incoming {
            Err(e) => problems.push(e.to_string()),
            Ok(incoming) => {
                let dataset = ws.dataset.get_untracked();
                let mut raters = rate.raters.get_untracked();
                let done = add_raters(&dataset.loaded.dataset, &mut raters, incoming, &name);
                added += done.added;
                same += done.already_here;
                problems.extend(done.conflicts.iter().map(ToString::to_string));
                if !done.unmatched.is_empty() {
                    problems.push(format!(
                        "{name}: none of the items of {} are in the open dataset; left out",
                        done.unmatched.join(", ")
                    ));
                }
                rate.raters.try_set(raters);
            }
        }
    }
    let mut text = format!("Added {}", count(added, "rater", "raters"));
    if same > 0 {
        text.push_str(&format!(" ({same} already here)"));
    }
    text.push('.');
    let ok = problems.is_empty();
    for p in problems {
        text.push(' ');
        text.push_str(&p);
    }
    message.try_set(Some((ok, text)));
}

/// "Export bundle": writes the workspace's bundle in the background and downloads it; only a
/// failure is said (a message would cover the table the user is looking at).
fn export_bundle(
    targets: BundleTargets,
    message: RwSignal<Option<(bool, String)>>,
    saving: RwSignal<bool>,
) {
    saving.set(true);
    spawn_local(async move {
        let outcome =
            save_bundle(targets).await.map_err(|e| e.to_string()).and_then(|(name, json)| {
                save_buffer(&name, "application/json", &json)
                    .map(|()| name)
                    .map_err(|e| e.to_string())
            });
        saving.try_set(false);
        match outcome {
            // A message would cover the table the user is looking at; the download is the
            // answer. An earlier failure's message is stale now.
            Ok(_) => {
                message.try_update(|m| {
                    if m.as_ref()
                        .is_some_and(|(ok, text)| !ok && text.starts_with("The bundle could not"))
                    {
                        *m = None;
                    }
                });
            }
            Err(e) => {
                message.try_set(Some((false, format!("The bundle could not be written: {e}"))));
            }
        }
    });
}

#[component]
pub fn ImportPanel() -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let targets = BundleTargets::from_context();
    let message = RwSignal::new(None::<(bool, String)>);
    let policy = RwSignal::new(Policy::CloserLook);
    let on_outputs = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        input.set_value("");
        // Read now: the screen may be left while the files are read.
        let policy = policy.get_untracked();
        spawn_local(import_outputs(ws, runs, message, policy, files));
    };
    let rate = use_rate();
    let on_raters = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        input.set_value("");
        spawn_local(add_rater_files(ws, rate, message, files));
    };
    let on_bundle = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        message.set(Some((true, format!("Opening {}…", file.name()))));
        spawn_local(async move {
            let name = file.name();
            let result = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Err(e) => Err(BundleFailure::Read {
                    name: name.clone(),
                    why: crate::edge::js::error_message(&e),
                }),
                Ok(buffer) => open_bundle(targets, Uint8Array::new(&buffer), &name).await,
            };
            message.try_set(Some(match result {
                Ok(()) => (true, format!("Opened bundle {name}.")),
                Err(e) => (false, e.to_string()),
            }));
        });
    };
    let saving = RwSignal::new(false);
    let export_bundle = move |_| export_bundle(targets, message, saving);
    view! {
        <section class="panel" aria-labelledby="import-heading">
            <h2 id="import-heading">"Import and export"</h2>
            <div class="row">
                <label for="judge-outputs">"Import judge outputs"</label>
                <input id="judge-outputs" type="file" multiple accept=".json,.jsonl" on:change=on_outputs/>
                <label>"read with parser "
                    <select on:change=move |ev| if let Some(p) = Policy::from_name(&event_target_value(&ev)) { policy.set(p) }>
                        {Policy::ALL.into_iter().map(|p| view! { <option value=p.name() selected=move || policy.get() == p>{p.name()}</option> }).collect_view()}
                    </select>
                </label>
            </div>
            <p class="muted">"Released result files (Chiang & Lee's `all_responses`, UniEval predictions) are joined to the open dataset by document and system, never by row."</p>
            <div class="row">
                <label for="bundle-file">"Import bundle"</label>
                <input id="bundle-file" type="file" accept=".json,application/json" on:change=on_bundle/>
                <button type="button" class="primary" on:click=export_bundle
                    disabled=move || saving.get()>"Export bundle"</button>
                {move || saving.get().then(|| view! { <span class="muted" role="status" data-testid="bundle-saving">"Writing the bundle in the background…"</span> })}
                <button type="button" class="secondary" on:click=move |_| runs.runs.update(|r| r.retain(|x| x.origin == "study"))>"Remove imported runs"</button>
            </div>
            <div class="row">
                <label for="rater-files">"Add raters from files"</label>
                <input id="rater-files" type="file" multiple accept=".json,application/json" on:change=on_raters/>
                <span class="muted">"bundles or students' submissions: their raters join the agreement table; raters already here are kept"</span>
            </div>
            {move || message.get().map(|(ok, text)| view! {
                <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="import-message">{text}</p>
            })}
        </section>
    }
}
