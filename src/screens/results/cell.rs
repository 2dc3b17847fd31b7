//! A cell of the Results table opened: its scatter against the humans and both histograms
//! (figures built by the core, exported as SVG and PNG), every item with the human and judge
//! ratings, and an item's prompt and responses with the parsed rating highlighted.

use std::sync::Arc;

use concord_core::data;
use concord_core::judge::aggregate::ItemScore;
use concord_core::report::count;
use concord_core::study::workbench::ResultsTable;
use concord_core::study::workbench::report::cell_figures;
use concord_core::study::workbench::results;
use leptos::prelude::*;

use crate::components::figure_view::FigureView;
use crate::components::virtual_table::{RowCells, VColumn, VirtualTable};
use crate::links::CopyLink;
use crate::state::{use_runs, use_workspace};

use super::state::use_results;

/// What each of a cell's three figures is called on its buttons and for screen readers.
const FIGURE_NAMES: [(&str, &str); 3] = [
    ("scatter", "scatter of judge against human ratings"),
    ("histogram", "histogram of judge ratings"),
    ("human histogram", "histogram of human ratings"),
];

#[component]
pub fn CellPanel(table: Memo<(ResultsTable, f64)>) -> impl IntoView {
    let ws = use_workspace();
    let results = use_results();
    let item = results.item;
    let info = move || {
        let (method, attribute) = results.selected.get()?;
        let (t, _) = table.get();
        let m = t.methods.iter().position(|x| *x == method)?;
        let a = t.attributes.iter().position(|x| *x == attribute)?;
        let cell = t.cell(m, a)?.clone();
        Some((method, attribute, cell, t, m, a))
    };
    // A link (or a table that changed) may name a cell this table does not have.
    let missing = move || {
        let (method, attribute) = results.selected.get()?;
        let (t, _) = table.get();
        let has = t.methods.contains(&method) && t.attributes.contains(&attribute);
        (!t.methods.is_empty() && !has).then(|| {
            format!(
                "The link selects the cell {method} · {attribute}, which this table does not have."
            )
        })
    };
    view! {
        {move || missing().map(|text| view! { <p class="notice-line" role="status" data-testid="cell-missing">{text}</p> })}
        {move || info().map(|(method, attribute, cell, t, m, a)| {
            let open = ws.dataset.get();
            let dataset = &open.loaded.dataset;
            let index = dataset.attribute_index(&attribute).unwrap_or(0);
            let human = dataset.human_scores(index);
            let figures = cell_figures(dataset, &t, m, a);
            let items_label = format!("Items of {method} on {attribute}");
            view! {
                <section class="panel" aria-labelledby="cell-heading" data-testid="cell-panel">
                    <div class="row heading-row">
                        <h2 id="cell-heading">{format!("{method} · {attribute}")}</h2>
                        <CopyLink/>
                    </div>
                    <div class="plots">
                        {figures.into_iter().zip(FIGURE_NAMES).map(|(figure, (label, alt))| view! {
                            <FigureView figure=figure label=label alt=alt png=true/>
                        }).collect_view()}
                    </div>
                    <h3>"Items"</h3>
                    <VirtualTable label=items_label testid="items-table"
                        columns={item_columns()} rows={dataset.items.len()}
                        cells={item_cells(open.loaded.clone(), human.clone(), cell.scores.scores.clone(), item)}/>
                    {move || item.get().map(|id| match ws.dataset.with(|d| d.loaded.dataset.items.iter().position(|it| it.id == id)) {
                        Some(i) => view! { <ItemDetail method=method.clone() attribute=attribute.clone() item=i/> }.into_any(),
                        None => view! { <p class="notice-line" role="status">{format!("The link shows the item {id}, which this dataset does not have.")}</p> }.into_any(),
                    })}
                </section>
            }
        })}
    }
}

fn item_columns() -> Vec<VColumn> {
    let col = |title: &str, numeric| VColumn { title: title.to_owned(), numeric };
    vec![
        col("Item", false),
        col("System", false),
        col("Human", true),
        col("Judge", true),
        col("Details", false),
    ]
}

/// The cells of row `i` of a cell's item list (rendered as it scrolls into view).
fn item_cells(
    loaded: Arc<data::Loaded>,
    human: Vec<Option<f64>>,
    judge: Vec<Option<f64>>,
    item: RwSignal<Option<String>>,
) -> RowCells {
    Arc::new(move |i| {
        let Some(it) = loaded.dataset.items.get(i) else { return ().into_any() };
        let f = |v: Option<&Option<f64>>| {
            v.copied().flatten().map_or("–".into(), |v| format!("{v:.2}"))
        };
        view! {
            <td>{it.id.clone()}</td><td>{it.system_id.clone()}</td>
            <td class="num">{f(human.get(i))}</td><td class="num">{f(judge.get(i))}</td>
            <td><button type="button" class="secondary" aria-label=format!("Show item {}", it.id) on:click={
                let id = it.id.clone();
                move |_| item.set(Some(id.clone()))
            }>"Show"</button></td>
        }
        .into_any()
    })
}

/// Splits `text` around `span` (where the parser read the rating), to highlight it; nothing
/// is marked when the parser read no number.
fn highlight(text: &str, span: Option<std::ops::Range<usize>>) -> (String, String, String) {
    match span.filter(|s| text.get(s.clone()).is_some()) {
        Some(s) => {
            (text[..s.start].to_owned(), text[s.clone()].to_owned(), text[s.end..].to_owned())
        }
        None => (text.to_owned(), String::new(), String::new()),
    }
}

#[component]
fn ItemDetail(method: String, attribute: String, item: usize) -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let open = ws.dataset.get_untracked();
    let dataset = &open.loaded.dataset;
    let Some(it) = dataset.items.get(item).cloned() else {
        return view! { <p>"No such item."</p> }.into_any();
    };
    let key = it.key();
    let record = runs.runs.with_untracked(|runs| {
        let r = runs.iter().find(|r| r.method == method && r.attribute == attribute)?;
        // By id first (runs made here; ids are unique), else by document and system.
        let records = &r.run.records;
        records
            .iter()
            .find(|rec| matches!(&rec.key, data::RecordKey::Id(id) if *id == it.id))
            .or_else(|| {
                records.iter().find(|rec| matches!(&rec.key, data::RecordKey::Item(k) if *k == key))
            })
            .cloned()
            .map(|rec| (rec, r.policy, results::made_here(r)))
    });
    // A run made here keeps no prompt texts: render the one its study sent.
    let prompt = match &record {
        Some((rec, _, true)) if rec.prompt.is_none() => {
            runs.ran_with.get_value().and_then(|(study, _)| {
                results::study_prompt(dataset, &study, &method, &attribute, item)
            })
        }
        _ => None,
    };
    let index = dataset.attribute_index(&attribute);
    let scale = index.and_then(|i| dataset.attributes.get(i)).map(|a| (a.scale.min, a.scale.max));
    let human = index.and_then(|i| it.ratings.get(i).cloned().flatten());
    view! {
        <div class="item-detail" data-testid="item-detail">
            <h3>{format!("Item {} ({} / {})", it.id, it.document_id, it.system_id)}</h3>
            <p>"Human ratings: "
                {human.map_or("none".into(), |h| h.describe(open.loaded.format.is_generic_table()))}
            </p>
            {match record {
                None => view! { <p class="muted">"This method has no response for this item."</p> }.into_any(),
                Some((rec, policy, _)) => {
                    let score = ItemScore::parse(&rec.responses, policy, scale);
                    view! {
                        <h4>"Prompt"</h4>
                        <pre class="prompt" tabindex="0" role="region" aria-label="Prompt">{rec.prompt.clone().or(prompt).unwrap_or_else(|| "(the file does not include the prompt)".into())}</pre>
                        <h4>{format!("{}, mean {}", count(rec.responses.len(), "response", "responses"), concord_core::words::decimal(score.mean, 3))}</h4>
                        <ol class="responses">
                            {rec.responses.iter().enumerate().map(|(i, r)| {
                                let cut = rec.cut_off.contains(&i).then(|| view! {
                                    <span class="badge bad" title="The provider stopped the answer at the method's Max tokens (finish_reason: length)">"cut off at the token limit"</span>
                                });
                                // A reasoning model's thinking, billed as output, shows in no response.
                                let reasoning = rec.reasoning_tokens.get(i).filter(|&&t| t > 0).map(|t| view! {
                                    <span class="badge" data-testid="reasoning-tokens" title="Tokens the model spent reasoning before this answer (its call's reported count shared among the call's samples), billed as output">{concord_core::words::count(*t as usize, "reasoning token", "reasoning tokens")}</span>
                                });
                                let cut = (cut, reasoning);
                                match policy.read(r, scale) {
                                    Ok(reading) => {
                                        let v = reading.value;
                                        let (before, hit, after) = highlight(r, reading.span);
                                        view! { <li><pre class="response" tabindex="0" role="region" aria-label=format!("Response {}", i + 1)>{before}<mark>{hit}</mark>{after}</pre><span class="badge">{format!("rating {v}")}</span>{cut}</li> }.into_any()
                                    }
                                    Err(e) => view! { <li><pre class="response" tabindex="0" role="region" aria-label=format!("Response {}", i + 1)>{r.clone()}</pre><span class="badge bad">{format!("unparseable: {e}")}</span>{cut}</li> }.into_any(),
                                }
                            }).collect_view()}
                        </ol>
                    }.into_any()
                }
            }}
        </div>
    }.into_any()
}

#[cfg(test)]
mod tests {
    use super::highlight;
    use concord_core::judge::parse::Policy;

    fn marked(policy: Policy, text: &str) -> String {
        let span = policy.read(text, Some((1.0, 5.0))).ok().and_then(|r| r.span);
        let (before, hit, after) = highlight(text, span);
        format!("{before}[{hit}]{after}")
    }

    #[test]
    fn marks_where_the_parser_read() {
        assert_eq!(
            marked(Policy::Concord, "Fluency score: 3. Overall rating: 3"),
            "Fluency score: 3. Overall rating: [3]"
        );
        assert_eq!(marked(Policy::CloserLook, "Rating: 3.5"), "Rating: [3].5");
        assert_eq!(
            marked(Policy::Concord, "Of 14 facts, 4 are kept. Score: 4"),
            "Of 14 facts, 4 are kept. Score: [4]"
        );
        assert_eq!(marked(Policy::Concord, "Évaluation — score : 5"), "Évaluation — score : [5]");
        assert_eq!(marked(Policy::Geval, "no number"), "no number[]");
    }
}
