//! The Judge screen: which attributes, which methods (output mode, auto-CoT, persona, N,
//! temperature, top-p, parser), a prompt editor that shows seed 002's parts in their colours,
//! the evaluation steps of the "+cot" methods (`steps`: G-Eval's released ones, the judge's or
//! the user's), and a live preview of the exact prompt for any item.

pub mod state;
pub mod steps;

use concord_core::judge::aggregate::WeightFallback;
use concord_core::judge::builtin::OutputMode;
use concord_core::judge::parse::Policy;
use concord_core::judge::template::{PartKind, Persona, PromptTemplate};
use concord_core::run::provider::REASONING_DEFAULT_MAX_TOKENS;
use concord_core::study::workbench::checks::prompt_warnings;
use concord_core::study::workbench::study::{
    parse_sampling_fields, short_budget_warning, short_budgets,
};
use concord_core::study::workbench::{GridSpec, default_study, grid, is_default_study};
use leptos::prelude::*;

use crate::screens::run::state::RunState;
use crate::state::{Screen, Workspace, use_workspace};

use state::{JudgeState, use_judge};

fn part_label(kind: PartKind) -> &'static str {
    match kind {
        PartKind::Persona => "Persona",
        PartKind::Task => "Task description",
        PartKind::Criteria => "Evaluation criteria",
        PartKind::Steps => "Evaluation steps (auto-CoT)",
        PartKind::Sample => "Sample",
        PartKind::Output => "Output prompt",
        _ => "Other",
    }
}

fn part_class(kind: PartKind) -> &'static str {
    match kind {
        PartKind::Persona => "part part-persona",
        PartKind::Task => "part part-task",
        PartKind::Criteria => "part part-criteria",
        PartKind::Steps => "part part-steps",
        PartKind::Sample => "part part-sample",
        PartKind::Output => "part part-output",
        _ => "part",
    }
}

fn persona_name(p: Persona) -> &'static str {
    match p {
        Persona::None => "none",
        Persona::Hhh => "HHH assistant",
        Persona::HumanAnnotator => "human annotator",
    }
}

#[component]
pub fn JudgeScreen() -> impl IntoView {
    let ws = use_workspace();
    let judge = use_judge();
    // A new dataset starts a new study (methods refer to its fields): the suggested one, a
    // method that can run at once.
    Effect::new(move |previous: Option<String>| {
        let dataset = ws.dataset.get();
        let name = dataset.loaded.dataset.name.clone();
        let study = judge.study.get_untracked();
        let attributes_fit =
            study.attributes.iter().all(|a| dataset.loaded.dataset.attribute_index(a).is_some());
        let fresh = study.attributes.is_empty() && study.methods.is_empty();
        if fresh || previous.as_ref().is_some_and(|p| *p != name) || !attributes_fit {
            judge.study.set(default_study(&dataset.loaded.dataset));
        }
        name
    });
    view! {
        <Show
            when=move || !ws.dataset.get().loaded.dataset.items.is_empty()
            fallback=|| view! {
                <section class="panel"><p class="muted" data-testid="judge-empty">
                    "The open dataset has no rated items. Load a dataset with items and human ratings on the Data screen."
                </p></section>
            }
        >
            <AttributesPanel/>
            <AddMethodsPanel/>
            <MethodsPanel/>
            <steps::StepsPanel/>
            <PromptPanel/>
        </Show>
    }
}

#[component]
fn AttributesPanel() -> impl IntoView {
    let ws = use_workspace();
    let judge = use_judge();
    let all = move || {
        ws.dataset
            .get()
            .loaded
            .dataset
            .attributes
            .iter()
            .map(|a| (a.name.clone(), a.scale))
            .collect::<Vec<_>>()
    };
    view! {
        <section class="panel" aria-labelledby="attributes-heading">
            <h2 id="attributes-heading">"Attributes"</h2>
            <div class="row">
                {move || all().into_iter().map(|(name, scale)| {
                    let n1 = name.clone();
                    let n2 = name.clone();
                    let checked = move || judge.study.with(|s| s.attributes.contains(&n1));
                    view! {
                        <label class="check">
                            <input type="checkbox" prop:checked=checked
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    let name = n2.clone();
                                    let order: Vec<String> = all().into_iter().map(|(n, _)| n).collect();
                                    judge.study.update(|s| {
                                        s.attributes.retain(|a| *a != name);
                                        if on { s.attributes.push(name.clone()); }
                                        s.attributes.sort_by_key(|a| order.iter().position(|o| o == a));
                                    });
                                }/>
                            {format!("{name} ({}–{})", scale.min, scale.max)}
                        </label>
                    }
                }).collect_view()}
            </div>
        </section>
    }
}

/// Why a probability-weighted method cannot be weighted with this provider, said before a run.
pub fn logprobs_warning(provider: concord_core::run::ProviderId, model: &str) -> String {
    let model =
        if model.trim().is_empty() { "this model".to_owned() } else { model.trim().to_owned() };
    format!(
        "{provider} returns no log-probabilities for {model} (as the Run screen's provider is set now): a probability-weighted method's samples cannot be weighted, and are left out or read plainly, as chosen. Providers that return them: OpenAI, OpenRouter, Together, Gemini, vLLM, llama.cpp, Ollama (not for reasoning models)."
    )
}

/// Adds `value` to `list` or removes it.
fn toggle<T: PartialEq + Send + Sync + 'static>(list: RwSignal<Vec<T>>, value: T, on: bool) {
    list.update(|l| {
        l.retain(|v| *v != value);
        if on {
            l.push(value);
        }
    })
}

/// "Add methods": every combination of the form's choices becomes a method of the study (the
/// suggested study, untouched, makes way for them); what was added is said in `message`.
fn add_methods(form: MethodForm, ws: Workspace, judge: JudgeState, run: RunState) {
    let MethodForm {
        modes,
        cot,
        personas,
        temperatures,
        n,
        top_p,
        max_tokens,
        policy,
        weighted,
        fallback,
        structured,
        message,
    } = form;
    let dataset = ws.dataset.get_untracked();
    let study = judge.study.get_untracked();
    // Checked against the provider the Run screen names, never silently dropped.
    let (provider, model) = run.connection.with_untracked(|f| (f.provider, f.model.clone()));
    let caps = concord_core::run::Capabilities::for_model(provider, model.trim());
    let fields = parse_sampling_fields(
        &temperatures.get_untracked(),
        &n.get_untracked(),
        &top_p.get_untracked(),
        &max_tokens.get_untracked(),
        caps.temperature_range,
        provider.preset().name,
    );
    let (temps, sampling) = match fields {
        Ok(f) => f,
        Err(e) => {
            message.set(Some(e.to_string()));
            return;
        }
    };
    // The papers' order, whatever order the boxes were ticked in.
    let mut m = modes.get_untracked();
    m.sort_by_key(|x| OutputMode::ALL.iter().position(|y| y == x));
    let mut c = cot.get_untracked();
    c.sort();
    let mut p = personas.get_untracked();
    p.sort_by_key(|x| {
        [Persona::None, Persona::Hhh, Persona::HumanAnnotator].iter().position(|y| y == x)
    });
    let spec = GridSpec {
        modes: m,
        auto_cot: c,
        personas: p,
        temperatures: temps,
        sampling,
        policy: policy.get_untracked(),
        weighting: weighted.get_untracked().then(|| fallback.get_untracked()),
        structured: structured.get_untracked(),
    };
    let methods = grid(&dataset.loaded.dataset, &study.attributes, &spec);
    // The suggested study, untouched, makes way for the first methods chosen.
    let replaced = (!methods.is_empty() && is_default_study(&study, &dataset.loaded.dataset))
        .then(|| study.methods.iter().map(|m| m.name.clone()).collect::<Vec<_>>().join(", "));
    let before = if replaced.is_some() { 0 } else { study.methods.len() };
    judge.study.update(|s| {
        if replaced.is_some() {
            s.methods.clear();
        }
        // From now on the study is the user's: a second "Add methods" adds.
        s.suggested = false;
        for m in methods {
            if !s.methods.iter().any(|x| x.name == m.name) {
                s.methods.push(m);
            }
        }
        // New "+cot" methods take each attribute's chosen steps.
        s.apply_steps(&dataset.loaded.dataset);
    });
    let added = judge.study.with_untracked(|s| s.methods.len()) - before;
    message.set(Some(match (added, replaced) {
        (0, _) => "Nothing added: pick at least one output mode, and methods with these names exist already.".into(),
        (n, Some(suggested)) => format!(
            "Added {}, in place of the suggested {suggested}.",
            concord_core::words::count(n, "method", "methods")
        ),
        (n, None) => format!("Added {}.", concord_core::words::count(n, "method", "methods")),
    }));
}

#[component]
fn AddMethodsPanel() -> impl IntoView {
    let ws = use_workspace();
    let judge = use_judge();
    let run = crate::screens::run::state::use_run();
    // New methods get room to think when the Run screen's model is a reasoning model; the
    // default follows the model until the field is edited.
    let reasoning = Memo::new(move |_| run.connection.with(|f| f.caps().reasoning));
    let default_max = move |reasoning: bool| {
        if reasoning { REASONING_DEFAULT_MAX_TOKENS.to_string() } else { "128".to_owned() }
    };
    let max_tokens = RwSignal::new(default_max(reasoning.get_untracked()));
    Effect::new(move |_| {
        let now = reasoning.get();
        if max_tokens.get_untracked() == default_max(!now) {
            max_tokens.set(default_max(now));
        }
    });
    let form = MethodForm {
        modes: RwSignal::new(vec![OutputMode::RateExplain]),
        cot: RwSignal::new(vec![false]),
        personas: RwSignal::new(vec![Persona::None]),
        temperatures: RwSignal::new("1".to_owned()),
        n: RwSignal::new("1".to_owned()),
        top_p: RwSignal::new(String::new()),
        max_tokens,
        policy: RwSignal::new(Policy::Concord),
        weighted: RwSignal::new(false),
        fallback: RwSignal::new(WeightFallback::Drop),
        structured: RwSignal::new(false),
        message: RwSignal::new(None::<String>),
    };
    let MethodForm { message, .. } = form;
    let add = move |_| add_methods(form, ws, judge, run);
    view! {
        <section class="panel" aria-labelledby="grid-heading">
            <h2 id="grid-heading">"Add methods"</h2>
            <p class="muted">"Every combination of the choices below becomes one method (a row of the results table)."</p>
            <PromptChoices form/>
            <ScoreChoices form/>
            <SamplingRow form/>
            <div class="row">
                <button class="primary" type="button" on:click=add>"Add methods"</button>
                <span role="status" class="muted" data-testid="add-methods-message">{move || message.get().unwrap_or_default()}</span>
            </div>
        </section>
    }
}

/// The choices of "Add methods": each a signal the panel's parts share.
#[derive(Clone, Copy)]
struct MethodForm {
    modes: RwSignal<Vec<OutputMode>>,
    cot: RwSignal<Vec<bool>>,
    personas: RwSignal<Vec<Persona>>,
    temperatures: RwSignal<String>,
    n: RwSignal<String>,
    top_p: RwSignal<String>,
    max_tokens: RwSignal<String>,
    policy: RwSignal<Policy>,
    /// Probability-weighted score (G-Eval), and what to do with a sample it cannot weigh.
    weighted: RwSignal<bool>,
    fallback: RwSignal<WeightFallback>,
    /// Structured output: the answer as JSON following the mode's schema, read by `json`.
    structured: RwSignal<bool>,
    message: RwSignal<Option<String>>,
}

/// The prompt's choices: output modes, auto-CoT steps with and without, personas.
#[component]
fn PromptChoices(form: MethodForm) -> impl IntoView {
    let MethodForm { modes, cot, personas, .. } = form;
    let set_mode = move |v, on| toggle(modes, v, on);
    let set_cot = move |v, on| toggle(cot, v, on);
    let set_persona = move |v, on| toggle(personas, v, on);
    let mode_box = move |mode: OutputMode| {
        view! {
            <label class="check">
                <input type="checkbox" prop:checked=move || modes.with(|m| m.contains(&mode))
                    on:change=move |ev| set_mode(mode, event_target_checked(&ev))/>
                {mode.name()}
            </label>
        }
    };
    view! {
        <fieldset class="row">
            <legend>"Output mode"</legend>
            {OutputMode::ALL.into_iter().map(mode_box).collect_view()}
        </fieldset>
        <fieldset class="row">
            <legend>"Auto-CoT evaluation steps"</legend>
            <label class="check"><input type="checkbox" prop:checked=move || cot.with(|c| c.contains(&false))
                on:change=move |ev| set_cot(false, event_target_checked(&ev))/>"without"</label>
            <label class="check"><input type="checkbox" prop:checked=move || cot.with(|c| c.contains(&true))
                on:change=move |ev| set_cot(true, event_target_checked(&ev))/>"with"</label>
        </fieldset>
        <fieldset class="row">
            <legend>"Persona"</legend>
            {[Persona::None, Persona::Hhh, Persona::HumanAnnotator].into_iter().map(|p| view! {
                <label class="check"><input type="checkbox" prop:checked=move || personas.with(|l| l.contains(&p))
                    on:change=move |ev| set_persona(p, event_target_checked(&ev))/>{persona_name(p)}</label>
            }).collect_view()}
        </fieldset>
    }
}

/// How the score is read: probability-weighted (with its fallback), structured output; and a
/// warning when the Run screen's model gives no log-probabilities.
#[component]
fn ScoreChoices(form: MethodForm) -> impl IntoView {
    let MethodForm { weighted, fallback, structured, .. } = form;
    let run = crate::screens::run::state::use_run();
    view! {
        <fieldset class="row">
            <legend>"Score"</legend>
            <label class="check"><input type="checkbox" data-testid="weighted" prop:checked=move || weighted.get()
                on:change=move |ev| weighted.set(event_target_checked(&ev))/>
                "probability-weighted (G-Eval: Σ p(s)·s over the scale at the rating's token)"</label>
            <label>"A sample with no usable log-probabilities: "
                <select aria-label="Weighting fallback" data-testid="weighting-fallback" on:change=move |ev| {
                    if let Some(f) = WeightFallback::from_name(&event_target_value(&ev)) { fallback.set(f) }
                }>
                    <option value="drop" selected=move || fallback.get() == WeightFallback::Drop>"leave it out"</option>
                    <option value="parsed" selected=move || fallback.get() == WeightFallback::Parsed>"use its parsed rating"</option>
                </select>
            </label>
            <label class="check"><input type="checkbox" data-testid="structured" prop:checked=move || structured.get()
                on:change=move |ev| structured.set(event_target_checked(&ev))/>
                "structured output (the answer as JSON following the mode's schema; read by the json parser)"</label>
        </fieldset>
        {move || {
            let (provider, model) = run.connection.with(|f| (f.provider, f.model.clone()));
            let caps = concord_core::run::Capabilities::for_model(provider, model.trim());
            (weighted.get() && caps.max_top_logprobs.is_none()).then(|| view! {
                <p class="warn-box" data-testid="no-logprobs">{logprobs_warning(provider, &model)}</p>
            })
        }}
    }
}

/// The sampling parameters (temperatures, N, top_p, max tokens) and the parser.
#[component]
fn SamplingRow(form: MethodForm) -> impl IntoView {
    let MethodForm { temperatures, n, top_p, max_tokens, policy, .. } = form;
    view! {
        <div class="row">
            <label>"Temperatures " <input type="text" size="10" prop:value=move || temperatures.get()
                on:input=move |ev| temperatures.set(event_target_value(&ev))
                aria-describedby="temps-help"/></label>
            <span id="temps-help" class="muted">"comma-separated, e.g. 0, 0.7, 1"</span>
            <label>"Samples N " <input type="number" min="1" max="100" prop:value=move || n.get()
                on:input=move |ev| n.set(event_target_value(&ev))/></label>
            <label>"top_p " <input type="text" size="5" placeholder="default" prop:value=move || top_p.get()
                on:input=move |ev| top_p.set(event_target_value(&ev))/></label>
            <label>"Max tokens " <input type="text" size="6" prop:value=move || max_tokens.get()
                on:input=move |ev| max_tokens.set(event_target_value(&ev))/></label>
            <label>"Parser "
                <select on:change=move |ev| {
                    if let Some(p) = Policy::from_name(&event_target_value(&ev)) { policy.set(p) }
                }>
                    {Policy::ALL.into_iter().map(|p| view! {
                        <option value=p.name() selected=move || policy.get() == p>{p.name()}</option>
                    }).collect_view()}
                </select>
            </label>
        </div>
    }
}

#[component]
fn MethodsPanel() -> impl IntoView {
    let judge = use_judge();
    let run = crate::screens::run::state::use_run();
    let ws = use_workspace();
    view! {
        <section class="panel" aria-labelledby="methods-heading">
            <h2 id="methods-heading">"Methods"</h2>
            // What "Check this model" found the Run screen's model cannot serve.
            {move || {
                let form = run.connection.get();
                let check = run.checks.with(|c| crate::screens::run::state::check_of(&form, c))?;
                let flags = judge.study.with(|s| concord_core::study::workbench::study::unservable(s, &check));
                (!flags.is_empty()).then(|| view! {
                    <div class="warn-box" role="region" aria-label="Methods this model cannot serve" data-testid="check-flags">
                        <p>{format!("Checked on the Run screen, {} at {} cannot serve:", check.model, form.provider)}</p>
                        <ul>{flags.into_iter().map(|(m, why)| view! { <li data-testid="check-flag"><strong>{m}</strong>{format!(": {why}")}</li> }).collect_view()}</ul>
                    </div>
                })
            }}
            {move || {
                let study = judge.study.get();
                if study.methods.is_empty() {
                    return view! { <p class="muted" data-testid="no-methods">"No methods yet: add some above."</p> }.into_any();
                }
                let count = study.methods.len() * study.attributes.len();
                view! {
                    // In its own scroll box: a narrow screen scrolls the table, not the page, and
                    // the sticky header stays on top of its rows when the page scrolls.
                    <div class="table-wrap">
                    <table class="data" data-testid="methods">
                        <thead><tr>
                            <th scope="col">"Method"</th><th scope="col" class="num">"N"</th><th scope="col" class="num">"T"</th>
                            <th scope="col" class="num">"top_p"</th><th scope="col">"Parser"</th><th scope="col"><span class="sr-only">"Actions"</span></th>
                        </tr></thead>
                        <tbody>
                        {study.methods.iter().map(|m| {
                            let name = m.name.clone();
                            let label = format!("Remove {name}");
                            view! {
                                <tr>
                                    <td>{m.name.clone()}</td>
                                    <td class="num">{m.sampling.n}</td>
                                    <td class="num">{m.sampling.temperature.map_or("default".into(), |t| t.to_string())}</td>
                                    <td class="num">{m.sampling.top_p.map_or("default".into(), |t| t.to_string())}</td>
                                    <td>{m.policy.name()}</td>
                                    <td><button type="button" class="secondary" aria-label=label
                                        on:click=move |_| judge.study.update(|s| s.methods.retain(|x| x.name != name))>"Remove"</button></td>
                                </tr>
                            }
                        }).collect_view()}
                        </tbody>
                    </table>
                    </div>
                    <p class="muted">{format!("{} per item.", concord_core::words::count(count, "(method, attribute) run", "(method, attribute) runs"))}</p>
                    {move || {
                        let suggested = ws.dataset.with(|d| judge.study.with(|s| is_default_study(s, &d.loaded.dataset)));
                        suggested.then(|| view! {
                            <p class="notice-line" data-testid="suggested-study">
                                "Suggested to start with: one rate-explain method (a rating and its explanation, one sample at temperature 1) on every attribute. Go to Run to try it, or add methods above: they take its place."
                            </p>
                        })
                    }}
                    {move || {
                        let warnings = ws.dataset.with(|d| judge.study.with(|s| prompt_warnings(&d.loaded.dataset, s)));
                        (!warnings.is_empty()).then(|| view! {
                            <div class="warn-box" role="region" aria-label="Prompts not ready to send" data-testid="prompt-warnings">
                                <p>"Not ready to send as they are (the Run screen asks first):"</p>
                                <ul>{warnings.into_iter().map(|w| view! { <li>{w.to_string()}</li> }).collect_view()}</ul>
                            </div>
                        })
                    }}
                    {move || {
                        let (model, caps) = run.connection.with(|f| (f.model.clone(), f.caps()));
                        judge.study.with(|s| short_budget_warning(&model, &short_budgets(s, &caps)))
                            .map(|w| view! { <p class="warn-box" data-testid="reasoning-budget">{w}</p> })
                    }}
                    <button class="primary" type="button" on:click=move |_| ws.screen.set(Screen::Run)>"Go to Run"</button>
                }.into_any()
            }}
        </section>
    }
}

/// Renders each part of `template` separately for `item`, so the preview can colour them.
fn render_parts(
    template: &PromptTemplate,
    item: &concord_core::data::RatingItem,
) -> Vec<(PartKind, String)> {
    template
        .parts
        .iter()
        .map(|part| {
            let single =
                PromptTemplate { parts: vec![part.clone()], bindings: template.bindings.clone() };
            let text = single.render(item).unwrap_or_else(|e| format!("⚠ {e}"));
            (part.kind, text)
        })
        .collect()
}

#[component]
fn PromptPanel() -> impl IntoView {
    let ws = use_workspace();
    let judge = use_judge();
    let method = RwSignal::new(0usize);
    let attribute = RwSignal::new(0usize);
    let item = RwSignal::new(0usize);
    let selected = move || {
        let study = judge.study.get();
        let m = study.methods.get(method.get())?.clone();
        let a = study.attributes.get(attribute.get())?.clone();
        let t = m.template(&a)?.clone();
        Some((m.auto_cot, a, t))
    };
    // The part being typed in, shown in the preview as it is typed; it becomes part of the
    // study when the text area loses focus (re-rendering the editor on every key would move
    // the caret out of it). Leaving the area drops it even when nothing changed (typed, then
    // restored), so it never shows over another method's or attribute's template.
    let draft = RwSignal::new(None::<(usize, String)>);
    let edit = move |index: usize, text: String| {
        let (m, a) = (method.get_untracked(), attribute.get_untracked());
        judge.study.update(|s| {
            let Some(attr) = s.attributes.get(a).cloned() else { return };
            if let Some(t) = s.methods.get_mut(m).and_then(|m| m.templates.get_mut(&attr))
                && let Some(part) = t.parts.get_mut(index)
            {
                part.text = text;
            }
        });
    };
    view! {
        <Show when=move || judge.study.with(|s| !s.methods.is_empty())>
            <section class="panel" aria-labelledby="prompt-heading">
                <h2 id="prompt-heading">"Prompt"</h2>
                <div class="row">
                    <label>"Method "
                        <select on:change=move |ev| method.set(event_target_value(&ev).parse().unwrap_or(0))>
                            {move || judge.study.get().methods.iter().enumerate().map(|(i, m)| view! {
                                <option value=i.to_string() selected=move || method.get() == i>{m.name.clone()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <label>"Attribute "
                        <select on:change=move |ev| attribute.set(event_target_value(&ev).parse().unwrap_or(0))>
                            {move || judge.study.get().attributes.iter().enumerate().map(|(i, a)| view! {
                                <option value=i.to_string() selected=move || attribute.get() == i>{a.clone()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <label>"Preview item "
                        <input type="number" min="1" prop:value=move || (item.get() + 1).to_string()
                            on:input=move |ev| {
                                let max = ws.dataset.get_untracked().loaded.dataset.items.len().max(1);
                                let v: usize = event_target_value(&ev).parse().unwrap_or(1);
                                item.set(v.clamp(1, max) - 1);
                            }/>
                    </label>
                </div>
                <div class="prompt-grid">
                    <div class="prompt-editor">
                        <h3>"Template"</h3>
                        {move || selected().map(|(cot, _, t)| t.parts.iter().enumerate().map(|(i, part)| {
                            let id = format!("part-{i}");
                            let label = part_label(part.kind);
                            // A "+cot" method's steps are the attribute's: edited above, for every method.
                            let shared = cot && part.kind == PartKind::Steps;
                            view! {
                                <label for=id.clone() class=part_class(part.kind)>{label}</label>
                                {shared.then(|| view! { <p class="muted">"Shared by every \"+cot\" method: edit them under Evaluation steps above."</p> })}
                                <textarea id=id class=part_class(part.kind) rows="4" readonly=shared
                                    prop:value=part.text.clone()
                                    on:input=move |ev| draft.set(Some((i, event_target_value(&ev))))
                                    on:change=move |ev| { edit(i, event_target_value(&ev)); draft.set(None); }
                                    on:blur=move |_| draft.set(None)></textarea>
                            }
                        }).collect_view())}
                    </div>
                    <div class="prompt-preview">
                        <h3>"Exact prompt for this item"</h3>
                        <pre class="prompt" data-testid="prompt-preview" tabindex="0" role="region" aria-label="Exact prompt for this item">
                            {move || {
                                let dataset = ws.dataset.get();
                                let Some((_, _, mut t)) = selected() else { return Vec::new() };
                                if let Some((i, text)) = draft.get()
                                    && let Some(part) = t.parts.get_mut(i)
                                {
                                    part.text = text;
                                }
                                let Some(it) = dataset.loaded.dataset.items.get(item.get()) else { return Vec::new() };
                                render_parts(&t, it).into_iter().map(|(kind, text)| view! {
                                    <span class=part_class(kind) title=part_label(kind)>{text}</span>
                                }).collect::<Vec<_>>()
                            }}
                        </pre>
                    </div>
                </div>
            </section>
        </Show>
    }
}
