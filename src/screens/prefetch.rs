//! Fetching a screen's chunk ahead of its tab from code below `screens/mod.rs` (a student's
//! exercise opened in `class::session`: rating and reviewing then work offline). The split
//! points are `screens/mod.rs`'s, which installs them here at start-up ([`install`]), so the
//! code that asks does not reach up to the module that shows it.

use std::cell::Cell;

/// The chunk fetches code below the split points may ask for.
#[derive(Clone, Copy)]
pub struct Prefetch {
    /// The Rate screen's chunk (`screens::prefetch_rate`).
    pub rate: fn(),
    /// The Results screen's chunk (`screens::prefetch_results`).
    pub results: fn(),
}

thread_local! {
    static INSTALLED: Cell<Option<Prefetch>> = const { Cell::new(None) };
}

/// Installs the fetches (once, at start-up, before any screen is shown).
pub fn install(prefetch: Prefetch) {
    INSTALLED.with(|i| i.set(Some(prefetch)));
}

/// Fetches the Rate screen's chunk ahead of its tab.
pub fn rate() {
    if let Some(p) = INSTALLED.with(Cell::get) {
        (p.rate)();
    }
}

/// Fetches the Results screen's chunk ahead of its tab.
pub fn results() {
    if let Some(p) = INSTALLED.with(Cell::get) {
        (p.results)();
    }
}
