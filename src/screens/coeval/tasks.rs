//! The CoEval screen's async work: restoring the study, logs, cursor and imported files from
//! IndexedDB; importing and forgetting annotator files; reading seed 004's released files
//! (big ones in the loader's Web Worker) and computing their tables a task at a time; the
//! LLM's ideation and instance evaluation through [`crate::run::runner`].

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use concord_core::coeval::released::ReleasedError;
use concord_core::coeval::{self, AnnotatorFile, Event, Log, Reproduction};
use concord_core::judge::coeval::{ideation_prompt, recurrence};
use concord_core::judge::protocol::Sampling;
use concord_core::judge::{ChatRequest, Message};
use concord_core::run::{Finish, cache_key_for, sample_batches};
use concord_core::study::coeval::{Cursor, Evaluation, ReleasedView, Study, resume_cursor};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{
    ANNOTATOR_KEY, CoEvalError, Ctx, IMPORTED_PREFIX, LlmRun, STUDY_KEY, Tab, cursor_key,
};
use crate::edge::files::read_file;
use crate::edge::store::{Store, StoreError, StoreName};
use crate::edge::time::{FrameBudget, yield_now};
use crate::edge::worker::load_buffer_in_worker;
use crate::run::connection::Connection;
use crate::run::runner::{self, CallSpec, RunControl};
use crate::screens::run::state::LlmAccess;

/// Every annotator's log of `task` in `store`, replayed; events that do not read or replay
/// are listed (a log is kept up to its first bad event).
pub async fn read_logs(
    store: &Store,
    task: &str,
) -> Result<(BTreeMap<String, Log>, Vec<String>), StoreError> {
    let prefix = format!("coeval/{task}/");
    let entries = store.get_with_prefix(StoreName::Annotations, &prefix).await?;
    let mut events: BTreeMap<String, Vec<(u64, Event)>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (key, value) in entries {
        let Some((name, seq)) = key.strip_prefix(&prefix).and_then(|r| r.rsplit_once('/')) else {
            continue;
        };
        let Ok(seq) = seq.parse::<u64>() else { continue };
        match serde_json::from_str::<Event>(&value) {
            Ok(e) => events.entry(name.to_owned()).or_default().push((seq, e)),
            Err(e) => problems.push(format!("{key}: {e}")),
        }
    }
    let mut logs = BTreeMap::new();
    for (name, mut list) in events {
        list.sort_by_key(|(seq, _)| *seq);
        let list: Vec<Event> = list.into_iter().map(|(_, e)| e).collect();
        match Log::from_events(list.clone()) {
            Ok(log) => {
                logs.insert(name, log);
            }
            Err((index, e)) => {
                // Keep what replays; say where it stopped.
                problems.push(format!("{name}: saved event {index} does not replay ({e})"));
                let kept = Log::from_events(list[..index].to_vec()).unwrap_or_default();
                logs.insert(name, kept);
            }
        }
    }
    Ok((logs, problems))
}

/// The annotator files a coordinator imported, as `store` keeps them (unreadable entries are
/// left out).
pub async fn read_imported(store: &Store) -> Result<Vec<(String, AnnotatorFile)>, StoreError> {
    let entries = store.get_with_prefix(StoreName::Settings, IMPORTED_PREFIX).await?;
    Ok(entries
        .into_iter()
        .filter_map(|(key, json)| {
            let name = key.strip_prefix(IMPORTED_PREFIX)?.to_owned();
            serde_json::from_str::<AnnotatorFile>(&json).ok().map(|f| (name, f))
        })
        .collect())
}

/// Reads every annotator's log of the study's task and replaces [`Ctx::logs`].
pub async fn load_logs(ctx: Ctx, db: &Store, study: &Study) {
    let (logs, problems) = match read_logs(db, &study.task).await {
        Ok(read) => read,
        Err(error) => {
            ctx.fail(CoEvalError::Read { what: "annotations", error });
            return;
        }
    };
    if !problems.is_empty() {
        ctx.fail(problems.join("; "));
    }
    if ctx.logs.try_set(logs).is_some() {
        return; // the screen was left
    }
    restore_cursor(ctx, db, study).await;
}

/// The saved cursor of the current annotator, else the evaluation of their latest decision.
pub async fn restore_cursor(ctx: Ctx, db: &Store, study: &Study) {
    // The screen may have been left while storage was read.
    let Some(name) = ctx.annotator.try_get_untracked() else { return };
    let saved = db
        .get(StoreName::Settings, &cursor_key(&study.task, &name))
        .await
        .ok()
        .flatten()
        .and_then(|s| serde_json::from_str::<Cursor>(&s).ok());
    if ctx.logs.is_disposed() {
        return;
    }
    let cursor = saved.unwrap_or_else(|| {
        let log = ctx.logs.with_untracked(|m| m.get(&name).cloned().unwrap_or_default());
        let criteria = ctx.stage2_criteria(study);
        resume_cursor(&log, &study.instances, &criteria)
    });
    ctx.cursor.try_set(cursor);
}

/// Opens the store (the app's when it has one, so a bundle's study and this screen share it)
/// and restores the study, the annotator, their logs and cursor. Every write after an
/// `.await` is a `try_`: the screen may have been left (and its signals disposed) while
/// storage was read, and then there is nothing to restore.
pub async fn init(ctx: Ctx, app_store: Option<Store>) {
    let db = match app_store {
        Some(db) => db,
        None => {
            let (db, problem) = Store::open_or_memory().await;
            if let Some(p) = problem {
                ctx.storage_note.try_set(Some(p.to_string()));
            }
            db
        }
    };
    if ctx.store.try_set(Some(db.clone())).is_some() {
        return;
    }
    if let Ok(Some(name)) = db.get(StoreName::Settings, ANNOTATOR_KEY).await
        && ctx.annotator.try_set(name).is_some()
    {
        return;
    }
    let study = match db.get(StoreName::Settings, STUDY_KEY).await {
        Ok(Some(json)) => serde_json::from_str::<Study>(&json).ok(),
        _ => None,
    };
    // A coordinator's imported annotator files come back too (they are kept as imported).
    if let Ok(files) = read_imported(&db).await
        && !files.is_empty()
        && ctx.imported.try_set(files).is_some()
    {
        return;
    }
    if let Some(study) = study {
        let study = Arc::new(study);
        if ctx.study.try_set(Some(study.clone())).is_some() {
            return;
        }
        load_logs(ctx, &db, &study).await;
        ctx.tab.try_set(Tab::Instances);
    }
    ctx.ready.try_set(true);
}

/// Forgets the imported annotator files, here and in this browser's storage. Every stored
/// entry under the prefix goes, also those that could not be read back.
pub fn forget_imported(ctx: Ctx, import_errors: RwSignal<Vec<String>>) {
    ctx.imported.set(Vec::new());
    import_errors.set(Vec::new());
    let Some(db) = ctx.store.get_untracked() else { return };
    // Counted like every write, so "All actions saved" waits for it.
    ctx.pending.update(|n| *n += 1);
    leptos::task::spawn_local(async move {
        let forgotten = async {
            for key in db.keys_with_prefix(StoreName::Settings, IMPORTED_PREFIX).await? {
                db.delete(StoreName::Settings, &key).await?;
            }
            Ok::<(), StoreError>(())
        };
        if let Err(e) = forgotten.await {
            ctx.fail(format!(
                "the imported files could not be removed from this browser's storage: {e}"
            ));
        }
        ctx.pending.try_update(|n| *n = n.saturating_sub(1));
    });
}

/// Reads annotator (or classroom) files a coordinator picked, keeps them in this browser and
/// adds them to [`Ctx::imported`]; problems go to `import_errors`.
pub async fn import_annotator_files(
    ctx: Ctx,
    files: Vec<web_sys::File>,
    import_errors: RwSignal<Vec<String>>,
) {
    let mut errors = Vec::new();
    let mut added = Vec::new();
    for file in files {
        let name = file.name();
        match read_file(&file).await {
            Ok(bytes) => match coeval::import(&bytes) {
                Ok(list) => added.extend(list.into_iter().map(|f| (name.clone(), f))),
                Err(e) => errors.push(format!("{name}: {e}")),
            },
            Err(e) => errors.push(e),
        }
    }
    let task = ctx.study.try_get_untracked().flatten().map(|s| s.task.clone()).unwrap_or_default();
    for (name, f) in &added {
        if f.scope != task {
            errors.push(format!(
                "{name}: annotator {} worked on task `{}`, not the current task `{task}`; kept but not merged",
                f.person, f.scope
            ));
        }
    }
    import_errors.try_set(errors);
    // Kept in this browser as imported, so a reload does not ask for them again.
    let entries: Vec<(String, String)> = added
        .iter()
        .filter_map(|(name, f)| {
            serde_json::to_string(f).ok().map(|json| (format!("{IMPORTED_PREFIX}{name}"), json))
        })
        .collect();
    ctx.write(StoreName::Settings, entries);
    ctx.imported.try_update(|v| {
        // A file imported again replaces its earlier copy.
        v.retain(|(name, _)| !added.iter().any(|(n, _)| n == name));
        v.extend(added);
    });
}

/// Files at least this big are parsed in a Web Worker (a 3 MB session log takes well over
/// 100 ms to parse on the page's thread).
const IN_WORKER_FROM_BYTES: f64 = 256.0 * 1024.0;

/// Reads seed 004's released files into a new reproduction and has the view computed again.
pub async fn import_released(ctx: Ctx, files: Vec<web_sys::File>) {
    let released = ctx.released;
    let mut r = Reproduction::new();
    let mut errors = Vec::new();
    let n = files.len();
    for (k, file) in files.into_iter().enumerate() {
        // A folder pick keeps the released folder names (ELI5/, ROCStories/…), which tell
        // the task of files without a task prefix.
        let relative = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
            .ok()
            .and_then(|v| v.as_string())
            .filter(|p| !p.is_empty());
        let path = relative.unwrap_or_else(|| file.name());
        released.busy.try_set(Some(format!("Reading {path} ({} of {n})…", k + 1)));
        // Let the status paint before the file is read.
        yield_now().await;
        // Big files (the session logs are about 3 MB each) are parsed in the loader's Web
        // Worker, so the page keeps responding; small ones here.
        if Reproduction::reads_with_loader(&path) && file.size() > IN_WORKER_FROM_BYTES {
            let buffer = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
                Ok(b) => b.unchecked_into::<js_sys::ArrayBuffer>(),
                Err(e) => {
                    errors.push(format!("the browser could not read {path}: {e:?}"));
                    continue;
                }
            };
            released
                .busy
                .try_set(Some(format!("Parsing {path} in the background ({} of {n})…", k + 1)));
            match load_buffer_in_worker(path.clone(), buffer, |_| {}).await {
                Ok(loaded) => {
                    if let Err(e) = r.add_loaded(&path, &loaded) {
                        errors.push(e.to_string());
                    }
                }
                Err(message) => {
                    errors.push(
                        ReleasedError::Load { file: path.clone(), message: message.to_string() }
                            .to_string(),
                    );
                }
            }
            continue;
        }
        match read_file(&file).await {
            Ok(bytes) => {
                if let Err(e) = r.add(&path, &bytes) {
                    errors.push(e.to_string());
                }
            }
            Err(e) => errors.push(e),
        }
    }
    errors.extend(r.diagnostics.iter().map(ToString::to_string));
    released.busy.try_set(Some("Computing…".to_owned()));
    yield_now().await;
    if released.reproduction.try_set_value(Some(r)).is_some() {
        return; // the screen is gone
    }
    released.problems.try_set(errors);
    released.version.try_update(|v| *v += 1);
    released.busy.try_set(None);
}

/// Computes the released files' view at the current α level, one task at a time within the
/// frame budget, so a big import or a level switch never blocks the page for long; a newer
/// computation (another import, another level) makes this one stop.
pub async fn compute_released(ctx: Ctx) {
    let released = ctx.released;
    let Some(level) = ctx.level.try_get_untracked() else { return };
    released.generation.update_value(|g| *g += 1);
    let mine = released.generation.get_value();
    let current = move || released.generation.try_get_value() == Some(mine);
    let Some(tasks) =
        released.reproduction.try_with_value(|r| r.as_ref().map(|r| r.task_names())).flatten()
    else {
        return;
    };
    let Some(mut view) = released
        .reproduction
        .try_with_value(|r| r.as_ref().map(|r| ReleasedView::start(r, level)))
        .flatten()
    else {
        return;
    };
    let mut budget = FrameBudget::new();
    // Start after the event that asked for it, so the page shows the choice first.
    budget.yield_now().await;
    for task in tasks {
        if !current() {
            return;
        }
        let added = released
            .reproduction
            .try_with_value(|r| r.as_ref().map(|r| view.add_task(r, task)))
            .flatten();
        if added.is_none() {
            return;
        }
        budget.tick().await;
    }
    if !current() {
        return;
    }
    let view = Some(Arc::new(view));
    released.view.try_set(view);
}

fn call(connection: &Connection, request: ChatRequest) -> CallSpec {
    let key = cache_key_for(&connection.endpoint, &connection.caps, &request, 0);
    CallSpec::single(request, key)
}

/// Runs `calls` and returns the stored text of each first sample, by cache key.
async fn run_calls(
    wb: LlmAccess,
    ctx: Ctx,
    connection: Connection,
    calls: Vec<CallSpec>,
    run: LlmRun,
    control: RunControl,
) -> Option<HashMap<String, String>> {
    let store = ctx.store.try_get_untracked().flatten()?;
    let memory = wb.memory.get_value();
    let status = run.status;
    let provider = connection.endpoint.provider;
    let outcome = runner::execute(connection, &calls, store, memory.clone(), control, move |r| {
        status.try_set(Some(format!(
            "{} of {} calls done, {} cached, {} failed",
            r.progress.done, r.progress.total, r.cached, r.progress.failed
        )));
    })
    .await;
    // The one wording of how a run ended, shared with the Run screen.
    if !matches!(outcome.finish, Finish::Completed) {
        let said = outcome.finish.describe(provider);
        ctx.fail(match said.advice {
            Some(advice) => format!("{} {advice}", said.message),
            None => said.message,
        });
    }
    let texts = memory.borrow().clone();
    Some(texts)
}

/// The calls of `samples` ideation answers (one request with `n = samples`, split as the
/// provider allows) and the cache key of each sample, in order.
fn ideation_calls(
    study: &Study,
    connection: &Connection,
    samples: u32,
    temperature: Option<f64>,
) -> (Vec<CallSpec>, Vec<String>) {
    let sampling = Sampling { n: samples, temperature, ..Sampling::single() };
    let request =
        sampling.request("coeval/ideation", vec![Message::user(ideation_prompt(&study.info))]);
    let keys: Vec<String> = (0..samples)
        .map(|i| cache_key_for(&connection.endpoint, &connection.caps, &request, i))
        .collect();
    let (request, prompt_keys) = (Arc::new(request), Arc::<[String]>::from(keys.clone()));
    let calls = sample_batches(samples, &connection.caps)
        .into_iter()
        .map(|b| CallSpec {
            request: request.clone(),
            samples: b,
            prompt_keys: prompt_keys.clone(),
        })
        .collect();
    (calls, keys)
}

/// Asks the LLM (the run [`LlmRun::start`]ed) for the task's criteria `samples` times; one answer becomes the criteria, several
/// are kept with the study and their recurrence shown.
pub async fn ideate(
    wb: LlmAccess,
    ctx: Ctx,
    study: Arc<Study>,
    connection: Connection,
    samples: u32,
    temperature: Option<f64>,
    run: LlmRun,
) {
    let control = run.control.get_value();
    let (calls, keys) = ideation_calls(&study, &connection, samples, temperature);
    if let Some(texts) = run_calls(wb, ctx, connection, calls, run, control).await {
        let answers: Vec<String> = keys.iter().filter_map(|k| texts.get(k).cloned()).collect();
        match study.with_ideation(answers, samples) {
            Ok(next) if samples == 1 => {
                ctx.replace_study(next);
                run.recurring.try_set(None);
                run.status.try_set(Some("Criteria ideated: scrutinise them below.".to_owned()));
            }
            Ok(next) => {
                let lists = next.ideation_lists();
                let got = lists.len();
                run.min_samples.try_set(got.div_ceil(2));
                run.recurring.try_set(Some((got, recurrence(&lists))));
                run.status.try_set(Some(format!(
                    "{got} of {samples} ideation answers received: see how often each criterion recurs below."
                )));
                ctx.replace_study(next);
            }
            Err(e) => ctx.fail(e),
        }
    }
    run.busy.try_set(false);
    run.paused.try_set(false);
}

/// Asks the LLM (the run [`LlmRun::start`]ed) for every evaluation it has not made yet (stage-2 criteria), and keeps the
/// answers with the study.
pub async fn evaluate(
    wb: LlmAccess,
    ctx: Ctx,
    study: Arc<Study>,
    connection: Connection,
    run: LlmRun,
) {
    let control = run.control.get_value();
    let criteria = ctx.stage2_criteria(&study);
    let sampling = Sampling::single();
    let (specs, targets): (Vec<CallSpec>, Vec<(String, String)>) = study
        .missing_evaluations(&criteria)
        .into_iter()
        .map(|t| {
            let tag = format!("coeval/{}/{}", t.instance, t.criterion);
            let request = sampling.request(tag, vec![Message::user(t.prompt)]);
            (call(&connection, request), (t.instance, t.criterion))
        })
        .unzip();
    if specs.is_empty() {
        run.status.try_set(Some(
            "Every instance already has the LLM's evaluation on every criterion.".to_owned(),
        ));
        run.busy.try_set(false);
        return;
    }
    let keys: Vec<String> = specs.iter().map(|s| s.keys()[0].clone()).collect();
    if let Some(texts) = run_calls(wb, ctx, connection, specs, run, control).await {
        let mut next: Study = (*study).clone();
        let mut n = 0;
        for (key, (instance, criterion)) in keys.iter().zip(targets) {
            if let Some(text) = texts.get(key) {
                next.set_evaluation(Evaluation::from_response(&instance, &criterion, text));
                n += 1;
            }
        }
        ctx.replace_study(next);
        run.status.try_set(Some(format!(
            "{} received.",
            concord_core::report::count(n, "evaluation", "evaluations")
        )));
    }
    run.busy.try_set(false);
    run.paused.try_set(false);
}
