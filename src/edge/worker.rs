//! Loading a dataset without freezing the page: `concord_core::data::load` runs in a module
//! Web Worker (`worker.js` beside `index.html`, which instantiates this same wasm module and
//! calls [`worker_main`]), and the result comes back as postcard-encoded frames.
//!
//! The protocol (one worker per load, terminated after it):
//!
//! 1. worker → page: `{kind: "ready"}` once its wasm runs, or `{kind: "unavailable", message}`;
//! 2. page → worker: `{name, bytes: ArrayBuffer, mapping?: string}`, the buffer transferred
//!    (not copied); `mapping` is a `ColumnMapping` as JSON, for re-reading a tabular file with
//!    the mapping edited on the Data screen (`data::load_with_mapping`);
//! 3. worker → page: `{kind: "progress", stage: "parsing"}`;
//! 4. worker → page: `{kind: "done", frames: [ArrayBuffer]}` (transferred) or
//!    `{kind: "error", message}` (the file's problem: `LoadError`'s message).
//!
//! When the worker cannot start (no module workers, `worker.js` missing, wasm refused in the
//! worker) the bytes were not handed over yet and the load falls back to the main thread,
//! after yielding once so the progress the caller shows gets painted. The frames are a header
//! and chunks of 256 items or judge records (postcard: strings and numbers, no field names);
//! the page copies and decodes them one at a time and yields to the browser every ~25 ms.
//! `tests/e2e/edge.test.mjs` prints the figures (longest main-thread task, total time) for a
//! 30 MB file, worker vs main thread.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use concord_core::data::{
    self, Attribute, ColumnInfo, ColumnMapping, Dataset, Diagnostic, Format, JudgeRecord, JudgeRun,
    Loaded, OpenEndedTask, PairwiseItem, RatingItem, ReviewAction, Severity, Summary,
};
use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::{js, time};

/// The worker script, relative to the page (so the site works under any sub-path).
pub const WORKER_SCRIPT: &str = "worker.js";

/// Where a load is, for a progress indicator. The core's `load` is one synchronous call, so
/// there is no percentage: stages only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadStage {
    /// The worker is being started (it downloads and compiles the wasm module, cached).
    StartingWorker,
    /// The file is being parsed; `in_worker` is false on the main-thread fallback (the page
    /// does not respond until it is done).
    Parsing { in_worker: bool },
    /// The worker finished; the page is decoding its result.
    Receiving,
}

/// Loads `bytes` as `name` in a Web Worker, falling back to the main thread when workers are
/// unavailable. `Err` carries the loader's message (`LoadError`'s Display) or, rarely, why the
/// worker died midway (e.g. out of memory). Costs one copy of the bytes on the page (into a
/// buffer the worker takes over); [`load_buffer_in_worker`] avoids even that.
pub async fn load_in_worker(
    name: String,
    bytes: Vec<u8>,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, String> {
    load_with_mapping_in_worker(name, bytes, None, on_progress).await
}

/// Like [`load_in_worker`], reading a tabular file with `mapping` instead of the guessed one
/// (`None`: the guess).
pub async fn load_with_mapping_in_worker(
    name: String,
    bytes: Vec<u8>,
    mapping: Option<ColumnMapping>,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, String> {
    let source = Uint8Array::from(bytes.as_slice());
    drop(bytes);
    load_js(&name, source, mapping.as_ref(), Rc::new(RefCell::new(on_progress))).await
}

/// Like [`load_in_worker`], for bytes still in a JS `ArrayBuffer` (e.g. from
/// `File.arrayBuffer()`): the buffer is handed to the worker without being copied, and is
/// detached (empty) afterwards unless the load fell back to the main thread.
pub async fn load_buffer_in_worker(
    name: String,
    buffer: ArrayBuffer,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, String> {
    load_buffer_with_mapping_in_worker(name, buffer, None, on_progress).await
}

/// Like [`load_buffer_in_worker`], with a column mapping (see [`load_with_mapping_in_worker`]).
pub async fn load_buffer_with_mapping_in_worker(
    name: String,
    buffer: ArrayBuffer,
    mapping: Option<ColumnMapping>,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, String> {
    let progress: Progress = Rc::new(RefCell::new(on_progress));
    load_js(&name, Uint8Array::new(&buffer), mapping.as_ref(), progress).await
}

/// Loads on the calling thread (the fallback; also what a worker runs). Blocks for as long as
/// the load takes.
pub fn load_on_main_thread(name: &str, bytes: &[u8]) -> Result<Loaded, String> {
    load_with_mapping_on_main_thread(name, bytes, None)
}

/// [`load_on_main_thread`] with a column mapping (`None`: the guess).
pub fn load_with_mapping_on_main_thread(
    name: &str,
    bytes: &[u8],
    mapping: Option<&ColumnMapping>,
) -> Result<Loaded, String> {
    data::load_with_mapping(name, bytes, mapping).map_err(|e| e.to_string())
}

type Progress = Rc<RefCell<dyn FnMut(LoadStage)>>;

fn report(on_progress: &Progress, stage: LoadStage) {
    if let Ok(mut f) = on_progress.try_borrow_mut() {
        f(stage);
    }
}

async fn load_js(
    name: &str,
    source: Uint8Array,
    mapping: Option<&ColumnMapping>,
    on_progress: Progress,
) -> Result<Loaded, String> {
    report(&on_progress, LoadStage::StartingWorker);
    let mapping_json = match mapping.map(serde_json::to_string).transpose() {
        Ok(json) => json,
        Err(e) => return Err(format!("the column mapping could not be written: {e}")),
    };
    // Transfer the buffer when the bytes fill it, copy them out otherwise.
    let buffer = source.buffer();
    let whole = source.byte_offset() == 0 && source.byte_length() == buffer.byte_length();
    let buffer = if whole { buffer } else { Uint8Array::new(&source).buffer() };
    let request = Object::new();
    let _ = Reflect::set(&request, &"name".into(), &JsValue::from_str(name));
    let _ = Reflect::set(&request, &"bytes".into(), &buffer);
    if let Some(mapping) = &mapping_json {
        let _ = Reflect::set(&request, &"mapping".into(), &JsValue::from_str(mapping));
    }
    let parsing = {
        let on_progress = on_progress.clone();
        move || report(&on_progress, LoadStage::Parsing { in_worker: true })
    };
    match run_job(&request, &Array::of1(&buffer), parsing).await {
        JobOutcome::Done(message) => {
            report(&on_progress, LoadStage::Receiving);
            time::yield_now().await;
            let frames: Array = js::property(&message, "frames").unchecked_into();
            decode_frames_yielding(&frames).await
        }
        JobOutcome::Failed(why) => Err(why),
        JobOutcome::Unavailable(_why) => {
            report(&on_progress, LoadStage::Parsing { in_worker: false });
            time::yield_now().await;
            load_with_mapping_on_main_thread(name, &source.to_vec(), mapping)
        }
    }
}

/// How a worker job ended.
pub(crate) enum JobOutcome {
    /// The worker's `{kind: "done", …}` message.
    Done(JsValue),
    /// The job's own error (`{kind: "error", message}`), or the worker died midway.
    Failed(String),
    /// The worker could not start; nothing was handed over (do the job here).
    Unavailable(String),
}

/// Messages (`Ok`) and error events (`Err`) from the worker, in arrival order.
#[derive(Default)]
struct Mailbox {
    queue: VecDeque<Result<JsValue, String>>,
    waker: Option<Waker>,
}

impl Mailbox {
    fn push(mailbox: &RefCell<Mailbox>, item: Result<JsValue, String>) {
        let mut m = mailbox.borrow_mut();
        m.queue.push_back(item);
        if let Some(waker) = m.waker.take() {
            waker.wake();
        }
    }
}

/// The next message of a [`Mailbox`].
struct Next<'a>(&'a RefCell<Mailbox>);

impl Future for Next<'_> {
    type Output = Result<JsValue, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut m = self.0.borrow_mut();
        match m.queue.pop_front() {
            Some(item) => Poll::Ready(item),
            None => {
                m.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

fn kind_of(message: &JsValue) -> String {
    js::property(message, "kind").as_string().unwrap_or_default()
}

/// Runs one job in a new worker: waits for it to be ready, posts `request` (transferring
/// `transfer`), calls `on_progress` for each progress message and returns its answer. The
/// worker is terminated afterwards.
pub(crate) async fn run_job(
    request: &Object,
    transfer: &Array,
    mut on_progress: impl FnMut(),
) -> JobOutcome {
    let Some(url) = worker_url() else {
        return JobOutcome::Unavailable("no document to resolve worker.js against".into());
    };
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = match Worker::new_with_options(&url, &options) {
        Ok(w) => w,
        Err(e) => return JobOutcome::Unavailable(js::error_message(&e)),
    };
    let mailbox = Rc::new(RefCell::new(Mailbox::default()));
    let on_message = {
        let mailbox = mailbox.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            Mailbox::push(&mailbox, Ok(event.data()));
        })
    };
    // A script that fails to load or throws at the top level; also a worker killed midway.
    let on_error = {
        let mailbox = mailbox.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |event: web_sys::Event| {
            event.prevent_default();
            let message = js::property(&event, "message")
                .as_string()
                .unwrap_or_else(|| "the worker stopped".to_owned());
            Mailbox::push(&mailbox, Err(message));
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let outcome = converse(&worker, &mailbox, request, transfer, &mut on_progress).await;
    worker.terminate();
    // The handlers must outlive every event they can receive: terminated, none are left.
    drop((on_message, on_error));
    outcome
}

async fn converse(
    worker: &Worker,
    mailbox: &RefCell<Mailbox>,
    request: &Object,
    transfer: &Array,
    on_progress: &mut impl FnMut(),
) -> JobOutcome {
    // The request goes over only once the worker's wasm runs, so a worker that cannot start
    // leaves its buffers here for the main-thread fallback.
    match Next(mailbox).await {
        Ok(m) if kind_of(&m) == "ready" => {}
        Ok(m) => {
            let why = js::property(&m, "message").as_string().unwrap_or_else(|| kind_of(&m));
            return JobOutcome::Unavailable(why);
        }
        Err(why) => return JobOutcome::Unavailable(why),
    }
    if let Err(e) = worker.post_message_with_transfer(request, transfer) {
        return JobOutcome::Unavailable(js::error_message(&e));
    }
    loop {
        let message = match Next(mailbox).await {
            Ok(message) => message,
            Err(why) => return JobOutcome::Failed(format!("the work stopped midway: {why}")),
        };
        match kind_of(&message).as_str() {
            "progress" => on_progress(),
            "done" => return JobOutcome::Done(message),
            _ => {
                let why = js::property(&message, "message")
                    .as_string()
                    .unwrap_or_else(|| "the worker could not do it".to_owned());
                return JobOutcome::Failed(why);
            }
        }
    }
}

/// `worker.js` resolved against the document's base URL.
fn worker_url() -> Option<String> {
    let document = web_sys::window()?.document()?;
    let base = document.base_uri().ok()??;
    web_sys::Url::new_with_base(WORKER_SCRIPT, &base).ok().map(|u| u.href())
}

/// The worker's entry point, called by `worker.js` for each message. Never call it on the
/// page: it posts to the worker's global scope.
#[wasm_bindgen]
pub fn worker_main(message: JsValue) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    match js::property(&message, "op").as_string().as_deref() {
        Some("bundle-open") => return super::bundle_wire::open_job(&scope, &message),
        Some("bundle-save") => return super::bundle_wire::save_job(&scope, &message),
        _ => {}
    }
    let name = js::property(&message, "name").as_string().unwrap_or_default();
    let bytes = Uint8Array::new(&js::property(&message, "bytes")).to_vec();
    let progress = Object::new();
    let _ = Reflect::set(&progress, &"kind".into(), &"progress".into());
    let _ = Reflect::set(&progress, &"stage".into(), &"parsing".into());
    let _ = scope.post_message(&progress);

    let reply = Object::new();
    let mapping = match js::property(&message, "mapping").as_string() {
        None => Ok(None),
        Some(json) => serde_json::from_str::<ColumnMapping>(&json)
            .map(Some)
            .map_err(|e| format!("the column mapping could not be read: {e}")),
    };
    let result = mapping.and_then(|m| {
        data::load_with_mapping(&name, &bytes, m.as_ref()).map_err(|e| e.to_string())
    });
    match result.and_then(|l| encode(&l)) {
        Ok(frames) => {
            drop(bytes);
            let buffers = Array::new();
            for frame in frames {
                buffers.push(&Uint8Array::from(frame.as_slice()).buffer());
            }
            let _ = Reflect::set(&reply, &"kind".into(), &"done".into());
            let _ = Reflect::set(&reply, &"frames".into(), &buffers);
            let _ = scope.post_message_with_transfer(&reply, &buffers);
        }
        Err(message) => {
            let _ = Reflect::set(&reply, &"kind".into(), &"error".into());
            let _ = Reflect::set(&reply, &"message".into(), &JsValue::from_str(&message));
            let _ = scope.post_message(&reply);
        }
    }
}

/// [`Loaded`] on the wire: a header, then the items, pairs and judge records in chunks, each
/// a postcard value, concatenated. Chunks let the page decode in slices and yield between
/// them, so even a very large result never decodes in one long task.
///
/// postcard is not self-describing, so every field is always written (the core's `Diagnostic`
/// skips `None`s when serialized, hence its mirror here); `*Ref` types encode borrowed data
/// and their owned twins decode it, field for field and variant for variant.
#[derive(Serialize)]
struct HeaderRef<'a> {
    format: Format,
    name: &'a str,
    attributes: &'a [Attribute],
    tasks: &'a [OpenEndedTask],
    actions: &'a [ReviewAction],
    mapping: &'a Option<ColumnMapping>,
    columns: &'a [ColumnInfo],
    diagnostics: Vec<WireDiagnostic>,
    summary: &'a Summary,
    /// (name, attribute) of each run; their records come in chunks.
    runs: Vec<(&'a str, &'a Option<String>)>,
}

#[derive(Deserialize)]
struct Header {
    format: Format,
    name: String,
    attributes: Vec<Attribute>,
    tasks: Vec<OpenEndedTask>,
    actions: Vec<ReviewAction>,
    mapping: Option<ColumnMapping>,
    columns: Vec<ColumnInfo>,
    diagnostics: Vec<WireDiagnostic>,
    summary: Summary,
    runs: Vec<(String, Option<String>)>,
}

#[derive(Serialize)]
pub(crate) enum ChunkRef<'a> {
    Items(&'a [RatingItem]),
    Pairs(&'a [PairwiseItem]),
    Records { run: u32, records: &'a [JudgeRecord] },
    End,
}

#[derive(Deserialize)]
pub(crate) enum Chunk {
    Items(Vec<RatingItem>),
    Pairs(Vec<PairwiseItem>),
    Records { run: u32, records: Vec<JudgeRecord> },
    End,
}

#[derive(Serialize, Deserialize)]
struct WireDiagnostic {
    severity: Severity,
    file: String,
    line: Option<usize>,
    field: Option<String>,
    message: String,
}

/// Items (or pairs, or records) per chunk: a few milliseconds of decoding each.
pub(crate) const CHUNK: usize = 256;

/// Encodes a load result for the trip from the worker, as frames: the header, then chunks,
/// then the end marker (exposed for tests).
pub fn encode(loaded: &Loaded) -> Result<Vec<Vec<u8>>, String> {
    let fail = |e: postcard::Error| format!("could not encode the loaded dataset: {e}");
    let header = HeaderRef {
        format: loaded.format,
        name: &loaded.dataset.name,
        attributes: &loaded.dataset.attributes,
        tasks: &loaded.dataset.tasks,
        actions: &loaded.dataset.actions,
        mapping: &loaded.mapping,
        columns: &loaded.columns,
        diagnostics: loaded
            .diagnostics
            .iter()
            .map(|d| WireDiagnostic {
                severity: d.severity,
                file: d.file.clone(),
                line: d.line,
                field: d.field.clone(),
                message: d.message.clone(),
            })
            .collect(),
        summary: &loaded.summary,
        runs: loaded.runs.iter().map(|r| (r.name.as_str(), &r.attribute)).collect(),
    };
    let mut frames = vec![postcard::to_allocvec(&header).map_err(fail)?];
    let mut push = |chunk: ChunkRef<'_>| -> Result<(), String> {
        frames.push(postcard::to_allocvec(&chunk).map_err(fail)?);
        Ok(())
    };
    for items in loaded.dataset.items.chunks(CHUNK) {
        push(ChunkRef::Items(items))?;
    }
    for pairs in loaded.dataset.pairs.chunks(CHUNK) {
        push(ChunkRef::Pairs(pairs))?;
    }
    for (run, judge_run) in loaded.runs.iter().enumerate() {
        let run = u32::try_from(run).map_err(|_| "too many judge runs".to_owned())?;
        for records in judge_run.records.chunks(CHUNK) {
            push(ChunkRef::Records { run, records })?;
        }
    }
    push(ChunkRef::End)?;
    Ok(frames)
}

/// Decodes what [`encode`] produced, in one go.
pub fn decode(frames: &[Vec<u8>]) -> Result<Loaded, String> {
    let (header, chunks) = frames.split_first().ok_or_else(|| decode_error("no frames"))?;
    let mut decoder = Decoder::new(header)?;
    for chunk in chunks {
        if decoder.step(chunk)? {
            return Ok(decoder.loaded);
        }
    }
    Err(decode_error("it ends before its end marker"))
}

/// Decodes the worker's frames (`ArrayBuffer`s), copying each into wasm memory only when its
/// turn comes and yielding to the browser every ~25 ms.
async fn decode_frames_yielding(frames: &Array) -> Result<Loaded, String> {
    let frame = |i: u32| Uint8Array::new(&frames.get(i)).to_vec();
    let mut decoder = Decoder::new(&frame(0))?;
    let mut slice_start = time::monotonic_ms();
    for i in 1..frames.length() {
        if decoder.step(&frame(i))? {
            return Ok(decoder.loaded);
        }
        if time::monotonic_ms() - slice_start > 25.0 {
            time::yield_now().await;
            slice_start = time::monotonic_ms();
        }
    }
    Err(decode_error("it ends before its end marker"))
}

struct Decoder {
    loaded: Loaded,
}

fn decode_error(e: impl std::fmt::Display) -> String {
    format!("the worker's result could not be decoded: {e}")
}

impl Decoder {
    fn new(header: &[u8]) -> Result<Decoder, String> {
        let header: Header = postcard::from_bytes(header).map_err(decode_error)?;
        let loaded = Loaded {
            format: header.format,
            dataset: Dataset {
                name: header.name,
                attributes: header.attributes,
                items: Vec::with_capacity(header.summary.counts.items),
                pairs: Vec::with_capacity(header.summary.counts.pairs),
                tasks: header.tasks,
                actions: header.actions,
            },
            runs: header
                .runs
                .into_iter()
                .map(|(name, attribute)| JudgeRun { name, attribute, records: Vec::new() })
                .collect(),
            mapping: header.mapping,
            columns: header.columns,
            diagnostics: header
                .diagnostics
                .into_iter()
                .map(|d| Diagnostic {
                    severity: d.severity,
                    file: d.file,
                    line: d.line,
                    field: d.field,
                    message: d.message,
                })
                .collect(),
            summary: header.summary,
        };
        Ok(Decoder { loaded })
    }

    /// Decodes one chunk frame; true once it was the end marker.
    fn step(&mut self, frame: &[u8]) -> Result<bool, String> {
        match postcard::from_bytes::<Chunk>(frame).map_err(decode_error)? {
            Chunk::Items(items) => self.loaded.dataset.items.extend(items),
            Chunk::Pairs(pairs) => self.loaded.dataset.pairs.extend(pairs),
            Chunk::Records { run, records } => {
                let run = usize::try_from(run).ok().and_then(|r| self.loaded.runs.get_mut(r));
                match run {
                    Some(run) => run.records.extend(records),
                    None => return Err(decode_error("a chunk names a judge run it does not have")),
                }
            }
            Chunk::End => return Ok(true),
        }
        Ok(false)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use concord_core::example::{EXAMPLE_CSV, EXAMPLE_NAME};

    /// A load result survives the trip through the wire format unchanged.
    fn check(name: &str, bytes: &[u8]) {
        let loaded = data::load(name, bytes).unwrap();
        let decoded = decode(&encode(&loaded).unwrap()).unwrap();
        assert_eq!(decoded, loaded, "{name}");
    }

    #[test]
    fn load_results_round_trip() {
        check(EXAMPLE_NAME, EXAMPLE_CSV.as_bytes());
        // Diagnostics with and without line and field (the fields serde skips when None).
        let broken = concat!(
            r#"{"doc_id":"d1","system_id":"s1","source":"A","output":"B","coherence":4}"#,
            "\n{not json\n",
            r#"{"doc_id":"d2","system_id":"s1","source":"C","output":"D","coherence":5}"#,
            "\n"
        );
        let loaded = data::load("broken.jsonl", broken.as_bytes()).unwrap();
        assert!(loaded.diagnostics.iter().any(|d| d.line.is_some()), "{:?}", loaded.diagnostics);
        assert!(loaded.diagnostics.iter().any(|d| d.line.is_none() || d.field.is_none()));
        check("broken.jsonl", broken.as_bytes());
        // A released shape with judge runs (raw responses, parsed scores).
        let chiang = r#"[{"source":"s","context":"c","system_id":"sys","system_output":"o","scores":{"naturalness":2.0},
            "prompt":"p","all_responses":["Rating: 2","Rating: 3"]}]"#;
        check("gpt3.5_nat_results.json", chiang.as_bytes());
        // Several chunks of items (CHUNK = 256).
        let mut many = String::from("doc_id,system_id,source,output,coherence\n");
        for i in 0..600 {
            many.push_str(&format!("d{i},s{},source {i},output {i},{}\n", i % 3, 1 + i % 5));
        }
        check("many.csv", many.as_bytes());
        // A load with an edited mapping: the mapping and the column list survive too.
        let mut mapping = data::example_mapping();
        mapping.ratings.truncate(2);
        let mapped =
            data::load_with_mapping(EXAMPLE_NAME, EXAMPLE_CSV.as_bytes(), Some(&mapping)).unwrap();
        assert!(!mapped.columns.is_empty());
        let decoded = decode(&encode(&mapped).unwrap()).unwrap();
        assert_eq!(decoded, mapped);
        assert_eq!(decoded.mapping, Some(mapping));
    }

    #[test]
    fn a_damaged_payload_is_an_error_not_a_panic() {
        let mut frames =
            encode(&data::load(EXAMPLE_NAME, EXAMPLE_CSV.as_bytes()).unwrap()).unwrap();
        let err = decode(&frames[..frames.len() - 1]).unwrap_err();
        assert!(err.contains("ends before its end marker"), "{err}");
        let items = &mut frames[1];
        items.truncate(items.len() / 2);
        let err = decode(&frames).unwrap_err();
        assert!(err.contains("could not be decoded"), "{err}");
    }
}
