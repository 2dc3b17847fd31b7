//! Auto-CoT's evaluation steps, one text per attribute (G-Eval; seed 002 §3.1): where the steps
//! of every "+cot" method come from — G-Eval's released steps (where a built-in prompt
//! exists), steps the judge wrote from the task and criteria, or the user's own — and
//! [`Study::apply_steps`], the one function that writes them into the templates' Steps part.
//!
//! The steps are part of the [`Study`] (`Study::steps`, by attribute), so the prompts, their
//! cache keys, the bundle and `concord report` follow from the study as for any other edit.
//! Steps written by the judge keep the request that asked for them ([`steps_request`], the
//! [`AutoCot`] protocol's, always sample 0 with the provider's defaults), the endpoint it went
//! to (never a key) and the raw answer, beside the text as the user edited it.

use crate::data::Dataset;
use crate::judge::ChatRequest;
use crate::judge::builtin::{OutputMode, builtin};
use crate::judge::protocol::{AutoCot, Protocol, Sampling};
use crate::judge::template::PartKind;
use crate::run::EndpointEntry;

use super::study::{Study, benchmark_for};

pub use super::study::{StepsSource, WrittenSteps};

/// Why evaluation steps cannot be asked for or used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StepsError {
    #[error(
        "no method with auto-CoT judges `{attribute}`: add a method with auto-CoT \"with\" first"
    )]
    NoCotMethod { attribute: String },
    #[error(
        "the judge's answer to the steps request for `{attribute}` is empty: write the steps again, or type your own"
    )]
    EmptyAnswer { attribute: String },
    #[error(
        "`{attribute}` has no released G-Eval steps: no built-in prompt fits this dataset; write the steps with the judge or type your own"
    )]
    NoReleasedSteps { attribute: String },
    #[error(
        "\"{method}\" uses auto-CoT but has no evaluation steps for `{attribute}`: write them with the judge, or type your own, under Evaluation steps on the Judge screen (or remove the method)"
    )]
    Missing { method: String, attribute: String },
    #[error(
        "\"{method}\" and \"{other}\" judge `{attribute}` with different tasks or criteria, and one text of evaluation steps written from one of them cannot serve both: give them the same task and criteria, use your own steps, or remove one"
    )]
    DifferentCriteria { attribute: String, method: String, other: String },
}

/// `Err` naming the first "+cot" method and attribute without evaluation steps, or the first
/// attribute whose judge-written steps would serve "+cot" methods of different tasks or
/// criteria (steps are written from one task and criteria): a run is refused as a whole
/// rather than run with prompts the steps do not fit.
pub fn check(study: &Study) -> Result<(), StepsError> {
    for method in &study.methods {
        for attribute in &study.attributes {
            if missing_steps(method, attribute) {
                return Err(StepsError::Missing {
                    method: method.name.clone(),
                    attribute: attribute.clone(),
                });
            }
        }
    }
    for attribute in &study.attributes {
        if !matches!(study.steps_source(attribute), Some(StepsSource::Judge(_))) {
            continue;
        }
        let mut first: Option<(&str, ChatRequest)> = None;
        for method in study.methods.iter().filter(|m| m.auto_cot) {
            let Some(request) = method.template(attribute).and_then(|t| cot_request(t, attribute))
            else {
                continue;
            };
            match &first {
                None => first = Some((&method.name, request)),
                Some((name, r)) if r.messages != request.messages => {
                    return Err(StepsError::DifferentCriteria {
                        attribute: attribute.clone(),
                        method: (*name).to_owned(),
                        other: method.name.clone(),
                    });
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The [`AutoCot`] request for `template`'s task and criteria (without its persona: one steps
/// text serves every persona), one sample at the provider's defaults.
fn cot_request(
    template: &crate::judge::template::PromptTemplate,
    attribute: &str,
) -> Option<ChatRequest> {
    let template = template.clone().without(PartKind::Persona);
    AutoCot::new(&format!("steps/{attribute}"), &template, &Sampling::single())
        .pending()
        .into_iter()
        .next()
}

/// G-Eval's released steps part for `attribute` in output mode `mode`, when the dataset fits
/// one of the papers' built-in prompts (the Steps part's text, byte for byte).
pub fn released_steps(dataset: &Dataset, attribute: &str, mode: OutputMode) -> Option<String> {
    let benchmark = benchmark_for(dataset, attribute)?;
    let template = builtin(benchmark, attribute, mode, true).ok()?;
    Some(template.part(PartKind::Steps)?.text.clone())
}

/// Whether G-Eval's released steps exist for `attribute` on this dataset.
pub fn has_released_steps(dataset: &Dataset, attribute: &str) -> bool {
    released_steps(dataset, attribute, OutputMode::ScoreOnly).is_some()
}

/// The request that asks the judge for `attribute`'s steps: the [`AutoCot`] protocol's, from
/// the task and criteria of the first "+cot" method judging it (without its persona: one
/// steps text serves every persona), one sample at the provider's defaults. Returns the
/// method's name with it.
pub fn steps_request(study: &Study, attribute: &str) -> Result<(String, ChatRequest), StepsError> {
    let (method, template) = study
        .methods
        .iter()
        .filter(|m| m.auto_cot)
        .find_map(|m| m.template(attribute).map(|t| (m, t)))
        .ok_or_else(|| StepsError::NoCotMethod { attribute: attribute.to_owned() })?;
    let request = cot_request(template, attribute)
        .ok_or_else(|| StepsError::NoCotMethod { attribute: attribute.to_owned() })?;
    Ok((method.name.clone(), request))
}

/// The record of the judge's `answer` to `request` (from [`steps_request`]) for `attribute`.
pub fn written_steps(
    attribute: &str,
    endpoint: &crate::run::Endpoint,
    method: String,
    request: ChatRequest,
    answer: &str,
) -> Result<WrittenSteps, StepsError> {
    // As [`AutoCot`] reads its answer: the text, trimmed.
    let steps = answer.trim();
    if steps.is_empty() {
        return Err(StepsError::EmptyAnswer { attribute: attribute.to_owned() });
    }
    Ok(WrittenSteps {
        endpoint: EndpointEntry::from_endpoint(endpoint),
        method,
        request,
        answer: answer.to_owned(),
        steps: steps.to_owned(),
    })
}

/// Whether `written` was asked with the request the study would send now (the task and
/// criteria it was asked from have not been edited since).
pub fn is_current(study: &Study, attribute: &str, written: &WrittenSteps) -> bool {
    steps_request(study, attribute).is_ok_and(|(_, r)| r.messages == written.request.messages)
}

/// The steps the first "+cot" method judging `attribute` carries now, without their
/// `Evaluation Steps:` heading: what a study saved before steps had sources runs with, and
/// where "my own steps" start from. `None` when no "+cot" method has any.
pub fn current_steps(study: &Study, attribute: &str) -> Option<String> {
    let part = study
        .methods
        .iter()
        .filter(|m| m.auto_cot)
        .find_map(|m| m.template(attribute)?.part(PartKind::Steps))?;
    let text = part.text.trim();
    let lower = text.to_ascii_lowercase();
    let body =
        if lower.starts_with("evaluation steps:") { text.get(17..).unwrap_or(text) } else { text };
    let body = body.trim();
    (!body.is_empty()).then(|| body.to_owned())
}

/// Whether the method's template for `attribute` lacks evaluation steps although the method
/// uses auto-CoT (such a prompt is not run).
pub fn missing_steps(method: &super::study::Method, attribute: &str) -> bool {
    method.auto_cot
        && method
            .template(attribute)
            .is_some_and(|t| t.part(PartKind::Steps).is_none_or(|p| p.text.trim().is_empty()))
}

impl Study {
    /// The steps source of `attribute`, if one was chosen.
    pub fn steps_source(&self, attribute: &str) -> Option<&StepsSource> {
        self.steps.get(attribute)
    }

    /// Sets `attribute`'s steps source and writes it into every "+cot" method's template.
    pub fn set_steps(
        &mut self,
        dataset: &Dataset,
        attribute: &str,
        source: StepsSource,
    ) -> Result<(), StepsError> {
        if source == StepsSource::Released && !has_released_steps(dataset, attribute) {
            return Err(StepsError::NoReleasedSteps { attribute: attribute.to_owned() });
        }
        self.steps.insert(attribute.to_owned(), source);
        self.apply_steps(dataset);
        Ok(())
    }

    /// Writes each attribute's steps into the Steps part of every "+cot" method's template for
    /// it. An attribute without a source gets G-Eval's released steps where they exist (named
    /// as such in `steps`); otherwise its templates are left as they are (a generic template's
    /// Steps part is empty, and the plan refuses to run it).
    pub fn apply_steps(&mut self, dataset: &Dataset) {
        let cot_attributes: Vec<String> = self
            .attributes
            .iter()
            .filter(|a| self.methods.iter().any(|m| m.auto_cot && m.template(a).is_some()))
            .cloned()
            .collect();
        for attribute in cot_attributes {
            if !self.steps.contains_key(&attribute) && has_released_steps(dataset, &attribute) {
                self.steps.insert(attribute.clone(), StepsSource::Released);
            }
            let Some(source) = self.steps.get(&attribute) else { continue };
            for method in self.methods.iter_mut().filter(|m| m.auto_cot) {
                let mode = method.mode;
                let Some(template) = method.templates.get_mut(&attribute) else { continue };
                let text = match source {
                    StepsSource::Released => match released_steps(dataset, &attribute, mode) {
                        Some(text) => text,
                        None => continue,
                    },
                    StepsSource::Judge(w) => steps_part(&w.steps),
                    StepsSource::Own { text } => steps_part(text),
                };
                template.set_part(PartKind::Steps, text);
            }
        }
    }
}

/// A steps part laid out like the built-in prompts ([`AutoCot::apply`]); empty steps make an
/// empty part.
fn steps_part(steps: &str) -> String {
    if steps.trim().is_empty() {
        return String::new();
    }
    let template = crate::judge::template::PromptTemplate::new(Vec::new());
    AutoCot::apply(steps, &template)
        .part(PartKind::Steps)
        .map(|p| p.text.clone())
        .unwrap_or_default()
}
