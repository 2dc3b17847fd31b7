//! A table for many rows: only the rows in view (plus a few either side) are in the DOM.
//!
//! Rows have a fixed height ([`ROW_HEIGHT`], kept in step with `.vtable` in
//! `style/app.css`); the scroll container holds the header, a spacer row above the window
//! and one below, so the scroll bar reflects every row. The container is a focusable,
//! labelled region, so arrow keys, Page Up/Down, Home and End scroll it; the table carries
//! `aria-rowcount` and every row its `aria-rowindex`, and the row count is printed beside it.
//! Rows are keyed by index, so a scroll renders only the rows that come into view.
//!
//! Heights are set through the CSSOM (`style:` in the view, `style.setProperty`), which the
//! page's CSP allows; the CSP forbids style attributes in markup.

use std::sync::Arc;

use leptos::prelude::*;

/// The height of a row in CSS pixels (`.vtable tbody td` in `style/app.css`).
pub const ROW_HEIGHT: f64 = 32.0;
/// Rows rendered beyond each edge of the view.
const OVERSCAN: usize = 8;
/// The view's height before the first scroll event tells (`.vtable` max-height: 30rem).
const DEFAULT_VIEWPORT: f64 = 480.0;

/// A column heading; numeric columns are right-aligned.
#[derive(Debug, Clone, PartialEq)]
pub struct VColumn {
    pub title: String,
    pub numeric: bool,
}

/// Renders the cells (`<td>` elements) of row `i`.
pub type RowCells = Arc<dyn Fn(usize) -> AnyView + Send + Sync>;

/// The rows `[first, end)` to render for a scroll position.
pub fn window(scroll_top: f64, viewport: f64, rows: usize) -> (usize, usize) {
    let top = (scroll_top.max(0.0) / ROW_HEIGHT).floor() as usize;
    let first = top.saturating_sub(OVERSCAN).min(rows);
    let visible = (viewport.max(ROW_HEIGHT) / ROW_HEIGHT).ceil() as usize + 1;
    (first, (top + visible + OVERSCAN).min(rows))
}

#[component]
pub fn VirtualTable(
    /// The accessible name of the scroll region and of the table.
    #[prop(into)]
    label: String,
    /// `data-testid` of the table; the region is `{testid}-scroll`, the count `{testid}-count`.
    testid: &'static str,
    columns: Vec<VColumn>,
    /// How many rows there are.
    rows: usize,
    cells: RowCells,
) -> impl IntoView {
    let scroll_top = RwSignal::new(0.0f64);
    let viewport = RwSignal::new(DEFAULT_VIEWPORT);
    let range = Memo::new(move |_| window(scroll_top.get(), viewport.get(), rows));
    let on_scroll = move |ev: leptos::ev::Event| {
        let el: web_sys::HtmlElement = event_target(&ev);
        scroll_top.set(f64::from(el.scroll_top()));
        viewport.set(f64::from(el.client_height()));
    };
    let width = columns.len().max(1);
    let count_id = format!("{testid}-count");
    let described_by = count_id.clone();
    let count_testid = count_id.clone();
    let region_label = label.clone();
    let region_testid = format!("{testid}-scroll");
    let spacer = move |height: Signal<f64>| {
        view! {
            <tr class="spacer" aria-hidden="true">
                <td colspan=width style:height=move || format!("{}px", height.get())></td>
            </tr>
        }
    };
    let above = Signal::derive(move || range.get().0 as f64 * ROW_HEIGHT);
    let below = Signal::derive(move || (rows - range.get().1) as f64 * ROW_HEIGHT);
    let count = if rows == 1 {
        "1 row".to_owned()
    } else {
        format!("{} rows", concord_core::words::int(rows))
    };
    view! {
        <p class="muted vtable-count" id=count_id data-testid=count_testid>
            {count}
            " (scroll the table, or focus it and use the arrow and page keys)"
        </p>
        <div
            class="vtable"
            role="region"
            tabindex="0"
            aria-label=region_label
            aria-describedby=described_by
            data-testid=region_testid
            on:scroll=on_scroll
        >
            <table class="data" data-testid=testid aria-label=label aria-rowcount={rows + 1}>
                <thead>
                    <tr aria-rowindex="1">
                        {columns
                            .into_iter()
                            .map(|c| {
                                let class = if c.numeric { "num" } else { "" };
                                view! { <th scope="col" class=class>{c.title}</th> }
                            })
                            .collect_view()}
                    </tr>
                </thead>
                <tbody>
                    {spacer(above)}
                    // Keyed by row index: a scroll by a few rows adds and removes a few rows.
                    <For
                        each=move || {
                            let (first, end) = range.get();
                            first..end
                        }
                        key=|i| *i
                        children=move |i| view! { <tr aria-rowindex={i + 2}>{cells(i)}</tr> }
                    />
                    {spacer(below)}
                </tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_covers_the_view_and_stops_at_the_ends() {
        // 480 px show 15 rows; 8 more either side.
        assert_eq!(window(0.0, 480.0, 10_000), (0, 24));
        assert_eq!(window(3200.0, 480.0, 10_000), (92, 124));
        // The end: the last row is rendered, nothing past it.
        let end = 10_000.0 * ROW_HEIGHT - 480.0;
        let (first, last) = window(end, 480.0, 10_000);
        assert_eq!(last, 10_000);
        assert!(last - first < 40);
        // Fewer rows than the view; an overscrolled position.
        assert_eq!(window(0.0, 480.0, 5), (0, 5));
        assert_eq!(window(1e9, 480.0, 5), (5, 5));
        assert_eq!(window(-10.0, 0.0, 5), (0, 5));
    }
}
