//! The exercise file a teacher saves and students open.
//!
//! ```text
//! {
//!   "kind": "concord-exercise",           fixed
//!   "version": 1 | 2 | 3,                 readers refuse versions newer than theirs; a file is
//!                                         written at the lowest version its tasks need
//!   "id", "title", "created",             given by the app (the core reads no clock)
//!   "generator": "Concord 0.1.0",
//!   "instructions": "Markdown",           a safe subset, shown as text (`markdown`)
//!   "tasks": [ { "kind": "rate_attributes", "attributes": [..] }
//!              | { "kind": "run_judges", "methods": [..], "attributes": [..] } (version 2)
//!              | { "kind": "correct_judge", "method", "attribute" }       (version 2)
//!              | { "kind": "scrutinise_criteria" }
//!              | { "kind": "alt_test", "epsilon": 0.2 } ],             (version 3)
//!   "sample": { "of", "size", "seed" } | null,   a seeded sample of the dataset's items
//!   "dataset": { "name", "sha256", "items",
//!                "embedded": { Dataset } },      the items to rate, the chosen attributes,
//!                                                no human rating (those are the reference)
//!   "reference": { "hidden": bool,               hidden until the submission is exported
//!                  "ratings": [ { "name": "reference", "attribute", "scores": [[item, x]] } ] },
//!   "judges": [ { "name": method, "attribute", "scores": [[item, x]] } ],
//!   "judge_run": { JudgedRun } | absent          version 2: the run a correct-judge task
//!                                                reviews, its records cut to the items
//!   "coeval": { CoEval snapshot } | absent       version 2: the CoEval study to scrutinise
//!                                                (task, criteria, instances, the LLM's
//!                                                answers; no annotator's work, no key)
//!   "study": { Study } | absent                  version 2: the Judge screen's methods a
//!                                                run-judges task runs (templates, output
//!                                                modes, samples, auto-CoT steps; no key,
//!                                                no endpoint)
//! }
//! ```
//!
//! Rating attributes (version 1), correcting a judge (version 2: the judge's run — its raw
//! answers, so the student's Review panel shows its samples and rationale — travels in
//! `judge_run`) and scrutinising a CoEval study (version 2: the study travels in `coeval`; an
//! exercise that only scrutinises embeds no item of the workbench's dataset) and running
//! given judges (version 2: the Judge screen's study travels in `study`; each student runs
//! its methods × attributes on the exercise's items with their own provider, model and key)
//! are supported, and (version 3) the alternative annotator test with the students as the
//! annotators: the students rate, and the class view tests whether each of the exercise's
//! judges could replace them at the teacher's ε ([`Exercise::with_alt_test`]); a task this
//! Concord does not know the parts of (a run-judges task without
//! methods or study) is named, and the app says plainly that it cannot do it. A version-1 reader refuses a version-2 file by name
//! ("open it with a newer Concord"); version-1 files open as before.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bundle::dataset_hash;
use crate::data::{Dataset, join};
use crate::study::coeval::Snapshot as CoEvalSnapshot;
use crate::study::coeval::Study as CoEvalStudy;
use crate::study::workbench::review::run_key_of;
use crate::study::workbench::settings::ExtraRater;
use crate::study::workbench::{JudgedRun, Study};

/// The value of `kind`.
pub const KIND: &str = "concord-exercise";
/// What a student's submission file says it is (`submission::KIND`): named here so an
/// exercise file's reader can tell a submission dropped in its place.
pub const SUBMISSION_KIND: &str = "concord-submission";
/// The newest version this build reads (and writes, when a task needs it: [`Task::since`]).
pub const VERSION: u32 = 3;
/// The name the reference ratings carry.
pub const REFERENCE: &str = "reference";

/// What students are asked to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Task {
    /// Rate every item on these attributes.
    RateAttributes { attributes: Vec<String> },
    /// Run the methods `methods` of the exercise's study (embedded as [`Exercise::study`]) on
    /// `attributes`, with the student's own provider, model and key. Version 2. The fields
    /// default to empty, so a file naming the task without them still opens (the task is then
    /// unsupported).
    RunJudges {
        #[serde(default)]
        methods: Vec<String>,
        #[serde(default)]
        attributes: Vec<String>,
    },
    /// Review the judge run `method` / `attribute` (embedded as [`Exercise::judge_run`]):
    /// accept, change or flag each of its ratings. Version 2. The fields default to empty, so a
    /// version-1 file naming the task without a run still opens (the task is then unsupported).
    CorrectJudge {
        #[serde(default)]
        method: String,
        #[serde(default)]
        attribute: String,
    },
    /// Scrutinise the exercise's CoEval study (embedded as [`Exercise::coeval`]): its criteria
    /// (stage 1) and the LLM's evaluations (stage 2), on the CoEval screen. Version 2.
    ScrutiniseCriteria,
    /// The students are the annotators of the alternative annotator test (STATS_SPEC §16.1):
    /// they rate, and the class view tests whether each of the exercise's judges could replace
    /// them at this ε. Version 3; it goes with a rating task and the judges' ratings.
    AltTest { epsilon: f64 },
}

impl Task {
    /// The tasks a teacher can name, with whether this Concord supports them.
    pub const KINDS: [(&'static str, &'static str, bool); 5] = [
        ("rate_attributes", "Rate attributes", true),
        ("run_judges", "Run given judges", true),
        ("correct_judge", "Correct a judge", true),
        ("scrutinise_criteria", "Scrutinise CoEval criteria", true),
        ("alt_test", "Can the judges replace the students? (alternative annotator test)", true),
    ];

    /// Whether students can do this task in this Concord.
    pub fn supported(&self) -> bool {
        match self {
            Task::RateAttributes { .. } | Task::ScrutiniseCriteria => true,
            Task::AltTest { epsilon } => (0.0..1.0).contains(epsilon),
            Task::CorrectJudge { method, .. } => !method.is_empty(),
            Task::RunJudges { methods, attributes } => {
                !methods.is_empty() && !attributes.is_empty()
            }
        }
    }

    /// The file version a task needs: a file is written at the highest of its tasks'.
    pub fn since(&self) -> u32 {
        match self {
            Task::CorrectJudge { .. } | Task::ScrutiniseCriteria | Task::RunJudges { .. } => 2,
            Task::AltTest { .. } => 3,
            _ => 1,
        }
    }

    /// What a student reads.
    pub fn describe(&self) -> String {
        match self {
            Task::RateAttributes { attributes } => format!("Rate {}", attributes.join(", ")),
            Task::RunJudges { methods, attributes }
                if !methods.is_empty() && !attributes.is_empty() =>
            {
                format!(
                    "Run the judges {} on {} (Run screen, with your own provider, model and key)",
                    methods.join(", "),
                    attributes.join(", ")
                )
            }
            Task::RunJudges { .. } => {
                "Run given judges (the file names no method or attribute to run)".to_owned()
            }
            Task::CorrectJudge { method, attribute } if !method.is_empty() => format!(
                "Correct the judge {} on the Results screen (Review and correct)",
                run_key_of(method, attribute)
            ),
            Task::CorrectJudge { .. } => {
                "Correct a judge (the file holds no judge run to correct)".to_owned()
            }
            Task::ScrutiniseCriteria => {
                "Scrutinise the CoEval study's criteria and the LLM's evaluations (CoEval screen)"
                    .to_owned()
            }
            Task::AltTest { epsilon } => format!(
                "Be the annotators: the class view tests whether the exercise's judges could replace you (alternative annotator test, ε = {})",
                crate::study::validity::Settings { epsilon: *epsilon, ..Default::default() }
                    .epsilon_text()
            ),
        }
    }
}

/// The seeded sample of items an exercise holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Items in the dataset sampled from.
    pub of: usize,
    pub size: usize,
    pub seed: u64,
}

/// The items to rate, embedded with their hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExerciseDataset {
    pub name: String,
    pub sha256: String,
    pub items: usize,
    pub embedded: Dataset,
}

/// The reference ratings (the dataset's human aggregate) and whether students see them only
/// after exporting their submission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub hidden: bool,
    pub ratings: Vec<ExtraRater>,
}

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exercise {
    pub kind: String,
    pub version: u32,
    pub id: String,
    pub title: String,
    pub created: String,
    pub generator: String,
    pub instructions: String,
    pub tasks: Vec<Task>,
    pub sample: Option<Sample>,
    pub dataset: ExerciseDataset,
    pub reference: Reference,
    #[serde(default)]
    pub judges: Vec<ExtraRater>,
    /// The judge run a correct-judge task reviews (version 2), its records cut to the
    /// exercise's items; it holds the run's raw answers, never a key or an endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_run: Option<JudgedRun>,
    /// The CoEval study to scrutinise (version 2): no annotator, no log, no imported file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coeval: Option<CoEvalSnapshot>,
    /// The Judge screen's study a run-judges task runs (version 2): its methods (templates,
    /// output modes, samples, parsers) and the auto-CoT steps' sources, cut to the exercise's
    /// attributes. Never a key or an endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub study: Option<Study>,
}

/// What the teacher chose.
#[derive(Debug, Clone, PartialEq)]
pub struct ExerciseSpec {
    pub id: String,
    pub title: String,
    pub created: String,
    pub instructions: String,
    /// Attributes to rate, by name.
    pub attributes: Vec<String>,
    /// `Some((size, seed))`: a seeded sample of `size` items; `None`: every item.
    pub sample: Option<(usize, u64)>,
    pub hide_reference: bool,
    /// The CoEval study to scrutinise (the CoEval screen's), if the exercise asks for it.
    pub coeval: Option<CoEvalSnapshot>,
}

/// Why an exercise could not be built or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExerciseError {
    #[error(
        "not a valid exercise file (line {line}, column {column}): {message}; ask the teacher for the file again"
    )]
    Malformed { line: usize, column: usize, message: String },
    #[error("this JSON file is not a Concord exercise (no \"kind\": \"concord-exercise\"){hint}")]
    NotAnExercise { hint: &'static str },
    #[error(
        "this exercise has version {version}; this Concord reads up to version {VERSION} — open it with a newer Concord"
    )]
    TooNew { version: u32 },
    #[error(
        "the exercise's items were changed after it was saved (sha256 {actual}, the file says {expected}); ask the teacher for the file again"
    )]
    HashMismatch { expected: String, actual: String },
    #[error(
        "choose at least one attribute to rate, the Judge screen's methods to run, a judge run to correct, or the CoEval study to scrutinise"
    )]
    NoAttribute,
    #[error(
        "the CoEval study has no criteria to scrutinise: set up a study on the CoEval screen (its criteria, then the LLM's evaluations) first"
    )]
    CoEvalEmpty,
    #[error(
        "the exercise's CoEval study cannot be opened: {0}; ask the teacher for the file again"
    )]
    CoEval(String),
    #[error("the open dataset has no attribute “{0}”; choose among its attributes")]
    UnknownAttribute(String),
    #[error("the open dataset has no items to rate; open a dataset of rated outputs first")]
    NoItems,
    #[error("a sample needs at least one item; give a size from 1 to {0}")]
    EmptySample(usize),
    #[error("give the exercise a title")]
    NoTitle,
    #[error(
        "the judge run {run} rates “{attribute}”, which the open dataset does not have; choose another run"
    )]
    JudgeAttribute { run: String, attribute: String },
    #[error(
        "the judge run {run} rated none of the exercise's items; choose another run, or run the judge on these items first"
    )]
    JudgeRatedNothing { run: String },
    #[error(
        "the Judge screen has no method that judges an attribute of the open dataset: add methods on the Judge screen first"
    )]
    NoMethodToRun,
    #[error(
        "“Rate attributes” is ticked but no attribute is: tick the attributes the students rate, or untick the task"
    )]
    NoAttributeTicked,
    #[error(
        "the alternative annotator test needs the students to rate: tick “Rate attributes” and choose the attributes"
    )]
    AltTestNeedsRating,
    #[error(
        "the alternative annotator test needs a judge run of a rated attribute on the Results table (run one on the Run screen, or import one on Results)"
    )]
    AltTestNeedsJudges,
    #[error(
        "ε = {0} is not in [0, 1): the paper's values are 0.2 (experts), 0.15 (skilled), 0.1 (crowd)"
    )]
    AltTestEpsilon(String),
}

/// Checks the teacher's "Rate attributes" task before an exercise is built: ticked with no
/// attribute ticked is refused (it would be dropped silently when another task is ticked).
pub fn check_rate_task(rate: bool, attributes: &[String]) -> Result<(), ExerciseError> {
    if rate && attributes.is_empty() { Err(ExerciseError::NoAttributeTicked) } else { Ok(()) }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl Exercise {
    /// The exercise of `spec` over `dataset`: the chosen attributes, the sampled items (in the
    /// dataset's order) without their human ratings, the human aggregate as the reference and
    /// `judges` (judge ratings by method and attribute) cut to the same items and attributes.
    pub fn build(
        dataset: &Dataset,
        spec: ExerciseSpec,
        judges: Vec<ExtraRater>,
    ) -> Result<Exercise, ExerciseError> {
        Exercise::build_with(dataset, spec, judges, None)
    }

    /// [`Exercise::build`], and with `correct` a correct-judge task on that judge run: its
    /// attribute joins the embedded ones (and the reference), its records are cut to the
    /// exercise's items and embedded as [`Exercise::judge_run`]. With a run to correct, the
    /// attributes to rate may be none (then there is no rating task).
    pub fn build_with(
        dataset: &Dataset,
        spec: ExerciseSpec,
        judges: Vec<ExtraRater>,
        correct: Option<&JudgedRun>,
    ) -> Result<Exercise, ExerciseError> {
        Exercise::build_tasks(dataset, spec, judges, correct, None)
    }

    /// [`Exercise::build_with`], and with `run` a run-judges task on that study (the Judge
    /// screen's): its methods × the attributes they judge that the dataset has. The study is
    /// cut to those attributes and embedded as [`Exercise::study`]; the attributes join the
    /// embedded ones (and the reference). With judges to run, the attributes to rate may be
    /// none.
    pub fn build_tasks(
        dataset: &Dataset,
        spec: ExerciseSpec,
        judges: Vec<ExtraRater>,
        correct: Option<&JudgedRun>,
        run: Option<&Study>,
    ) -> Result<Exercise, ExerciseError> {
        if spec.title.trim().is_empty() {
            return Err(ExerciseError::NoTitle);
        }
        let coeval = spec.coeval.map(coeval_task).transpose()?;
        let study = run.map(|s| run_task(dataset, s)).transpose()?;
        if spec.attributes.is_empty() && correct.is_none() && study.is_none() {
            if coeval.is_none() {
                return Err(ExerciseError::NoAttribute);
            }
        } else if dataset.items.is_empty() {
            return Err(ExerciseError::NoItems);
        }
        let mut chosen: Vec<usize> = Vec::new();
        let mut rated: Vec<String> = Vec::new();
        if let Some(run) = correct {
            let i = dataset.attribute_index(&run.attribute).ok_or_else(|| {
                ExerciseError::JudgeAttribute {
                    run: run_key_of(&run.method, &run.attribute),
                    attribute: run.attribute.clone(),
                }
            })?;
            chosen.push(i);
        }
        for name in study.iter().flat_map(|s| &s.attributes) {
            if let Some(i) = dataset.attribute_index(name).filter(|i| !chosen.contains(i)) {
                chosen.push(i);
            }
        }
        for name in &spec.attributes {
            let i = dataset
                .attribute_index(name)
                .ok_or_else(|| ExerciseError::UnknownAttribute(name.clone()))?;
            if !chosen.contains(&i) {
                chosen.push(i);
            }
            if !rated.contains(&dataset.attributes[i].name) {
                rated.push(dataset.attributes[i].name.clone());
            }
        }
        chosen.sort_unstable();
        let n = dataset.items.len();
        let (rows, sample) = match spec.sample {
            // Nothing to rate: no item is embedded.
            _ if chosen.is_empty() => (Vec::new(), None),
            Some((size, _)) if size == 0 || size > n => {
                return Err(ExerciseError::EmptySample(n));
            }
            Some((size, seed)) if size < n => {
                let order = crate::stats::shuffled_orders(n, 1, seed).pop().unwrap_or_default();
                let mut rows: Vec<usize> = order.into_iter().take(size).collect();
                rows.sort_unstable();
                (rows, Some(Sample { of: n, size, seed }))
            }
            _ => ((0..n).collect(), None),
        };
        let attributes: Vec<_> = chosen.iter().map(|&i| dataset.attributes[i].clone()).collect();
        let items: Vec<_> = rows
            .iter()
            .map(|&r| {
                let mut item = dataset.items[r].clone();
                item.ratings = vec![None; attributes.len()];
                item
            })
            .collect();
        let reference = chosen
            .iter()
            .map(|&a| ExtraRater {
                name: REFERENCE.to_owned(),
                attribute: dataset.attributes[a].name.clone(),
                scores: rows
                    .iter()
                    .filter_map(|&r| {
                        let item = &dataset.items[r];
                        let rating = item.ratings.get(a)?.as_ref()?;
                        Some((item.id.clone(), rating.aggregate))
                    })
                    .collect(),
            })
            .filter(|r| !r.scores.is_empty())
            .collect();
        let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
        let judges = judges
            .into_iter()
            .filter(|j| attributes.iter().any(|a| a.name == j.attribute))
            .map(|mut j| {
                j.scores.retain(|(id, _)| ids.contains(&id.as_str()));
                j
            })
            .filter(|j| !j.scores.is_empty())
            .collect();
        let judge_run = match correct {
            None => None,
            Some(run) => {
                let per_item = join(dataset, &run.run).record_per_item(n);
                let mut cut = run.clone();
                cut.run.records = rows
                    .iter()
                    .filter_map(|&r| per_item.get(r).copied().flatten())
                    .filter_map(|k| run.run.records.get(k).cloned())
                    .collect();
                if cut.run.records.is_empty() {
                    return Err(ExerciseError::JudgeRatedNothing {
                        run: run_key_of(&run.method, &run.attribute),
                    });
                }
                Some(cut)
            }
        };
        let embedded =
            Dataset { name: dataset.name.clone(), attributes, items, ..Dataset::default() };
        let mut tasks = Vec::new();
        if !rated.is_empty() {
            // In the embedded (dataset) order.
            let attributes = embedded
                .attributes
                .iter()
                .filter(|a| rated.contains(&a.name))
                .map(|a| a.name.clone())
                .collect();
            tasks.push(Task::RateAttributes { attributes });
        }
        if let Some(run) = &judge_run {
            tasks.push(Task::CorrectJudge {
                method: run.method.clone(),
                attribute: run.attribute.clone(),
            });
        }
        if let Some(s) = &study {
            tasks.push(Task::RunJudges {
                methods: s.methods.iter().map(|m| m.name.clone()).collect(),
                attributes: s.attributes.clone(),
            });
        }
        if coeval.is_some() {
            tasks.push(Task::ScrutiniseCriteria);
        }
        Ok(Exercise {
            kind: KIND.to_owned(),
            version: tasks.iter().map(Task::since).max().unwrap_or(1),
            id: spec.id,
            title: spec.title.trim().to_owned(),
            created: spec.created,
            generator: format!("Concord {}", env!("CARGO_PKG_VERSION")),
            instructions: spec.instructions,
            tasks,
            sample,
            dataset: ExerciseDataset {
                name: dataset.name.clone(),
                sha256: dataset_hash(&embedded),
                items: embedded.items.len(),
                embedded,
            },
            reference: Reference { hidden: spec.hide_reference, ratings: reference },
            judges,
            judge_run,
            coeval,
            study,
        })
    }

    /// This exercise with the alternative annotator test as a task (the students its
    /// annotators, the exercise's judges the judges, at `epsilon`): it needs a rating task and
    /// a judge of a rated attribute. The file becomes version 3.
    pub fn with_alt_test(mut self, epsilon: f64) -> Result<Exercise, ExerciseError> {
        if !(0.0..1.0).contains(&epsilon) {
            return Err(ExerciseError::AltTestEpsilon(epsilon.to_string()));
        }
        if !self.rates() {
            return Err(ExerciseError::AltTestNeedsRating);
        }
        let rated = self.attributes();
        if !self.judges.iter().any(|j| rated.contains(&j.attribute.as_str())) {
            return Err(ExerciseError::AltTestNeedsJudges);
        }
        self.tasks.retain(|t| !matches!(t, Task::AltTest { .. }));
        self.tasks.push(Task::AltTest { epsilon });
        self.version = self.tasks.iter().map(Task::since).max().unwrap_or(1);
        Ok(self)
    }

    /// The alt-test task's ε, when the exercise has the task.
    pub fn alt_test(&self) -> Option<f64> {
        self.tasks.iter().find_map(|t| match t {
            Task::AltTest { epsilon } => Some(*epsilon),
            _ => None,
        })
    }

    /// Pretty JSON, as saved.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads and checks an exercise file: kind, version, the items' hash.
    pub fn from_json(text: &str) -> Result<Exercise, ExerciseError> {
        let value: serde_json::Value = serde_json::from_str(text).map_err(malformed)?;
        let kind = value.get("kind").and_then(|s| s.as_str());
        if kind != Some(KIND) {
            let hint = if kind == Some(SUBMISSION_KIND) {
                "; it is a student's submission: drop it in the class view"
            } else if value.get("schema").and_then(|s| s.as_str()) == Some(crate::bundle::SCHEMA) {
                "; it is a bundle: open it on the Data screen"
            } else {
                ""
            };
            return Err(ExerciseError::NotAnExercise { hint });
        }
        let version = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
        if version > u64::from(VERSION) {
            return Err(ExerciseError::TooNew { version: version.min(u64::from(u32::MAX)) as u32 });
        }
        let exercise: Exercise = serde_json::from_value(value).map_err(malformed)?;
        if exercise.coeval.is_some() {
            exercise.coeval_study()?;
        }
        let actual = dataset_hash(&exercise.dataset.embedded);
        if actual != exercise.dataset.sha256 {
            return Err(ExerciseError::HashMismatch {
                expected: exercise.dataset.sha256.clone(),
                actual,
            });
        }
        Ok(exercise)
    }

    /// The SHA-256 (hex) of the exercise's compact JSON: what a submission names it by, so a
    /// submission for an edited exercise is told apart.
    pub fn sha256(&self) -> String {
        hex(&Sha256::digest(serde_json::to_string(self).unwrap_or_default().as_bytes()))
    }

    /// The attributes to rate, by name: the rating task's (none without one; a correct-judge
    /// task's attribute is embedded too, to be reviewed, not rated).
    pub fn attributes(&self) -> Vec<&str> {
        self.tasks
            .iter()
            .find_map(|t| match t {
                Task::RateAttributes { attributes } => {
                    Some(attributes.iter().map(String::as_str).collect())
                }
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The correct-judge task's run, when the exercise has one and embeds its run.
    pub fn correct_judge(&self) -> Option<&JudgedRun> {
        let run = self.judge_run.as_ref()?;
        self.tasks
            .iter()
            .any(|t| {
                matches!(t, Task::CorrectJudge { method, attribute }
                    if *method == run.method && *attribute == run.attribute)
            })
            .then_some(run)
    }

    /// The review key ([`run_key_of`]) of the run a correct-judge task reviews.
    pub fn correct_judge_key(&self) -> Option<String> {
        self.correct_judge().map(|r| run_key_of(&r.method, &r.attribute))
    }

    /// The tasks this Concord cannot do, described (a correct-judge task whose run the file
    /// does not hold among them).
    pub fn unsupported(&self) -> Vec<String> {
        self.tasks
            .iter()
            .filter(|t| {
                !t.supported()
                    || (matches!(t, Task::CorrectJudge { .. }) && self.correct_judge().is_none())
                    || (matches!(t, Task::ScrutiniseCriteria) && self.coeval.is_none())
                    || (matches!(t, Task::RunJudges { .. }) && self.run_judges().is_empty())
            })
            .map(Task::describe)
            .collect()
    }

    /// The judges a run-judges task asks for, as (method, attribute): each of its methods on
    /// each of its attributes that the embedded study's method judges (none without the task
    /// or the study).
    pub fn run_judges(&self) -> Vec<(&str, &str)> {
        let Some(study) = &self.study else { return Vec::new() };
        let mut out = Vec::new();
        for t in &self.tasks {
            if let Task::RunJudges { methods, attributes } = t {
                for m in methods {
                    let Some(method) = study.method(m) else { continue };
                    for a in attributes {
                        if method.template(a).is_some() && !out.contains(&(m.as_str(), a.as_str()))
                        {
                            out.push((m.as_str(), a.as_str()));
                        }
                    }
                }
            }
        }
        out
    }

    /// The reference ratings of `attribute`, when the exercise has them.
    pub fn reference_of(&self, attribute: &str) -> Option<&ExtraRater> {
        self.reference.ratings.iter().find(|r| r.attribute == attribute)
    }

    /// Whether the students rate attributes.
    pub fn rates(&self) -> bool {
        self.tasks.iter().any(|t| matches!(t, Task::RateAttributes { .. }))
    }

    /// The CoEval study the students scrutinise, read from its snapshot.
    pub fn coeval_study(&self) -> Result<Option<CoEvalStudy>, ExerciseError> {
        self.coeval
            .as_ref()
            .map(|s| s.restore().map(|r| r.study).map_err(|e| ExerciseError::CoEval(e.to_string())))
            .transpose()
    }

    /// The dataset a student's workspace opens: the exercise's items, no rating.
    pub fn workspace_dataset(&self) -> Dataset {
        self.dataset.embedded.clone()
    }

    /// The judge runs a student's workspace opens with: the run to correct, if any.
    pub fn workspace_runs(&self) -> Vec<JudgedRun> {
        self.correct_judge().cloned().into_iter().collect()
    }

    /// The study a student's workspace opens with (the Judge screen's): the run-judges
    /// task's, if any.
    pub fn workspace_study(&self) -> Option<Study> {
        (!self.run_judges().is_empty()).then(|| self.study.clone()).flatten()
    }
}

/// The study as a run-judges exercise holds it: the attributes the dataset has, each method's
/// templates of those only, the methods that judge at least one of them.
fn run_task(dataset: &Dataset, study: &Study) -> Result<Study, ExerciseError> {
    let attributes: Vec<String> =
        study.attributes.iter().filter(|a| dataset.attribute_index(a).is_some()).cloned().collect();
    let methods: Vec<_> = study
        .methods
        .iter()
        .cloned()
        .map(|mut m| {
            m.templates.retain(|a, _| attributes.contains(a));
            m
        })
        .filter(|m| !m.templates.is_empty())
        .collect();
    if methods.is_empty() {
        return Err(ExerciseError::NoMethodToRun);
    }
    let attributes: Vec<String> = attributes
        .into_iter()
        .filter(|a| methods.iter().any(|m| m.templates.contains_key(a)))
        .collect();
    let mut steps = study.steps.clone();
    steps.retain(|a, _| attributes.contains(a));
    Ok(Study { attributes, methods, steps, suggested: false })
}

/// The CoEval study as an exercise holds it: what the study is, none of the teacher's work.
fn coeval_task(mut snapshot: CoEvalSnapshot) -> Result<CoEvalSnapshot, ExerciseError> {
    let study = snapshot.restore().map_err(|e| ExerciseError::CoEval(e.to_string()))?.study;
    if study.criteria.is_empty() {
        return Err(ExerciseError::CoEvalEmpty);
    }
    snapshot.annotator.clear();
    snapshot.logs.clear();
    snapshot.imported.clear();
    Ok(snapshot)
}

fn malformed(e: serde_json::Error) -> ExerciseError {
    ExerciseError::Malformed { line: e.line(), column: e.column(), message: e.to_string() }
}
