//! The study under scrutiny: the task (description and field names), its criteria, the
//! instances (a generating system's output for one input) and the LLM's evaluation of each
//! instance on each criterion, kept as the raw answer and its parts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::coeval::{Annotation, FinalCriterion, Unit, majority_criteria};
use crate::data::{Loaded, RecordKey};
use crate::judge::coeval::{TaskInfo, evaluation_prompt, read_evaluation, read_score};
use crate::judge::parse::Policy;

/// The rater name of the LLM in a study's results.
pub const LLM: &str = "LLM";

/// One output under scrutiny: a generating system's answer to one input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    /// Stable id (the dataset's item id, or `i1`, `i2`… for typed instances).
    pub id: String,
    pub input: String,
    pub output: String,
    /// The generating model (Figure 2 groups scores by it).
    pub system: String,
}

/// The LLM's evaluation of one instance on one criterion, split into its parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub instance: String,
    pub criterion: String,
    pub conclusion: String,
    /// The 1–5 score read with CoEval's policy; `None` when the answer had none.
    pub score: Option<f64>,
    pub evidence: Vec<String>,
    /// The LLM's answer as it came, so a bundle re-reads it on open. Empty for evaluations
    /// saved before answers were kept (their parts are all there is).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub response: String,
}

impl Evaluation {
    /// Splits a raw LLM answer (seed 004 §3.2 format) into its parts.
    pub fn from_response(instance: &str, criterion: &str, response: &str) -> Evaluation {
        let e = read_evaluation(criterion, response, Policy::Coeval);
        // The core reads step "2." with CoEval's rule; an answer that fails it (no number, or
        // one off the scale) gets Concord's reading, which skips scale ranges and labels.
        let score = e.score.ok().or_else(|| read_score(response, Policy::Concord).ok());
        Evaluation {
            instance: instance.to_owned(),
            criterion: criterion.to_owned(),
            conclusion: e.conclusion,
            score,
            evidence: e.evidence,
            response: response.to_owned(),
        }
    }
}

/// Everything a scrutiny session needs besides the annotators' logs. Persisted as one JSON
/// value so a reload restores the screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// The task's short name (`eli5`, or what the user typed); logs and exports carry it.
    pub task: String,
    pub info: TaskInfo,
    /// The LLM's (or released, or typed) criteria, in order.
    pub criteria: Vec<String>,
    pub instances: Vec<Instance>,
    pub evaluations: Vec<Evaluation>,
    /// The LLM's answers to the last ideation request, as they came (one per sample).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ideation: Vec<String>,
}

/// Why a study could not be built from a loaded file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StudyError {
    /// The file has no CoEval task (it is not `combine_data.json` or a file like it).
    #[error("this dataset has no CoEval task (load CoEval's combine_data.json, or type a task)")]
    NoTask,
    /// The file has tasks, but none of this name.
    #[error("no task `{task}` in this dataset (it has: {})", known.join(", "))]
    UnknownTask { task: String, known: Vec<String> },
    /// A typed task needs a name that can be part of a storage key.
    #[error("the task needs a name without `/`")]
    BadTaskName,
    /// A typed instance needs both texts.
    #[error("an instance needs an input and an output")]
    EmptyInstance,
}

/// Why an ideation request gave no criteria.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdeationError {
    #[error("the LLM's answer lists no criteria")]
    NoCriteria,
    #[error("none of the LLM's answers lists criteria")]
    NoneListsCriteria,
}

/// A criterion of stage 2 and the criterion its LLM evaluation is stored under (they differ
/// when annotators revised the wording in stage 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage2Criterion {
    pub name: String,
    pub evaluated_as: String,
}

/// One evaluation the LLM still has to make: the prompt (with stage 2's wording of the
/// criterion) and where its answer goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluationTarget {
    pub instance: String,
    /// The criterion the answer is stored under ([`Stage2Criterion::evaluated_as`]).
    pub criterion: String,
    pub prompt: String,
}

/// Splits typed criteria: one per non-empty line.
pub fn parse_criteria(text: &str) -> Vec<String> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

/// Whether every criterion starts with its own number (`1. Fluent.`, `2) On topic`, as the
/// released files and most LLM answers write them): a numbered list then shows them without
/// numbering them again.
pub fn numbered_by_themselves(criteria: &[String]) -> bool {
    let numbered = |c: &String| {
        let digits = c.trim_start().chars().take_while(char::is_ascii_digit).count();
        digits > 0 && matches!(c.trim_start()[digits..].chars().next(), Some('.' | ')'))
    };
    !criteria.is_empty() && criteria.iter().all(numbered)
}

/// Checks a typed task name (it becomes part of storage keys and file names).
pub fn check_task_name(name: &str) -> Result<(), StudyError> {
    if name.trim().is_empty() || name.contains('/') {
        return Err(StudyError::BadTaskName);
    }
    Ok(())
}

/// A typed instance (input, output, generating model), the model `unknown` when left empty.
pub fn typed_instance(
    input: &str,
    output: &str,
    system: &str,
) -> Result<(String, String, String), StudyError> {
    if input.trim().is_empty() || output.trim().is_empty() {
        return Err(StudyError::EmptyInstance);
    }
    let system = if system.trim().is_empty() { "unknown" } else { system };
    Ok((input.to_owned(), output.to_owned(), system.to_owned()))
}

impl Study {
    /// The CoEval tasks of a loaded file (`combine_data.json` has `eli5`, `roc`,
    /// `self_instruct`).
    pub fn tasks_in(loaded: &Loaded) -> Vec<String> {
        loaded.dataset.tasks.iter().map(|t| t.name.clone()).collect()
    }

    /// The study of `task` in a loaded CoEval file: its description and field names, its
    /// criteria, the first `limit` instances (all when `None`) and ChatGPT's evaluations.
    pub fn from_loaded(
        loaded: &Loaded,
        task: &str,
        limit: Option<usize>,
    ) -> Result<Study, StudyError> {
        let known = Study::tasks_in(loaded);
        if known.is_empty() {
            return Err(StudyError::NoTask);
        }
        let Some(t) = loaded.dataset.tasks.iter().find(|t| t.name == task) else {
            return Err(StudyError::UnknownTask { task: task.to_owned(), known });
        };
        let description = t.description.trim();
        let description =
            description.strip_prefix("The task is ").unwrap_or(description).trim_end_matches('.');
        let info = TaskInfo {
            description: description.to_owned(),
            input_name: t.input_name.clone(),
            output_name: t.output_name.clone(),
        };
        let items: Vec<_> = loaded
            .dataset
            .items
            .iter()
            .filter(|i| i.task.as_deref() == Some(task))
            .take(limit.unwrap_or(usize::MAX))
            .collect();
        let instances: Vec<Instance> = items
            .iter()
            .map(|i| Instance {
                id: i.id.clone(),
                input: i.inputs.0.first().map(|(_, v)| v.clone()).unwrap_or_default(),
                output: i.output.clone(),
                system: i.system_id.clone(),
            })
            .collect();
        let by_key: BTreeMap<_, &str> = items.iter().map(|i| (i.key(), i.id.as_str())).collect();
        let suffix = format!(": {task}: ChatGPT");
        let mut evaluations = Vec::new();
        for run in loaded.runs.iter().filter(|r| r.name.ends_with(&suffix)) {
            let Some(criterion) = &run.attribute else { continue };
            for record in &run.records {
                let RecordKey::Item(key) = &record.key else { continue };
                let (Some(id), Some(text)) = (by_key.get(key), record.responses.first()) else {
                    continue;
                };
                evaluations.push(Evaluation::from_response(id, criterion, text));
            }
        }
        Ok(Study {
            task: task.to_owned(),
            info,
            criteria: t.criteria.clone(),
            instances,
            evaluations,
            ideation: Vec::new(),
        })
    }

    /// A study typed in by hand: instances get ids `i1`, `i2`…; no LLM evaluations yet.
    pub fn typed(
        task: &str,
        info: TaskInfo,
        criteria: Vec<String>,
        instances: Vec<(String, String, String)>,
    ) -> Study {
        Study {
            task: task.trim().to_owned(),
            info,
            criteria,
            instances: instances
                .into_iter()
                .enumerate()
                .map(|(i, (input, output, system))| Instance {
                    id: format!("i{}", i + 1),
                    input,
                    output,
                    system,
                })
                .collect(),
            evaluations: Vec::new(),
            ideation: Vec::new(),
        }
    }

    /// One line of the screen's header: `Task: eli5 · 20 instances · 5 criteria`.
    pub fn summary(&self) -> String {
        format!(
            "Task: {} · {} instances · {} criteria",
            self.task,
            self.instances.len(),
            self.criteria.len()
        )
    }

    /// The LLM's evaluation of `instance` on `criterion`.
    pub fn evaluation(&self, instance: &str, criterion: &str) -> Option<&Evaluation> {
        self.evaluations.iter().find(|e| e.instance == instance && e.criterion == criterion)
    }

    /// Replaces (or adds) the LLM's evaluation of one instance on one criterion.
    pub fn set_evaluation(&mut self, evaluation: Evaluation) {
        match self
            .evaluations
            .iter_mut()
            .find(|e| e.instance == evaluation.instance && e.criterion == evaluation.criterion)
        {
            Some(slot) => *slot = evaluation,
            None => self.evaluations.push(evaluation),
        }
    }

    /// The generating system of an instance id (`?` when unknown).
    pub fn system_of(&self, instance: &str) -> String {
        self.instances
            .iter()
            .find(|i| i.id == instance)
            .map_or_else(|| "?".to_owned(), |i| i.system.clone())
    }

    /// The LLM's scores as units of a [`crate::coeval::ScoreTable`].
    pub fn llm_scores(&self) -> Vec<(Unit, f64)> {
        self.evaluations
            .iter()
            .filter_map(|e| {
                let unit = Unit {
                    instance: e.instance.clone(),
                    system: self.system_of(&e.instance),
                    criterion: e.criterion.clone(),
                };
                e.score.map(|s| (unit, s))
            })
            .collect()
    }

    /// The criteria of stage 2: the final criteria of stage 1 when anyone voted, else the
    /// study's. Each comes with the criterion whose LLM evaluation it shows.
    pub fn stage2_criteria(
        &self,
        finals: &[FinalCriterion],
        anyone_voted: bool,
    ) -> Vec<Stage2Criterion> {
        if !anyone_voted {
            return self
                .criteria
                .iter()
                .map(|c| Stage2Criterion { name: c.clone(), evaluated_as: c.clone() })
                .collect();
        }
        finals
            .iter()
            .map(|f| Stage2Criterion {
                name: f.criterion.clone(),
                evaluated_as: f.original.clone().unwrap_or_else(|| f.criterion.clone()),
            })
            .collect()
    }

    /// The criteria of stage 2 after the annotators' stage-1 votes (every annotator's state,
    /// merged): the majority's final criteria, or the study's when nobody voted.
    pub fn stage2_criteria_after(&self, annotations: &[&Annotation]) -> Vec<Stage2Criterion> {
        let anyone_voted = annotations.iter().any(|a| !a.criteria.is_empty());
        let finals = majority_criteria(&self.criteria, annotations);
        self.stage2_criteria(&finals, anyone_voted)
    }

    /// The evaluations the LLM has not made yet, for every instance and stage-2 criterion: the
    /// prompt has the final wording, the answer is stored under the criterion stage 2 looks
    /// it up by.
    pub fn missing_evaluations(&self, criteria: &[Stage2Criterion]) -> Vec<EvaluationTarget> {
        let mut out = Vec::new();
        for inst in &self.instances {
            for c in criteria {
                if self.evaluation(&inst.id, &c.evaluated_as).is_some() {
                    continue;
                }
                out.push(EvaluationTarget {
                    instance: inst.id.clone(),
                    criterion: c.evaluated_as.clone(),
                    prompt: evaluation_prompt(&self.info, &c.name, &inst.input, &inst.output),
                });
            }
        }
        out
    }

    /// The study with the LLM's answers to an ideation request for `requested` answers. One
    /// answer requested: its list becomes the criteria. Several: the answers are kept (their
    /// recurrence is for the user to choose from) and the criteria stay.
    pub fn with_ideation(
        &self,
        answers: Vec<String>,
        requested: u32,
    ) -> Result<Study, IdeationError> {
        let mut next = self.clone();
        let lists: Vec<Vec<String>> =
            answers.iter().map(|t| crate::judge::meta_eval::list_items(t)).collect();
        if requested <= 1 {
            match lists.into_iter().next() {
                Some(criteria) if !criteria.is_empty() => next.criteria = criteria,
                _ => return Err(IdeationError::NoCriteria),
            }
        } else if lists.iter().all(Vec::is_empty) {
            return Err(IdeationError::NoneListsCriteria);
        }
        next.ideation = answers;
        Ok(next)
    }

    /// The criteria lists of the kept ideation answers, one per answer.
    pub fn ideation_lists(&self) -> Vec<Vec<String>> {
        self.ideation.iter().map(|t| crate::judge::meta_eval::list_items(t)).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // Tests may unwrap: a panic is a failure report.
pub(crate) mod tests {
    use super::*;
    use crate::coeval::{Action, Event, Part};

    #[test]
    fn criteria_that_number_themselves_are_not_numbered_again() {
        let own = |list: &[&str]| {
            numbered_by_themselves(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        assert!(own(&["1. Fluent.", "2) On topic", " 10. Brief"]));
        assert!(!own(&["1. Fluent.", "Coherence"]));
        assert!(!own(&["Fluency", "2024 style"]));
        assert!(!own(&[]));
    }

    /// An action on a part of an evaluation (a revision or addition carries new text).
    pub fn part(instance: &str, criterion: &str, part: Part, action: Action) -> Event {
        let text = matches!(action, Action::Revise | Action::Add).then(|| "new".to_owned());
        Event::Part {
            instance: instance.to_owned(),
            criterion: criterion.to_owned(),
            part,
            action,
            text,
            reason: String::new(),
        }
    }

    /// A CoEval `combine_data.json` with one task, two instances and two criteria.
    pub const FIXTURE: &str = r#"{"tiny": {
      "task_info": ["The task is to write a story."],
      "source_name": ["story requirement"], "target_name": ["story"],
      "source": ["A cat.", "A dog."], "target": ["The cat slept.", "The dog ran home."],
      "model_name": ["turbo", "human"],
      "criteria": ["1. Fluent.", "2. On topic."],
      "criteria_kv": {
        "1. Fluent.": ["1. It is fluent.\n\n2. Score: 4\n\n3. Evidence: \"The cat slept.\"", "1. Fluent enough.\n\n2. Score: 3\n\n3. Evidence: \"The dog\" and \"ran home\""],
        "2. On topic.": ["1. On topic.\n\n2. Score: 5\n\n3. Evidence: \"cat\"", "1. Yes.\n\n2. Score: 2\n\n3. Evidence: none"]
      }}}"#;

    pub fn study() -> Study {
        let loaded = crate::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap();
        Study::from_loaded(&loaded, "tiny", None).unwrap()
    }

    #[test]
    fn study_from_combined_file() {
        let s = study();
        assert_eq!(s.info.description, "to write a story");
        assert_eq!(
            (s.info.input_name.as_str(), s.info.output_name.as_str()),
            ("story requirement", "story")
        );
        assert_eq!(s.criteria, ["1. Fluent.", "2. On topic."]);
        assert_eq!(s.instances.len(), 2);
        assert_eq!(s.instances[1].output, "The dog ran home.");
        assert_eq!(s.instances[1].system, "human");
        assert_eq!(s.evaluations.len(), 4);
        let e = s.evaluation(&s.instances[1].id, "1. Fluent.").unwrap();
        assert_eq!(e.conclusion, "Fluent enough.");
        assert_eq!(e.score, Some(3.0));
        assert_eq!(e.evidence, ["The dog", "ran home"]);
        assert!(e.response.starts_with("1. Fluent enough."), "the raw answer is kept");
        let e = s.evaluation(&s.instances[1].id, "2. On topic.").unwrap();
        assert_eq!((e.score, e.evidence.len()), (Some(2.0), 0));
        let limited = Study::from_loaded(
            &crate::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap(),
            "tiny",
            Some(1),
        )
        .unwrap();
        assert_eq!((limited.instances.len(), limited.evaluations.len()), (1, 2));
        assert_eq!(s.summary(), "Task: tiny · 2 instances · 2 criteria");
    }

    #[test]
    fn score_is_read_from_the_score_step() {
        let check = |response: &str, want: Option<f64>| {
            assert_eq!(Evaluation::from_response("i", "c", response).score, want, "{response}");
        };
        // combine_data.json's own wording (eli5, first evaluation).
        check(
            "1. The answer is simple.\n\n2. I would assign a score of 5 to this answer candidate based on the premise.\n\n3. Evidence: \"x\"",
            Some(5.0),
        );
        check("1. Meh.\n2. 3/5\n3. none", Some(3.0));
        check("1. Meh.\n2. 2 out of 5", Some(2.0));
        // No score step: Concord's reading of the whole answer; nothing on the scale: none.
        check("Conclusion: fine. Score: 4", Some(4.0));
        check("1. Bad.\n2. Score: 9", None);
    }

    #[test]
    fn study_errors_name_the_tasks() {
        let loaded = crate::data::load("combine_data.json", FIXTURE.as_bytes()).unwrap();
        let err = Study::from_loaded(&loaded, "eli5", None).unwrap_err();
        assert_eq!(err.to_string(), "no task `eli5` in this dataset (it has: tiny)");
        let example = crate::data::example().unwrap();
        assert_eq!(Study::from_loaded(&example, "x", None).unwrap_err(), StudyError::NoTask);
        assert_eq!(check_task_name("a/b"), Err(StudyError::BadTaskName));
        assert_eq!(check_task_name("  "), Err(StudyError::BadTaskName));
        assert_eq!(check_task_name("stories"), Ok(()));
        assert_eq!(typed_instance("x", " ", "m"), Err(StudyError::EmptyInstance));
        assert_eq!(typed_instance("x", "y", "").unwrap().2, "unknown");
    }

    #[test]
    fn missing_evaluations_use_the_final_wording() {
        let mut s = study();
        s.evaluations.retain(|e| e.criterion == "1. Fluent.");
        let criteria = vec![
            Stage2Criterion { name: "1. Fluent.".into(), evaluated_as: "1. Fluent.".into() },
            Stage2Criterion {
                name: "2. Stays on topic.".into(),
                evaluated_as: "2. On topic.".into(),
            },
        ];
        let missing = s.missing_evaluations(&criteria);
        assert_eq!(missing.len(), 2, "one per instance on the second criterion");
        assert_eq!(missing[0].criterion, "2. On topic.");
        assert!(missing[0].prompt.contains("2. Stays on topic."), "{}", missing[0].prompt);
        assert!(missing[0].prompt.contains("The cat slept."), "{}", missing[0].prompt);
    }

    #[test]
    fn ideation_sets_criteria_from_one_answer_and_keeps_every_answer() {
        let s = study();
        let one = s.with_ideation(vec!["1. Fluency.\n2. Coherence.".into()], 1).unwrap();
        assert_eq!(one.criteria, ["Fluency.", "Coherence."]);
        assert_eq!(one.ideation.len(), 1);
        assert_eq!(
            s.with_ideation(vec!["nothing listed".into()], 1),
            Err(IdeationError::NoCriteria)
        );
        assert_eq!(s.with_ideation(Vec::new(), 1), Err(IdeationError::NoCriteria));
        let many = s.with_ideation(vec!["1. A\n2. B".into(), "- B\n- C".into()], 3).unwrap();
        assert_eq!(many.criteria, s.criteria, "several answers leave the choice to the user");
        assert_eq!(many.ideation_lists(), [vec!["A", "B"], vec!["B", "C"]]);
        // One of three answers arrived: it is kept, not adopted.
        let partial = s.with_ideation(vec!["1. A".into()], 3).unwrap();
        assert_eq!(partial.criteria, s.criteria);
        assert_eq!(s.with_ideation(vec!["none".into()], 3), Err(IdeationError::NoneListsCriteria));
    }
}
