//! The page's lifecycle at the edge: whether the page is being left (a reload, a closed tab,
//! a navigation), so that work which would be paid for and never read is not started.

use std::cell::Cell;

use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

thread_local! {
    static LEAVING: Cell<bool> = const { Cell::new(false) };
    static WATCHING: Cell<bool> = const { Cell::new(false) };
}

/// Starts watching the page's `pagehide` (leaving) and `pageshow` (back, e.g. from the
/// back-forward cache) once; later calls do nothing, and so does a call in a worker.
pub fn watch() {
    if WATCHING.with(|w| w.replace(true)) {
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let hide = Closure::<dyn FnMut()>::new(|| LEAVING.with(|l| l.set(true)));
    let show = Closure::<dyn FnMut()>::new(|| LEAVING.with(|l| l.set(false)));
    let _ = window.add_event_listener_with_callback("pagehide", hide.as_ref().unchecked_ref());
    let _ = window.add_event_listener_with_callback("pageshow", show.as_ref().unchecked_ref());
    // Listeners for the page's whole life.
    hide.forget();
    show.forget();
}

/// Whether the page is being left: from its `pagehide` until a `pageshow`. A request sent
/// then is billed by the provider and its answer never read (the browser aborts it).
pub fn leaving() -> bool {
    LEAVING.with(Cell::get)
}
