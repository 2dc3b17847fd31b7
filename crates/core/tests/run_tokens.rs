//! Prompt tokens counted before a run (`run::tokens`) against the reference `tiktoken`
//! package's counts (`benches/oracle/gen_tokens.py` wrote the fixture), and the estimate that
//! uses them.

use concord_core::run::tokens::{CHAT_TOKENS_PER_CALL, Encoding, Tokenizer};
use serde_json::Value;

fn cases() -> Vec<Value> {
    let text = include_str!("fixtures/tokens/counts.json");
    let v: Value = serde_json::from_str(text).expect("fixture is JSON");
    v["cases"].as_array().expect("cases").clone()
}

#[test]
fn counts_equal_tiktoken_on_every_fixture_text() {
    let cases = cases();
    assert!(cases.len() > 30);
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        let tok = Tokenizer::load(enc).expect("builds");
        assert_eq!(tok.encoding(), enc);
        for case in &cases {
            let text = case["text"].as_str().expect("text");
            let want = case[enc.name()].as_u64().expect("count");
            assert_eq!(tok.count(text), want, "{enc} on {text:?}");
        }
        assert_eq!(
            tok.chat_prompt_tokens("Rating: 4"),
            tok.count("Rating: 4") + CHAT_TOKENS_PER_CALL
        );
    }
}

#[test]
fn the_estimate_uses_counted_prompt_tokens_when_given() {
    use concord_core::judge::builtin::OutputMode;
    use concord_core::judge::parse::Policy;
    use concord_core::judge::protocol::Sampling;
    use concord_core::judge::template::Persona;
    use concord_core::run::{Capabilities, Price, ProviderId};
    use concord_core::study::workbench::plan::{
        CountedPrompts, estimate_groups, estimate_inputs, estimate_study,
    };
    use concord_core::study::workbench::{self as wb, Study};

    let d = concord_core::data::example().expect("the example loads").dataset;
    let attributes: Vec<String> = d.attributes.iter().map(|a| a.name.clone()).collect();
    let sampling = Sampling {
        n: 1,
        temperature: Some(0.0),
        top_p: None,
        max_tokens: Some(64),
        logprobs: None,
    };
    let method = wb::method(
        &d,
        &attributes,
        OutputMode::ScoreOnly,
        false,
        Persona::None,
        sampling,
        Policy::Concord,
    );
    let study = Study { attributes: attributes.clone(), methods: vec![method], ..Study::default() };
    let items: Vec<usize> = (0..d.items.len()).collect();
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let price = Price { input_per_million: 1.0, output_per_million: 2.0 };

    let groups = estimate_inputs(&d, &study, &items);
    assert_eq!(groups.len(), attributes.len());
    assert!(groups.iter().all(|g| g.prompts.len() == items.len().min(20)));
    let approx = estimate_groups(&groups, None, &caps, Some(price)).expect("an estimate");
    assert_eq!(Some(approx), estimate_study(&d, &study, &items, &caps, Some(price)));

    let tok = Tokenizer::load(Encoding::O200kBase).expect("builds");
    let tokens: Vec<Vec<u64>> = groups
        .iter()
        .map(|g| g.prompts.iter().map(|p| tok.chat_prompt_tokens(p)).collect())
        .collect();
    let counted = CountedPrompts { encoding: Encoding::O200kBase, tokens: tokens.clone() };
    let exact = estimate_groups(&groups, Some(&counted), &caps, Some(price)).expect("an estimate");
    // Each group: every item's prompt counted (the example has fewer than 20), once a call.
    assert!(items.len() <= 20);
    let want: u64 = tokens.iter().map(|t| t.iter().sum::<u64>()).sum();
    assert_eq!(exact.input_tokens, want);
    assert_ne!(exact.input_tokens, approx.input_tokens, "counting changes the figure");
    assert_eq!(exact.output_tokens, approx.output_tokens);
    assert_eq!(exact.calls, approx.calls);
    let cost = (want as f64 * 1.0 + exact.output_tokens as f64 * 2.0) / 1e6;
    assert!((exact.cost_usd.expect("priced") - cost).abs() < 1e-12);
    // Counts that do not fit the groups (a stale answer) are not used.
    let stale = CountedPrompts { encoding: Encoding::O200kBase, tokens: vec![vec![1]] };
    assert_eq!(estimate_groups(&groups, Some(&stale), &caps, Some(price)), Some(approx));
}

#[test]
fn counted_prompts_stand_for_every_item_of_their_group() {
    use concord_core::run::Capabilities;
    use concord_core::run::ProviderId;
    use concord_core::study::workbench::plan::{CountedPrompts, EstimateGroup, estimate_groups};

    // 50 items, 20 rendered and counted (mean 101.5 tokens), 3 samples, one a call (Anthropic
    // has no `n`): 150 calls, each paying its prompt.
    let group =
        EstimateGroup { prompts: vec!["x".into(); 20], items: 50, samples: 3, output_tokens: 5 };
    let tokens: Vec<u64> = (0..20).map(|i| 92 + i).collect();
    let counted = CountedPrompts { encoding: Encoding::O200kBase, tokens: vec![tokens] };
    let caps = Capabilities::for_model(ProviderId::Anthropic, "claude-sonnet-4-5");
    assert_eq!(caps.samples_per_call(), 1);
    let e = estimate_groups(&[group], Some(&counted), &caps, None).expect("an estimate");
    assert_eq!(e.calls, 150);
    // (Σ 92..=111 = 2030) × 50 / 20 = 5075 tokens for one pass over the items, × 3 calls each.
    assert_eq!(e.input_tokens, 3 * 5075);
    assert_eq!(e.output_tokens, 50 * 3 * 5);
    assert_eq!(e.cost_usd, None, "no price, no cost");
}
