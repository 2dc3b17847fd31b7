//! Results of the study over this device's annotators and the imported files: what
//! [`StudyResults::report`] gives — the summary (share of LLM scores revised, Table 8's mean
//! Pearson, Table 7's minutes per sample), Tables 6 and 5, the α matrix among the LLM and the
//! annotators (Figure 3; interval by default, other levels switchable) with its heatmap, and
//! the score distributions by generating model (Figure 2).

use concord_core::coeval::{parse_level, results::level_name};
use concord_core::study::coeval::KrippendorffLevel;
use concord_core::study::coeval::StudyResults;
use leptos::prelude::*;

use super::common::{ReportView, use_ctx};

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

/// The test id of a results table: `coeval-table6` → `results-table6`.
fn testid(id: &str) -> String {
    format!("results-{}", id.strip_prefix("coeval-").unwrap_or(id))
}

#[component]
pub fn ResultsPanel() -> impl IntoView {
    let ctx = use_ctx();
    let report = Memo::new(move |_| {
        let study = ctx.study.get()?;
        let annotations = ctx.annotations();
        Some(StudyResults::compute(&study, &annotations, ctx.level.get()).report())
    });
    view! {
        <section class="panel" aria-labelledby="coeval-results-heading">
            <h2 id="coeval-results-heading">"Results"</h2>
            <p class="muted">"Over every annotator on this device and in imported files (see Annotators & merge)."</p>
            <div class="row"><LevelSelect id="coeval-level"/></div>
            {move || match report.get() {
                None => view! { <p class="muted">"Set up a task first."</p> }.into_any(),
                Some(report) => view! { <ReportView report=report testid=testid/> }.into_any(),
            }}
        </section>
    }
}
