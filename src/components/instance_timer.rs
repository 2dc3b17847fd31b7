//! The one per-item timer of the app: the core's [`ItemTimer`] wired to the page — the item
//! under the cursor, the page's visibility (and, for a panel, whether the focus is in it), a
//! clock each second for the display, the stretch saved every five seconds and when the page
//! goes away, and the last stretch handed over when the view is torn down. CoEval's scrutiny,
//! the review of a judge run and the Rate screen's exercise time use it.

use concord_core::annotation::{ItemTimer, Stretch};
use leptos::prelude::*;

use crate::edge::time::monotonic_ms;

/// What a screen asks of its timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimerOptions {
    /// Count only while the focus is within the element this selector matches (a panel of a
    /// screen with other work on it); leaving it stops the count, coming back resumes it.
    pub within: Option<&'static str>,
    /// Tick the clock each second (for a display of the time), record the running stretch
    /// every five seconds and when the page is hidden away (`pagehide`), so a crash loses at
    /// most five seconds; without it a stretch is recorded when the item changes, the tab is
    /// hidden or the view goes.
    pub autosave: bool,
}

/// The timer a screen shows: the core's timer and the clock's latest tick.
#[derive(Clone, Copy)]
pub struct InstanceTimer {
    timer: StoredValue<ItemTimer>,
    now: RwSignal<f64>,
}

impl InstanceTimer {
    /// Milliseconds of the running stretch, not yet recorded (tracks the clock's tick).
    pub fn running_ms(&self) -> f64 {
        let now = self.now.try_get().unwrap_or_default();
        self.timer.try_with_value(|t| t.running_ms(now)).unwrap_or(0.0)
    }

    /// Reads the core's timer at the clock's latest tick (tracks the tick).
    pub fn with<T>(&self, f: impl FnOnce(&ItemTimer, f64) -> T) -> Option<T> {
        let now = self.now.try_get()?;
        self.timer.try_with_value(|t| f(t, now))
    }
}

fn page_visible() -> bool {
    document().visibility_state() != web_sys::VisibilityState::Hidden
}

fn within(selector: &str, node: Option<web_sys::Element>) -> bool {
    node.and_then(|el| el.closest(selector).ok().flatten()).is_some()
}

/// Times `item()` (tracked; `None`: nothing to time). `record` gets each stretch while the view
/// lives; `leave` gets the last one as the view is torn down, synchronously — it must not
/// write reactive state then (closures whose memos are already disposed would re-run: a panic
/// that stops the page, issue 36), but may take what it needs and record it later.
pub fn use_instance_timer(
    item: impl Fn() -> Option<String> + Send + Sync + 'static,
    record: impl Fn(Stretch) + Copy + Send + Sync + 'static,
    leave: impl FnOnce(Stretch) + Send + Sync + 'static,
    options: TimerOptions,
) -> InstanceTimer {
    let timer = StoredValue::new(ItemTimer::new());
    let now = RwSignal::new(monotonic_ms());
    let record_some = move |stretch: Option<Stretch>| {
        if let Some(s) = stretch {
            record(s);
        }
    };
    let in_use = move || {
        page_visible() && options.within.is_none_or(|sel| within(sel, document().active_element()))
    };
    let set_in_use = move |active: bool| {
        if active {
            timer.try_update_value(|t| t.show(monotonic_ms()));
            now.try_set(monotonic_ms());
        } else {
            record_some(timer.try_update_value(|t| t.hide(monotonic_ms())).flatten());
        }
    };
    let flush = move || record_some(timer.try_update_value(|t| t.flush(monotonic_ms())).flatten());

    Effect::new(move |_| {
        let on = item();
        let stretch = timer.try_update_value(|t| t.focus(on.as_deref(), monotonic_ms(), in_use()));
        record_some(stretch.flatten());
    });
    let visibility =
        window_event_listener(leptos::ev::visibilitychange, move |_| set_in_use(in_use()));
    let mut listeners = vec![visibility];
    if let Some(selector) = options.within {
        listeners.push(window_event_listener(leptos::ev::focusin, move |ev| {
            let target = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into(t).ok());
            set_in_use(page_visible() && within(selector, target));
        }));
        listeners.push(window_event_listener(leptos::ev::focusout, move |ev| {
            // Where the focus goes; none (the page itself) is outside the panel.
            let to = ev.related_target().and_then(|t| wasm_bindgen::JsCast::dyn_into(t).ok());
            set_in_use(page_visible() && within(selector, to));
        }));
    }
    if options.autosave {
        let ticks = StoredValue::new(0u32);
        if let Ok(handle) = set_interval_with_handle(
            move || {
                now.set(monotonic_ms());
                ticks.update_value(|t| *t += 1);
                // Saved every 5 s (one small IndexedDB put): a crash loses at most 5 s.
                if ticks.get_value().is_multiple_of(5) {
                    flush();
                }
            },
            std::time::Duration::from_millis(1000),
        ) {
            on_cleanup(move || handle.clear());
        }
        listeners.push(window_event_listener(leptos::ev::pagehide, move |_| flush()));
    }
    on_cleanup(move || {
        if let Some(stretch) = timer.try_update_value(|t| t.hide(monotonic_ms())).flatten() {
            leave(stretch);
        }
        for listener in listeners {
            listener.remove();
        }
    });
    InstanceTimer { timer, now }
}
