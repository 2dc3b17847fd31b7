//! Planning a study's run: every (method, attribute, item) prompt rendered, split into calls
//! by the provider's `n` support, each sample under its own cache key.
//!
//! The plan is a pure function of the dataset, the study and the endpoint, so a reloaded page
//! rebuilds exactly the same keys and the cache tells which calls are already paid for.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::judge::ChatRequest;
use crate::judge::protocol::Sampling;
use crate::judge::request::Message;
use crate::run::{
    Capabilities, Endpoint, Estimate, EstimateInput, Price, SampleBatch, estimate_run,
    prompt_digest, sample_batches, sample_key,
};

use super::study::Study;

/// The prompt of one (method, attribute, item).
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub method: usize,
    pub attribute: String,
    /// Index into the dataset's items.
    pub item: usize,
    pub request: ChatRequest,
    /// The cache key of each sample, in sample order (`request.n` of them).
    pub keys: Vec<String>,
}

/// One HTTP call: some samples of one prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Call {
    /// Index into [`Plan::prompts`].
    pub prompt: usize,
    pub samples: SampleBatch,
}

/// A prompt that could not be rendered, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanProblem {
    pub method: String,
    pub attribute: String,
    pub item_id: String,
    pub message: String,
}

/// Everything a run will ask for.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub prompts: Vec<Prompt>,
    pub calls: Vec<Call>,
    pub problems: Vec<PlanProblem>,
}

impl Plan {
    /// Total samples asked for.
    pub fn samples(&self) -> usize {
        self.prompts.iter().map(|p| p.keys.len()).sum()
    }

    /// The cache keys a call fills.
    pub fn call_keys(&self, call: &Call) -> &[String] {
        let keys = self.prompts.get(call.prompt).map_or(&[][..], |p| p.keys.as_slice());
        let first = (call.samples.first as usize).min(keys.len());
        let end = (first + call.samples.count as usize).min(keys.len());
        &keys[first..end]
    }

    /// Cost estimate from the rendered prompts' average length.
    pub fn estimate(
        &self,
        caps: &Capabilities,
        output_tokens_per_sample: u64,
        price: Option<Price>,
    ) -> Estimate {
        let prompts = self.prompts.len().max(1) as u64;
        let chars: usize = self
            .prompts
            .iter()
            .map(|p| p.request.messages.iter().map(|m| m.content.len()).sum::<usize>())
            .sum();
        let samples = (self.samples() as u64).div_ceil(prompts);
        estimate_run(
            EstimateInput {
                items: self.prompts.len() as u64,
                attributes: 1,
                samples,
                samples_per_call: u64::from(caps.samples_per_call()),
                prompt_chars: chars as u64 / prompts,
                output_tokens_per_sample,
            },
            price,
        )
    }
}

/// The request tag of a prompt: method, attribute and item id (for the run log).
pub fn tag(method: &str, attribute: &str, item_id: &str) -> String {
    format!("{method}/{attribute}/{item_id}")
}

/// The request for one prompt under `sampling` (the persona is already a template part).
pub fn request(tag: String, prompt: String, sampling: &Sampling) -> ChatRequest {
    sampling.request(tag, vec![Message::user(prompt)])
}

/// Plans `study` over `items` (indices into the dataset; all items when `None`).
pub fn plan(
    dataset: &Dataset,
    study: &Study,
    endpoint: &Endpoint,
    caps: &Capabilities,
    items: Option<&[usize]>,
) -> Plan {
    let all: Vec<usize>;
    let items = match items {
        Some(items) => items,
        None => {
            all = (0..dataset.items.len()).collect();
            &all
        }
    };
    let mut plan = Plan::default();
    for (m, method) in study.methods.iter().enumerate() {
        for attribute in &study.attributes {
            let Some(template) = method.template(attribute) else {
                plan.problems.push(PlanProblem {
                    method: method.name.clone(),
                    attribute: attribute.clone(),
                    item_id: String::new(),
                    message: "the method has no prompt for this attribute".into(),
                });
                continue;
            };
            for &i in items {
                let Some(item) = dataset.items.get(i) else { continue };
                let text = match template.render(item) {
                    Ok(text) => text,
                    Err(e) => {
                        plan.problems.push(PlanProblem {
                            method: method.name.clone(),
                            attribute: attribute.clone(),
                            item_id: item.id.clone(),
                            message: e.to_string(),
                        });
                        continue;
                    }
                };
                let req = request(tag(&method.name, attribute, &item.id), text, &method.sampling);
                let digest = prompt_digest(endpoint, &req);
                let keys = (0..req.n).map(|s| sample_key(&digest, s)).collect();
                let prompt = plan.prompts.len();
                for samples in sample_batches(req.n, caps) {
                    plan.calls.push(Call { prompt, samples });
                }
                plan.prompts.push(Prompt {
                    method: m,
                    attribute: attribute.clone(),
                    item: i,
                    request: req,
                    keys,
                });
            }
        }
    }
    plan
}
