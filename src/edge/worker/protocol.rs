//! The one conversation every Web Worker job uses (`worker.js`, beside `boot.js` and the
//! module in the site's `pkg-<hash>/`, instantiates this same wasm module and calls
//! [`super::entry::worker_main`]):
//!
//! 1. worker → page: `{kind: "ready"}` once its wasm runs, or `{kind: "unavailable", message}`;
//! 2. page → worker: the job's request (`{op?, …}`), its buffers transferred (not copied);
//! 3. worker → page: any number of `{kind: "progress", …}`;
//! 4. worker → page: `{kind: "done", …}` (its buffers transferred) or `{kind: "error", message}`.
//!
//! One worker per job, terminated after it. When the worker cannot start (no module workers,
//! `worker.js` missing, wasm refused in the worker) nothing was handed over yet and the caller
//! does the job on the main thread. Results travel as frames: a header, then postcard
//! [`ChunkRef`]s of 256 items or records, then the end marker, so the page decodes them a
//! slice at a time.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use concord_core::data::{JudgeRecord, PairwiseItem, RatingItem};
use js_sys::{Array, Object, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::edge::js;

/// The worker script's name. `boot.js` hands the app its address beside itself
/// ([`set_worker_script`]); without one (a test page that did not start the app) it is
/// resolved against the page's address.
pub const WORKER_SCRIPT: &str = "worker.js";

thread_local! {
    /// The absolute address of this build's `worker.js`, as `boot.js` gave it.
    static WORKER_ADDRESS: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Remembers where this build's `worker.js` is (called once, by [`crate::start`]): in the
/// built site it is beside `boot.js` in `pkg-<hash>/`, not beside the page.
pub fn set_worker_script(address: String) {
    WORKER_ADDRESS.with(|a| *a.borrow_mut() = Some(address));
}

/// What went wrong with work done in (or for) the worker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkerError {
    /// The job's own answer: the file's problem (the loader's message), the bundle's, ….
    #[error("{0}")]
    Job(String),
    /// The worker died midway (out of memory, a crash).
    #[error("the work stopped midway: {0}; try again, or with a smaller file")]
    Stopped(String),
    /// What the worker sent back could not be read (page and worker of different versions
    /// after an update).
    #[error("the worker's result could not be decoded: {0}; reload the page and try again")]
    Decode(String),
    /// What was to be sent to or from the worker could not be written.
    #[error("the data could not be passed to or from the worker: {0}")]
    Encode(String),
    /// The part of the program that does the job (a wasm chunk, fetched when first needed)
    /// could not be downloaded.
    #[error(
        "part of Concord's program could not be downloaded ({0}); check the connection and try again"
    )]
    Chunk(String),
}

#[cfg(feature = "split")]
impl From<leptos::wasm_split::SplitLoaderError> for WorkerError {
    fn from(e: leptos::wasm_split::SplitLoaderError) -> WorkerError {
        WorkerError::Chunk(e.to_string())
    }
}

/// Calls a split point (a function returning the code that does a job, kept in a wasm chunk
/// of its own: loaders, the bundle reader and writer, tokenizers): awaited when the build is
/// split, where the first call fetches the chunk; called directly otherwise.
macro_rules! call_split {
    ($point:ident) => {{
        #[cfg(feature = "split")]
        {
            $point().await
        }
        #[cfg(not(feature = "split"))]
        {
            $point()
        }
    }};
}
pub(crate) use call_split;

/// How a worker job ended.
pub enum JobOutcome {
    /// The worker's `{kind: "done", …}` message.
    Done(JsValue),
    /// The job's own error (`{kind: "error", message}`), or the worker died midway.
    Failed(WorkerError),
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
pub async fn run_job(
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
            Err(why) => return JobOutcome::Failed(WorkerError::Stopped(why)),
        };
        match kind_of(&message).as_str() {
            "progress" => on_progress(),
            "done" => return JobOutcome::Done(message),
            _ => {
                let why = js::property(&message, "message")
                    .as_string()
                    .unwrap_or_else(|| "the worker could not do it".to_owned());
                return JobOutcome::Failed(WorkerError::Job(why));
            }
        }
    }
}

/// This build's `worker.js` as `boot.js` gave it, else resolved against the document's base URL.
fn worker_url() -> Option<String> {
    if let Some(address) = WORKER_ADDRESS.with(|a| a.borrow().clone()) {
        return Some(address);
    }
    let document = web_sys::window()?.document()?;
    let base = document.base_uri().ok()??;
    web_sys::Url::new_with_base(WORKER_SCRIPT, &base).ok().map(|u| u.href())
}

/// Posts `{kind: "done"}` with `fields`, transferring `transfer` (worker side).
pub fn post_done(
    scope: &DedicatedWorkerGlobalScope,
    fields: &[(&str, &JsValue)],
    transfer: &Array,
) {
    let reply = Object::new();
    let _ = Reflect::set(&reply, &"kind".into(), &"done".into());
    for (name, value) in fields {
        let _ = Reflect::set(&reply, &(*name).into(), value);
    }
    let _ = scope.post_message_with_transfer(&reply, transfer);
}

/// Posts `{kind: "error", message}` (worker side).
pub fn post_error(scope: &DedicatedWorkerGlobalScope, message: &str) {
    let reply = Object::new();
    let _ = Reflect::set(&reply, &"kind".into(), &"error".into());
    let _ = Reflect::set(&reply, &"message".into(), &JsValue::from_str(message));
    let _ = scope.post_message(&reply);
}

/// Posts `{kind: "progress", stage}` (worker side).
pub fn post_progress(scope: &DedicatedWorkerGlobalScope, stage: &str) {
    let progress = Object::new();
    let _ = Reflect::set(&progress, &"kind".into(), &"progress".into());
    let _ = Reflect::set(&progress, &"stage".into(), &JsValue::from_str(stage));
    let _ = scope.post_message(&progress);
}

/// Frames as `ArrayBuffer`s ready to transfer.
pub fn buffers_of(frames: Vec<Vec<u8>>) -> Array {
    let buffers = Array::new();
    for frame in frames {
        buffers.push(&Uint8Array::from(frame.as_slice()).buffer());
    }
    buffers
}

/// The `ArrayBuffer`s of a message's `frames`, copied into wasm memory.
pub fn frames_of(message: &JsValue) -> Vec<Vec<u8>> {
    let frames: Array = js::property(message, "frames").unchecked_into();
    (0..frames.length()).map(|i| Uint8Array::new(&frames.get(i)).to_vec()).collect()
}

/// A buffer holding exactly `bytes`: its own when the view fills it (transferable), a copy
/// otherwise.
pub fn whole_buffer(bytes: &Uint8Array) -> js_sys::ArrayBuffer {
    let buffer = bytes.buffer();
    let whole = bytes.byte_offset() == 0 && bytes.byte_length() == buffer.byte_length();
    if whole { buffer } else { Uint8Array::new(bytes).buffer() }
}

/// Items (or pairs, or records) per chunk: a few milliseconds of decoding each.
pub const CHUNK: usize = 256;

#[derive(Serialize)]
pub enum ChunkRef<'a> {
    Items(&'a [RatingItem]),
    Pairs(&'a [PairwiseItem]),
    Records { run: u32, records: &'a [JudgeRecord] },
    End,
}

#[derive(Deserialize)]
pub enum Chunk {
    Items(Vec<RatingItem>),
    Pairs(Vec<PairwiseItem>),
    Records { run: u32, records: Vec<JudgeRecord> },
    End,
}
