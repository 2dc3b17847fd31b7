//! What is wrong with a study's prompts before they are sent: a criterion still the generic
//! template's placeholder ("Edit this definition…"), or a prompt that does not carry the item's
//! text (the judge would rate what it never saw). The Judge screen lists them under the
//! methods; the Run screen does not send such prompts until the user says so, naming each
//! method and attribute.

use std::fmt;

use crate::data::Dataset;
use crate::judge::template::PromptTemplate;

use super::study::{PLACEHOLDER_CRITERION, Study};

/// What is wrong with one (method, attribute)'s prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptIssue {
    /// Its text still holds [`PLACEHOLDER_CRITERION`]: the judge is told nothing of what the
    /// attribute means to the annotators.
    PlaceholderCriterion,
    /// Rendered for an item, it does not contain the item's output (the text being rated):
    /// no placeholder carries it, so every item gets the same prompt.
    NoItemText {
        /// The field the output is in (`text`, `summary`).
        field: String,
    },
}

/// One (method, attribute) whose prompt should not be sent as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptWarning {
    pub method: String,
    pub attribute: String,
    pub issue: PromptIssue,
}

impl fmt::Display for PromptWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (method, attribute) = (&self.method, &self.attribute);
        match &self.issue {
            PromptIssue::PlaceholderCriterion => write!(
                f,
                "{method} / {attribute}: the evaluation criteria are still the placeholder (“{PLACEHOLDER_CRITERION}”), so the judge is told nothing of what {attribute} means to your annotators; write the definition in the method's prompt on the Judge screen"
            ),
            PromptIssue::NoItemText { field } => write!(
                f,
                "{method} / {attribute}: the prompt does not contain the item's text (no {{{{{field}}}}} placeholder), so the judge would rate without seeing it; put {{{{{field}}}}} back in the prompt on the Judge screen"
            ),
        }
    }
}

/// Whether `template` still holds the placeholder criterion.
fn has_placeholder(template: &PromptTemplate) -> bool {
    template.parts.iter().any(|p| p.text.contains(PLACEHOLDER_CRITERION))
}

/// Whether `template`, rendered for `dataset`'s first item with a non-empty output, contains
/// that output (`None`: nothing to check it on).
fn carries_item_text(template: &PromptTemplate, dataset: &Dataset) -> Option<bool> {
    let item = dataset.items.iter().find(|i| !i.output.trim().is_empty())?;
    let rendered = template.render(item).ok()?;
    Some(rendered.contains(item.output.trim()))
}

/// The warnings of every (method, attribute) of `study` on `dataset`, in grid order.
pub fn prompt_warnings(dataset: &Dataset, study: &Study) -> Vec<PromptWarning> {
    let field = dataset.items.first().map(|i| i.output_name.clone()).unwrap_or_default();
    let mut out = Vec::new();
    for method in &study.methods {
        for attribute in &study.attributes {
            let Some(template) = method.template(attribute) else { continue };
            let warn = |issue| PromptWarning {
                method: method.name.clone(),
                attribute: attribute.clone(),
                issue,
            };
            if has_placeholder(template) {
                out.push(warn(PromptIssue::PlaceholderCriterion));
            }
            if carries_item_text(template, dataset) == Some(false) {
                out.push(warn(PromptIssue::NoItemText { field: field.clone() }));
            }
        }
    }
    out
}
