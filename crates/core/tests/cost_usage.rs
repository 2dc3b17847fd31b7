//! Results' Cost and quality prices what the providers reported (issue 36.6): a record keeps
//! each call's reported usage and whether it went through a batch; the table counts reported
//! tokens instead of the 4-characters-a-token estimate, prices batch calls at the batch
//! discount (so a batch's runs cost what its card says was spent), still estimates records
//! without usage (imports, older bundles), and its note says which it did.

#![allow(clippy::unwrap_used)] // Tests fail loudly on purpose.

use std::collections::HashMap;

use concord_core::data::{self, CallUsage, Dataset, ReportedTokens};
use concord_core::judge::builtin::OutputMode;
use concord_core::judge::parse::Policy;
use concord_core::judge::protocol::Sampling;
use concord_core::judge::template::Persona;
use concord_core::run::batch::{self, BatchApi, BatchPhase, LineRef, batch_price};
use concord_core::run::{Capabilities, Endpoint, Price, ProviderId, Usage};
use concord_core::study::workbench::report::{self, Pricing, cost_table};
use concord_core::study::workbench::results::{
    self, Granularity, SampleInfo, Statistic, call_usage, run_usage,
};
use concord_core::study::workbench::{self as wb, JudgedRun, Plan, Study};

fn example() -> Dataset {
    data::example().unwrap().dataset
}

fn endpoint(provider: ProviderId, model: &str) -> Endpoint {
    Endpoint { provider, base_url: "https://api.example/v1".into(), model: model.into() }
}

/// Score-only and rate-explain on every attribute, `n` samples an item.
fn study(d: &Dataset, n: u32) -> Study {
    let attributes: Vec<String> = d.attributes.iter().map(|a| a.name.clone()).collect();
    let sampling =
        Sampling { n, temperature: Some(1.0), top_p: None, max_tokens: Some(64), logprobs: None };
    let methods = [OutputMode::ScoreOnly, OutputMode::RateExplain]
        .into_iter()
        .map(|m| {
            wb::method(d, &attributes, m, false, Persona::None, sampling.clone(), Policy::Concord)
        })
        .collect();
    Study { attributes, methods, ..Study::default() }
}

/// The example dataset, [`study`] of `n` samples and its plan for gpt-4o-mini on OpenAI.
fn planned(n: u32) -> (Dataset, Study, Plan) {
    let d = example();
    let s = study(&d, n);
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let p = wb::plan(&d, &s, &endpoint(ProviderId::OpenAi, "gpt-4o-mini"), &caps, None);
    (d, s, p)
}

/// Every sample answered with a rating (the item's human-ish score).
fn answers(p: &Plan) -> HashMap<String, String> {
    p.prompts
        .iter()
        .flat_map(|pr| pr.keys().map(move |k| (k, format!("Rating: {}", 1 + pr.item % 5))))
        .collect()
}

/// Collects the plan's runs as the app does, with `info` for each stored sample.
fn collect(d: &Dataset, s: &Study, p: &Plan, info: &HashMap<String, SampleInfo>) -> Vec<JudgedRun> {
    let store = answers(p);
    let mut runs = wb::results::empty_runs(s);
    wb::results::collect_into(
        &mut runs,
        d,
        s,
        p,
        0..p.prompts.len(),
        |k| store.get(k).cloned(),
        |k| info.get(k).cloned().unwrap_or_default(),
    );
    runs
}

/// What an interactive run stores: on each call's first sample, the call with the usage its
/// provider reported (`usage(call index)`).
fn interactive_info(
    p: &Plan,
    usage: impl Fn(usize) -> Option<Usage>,
) -> HashMap<String, SampleInfo> {
    p.calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let keys = p.call_keys(c);
            let call = call_usage(keys.len(), usage(i), false);
            (keys[0].clone(), SampleInfo { call: Some(call), ..SampleInfo::default() })
        })
        .collect()
}

fn pricing(price: Option<Price>) -> Pricing {
    Pricing {
        provider: ProviderId::OpenAi,
        model: "gpt-4o-mini".into(),
        price,
        samples_per_call: 4,
        made_with: true,
    }
}

const PRICE: Price = Price { input_per_million: 1.0, output_per_million: 2.0 };

#[test]
fn reported_usage_beats_the_estimate() {
    let (d, s, p) = planned(4);
    assert_eq!(p.calls.len(), p.prompts.len(), "four samples in one call");
    // Each call reports 1,000 prompt tokens and 30 completion tokens, 6 of them reasoning:
    // nothing like the estimate of short answers.
    let reported = Usage { prompt_tokens: 1000, completion_tokens: 30, reasoning_tokens: 6 };
    let runs = collect(&d, &s, &p, &interactive_info(&p, |_| Some(reported)));
    let record = &runs[0].run.records[0];
    assert_eq!(
        record.calls,
        [CallUsage {
            samples: 4,
            tokens: Some(ReportedTokens {
                prompt_tokens: 1000,
                completion_tokens: 30,
                reasoning_tokens: 6
            }),
            batch: false,
        }]
    );
    let records = runs[0].run.records.len() as u64;
    let u = run_usage(&runs[0], 4);
    assert_eq!((u.input_tokens(), u.output_tokens()), (1000 * records, 30 * records));
    assert_eq!((u.reported_calls, u.estimated_calls, u.batch_calls), (records, 0, 0));
    let (est_in, est_out) = wb::results::estimated_tokens(&runs[0], 4);
    assert_ne!((est_in, est_out), (u.input_tokens(), u.output_tokens()), "not the estimate");

    let t = wb::compute(&d, &runs, None);
    let rows =
        results::cost_quality(&t, &runs, Statistic::Pearson, Granularity::Dataset, 4, Some(PRICE));
    let r = &rows[0];
    // Two attributes' runs of the method, every call reported.
    let calls = 2 * records;
    assert_eq!((r.input_tokens, r.output_tokens), (1000 * calls, 30 * calls));
    assert_eq!(r.cost_usd, Some((1000.0 * calls as f64 + 2.0 * 30.0 * calls as f64) / 1e6));
    assert_eq!((r.reported_calls, r.calls, r.batch_calls), (calls, calls, 0));

    let table = cost_table(&t, &runs, &wb::Settings::default(), &pricing(Some(PRICE)));
    let note = &table.notes[0];
    assert!(
        note.contains(&format!(
            "Tokens are the usage the providers reported for all {} calls.",
            2 * calls
        )),
        "{note}"
    );
    assert!(!note.contains("4 characters a token") && !note.contains("batch"), "{note}");
    let cost = &table.rows[0].cells[3];
    assert_eq!(cost.value, r.cost_usd);
    assert_eq!(
        cost.note.as_deref(),
        Some(format!("the providers' reported usage of {calls} calls").as_str())
    );
}

/// A batch collected from OpenAI-shaped result lines (`response.body.usage`, as the Batch
/// API's output file carries it): its runs cost in Results exactly what the batch card
/// computes from the same lines (the batch price of the tokens reported).
#[test]
fn a_batch_is_priced_at_the_batch_discount_as_its_card_says() {
    let (d, s, p) = planned(1);
    let store = answers(&p);
    let lines: Vec<LineRef> = p
        .calls
        .iter()
        .map(|c| {
            let keys = p.call_keys(c);
            LineRef { custom_id: keys[0].clone(), keys }
        })
        .collect();
    let file: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let text = &store[&l.keys[0]];
            let usage = serde_json::json!({"prompt_tokens": 200 + i, "completion_tokens": 3 + i % 4,
                "total_tokens": 203 + i + i % 4});
            let body = serde_json::json!({"id": format!("chatcmpl-{i}"), "object": "chat.completion",
                "model": "gpt-4o-mini", "choices": [{"index": 0, "message": {"role": "assistant",
                "content": text}, "finish_reason": "stop"}], "usage": usage});
            serde_json::json!({"id": format!("batch_req_{i}"), "custom_id": l.custom_id,
                "response": {"status_code": 200, "request_id": format!("req_{i}"), "body": body},
                "error": null})
            .to_string()
                + "\n"
        })
        .collect();
    let collected = batch::collect(BatchApi::OpenAi, &lines, &[file], &BatchPhase::Ended);
    assert!(collected.failures.is_empty() && collected.unreadable.is_empty());
    // What the app stores for each answer (`runner::store_answers`).
    let info: HashMap<String, SampleInfo> = collected
        .answers
        .iter()
        .map(|a| {
            let call = a.line.map(|l| call_usage(l.samples as usize, l.usage, true));
            (a.key.clone(), SampleInfo { call, ..SampleInfo::default() })
        })
        .collect();
    let runs = collect(&d, &s, &p, &info);
    assert!(
        runs.iter().flat_map(|r| &r.run.records).all(|r| r.calls.len() == 1 && r.calls[0].batch)
    );
    let t = wb::compute(&d, &runs, None);
    let rows =
        results::cost_quality(&t, &runs, Statistic::Pearson, Granularity::Dataset, 1, Some(PRICE));
    let total: f64 = rows.iter().map(|r| r.cost_usd.unwrap()).sum();
    let card = batch_price(PRICE).cost_usd(collected.usage);
    assert!((total - card).abs() < 1e-15, "{total} vs the card's {card}");
    assert_eq!(
        rows.iter().map(|r| r.input_tokens).sum::<u64>(),
        collected.usage.prompt_tokens,
        "the tokens the provider reported"
    );
    // One method alone is the card's figure exactly (one batch of its calls).
    let first: Vec<JudgedRun> =
        runs.iter().filter(|r| r.method == runs[0].method).cloned().collect();
    let one = wb::compute(&d, &first, None);
    let row = &results::cost_quality(
        &one,
        &first,
        Statistic::Pearson,
        Granularity::Dataset,
        1,
        Some(PRICE),
    )[0];
    let mut usage = Usage::default();
    for r in &first {
        let u = run_usage(r, 1);
        assert_eq!(u.interactive, Usage::default(), "nothing at the interactive price");
        usage.add(u.batch);
    }
    assert_eq!(row.cost_usd, Some(batch_price(PRICE).cost_usd(usage)));
    assert_eq!(row.cost_usd.map(|c| c * 2.0), Some(PRICE.cost_usd(usage)), "half the list price");
    let table = cost_table(&t, &runs, &wb::Settings::default(), &pricing(Some(PRICE)));
    let calls = lines.len();
    assert!(
        table.notes[0].ends_with(&format!(
            "Tokens are the usage the providers reported for all {calls} calls. Cost uses the shipped list price of gpt-4o-mini on OpenAI (the model the runs were made with); {calls} calls answered through a provider's batch API at 50% of it (the batch discount)."
        )),
        "{}",
        table.notes[0]
    );
    assert!(table.rows[0].cells[3].note.as_deref().unwrap().ends_with(", at the batch price"));
}

/// Records without the fields — released outputs, imports, bundles saved before Concord kept
/// usage — are estimated as before, and the note says so in the words it always used.
#[test]
fn an_older_record_without_usage_is_still_estimated() {
    let (d, s, p) = planned(4);
    let runs = collect(&d, &s, &p, &HashMap::new());
    // A record as an older bundle wrote it: no `calls` field at all.
    let mut json = serde_json::to_value(&runs[0].run.records[0]).unwrap();
    json.as_object_mut().unwrap().remove("calls").unwrap();
    let old: data::JudgeRecord = serde_json::from_value(json).unwrap();
    assert!(old.calls.is_empty());
    assert_eq!(old, runs[0].run.records[0]);

    for run in &runs {
        let u = run_usage(run, 4);
        assert_eq!((u.input_tokens(), u.output_tokens()), wb::results::estimated_tokens(run, 4));
        assert_eq!((u.reported_calls, u.batch_calls), (0, 0));
        assert_eq!(u.estimated_calls, run.run.records.len() as u64);
    }
    let t = wb::compute(&d, &runs, None);
    let table = cost_table(&t, &runs, &wb::Settings::default(), &pricing(Some(PRICE)));
    assert_eq!(
        table.notes,
        [
            "Quality is Pearson r at dataset level. Tokens are estimated from the prompts and responses (4 characters a token), plus the reasoning tokens providers reported as output; cost uses the shipped list price of gpt-4o-mini on OpenAI (the model the runs were made with)."
        ]
    );
    assert!(table.rows.iter().all(|r| r.cells[3].note.is_none()), "no row note to add");
}

/// One method run here (usage reported), one whose calls reported none, and the table says
/// which is which; a call that reported nothing is estimated at its own price (batch here).
#[test]
fn the_note_says_how_many_calls_were_reported_and_estimated() {
    let (d, s, p) = planned(4);
    // Method 0 reports usage; method 1's provider reported none.
    let reported = Usage { prompt_tokens: 500, completion_tokens: 10, reasoning_tokens: 0 };
    let info =
        interactive_info(&p, |i| (p.prompts[p.calls[i].prompt].method == 0).then_some(reported));
    let runs = collect(&d, &s, &p, &info);
    let t = wb::compute(&d, &runs, None);
    let table = cost_table(&t, &runs, &wb::Settings::default(), &pricing(Some(PRICE)));
    let half = p.calls.len() / 2;
    let note = &table.notes[0];
    assert!(
        note.contains(&format!(
            "Tokens are the usage the providers reported for {half} of {} calls; the other {half} are estimated from their prompts and responses (4 characters a token, plus the reasoning tokens providers reported as output).",
            p.calls.len()
        )),
        "{note}"
    );
    assert_eq!(
        table.rows[1].cells[3].note.as_deref(),
        Some(
            format!("{half} calls estimated at 4 characters a token (no usage reported)").as_str()
        )
    );
    // The unreported method costs its estimate: the same as with no usage kept at all.
    let bare = collect(&d, &s, &p, &HashMap::new());
    let rows = |runs: &[JudgedRun]| {
        results::cost_quality(&t, runs, Statistic::Pearson, Granularity::Dataset, 4, Some(PRICE))
    };
    assert_eq!(rows(&runs)[1].cost_usd, rows(&bare)[1].cost_usd);
    assert_ne!(rows(&runs)[0].cost_usd, rows(&bare)[0].cost_usd);

    // A batch call that reported no usage: estimated, at the batch price.
    let mut batched = bare.clone();
    for r in &mut batched[0].run.records {
        r.calls = vec![CallUsage { samples: 4, tokens: None, batch: true }];
    }
    let u = run_usage(&batched[0], 4);
    let e = run_usage(&bare[0], 4);
    assert_eq!((u.batch, u.interactive), (e.interactive, Usage::default()));
    assert_eq!((u.estimated_calls, u.batch_calls), (e.estimated_calls, e.estimated_calls));
    assert!((u.cost_usd(PRICE) * 2.0 - e.cost_usd(PRICE)).abs() < 1e-15);
}

/// The cost of a bundle's runs is the same function's, so `concord report` prints it as the
/// app shows it; the bundle carries the calls.
#[test]
fn a_bundle_carries_the_calls() {
    let (d, s, p) = planned(4);
    let reported = Usage { prompt_tokens: 321, completion_tokens: 12, reasoning_tokens: 0 };
    let runs = collect(&d, &s, &p, &interactive_info(&p, |_| Some(reported)));
    let json = serde_json::to_string(&runs).unwrap();
    let back: Vec<JudgedRun> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, runs);
    let t = wb::compute(&d, &back, None);
    let pricing = report::pricing(Some(&endpoint(ProviderId::OpenAi, "gpt-4o-mini")), true);
    assert_eq!(
        cost_table(&t, &back, &wb::Settings::default(), &pricing),
        cost_table(&t, &runs, &wb::Settings::default(), &pricing)
    );
}

/// Anthropic's results line carries the message with its `usage` (`input_tokens`,
/// `output_tokens`): the answer keeps it as its line's call, as OpenAI's does.
#[test]
fn an_anthropic_results_line_keeps_its_usage() {
    let lines = [LineRef { custom_id: "k0".into(), keys: vec!["k0".into()] }];
    let line = serde_json::json!({"custom_id": "k0", "result": {"type": "succeeded", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-3-5-haiku-20241022",
        "content": [{"type": "text", "text": "Rating: 4"}], "stop_reason": "end_turn",
        "stop_sequence": null, "usage": {"input_tokens": 412, "output_tokens": 5}}}});
    let collected =
        batch::collect(BatchApi::Anthropic, &lines, &[line.to_string()], &BatchPhase::Ended);
    let usage = Usage { prompt_tokens: 412, completion_tokens: 5, reasoning_tokens: 0 };
    assert_eq!(collected.usage, usage);
    let answer = &collected.answers[0];
    assert_eq!(answer.line, Some(batch::AnsweredLine { samples: 1, usage: Some(usage) }));
}
