//! Time at the edge: the wall clock, a monotonic clock, timers and yielding to the browser.
//!
//! The core never reads a clock (its scheduler and retry policy take the time as a parameter);
//! these are the functions that feed it. All of them work in a window and in a worker.

use js_sys::{Function, Promise};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::js;

/// Milliseconds since the Unix epoch (`Date.now()`), for logs, manifests and `retry-after`
/// dates. It can jump when the user's clock changes: measure durations with [`monotonic_ms`].
pub fn now_ms() -> u64 {
    js_sys::Date::now().max(0.0) as u64
}

/// Milliseconds since the page (or worker) started, from `performance.now()`: never goes
/// backwards, sub-millisecond resolution (coarsened by the browser). Falls back to
/// `Date.now()` where `performance` is missing.
pub fn monotonic_ms() -> f64 {
    let performance = js::global_property("performance");
    match performance.dyn_into::<web_sys::Performance>() {
        Ok(p) => p.now(),
        Err(_) => js_sys::Date::now(),
    }
}

/// A Unix time in ms as this browser writes local dates and times ("25/11/2026, 21:04:05").
pub fn local_time(ms: u64) -> String {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(date.to_locale_string("en-GB", &wasm_bindgen::JsValue::UNDEFINED))
}

/// Resolves after at least `ms` milliseconds (`setTimeout`). Browsers delay timers in
/// background tabs (to about once a second, or more); callers that pace requests should
/// re-read [`monotonic_ms`] after waking rather than assume the exact delay.
pub async fn sleep(ms: u32) {
    let delay = i32::try_from(ms).unwrap_or(i32::MAX);
    let promise = Promise::new(&mut |resolve: Function, _reject: Function| {
        js::set_timeout(&resolve, delay);
    });
    // The promise never rejects.
    let _ = JsFuture::from(promise).await;
}

/// Resolves when the browser is idle (`requestIdleCallback`), or after `timeout_ms` at the
/// latest; where there is no idle callback (Safari), after a short sleep.
pub async fn idle(timeout_ms: u32) {
    let window = js::global_property("window");
    let request = js::property(&window, "requestIdleCallback");
    let Some(request) = request.dyn_ref::<Function>() else {
        sleep(timeout_ms.min(200)).await;
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"timeout".into(), &timeout_ms.into());
    let promise = Promise::new(&mut |resolve: Function, _reject: Function| {
        let _ = request.call2(&window, &resolve, &options);
    });
    let _ = JsFuture::from(promise).await;
}

/// Gives the browser a chance to handle input and paint, then resumes: call it between
/// chunks of main-thread work so no task runs long. Uses `scheduler.yield()` where the browser
/// has it (Chromium 129+: resumes ahead of other queued tasks) and `setTimeout(0)` otherwise
/// (a new task; after a few nested calls browsers clamp it to about 4 ms).
pub async fn yield_now() {
    let scheduler = js::global_property("scheduler");
    let yield_fn = js::property(&scheduler, "yield");
    if let Some(f) = yield_fn.dyn_ref::<Function>()
        && let Ok(value) = f.call0(&scheduler)
        && let Ok(promise) = value.dyn_into::<Promise>()
    {
        let _ = JsFuture::from(promise).await;
        return;
    }
    sleep(0).await;
}

/// Work between two yields to the browser: about one frame's worth at 60 Hz, so nothing the
/// page computes in slices blocks input or painting for long.
pub const FRAME_BUDGET_MS: f64 = 12.0;

/// The one "work a frame's worth, then yield" loop every slice-by-slice computation uses:
/// call [`FrameBudget::tick`] after each small step; it yields once the budget is spent.
///
/// ```ignore
/// let mut budget = FrameBudget::new();
/// for chunk in items.chunks(256) {
///     encode(chunk);
///     budget.tick().await;
/// }
/// ```
#[derive(Debug)]
pub struct FrameBudget {
    since: f64,
    budget_ms: f64,
}

impl Default for FrameBudget {
    fn default() -> Self {
        FrameBudget::new()
    }
}

impl FrameBudget {
    /// A budget of [`FRAME_BUDGET_MS`] starting now.
    pub fn new() -> FrameBudget {
        FrameBudget { since: monotonic_ms(), budget_ms: FRAME_BUDGET_MS }
    }

    /// Whether this slice's budget is spent (without yielding): for loops that must stop at a
    /// step boundary of their own.
    pub fn spent(&self) -> bool {
        monotonic_ms() - self.since > self.budget_ms
    }

    /// Yields to the browser if the budget is spent, and starts a new slice after it.
    pub async fn tick(&mut self) {
        if self.spent() {
            self.yield_now().await;
        }
    }

    /// Yields to the browser now and starts a new slice.
    pub async fn yield_now(&mut self) {
        yield_now().await;
        self.since = monotonic_ms();
    }
}
