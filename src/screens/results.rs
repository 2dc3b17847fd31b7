//! The Results screen: seed 002's table (methods × attributes; statistic, level and baseline
//! switchable; bold where Williams' test beats the baseline), bootstrap intervals on demand,
//! scatter and histograms of a cell, cost against quality, parse failures, a per-item
//! drill-down, agreement with raters from "Rate it yourself", importing released judge
//! outputs, and the exports (CSV, Markdown, LaTeX, SVG/PNG, the bundle).

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use concord_core::data::{self, Dataset};
use concord_core::judge::aggregate::ItemScore;
use concord_core::judge::parse::Policy;
use concord_core::judge::table::{JudgeScores, ScoreReader};
use concord_core::run::{Capabilities, PriceTable, ProviderId};
use concord_core::study::workbench::bundle::EndpointEntry;
use concord_core::study::workbench::results::{self, Format, Granularity, Statistic};
use concord_core::study::workbench::{
    BootstrapSpec, Bundle, JudgedRun, RaterKind, ResultsTable, Scored, bootstrap_interval,
};
use js_sys::Uint8Array;
use leptos::prelude::*;
use leptos::task::spawn_local;
use web_sys::HtmlInputElement;

use crate::browser::read_file;
use crate::components::download::{save_buffer, save_svg_as_png, save_text};
use crate::components::figure_view::scene_view;
use crate::components::virtual_table::{RowCells, VColumn, VirtualTable};
use crate::edge::{bundle_wire, time};
use crate::state::{OpenDataset, Workbench, use_workbench, use_workspace};
use concord_core::report::figure::{Histogram, Scatter};

/// Shows a bundle: its dataset, study, runs, raters and view settings replace the current ones.
pub fn apply_bundle(wb: Workbench, ws: crate::state::Workspace, bundle: Bundle, source: &str) {
    let Bundle {
        dataset, study, endpoint, runs, raters, settings, notes, changed_on_import, ..
    } = bundle;
    // The dataset's own format is kept for what is written next (a re-exported bundle).
    let format = data::Format::from_name(&dataset.format).unwrap_or(data::Format::Csv);
    let dataset = dataset.embedded;
    let loaded = data::Loaded {
        summary: data::summarize(format, &dataset, &[]),
        format,
        dataset,
        runs: Vec::new(),
        mapping: None,
        columns: Vec::new(),
        diagnostics: Vec::new(),
    };
    ws.dataset.set(OpenDataset::new(loaded));
    if let Some(study) = study {
        wb.study.set(study.clone());
        // The endpoint is kept to describe (and price) the runs, never to call it.
        let endpoint = endpoint.as_ref().and_then(|e| e.to_endpoint());
        wb.ran_with.set_value(Some((Rc::new(study), endpoint)));
    } else {
        wb.ran_with.set_value(None);
    }
    wb.runs.set(runs);
    wb.raters.set(raters);
    wb.settings.set(settings);
    // What the import changed (settings out of bounds) is said next to where it came from.
    // The file's own notes travel on with its runs; what the import changed is only said.
    wb.run_notes.set(notes.clone());
    let said: Vec<String> = notes.into_iter().chain(changed_on_import).collect();
    wb.bundle_source.set(Some(if said.is_empty() {
        source.to_owned()
    } else {
        format!("{source} (note: {})", said.join("; "))
    }));
}

/// Opens the bundle in `bytes` (from `source`, a file name or an address): read and checked
/// in the loader's Web Worker ([`bundle_wire::open`]), then shown.
pub async fn open_bundle(
    wb: Workbench,
    ws: crate::state::Workspace,
    bytes: Uint8Array,
    source: &str,
) -> Result<(), String> {
    let bundle = bundle_wire::open(source, bytes).await.map_err(|e| format!("{source}: {e}"))?;
    apply_bundle(wb, ws, bundle, source);
    Ok(())
}

/// Fetches and opens the bundle at `url` (relative URLs resolve against the page), showing the
/// Results screen or saying what went wrong.
pub async fn open_bundle_url(wb: Workbench, ws: crate::state::Workspace, url: &str) {
    ws.screen.set(crate::state::Screen::Results);
    wb.bundle_source.set(Some(format!("{url} (loading…)")));
    let outcome = match crate::edge::http::get_bytes(url, 60_000).await {
        Err(e) => Err(format!("Could not fetch the bundle {url}: {e}")),
        Ok(bytes) => {
            let bytes = Uint8Array::from(bytes.as_slice());
            open_bundle(wb, ws, bytes, url).await
        }
    };
    if let Err(e) = outcome {
        wb.bundle_source.set(None);
        wb.bundle_error.set(Some(e));
    } else {
        wb.bundle_error.set(None);
    }
}

/// Writes the bundle of what the Results screen shows: the page encodes its state a slice at a
/// time between yields, the loader's Web Worker builds and writes the JSON
/// ([`bundle_wire::save`]). Returns the file name and the JSON.
pub async fn save_bundle(
    wb: Workbench,
    ws: crate::state::Workspace,
) -> Result<(String, js_sys::ArrayBuffer), String> {
    let open = ws.dataset.get_untracked();
    let dataset = &open.loaded.dataset;
    let form = wb.connection.get_untracked();
    let has_study_runs = wb.runs.with_untracked(|r| r.iter().any(|r| r.origin == "study"));
    // Study runs are described by the study and endpoint they were made with, which the Judge
    // and Run screens may have changed since.
    let (study, endpoint) = match wb.ran_with.get_value().filter(|_| has_study_runs) {
        Some((study, endpoint)) => ((*study).clone(), endpoint),
        None => (wb.study.get_untracked(), has_study_runs.then(|| form.endpoint())),
    };
    let skeleton = bundle_wire::SaveSkeleton {
        dataset: dataset.without_items(),
        format: open.loaded.format.name().to_owned(),
        study: Some(study),
        endpoint: endpoint.as_ref().map(EndpointEntry::from_endpoint),
        runs: wb.runs.with_untracked(|runs| {
            runs.iter()
                .map(|r| JudgedRun {
                    method: r.method.clone(),
                    attribute: r.attribute.clone(),
                    policy: r.policy,
                    origin: r.origin.clone(),
                    run: data::JudgeRun {
                        name: r.run.name.clone(),
                        attribute: r.run.attribute.clone(),
                        records: Vec::new(),
                    },
                })
                .collect()
        }),
        raters: wb.raters.get_untracked(),
        settings: wb.settings.get_untracked(),
        created: js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default(),
        notes: wb.run_notes.get_untracked(),
    };
    let name = format!("concord-bundle-{}.json", file_stem(&dataset.name));
    let mut frames = vec![bundle_wire::skeleton_frame(&skeleton)?];
    // Encoding is fast, but 500,000 responses are not: yield to the browser every ~12 ms.
    let mut slice = time::monotonic_ms();
    for chunk in dataset.items.chunks(256) {
        frames.push(bundle_wire::items_frame(chunk)?);
        if time::monotonic_ms() - slice > 12.0 {
            time::yield_now().await;
            slice = time::monotonic_ms();
        }
    }
    let lengths: Vec<usize> =
        wb.runs.with_untracked(|r| r.iter().map(|r| r.run.records.len()).collect());
    for (run, len) in lengths.into_iter().enumerate() {
        for start in (0..len).step_by(256) {
            // The runs may have changed while the page yielded: a run still arriving grows (read
            // each slice anew, within what there is); a run replaced or removed (a new run of
            // another study, an import, "Remove imported runs") stops the export rather than
            // put its records under another run's name.
            let frame = wb.runs.with_untracked(|runs| {
                let same = |r: &JudgedRun, s: &JudgedRun| {
                    (&r.method, &r.attribute, &r.origin, &r.run.name)
                        == (&s.method, &s.attribute, &s.origin, &s.run.name)
                };
                let Some(current) = runs.get(run).filter(|r| same(r, &skeleton.runs[run])) else {
                    return Err("the runs changed while the bundle was being written (a run finished, or runs were imported or removed): export it again".to_owned());
                };
                let records = &current.run.records;
                let end = (start + 256).min(records.len());
                bundle_wire::records_frame(run, records.get(start..end).unwrap_or_default())
            })?;
            frames.push(frame);
            if time::monotonic_ms() - slice > 12.0 {
                time::yield_now().await;
                slice = time::monotonic_ms();
            }
        }
    }
    frames.push(bundle_wire::end_frame()?);
    let json = bundle_wire::save(frames).await?;
    Ok((name, json))
}

/// The Statistic select's value for seed 002's two-column layout.
const PAPER: &str = "paper";

fn file_stem(name: &str) -> String {
    name.rsplit_once('.').map_or(name, |(s, _)| s).to_owned()
}

/// Turns the judge runs a released file carries into table rows.
fn imported_runs(
    dataset: &Dataset,
    loaded: &data::Loaded,
    file: &str,
    policy: Policy,
) -> (Vec<JudgedRun>, Vec<String>) {
    let mut runs = Vec::new();
    let mut problems = Vec::new();
    for run in &loaded.runs {
        let attribute =
            run.attribute.clone().filter(|a| dataset.attribute_index(a).is_some()).or_else(|| {
                (dataset.attributes.len() == 1).then(|| dataset.attributes[0].name.clone())
            });
        let Some(attribute) = attribute else {
            problems.push(format!(
                "{file}: cannot tell which attribute it rates (the dataset has {})",
                dataset.attributes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        let stem = file_stem(file);
        // Chiang & Lee's names carry the attribute (`gpt3.5_nat_rate_explain`): drop it so one
        // method gets one row.
        let method = ["_nat_", "_coh_", "_eng_", "_gro_", "_con_", "_flu_", "_rel_"]
            .iter()
            .find_map(|abbr| stem.split_once(abbr).map(|(a, b)| format!("{a} {b}")))
            .unwrap_or(stem);
        runs.push(JudgedRun {
            method,
            attribute,
            policy,
            run: run.clone(),
            origin: file.to_owned(),
        });
    }
    if loaded.runs.is_empty() {
        problems.push(format!(
            "{file}: no judge outputs in this file (detected as {})",
            loaded.format.name()
        ));
    }
    (runs, problems)
}

#[component]
pub fn ResultsPage() -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    // Reading every sample (the expensive half) happens off the reactive path: in the
    // background, one run at a time, yielding to the browser, and only for runs not read
    // before. A new baseline, statistic or level re-tabulates the read scores.
    let scored = RwSignal::new(None::<(Arc<Scored>, f64)>);
    let pending = wb.runs.with_untracked(|r| !r.is_empty());
    let reading = RwSignal::new(pending.then(|| "Reading the judge runs…".to_owned()));
    let generation = StoredValue::new(0u64);
    Effect::new(move |_| {
        ws.dataset.track();
        wb.runs.track();
        generation.update_value(|g| *g += 1);
        let this = generation.get_value();
        // `current` is false once the runs changed or the screen was left (its signals are
        // then disposed, and every write below is guarded by it).
        let current = move || generation.try_get_value() == Some(this);
        spawn_local(read_scores(ws, wb, current, scored, reading));
    });
    let table = Memo::new(move |_| {
        let dataset = ws.dataset.get();
        let baseline = wb.settings.with(|s| s.baseline.clone());
        let Some((scored, _)) = scored.get() else {
            return (
                concord_core::study::workbench::tabulate(
                    &dataset.loaded.dataset,
                    &Scored::default(),
                    None,
                ),
                0.0,
            );
        };
        let started = time::monotonic_ms();
        let t = concord_core::study::workbench::tabulate(
            &dataset.loaded.dataset,
            &scored,
            baseline.as_deref(),
        );
        let took = time::monotonic_ms() - started;
        (t, took)
    });
    provide_context(ReadTime(Signal::derive(move || {
        scored.with(|s| s.as_ref().map_or(0.0, |(_, ms)| *ms))
    })));
    let selected = RwSignal::new(None::<(usize, usize)>);
    view! {
        <ImportPanel/>
        {move || wb.bundle_error.get().map(|e| view! { <p class="error-box" role="alert" data-testid="bundle-error">{e}</p> })}
        {move || wb.bundle_source.get().map(|s| view! {
            <p class="notice-line" data-testid="bundle-source">{format!("Showing the bundle {s}: every number below was recomputed from its raw responses.")}</p>
        })}
        {move || reading.get().map(|text| view! { <p class="notice-line" role="status" data-testid="results-reading">{text}</p> })}
        <Show
            when=move || !table.with(|(t, _)| t.methods.is_empty())
            fallback=move || reading.with(Option::is_none).then(|| view! {
                <section class="panel"><p class="muted" data-testid="results-empty">
                    "No results yet. Run methods from the Run screen, import released judge outputs or a bundle above, or open the demo."
                </p></section>
            })
        >
            <TablePanel table=table selected=selected/>
            <CellPanel table=table selected=selected/>
            <CostPanel table=table/>
        </Show>
        <AgreementPanel table=table/>
    }
}

/// What a run is, for the cache of read scores: where it came from, what it rates, how it is
/// read, and the size of its responses (a run in progress grows, so it is read again).
#[derive(Clone, PartialEq, Eq, Hash)]
struct RunKey {
    origin: String,
    method: String,
    attribute: String,
    policy: &'static str,
    records: usize,
    responses: usize,
    bytes: usize,
}

impl RunKey {
    fn of(r: &JudgedRun) -> RunKey {
        let (mut responses, mut bytes) = (0, 0);
        for rec in &r.run.records {
            responses += rec.responses.len();
            bytes += rec.responses.iter().map(String::len).sum::<usize>();
        }
        RunKey {
            origin: r.origin.clone(),
            method: r.method.clone(),
            attribute: r.attribute.clone(),
            policy: r.policy.name(),
            records: r.run.records.len(),
            responses,
            bytes,
        }
    }
}

thread_local! {
    /// Runs read before, kept while the page lives (the Results screen is mounted anew on
    /// each visit).
    static CACHE: std::cell::RefCell<ScoreCache> = std::cell::RefCell::new(ScoreCache::default());
}

fn with_cache<T>(f: impl FnOnce(&mut ScoreCache) -> T) -> T {
    CACHE.with(|c| f(&mut c.borrow_mut()))
}

/// Runs read before, for the open dataset.
#[derive(Default)]
struct ScoreCache {
    /// The dataset they were read against (held, so its address cannot be reused).
    dataset: Option<Arc<data::Loaded>>,
    /// Each run read, with the time reading it took (ms).
    runs: HashMap<RunKey, (Option<Result<JudgeScores, String>>, f64)>,
}

/// Reads every run not read before (one at a time, yielding to the browser between slices of
/// ~25 ms), then publishes the scores; stops early when `current()` says the runs changed.
async fn read_scores(
    ws: crate::state::Workspace,
    wb: Workbench,
    current: impl Fn() -> bool,
    scored: RwSignal<Option<(Arc<Scored>, f64)>>,
    reading: RwSignal<Option<String>>,
) {
    if !current() {
        return;
    }
    let open = ws.dataset.get_untracked();
    with_cache(|c| {
        if !c.dataset.as_ref().is_some_and(|d| Arc::ptr_eq(d, &open.loaded)) {
            *c = ScoreCache { dataset: Some(open.loaded.clone()), ..ScoreCache::default() };
        }
    });
    let keys: Vec<RunKey> = wb.runs.with_untracked(|runs| runs.iter().map(RunKey::of).collect());
    let missing: Vec<usize> =
        with_cache(|c| (0..keys.len()).filter(|&i| !c.runs.contains_key(&keys[i])).collect());
    if !missing.is_empty() {
        scored.set(None);
        let dataset = &open.loaded.dataset;
        let mut slice = time::monotonic_ms();
        for (done, &i) in missing.iter().enumerate() {
            reading.set(Some(format!(
                "Reading the responses of {} judge run(s): {done} done…",
                missing.len()
            )));
            // A run is read a slice of items at a time (a 10,000-item run of 20 samples is
            // 200,000 parses), yielding to the browser between slices.
            // Time spent reading, not waiting between slices.
            let mut started = time::monotonic_ms();
            let mut took = 0.0;
            let reader = wb.runs.with_untracked(|runs| {
                runs.get(i).map(|r| {
                    if r.run.records.is_empty() {
                        return None;
                    }
                    Some(
                        ScoreReader::new(dataset, &r.method, &r.attribute, &r.run, r.policy)
                            .map_err(|e| e.to_string()),
                    )
                })
            });
            let Some(reader) = reader else { return };
            let read = match reader {
                Some(Ok(mut reader)) => loop {
                    let finished = wb.runs.with_untracked(|runs| {
                        runs.get(i).is_none_or(|r| reader.step(&r.run, 500))
                    });
                    if finished {
                        break Some(Ok(reader.finish()));
                    }
                    if time::monotonic_ms() - slice > 12.0 {
                        took += time::monotonic_ms() - started;
                        time::yield_now().await;
                        slice = time::monotonic_ms();
                        started = slice;
                        if !current() {
                            return;
                        }
                    }
                },
                Some(Err(e)) => Some(Err(e)),
                None => None,
            };
            took += time::monotonic_ms() - started;
            with_cache(|c| c.runs.insert(keys[i].clone(), (read, took)));
            if time::monotonic_ms() - slice > 12.0 {
                time::yield_now().await;
                slice = time::monotonic_ms();
            }
            if !current() {
                return;
            }
        }
    }
    if !current() {
        return;
    }
    let s = wb.runs.with_untracked(|runs| {
        with_cache(|c| {
            concord_core::study::workbench::assemble(runs, |i| {
                c.runs.get(&keys[i]).and_then(|(read, _)| read.clone())
            })
        })
    });
    // Keep the cache to the runs there are (an import replaces runs, a run in progress grows).
    let ms = with_cache(|c| {
        c.runs.retain(|k, _| keys.contains(k));
        c.runs.values().map(|(_, ms)| ms).sum::<f64>()
    });
    scored.set(Some((Arc::new(s), ms)));
    reading.set(None);
}

/// How long reading the samples of the runs shown took, in total (ms).
#[derive(Clone, Copy)]
struct ReadTime(Signal<f64>);

#[component]
fn ImportPanel() -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    let message = RwSignal::new(None::<(bool, String)>);
    let policy = RwSignal::new(Policy::CloserLook);
    let on_outputs = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(files) = input.files() else { return };
        let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
        input.set_value("");
        // Read now: the screen may be left while the files are read.
        let policy = policy.get_untracked();
        spawn_local(async move {
            let dataset = ws.dataset.get_untracked();
            let mut added = 0;
            let mut problems = Vec::new();
            for file in files {
                let name = file.name();
                match read_file(&file).await {
                    Err(e) => problems.push(e),
                    Ok(bytes) => {
                        match crate::edge::worker::load_in_worker(name.clone(), bytes, |_| {}).await
                        {
                            Err(e) => problems.push(format!("{name}: {e}")),
                            Ok(loaded) => {
                                let (runs, p) =
                                    imported_runs(&dataset.loaded.dataset, &loaded, &name, policy);
                                problems.extend(p);
                                added += runs.len();
                                wb.runs.update(|r| {
                                    r.retain(|x| {
                                        !runs.iter().any(|n| {
                                            n.origin == x.origin && n.attribute == x.attribute
                                        })
                                    });
                                    r.extend(runs);
                                });
                            }
                        }
                    }
                }
                time::yield_now().await;
            }
            let ok = problems.is_empty();
            let mut text = format!("Imported {added} judge run(s).");
            for p in problems {
                text.push(' ');
                text.push_str(&p);
            }
            message.try_set(Some((ok, text)));
        });
    };
    let on_bundle = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        message.set(Some((true, format!("Opening {}…", file.name()))));
        spawn_local(async move {
            let name = file.name();
            let result = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Err(e) => Err(format!("the browser could not read {name}: {e:?}")),
                Ok(buffer) => open_bundle(wb, ws, Uint8Array::new(&buffer), &name).await,
            };
            message.try_set(Some(match result {
                Ok(()) => (true, format!("Opened bundle {name}.")),
                Err(e) => (false, e),
            }));
        });
    };
    let saving = RwSignal::new(false);
    let export_bundle = move |_| {
        saving.set(true);
        spawn_local(async move {
            let outcome = save_bundle(wb, ws).await.and_then(|(name, json)| {
                save_buffer(&name, "application/json", &json).map(|()| name)
            });
            saving.try_set(false);
            match outcome {
                // A message would cover the table the user is looking at; the download is the
                // answer. An earlier failure's message is stale now.
                Ok(_) => {
                    message.try_update(|m| {
                        if m.as_ref().is_some_and(|(ok, text)| {
                            !ok && text.starts_with("The bundle could not")
                        }) {
                            *m = None;
                        }
                    });
                }
                Err(e) => {
                    message.try_set(Some((false, format!("The bundle could not be written: {e}"))));
                }
            }
        });
    };
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
                    disabled=move || wb.runs.with(Vec::is_empty) || saving.get()>"Export bundle"</button>
                {move || saving.get().then(|| view! { <span class="muted" role="status" data-testid="bundle-saving">"Writing the bundle in the background…"</span> })}
                <button type="button" class="secondary" on:click=move |_| wb.runs.update(|r| r.retain(|x| x.origin == "study"))>"Remove imported runs"</button>
            </div>
            {move || message.get().map(|(ok, text)| view! {
                <p class=if ok { "ok-box" } else { "error-box" } role="status" data-testid="import-message">{text}</p>
            })}
        </section>
    }
}

#[component]
fn TablePanel(
    table: Memo<(ResultsTable, f64)>,
    selected: RwSignal<Option<(usize, usize)>>,
) -> impl IntoView {
    let wb = use_workbench();
    let ws = use_workspace();
    let read_ms = use_context::<ReadTime>().map(|r| r.0);
    let settings = move || wb.settings.get();
    let intervals = RwSignal::new(HashMap::<(usize, usize, usize), (f64, f64)>::new());
    let computing = RwSignal::new(false);
    // Intervals belong to one table and one setting.
    Effect::new(move |_| {
        table.track();
        wb.settings.track();
        intervals.set(HashMap::new());
    });
    let compute_cis = move |_| {
        let (t, _) = table.get_untracked();
        let s = wb.settings.get_untracked();
        let dataset = ws.dataset.get_untracked();
        computing.set(true);
        spawn_local(async move {
            let mut out = HashMap::new();
            for m in 0..t.methods.len() {
                for a in 0..t.attributes.len() {
                    for (k, (statistic, level)) in s.columns().into_iter().enumerate() {
                        let spec = BootstrapSpec {
                            statistic,
                            level,
                            resamples: s.resamples,
                            seed: s.seed,
                            confidence: s.confidence,
                        };
                        if let Some(c) = t.cell(m, a)
                            && let Some(ci) = bootstrap_interval(
                                &dataset.loaded.dataset,
                                &t.attributes[a],
                                &c.scores.scores,
                                spec,
                            )
                        {
                            out.insert((m, a, k), (ci.low, ci.high));
                        }
                    }
                    // One cell at a time keeps the page responsive; stop if the screen was
                    // left.
                    time::yield_now().await;
                    if intervals.is_disposed() {
                        return;
                    }
                }
            }
            intervals.try_set(out);
            computing.try_set(false);
        });
    };
    let export = move |format: Format, ext: &'static str, mime: &'static str| {
        let (t, _) = table.get_untracked();
        let s = wb.settings.get_untracked();
        let text = t.render_columns(&s.columns(), format);
        let _ = save_text(&format!("concord-results.{ext}"), mime, &text);
    };
    view! {
        <section class="panel" aria-labelledby="table-heading">
            <h2 id="table-heading">"Correlation with human ratings"</h2>
            <div class="row">
                <label>"Statistic "
                    <select aria-label="Statistic" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if v == PAPER {
                            wb.settings.update(|x| x.paper_layout = true);
                        } else if let Some(s) = Statistic::ALL.into_iter().find(|s| s.name() == v) {
                            wb.settings.update(|x| { x.statistic = s; x.paper_layout = false; });
                        }
                    }>
                        <option value=PAPER selected=move || settings().paper_layout>"r (dataset) and τ (document), as seed 002"</option>
                        {Statistic::ALL.into_iter().map(|s| view! { <option value=s.name() selected=move || { let x = settings(); !x.paper_layout && x.statistic == s }>{s.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Level "
                    <select aria-label="Level" disabled=move || settings().paper_layout on:change=move |ev| {
                        let level = if event_target_value(&ev) == "document" { Granularity::Document } else { Granularity::Dataset };
                        wb.settings.update(|x| x.level = level);
                    }>
                        <option value="dataset" selected=move || settings().level == Granularity::Dataset>"dataset level"</option>
                        <option value="document" selected=move || settings().level == Granularity::Document>"document level"</option>
                    </select>
                </label>
                <label>"Baseline "
                    <select aria-label="Baseline" on:change=move |ev| {
                        let v = event_target_value(&ev);
                        wb.settings.update(|x| x.baseline = (!v.is_empty()).then_some(v));
                    }>
                        <option value="" selected=move || settings().baseline.is_none()>"none"</option>
                        {move || table.get().0.methods.into_iter().map(|m| {
                            let (value, label) = (m.clone(), m.clone());
                            view! { <option value=value selected=move || settings().baseline.as_deref() == Some(m.as_str())>{label}</option> }
                        }).collect_view()}
                    </select>
                </label>
                <button type="button" class="secondary" on:click=compute_cis disabled=move || computing.get()>
                    {move || if computing.get() { "Computing intervals…" } else { "Bootstrap CIs" }}
                </button>
            </div>
            <div class="table-wrap">
                <table class="data results" data-testid="results-table">
                    <thead>
                        {move || {
                            let columns = settings().columns();
                            let attributes = table.get().0.attributes;
                            if columns.len() == 1 {
                                return view! { <tr>
                                    <th scope="col">"Method"</th>
                                    {attributes.into_iter().map(|a| view! { <th scope="col" class="num">{a}</th> }).collect_view()}
                                </tr> }.into_any();
                            }
                            let span = columns.len();
                            view! {
                                <tr>
                                    <th scope="col" rowspan="2">"Method"</th>
                                    {attributes.iter().map(|a| view! { <th scope="colgroup" colspan=span class="num">{a.clone()}</th> }).collect_view()}
                                </tr>
                                <tr>
                                    {attributes.iter().flat_map(|_| columns.clone()).map(|col| view! {
                                        <th scope="col" class="num sub" title=format!("{} at {}", col.0.label(), col.1.label())>{results::column_heading(col)}</th>
                                    }).collect_view()}
                                </tr>
                            }.into_any()
                        }}
                    </thead>
                    <tbody>
                        {move || {
                            let (t, _) = table.get();
                            let s = settings();
                            let cis = intervals.get();
                            t.methods.iter().enumerate().map(|(m, method)| view! {
                                <tr>
                                    <th scope="row">{method.clone()}</th>
                                    {(0..t.attributes.len()).flat_map(|a| s.columns().into_iter().enumerate().map(move |(k, col)| (a, k, col))).map(|(a, k, (statistic, level))| {
                                        let cell = t.cell(m, a).cloned();
                                        let Some(c) = cell else { return view! { <td class="num">"–"</td> }.into_any() };
                                        let v = results::value(&c.row, statistic, level);
                                        let what = format!("{} at {}", statistic.label(), level.label());
                                        let text = v.map_or("–".to_owned(), |v| format!("{v:.3}"));
                                        let sig = c.bold_in((statistic, level));
                                        let p = c.row.williams_vs_first.p;
                                        let title = format!(
                                            "n = {}, parse failures = {}{}",
                                            c.row.n, c.row.parse_failures,
                                            p.map_or(String::new(), |p| format!(", Williams p = {p:.4} vs baseline"))
                                        );
                                        let ci = cis.get(&(m, a, k)).map(|(lo, hi)| format!("[{lo:.3}, {hi:.3}]"));
                                        view! {
                                            <td class="num" class:sig=sig>
                                                <button type="button" class="cell" title=title.clone() aria-label=format!("{method}, {}, {what}: {text}. {title}", t.attributes[a])
                                                    on:click=move |_| selected.set(Some((m, a)))>
                                                    {if sig { view! { <strong>{text.clone()}</strong> }.into_any() } else { view! { <span>{text.clone()}</span> }.into_any() }}
                                                </button>
                                                {ci.map(|ci| view! { <span class="ci">{ci}</span> })}
                                            </td>
                                        }.into_any()
                                    }).collect_view()}
                                </tr>
                            }).collect_view()
                        }}
                    </tbody>
                </table>
            </div>
            <p class="muted" data-testid="computed">
                {move || {
                    let s = settings();
                    let (t, took) = table.get();
                    let mark = match &t.baseline {
                        Some(b) => format!("Bold: Williams' test says the method's dataset-level Pearson r is higher than {b}'s (one-sided p < 0.05)."),
                        None => "Choose a baseline to mark significant improvements (Williams' test).".into(),
                    };
                    let read = read_ms.map(|r| format!(" Responses read in {:.0} ms in all, once per run, in the background.", r.get())).unwrap_or_default();
                    let shown = if s.paper_layout {
                        "Pearson r at dataset level and Kendall τ-b at document level (seed 002's layout)".to_owned()
                    } else {
                        format!("{} at {}", s.statistic.label(), s.level.label())
                    };
                    format!("{shown}; click a cell for its plots and items. {mark} Computed in {took:.0} ms.{read}")
                }}
            </p>
            <ParseFailures table=table/>
            <div class="row">
                <button type="button" class="secondary" on:click=move |_| export(Format::Csv, "csv", "text/csv")>"Export CSV"</button>
                <button type="button" class="secondary" on:click=move |_| export(Format::Markdown, "md", "text/markdown")>"Export Markdown"</button>
                <button type="button" class="secondary" on:click=move |_| export(Format::Latex, "tex", "application/x-tex")>"Export LaTeX"</button>
            </div>
            {move || {
                let errors = table.get().0.errors;
                (!errors.is_empty()).then(|| view! {
                    <ul class="error-box" role="alert">{errors.into_iter().map(|e| view! { <li>{e}</li> }).collect_view()}</ul>
                })
            }}
        </section>
    }
}

#[component]
fn ParseFailures(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    view! {
        <details>
            <summary>"Parse failures"</summary>
            <table class="data" data-testid="parse-failures">
                <thead><tr><th scope="col">"Method"</th><th scope="col">"Attribute"</th><th scope="col" class="num">"Samples"</th><th scope="col" class="num">"Unparseable"</th></tr></thead>
                <tbody>
                    {move || {
                        let (t, _) = table.get();
                        let mut rows = Vec::new();
                        for (m, method) in t.methods.iter().enumerate() {
                            for (a, attribute) in t.attributes.iter().enumerate() {
                                if let Some(c) = t.cell(m, a) {
                                    rows.push(view! { <tr><td>{method.clone()}</td><td>{attribute.clone()}</td>
                                        <td class="num">{c.scores.samples}</td><td class="num">{c.scores.parse_failures}</td></tr> });
                                }
                            }
                        }
                        rows
                    }}
                </tbody>
            </table>
        </details>
    }
}

#[component]
fn CellPanel(
    table: Memo<(ResultsTable, f64)>,
    selected: RwSignal<Option<(usize, usize)>>,
) -> impl IntoView {
    let ws = use_workspace();
    let item = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        selected.track();
        item.set(None);
    });
    let info = move || {
        let (m, a) = selected.get()?;
        let (t, _) = table.get();
        let cell = t.cell(m, a)?.clone();
        Some((t.methods[m].clone(), t.attributes[a].clone(), cell))
    };
    view! {
        {move || info().map(|(method, attribute, cell)| {
            let open = ws.dataset.get();
            let dataset = &open.loaded.dataset;
            let index = dataset.attribute_index(&attribute).unwrap_or(0);
            let human = dataset.human_scores(index);
            let points: Vec<(f64, f64)> = human.iter().zip(&cell.scores.scores).filter_map(|(h, j)| Some(((*h)?, (*j)?))).collect();
            let labels: Vec<String> = dataset.items.iter().zip(human.iter().zip(&cell.scores.scores))
                .filter(|(_, (h, j))| h.is_some() && j.is_some()).map(|(it, _)| it.id.clone()).collect();
            let scatter = Scatter::new(format!("{method} vs humans: {attribute}"), "human rating", "judge rating", points).labels(labels).scene();
            let judge_hist = Histogram::new(format!("{method}: judge ratings"), cell.scores.scores.iter().flatten().copied().collect(), 10).scene();
            let human_hist = Histogram::new(format!("Humans: {attribute}"), human.iter().flatten().copied().collect(), 10).scene();
            let svg = [scatter.to_svg(), judge_hist.to_svg(), human_hist.to_svg()];
            let [s0, s1, s2] = svg.clone();
            let base = format!("{}-{attribute}", method.replace(' ', "_"));
            let human_base = format!("human-{}", attribute.replace(' ', "_"));
            // Every plot as SVG (vector, for papers) and PNG (twice the size, for slides).
            let exports = [
                ("scatter", format!("{base}-scatter"), s0),
                ("histogram", format!("{base}-judge-histogram"), s1),
                ("human histogram", format!("{human_base}-histogram"), s2),
            ];
            let items_label = format!("Items of {method} on {attribute}");
            view! {
                <section class="panel" aria-labelledby="cell-heading" data-testid="cell-panel">
                    <h2 id="cell-heading">{format!("{method} · {attribute}")}</h2>
                    <div class="plots">
                        {scene_view(&scatter, "scatter of judge against human ratings")}
                        {scene_view(&judge_hist, "histogram of judge ratings")}
                        {scene_view(&human_hist, "histogram of human ratings")}
                    </div>
                    <div class="row">
                        {exports.into_iter().map(|(what, file, svg)| {
                            let (svg_file, png_file, png_svg) = (format!("{file}.svg"), format!("{file}.png"), svg.clone());
                            view! {
                                <button type="button" class="secondary" on:click=move |_| { let _ = save_text(&svg_file, "image/svg+xml", &svg); }>{format!("Export {what} SVG")}</button>
                                <button type="button" class="secondary" on:click=move |_| {
                                    let (s, f) = (png_svg.clone(), png_file.clone());
                                    spawn_local(async move { let _ = save_svg_as_png(&f, &s).await; });
                                }>{format!("Export {what} PNG")}</button>
                            }
                        }).collect_view()}
                    </div>
                    <h3>"Items"</h3>
                    <VirtualTable label=items_label testid="items-table"
                        columns={item_columns()} rows={dataset.items.len()}
                        cells={item_cells(open.loaded.clone(), human.clone(), cell.scores.scores.clone(), item)}/>
                    {move || item.get().map(|i| view! { <ItemDetail method=method.clone() attribute=attribute.clone() item=i/> })}
                </section>
            }
        })}
    }
}

fn item_columns() -> Vec<VColumn> {
    let col = |title: &str, numeric| VColumn { title: title.to_owned(), numeric };
    vec![
        col("Item", false),
        col("System", false),
        col("Human", true),
        col("Judge", true),
        col("Details", false),
    ]
}

/// The cells of row `i` of a cell's item list (rendered as it scrolls into view).
fn item_cells(
    loaded: Arc<data::Loaded>,
    human: Vec<Option<f64>>,
    judge: Vec<Option<f64>>,
    item: RwSignal<Option<usize>>,
) -> RowCells {
    Arc::new(move |i| {
        let Some(it) = loaded.dataset.items.get(i) else { return ().into_any() };
        let f = |v: Option<&Option<f64>>| {
            v.copied().flatten().map_or("–".into(), |v| format!("{v:.2}"))
        };
        view! {
            <td>{it.id.clone()}</td><td>{it.system_id.clone()}</td>
            <td class="num">{f(human.get(i))}</td><td class="num">{f(judge.get(i))}</td>
            <td><button type="button" class="secondary" aria-label=format!("Show item {}", it.id) on:click=move |_| item.set(Some(i))>"Show"</button></td>
        }
        .into_any()
    })
}

/// Splits `text` around `span` (where the parser read the rating), to highlight it; nothing
/// is marked when the parser read no number.
fn highlight(text: &str, span: Option<std::ops::Range<usize>>) -> (String, String, String) {
    match span.filter(|s| text.get(s.clone()).is_some()) {
        Some(s) => {
            (text[..s.start].to_owned(), text[s.clone()].to_owned(), text[s.end..].to_owned())
        }
        None => (text.to_owned(), String::new(), String::new()),
    }
}

#[component]
fn ItemDetail(method: String, attribute: String, item: usize) -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    let open = ws.dataset.get_untracked();
    let dataset = &open.loaded.dataset;
    let Some(it) = dataset.items.get(item).cloned() else {
        return view! { <p>"No such item."</p> }.into_any();
    };
    let key = it.key();
    let record = wb.runs.with_untracked(|runs| {
        let r = runs.iter().find(|r| r.method == method && r.attribute == attribute)?;
        // By id first (runs made here; ids are unique), else by document and system.
        let records = &r.run.records;
        records
            .iter()
            .find(|rec| matches!(&rec.key, data::RecordKey::Id(id) if *id == it.id))
            .or_else(|| {
                records.iter().find(|rec| matches!(&rec.key, data::RecordKey::Item(k) if *k == key))
            })
            .cloned()
            .map(|rec| (rec, r.policy, r.origin == "study"))
    });
    // A run made here keeps no prompt texts: render the one its study sent.
    let prompt = match &record {
        Some((rec, _, true)) if rec.prompt.is_none() => {
            wb.ran_with.get_value().and_then(|(study, _)| {
                results::study_prompt(dataset, &study, &method, &attribute, item)
            })
        }
        _ => None,
    };
    let index = dataset.attribute_index(&attribute);
    let scale = index.and_then(|i| dataset.attributes.get(i)).map(|a| (a.scale.min, a.scale.max));
    let human = index.and_then(|i| it.ratings.get(i).cloned().flatten());
    view! {
        <div class="item-detail" data-testid="item-detail">
            <h3>{format!("Item {} ({} / {})", it.id, it.document_id, it.system_id)}</h3>
            <p>"Human ratings: "
                {human.map_or("none".into(), |h| {
                    let raters: Vec<String> = h.raters.iter().map(|r| format!("{} {}", r.rater, r.score)).collect();
                    if raters.is_empty() { format!("{} (released aggregate)", h.aggregate) } else { format!("{} (mean of {})", h.aggregate, raters.join(", ")) }
                })}
            </p>
            {match record {
                None => view! { <p class="muted">"This method has no response for this item."</p> }.into_any(),
                Some((rec, policy, _)) => {
                    let score = ItemScore::parse(&rec.responses, policy, scale);
                    view! {
                        <h4>"Prompt"</h4>
                        <pre class="prompt">{rec.prompt.clone().or(prompt).unwrap_or_else(|| "(the file does not include the prompt)".into())}</pre>
                        <h4>{format!("{} responses, mean {}", rec.responses.len(), score.mean.map_or("–".into(), |m| format!("{m:.3}")))}</h4>
                        <ol class="responses">
                            {rec.responses.iter().map(|r| {
                                match policy.read(r, scale) {
                                    Ok(reading) => {
                                        let v = reading.value;
                                        let (before, hit, after) = highlight(r, reading.span);
                                        view! { <li><pre class="response">{before}<mark>{hit}</mark>{after}</pre><span class="badge">{format!("rating {v}")}</span></li> }.into_any()
                                    }
                                    Err(e) => view! { <li><pre class="response">{r.clone()}</pre><span class="badge bad">{format!("unparseable: {e}")}</span></li> }.into_any(),
                                }
                            }).collect_view()}
                        </ol>
                    }.into_any()
                }
            }}
        </div>
    }.into_any()
}

/// The provider and model the runs were made with (a run here, or an imported bundle's), else
/// the Run screen's.
fn priced_model(wb: Workbench) -> (ProviderId, String) {
    let made_with = wb.ran_with.with_value(|r| r.as_ref().and_then(|(_, e)| e.clone()));
    match made_with {
        Some(e) => (e.provider, e.model.trim().to_owned()),
        None => wb.connection.with(|f| (f.provider, f.model.trim().to_owned())),
    }
}

#[component]
fn CostPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let wb = use_workbench();
    view! {
        <section class="panel" aria-labelledby="cost-heading">
            <h2 id="cost-heading">"Cost and quality"</h2>
            <table class="data" data-testid="cost-table">
                <thead><tr><th scope="col">"Method"</th><th scope="col" class="num">"Quality (mean over attributes)"</th><th scope="col" class="num">"Tokens in"</th><th scope="col" class="num">"Tokens out"</th><th scope="col" class="num">"Est. cost"</th><th scope="col" class="num">"Quality per $"</th></tr></thead>
                <tbody>
                    {move || {
                        let (t, _) = table.get();
                        let (statistic, level) = wb.settings.with(|s| s.columns()[0]);
                        let (provider, model) = priced_model(wb);
                        let caps = Capabilities::for_model(provider, &model);
                        let price = PriceTable::shipped().ok().and_then(|(p, _)| p.lookup(provider, &model));
                        let rows = wb.runs.with(|runs| results::cost_quality(&t, runs, statistic, level, caps.samples_per_call(), price));
                        rows.into_iter().map(|r| view! { <tr>
                            <td>{r.method}</td>
                            <td class="num">{r.quality.map_or("–".into(), |q| format!("{q:.3}"))}</td>
                            <td class="num">{r.input_tokens}</td><td class="num">{r.output_tokens}</td>
                            <td class="num">{r.cost_usd.map_or("unknown".into(), |c| format!("${c:.4}"))}</td>
                            <td class="num">{r.quality_per_usd.map_or("–".into(), |q| format!("{q:.1}"))}</td>
                        </tr> }).collect_view()
                    }}
                </tbody>
            </table>
            <p class="muted">
                {move || {
                    let (provider, model) = priced_model(wb);
                    let (statistic, level) = wb.settings.with(|s| s.columns()[0]);
                    format!(
                        "Quality is {} at {}. Tokens are estimated from the prompts and responses (4 characters a token); cost uses the shipped list price of {} on {} ({}).",
                        statistic.label(), level.label(),
                        if model.is_empty() { "(no model)".to_owned() } else { model },
                        provider.preset().name,
                        if wb.ran_with.with_value(|r| r.as_ref().is_some_and(|(_, e)| e.is_some())) { "the model the runs were made with" } else { "the model selected on the Run screen" },
                    )
                }}
            </p>
        </section>
    }
}

#[component]
fn AgreementPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let ws = use_workspace();
    let wb = use_workbench();
    view! {
        <Show when=move || !wb.raters.with(Vec::is_empty)>
            <section class="panel" aria-labelledby="agreement-heading">
                <h2 id="agreement-heading">"Agreement with your ratings"</h2>
                {move || {
                    let open = ws.dataset.get();
                    let dataset = &open.loaded.dataset;
                    let (t, _) = table.get();
                    let raters = wb.raters.get();
                    let mut attributes: Vec<String> = raters.iter().map(|r| r.attribute.clone()).collect();
                    attributes.dedup();
                    attributes.into_iter().filter_map(|attribute| {
                        let mut others: Vec<(String, RaterKind, Vec<Option<f64>>)> = raters.iter().filter(|r| r.attribute == attribute)
                            .map(|r| (r.name.clone(), RaterKind::Student, r.aligned(dataset))).collect();
                        if let Some(a) = t.attributes.iter().position(|x| *x == attribute) {
                            for (m, method) in t.methods.iter().enumerate() {
                                if let Some(c) = t.cell(m, a) { others.push((method.clone(), RaterKind::Judge, c.scores.scores.clone())); }
                            }
                        }
                        let agreement = concord_core::study::workbench::agreement(dataset, &attribute, &others)?;
                        let f = |v: Option<f64>| v.map_or("–".to_owned(), |v| format!("{v:.3}"));
                        Some(view! {
                            <h3>{format!("{attribute}: α among the dataset's raters {}", f(agreement.alpha_humans))}</h3>
                            <table class="data" data-testid="agreement-table">
                                <thead><tr><th scope="col">"Rater"</th><th scope="col">"Kind"</th><th scope="col" class="num">"n"</th><th scope="col" class="num">"r"</th><th scope="col" class="num">"ρ"</th><th scope="col" class="num">"τ-b"</th><th scope="col" class="num">"α with the dataset's raters"</th></tr></thead>
                                <tbody>{agreement.rows.into_iter().map(|r| view! { <tr>
                                    <td>{r.name}</td><td>{format!("{:?}", r.kind).to_lowercase()}</td><td class="num">{r.n}</td>
                                    <td class="num">{f(r.pearson)}</td><td class="num">{f(r.spearman)}</td><td class="num">{f(r.kendall_b)}</td><td class="num">{f(r.alpha_with_humans)}</td>
                                </tr> }).collect_view()}</tbody>
                            </table>
                        })
                    }).collect_view()
                }}
                <p class="muted">"Correlations are with the dataset's human aggregate; α is Krippendorff's (interval) over the dataset's raters plus this one."</p>
            </section>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::highlight;
    use concord_core::judge::parse::Policy;

    fn marked(policy: Policy, text: &str) -> String {
        let span = policy.read(text, Some((1.0, 5.0))).ok().and_then(|r| r.span);
        let (before, hit, after) = highlight(text, span);
        format!("{before}[{hit}]{after}")
    }

    #[test]
    fn marks_where_the_parser_read() {
        assert_eq!(
            marked(Policy::Concord, "Fluency score: 3. Overall rating: 3"),
            "Fluency score: 3. Overall rating: [3]"
        );
        assert_eq!(marked(Policy::CloserLook, "Rating: 3.5"), "Rating: [3].5");
        assert_eq!(
            marked(Policy::Concord, "Of 14 facts, 4 are kept. Score: 4"),
            "Of 14 facts, 4 are kept. Score: [4]"
        );
        assert_eq!(marked(Policy::Concord, "Évaluation — score : 5"), "Évaluation — score : [5]");
        assert_eq!(marked(Policy::Geval, "no number"), "no number[]");
    }
}
