//! Loading a dataset without freezing the page: `concord_core::data::load` runs in the
//! loader's Web Worker ([`super::protocol`]), and the [`Loaded`] comes back as postcard frames
//! (a header, then chunks of 256 items, pairs or judge records) that the page decodes a slice
//! at a time. The request is `{name, bytes: ArrayBuffer, mapping?: string}` (`mapping`: a
//! `ColumnMapping` as JSON, for re-reading a tabular file with the mapping edited on the Data
//! screen). When the worker cannot start the load runs on the main thread, after yielding
//! once so the progress the caller shows gets painted. `tests/e2e/edge.test.mjs` prints the
//! figures (longest main-thread task, total time) for a 30 MB file, worker vs main thread.

use std::cell::RefCell;
use std::rc::Rc;

use concord_core::data::{
    self, Attribute, ColumnInfo, ColumnMapping, Dataset, Diagnostic, Format, JudgeRun, Loaded,
    OpenEndedTask, ReviewAction, Severity, Summary,
};
use js_sys::{Array, ArrayBuffer, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use super::protocol::{
    CHUNK, Chunk, ChunkRef, JobOutcome, WorkerError, buffers_of, call_split, post_done, post_error,
    post_progress, run_job, whole_buffer,
};
use crate::edge::js;
use crate::edge::time::{self, FrameBudget};

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
) -> Result<Loaded, WorkerError> {
    load_with_mapping_in_worker(name, bytes, None, on_progress).await
}

/// Like [`load_in_worker`], reading a tabular file with `mapping` instead of the guessed one
/// (`None`: the guess).
pub async fn load_with_mapping_in_worker(
    name: String,
    bytes: Vec<u8>,
    mapping: Option<ColumnMapping>,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, WorkerError> {
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
) -> Result<Loaded, WorkerError> {
    load_buffer_with_mapping_in_worker(name, buffer, None, on_progress).await
}

/// Like [`load_buffer_in_worker`], with a column mapping (see [`load_with_mapping_in_worker`]).
pub async fn load_buffer_with_mapping_in_worker(
    name: String,
    buffer: ArrayBuffer,
    mapping: Option<ColumnMapping>,
    on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, WorkerError> {
    let progress: Progress = Rc::new(RefCell::new(on_progress));
    load_js(&name, Uint8Array::new(&buffer), mapping.as_ref(), progress).await
}

/// Loads on the calling thread (the fallback; also what a worker runs). Blocks for as long as
/// the load takes (after fetching the loaders' chunk the first time, in a split build).
pub async fn load_on_main_thread(name: &str, bytes: &[u8]) -> Result<Loaded, WorkerError> {
    load_with_mapping_on_main_thread(name, bytes, None).await
}

/// [`load_on_main_thread`] with a column mapping (`None`: the guess).
pub async fn load_with_mapping_on_main_thread(
    name: &str,
    bytes: &[u8],
    mapping: Option<&ColumnMapping>,
) -> Result<Loaded, WorkerError> {
    let load = call_split!(loader)?;
    load(name, bytes, mapping)
}

/// Reads a file with every loader (`mapping`: the column mapping of a tabular file).
type LoadFn = fn(&str, &[u8], Option<&ColumnMapping>) -> Result<Loaded, WorkerError>;

fn load_here(
    name: &str,
    bytes: &[u8],
    mapping: Option<&ColumnMapping>,
) -> Result<Loaded, WorkerError> {
    data::load_with_mapping(name, bytes, mapping).map_err(|e| WorkerError::Job(e.to_string()))
}

// The loaders (every format's reader: megabytes of JSON handling that the first screen does
// not need — it opens on the example through the CSV reader alone) are in the worker's chunk
// (`worker`), fetched by the worker with its first job.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(worker, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn loader() -> Result<LoadFn, WorkerError> {
    Ok(load_here)
}

type Progress = Rc<RefCell<dyn FnMut(LoadStage)>>;

fn report(on_progress: &Progress, stage: LoadStage) {
    if let Ok(mut f) = on_progress.try_borrow_mut() {
        f(stage);
    }
}

/// A load's page side, boxed (the future of [`Receive`]).
type Receiving = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Loaded, WorkerError>>>>;
/// Sends a file to the worker and decodes what comes back (the receiver's chunk).
type Receive = fn(String, Uint8Array, Option<ColumnMapping>, Progress) -> Receiving;

// The page's side of a load — the request, the worker's frames decoded into a `Loaded`, the
// main-thread fallback — is in the page's I/O chunk (`page_io`, see `crate::persist::bundle::Io`),
// fetched when the page first loads a file (or while it is idle): the first screen opens on
// the example without it.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn receiver() -> Result<Receive, WorkerError> {
    Ok(|name, source, mapping, on_progress| {
        Box::pin(async move { receive(&name, source, mapping.as_ref(), on_progress).await })
    })
}

async fn load_js(
    name: &str,
    source: Uint8Array,
    mapping: Option<&ColumnMapping>,
    on_progress: Progress,
) -> Result<Loaded, WorkerError> {
    let receive = call_split!(receiver)?;
    receive(name.to_owned(), source, mapping.cloned(), on_progress).await
}

async fn receive(
    name: &str,
    source: Uint8Array,
    mapping: Option<&ColumnMapping>,
    on_progress: Progress,
) -> Result<Loaded, WorkerError> {
    report(&on_progress, LoadStage::StartingWorker);
    let mapping_json = mapping
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| WorkerError::Encode(format!("the column mapping: {e}")))?;
    // Transfer the buffer when the bytes fill it, copy them out otherwise.
    let buffer = whole_buffer(&source);
    let request = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&request, &"name".into(), &JsValue::from_str(name));
    let _ = js_sys::Reflect::set(&request, &"bytes".into(), &buffer);
    if let Some(mapping) = &mapping_json {
        let _ = js_sys::Reflect::set(&request, &"mapping".into(), &JsValue::from_str(mapping));
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
            load_with_mapping_on_main_thread(name, &source.to_vec(), mapping).await
        }
    }
}

/// The worker's side of a load: reads the request, parses, answers with the frames.
pub(super) fn load_job(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    let name = js::property(message, "name").as_string().unwrap_or_default();
    let bytes = Uint8Array::new(&js::property(message, "bytes")).to_vec();
    post_progress(scope, "parsing");
    let mapping = match js::property(message, "mapping").as_string() {
        None => Ok(None),
        Some(json) => serde_json::from_str::<ColumnMapping>(&json)
            .map(Some)
            .map_err(|e| WorkerError::Decode(format!("the column mapping: {e}"))),
    };
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let result = match (mapping, call_split!(loader)) {
            (Ok(m), Ok(load)) => load(&name, &bytes, m.as_ref()),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        match result.and_then(|l| encode(&l)) {
            Ok(frames) => {
                drop(bytes);
                let buffers = buffers_of(frames);
                post_done(&scope, &[("frames", &buffers)], &buffers);
            }
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
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

#[derive(Serialize, Deserialize)]
struct WireDiagnostic {
    severity: Severity,
    file: String,
    line: Option<usize>,
    field: Option<String>,
    message: String,
}

/// Encodes a load result for the trip from the worker, as frames: the header, then chunks,
/// then the end marker (exposed for tests).
pub fn encode(loaded: &Loaded) -> Result<Vec<Vec<u8>>, WorkerError> {
    let fail = |e: postcard::Error| WorkerError::Encode(format!("the loaded dataset: {e}"));
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
    let mut push = |chunk: ChunkRef<'_>| -> Result<(), WorkerError> {
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
        let run =
            u32::try_from(run).map_err(|_| WorkerError::Encode("too many judge runs".into()))?;
        for records in judge_run.records.chunks(CHUNK) {
            push(ChunkRef::Records { run, records })?;
        }
    }
    push(ChunkRef::End)?;
    Ok(frames)
}

/// Decodes what [`encode`] produced, in one go.
pub fn decode(frames: &[Vec<u8>]) -> Result<Loaded, WorkerError> {
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
pub(super) async fn decode_frames_yielding(frames: &Array) -> Result<Loaded, WorkerError> {
    let frame = |i: u32| Uint8Array::new(&frames.get(i)).to_vec();
    let mut decoder = Decoder::new(&frame(0))?;
    let mut budget = FrameBudget::new();
    for i in 1..frames.length() {
        if decoder.step(&frame(i))? {
            return Ok(decoder.loaded);
        }
        budget.tick().await;
    }
    Err(decode_error("it ends before its end marker"))
}

struct Decoder {
    loaded: Loaded,
}

fn decode_error(e: impl std::fmt::Display) -> WorkerError {
    WorkerError::Decode(e.to_string())
}

impl Decoder {
    fn new(header: &[u8]) -> Result<Decoder, WorkerError> {
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
    fn step(&mut self, frame: &[u8]) -> Result<bool, WorkerError> {
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
        // Labels (an AltTest annotations file): a categorical attribute's labels travel too.
        let labels = br#"{"a": {"x": "yes", "y": "no"}, "b": {"x": "yes", "y": "yes"}}"#;
        assert!(
            !data::load("human_annotations.json", labels).unwrap().dataset.attributes[0]
                .categories
                .is_empty()
        );
        check("human_annotations.json", labels);
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
        let err = decode(&frames[..frames.len() - 1]).unwrap_err().to_string();
        assert!(err.contains("ends before its end marker"), "{err}");
        let items = &mut frames[1];
        items.truncate(items.len() / 2);
        let err = decode(&frames).unwrap_err().to_string();
        assert!(err.contains("could not be decoded"), "{err}");
    }
}
