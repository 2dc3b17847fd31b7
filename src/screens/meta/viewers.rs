//! The meta-evaluation screen's viewers: a JDEval or MDEval debate and a BSMEval record with
//! its branches, one record at a time (the core's [`debate`](concord_core::study::meta::debate)
//! records). Model output is inserted as text nodes only.

use concord_core::report::format_value;
use concord_core::study::meta::FileKind;
use leptos::prelude::*;

use super::controls::{chosen_jdeval, jdeval_options, record_picker};
use super::state::State;

#[component]
pub(super) fn DebatePanel() -> impl IntoView {
    let state = expect_context::<State>();
    let current = move || {
        let id = chosen_jdeval(state, state.debate_file)?;
        state.workspace.with(|w| w.file(id).cloned())
    };
    let len = Signal::derive(move || {
        current().and_then(|f| f.jdeval().map(|j| j.debates.len())).unwrap_or(0)
    });
    view! {
        <Show when=move || current().is_some()>
            <section class="panel" aria-labelledby="meta-debate-heading">
                <h2 id="meta-debate-heading">"Debate viewer"</h2>
                <p class="muted">"A JDEval record is one round: the two evaluators' assessments of the same pair, then the meta-evaluator's decision. An MDEval debate (run from this screen; none is released) shows the two assessments, then per round the judge's question and both debaters' answers, then the decision."</p>
                <div class="row controls">
                    <label class="control" for="debate-file"><span>"Debate file"</span>
                        <select id="debate-file" on:change=move |ev| {
                            state.debate_file.set(event_target_value(&ev).parse().ok());
                            state.debate_index.set(0);
                        }>
                            {jdeval_options(state, state.debate_file)}
                        </select>
                    </label>
                </div>
                {record_picker("debate-record", state.debate_index, len)}
                {move || {
                    let file = current()?;
                    let d = file.jdeval()?.debates.get(state.debate_index.get())?.clone();
                    Some(view! {
                        <article class="debate" data-testid="debate">
                            <p class="muted">{format!("Line {} · gold: {}", d.line, d.label)}</p>
                            <h3>"Question"</h3>
                            <div class="text-block" tabindex="0" role="region" aria-label="Question">{d.question}</div>
                            <div class="two-col">
                                <div><h3>"Answer 1"</h3><div class="text-block" tabindex="0" role="region" aria-label="Answer 1">{d.answer_1}</div></div>
                                <div><h3>"Answer 2"</h3><div class="text-block" tabindex="0" role="region" aria-label="Answer 2">{d.answer_2}</div></div>
                            </div>
                            {d.opening.map(|opening| view! {
                                <h3>"Assessments"</h3>
                                <div class="two-col">
                                    {opening.into_iter().enumerate().map(|(k, (name, text))| view! {
                                        <div><h4>{format!("Assistant {} ({name})", k + 1)}</h4><div class="text-block" tabindex="0" role="region" aria-label=format!("Assessment of assistant {}", k + 1)>{text}</div></div>
                                    }).collect_view()}
                                </div>
                            })}
                            {d.rounds.into_iter().enumerate().map(|(i, r)| view! {
                                <h3 data-testid="debate-round">{format!("Round {}", i + 1)}</h3>
                                {r.judge_question.map(|q| view! { <p class="judge-question">"Judge: " {q}</p> })}
                                <div class="two-col">
                                    {r.debaters.into_iter().enumerate().map(|(k, (name, text))| view! {
                                        <div><h4>{format!("Assistant {} ({name})", k + 1)}</h4><div class="text-block" tabindex="0" role="region" aria-label=format!("Round {}, assistant {}", i + 1, k + 1)>{text}</div></div>
                                    }).collect_view()}
                                </div>
                            }).collect_view()}
                            <h3>"Decision"</h3>
                            <p data-testid="debate-verdict"><strong>"Better assessor: " {d.verdict}</strong>
                                " · the meta-evaluator's answer choice: " {d.better_answer}</p>
                            <div class="text-block" tabindex="0" role="region" aria-label="Decision">{d.decision}</div>
                        </article>
                    })
                }}
            </section>
        </Show>
    }
}

#[component]
pub(super) fn BranchPanel() -> impl IntoView {
    let state = expect_context::<State>();
    let entries = move || {
        state.workspace.with(|w| {
            w.files()
                .filter(|(_, f)| f.kind == FileKind::BsmEval)
                .map(|(id, f)| (id, f.name.clone()))
                .collect::<Vec<_>>()
        })
    };
    let current = move || {
        let list = entries();
        let chosen = state.branch_file.get();
        let id = list.iter().find(|e| Some(e.0) == chosen).or(list.first())?.0;
        state.workspace.with(|w| w.file(id).cloned())
    };
    let len = Signal::derive(move || current().map(|f| f.branch_records().len()).unwrap_or(0));
    view! {
        <Show when=move || current().is_some()>
            <section class="panel" aria-labelledby="meta-bsm-heading">
                <h2 id="meta-bsm-heading">"BSMEval viewer"</h2>
                <p class="muted">"Each assessment is judged in branches (one sub-task each); the meta score is the mean of the branch scores."</p>
                <div class="row controls">
                    <label class="control" for="bsm-file"><span>"BSMEval file"</span>
                        <select id="bsm-file" on:change=move |ev| {
                            state.branch_file.set(event_target_value(&ev).parse().ok());
                            state.branch_index.set(0);
                        }>
                            {move || {
                                let chosen = state.branch_file.get();
                                entries().into_iter().map(|(id, name)| view! {
                                    <option value=id.to_string() selected={chosen == Some(id)}>{name}</option>
                                }).collect_view()
                            }}
                        </select>
                    </label>
                </div>
                {record_picker("bsm-record", state.branch_index, len)}
                {move || {
                    let file = current()?;
                    let r = file.branch_records().get(state.branch_index.get())?.clone();
                    Some(view! {
                        <article class="branches" data-testid="bsm-record">
                            <p class="muted">{format!("Line {} · gold score: {} · meta score: {}", r.line,
                                format_value(r.gold, 1), format_value(r.score, 2))}</p>
                            <h3>"Text"</h3>
                            <div class="text-block" tabindex="0" role="region" aria-label="Text">{r.text}</div>
                            <h3>"The evaluator's assessment"</h3>
                            <div class="text-block" tabindex="0" role="region" aria-label="The evaluator's assessment">{r.assessment}</div>
                            <ol class="branch-list">
                                {r.branches.into_iter().enumerate().map(|(i, b)| view! {
                                    <li>
                                        <h4>{format!("Branch {} · score {}", i + 1, format_value(b.score, 1))}</h4>
                                        {b.subtask.map(|t| view! { <p class="subtask">"Sub-task: " {t}</p> })}
                                        <div class="text-block" tabindex="0" role="region" aria-label=format!("Branch {} response", i + 1)>{b.response}</div>
                                    </li>
                                }).collect_view()}
                            </ol>
                        </article>
                    })
                }}
            </section>
        </Show>
    }
}
