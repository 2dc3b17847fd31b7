//! Concord's web app: Leptos screens and components, and the browser edge (files, fetch, storage).
//!
//! Components stay thin: what they show comes from plain types in [`view_model`], which are
//! tested natively; what they do to the browser goes through [`browser`].

pub mod app;
pub mod browser;
pub mod bundle;
pub mod components;
pub mod edge;
pub mod runner;
pub mod screens;
pub mod state;
pub mod view_model;

use wasm_bindgen::prelude::wasm_bindgen;

/// Entry point called by `boot.js` once the module is instantiated: mounts the app on `<body>`.
#[wasm_bindgen]
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
