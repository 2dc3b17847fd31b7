//! A "+weighted" method on a model that gives no log-probabilities sends the same requests as
//! its plain twin: the plan keys it with the twin's keys (one call, paid once, read by both),
//! and a run that has log-probabilities refused midway holds each weighted call until its
//! twin's answer is in, then reuses it (issue 35).

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};

use concord_core::data::{self, Dataset};
use concord_core::judge::aggregate::WeightFallback;
use concord_core::judge::builtin::OutputMode;
use concord_core::judge::parse::Policy;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::template::Persona;
use concord_core::run::{
    Action, Capabilities, Endpoint, FailureOutcome, Job, Param, ProviderId, Scheduler,
    SchedulerConfig, classify_error,
};
use concord_core::study::workbench::{self as wb, Study};

fn example() -> Dataset {
    data::example().unwrap().dataset
}

/// score-only and score-only +weighted (its twin), N samples each, on every attribute.
fn twins_study(d: &Dataset, n: u32) -> Study {
    let attributes: Vec<String> = d.attributes.iter().map(|a| a.name.clone()).collect();
    let sampling =
        Sampling { n, temperature: Some(1.0), top_p: None, max_tokens: Some(64), logprobs: None };
    let plain = wb::method(
        d,
        &attributes,
        OutputMode::ScoreOnly,
        false,
        Persona::None,
        sampling,
        Policy::Concord,
    );
    let mut weighted = plain.clone();
    weighted.name.push_str(" +weighted");
    weighted.weighting = Some(WeightFallback::Parsed);
    weighted.sampling.logprobs = Some(20);
    Study { attributes, methods: vec![weighted, plain], ..Study::default() }
}

fn endpoint(provider: ProviderId, base_url: &str, model: &str) -> Endpoint {
    Endpoint { provider, base_url: base_url.into(), model: model.into() }
}

#[test]
fn without_log_probabilities_the_weighted_method_reads_its_twins_answers_paid_once() {
    let d = example();
    let s = twins_study(&d, 3);
    // Anthropic gives no log-probabilities.
    let anthropic =
        endpoint(ProviderId::Anthropic, "https://api.anthropic.com/v1", "claude-haiku-4-5");
    let caps = Capabilities::for_model(ProviderId::Anthropic, &anthropic.model);
    assert!(!caps.allows(Param::Logprobs));
    let p = wb::plan(&d, &s, &anthropic, &caps, None);
    let per_method = p.prompts.len() / 2;
    assert_eq!(per_method, 15 * 2);
    // The weighted prompts (method 0) carry their twin's keys and no calls of their own.
    for (w, prompt) in p.prompts.iter().enumerate().take(per_method) {
        assert_eq!(prompt.method, 0);
        assert_eq!(prompt.digest, p.prompts[w + per_method].digest, "prompt {w}");
        assert!(p.shared.contains(&w));
    }
    assert!(p.calls.iter().all(|c| p.prompts[c.prompt].method == 1));
    assert_eq!(
        p.calls.len(),
        per_method * 3,
        "one call a sample (no n), for the plain method only"
    );
    let keys: BTreeSet<String> = p.calls.iter().flat_map(|c| p.call_keys(c)).collect();
    assert_eq!(keys.len(), per_method * 3, "no key asked for twice");
    assert_eq!(p.fallbacks, [("score-only +weighted".to_owned(), "score-only".to_owned())]);
    // A "Check this model" refusal has the same effect where the table expected them.
    let gemini = endpoint(
        ProviderId::Gemini,
        "https://generativelanguage.googleapis.com/v1beta",
        "gemini-2.0-flash",
    );
    let mut caps = Capabilities::for_model(ProviderId::Gemini, &gemini.model);
    assert!(
        caps.allows(Param::Logprobs),
        "the table expects log-probabilities of gemini-2.0-flash"
    );
    let expected = wb::plan(&d, &s, &gemini, &caps, None);
    assert!(expected.fallbacks.is_empty() && expected.shared.is_empty());
    assert_eq!(expected.calls.len(), 2 * per_method, "both methods called, 3 samples a call");
    caps.drop_param(Param::Logprobs);
    let refused = wb::plan(&d, &s, &gemini, &caps, None);
    assert_eq!(refused.calls.len(), per_method);
    assert_eq!(refused.fallbacks.len(), 1);
    // Collected, the weighted run has the plain run's answers but not its calls (its cost is
    // the twin's).
    let store: BTreeMap<String, String> = refused
        .prompts
        .iter()
        .flat_map(|p| p.keys())
        .map(|k| (k, "Rating: 4".to_owned()))
        .collect();
    let runs = wb::collect(&d, &s, &refused, |k| store.get(k).cloned());
    let weighted = runs.iter().find(|r| r.method == "score-only +weighted").unwrap();
    assert_eq!(weighted.run.records.len(), 15);
    assert!(weighted.run.records.iter().all(|r| r.responses.len() == 3 && r.calls.is_empty()));
}

#[test]
fn where_log_probabilities_are_expected_weighted_calls_are_paired_with_their_twins() {
    let d = example();
    let s = twins_study(&d, 1);
    let gemini = endpoint(
        ProviderId::Gemini,
        "https://generativelanguage.googleapis.com/v1beta",
        "gemini-2.0-flash",
    );
    let caps = Capabilities::for_model(ProviderId::Gemini, &gemini.model);
    let p = wb::plan(&d, &s, &gemini, &caps, None);
    assert_eq!(p.twins.len(), p.calls.len(), "every call has its twin, both ways");
    for (&a, &b) in &p.twins {
        assert_eq!(p.twin_call(b), Some(a));
        let (pa, pb) = (&p.prompts[p.calls[a].prompt], &p.prompts[p.calls[b].prompt]);
        assert_ne!(pa.method, pb.method);
        assert_eq!((pa.item, &pa.attribute), (pb.item, &pb.attribute));
        assert_eq!(p.calls[a].samples, p.calls[b].samples);
    }
}

/// Drives a scheduler over weighted calls `0..n` and their plain twins `n..2n` against a
/// provider that refuses log-probabilities, the way the app's runner does: a call whose twin
/// was answered (and log-probabilities are dropped) is answered with the twin's answer. Returns
/// the answers paid for, by request (`"w3"` for weighted call 3 sent with log-probabilities,
/// `"3"` for the request both send without).
fn run_twins(n: usize, pair: bool) -> (BTreeMap<String, u32>, usize) {
    let jobs: Vec<Job<usize>> = (0..2 * n)
        .map(|i| Job { key: format!("k{i}"), payload: i, estimated_cost_usd: 0.0, prompt: None })
        .collect();
    let config = SchedulerConfig { max_concurrency: 4, ..SchedulerConfig::default() };
    let mut s = Scheduler::new(jobs, config);
    if pair {
        s.set_twins((0..n).map(|i| (i, i + n)));
    }
    let refused = classify_error(
        400,
        &[],
        r#"{"error":{"code":400,"message":"Logprobs is not enabled for models/gemini-2.0-flash","status":"INVALID_ARGUMENT"}}"#,
        0,
    );
    let mut paid: BTreeMap<String, u32> = BTreeMap::new();
    let mut answered: BTreeSet<usize> = BTreeSet::new();
    // In flight: (job, sent with log-probabilities).
    let mut flight: Vec<(usize, bool)> = Vec::new();
    let mut now = 0;
    for _ in 0..10_000 {
        match s.next_action(now) {
            Action::Send(id) => {
                let with_logprobs = id < n && !s.dropped_params().contains(&Param::Logprobs);
                let twin = s.twin(id);
                if !with_logprobs && twin.is_some_and(|t| answered.contains(&t)) {
                    s.on_reused(id, now).unwrap();
                    answered.insert(id);
                } else {
                    flight.push((id, with_logprobs));
                }
            }
            Action::Done(_) => break,
            _ => {
                // Answers land in the order sent, one a millisecond.
                now += 1;
                if flight.is_empty() {
                    continue;
                }
                let (id, with_logprobs) = flight.remove(0);
                if with_logprobs {
                    let out = s.on_failure(id, now, refused.clone()).unwrap();
                    assert_eq!(out, FailureOutcome::RetryWithout(Param::Logprobs));
                } else {
                    *paid.entry((id % n).to_string()).or_insert(0) += 1;
                    answered.insert(id);
                    s.on_success(id, now, None).unwrap();
                }
            }
        }
    }
    assert_eq!(answered.len(), 2 * n, "every call answered");
    (paid, s.reused())
}

#[test]
fn a_run_that_has_log_probabilities_refused_midway_pays_each_request_once() {
    let (paid, reused) = run_twins(3, true);
    assert!(paid.values().all(|&c| c == 1), "each request paid once: {paid:?}");
    assert_eq!(paid.len(), 3);
    assert_eq!(reused, 3, "every weighted call reused its twin's answer");
    // Without the pairing (the fix off), the same run pays the shared requests twice.
    let (paid, reused) = run_twins(3, false);
    assert_eq!(reused, 0);
    assert!(paid.values().any(|&c| c > 1), "{paid:?}");
}
