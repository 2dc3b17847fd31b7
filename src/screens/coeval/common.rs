//! What the CoEval screen's panels share: the screen's context and the report's tables and
//! figures with their export buttons (a failed save shows in the screen's banner).

use std::sync::Arc;

use concord_core::report::{Report, Table};
use leptos::prelude::*;

use crate::components::figure_view::FigureView;
use crate::components::table_view::TableView;

use super::state::Ctx;

/// The screen's context (provided by [`super::CoEvalPage`]).
pub fn use_ctx() -> Ctx {
    expect_context::<Ctx>()
}

/// A table of the core's report with its export buttons; a failed save shows in the banner.
#[component]
pub fn CoEvalTable(
    #[prop(into)] table: Arc<Table>,
    #[prop(into)] testid: String,
    #[prop(default = true)] exports: bool,
    #[prop(default = true)] caption: bool,
) -> impl IntoView {
    let ctx = use_ctx();
    let on_error = Callback::new(move |e: String| ctx.fail(e));
    view! {
        <TableView table=table testid=testid exports=exports caption=caption on_error=on_error/>
    }
}

/// Every table of a report, each followed by the figure of the same id when there is one
/// (its heatmap); `testid` names each table from its id.
#[component]
pub fn ReportView(report: Report, testid: fn(&str) -> String) -> impl IntoView {
    let ctx = use_ctx();
    let on_error = Callback::new(move |e: String| ctx.fail(e));
    let Report { tables, figures } = report;
    view! {
        <div class="coeval-report">
            {tables
                .into_iter()
                .map(|table| {
                    let figure = figures.iter().find(|f| f.id == table.id).cloned();
                    let id = testid(&table.id);
                    view! {
                        <CoEvalTable table=table testid=id/>
                        {figure.map(|f| {
                            let label = f.title().to_owned();
                            view! { <FigureView figure=f label=label on_error=on_error/> }
                        })}
                    }
                })
                .collect_view()}
        </div>
    }
}
