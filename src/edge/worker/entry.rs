//! The worker's entry point: `worker.js` calls [`worker_main`] for each message, which hands
//! it to the job its `op` names (a bundle to open or write, prompts to count, an AltTest
//! folder to load; a dataset to load otherwise).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use crate::edge::js;

use super::protocol::{WorkerError, call_split, post_error};
use super::{bundle, folder, load, tokens};

/// The worker's entry point, called by `worker.js` for each message. Never call it on the
/// page: it posts to the worker's global scope.
#[wasm_bindgen]
pub fn worker_main(message: JsValue) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        match call_split!(worker_jobs) {
            Ok(run) => run(&scope, &message),
            Err(e) => post_error(&scope, &e.to_string()),
        }
    });
}

/// Does the job a message asks for.
type Jobs = fn(&DedicatedWorkerGlobalScope, &JsValue);

// What only the worker runs (every job's side in the worker: reading the request, encoding
// the answer) is in the worker's chunk (`worker`, with the loaders), which the worker fetches
// with the main module: the page never does.
#[cfg_attr(
    feature = "split",
    leptos::wasm_split::wasm_split(worker, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn worker_jobs() -> Result<Jobs, WorkerError> {
    Ok(dispatch)
}

fn dispatch(scope: &DedicatedWorkerGlobalScope, message: &JsValue) {
    match js::property(message, "op").as_string().as_deref() {
        Some("bundle-open") => bundle::open_job(scope, message),
        Some("bundle-save") => bundle::save_job(scope, message),
        Some("tokens") => tokens::job(scope, message),
        Some("load-folder") => folder::folder_job(scope, message),
        _ => load::load_job(scope, message),
    }
}
