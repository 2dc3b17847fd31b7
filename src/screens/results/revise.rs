//! The review panel's "Revise the judge" part: the items split once into a revision set and a
//! held-out set; a meta-prompt built by the core from the revision set's largest
//! disagreements and the reviewers' notes (shown, its template editable); the LLM's proposal
//! (editable by hand); the revised judge run on the held-out items only, through the run
//! engine with the Run screen's connection; and the history of revisions with the held-out
//! test, all from [`concord_core::study::workbench::revise`].

use std::sync::Arc;

use concord_core::study::workbench::report::history_resampling;
use concord_core::study::workbench::review::{ReviewItem, Reviews};
use concord_core::study::workbench::revise::{
    self, DEFAULT_META_PROMPT, Draft, MissingTexts, Revision, diff, diff_text, template_text,
};
use concord_core::study::workbench::{JudgedRun, ResultsTable, Study};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::state::{ReviewState, use_results, use_review};
use super::tasks;
use crate::components::download::save_text;
use crate::components::table_view::TableView;
use crate::screens::judge::state::JudgeState;
use crate::screens::run::state::LlmAccess;
use crate::state::{Storage, use_runs, use_storage, use_workspace};

/// How many of the revision set's disagreements the meta-prompt shows.
const MAX_DISAGREEMENTS: usize = 10;

/// Writes the split, meta-prompt template and revisions to `storage` (read here: this runs in
/// tasks, where there is no context to look it up in).
fn persist(review: ReviewState, storage: Storage) {
    let Some(store) = storage.store.try_get_untracked().flatten() else { return };
    let (split, meta, revisions) = (
        review.split.get_untracked(),
        review.meta_template.get_untracked(),
        review.revisions.get_untracked(),
    );
    let scope = review.scope.get_untracked().unwrap_or_default();
    spawn_local(async move {
        if let Err(e) =
            tasks::save_revising(&store, &scope, split.as_ref(), meta.as_deref(), &revisions).await
        {
            review.error.try_set(Some(e.to_string()));
        }
    });
}

#[component]
pub fn RevisePanel(
    table: Memo<(ResultsTable, f64)>,
    run: Memo<Option<String>>,
    judged: Memo<Option<JudgedRun>>,
    items: RwSignal<Arc<Vec<ReviewItem>>>,
    reviews: Memo<Reviews>,
) -> impl IntoView {
    let ws = use_workspace();
    let runs = use_runs();
    let results = use_results();
    let review = use_review();
    let judge = expect_context::<JudgeState>();
    let access = LlmAccess::from_context();
    let storage = use_storage();
    let share = RwSignal::new(0.5f64);
    let split_seed = RwSignal::new(0u64);
    // The proposal in the editor is the review's draft of the run under review, kept in this
    // browser as it is typed (a reload loses nothing).
    let draft_here = move || review.draft.get().filter(|d| Some(&d.run) == run.get().as_ref());
    let proposal = Signal::derive(move || draft_here().map(|d| d.text).unwrap_or_default());
    let set_draft = move |draft: Option<Draft>| {
        review.draft.try_set(draft.clone());
        let Some(store) = storage.store.try_get_untracked().flatten() else { return };
        let scope = review.scope.try_get_untracked().flatten().unwrap_or_default();
        spawn_local(async move {
            if let Err(e) = tasks::save_draft(&store, &scope, draft.as_ref()).await {
                review.error.try_set(Some(e.to_string()));
            }
        });
    };
    // The proposal that leaves out the item's texts and was confirmed to be sent as it is.
    let missing = RwSignal::new(None::<MissingTexts>);
    let confirmed = RwSignal::new(None::<String>);
    let status = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    // The model that writes proposals (empty: the Run screen's).
    let meta_model = RwSignal::new(String::new());

    // The study the runs were made with (else the Judge screen's), and the run's method in it.
    let study = move || -> Study {
        runs.ran_with
            .with_value(|r| r.as_ref().map(|(s, _)| (**s).clone()))
            .unwrap_or_else(|| judge.study.get())
    };
    let old_template = Memo::new(move |_| {
        let run = judged.get()?;
        let study = study();
        let method = study.method(&run.method)?;
        Some((method.template(&run.attribute)?.clone(), method.sampling.clone(), method.policy))
    });
    let split = Memo::new(move |_| {
        let attribute = judged.with(|r| r.as_ref().map(|r| r.attribute.clone()))?;
        review.split.get().filter(|s| s.attribute == attribute)
    });
    let meta_template = Memo::new(move |_| {
        review.meta_template.get().unwrap_or_else(|| DEFAULT_META_PROMPT.to_owned())
    });
    let meta = Memo::new(move |_| {
        let split = split.get()?;
        let (template, _, _) = old_template.get()?;
        let run = run.get()?;
        let reviews = reviews.get();
        let items = items.get();
        ws.dataset.with(|open| {
            let d = revise::disagreements(
                &open.loaded.dataset,
                &items,
                &run,
                &reviews,
                &split,
                MAX_DISAGREEMENTS,
            );
            let notes = revise::notes(&run, &reviews, &split);
            Some(revise::meta_prompt(&meta_template.get(), &template_text(&template), &d, &notes))
        })
    });
    // Each revision with its held-out test: the history table and its JSON export.
    let outcomes = Memo::new(move |_| {
        let settings = results.settings.get();
        let (t, _) = table.get();
        let revisions = review.revisions.get();
        let done = ws.dataset.with(|open| {
            revise::outcomes(
                &open.loaded.dataset,
                &t,
                review.split.get().as_ref(),
                &revisions,
                history_resampling(&settings),
            )
        });
        (done, settings.confidence)
    });
    let history = Memo::new(move |_| {
        outcomes.with(|(done, confidence)| {
            (!done.is_empty()).then(|| Arc::new(revise::history_table(done, *confidence)))
        })
    });
    let export_history = move |_| {
        let json = outcomes.with_untracked(|(done, _)| revise::history_json(done));
        if let Err(e) = save_text("concord-revisions-history.json", "application/json", &json) {
            problem.set(Some(e.to_string()));
        }
    };

    let draw = move |_| {
        let Some(attribute) = judged.with_untracked(|r| r.as_ref().map(|r| r.attribute.clone()))
        else {
            return;
        };
        if review.split.with_untracked(Option::is_some) {
            let sure = window()
                .confirm_with_message("Draw a new split? The revisions made so far were tested on the old held-out items and are kept as they are.")
                .unwrap_or(false);
            if !sure {
                return;
            }
        }
        let made = ws.dataset.with_untracked(|open| {
            revise::split(
                &open.loaded.dataset,
                &attribute,
                split_seed.get_untracked(),
                share.get_untracked(),
            )
        });
        match made {
            Ok(s) => {
                review.split.set(Some(s));
                problem.set(None);
                persist(review, storage);
            }
            Err(e) => problem.set(Some(e.to_string())),
        }
    };
    let ask_llm = move |_| {
        let Some(prompt) = meta.get_untracked() else { return };
        busy.set(true);
        problem.set(None);
        let sampling = concord_core::judge::protocol::Sampling::single();
        let model = meta_model.get_untracked();
        spawn_local(async move {
            let asked = vec![("revision/meta".to_owned(), prompt)];
            match tasks::ask(access, Some(model), asked, sampling, status).await {
                Ok((answers, cost)) => match answers.first().and_then(|a| a.first()) {
                    Some(text) => {
                        if let Some(run) = run.try_get_untracked().flatten() {
                            set_draft(Some(Draft {
                                run,
                                text: revise::proposal(text),
                                answer: text.clone(),
                                cost_usd: cost,
                            }));
                        }
                        status.try_set(Some(
                            "The LLM proposed a revision: read and edit it below.".to_owned(),
                        ));
                    }
                    None => {
                        problem.try_set(Some(
                            tasks::RevisionRunError::NoAnswer("the meta-prompt".to_owned())
                                .to_string(),
                        ));
                    }
                },
                Err(e) => {
                    problem.try_set(Some(e.to_string()));
                }
            }
            busy.try_set(false);
        });
    };
    let run_revised = move |_| {
        let (Some(split), Some((old, sampling, policy)), Some(run_key), Some(judged_run)) = (
            split.get_untracked(),
            old_template.get_untracked(),
            run.get_untracked(),
            judged.get_untracked(),
        ) else {
            return;
        };
        let text = proposal.get_untracked();
        // A prompt that would not show the judge the item's texts is sent only once the user
        // said so for this very text.
        match revise::missing_texts(&old, &text) {
            Some(m) if confirmed.get_untracked().as_deref() != Some(text.as_str()) => {
                missing.set(Some(m));
                return;
            }
            _ => missing.set(None),
        }
        let made = ws.dataset.with_untracked(|open| {
            let dataset = &open.loaded.dataset;
            let template = revise::revised_template(dataset, &old, &text, &split)?;
            let number = review.revisions.with_untracked(Vec::len) + 1;
            let prompts: Vec<(String, String, String)> = dataset
                .items
                .iter()
                .filter(|i| split.is_held_out(&i.id))
                .filter_map(|i| {
                    let p = template.render(i).ok()?;
                    Some((i.id.clone(), format!("revision-{number}/{}", i.id), p))
                })
                .collect();
            Ok::<_, revise::ReviseError>((number, prompts))
        });
        let (number, prompts) = match made {
            Ok(x) => x,
            Err(e) => {
                problem.set(Some(e.to_string()));
                return;
            }
        };
        busy.set(true);
        problem.set(None);
        let meta_prompt = meta.get_untracked().unwrap_or_default();
        let draft = review.draft.get_untracked().filter(|d| d.run == run_key);
        let raw = draft.as_ref().map(|d| d.answer.clone()).unwrap_or_default();
        let before = template_text(&old);
        // The proposal's call, when priced (a proposal written by hand cost nothing).
        let proposal_cost = draft.and_then(|d| d.cost_usd).unwrap_or(0.0);
        spawn_local(async move {
            let ids: Vec<String> = prompts.iter().map(|(id, _, _)| id.clone()).collect();
            let asked = prompts.into_iter().map(|(_, tag, p)| (tag, p)).collect();
            match tasks::ask(access, None, asked, sampling, status).await {
                Ok((answers, cost)) => {
                    // The held-out run's cost (when priced) and the proposal's.
                    let cost = cost.map(|c| c + proposal_cost);
                    let revision = Revision {
                        number,
                        run: run_key,
                        attribute: judged_run.attribute.clone(),
                        policy,
                        meta_prompt,
                        answer: raw,
                        prompt_before: before,
                        prompt_after: text,
                        answers: ids.into_iter().zip(answers).collect(),
                        cost_usd: cost,
                        split: Some(split),
                    };
                    review.revisions.try_update(|r| r.push(revision));
                    persist(review, storage);
                    status.try_set(Some(format!(
                        "Revision {number} ran on the held-out items: see the history below."
                    )));
                }
                Err(e) => {
                    problem.try_set(Some(e.to_string()));
                }
            }
            busy.try_set(false);
        });
    };

    view! {
        <section class="panel" aria-labelledby="revise-heading" data-testid="revise-panel">
            <h2 id="revise-heading">"Revise the judge"</h2>
            <p class="muted">
                "The items are split once into a revision set and a held-out set. An LLM revises the judge's prompt from the revision set's largest disagreements and your notes on those items only; the revised judge is then run on the held-out items only, and called better only when Williams' test says so there (p < 0.05)."
            </p>
            <div class="row">
                <label class="control" for="revise-share">
                    <span>"Share for revision"</span>
                    <input id="revise-share" type="number" min="0.05" max="0.95" step="0.05"
                        prop:value=move || share.get().to_string()
                        on:change=move |ev| if let Ok(x) = event_target_value(&ev).parse() { share.set(x) }/>
                </label>
                <label class="control" for="revise-seed">
                    <span>"Split seed"</span>
                    <input id="revise-seed" type="number" min="0"
                        prop:value=move || split_seed.get().to_string()
                        on:change=move |ev| if let Ok(x) = event_target_value(&ev).parse() { split_seed.set(x) }/>
                </label>
                <button type="button" class="secondary" data-testid="revise-split" on:click=draw>
                    {move || if split.with(Option::is_some) { "Draw a new split" } else { "Split the items" }}
                </button>
                <span class="muted" data-testid="revise-split-summary">{move || split.get().map(|s| format!(
                    "{} items for revision, {} held out (seed {}, share {}); kept until you draw a new split.",
                    s.revision.len(), s.held_out.len(), s.seed, s.revision_share
                ))}</span>
            </div>
            {move || problem.get().map(|e| view! { <p class="error-box" role="alert" data-testid="revise-error">{e}</p> })}
            {move || (judged.with(Option::is_some) && old_template.with(Option::is_none)).then(|| view! {
                <p class="muted">"This run was not made here, so its prompt is not known: revise a run made from the Judge screen."</p>
            })}
            <Show when=move || split.with(Option::is_some) && old_template.with(Option::is_some)>
                <label class="stacked" for="revise-meta-template">
                    <span>"Meta-prompt template ({{prompt}}, {{disagreements}} and {{notes}} are filled in)"</span>
                    <textarea id="revise-meta-template" rows="8" prop:value=move || meta_template.get()
                        on:change=move |ev| { review.meta_template.set(Some(event_target_value(&ev))); persist(review, storage); }/>
                </label>
                <details>
                    <summary>"The meta-prompt as it will be sent"</summary>
                    <pre class="long-text" data-testid="revise-meta" tabindex="0" role="region" aria-label="The meta-prompt">{move || meta.get().unwrap_or_default()}</pre>
                </details>
                <div class="row">
                    <label class="control" for="revise-model">
                        <span>"Model for the proposal"</span>
                        <input id="revise-model" type="text" placeholder="the Run screen's model"
                            prop:value=move || meta_model.get()
                            on:change=move |ev| meta_model.set(event_target_value(&ev))/>
                    </label>
                    <button type="button" class="secondary" data-testid="revise-ask" on:click=ask_llm prop:disabled=move || busy.get()>"Ask the LLM for a revision"</button>
                    {move || status.get().map(|s| view! { <span class="muted" role="status" data-testid="revise-status">{s}</span> })}
                </div>
                <label class="stacked" for="revise-proposal">
                    <span>"Revised prompt (edit it as you like)"</span>
                    <textarea id="revise-proposal" rows="10" prop:value=move || proposal.get()
                        on:input=move |ev| {
                            let text = event_target_value(&ev);
                            let Some(run) = run.get_untracked() else { return };
                            let kept = review.draft.get_untracked().filter(|d| d.run == run);
                            missing.set(None);
                            set_draft(Some(Draft { run, text, ..kept.unwrap_or_default() }));
                        }/>
                </label>
                <details>
                    <summary>"What changes"</summary>
                    <pre class="long-text" data-testid="revise-diff" tabindex="0" role="region" aria-label="What changes">{move || {
                        let before = old_template.get().map(|(t, _, _)| template_text(&t)).unwrap_or_default();
                        diff_text(&diff(&before, &proposal.get()))
                    }}</pre>
                </details>
                <button type="button" class="primary" data-testid="revise-run" on:click=run_revised
                    prop:disabled=move || busy.get() || proposal.with(|p| p.trim().is_empty())>
                    "Run the revised judge on the held-out items"
                </button>
                {move || missing.get().map(|m| view! {
                    <div class="warn-box" role="alert" data-testid="revise-warning">
                        <p>{m.to_string()}</p>
                        <button type="button" class="secondary" data-testid="revise-run-anyway"
                            on:click=move |ev| {
                                confirmed.set(Some(proposal.get_untracked()));
                                run_revised(ev);
                            }>
                            "Send it as it is"
                        </button>
                    </div>
                })}
            </Show>
            {move || history.get().map(|t| view! {
                <TableView table=t testid="revise-history"/>
                <button type="button" class="secondary" data-testid="revise-export" on:click=export_history>
                    "Export the history with the prompts (JSON)"
                </button>
            })}
            {move || review.revisions.get().into_iter().map(|r| view! {
                <details data-testid="revise-past-diff">
                    <summary>{format!("Revision {}: the prompt's changes", r.number)}</summary>
                    <pre class="long-text" tabindex="0" role="region" aria-label=format!("Revision {}: the prompt's changes", r.number)>{diff_text(&diff(&r.prompt_before, &r.prompt_after))}</pre>
                </details>
            }).collect_view()}
        </section>
    }
}
