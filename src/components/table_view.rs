//! Renders a core [`report::Table`](concord_core::report::Table): group headings, row labels,
//! cells with their marks, intervals and notes, and the export buttons that save the table
//! through the core's exporters (the same bytes as `concord report`). Each cell carries its key
//! (`data-cell`), its value and interval at full precision (`data-value`, `data-low`,
//! `data-high`) for tests and tools.

use std::sync::Arc;

use concord_core::report::{self, Cell, Format, Table};
use leptos::prelude::*;

use super::download::{SaveError, save_text};

/// The formats a table's export buttons offer.
pub const TABLE_FORMATS: [Format; 4] = [Format::Csv, Format::Markdown, Format::Latex, Format::Json];

/// Saves `table` in `format` as `<id>.<ext>`.
pub fn save_table(table: &Table, format: Format) -> Result<(), SaveError> {
    let Some(text) = report::export_table(table, format) else { return Ok(()) };
    save_text(&report::file_name(&table.id, format), format.mime(), &text)
}

/// One button per format, labelled `Export <title> as <format>`. A failure to save is logged
/// to the console and passed to `on_error` when given.
#[component]
pub fn ExportButtons(
    table: Arc<Table>,
    #[prop(default = None)] on_error: Option<Callback<String>>,
) -> impl IntoView {
    TABLE_FORMATS
        .into_iter()
        .map(|format| {
            let t = table.clone();
            let aria = format!("Export {} as {}", t.title, format.label());
            let id = t.id.clone();
            view! {
                <button type="button" class="secondary small" aria-label=aria data-table=id
                    on:click=move |_| {
                        if let Err(e) = save_table(&t, format) {
                            let e = e.to_string();
                            web_sys::console::warn_1(&e.clone().into());
                            if let Some(cb) = on_error { cb.run(e); }
                        }
                    }>{format.label()}</button>
            }
        })
        .collect_view()
}

/// The tooltip of a cell: its note.
fn cell_title(cell: &Cell) -> Option<String> {
    cell.note.clone()
}

fn cell_content(cell: &Cell) -> AnyView {
    let text = cell.text.clone();
    let spread = cell.spread_text().map(|s| view! { " " <span class="spread">{s}</span> });
    if cell.is_bold() {
        view! { <strong>{text}</strong>{spread} }.into_any()
    } else {
        view! { <span>{text}</span>{spread} }.into_any()
    }
}

/// A table of the core's report model. With `on_cell`, each keyed cell is a button that calls
/// it with (row, column); `testid` names the `<table>` for tests; `caption` shows the
/// title above it; `exports` adds the export buttons below.
#[component]
pub fn TableView(
    #[prop(into)] table: Arc<Table>,
    #[prop(optional, into)] testid: Option<String>,
    #[prop(optional)] on_cell: Option<Callback<(usize, usize)>>,
    #[prop(default = true)] caption: bool,
    #[prop(default = true)] exports: bool,
    #[prop(optional, into)] class: Option<String>,
    #[prop(optional, into)] on_error: Option<Callback<String>>,
) -> impl IntoView {
    let t = table.clone();
    let grouped = t.has_groups();
    let head = if grouped {
        let groups = t.groups();
        let top = groups
            .iter()
            .map(|&(group, first, count)| match group {
                Some(g) => view! { <th scope="colgroup" colspan=count class="num">{g.to_owned()}</th> }.into_any(),
                None => {
                    let c = &t.columns[first];
                    view! { <th scope="col" rowspan="2" class:num=!c.text title=c.description.clone()>{c.label.clone()}</th> }.into_any()
                }
            })
            .collect_view();
        let sub = t
            .columns
            .iter()
            .filter(|c| c.group.is_some())
            .map(|c| view! { <th scope="col" class="sub" class:num=!c.text title=c.description.clone()>{c.label.clone()}</th> })
            .collect_view();
        view! {
            <tr><th scope="col" rowspan="2">{t.corner.clone()}</th>{top}</tr>
            <tr>{sub}</tr>
        }
        .into_any()
    } else {
        view! {
            <tr>
                <th scope="col">{t.corner.clone()}</th>
                {t.columns.iter().map(|c| view! { <th scope="col" class:num=!c.text title=c.description.clone()>{c.label.clone()}</th> }).collect_view()}
            </tr>
        }
        .into_any()
    };
    let body = t
        .rows
        .iter()
        .enumerate()
        .map(|(r, row)| {
            let cells = t
                .columns
                .iter()
                .enumerate()
                .map(|(c, column)| {
                    let cell = row.cells.get(c).cloned().unwrap_or_default();
                    let title = cell_title(&cell);
                    let interval = cell.interval_text().map(|ci| view! { <span class="ci">{ci}</span> });
                    // A keyed cell names something to open (a Results cell opens its items even
                        // when its value is undefined); a cell without a key has nothing behind it.
                    let inner = match on_cell {
                        Some(cb) if cell.key.is_some() => {
                            let aria = format!(
                                "{}, {}{}: {}.{}",
                                row.label,
                                column.full_label(),
                                column.description.as_ref().map(|d| format!(" ({d})")).unwrap_or_default(),
                                cell.display(),
                                title.as_ref().map(|t| format!(" {t}")).unwrap_or_default()
                            );
                            view! {
                                <button type="button" class="cell" title=title.clone() aria-label=aria
                                    on:click=move |_| cb.run((r, c))>{cell_content(&cell)}</button>
                            }
                            .into_any()
                        }
                        _ => cell_content(&cell),
                    };
                    view! {
                        <td class:num=!column.text class:text=column.text class:sig=cell.is_bold()
                            data-cell=cell.key.clone() data-value=cell.value.map(|v| v.to_string())
                            data-low=cell.interval.map(|i| i.low.to_string())
                            data-high=cell.interval.map(|i| i.high.to_string())
                            title=if on_cell.is_some() { None } else { title.clone() }>
                            {inner}{interval}
                        </td>
                    }
                })
                .collect_view();
            view! { <tr><th scope="row">{row.label.clone()}</th>{cells}</tr> }
        })
        .collect_view();
    let notes = t.notes.clone();
    let class = class.unwrap_or_else(|| "report-table".to_owned());
    view! {
        <figure class=class>
            {caption.then(|| view! { <figcaption>{t.title.clone()}</figcaption> })}
            <div class="table-wrap" tabindex="0" role="region" aria-label=t.title.clone()>
                <table class="data" data-table=t.id.clone() data-testid=testid>
                    <thead>{head}</thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            {(!notes.is_empty()).then(|| view! {
                <div class="table-notes">{notes.into_iter().map(|n| view! { <p class="muted">{n}</p> }).collect_view()}</div>
            })}
            {exports.then(|| view! { <div class="row exports"><ExportButtons table=table.clone() on_error=on_error/></div> })}
        </figure>
    }
}
