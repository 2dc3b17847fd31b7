//! Concord's web app: Leptos screens and components, and the browser edge (files, fetch, storage).
//!
//! Screens stay thin: what they show comes from the core (`concord_core::study`,
//! `concord_core::report`) or from plain types tested natively (e.g. `screens::data::model`);
//! what they do to the browser goes through [`edge`] and [`browser`].

pub mod app;
pub mod components;
pub mod edge;
pub mod links;
pub mod persist;
pub mod run;
pub mod screens;
pub mod state;

use wasm_bindgen::prelude::wasm_bindgen;

/// Entry point called by `boot.js` once the module is instantiated: mounts the app on `<body>`.
/// `worker_script` is the address of this build's `worker.js` (beside `boot.js`).
#[wasm_bindgen]
pub fn start(worker_script: String) {
    console_error_panic_hook::set_once();
    edge::worker::protocol::set_worker_script(worker_script);
    leptos::mount::mount_to_body(app::App);
}
