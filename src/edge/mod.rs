//! The browser edge: everything the app does to the browser besides the DOM — network
//! (`fetch`), storage (IndexedDB), time (clock, timers, yielding) and the loader worker.
//!
//! Every function here is `async` (or instantaneous) and is meant to be driven by
//! `wasm_bindgen_futures::spawn_local` from Leptos; none blocks the main thread for longer
//! than the work it is given. Each works in a window and (except [`worker::load_in_worker`],
//! which starts one) in a dedicated worker, because it reaches the browser through the global
//! scope (`globalThis.fetch`, `globalThis.indexedDB`, `globalThis.setTimeout`), not `window`.
//!
//! | Concern | Where |
//! |---|---|
//! | read the files the user picks or drops | [`files`] |
//! | send a core [`HttpRequest`](concord_core::run::HttpRequest) with timeout and abort; fetch a dataset URL | [`http`] |
//! | IndexedDB `concord`: run cache, run manifests, annotation logs, settings, saved workspaces (bytes) | [`store`] |
//! | epoch and monotonic clocks, `sleep`, `yield_now` | [`time`] |
//! | whether the page is being left (`pagehide`), so no call is sent that nobody will read | [`lifecycle`] |
//! | `data::load` in a module Web Worker (`worker.js`), with a main-thread fallback | [`worker`] |
//! | split modules loaded ahead of need, behind the user's own loads | [`chunks`] |
//! | exported hooks for the Playwright tests | [`probe`] |
//!
//! Secrets: request headers carry the API key, so no function here logs, formats or stores a
//! header value; errors name what failed and where, never the value.
//!
//! Natively (`cargo test` of this package) the module compiles but every function that touches
//! the browser panics: it is exercised by `tests/edge.rs` (wasm-bindgen-test in headless
//! Chromium) and `tests/e2e/edge.test.mjs` (Playwright).

pub mod chunks;
pub mod files;
pub mod http;
pub mod lifecycle;
pub mod probe;
pub mod store;
pub mod time;
pub mod worker;

pub(crate) mod js;
