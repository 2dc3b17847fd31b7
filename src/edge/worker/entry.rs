//! The worker's entry point: `worker.js` calls [`worker_main`] for each message, which hands
//! it to the job its `op` names (a bundle to open or write, prompts to count; a dataset to
//! load otherwise).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::DedicatedWorkerGlobalScope;

use crate::edge::js;

use super::{bundle, load, tokens};

/// The worker's entry point, called by `worker.js` for each message. Never call it on the
/// page: it posts to the worker's global scope.
#[wasm_bindgen]
pub fn worker_main(message: JsValue) {
    let Ok(scope) = js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>() else {
        return;
    };
    match js::property(&message, "op").as_string().as_deref() {
        Some("bundle-open") => bundle::open_job(&scope, &message),
        Some("bundle-save") => bundle::save_job(&scope, &message),
        Some("tokens") => tokens::job(&scope, &message),
        _ => load::load_job(&scope, &message),
    }
}
