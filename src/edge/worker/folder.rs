//! Loading an AltTest folder (`human_annotations.json` and, optionally, `llm_annotations.json`:
//! `concord_core::data::annotations::load_folder`) in the loader's Web Worker, as [`super::load`]
//! loads one file: the request is `{op: "load-folder", name, human, human_bytes: ArrayBuffer,
//! llm?, llm_bytes?: ArrayBuffer}`, the answer the same frames as a load's (a header, chunks of
//! items and judge records), decoded on the page a slice at a time. Without a worker the
//! folder is read on the main thread.

use concord_core::data::{Loaded, annotations};
use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use super::load::{LoadStage, decode_frames_yielding, encode};
use super::protocol::{
    JobOutcome, WorkerError, buffers_of, call_split, post_done, post_error, post_progress, run_job,
};
use crate::edge::js;
use crate::edge::time;

/// One file of the folder: its name and bytes (still in a JS buffer, handed to the worker).
pub struct FolderFile {
    pub name: String,
    pub bytes: ArrayBuffer,
}

/// Reads the folder `name` (the annotators' file and, optionally, the LLMs') in a Web Worker,
/// falling back to the main thread when workers are unavailable; `Err` carries the loader's
/// message naming the file. The buffers are handed to the worker (detached afterwards unless
/// the load fell back to the main thread).
pub async fn load_folder_in_worker(
    name: String,
    human: FolderFile,
    llm: Option<FolderFile>,
    mut on_progress: impl FnMut(LoadStage) + 'static,
) -> Result<Loaded, WorkerError> {
    let receive = call_split!(folder_receiver)?;
    on_progress(LoadStage::StartingWorker);
    receive(name, human, llm, Box::new(on_progress)).await
}

type Progress = Box<dyn FnMut(LoadStage)>;
type Receiving = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Loaded, WorkerError>>>>;
type Receive = fn(String, FolderFile, Option<FolderFile>, Progress) -> Receiving;

// The page's side (the request, the frames decoded, the main-thread fallback) is in the page's
// I/O chunk with a single file's load (`page_io`).
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(page_io, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn folder_receiver() -> Result<Receive, WorkerError> {
    Ok(|name, human, llm, on_progress| Box::pin(receive(name, human, llm, on_progress)))
}

async fn receive(
    name: String,
    human: FolderFile,
    llm: Option<FolderFile>,
    mut on_progress: Progress,
) -> Result<Loaded, WorkerError> {
    let request = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| {
        let _ = js_sys::Reflect::set(&request, &k.into(), v);
    };
    set("op", &"load-folder".into());
    set("name", &JsValue::from_str(&name));
    set("human", &JsValue::from_str(&human.name));
    set("human_bytes", &human.bytes);
    let transfer = Array::of1(&human.bytes);
    if let Some(l) = &llm {
        set("llm", &JsValue::from_str(&l.name));
        set("llm_bytes", &l.bytes);
        transfer.push(&l.bytes);
    }
    let outcome = {
        let progress = &mut on_progress;
        run_job(&request, &transfer, move || progress(LoadStage::Parsing { in_worker: true })).await
    };
    match outcome {
        JobOutcome::Done(message) => {
            on_progress(LoadStage::Receiving);
            time::yield_now().await;
            let frames: Array = js::property(&message, "frames").unchecked_into();
            decode_frames_yielding(&frames).await
        }
        JobOutcome::Failed(why) => Err(why),
        JobOutcome::Unavailable(_) => {
            on_progress(LoadStage::Parsing { in_worker: false });
            time::yield_now().await;
            let load = call_split!(folder_loader)?;
            let h = Uint8Array::new(&human.bytes).to_vec();
            let l = llm.as_ref().map(|l| (l.name.as_str(), Uint8Array::new(&l.bytes).to_vec()));
            load(&name, (&human.name, &h), l.as_ref().map(|(n, b)| (*n, b.as_slice())))
        }
    }
}

/// Reads a folder with the annotations loader.
type FolderFn = fn(&str, (&str, &[u8]), Option<(&str, &[u8])>) -> Result<Loaded, WorkerError>;

fn load_here(
    name: &str,
    human: (&str, &[u8]),
    llm: Option<(&str, &[u8])>,
) -> Result<Loaded, WorkerError> {
    annotations::load_folder(name, human, llm).map_err(|e| WorkerError::Job(e.to_string()))
}

// With the other loaders, in the worker's chunk.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(worker, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn folder_loader() -> Result<FolderFn, WorkerError> {
    Ok(load_here)
}

/// The worker's side: reads the request, loads the folder, answers with the frames.
pub(super) fn folder_job(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    let text = |k: &str| js::property(message, k).as_string();
    let bytes = |k: &str| {
        let v = js::property(message, k);
        (!v.is_undefined() && !v.is_null()).then(|| Uint8Array::new(&v).to_vec())
    };
    let name = text("name").unwrap_or_default();
    let human = (text("human").unwrap_or_default(), bytes("human_bytes").unwrap_or_default());
    let llm = text("llm").zip(bytes("llm_bytes"));
    post_progress(scope, "parsing");
    let scope = scope.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let result = match call_split!(folder_loader) {
            Ok(load) => load(
                &name,
                (&human.0, &human.1),
                llm.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
            ),
            Err(e) => Err(e),
        };
        match result.and_then(|l| encode(&l)) {
            Ok(frames) => {
                let buffers = buffers_of(frames);
                post_done(&scope, &[("frames", &buffers)], &buffers);
            }
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
}
