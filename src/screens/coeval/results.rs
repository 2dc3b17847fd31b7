//! Results of the study over this device's annotators and the imported files: Table 5 and 6
//! action rates, the share of LLM scores revised, the α matrix among the LLM and the
//! annotators (Figure 3; interval by default, other levels switchable), the mean Pearson
//! between evaluators (Table 8), score distributions by generating model (Figure 2) and time
//! per sample (Table 7).

use concord_core::coeval::{parse_level, results::level_name};
use concord_core::stats::KrippendorffLevel;
use leptos::prelude::*;

use super::model::{StudyResults, Table, alpha_class, alpha_heatmap, distribution_heatmap};
use super::{PlotView, TableView, use_ctx};

/// The level selector shared by the results and released-file panels.
#[component]
pub fn LevelSelect(#[prop(into)] id: String) -> impl IntoView {
    let ctx = use_ctx();
    let levels = [
        KrippendorffLevel::Interval,
        KrippendorffLevel::Ordinal,
        KrippendorffLevel::Nominal,
        KrippendorffLevel::Ratio,
    ];
    view! {
        <label for=id.clone()>"Krippendorff's α level"</label>
        <select id=id on:change=move |ev| {
            if let Some(l) = parse_level(&event_target_value(&ev)) { ctx.level.set(l); }
        }>
            {levels.into_iter().map(|l| view! {
                <option value=level_name(l) selected=move || ctx.level.get() == l>{level_name(l)}</option>
            }).collect_view()}
        </select>
    }
}

/// The α matrix as an HTML table whose cells carry a colour class.
#[component]
pub fn AlphaMatrix(
    raters: Vec<String>,
    matrix: Vec<Vec<Option<f64>>>,
    #[prop(into)] testid: String,
) -> impl IntoView {
    view! {
        <div class="table-wrap">
            <table class="data alpha-matrix" data-testid=testid>
                <thead><tr><th scope="col">"α"</th>{raters.iter().map(|r| view! { <th scope="col" class="num">{r.clone()}</th> }).collect_view()}</tr></thead>
                <tbody>
                    {raters.iter().zip(matrix).map(|(r, row)| view! {
                        <tr><th scope="row">{r.clone()}</th>
                            {row.into_iter().map(|v| view! {
                                <td class=format!("num {}", alpha_class(v))>{v.map_or_else(|| "–".to_owned(), |v| format!("{v:.3}"))}</td>
                            }).collect_view()}
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[component]
pub fn ResultsPanel() -> impl IntoView {
    let ctx = use_ctx();
    let results = Memo::new(move |_| {
        let study = ctx.study.get()?;
        let annotations = ctx.annotations();
        Some(StudyResults::compute(&study, &annotations, ctx.level.get()))
    });
    view! {
        <section class="panel" aria-labelledby="coeval-results-heading">
            <h2 id="coeval-results-heading">"Results"</h2>
            <p class="muted">"Over every annotator on this device and in imported files (see Annotators & merge)."</p>
            <div class="row"><LevelSelect id="coeval-level"/></div>
            {move || match results.get() {
                None => view! { <p class="muted">"Set up a task first."</p> }.into_any(),
                Some(r) => {
                    let summary = Table {
                        title: "Summary".to_owned(),
                        headers: vec!["measure".into(), "value".into()],
                        rows: vec![
                            vec!["share of LLM scores revised (%)".into(), r.share_revised.map_or_else(|| "–".into(), |s| format!("{:.2}", 100.0 * s))],
                            vec!["mean Pearson r, LLM vs annotators (Table 8)".into(), r.pearson_llm_annotators.map_or_else(|| "–".into(), |v| format!("{v:.3}"))],
                            vec!["mean Pearson r, among annotators (Table 8)".into(), r.pearson_annotators.map_or_else(|| "–".into(), |v| format!("{v:.3}"))],
                            vec!["minutes per sample (Table 7)".into(), r.minutes_per_sample.map_or_else(|| "–".into(), |v| format!("{v:.2}"))],
                        ],
                    };
                    let heat = alpha_heatmap(&r.alpha_table.title, &r.raters, &r.alpha);
                    let dist = distribution_heatmap("Figure 2: share of each score by generating model and rater", &r.scores);
                    view! {
                        <TableView table=summary testid="results-summary" file="coeval-summary"/>
                        <TableView table=r.table6.clone() testid="results-table6" file="coeval-table6"/>
                        <TableView table=r.table5.clone() testid="results-table5" file="coeval-table5"/>
                        <h3>{r.alpha_table.title.clone()}</h3>
                        <AlphaMatrix raters=r.raters.clone() matrix=r.alpha.clone() testid="results-alpha"/>
                        <PlotView map=heat label="α matrix heatmap" file="coeval-alpha"/>
                        <TableView table=r.alpha_table.clone() testid="results-alpha-export" file="coeval-alpha"/>
                        <TableView table=r.distribution.clone() testid="results-distribution" file="coeval-distribution"/>
                        <PlotView map=dist label="score distributions" file="coeval-distribution"/>
                    }.into_any()
                }
            }}
        </section>
    }
}
