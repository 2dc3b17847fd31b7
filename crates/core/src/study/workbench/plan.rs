//! Planning a study's run: every (method, attribute, item) prompt rendered, split into calls
//! by the provider's `n` support, each sample under its own cache key.
//!
//! The plan is a pure function of the dataset, the study and the endpoint, so a reloaded page
//! rebuilds exactly the same keys and the cache tells which calls are already paid for.
//!
//! A plan can be large: 10,000 items × 4 attributes × 20 samples is 40,000 prompts (tens of
//! megabytes of text) and 800,000 keys. So a planned [`Prompt`] keeps only its digest and
//! length: its text is rendered again when its call is sent ([`prompt_request`], the same
//! template on the same item gives the same text), and its sample keys are derived from the
//! digest when needed ([`Prompt::keys`]). [`Planner`] builds a plan a bounded number of
//! prompts at a time, so the page plans between yields to the browser.
//!
//! **A weighted method and its plain twin.** A "+weighted" method differs from its plain twin
//! (the same method without weighting) only by asking for log-probabilities. On a model that
//! gives none (the capability table, a "Check this model" refusal, a batch's refusal) the two
//! send the same request, so the plan keys the weighted prompt with its twin's keys and gives
//! it no calls of its own: one answer, paid once, read by both ([`Plan::fallbacks`] names
//! them). Where log-probabilities are still expected, the pair is remembered
//! ([`Plan::twin_call`]) so a run that has them refused midway reuses one answer for both.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::judge::ChatRequest;
use crate::judge::protocol::Sampling;
use crate::judge::request::Message;
use crate::run::{
    Capabilities, Endpoint, Estimate, EstimateInput, Price, SampleBatch, estimate_run,
    prompt_digest_for, sample_batches, sample_key,
};

use super::study::{Method, Study};

/// The prompt of one (method, attribute, item): where it comes from, its digest and size.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub method: usize,
    pub attribute: String,
    /// Index into the dataset's items.
    pub item: usize,
    /// [`crate::run::prompt_digest_for`] of its request to the plan's endpoint.
    pub digest: String,
    /// Samples asked for (the request's `n`).
    pub n: u32,
    /// Characters of the rendered prompt (for estimates).
    pub chars: usize,
}

impl Prompt {
    /// The cache key of sample `sample`.
    pub fn key(&self, sample: u32) -> String {
        sample_key(&self.digest, sample)
    }

    /// The cache key of each sample, in sample order.
    pub fn keys(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.n).map(|s| self.key(s))
    }

    /// The keys of samples `batch` (clipped to the prompt's samples).
    pub fn batch_keys(&self, batch: SampleBatch) -> Vec<String> {
        let end = batch.first.saturating_add(batch.count).min(self.n);
        (batch.first.min(end)..end).map(|s| self.key(s)).collect()
    }
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
    /// Weighted methods that fell back to their plain twin's answers (the model gives no
    /// log-probabilities, so their requests are the same), as `(weighted, plain)` method
    /// names, once each.
    pub fallbacks: Vec<(String, String)>,
    /// Prompts keyed with another prompt's keys (a weighted prompt that fell back to its twin):
    /// their samples are that prompt's, and the calls that paid for them are not theirs.
    pub shared: std::collections::BTreeSet<usize>,
    /// Calls whose request becomes the same as another call's once log-probabilities are
    /// dropped (a weighted call and its plain twin's call for the same samples), both ways.
    pub twins: std::collections::BTreeMap<usize, usize>,
    /// The methods of those calls, as `(weighted, plain)` names, once each.
    pub twin_methods: Vec<(String, String)>,
}

impl Plan {
    /// Total samples asked for.
    pub fn samples(&self) -> usize {
        self.prompts.iter().map(|p| p.n as usize).sum()
    }

    /// The call whose request is the same as `call`'s once log-probabilities are dropped.
    pub fn twin_call(&self, call: usize) -> Option<usize> {
        self.twins.get(&call).copied()
    }

    /// The cache keys a call fills, in sample order.
    pub fn call_keys(&self, call: &Call) -> Vec<String> {
        self.prompts.get(call.prompt).map_or_else(Vec::new, |p| p.batch_keys(call.samples))
    }

    /// Cost estimate from the rendered prompts' average length.
    pub fn estimate(
        &self,
        caps: &Capabilities,
        output_tokens_per_sample: u64,
        price: Option<Price>,
    ) -> Estimate {
        let prompts = self.prompts.len().max(1) as u64;
        let chars: usize = self.prompts.iter().map(|p| p.chars).sum();
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

/// What is said (the Run screen's log and message, Results' notes, the bundle) of a weighted
/// method that fell back to its plain twin's answers on `model`: before the run when the model
/// was known to give no log-probabilities, or after it refused them midway (`reused` calls
/// answered with the twin's answer instead of being paid again).
pub fn fallback_note(weighted: &Method, plain: &str, model: &str, reused: Option<usize>) -> String {
    let name = &weighted.name;
    let how = match reused {
        None => format!(
            "{} gives no log-probabilities, so its requests are the same as {plain}'s and each was sent once",
            model.trim()
        ),
        Some(n) => format!(
            "{} refused log-probabilities, so its requests became the same as {plain}'s: {n} of its calls reused {plain}'s answers instead of being paid again",
            model.trim()
        ),
    };
    let read = match weighted.weighting {
        Some(crate::judge::aggregate::WeightFallback::Parsed) => {
            "its scores are the parsed ratings (the same as the plain method's)".to_owned()
        }
        _ => "its samples cannot be weighted and are left out (choose \"use its parsed rating\" on the Judge screen to read them plainly)".to_owned(),
    };
    format!("{name} fell back to the plain answers of {plain}: {how}; {read}.")
}

/// The request tag of a prompt: method, attribute and item id (for the run log).
pub fn tag(method: &str, attribute: &str, item_id: &str) -> String {
    format!("{method}/{attribute}/{item_id}")
}

/// The request for one prompt under `sampling` (the persona is already a template part).
pub fn request(tag: String, prompt: String, sampling: &Sampling) -> ChatRequest {
    sampling.request(tag, vec![Message::user(prompt)])
}

/// The request of `method` for one prompt: its sampling, and its JSON schema when it asks for
/// structured output.
pub fn method_request(method: &Method, tag: String, prompt: String) -> ChatRequest {
    let mut req = request(tag, prompt, &method.sampling);
    if method.structured {
        req.schema = Some(crate::judge::builtin::rating_schema(method.mode));
    }
    req
}

/// The request of a planned prompt, rendered again from the study's template and the item: the
/// text the plan hashed. `None` when the prompt does not belong to this dataset and study.
pub fn prompt_request(dataset: &Dataset, study: &Study, prompt: &Prompt) -> Option<ChatRequest> {
    let method = study.methods.get(prompt.method)?;
    let item = dataset.items.get(prompt.item)?;
    let text = method.template(&prompt.attribute)?.render(item).ok()?;
    Some(method_request(method, tag(&method.name, &prompt.attribute, &item.id), text))
}

/// Plans `study` over `items` (indices into the dataset; all items when `None`).
pub fn plan(
    dataset: &Dataset,
    study: &Study,
    endpoint: &Endpoint,
    caps: &Capabilities,
    items: Option<&[usize]>,
) -> Plan {
    let mut planner = Planner::new(dataset, study, endpoint, caps, items);
    while !planner.step(usize::MAX) {}
    planner.finish()
}

/// Builds a [`Plan`] a step at a time: the same plan as [`plan`], in the same order (methods,
/// then attributes, then items).
pub struct Planner<'a> {
    dataset: &'a Dataset,
    study: &'a Study,
    endpoint: &'a Endpoint,
    caps: &'a Capabilities,
    items: Vec<usize>,
    /// The (method, attribute) cell being planned, as `method * attributes + attribute`.
    cell: usize,
    /// The next position in `items` within that cell.
    next: usize,
    plan: Plan,
    /// The study has a weighted method: its plain twins are looked for.
    twins: bool,
    /// Digest → prompt, of the prompts that ask for no log-probabilities (when `twins`).
    plain: std::collections::HashMap<String, usize>,
    /// Weighted prompts and the digest of their request without log-probabilities.
    weighted: Vec<(usize, String)>,
}

impl<'a> Planner<'a> {
    pub fn new(
        dataset: &'a Dataset,
        study: &'a Study,
        endpoint: &'a Endpoint,
        caps: &'a Capabilities,
        items: Option<&[usize]>,
    ) -> Planner<'a> {
        let items = items.map_or_else(|| (0..dataset.items.len()).collect(), <[usize]>::to_vec);
        let twins = study.methods.iter().any(|m| m.sampling.logprobs.is_some());
        Planner {
            dataset,
            study,
            endpoint,
            caps,
            items,
            cell: 0,
            next: 0,
            plan: Plan::default(),
            twins,
            plain: std::collections::HashMap::new(),
            weighted: Vec::new(),
        }
    }

    /// Prompts the finished plan will hold.
    pub fn total(&self) -> usize {
        self.study.methods.len() * self.study.attributes.len() * self.items.len()
    }

    /// Prompts planned (or found unrenderable) so far.
    pub fn done(&self) -> usize {
        self.cell * self.items.len() + self.next
    }

    /// Plans up to `max_prompts` more prompts; `true` once the plan is complete.
    pub fn step(&mut self, max_prompts: usize) -> bool {
        let attributes = self.study.attributes.len();
        let mut budget = max_prompts;
        while budget > 0 {
            let (m, a) = (self.cell / attributes.max(1), self.cell % attributes.max(1));
            let (Some(method), Some(attribute)) =
                (self.study.methods.get(m), self.study.attributes.get(a))
            else {
                return true;
            };
            let Some(template) = method.template(attribute) else {
                self.plan.problems.push(PlanProblem {
                    method: method.name.clone(),
                    attribute: attribute.clone(),
                    item_id: String::new(),
                    message: "the method has no prompt for this attribute".into(),
                });
                self.cell += 1;
                self.next = 0;
                continue;
            };
            if super::steps::missing_steps(method, attribute) {
                self.plan.problems.push(PlanProblem {
                    method: method.name.clone(),
                    attribute: attribute.clone(),
                    item_id: String::new(),
                    message: "the method uses auto-CoT but has no evaluation steps for this \
                              attribute: write them with the judge, or type your own, under \
                              Evaluation steps on the Judge screen"
                        .into(),
                });
                self.cell += 1;
                self.next = 0;
                continue;
            }
            while budget > 0 && self.next < self.items.len() {
                let i = self.items[self.next];
                self.next += 1;
                budget -= 1;
                let Some(item) = self.dataset.items.get(i) else { continue };
                let text = match template.render(item) {
                    Ok(text) => text,
                    Err(e) => {
                        self.plan.problems.push(PlanProblem {
                            method: method.name.clone(),
                            attribute: attribute.clone(),
                            item_id: item.id.clone(),
                            message: e.to_string(),
                        });
                        continue;
                    }
                };
                let chars = text.len();
                let req = method_request(method, tag(&method.name, attribute, &item.id), text);
                let prompt = self.plan.prompts.len();
                for samples in sample_batches(req.n, self.caps) {
                    self.plan.calls.push(Call { prompt, samples });
                }
                let digest = prompt_digest_for(self.endpoint, self.caps, &req);
                if self.twins {
                    if req.logprobs.is_some() {
                        let plain = ChatRequest { logprobs: None, ..req.clone() };
                        self.weighted
                            .push((prompt, prompt_digest_for(self.endpoint, self.caps, &plain)));
                    } else {
                        self.plain.entry(digest.clone()).or_insert(prompt);
                    }
                }
                self.plan.prompts.push(Prompt {
                    method: m,
                    attribute: attribute.clone(),
                    item: i,
                    digest,
                    n: req.n,
                    chars,
                });
            }
            if self.next >= self.items.len() {
                self.cell += 1;
                self.next = 0;
            }
        }
        self.cell >= self.study.methods.len() * attributes
    }

    /// The plan so far (all of it once [`Planner::step`] returned `true`), its weighted
    /// prompts paired with their plain twins (see the module docs).
    pub fn finish(self) -> Plan {
        let mut plan = self.plan;
        let pairs: Vec<(usize, usize, String)> = self
            .weighted
            .into_iter()
            .filter_map(|(w, digest)| self.plain.get(&digest).map(|&p| (w, p, digest)))
            .collect();
        if pairs.is_empty() {
            return plan;
        }
        let study = self.study;
        let name = |prompts: &[Prompt], prompt: usize| {
            prompts
                .get(prompt)
                .and_then(|p| study.methods.get(p.method))
                .map_or_else(String::new, |m| m.name.clone())
        };
        if !self.caps.allows(crate::run::Param::Logprobs) {
            // The same request: the weighted prompt reads its twin's samples.
            for (w, p, digest) in pairs {
                let pair = (name(&plan.prompts, w), name(&plan.prompts, p));
                if !plan.fallbacks.contains(&pair) {
                    plan.fallbacks.push(pair);
                }
                plan.prompts[w].digest = digest;
                plan.shared.insert(w);
            }
            let shared = &plan.shared;
            plan.calls.retain(|c| !shared.contains(&c.prompt));
        } else {
            // Calls are planned in prompt order: each prompt's calls are one run of them.
            let mut first = vec![usize::MAX; plan.prompts.len()];
            for (at, c) in plan.calls.iter().enumerate().rev() {
                first[c.prompt] = at;
            }
            for (w, p, _) in pairs {
                let pair = (name(&plan.prompts, w), name(&plan.prompts, p));
                if !plan.twin_methods.contains(&pair) {
                    plan.twin_methods.push(pair);
                }
                let (Some(&fw), Some(&fp)) = (first.get(w), first.get(p)) else { continue };
                if fw == usize::MAX || fp == usize::MAX {
                    continue;
                }
                let mut k = 0;
                while let (Some(a), Some(b)) = (plan.calls.get(fw + k), plan.calls.get(fp + k)) {
                    if a.prompt != w || b.prompt != p || a.samples != b.samples {
                        break;
                    }
                    plan.twins.insert(fw + k, fp + k);
                    plan.twins.entry(fp + k).or_insert(fw + k);
                    k += 1;
                }
            }
        }
        plan
    }
}

/// What one (method, attribute) of a study sends, for its estimate: up to 20 of its prompts
/// rendered (the rest are assumed alike), and what it asks of each.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimateGroup {
    /// The rendered prompts of the first items (at most [`ESTIMATE_SAMPLE`]).
    pub prompts: Vec<String>,
    /// Items the group runs on.
    pub items: u64,
    /// Samples an item.
    pub samples: u64,
    /// Expected output tokens a sample.
    pub output_tokens: u64,
}

/// Prompts rendered a (method, attribute) for an estimate.
pub const ESTIMATE_SAMPLE: usize = 20;

/// The (method, attribute) groups of a study on `items`, in grid order, for
/// [`estimate_groups`]: each one's first prompts rendered, the method's samples, and its
/// expected output a sample (a few tokens for a score, more with an explanation, never above
/// its `max_tokens`). Empty when nothing would run.
pub fn estimate_inputs(dataset: &Dataset, study: &Study, items: &[usize]) -> Vec<EstimateGroup> {
    if items.is_empty() {
        return Vec::new();
    }
    let mut groups = Vec::new();
    for method in &study.methods {
        for attribute in &study.attributes {
            let Some(t) = method.template(attribute) else { continue };
            let prompts = items
                .iter()
                .take(ESTIMATE_SAMPLE)
                .filter_map(|&i| dataset.items.get(i))
                .filter_map(|it| t.render(it).ok())
                .collect();
            let output_tokens =
                u64::from(method.sampling.max_tokens.unwrap_or(128)).min(match method.mode {
                    crate::judge::builtin::OutputMode::ScoreOnly => 5,
                    _ => 80,
                });
            groups.push(EstimateGroup {
                prompts,
                items: items.len() as u64,
                samples: u64::from(method.sampling.n),
                output_tokens,
            });
        }
    }
    groups
}

/// The input tokens of every group's prompts, counted by a real tokenizer (parallel to the
/// groups and their prompts, each a whole call's input: the prompt and the chat format's own
/// tokens), and which encoding counted them.
#[derive(Debug, Clone, PartialEq)]
pub struct CountedPrompts {
    pub encoding: crate::run::tokens::Encoding,
    pub tokens: Vec<Vec<u64>>,
}

/// What the groups would cost: each group's prompt length averaged over its rendered prompts
/// — tokens counted by `counted` when given (and matching the groups), else characters at
/// four a token — times its calls, plus its expected output, at `price`. `None` when there is
/// no group; `cost_usd` is `None` when the model has no price.
pub fn estimate_groups(
    groups: &[EstimateGroup],
    counted: Option<&CountedPrompts>,
    caps: &Capabilities,
    price: Option<crate::run::Price>,
) -> Option<crate::run::Estimate> {
    if groups.is_empty() {
        return None;
    }
    let counted = counted.filter(|c| {
        c.tokens.len() == groups.len()
            && c.tokens.iter().zip(groups).all(|(t, g)| t.len() == g.prompts.len())
    });
    let mut total =
        crate::run::Estimate { calls: 0, input_tokens: 0, output_tokens: 0, cost_usd: Some(0.0) };
    for (i, g) in groups.iter().enumerate() {
        let n = g.prompts.len().max(1) as u64;
        let chars: usize = g.prompts.iter().map(|p| p.len()).sum();
        let e = crate::run::estimate_run(
            crate::run::EstimateInput {
                items: g.items,
                attributes: 1,
                samples: g.samples,
                samples_per_call: u64::from(caps.samples_per_call()),
                prompt_chars: chars as u64 / n,
                output_tokens_per_sample: g.output_tokens,
            },
            price,
        );
        let e = match counted.and_then(|c| c.tokens.get(i)) {
            Some(tokens) if !tokens.is_empty() => {
                // The counted prompts' total scaled to every item (exact when all were
                // counted), paid once a call.
                let calls_per_item = e.calls / g.items.max(1);
                let all_items = (tokens.iter().sum::<u64>() * g.items + n / 2) / n;
                let input_tokens = calls_per_item * all_items;
                let usage = crate::run::Usage {
                    prompt_tokens: input_tokens,
                    completion_tokens: e.output_tokens,
                    reasoning_tokens: 0,
                };
                crate::run::Estimate {
                    input_tokens,
                    cost_usd: price.map(|p| p.cost_usd(usage)),
                    ..e
                }
            }
            _ => e,
        };
        total.calls += e.calls;
        total.input_tokens += e.input_tokens;
        total.output_tokens += e.output_tokens;
        total.cost_usd = total.cost_usd.zip(e.cost_usd).map(|(a, b)| a + b);
    }
    Some(total)
}

/// What a study would cost on `items` before it runs, at four characters a token
/// ([`estimate_inputs`] then [`estimate_groups`] with nothing counted). `None` when nothing
/// would run; `None` in `cost_usd` when the model has no price.
pub fn estimate_study(
    dataset: &Dataset,
    study: &Study,
    items: &[usize],
    caps: &Capabilities,
    price: Option<crate::run::Price>,
) -> Option<crate::run::Estimate> {
    if study.methods.is_empty() || study.attributes.is_empty() {
        return None;
    }
    estimate_groups(&estimate_inputs(dataset, study, items), None, caps, price)
}
