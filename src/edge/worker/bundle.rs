//! Opening and saving bundles without freezing the page. A bundle of a large study is tens of
//! megabytes of JSON (1,600 items × 4 attributes × 4 methods × 20 samples: 48 MB), and parsing
//! or writing it is hundreds of milliseconds of work: both happen in the loader's Web Worker
//! ([`super::protocol`]), with the page's side done in slices between yields.
//!
//! Both directions use the same frames: a *skeleton* (JSON: everything but the dataset's items
//! and the runs' records, a few kilobytes), then postcard chunks of items and of each run's
//! records ([`ChunkRef`]), then the end marker.
//!
//! - `bundle-open` (page → worker: `{op, name, bytes}`): the worker reads and checks the bundle
//!   (`Bundle::from_json`: schema, version, the dataset's hash) and answers
//!   `{kind: "done", frames}` with the [`Bundle`] as skeleton + chunks; the page decodes them a
//!   slice at a time.
//! - `bundle-save` (page → worker: `{op, frames}`): the page encodes a [`SaveSkeleton`] and the
//!   chunks a slice at a time from its signals; the worker builds the bundle
//!   (`Bundle::new`: each record's parsed mean, the study's prompts, the dataset's hash) and
//!   answers `{kind: "done", bytes}`: the pretty JSON, ready to download.
//!
//! When the worker cannot start, the same work runs on the page (and blocks it while it runs).

use concord_core::bundle::{Bundle, EndpointEntry, ExtraRater, Settings};
use concord_core::data::{Dataset, JudgeRecord, RatingItem};
use concord_core::study::workbench::{JudgedRun, Study};
use js_sys::{Array, ArrayBuffer, Object, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use super::protocol::{
    CHUNK, Chunk, ChunkRef, JobOutcome, WorkerError, buffers_of, call_split, frames_of, post_done,
    post_error, run_job, whole_buffer,
};
use crate::edge::js;
use crate::edge::time::{self, FrameBudget};

/// What the page sends to have a bundle written: everything but the dataset's items and the
/// runs' records, which follow in chunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveSkeleton {
    /// The dataset without its items.
    pub dataset: Dataset,
    pub format: String,
    pub study: Option<Study>,
    pub endpoint: Option<EndpointEntry>,
    /// The runs without their records.
    pub runs: Vec<JudgedRun>,
    pub raters: Vec<ExtraRater>,
    pub settings: Settings,
    pub created: String,
    /// What the bundle must say that the study does not (dropped parameters, …).
    #[serde(default)]
    pub notes: Vec<String>,
    /// The CoEval screen's study, when there is one.
    #[serde(default)]
    pub coeval: Option<concord_core::study::coeval::Snapshot>,
    /// The meta-evaluation workspace, when it holds anything.
    #[serde(default)]
    pub meta: Option<concord_core::study::meta::Snapshot>,
    /// The judge runs' human review, when anyone reviewed.
    #[serde(default)]
    pub review: Option<concord_core::study::workbench::revise::ReviewSnapshot>,
}

fn wire_error(e: impl std::fmt::Display) -> WorkerError {
    WorkerError::Encode(format!("the bundle: {e}"))
}

fn decode_error(e: impl std::fmt::Display) -> WorkerError {
    WorkerError::Decode(format!("the bundle: {e}"))
}

/// The skeleton frame: `value` as JSON.
pub fn skeleton_frame<T: Serialize>(value: &T) -> Result<Vec<u8>, WorkerError> {
    serde_json::to_vec(value).map_err(wire_error)
}

pub fn items_frame(items: &[RatingItem]) -> Result<Vec<u8>, WorkerError> {
    postcard::to_allocvec(&ChunkRef::Items(items)).map_err(wire_error)
}

pub fn records_frame(run: usize, records: &[JudgeRecord]) -> Result<Vec<u8>, WorkerError> {
    let run = u32::try_from(run).map_err(wire_error)?;
    postcard::to_allocvec(&ChunkRef::Records { run, records }).map_err(wire_error)
}

pub fn end_frame() -> Result<Vec<u8>, WorkerError> {
    postcard::to_allocvec(&ChunkRef::End).map_err(wire_error)
}

/// What the worker sends ahead of an opened bundle's chunks: the bundle without its items and
/// records, and what reading it changed (not part of the file's JSON, so passed beside it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenSkeleton {
    pub bundle: Bundle,
    pub changed_on_import: Vec<String>,
}

impl OpenSkeleton {
    fn into_bundle(self) -> Bundle {
        Bundle { changed_on_import: self.changed_on_import, ..self.bundle }
    }
}

/// A bundle as frames (what the worker answers to `bundle-open`).
pub fn encode_bundle(mut bundle: Bundle) -> Result<Vec<Vec<u8>>, WorkerError> {
    let items = std::mem::take(&mut bundle.dataset.embedded.items);
    let records: Vec<Vec<JudgeRecord>> =
        bundle.runs.iter_mut().map(|r| std::mem::take(&mut r.run.records)).collect();
    let changed_on_import = std::mem::take(&mut bundle.changed_on_import);
    let mut frames = vec![skeleton_frame(&OpenSkeleton { bundle, changed_on_import })?];
    for chunk in items.chunks(CHUNK) {
        frames.push(items_frame(chunk)?);
    }
    for (run, records) in records.iter().enumerate() {
        for chunk in records.chunks(CHUNK) {
            frames.push(records_frame(run, chunk)?);
        }
    }
    frames.push(end_frame()?);
    Ok(frames)
}

/// Where decoded chunks go: a dataset's items and runs' records.
pub trait Receiver {
    fn items(&mut self) -> &mut Vec<RatingItem>;
    fn records(&mut self, run: usize) -> Option<&mut Vec<JudgeRecord>>;
}

impl Receiver for OpenSkeleton {
    fn items(&mut self) -> &mut Vec<RatingItem> {
        &mut self.bundle.dataset.embedded.items
    }
    fn records(&mut self, run: usize) -> Option<&mut Vec<JudgeRecord>> {
        self.bundle.runs.get_mut(run).map(|r| &mut r.run.records)
    }
}

impl Receiver for SaveSkeleton {
    fn items(&mut self) -> &mut Vec<RatingItem> {
        &mut self.dataset.items
    }
    fn records(&mut self, run: usize) -> Option<&mut Vec<JudgeRecord>> {
        self.runs.get_mut(run).map(|r| &mut r.run.records)
    }
}

/// Adds one chunk frame to `into`; true once it was the end marker.
fn step<R: Receiver>(into: &mut R, frame: &[u8]) -> Result<bool, WorkerError> {
    match postcard::from_bytes::<Chunk>(frame).map_err(decode_error)? {
        Chunk::Items(items) => into.items().extend(items),
        Chunk::Pairs(_) => return Err(decode_error("a bundle has no pairs")),
        Chunk::Records { run, records } => {
            let target = usize::try_from(run).ok().and_then(|r| into.records(r));
            match target {
                Some(target) => target.extend(records),
                None => return Err(decode_error("a chunk names a run the bundle does not have")),
            }
        }
        Chunk::End => return Ok(true),
    }
    Ok(false)
}

/// Decodes frames in one go.
pub fn decode<T: Receiver + serde::de::DeserializeOwned>(
    frames: &[Vec<u8>],
) -> Result<T, WorkerError> {
    let (skeleton, chunks) = frames.split_first().ok_or_else(|| decode_error("no frames"))?;
    let mut value: T = serde_json::from_slice(skeleton).map_err(decode_error)?;
    for chunk in chunks {
        if step(&mut value, chunk)? {
            return Ok(value);
        }
    }
    Err(decode_error("it ends before its end marker"))
}

/// Builds the bundle a [`SaveSkeleton`] with its chunks describes, and writes its JSON.
pub fn save_json(skeleton: SaveSkeleton) -> Vec<u8> {
    let SaveSkeleton {
        dataset,
        format,
        study,
        endpoint,
        runs,
        raters,
        settings,
        created,
        notes,
        coeval,
        meta,
        review,
    } = skeleton;
    let mut bundle = Bundle::new(&dataset, &format, study, None, runs, raters, settings, created);
    bundle.endpoint = endpoint;
    bundle.notes = notes;
    bundle.coeval = coeval;
    bundle.meta = meta;
    bundle.review = review;
    bundle.to_json().into_bytes()
}

/// Opens the bundle in `bytes` (named `name` in messages) in the worker; on the page when the
/// worker cannot start.
pub async fn open(name: &str, bytes: Uint8Array) -> Result<Bundle, WorkerError> {
    let buffer = whole_buffer(&bytes);
    let request = Object::new();
    let _ = Reflect::set(&request, &"op".into(), &"bundle-open".into());
    let _ = Reflect::set(&request, &"name".into(), &JsValue::from_str(name));
    let _ = Reflect::set(&request, &"bytes".into(), &buffer);
    match run_job(&request, &Array::of1(&buffer), || {}).await {
        JobOutcome::Done(message) => {
            let frames: Array = js::property(&message, "frames").unchecked_into();
            decode_yielding(&frames).await
        }
        JobOutcome::Failed(why) => Err(why),
        JobOutcome::Unavailable(_) => {
            time::yield_now().await;
            let open = call_split!(bundle_reader)?;
            open(&bytes.to_vec())
        }
    }
}

/// What the worker does for `bundle-open`, and the fallback on the page.
fn open_here(bytes: &[u8]) -> Result<Bundle, WorkerError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| WorkerError::Job("not UTF-8 text, so not a bundle".to_owned()))?;
    Bundle::from_json(text).map_err(|e| WorkerError::Job(e.to_string()))
}

/// Opens a bundle's bytes (the reader's chunk).
type OpenFn = fn(&[u8]) -> Result<Bundle, WorkerError>;
/// Writes a bundle from its frames (the writer's chunk).
type SaveFn = fn(&[Vec<u8>]) -> Result<Vec<u8>, WorkerError>;

/// Writes the bundle the frames describe ([`SaveSkeleton`] + chunks) as JSON.
fn save_here(frames: &[Vec<u8>]) -> Result<Vec<u8>, WorkerError> {
    Ok(save_json(decode::<SaveSkeleton>(frames)?))
}

// The bundle's reader and writer (the whole bundle as JSON, read and checked or written) are
// one chunk (`bundle`), fetched by the worker the first time it opens or writes a bundle: the
// page only ever decodes and encodes frames.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(bundle, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn bundle_reader() -> Result<OpenFn, WorkerError> {
    Ok(open_here)
}

#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(bundle, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn bundle_writer() -> Result<SaveFn, WorkerError> {
    Ok(save_here)
}

/// Copies each frame into wasm memory when its turn comes, yielding every ~25 ms.
async fn decode_yielding(frames: &Array) -> Result<Bundle, WorkerError> {
    let frame = |i: u32| Uint8Array::new(&frames.get(i)).to_vec();
    let mut bundle: OpenSkeleton = serde_json::from_slice(&frame(0)).map_err(decode_error)?;
    let mut budget = FrameBudget::new();
    for i in 1..frames.length() {
        if step(&mut bundle, &frame(i))? {
            return Ok(bundle.into_bundle());
        }
        budget.tick().await;
    }
    Err(decode_error("it ends before its end marker"))
}

/// Has the worker write the bundle the frames describe ([`SaveSkeleton`] + chunks); returns
/// its JSON as an `ArrayBuffer` (not copied into wasm memory). On the page when the worker
/// cannot start.
pub async fn save(frames: Vec<Vec<u8>>) -> Result<ArrayBuffer, WorkerError> {
    let buffers = buffers_of(frames.clone());
    let request = Object::new();
    let _ = Reflect::set(&request, &"op".into(), &"bundle-save".into());
    let _ = Reflect::set(&request, &"frames".into(), &buffers);
    match run_job(&request, &buffers, || {}).await {
        JobOutcome::Done(message) => Ok(js::property(&message, "bytes").unchecked_into()),
        JobOutcome::Failed(why) => Err(why),
        JobOutcome::Unavailable(_) => {
            time::yield_now().await;
            let save = call_split!(bundle_writer)?;
            Ok(Uint8Array::from(save(&frames)?.as_slice()).buffer())
        }
    }
}

/// The worker's side of `bundle-open`.
pub(super) fn open_job(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    let bytes = Uint8Array::new(&js::property(message, "bytes")).to_vec();
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let opened = call_split!(bundle_reader).and_then(|open| open(&bytes));
        match opened.and_then(encode_bundle) {
            Ok(frames) => {
                drop(bytes);
                let buffers = buffers_of(frames);
                post_done(&scope, &[("frames", &buffers)], &buffers);
            }
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
}

/// The worker's side of `bundle-save`.
pub(super) fn save_job(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    let frames = frames_of(message);
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        match call_split!(bundle_writer).and_then(|save| save(&frames)) {
            Ok(json) => {
                let buffer = Uint8Array::from(json.as_slice()).buffer();
                post_done(&scope, &[("bytes", &buffer)], &Array::of1(&buffer));
            }
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use concord_core::bundle::Settings;
    use concord_core::judge::parse::Policy;

    fn runs(dataset: &Dataset) -> Vec<JudgedRun> {
        ["coherence", "fluency"]
            .into_iter()
            .map(|attribute| JudgedRun {
                method: "m".into(),
                attribute: attribute.into(),
                policy: Policy::Concord,
                weighting: None,
                origin: "study".into(),
                run: concord_core::data::JudgeRun {
                    name: format!("m {attribute}"),
                    attribute: Some(attribute.into()),
                    records: dataset
                        .items
                        .iter()
                        .map(|it| JudgeRecord {
                            key: concord_core::data::RecordKey::Id(it.id.clone()),
                            prompt: None,
                            prompt_chars: None,
                            responses: vec!["Rating: 3".into(), "Rating: 4".into()],
                            cut_off: Vec::new(),
                            logprobs: Vec::new(),
                            reasoning_tokens: Vec::new(),
                            parsed: Vec::new(),
                            line: 0,
                            meta: None,
                            // Every field crosses the frames, the calls' usage too.
                            calls: vec![concord_core::data::CallUsage {
                                samples: 2,
                                tokens: Some(concord_core::data::ReportedTokens {
                                    prompt_tokens: 120,
                                    completion_tokens: 9,
                                    reasoning_tokens: 0,
                                }),
                                batch: true,
                            }],
                        })
                        .collect(),
                },
            })
            .collect()
    }

    /// What the page sends and the worker writes equals the bundle built in one go; what the
    /// worker sends back when opening it equals `Bundle::from_json`.
    #[test]
    fn save_and_open_round_trip_through_frames() {
        let dataset = concord_core::data::example_dataset();
        let runs = runs(&dataset);
        let settings = Settings::default();
        let direct = Bundle::new(
            &dataset,
            "csv",
            None,
            None,
            runs.clone(),
            Vec::new(),
            settings.clone(),
            "2026-11-24T00:00:00Z".into(),
        );
        let mut skeleton = SaveSkeleton {
            dataset: Dataset { items: Vec::new(), ..dataset.clone() },
            format: "csv".into(),
            study: None,
            endpoint: None,
            runs: runs
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.run.records.clear();
                    r
                })
                .collect(),
            raters: Vec::new(),
            settings,
            created: "2026-11-24T00:00:00Z".into(),
            notes: Vec::new(),
            coeval: None,
            meta: None,
            review: None,
        };
        let mut frames = vec![skeleton_frame(&skeleton).unwrap()];
        for chunk in dataset.items.chunks(4) {
            frames.push(items_frame(chunk).unwrap());
        }
        for (i, r) in runs.iter().enumerate() {
            for chunk in r.run.records.chunks(4) {
                frames.push(records_frame(i, chunk).unwrap());
            }
        }
        frames.push(end_frame().unwrap());
        skeleton = decode(&frames).unwrap();
        let json = save_json(skeleton);
        assert_eq!(String::from_utf8(json.clone()).unwrap(), direct.to_json());

        let opened = open_here(&json).unwrap();
        let back = decode::<OpenSkeleton>(&encode_bundle(opened.clone()).unwrap()).unwrap();
        let back = back.into_bundle();
        assert_eq!(back, opened);
        assert_eq!(back.runs[1].run.records.len(), dataset.items.len());
        // What the import changed crosses with it.
        let mut bounded = opened.clone();
        bounded.changed_on_import = vec!["the bundle asks for 0 resamples; using 1".into()];
        let back = decode::<OpenSkeleton>(&encode_bundle(bounded.clone()).unwrap()).unwrap();
        assert_eq!(back.into_bundle(), bounded);
        // A cut stream is an error, not a truncated bundle.
        let frames = encode_bundle(opened).unwrap();
        assert!(
            decode::<OpenSkeleton>(&frames[..frames.len() - 1])
                .unwrap_err()
                .to_string()
                .contains("end marker")
        );
        assert!(open_here(b"\xff\xfe").unwrap_err().to_string().contains("not UTF-8"));
    }
}
