//! The chunk loader's priorities (issue 39): the split modules the idle prefetch loads ahead
//! of need go through the loader's own prefetch (`globalThis.__concordChunks`, written into
//! `__wasm_split.js` by `cargo xtask build`, `xtask/src/chunk_priority.rs`), which fetches at
//! low priority, only while nothing the user asked for is loading, and gives way to a screen
//! the user opens: its fetches on their way that the user's screen does not need are aborted
//! and start again once that screen is in. A loader without it (an unsplit build, or a
//! loader of another layout) has no `__concordChunks`.

use js_sys::{Function, Promise};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::js;

fn loader() -> Option<JsValue> {
    let chunks = js::global_property("__concordChunks");
    chunks.is_object().then_some(chunks)
}

fn method(name: &str) -> Option<(JsValue, Function)> {
    let chunks = loader()?;
    let f = js::property(&chunks, name).dyn_into::<Function>().ok()?;
    Some((chunks, f))
}

/// Whether a module the user asked for (a screen opened, a file loaded) is loading: the
/// prefetch waits meanwhile.
pub fn user_loading() -> bool {
    method("busy")
        .and_then(|(chunks, busy)| busy.call0(&chunks).ok())
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Loads split module `name` (a `wasm_split` module name, e.g. `screen_judge`) ahead of need,
/// behind whatever the user asks for. `None` when the loader has no prefetch (then load it as
/// a screen would); else whether it loaded (a failed load is forgotten, as a screen's is).
pub async fn prefetch(name: &str) -> Option<bool> {
    let (chunks, prefetch) = method("prefetch")?;
    let promise =
        prefetch.call1(&chunks, &JsValue::from_str(name)).ok()?.dyn_into::<Promise>().ok()?;
    Some(JsFuture::from(promise).await.ok().and_then(|v| v.as_bool()).unwrap_or(false))
}
