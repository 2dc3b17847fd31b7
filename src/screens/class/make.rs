//! The teacher's side: an exercise made from the open workspace — the chosen attributes, every
//! item or a seeded sample, instructions in Markdown (previewed as the students will see
//! them), the reference hidden or not, and the Results table's judge runs of those attributes
//! — and, with "Correct a judge" ticked, one of the Results table's judge runs whole (its raw
//! answers, cut to the exercise's items) for the students to review; with "Scrutinise CoEval
//! criteria" ticked, the CoEval screen's study (its task, criteria, instances and the LLM's
//! answers; nobody's decisions); with "Run given judges" ticked, the Judge screen's study (its
//! methods, templates, output modes, samples and auto-CoT steps; no key, no endpoint) for the
//! students to run with a model of their own; with "Can the judges replace the students?"
//! ticked, the class view tests those judge runs against the students as the annotators
//! (the alternative annotator test at the teacher's ε) — saved as a file to hand out or put
//! online (`?exercise=URL`).

use std::sync::Arc;

use concord_core::study::exercise::{Exercise, ExerciseSpec, Task, check_rate_task};
use concord_core::study::workbench::results::{run_kind, score_run};
use concord_core::study::workbench::review::run_key_of;
use concord_core::study::workbench::{ExtraRater, JudgedRun};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::components::download::save_text;
use crate::persist::bundle::BundleTargets;
use crate::state::{JudgeRuns, Workspace, use_workspace};

use super::state::{ClassState, use_class};

/// The Results table's judge runs of the open dataset as ratings by method and attribute (a
/// later run of a method and attribute replaces an earlier one, as on the table).
fn judge_ratings(runs: JudgeRuns, dataset: &concord_core::data::Dataset) -> Vec<ExtraRater> {
    let mut out: Vec<ExtraRater> = Vec::new();
    runs.runs.with_untracked(|runs| {
        // Judges only: a length probe's runs rated other texts.
        for run in runs.iter().filter(|r| run_kind(r).is_judge()) {
            let Some(Ok(scores)) = score_run(dataset, run) else { continue };
            let rater = ExtraRater {
                name: run.method.clone(),
                attribute: run.attribute.clone(),
                scores: dataset
                    .items
                    .iter()
                    .zip(&scores.scores)
                    .filter_map(|(item, s)| Some((item.id.clone(), (*s)?)))
                    .collect(),
            };
            out.retain(|r| !(r.name == rater.name && r.attribute == rater.attribute));
            out.push(rater);
        }
    });
    out
}

/// Why the CoEval screen's study cannot go into the exercise.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum CoEvalStudyError {
    #[error(
        "This browser's storage is not open, so the CoEval study cannot be read: reload the page."
    )]
    NoStorage,
    #[error(
        "There is no CoEval study in this browser: set one up on the CoEval screen (load its data or type a task, then ask for the LLM's criteria and evaluations), then come back."
    )]
    NoStudy,
    #[error("The CoEval study could not be read: {0}")]
    Unreadable(crate::screens::coeval::state::CoEvalError),
}

/// The CoEval screen's study as this browser keeps it (nobody's decisions go further).
async fn read_coeval(
    t: BundleTargets,
) -> Result<concord_core::study::coeval::Snapshot, CoEvalStudyError> {
    let Some(store) = t.storage.store.get_untracked() else {
        return Err(CoEvalStudyError::NoStorage);
    };
    match crate::screens::coeval::snapshot(&store).await {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(CoEvalStudyError::NoStudy),
        Err(e) => Err(CoEvalStudyError::Unreadable(e)),
    }
}

/// The Results table's judge runs by review key, each once (the latest run of a key, as on the
/// table), in the order first run.
fn run_keys(runs: &[JudgedRun]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        let key = run_key_of(&r.method, &r.attribute);
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// `Week 3: coherence` → `week-3-coherence`.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').chars().take(40).collect()
}

/// The teacher's form, kept while other screens are shown (made on first use, in this chunk).
#[derive(Clone, Copy)]
struct MakeForm {
    title: RwSignal<String>,
    chosen: RwSignal<Vec<String>>,
    sample: RwSignal<String>,
    seed: RwSignal<String>,
    instructions: RwSignal<String>,
    hide: RwSignal<bool>,
    /// Whether the CoEval screen's study goes in, to scrutinise.
    coeval: RwSignal<bool>,
    said: RwSignal<Option<(bool, String)>>,
    /// The tasks ticked: rate attributes, correct a judge (and which run, by key).
    rate: RwSignal<bool>,
    correct: RwSignal<bool>,
    correct_run: RwSignal<String>,
    /// Whether the Judge screen's methods go in, for the students to run.
    run_judges: RwSignal<bool>,
    /// Whether the class view tests the judges against the students (the alt-test), at ε.
    alt_test: RwSignal<bool>,
    epsilon: RwSignal<String>,
}

struct SharedForm {
    title: ArcRwSignal<String>,
    chosen: ArcRwSignal<Vec<String>>,
    sample: ArcRwSignal<String>,
    seed: ArcRwSignal<String>,
    instructions: ArcRwSignal<String>,
    hide: ArcRwSignal<bool>,
    coeval: ArcRwSignal<bool>,
    said: ArcRwSignal<Option<(bool, String)>>,
    rate: ArcRwSignal<bool>,
    correct: ArcRwSignal<bool>,
    correct_run: ArcRwSignal<String>,
    run_judges: ArcRwSignal<bool>,
    alt_test: ArcRwSignal<bool>,
    epsilon: ArcRwSignal<String>,
}

thread_local! {
    static FORM: SharedForm = SharedForm {
        title: ArcRwSignal::new(String::new()),
        chosen: ArcRwSignal::new(Vec::new()),
        sample: ArcRwSignal::new(String::new()),
        seed: ArcRwSignal::new("1".to_owned()),
        instructions: ArcRwSignal::new(String::from(
            "# What to do\n\nRead each output and rate it on the scale shown.\n\n- Rate every item.\n- Export your submission when you are done.",
        )),
        hide: ArcRwSignal::new(true),
        coeval: ArcRwSignal::new(false),
        said: ArcRwSignal::new(None),
        rate: ArcRwSignal::new(true),
        correct: ArcRwSignal::new(false),
        correct_run: ArcRwSignal::new(String::new()),
        run_judges: ArcRwSignal::new(false),
        alt_test: ArcRwSignal::new(false),
        epsilon: ArcRwSignal::new("0.15".to_owned()),
    };
}

fn use_make_form() -> MakeForm {
    FORM.with(|f| MakeForm {
        title: f.title.clone().into(),
        chosen: f.chosen.clone().into(),
        sample: f.sample.clone().into(),
        seed: f.seed.clone().into(),
        instructions: f.instructions.clone().into(),
        hide: f.hide.clone().into(),
        coeval: f.coeval.clone().into(),
        said: f.said.clone().into(),
        rate: f.rate.clone().into(),
        correct: f.correct.clone().into(),
        correct_run: f.correct_run.clone().into(),
        run_judges: f.run_judges.clone().into(),
        alt_test: f.alt_test.clone().into(),
        epsilon: f.epsilon.clone().into(),
    })
}

/// What "Save the exercise" says once the file is saved: what it holds and what to do with it.
fn saved_message(name: &str, ex: &Exercise) -> String {
    let what = [
        (!ex.attributes().is_empty()).then(|| format!("rate {}", ex.attributes().join(", "))),
        (!ex.run_judges().is_empty()).then(|| {
            format!(
                "run the judges {}",
                ex.run_judges()
                    .iter()
                    .map(|(m, a)| run_key_of(m, a))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }),
        ex.correct_judge_key().map(|k| format!("correct the judge {k}")),
        ex.coeval.as_ref().map(|s| format!("scrutinise the CoEval study “{}”", s.task)),
        ex.alt_test()
            .map(|e| format!("be the annotators of the alternative annotator test (ε = {e})")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join("; ");
    format!(
        "Saved {name}: {}, {what}, {} for comparison, reference {}. Hand it out, or put it online and share this page's address with ?exercise= and its address. Its class view is below.",
        concord_core::words::count(ex.dataset.items, "item", "items"),
        concord_core::words::count(ex.judges.len(), "judge run", "judge runs"),
        if ex.reference.hidden { "hidden until a student exports" } else { "shown" },
    )
}

/// What "Save the exercise" reads besides the form.
#[derive(Clone, Copy)]
struct SaveFrom {
    ws: Workspace,
    runs: JudgeRuns,
    class: ClassState,
    t: BundleTargets,
    /// The run to correct (the one chosen, else the table's first).
    chosen_run: Memo<Option<String>>,
    /// Why "Rate attributes" cannot be saved as ticked (said at the attributes).
    rate_error: RwSignal<Option<String>>,
}

/// "Save the exercise": checks the form, builds the exercise and saves it as a file; what
/// went wrong is said in the form (`said`, or `rate_error` at the attributes).
fn save_exercise(form: MakeForm, from: SaveFrom) {
    let MakeForm {
        title,
        chosen,
        sample,
        seed,
        instructions,
        hide,
        coeval,
        said,
        rate,
        correct,
        run_judges,
        alt_test,
        epsilon,
        ..
    } = form;
    let SaveFrom { ws, runs, class, t, chosen_run, rate_error } = from;
    let sample = match sample.get_untracked().trim() {
        "" => None,
        text => match (text.parse::<usize>(), seed.get_untracked().trim().parse::<u64>()) {
            (Ok(size), Ok(seed)) => Some((size, seed)),
            (Err(_), _) => {
                said.set(Some((false, format!("The sample size “{text}” is not a whole number: leave it empty for every item."))));
                return;
            }
            (_, Err(_)) => {
                said.set(Some((false, "The seed must be a whole number (0 or more).".to_owned())));
                return;
            }
        },
    };
    let created = js_sys::Date::new_0().to_iso_string().as_string().unwrap_or_default();
    let stamp: String = created.chars().filter(char::is_ascii_digit).take(14).collect();
    let title_text = title.get_untracked();
    let id = format!("{}-{stamp}", slug(&title_text));
    let to_correct: Option<JudgedRun> = if correct.get_untracked() {
        let Some(key) = chosen_run.get_untracked() else {
            said.set(Some((false, "There is no judge run to correct: run a judge on the Run screen (or import one on Results) first.".to_owned())));
            return;
        };
        runs.runs.with_untracked(|r| {
            r.iter().rev().find(|r| run_key_of(&r.method, &r.attribute) == key).cloned()
        })
    } else {
        None
    };
    let to_run = run_judges.get_untracked().then(|| t.judge.study.get_untracked());
    // "Rate attributes" ticked with no attribute ticked is refused at the attributes, not
    // dropped.
    if let Err(e) = check_rate_task(rate.get_untracked(), &chosen.get_untracked()) {
        rate_error.set(Some(e.to_string()));
        said.set(None);
        return;
    }
    rate_error.set(None);
    if !rate.get_untracked() && to_correct.is_none() && to_run.is_none() && !coeval.get_untracked()
    {
        said.set(Some((
            false,
            "Tick a task: rate attributes, run given judges, correct a judge, scrutinise the CoEval study, or several."
                .to_owned(),
        )));
        return;
    }
    let spec = ExerciseSpec {
        id,
        title: title_text,
        created,
        instructions: instructions.get_untracked(),
        attributes: if rate.get_untracked() { chosen.get_untracked() } else { Vec::new() },
        sample,
        hide_reference: hide.get_untracked(),
        coeval: None,
    };
    let with_coeval = coeval.get_untracked();
    let alt_epsilon = if alt_test.get_untracked() {
        match epsilon.get_untracked().trim().parse::<f64>() {
            Ok(e) => Some(e),
            Err(_) => {
                said.set(Some((false, "ε must be a number: 0.2 for experts, 0.15 for skilled annotators (students), 0.1 for crowd workers.".to_owned())));
                return;
            }
        }
    } else {
        None
    };
    spawn_local(async move {
        let snapshot = if with_coeval {
            match read_coeval(t).await {
                Ok(s) => Some(s),
                Err(why) => {
                    said.try_set(Some((false, why.to_string())));
                    return;
                }
            }
        } else {
            None
        };
        let spec = ExerciseSpec { coeval: snapshot, ..spec };
        let built = ws.dataset.with_untracked(|d| {
            let dataset = &d.loaded.dataset;
            Exercise::build_tasks(
                dataset,
                spec,
                judge_ratings(runs, dataset),
                to_correct.as_ref(),
                to_run.as_ref(),
            )
            .and_then(|ex| match alt_epsilon {
                Some(e) => ex.with_alt_test(e),
                None => Ok(ex),
            })
        });
        match built {
            Err(e) => {
                said.try_set(Some((false, e.to_string())));
            }
            Ok(ex) => {
                let name = format!("concord-exercise-{}.json", ex.id);
                match save_text(&name, "application/json", &ex.to_json()) {
                    Err(e) => {
                        said.try_set(Some((false, e.to_string())));
                    }
                    Ok(()) => {
                        said.try_set(Some((true, saved_message(&name, &ex))));
                        class.class_exercise.set(Some((name, Arc::new(ex))));
                    }
                }
            }
        }
    });
}

#[component]
pub fn MakePanel() -> impl IntoView {
    let ws = use_workspace();
    let runs = expect_context::<JudgeRuns>();
    let class = use_class();
    let t = BundleTargets::from_context();
    let form = use_make_form();
    let MakeForm { title, coeval, said, correct_run, .. } = form;
    // Why "Rate attributes" cannot be saved as ticked (said at the attributes).
    let rate_error = RwSignal::new(None::<String>);
    // The judges the students would run: the Judge screen's methods × the attributes of the
    // open dataset they judge.
    let given = move || {
        let names: Vec<String> = ws
            .dataset
            .with(|d| d.loaded.dataset.attributes.iter().map(|a| a.name.clone()).collect());
        t.judge.study.with(|s| {
            let attributes: Vec<String> = s
                .attributes
                .iter()
                .filter(|a| names.contains(a) && s.methods.iter().any(|m| m.template(a).is_some()))
                .cloned()
                .collect();
            let methods: Vec<String> = s
                .methods
                .iter()
                .filter(|m| attributes.iter().any(|a| m.template(a).is_some()))
                .map(|m| m.name.clone())
                .collect();
            (methods, attributes)
        })
    };
    // What the CoEval screen's study is, read when the task is ticked (and again on save).
    let coeval_study = RwSignal::new(None::<Result<String, CoEvalStudyError>>);
    Effect::new(move |_| {
        if coeval.get() {
            spawn_local(async move {
                let read = read_coeval(t).await.map(|s| {
                    s.restore().map_or_else(
                        |e| e.to_string(),
                        |r| {
                            format!(
                                "{} · {} LLM evaluations",
                                r.study.summary(),
                                r.study.evaluations.len()
                            )
                        },
                    )
                });
                coeval_study.try_set(Some(read));
            });
        }
    });
    let keys = Memo::new(move |_| runs.runs.with(|r| run_keys(r)));
    // The run to correct: the one chosen, else the table's first.
    let chosen_run = Memo::new(move |_| {
        let keys = keys.get();
        let want = correct_run.get();
        keys.iter().find(|k| **k == want).or_else(|| keys.first()).cloned()
    });
    let items = move || ws.dataset.with(|d| d.loaded.dataset.items.len());
    let save =
        move |_| save_exercise(form, SaveFrom { ws, runs, class, t, chosen_run, rate_error });
    view! {
        <section class="panel" aria-labelledby="make-heading" data-testid="make-panel">
            <h2 id="make-heading">"Make an exercise"</h2>
            <p class="muted">{move || format!("From the open workspace: {} ({} items). Students rate without seeing the dataset's human ratings, which become the reference; the Results table's judge runs of the chosen attributes go in too, for the class view.", ws.dataset.with(|d| d.loaded.dataset.name.clone()), items())}</p>
            <div class="row">
                <label for="exercise-title">"Title"</label>
                <input id="exercise-title" type="text" prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev))/>
            </div>
            <TaskChecks coeval_study/>
            <TaskDetails keys chosen_run given=Signal::derive(given)/>
            <AttributeChecks rate_error/>
            <ExerciseOptions/>
            <div class="row">
                <button type="button" class="primary" on:click=save>"Save the exercise"</button>
            </div>
            <p class="muted">"A file cannot keep a secret: a hidden reference is inside the exercise file, and a student who reads the file can find it. Concord only does not show it before the submission is exported."</p>
            {move || said.get().map(|(ok, text)| if ok {
                view! { <p class="muted" role="status" data-testid="exercise-saved">{text}</p> }.into_any()
            } else {
                view! { <p class="error-box" role="alert" data-testid="exercise-make-error">{text}</p> }.into_any()
            })}
        </section>
    }
}

/// The tasks a teacher can tick, and what the CoEval screen's study is when it goes in.
#[component]
fn TaskChecks(coeval_study: RwSignal<Option<Result<String, CoEvalStudyError>>>) -> impl IntoView {
    let MakeForm { rate, correct, run_judges, coeval, alt_test, .. } = use_make_form();
    view! {
        <fieldset class="row">
            <legend>"Tasks"</legend>
            {Task::KINDS.into_iter().map(|(kind, label, supported)| {
                let id = format!("task-{kind}");
                let for_id = id.clone();
                // The tasks a teacher can tick here; the others are named only.
                let ticked = match kind {
                    "rate_attributes" => Some(rate),
                    "correct_judge" => Some(correct),
                    "run_judges" => Some(run_judges),
                    "scrutinise_criteria" => Some(coeval),
                    "alt_test" => Some(alt_test),
                    _ => None,
                };
                let label = if kind == "scrutinise_criteria" {
                    format!("{label}: the CoEval screen's study, its criteria and the LLM's evaluations")
                } else if kind == "run_judges" {
                    format!("{label}: the Judge screen's methods, run by each student with their own model and key")
                } else if supported {
                    label.to_owned()
                } else {
                    format!("{label} (not supported yet)")
                };
                view! {
                    <label for=for_id>
                        <input id=id type="checkbox" disabled=ticked.is_none()
                            prop:checked=move || ticked.is_some_and(|t| t.get())
                            on:change=move |ev| if let Some(t) = ticked { t.set(event_target_checked(&ev)) }/>
                        {label}
                    </label>
                }
            }).collect_view()}
            {move || coeval.get().then(|| match coeval_study.get() {
                None => view! { <p class="muted">"Reading the CoEval screen's study…"</p> }.into_any(),
                Some(Ok(summary)) => view! { <p class="muted" data-testid="exercise-coeval-study">{format!("The study to scrutinise: {summary}. Students open it on the CoEval screen; their decisions go into their submission.")}</p> }.into_any(),
                Some(Err(why)) => view! { <p class="error-box" role="alert" data-testid="exercise-coeval-missing">{why.to_string()}</p> }.into_any(),
            })}
        </fieldset>
    }
}

/// What the ticked tasks take: the judges to run, ε for the alternative annotator test, the
/// judge run to correct.
#[component]
fn TaskDetails(
    keys: Memo<Vec<String>>,
    chosen_run: Memo<Option<String>>,
    /// The Judge screen's methods and the attributes of the open dataset they judge.
    given: Signal<(Vec<String>, Vec<String>)>,
) -> impl IntoView {
    let MakeForm { run_judges, alt_test, epsilon, correct, correct_run, .. } = use_make_form();
    view! {
        <Show when=move || run_judges.get()>
            {move || {
                let (methods, attributes) = given.get();
                if methods.is_empty() {
                    view! { <p class="error-box" role="alert" data-testid="exercise-run-missing">"The Judge screen has no method that judges an attribute of the open dataset: add methods on the Judge screen first."</p> }.into_any()
                } else {
                    view! { <p class="muted" data-testid="exercise-run-judges">{format!(
                        "The judges to run: {} on {}. The exercise carries their prompts, output modes, samples and parsers (and auto-CoT steps), never a key or an endpoint; each student picks a provider and model and gives their own key on the Run screen.",
                        methods.join(", "), attributes.join(", ")
                    )}</p> }.into_any()
                }
            }}
        </Show>
        <Show when=move || alt_test.get()>
            <div class="row">
                <label for="exercise-epsilon">"ε (the students are the annotators: 0.15 for skilled annotators such as students, 0.2 experts, 0.1 crowd)"</label>
                <input id="exercise-epsilon" type="number" min="0" max="0.99" step="0.01"
                    prop:value=move || epsilon.get() on:input=move |ev| epsilon.set(event_target_value(&ev))/>
            </div>
            <p class="muted" data-testid="exercise-alt-test">"The students rate the attributes ticked below; the class view then tests each of the Results table's judge runs of those attributes against the students as annotators (alternative annotator test): can the judge replace them? With at least 3 students and 30 items per student the test means something; the authors found 50 to 100 items enough in most cases."</p>
        </Show>
        <Show when=move || correct.get()>
            <div class="row">
                <label for="exercise-correct-run">"Judge run to correct"</label>
                <select id="exercise-correct-run" data-testid="exercise-correct-run"
                    on:change=move |ev| correct_run.set(event_target_value(&ev))>
                    {move || keys.get().into_iter().map(|key| {
                        let selected = chosen_run.get().as_deref() == Some(key.as_str());
                        view! { <option value=key.clone() selected=selected>{key.clone()}</option> }
                    }).collect_view()}
                </select>
                {move || keys.with(Vec::is_empty).then(|| view! {
                    <span class="muted">"No judge run yet: run one on the Run screen, or import one on Results."</span>
                })}
            </div>
            <p class="muted">"The students review this run on their Results screen (Review and correct): accept, change or flag each rating. The exercise carries its raw answers for the items, never a key."</p>
        </Show>
    }
}

/// The attributes to rate (only with "Rate attributes" ticked), and why they cannot be saved.
#[component]
fn AttributeChecks(rate_error: RwSignal<Option<String>>) -> impl IntoView {
    let MakeForm { rate, chosen, .. } = use_make_form();
    let ws = use_workspace();
    let attributes = move || ws.dataset.with(|d| d.loaded.dataset.attributes.clone());
    view! {
        <fieldset class="row" prop:disabled=move || !rate.get()
            aria-describedby=move || rate_error.with(Option::is_some).then_some("exercise-rate-error")>
            <legend>"Attributes to rate"</legend>
            {move || attributes().into_iter().map(|a| {
                let name = a.name.clone();
                let id = format!("exercise-attr-{}", a.name);
                let for_id = id.clone();
                let checked = {
                    let name = name.clone();
                    move || chosen.with(|c| c.contains(&name))
                };
                view! {
                    <label for=for_id>
                        <input id=id type="checkbox" prop:checked=checked on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            rate_error.set(None);
                            chosen.update(|c| {
                                c.retain(|x| *x != name);
                                if on { c.push(name.clone()); }
                            });
                        }/>
                        {format!("{} ({}–{})", a.name, a.scale.min, a.scale.max)}
                    </label>
                }
            }).collect_view()}
        </fieldset>
        {move || rate_error.get().map(|e| view! {
            <p class="error-box" role="alert" id="exercise-rate-error" data-testid="exercise-rate-error">{e}</p>
        })}
    }
}

/// The sample, its seed, whether the reference is hidden, and the instructions with their preview.
#[component]
fn ExerciseOptions() -> impl IntoView {
    let MakeForm { sample, seed, hide, instructions, .. } = use_make_form();
    view! {
        <div class="row">
            <label for="exercise-sample">"Sample size"</label>
            <input id="exercise-sample" type="number" min="1" placeholder="every item" prop:value=move || sample.get() on:input=move |ev| sample.set(event_target_value(&ev))/>
            <label for="exercise-seed">"Seed"</label>
            <input id="exercise-seed" type="number" min="0" prop:value=move || seed.get() on:input=move |ev| seed.set(event_target_value(&ev))/>
            <label for="exercise-hide">
                <input id="exercise-hide" type="checkbox" prop:checked=move || hide.get() on:change=move |ev| hide.set(event_target_checked(&ev))/>
                "Hide the reference until a student exports"
            </label>
        </div>
        <label class="stacked" for="exercise-instructions">
            <span>"Instructions (Markdown: # headings, - lists, *emphasis*, **strong**, `code`; shown as text)"</span>
            <textarea id="exercise-instructions" rows="6" prop:value=move || instructions.get() on:input=move |ev| instructions.set(event_target_value(&ev))></textarea>
        </label>
        <details>
            <summary>"Preview the instructions"</summary>
            <div class="instructions" data-testid="instructions-preview">{move || super::instructions::instructions_view(&instructions.get())}</div>
        </details>
    }
}
