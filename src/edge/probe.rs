//! Exported hooks through which `tests/e2e/edge.test.mjs` drives the edge from Playwright
//! (`import()` of the served site's `pkg-<hash>/concord.js`): what needs a real server, a page reload
//! or the real `worker.js`, which wasm-bindgen-test cannot provide. Not used by the app.

use concord_core::run::{HttpRequest, Method};
use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use super::http::{self, AbortHandle, FetchError};
use super::store::{Store, StoreName};
use super::time;
use super::worker::{self, LoadStage};

fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(object, &JsValue::from_str(key), &value.into());
}

/// Loads `bytes` (a view of a whole buffer, handed over) as `name` in the worker (or on the
/// main thread when `in_worker` is false) and returns `{ok, items, pairs, judgeRecords, diagnostics, ms, stages, error}`.
#[wasm_bindgen]
pub async fn edge_probe_load(name: String, bytes: Uint8Array, in_worker: bool) -> JsValue {
    let stages = Array::new();
    let stages_seen = stages.clone();
    let started = time::monotonic_ms();
    let result = if in_worker {
        worker::load_buffer_in_worker(name, bytes.buffer(), move |stage| {
            let label = match stage {
                LoadStage::StartingWorker => "starting-worker",
                LoadStage::Parsing { in_worker: true } => "parsing-in-worker",
                LoadStage::Parsing { in_worker: false } => "parsing-on-main-thread",
                LoadStage::Receiving => "receiving",
            };
            stages_seen.push(&JsValue::from_str(label));
            stages_seen.push(&JsValue::from_f64(time::monotonic_ms() - started));
        })
        .await
    } else {
        worker::load_on_main_thread(&name, &bytes.to_vec()).await
    };
    let out = Object::new();
    set(&out, "ms", time::monotonic_ms() - started);
    set(&out, "startedAt", started);
    set(&out, "stages", stages);
    match result {
        Ok(loaded) => {
            set(&out, "ok", true);
            set(&out, "items", loaded.dataset.items.len() as u32);
            set(&out, "pairs", loaded.dataset.pairs.len() as u32);
            set(&out, "judgeRecords", loaded.summary.counts.judge_records as u32);
            set(&out, "diagnostics", loaded.diagnostics.len() as u32);
            set(&out, "format", loaded.summary.format.clone());
            let before_drop = time::monotonic_ms();
            drop(loaded);
            set(&out, "dropMs", time::monotonic_ms() - before_drop);
        }
        Err(message) => {
            set(&out, "ok", false);
            set(&out, "error", message.to_string());
        }
    }
    out.into()
}

/// POSTs `body` to `url` with a secret bearer token, a `timeout_ms` limit, and an abort after
/// `abort_after_ms` (0: never). Returns `{status, headers, body}` or `{error, message}` where
/// `error` is `network`, `timeout`, `aborted`, `body` or `invalid`.
#[wasm_bindgen]
pub async fn edge_probe_send(
    url: String,
    body: String,
    bearer: String,
    timeout_ms: u32,
    abort_after_ms: u32,
) -> JsValue {
    let request = HttpRequest {
        method: if body.is_empty() { Method::Get } else { Method::Post },
        url,
        headers: vec![
            ("Authorization".to_owned(), format!("Bearer {bearer}")),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ],
        body,
    };
    let handle = AbortHandle::new();
    if abort_after_ms > 0 {
        let h = handle.clone();
        wasm_bindgen_futures::spawn_local(async move {
            time::sleep(abort_after_ms).await;
            h.abort();
        });
    }
    let out = Object::new();
    match http::send(&request, timeout_ms, Some(&handle)).await {
        Ok(reply) => {
            set(&out, "status", reply.status);
            let headers = Array::new();
            for (k, v) in &reply.headers {
                headers.push(&Array::of2(&JsValue::from_str(k), &JsValue::from_str(v)));
            }
            set(&out, "headers", headers);
            set(&out, "body", reply.body);
        }
        Err(e) => {
            let kind = match e {
                FetchError::Network(_) => "network",
                FetchError::Timeout { .. } => "timeout",
                FetchError::Aborted => "aborted",
                FetchError::BodyInterrupted { .. } => "body",
                _ => "invalid",
            };
            set(&out, "error", kind);
            set(&out, "message", e.to_string());
        }
    }
    set(&out, "inFlightAfter", handle.in_flight() as u32);
    out.into()
}

/// `put` or `get` in the `settings` store of the real `concord` database, for a
/// durability-across-reload test. Returns the value read (or `null`), or the error text.
#[wasm_bindgen]
pub async fn edge_probe_store(op: String, key: String, value: String) -> JsValue {
    let store = match Store::open().await {
        Ok(s) => s,
        Err(e) => return JsValue::from_str(&format!("error: {e}")),
    };
    let result = match op.as_str() {
        "put" => store.put(StoreName::Settings, &key, &value).await.map(|()| None),
        _ => store.get(StoreName::Settings, &key).await,
    };
    match result {
        Ok(Some(v)) => JsValue::from_str(&v),
        Ok(None) => JsValue::NULL,
        Err(e) => JsValue::from_str(&format!("error: {e}")),
    }
}
