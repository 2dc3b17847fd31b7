//! The item timer: time spent on the item under a person's cursor, counted while the page is
//! visible, with the clock passed in (the core has none).

/// Stretches shorter than this are not written to the log (a glance at an item while paging
/// through is not time spent on it).
pub const MIN_TIMED_MS: u64 = 500;

/// A stretch of time spent on one item: what the log's timer event records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stretch {
    /// The item (CoEval: the instance; a review: its run and item, [`crate::study::workbench::review::timer_item`]).
    pub item: String,
    pub ms: u64,
}

/// Time spent on the item under the cursor, counted while the page is visible. The screen
/// passes a monotonic clock in milliseconds; the timer says when to write a [`Stretch`] to the
/// log (on a switch of item, when the page hides, and every few seconds so a crash loses
/// little).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ItemTimer {
    item: Option<String>,
    /// When the current stretch began; `None` while the page is hidden.
    since: Option<f64>,
}

impl ItemTimer {
    pub fn new() -> ItemTimer {
        ItemTimer::default()
    }

    /// The item being timed.
    pub fn item(&self) -> Option<&str> {
        self.item.as_deref()
    }

    /// The stretch so far, restarting it at `now`; `None` when it is shorter than
    /// [`MIN_TIMED_MS`] (it keeps counting) or the page is hidden.
    pub fn flush(&mut self, now: f64) -> Option<Stretch> {
        let (Some(item), Some(t0)) = (&self.item, self.since) else { return None };
        let ms = (now - t0).max(0.0) as u64;
        if ms < MIN_TIMED_MS {
            return None;
        }
        self.since = Some(now);
        Some(Stretch { item: item.clone(), ms })
    }

    /// The cursor is on `item` now (visible or not): the previous item's stretch is flushed;
    /// a new item starts counting at `now` when the page is visible.
    pub fn focus(&mut self, item: Option<&str>, now: f64, visible: bool) -> Option<Stretch> {
        if item == self.item.as_deref() {
            return None;
        }
        let stretch = self.flush(now);
        self.item = item.map(str::to_owned);
        self.since = visible.then_some(now);
        stretch
    }

    /// The page was hidden: the stretch so far is flushed and counting stops.
    pub fn hide(&mut self, now: f64) -> Option<Stretch> {
        let stretch = self.flush(now);
        self.since = None;
        stretch
    }

    /// The page is visible again: counting resumes from `now`.
    pub fn show(&mut self, now: f64) {
        if self.item.is_some() && self.since.is_none() {
            self.since = Some(now);
        }
    }

    /// Milliseconds of the running stretch, not yet in the log.
    pub fn running_ms(&self, now: f64) -> f64 {
        self.since.map_or(0.0, |t0| (now - t0).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stretch(item: &str, ms: u64) -> Option<Stretch> {
        Some(Stretch { item: item.into(), ms })
    }

    #[test]
    fn the_timer_counts_visible_time_per_item() {
        let mut t = ItemTimer::new();
        assert_eq!(t.focus(Some("i1"), 1_000.0, true), None);
        // Short stretches keep counting instead of being written.
        assert_eq!(t.flush(1_200.0), None);
        assert_eq!(t.flush(6_000.0), stretch("i1", 5_000));
        assert_eq!(t.running_ms(7_000.0), 1_000.0);
        // Hidden: the stretch is written, nothing counts until visible again.
        assert_eq!(t.hide(8_000.0), stretch("i1", 2_000));
        assert_eq!(t.running_ms(20_000.0), 0.0);
        assert_eq!(t.flush(20_000.0), None);
        t.show(20_000.0);
        assert_eq!(t.running_ms(21_000.0), 1_000.0);
        // Another item: the old one's stretch goes to the log under its name.
        assert_eq!(t.focus(Some("i2"), 23_000.0, true), stretch("i1", 3_000));
        assert_eq!(t.item(), Some("i2"));
        assert_eq!(t.focus(Some("i2"), 24_000.0, true), None, "same item: nothing changes");
        // Focused while hidden: nothing counts until shown.
        assert_eq!(t.focus(Some("i3"), 30_000.0, false), stretch("i2", 7_000));
        assert_eq!(t.running_ms(40_000.0), 0.0);
    }
}
