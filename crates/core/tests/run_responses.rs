//! Response parsing, error classification, retry decisions, Test connection and cost.

use concord_core::run::{
    Api, ApiError, ConnectionStatus, CostMeter, Endpoint, ErrorKind, EstimateInput, FinishReason,
    GiveUpReason, Param, ParseError, Price, PriceTable, ProviderId, RetryDecision, RetryPolicy,
    Usage, classify_connection, classify_error, estimate_run, estimate_tokens, parse_chat_response,
};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;

/// 2026-11-22T11:00:00Z in ms since the epoch: the "now" of these tests.
const NOW: u64 = 1_795_345_200_000;

#[test]
fn openai_response_with_n_choices_logprobs_and_usage() {
    let body = r#"{"id":"x","model":"gpt-4o-mini-2024-07-18","choices":[
        {"index":0,"message":{"role":"assistant","content":"Rating: 4"},"finish_reason":"stop",
         "logprobs":{"content":[
            {"token":"Rating","logprob":-0.01,"top_logprobs":[{"token":"Rating","logprob":-0.01}]},
            {"token":": ","logprob":0.0,"top_logprobs":[]},
            {"token":"4","logprob":-0.3,"top_logprobs":[{"token":"4","logprob":-0.3},{"token":"3","logprob":-1.5}]}]}},
        {"index":1,"message":{"role":"assistant","content":null,"refusal":"no"},"finish_reason":"length","logprobs":null}],
        "usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127}}"#;
    let r = parse_chat_response(Api::OpenAiCompatible, body).expect("parses");
    assert_eq!(r.model.as_deref(), Some("gpt-4o-mini-2024-07-18"));
    assert_eq!(
        r.usage,
        Some(Usage { prompt_tokens: 120, completion_tokens: 7, reasoning_tokens: 0 })
    );
    assert_eq!(r.choices.len(), 2);
    assert_eq!(r.choices[0].text, "Rating: 4");
    assert_eq!(r.choices[0].finish_reason, Some(FinishReason::Stop));
    let tokens = r.choices[0].top_logprobs.as_ref().expect("logprobs");
    assert_eq!(tokens.len(), 3);
    assert_eq!((tokens[2].token.as_str(), tokens[2].logprob), ("4", -0.3));
    assert_eq!(tokens[2].top_logprobs[1].token, "3");
    assert_eq!(tokens[2].top_logprobs[1].logprob, -1.5);
    assert_eq!(
        r.choices[1].text, "",
        "a refusal is an empty answer, reported by the rating parser"
    );
    assert_eq!(r.choices[1].finish_reason, Some(FinishReason::Length));
    assert_eq!(r.choices[1].top_logprobs, None);
    assert_eq!(r.choices[0].to_judge().text, "Rating: 4");
}

#[test]
fn anthropic_response_joins_text_blocks_and_skips_thinking() {
    let body = r#"{"type":"message","model":"claude-sonnet-4-20250514","content":[
        {"type":"thinking","thinking":"hmm"},{"type":"text","text":"Coherence: "},{"type":"text","text":"3"}],
        "stop_reason":"end_turn","usage":{"input_tokens":50,"output_tokens":4}}"#;
    let r = parse_chat_response(Api::Anthropic, body).expect("parses");
    assert_eq!(r.choices.len(), 1);
    assert_eq!(r.choices[0].text, "Coherence: 3");
    assert_eq!(r.choices[0].finish_reason, Some(FinishReason::Stop));
    assert_eq!(
        r.usage,
        Some(Usage { prompt_tokens: 50, completion_tokens: 4, reasoning_tokens: 0 })
    );
}

#[test]
fn gemini_response_with_candidates_and_logprobs() {
    let body = r#"{"candidates":[
        {"content":{"role":"model","parts":[{"text":"thinking...","thought":true},{"text":"5"}]},"finishReason":"STOP",
         "logprobsResult":{"topCandidates":[{"candidates":[{"token":"5","logProbability":-0.1},{"token":"4","logProbability":-2.4}]}],
                           "chosenCandidates":[{"token":"5","logProbability":-0.1}]}},
        {"content":{"parts":[{"text":"4"}]},"finishReason":"MAX_TOKENS"}],
        "usageMetadata":{"promptTokenCount":30,"candidatesTokenCount":2},"modelVersion":"gemini-2.0-flash"}"#;
    let r = parse_chat_response(Api::Gemini, body).expect("parses");
    let texts: Vec<&str> = r.choices.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, vec!["5", "4"]);
    let lp = r.choices[0].top_logprobs.as_ref().expect("logprobs");
    assert_eq!((lp[0].token.as_str(), lp[0].logprob), ("5", -0.1));
    assert_eq!(lp[0].top_logprobs[1].logprob, -2.4);
    assert_eq!(r.choices[1].finish_reason, Some(FinishReason::Length));
    assert_eq!(
        r.usage,
        Some(Usage { prompt_tokens: 30, completion_tokens: 2, reasoning_tokens: 0 })
    );
}

#[test]
fn broken_bodies_are_errors_not_panics() {
    let cut = r#"{"choices":[{"message":{"content":"Rat"#;
    assert_eq!(
        parse_chat_response(Api::OpenAiCompatible, cut),
        Err(ParseError::Truncated { received_bytes: cut.len() })
    );
    for (api, body) in [
        (Api::OpenAiCompatible, "<html>502 Bad Gateway</html>"),
        (Api::OpenAiCompatible, "[]"),
        (Api::OpenAiCompatible, r#"{"object":"list"}"#),
        (Api::OpenAiCompatible, r#"{"choices":[{"message":{"content":7}}]}"#),
        (Api::OpenAiCompatible, r#"{"error":{"message":"boom"}}"#),
        (Api::Anthropic, r#"{"content":"text"}"#),
        (Api::Gemini, r#"{"usageMetadata":{"promptTokenCount":3}}"#),
    ] {
        assert!(
            matches!(parse_chat_response(api, body), Err(ParseError::Malformed { .. })),
            "{body}"
        );
    }
    assert_eq!(
        parse_chat_response(Api::OpenAiCompatible, r#"{"choices":[]}"#),
        Err(ParseError::Empty)
    );
}

/// Classifies a failure and checks kind, wait and retryability.
fn check(status: u16, headers: &[(&str, &str)], body: &str, kind: ErrorKind, wait: Option<u64>) {
    let headers: Vec<(String, String)> =
        headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let e = classify_error(status, &headers, body, NOW);
    assert_eq!((e.kind.clone(), e.retry_after_ms), (kind, wait), "{status} {body}");
    let never_retried = matches!(
        e.kind,
        ErrorKind::Auth
            | ErrorKind::Quota
            | ErrorKind::ContextLength
            | ErrorKind::ModelNotFound
            | ErrorKind::EndpointNotFound
    );
    assert_eq!(
        e.is_retryable(),
        !never_retried
            && !matches!(
                e.kind,
                ErrorKind::BadParameter(_) | ErrorKind::BadRequest | ErrorKind::BrowserAccessDenied
            )
    );
}

#[test]
fn error_classification() {
    let openai = |code: &str, message: &str, param: &str| {
        format!(
            r#"{{"error":{{"message":"{message}","type":"invalid_request_error","param":{param},"code":"{code}"}}}}"#
        )
    };
    check(0, &[], "TypeError: Failed to fetch", ErrorKind::Network, None);
    check(
        429,
        &[("retry-after", "7")],
        &openai("rate_limit_exceeded", "Rate limit reached", "null"),
        ErrorKind::RateLimited,
        Some(7000),
    );
    check(
        429,
        &[("Retry-After", "Sun, 22 Nov 2026 11:00:30 GMT")],
        "",
        ErrorKind::RateLimited,
        Some(30_000),
    );
    check(429, &[("retry-after-ms", "1500.2")], "", ErrorKind::RateLimited, Some(1501));
    check(
        429,
        &[("x-ratelimit-reset-requests", "6m0s")],
        "",
        ErrorKind::RateLimited,
        Some(360_000),
    );
    check(
        429,
        &[("anthropic-ratelimit-requests-reset", "2026-11-22T11:00:02Z")],
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        ErrorKind::RateLimited,
        Some(2000),
    );
    check(
        429,
        &[],
        r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}"#,
        ErrorKind::RateLimited,
        Some(37_000),
    );
    check(
        429,
        &[],
        &openai(
            "insufficient_quota",
            "You exceeded your current quota, please check your plan and billing details.",
            "null",
        ),
        ErrorKind::Quota,
        None,
    );
    check(
        429,
        &[],
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"limit","details":{"error_code":"enforced_spend_limit_reached"}}}"#,
        ErrorKind::Quota,
        None,
    );
    check(
        400,
        &[],
        &openai("credit_balance_exhausted", "Your credit balance is too low", "null"),
        ErrorKind::Quota,
        None,
    );
    check(402, &[], r#"{"error":{"message":"Payment required"}}"#, ErrorKind::Quota, None);
    check(
        429,
        &[],
        &openai(
            "rate_limit_exceeded",
            "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, \
             Requested 1. Please try again in 20s. You can increase your rate limit by adding a \
             payment method at https://platform.openai.com/account/billing.",
            "null",
        ),
        ErrorKind::RateLimited,
        Some(20_000),
    );
    check(
        404,
        &[],
        r#"{"error":{"message":"Invalid URL (POST /v1/chat/completion)"}}"#,
        ErrorKind::EndpointNotFound,
        None,
    );
    check(
        500,
        &[],
        r#"{"error":{"message":"The server had an error"}}"#,
        ErrorKind::ServerError,
        None,
    );
    check(503, &[("retry-after", "2")], "upstream unavailable", ErrorKind::ServerError, Some(2000));
    check(408, &[], "", ErrorKind::ServerError, None);
    check(
        529,
        &[],
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ErrorKind::Overloaded,
        None,
    );
    check(
        401,
        &[],
        &openai("invalid_api_key", "Incorrect API key provided", "null"),
        ErrorKind::Auth,
        None,
    );
    check(
        401,
        &[],
        r#"{"type":"error","error":{"type":"authentication_error","message":"CORS requests must set 'anthropic-dangerous-direct-browser-access' header"}}"#,
        ErrorKind::BrowserAccessDenied,
        None,
    );
    check(
        400,
        &[],
        &openai(
            "context_length_exceeded",
            "This model's maximum context length is 8192 tokens.",
            "\"messages\"",
        ),
        ErrorKind::ContextLength,
        None,
    );
    check(
        400,
        &[],
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        ErrorKind::ContextLength,
        None,
    );
    check(
        400,
        &[],
        r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#,
        ErrorKind::ContextLength,
        None,
    );
    check(
        404,
        &[],
        &openai(
            "model_not_found",
            "The model `gpt-9` does not exist or you do not have access to it.",
            "null",
        ),
        ErrorKind::ModelNotFound,
        None,
    );
    check(
        404,
        &[],
        r#"{"error":"model \"llama9\" not found, try pulling it first"}"#,
        ErrorKind::ModelNotFound,
        None,
    );
    check(
        400,
        &[],
        &openai(
            "unsupported_parameter",
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
            "\"max_tokens\"",
        ),
        ErrorKind::BadParameter(Param::MaxTokens),
        None,
    );
    check(
        400,
        &[],
        &openai(
            "unsupported_value",
            "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
            "\"temperature\"",
        ),
        ErrorKind::BadParameter(Param::Temperature),
        None,
    );
    check(
        400,
        &[],
        r#"{"error":{"message":"Only one completion choice is allowed","type":"invalid_request_error"}}"#,
        ErrorKind::BadParameter(Param::N),
        None,
    );
    check(
        400,
        &[],
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` and `top_p` cannot both be specified for this model. Please use only one."}}"#,
        ErrorKind::BadParameter(Param::TopP),
        None,
    );
    check(
        400,
        &[],
        r#"{"error":{"code":400,"message":"Logprobs is not supported for the current model.","status":"INVALID_ARGUMENT"}}"#,
        ErrorKind::BadParameter(Param::Logprobs),
        None,
    );
    check(
        422,
        &[],
        r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","seed"],"msg":"Extra inputs are not permitted"}]},"type":"invalid_request_error"}"#,
        ErrorKind::BadParameter(Param::Seed),
        None,
    );
    check(
        400,
        &[],
        &openai("invalid_value", "messages[0].role must be one of ...", "null"),
        ErrorKind::BadRequest,
        None,
    );
}

#[test]
fn errors_explain_what_to_do() {
    let network = ApiError::network("TypeError: Failed to fetch");
    assert!(network.advice(ProviderId::Ollama).contains("OLLAMA_ORIGINS"));
    assert!(network.advice(ProviderId::LmStudio).contains("--cors"));
    let quota = classify_error(402, &[], "{}", NOW);
    assert!(quota.stops_run());
    assert!(quota.advice(ProviderId::OpenAi).contains("nothing more is spent"));
    assert_eq!(quota.to_string(), "quota or spend limit reached (HTTP 402): {}");
    assert_eq!(network.to_string(), "network or CORS failure: TypeError: Failed to fetch");
}

#[test]
fn retry_decisions() {
    let policy = RetryPolicy { max_attempts: 4, base_ms: 1000, cap_ms: 5000 };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let none_dropped = |_: Param| false;
    let server = classify_error(500, &[], "", NOW);
    // Full jitter: within [0, min(cap, base·2^(k−1))] for retries k = 1, 2, 3.
    for (attempt, window) in [(1, 1000), (2, 2000), (3, 4000)] {
        for _ in 0..200 {
            match policy.decide(&server, attempt, none_dropped, &mut rng) {
                RetryDecision::RetryAfter(ms) => assert!(ms <= window, "{ms} > {window}"),
                other => panic!("{other:?}"),
            }
        }
    }
    let waits: Vec<u64> = (0..200).map(|_| policy.backoff_ms(6, &mut rng)).collect();
    assert!(waits.iter().all(|&w| w <= 5000), "the cap holds");
    assert!(waits.iter().any(|&w| w > 4000), "and the window reaches it");
    assert_eq!(
        policy.decide(&server, 4, none_dropped, &mut rng),
        RetryDecision::GiveUp(GiveUpReason::AttemptsExhausted { attempts: 4 })
    );
    // A readable retry-after is the minimum wait, even beyond the backoff cap.
    let limited = classify_error(429, &[("retry-after".into(), "30".into())], "", NOW);
    assert_eq!(
        policy.decide(&limited, 1, none_dropped, &mut rng),
        RetryDecision::RetryAfter(30_000)
    );
    for never in [401, 402] {
        let e = classify_error(never, &[], "", NOW);
        assert_eq!(
            policy.decide(&e, 1, none_dropped, &mut rng),
            RetryDecision::GiveUp(GiveUpReason::NotRetryable)
        );
    }
    let context = classify_error(400, &[], r#"{"error":{"code":"context_length_exceeded"}}"#, NOW);
    assert_eq!(
        policy.decide(&context, 1, none_dropped, &mut rng),
        RetryDecision::GiveUp(GiveUpReason::NotRetryable)
    );
    let param = classify_error(
        400,
        &[],
        r#"{"error":{"message":"Unsupported parameter","param":"logprobs","code":"unsupported_parameter"}}"#,
        NOW,
    );
    assert_eq!(
        policy.decide(&param, 1, none_dropped, &mut rng),
        RetryDecision::DropParamAndRetry(Param::Logprobs)
    );
    assert_eq!(
        policy.decide(&param, 2, |p| p == Param::Logprobs, &mut rng),
        RetryDecision::GiveUp(GiveUpReason::ParamAlreadyDropped(Param::Logprobs))
    );
    // The same seed gives the same jitter.
    let a: Vec<u64> = {
        let mut r = ChaCha8Rng::seed_from_u64(9);
        (1..6).map(|k| policy.backoff_ms(k, &mut r)).collect()
    };
    let b: Vec<u64> = {
        let mut r = ChaCha8Rng::seed_from_u64(9);
        (1..6).map(|k| policy.backoff_ms(k, &mut r)).collect()
    };
    assert_eq!(a, b);
}

#[test]
fn test_connection_tells_failures_apart() {
    let ollama = Endpoint::preset(ProviderId::Ollama, "llama3");
    let listed = r#"{"object":"list","data":[{"id":"llama3:latest"},{"id":"qwen2.5:0.5b"}]}"#;
    let ok = classify_connection(&ollama, 200, &[], listed, NOW);
    assert_eq!(ok.status, ConnectionStatus::Ok, "llama3 is llama3:latest");
    assert_eq!(ok.models, vec!["llama3:latest", "qwen2.5:0.5b"]);
    let missing = classify_connection(
        &Endpoint::preset(ProviderId::Ollama, "mistral"),
        200,
        &[],
        listed,
        NOW,
    );
    assert_eq!(missing.status, ConnectionStatus::ModelMissing);
    assert!(missing.advice.contains("ollama pull mistral"), "{}", missing.advice);
    let cors = classify_connection(&ollama, 0, &[], "", NOW);
    assert_eq!(cors.status, ConnectionStatus::Unreachable);
    assert!(cors.advice.contains("OLLAMA_ORIGINS"));
    let lmstudio =
        classify_connection(&Endpoint::preset(ProviderId::LmStudio, "m"), 0, &[], "", NOW);
    assert!(lmstudio.advice.contains("--cors"));
    let openai = Endpoint::preset(ProviderId::OpenAi, "gpt-4o");
    let bad_key = classify_connection(
        &openai,
        401,
        &[],
        r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
        NOW,
    );
    assert_eq!(bad_key.status, ConnectionStatus::BadKey);
    let wrong_url = classify_connection(&openai, 404, &[], "Not Found", NOW);
    assert_eq!(wrong_url.status, ConnectionStatus::WrongBaseUrl);
    assert!(wrong_url.advice.contains("https://api.openai.com/v1"));
    let gemini = Endpoint::preset(ProviderId::Gemini, "gemini-2.0-flash");
    let g = classify_connection(
        &gemini,
        200,
        &[],
        r#"{"models":[{"name":"models/gemini-2.0-flash"}]}"#,
        NOW,
    );
    assert_eq!((g.status, g.models), (ConnectionStatus::Ok, vec!["gemini-2.0-flash".to_string()]));
    let garbage = classify_connection(&openai, 200, &[], "<html>", NOW);
    assert_eq!(garbage.status, ConnectionStatus::Failed);
}

#[test]
fn shipped_price_table_parses_cleanly_and_prices_model_variants() {
    let (table, diagnostics) = PriceTable::shipped().expect("valid JSON");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(table.snapshot_date, "2025-08-01");
    assert!(table.entries.len() >= 20);
    let price = |p, m| table.lookup(p, m);
    let mini = Price { input_per_million: 0.15, output_per_million: 0.6 };
    assert_eq!(price(ProviderId::OpenAi, "gpt-4o-mini"), Some(mini));
    assert_eq!(price(ProviderId::OpenAi, "gpt-4o-mini-2024-07-18"), Some(mini), "listed alias");
    assert_eq!(
        price(ProviderId::OpenAi, "gpt-4o-2024-08-06").map(|p| p.input_per_million),
        Some(2.5)
    );
    assert_eq!(
        price(ProviderId::OpenAi, "o3-mini").map(|p| p.input_per_million),
        Some(1.1),
        "not o3's"
    );
    assert_eq!(price(ProviderId::OpenAi, "gpt-4"), None, "gpt-4 is not gpt-4o");
    assert_eq!(price(ProviderId::OpenRouter, "openai/gpt-4o-mini"), Some(mini));
    assert_eq!(
        price(ProviderId::Anthropic, "claude-3-5-haiku-20241022").map(|p| p.output_per_million),
        Some(4.0)
    );
    assert_eq!(price(ProviderId::Ollama, "anything"), Some(Price::ZERO), "local is free");
}

#[test]
fn edited_price_tables_report_each_bad_entry() {
    let text = r#"{"snapshot_date":"2026-11-22","prices":[
        {"provider":"openai","model":"gpt-x","input":1,"output":2},
        {"provider":"nowhere","model":"m","input":1,"output":2},
        {"provider":"openai","model":"","input":1,"output":2},
        {"provider":"openai","model":"m2","input":-1,"output":"two"},
        {"model":"m3","input":1,"output":2}]}"#;
    let (table, diagnostics) = PriceTable::parse(text).expect("parses");
    assert_eq!(table.entries.len(), 1);
    let lines: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        vec![
            "prices[1].provider: unknown provider `nowhere`",
            "prices[2].model: missing or empty",
            "prices[3].input: expected a non-negative number of USD per 1M tokens, got -1",
            "prices[3].output: expected a non-negative number of USD per 1M tokens, got \"two\"",
            "prices[4].provider: missing (expected a provider slug such as \"openai\")",
        ]
    );
    let err = PriceTable::parse("{\"prices\": [").expect_err("cut short");
    assert!(err.to_string().starts_with("price table, line 1, column 12"), "{err}");
    assert!(PriceTable::parse("{}").is_err());
}

#[test]
fn estimate_before_a_run() {
    assert_eq!(
        (estimate_tokens(0), estimate_tokens(1), estimate_tokens(4), estimate_tokens(5)),
        (0, 1, 1, 2)
    );
    // 360 items × 4 attributes × 20 samples, prompts of 2,000 characters, 3 output tokens each.
    let input = EstimateInput {
        items: 360,
        attributes: 4,
        samples: 20,
        samples_per_call: 20,
        prompt_chars: 2000,
        output_tokens_per_sample: 3,
    };
    let price = Price { input_per_million: 0.15, output_per_million: 0.6 };
    let with_n = estimate_run(input, Some(price));
    assert_eq!((with_n.calls, with_n.input_tokens, with_n.output_tokens), (1440, 720_000, 86_400));
    // 0.72 M × 0.15 + 0.0864 M × 0.6 = 0.108 + 0.05184.
    assert!((with_n.cost_usd.expect("priced") - 0.15984).abs() < 1e-12);
    let looped = estimate_run(EstimateInput { samples_per_call: 1, ..input }, Some(price));
    assert_eq!(
        (looped.calls, looped.input_tokens),
        (28_800, 14_400_000),
        "the prompt is paid per call"
    );
    assert_eq!(estimate_run(input, None).cost_usd, None);
    // Reconciling with reported usage: two calls reported, one did not (estimated instead).
    let mut meter = CostMeter::default();
    assert_eq!(meter.projected_total_usd(0, 10), None);
    meter.record(
        Some(Usage { prompt_tokens: 2000, completion_tokens: 60, reasoning_tokens: 0 }),
        Some(price),
        1.0,
    );
    meter.record(
        Some(Usage { prompt_tokens: 1000, completion_tokens: 40, reasoning_tokens: 0 }),
        Some(price),
        1.0,
    );
    meter.record(None, Some(price), 0.0005);
    assert_eq!(
        meter.usage,
        Usage { prompt_tokens: 3000, completion_tokens: 100, reasoning_tokens: 0 }
    );
    assert_eq!(meter.calls_without_usage, 1);
    // 3000 × 0.15/M + 100 × 0.6/M = 0.00045 + 0.00006, plus the 0.0005 estimate.
    assert!((meter.reported_usd - 0.00051).abs() < 1e-15);
    assert!((meter.total_usd() - 0.00101).abs() < 1e-15);
    let projected = meter.projected_total_usd(3, 30).expect("after calls");
    assert!((projected - 0.0101).abs() < 1e-12, "{projected}");
}

#[test]
fn a_timeout_is_its_own_retryable_kind_with_its_own_advice() {
    let timeout = ApiError::timeout("no complete answer within 5.0 s; the request was cancelled");
    assert_eq!(timeout.kind, ErrorKind::Timeout);
    assert!(timeout.is_retryable() && !timeout.stops_run());
    assert_eq!(timeout.what(), "timed out");
    assert_eq!(
        timeout.to_string(),
        "timed out: no complete answer within 5.0 s; the request was cancelled"
    );
    assert!(timeout.advice(ProviderId::OpenAi).contains("Timeout per request"));
    // Retried with backoff like the other transient failures.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let decision = RetryPolicy::default().decide(&timeout, 1, |_| false, &mut rng);
    assert!(matches!(decision, RetryDecision::RetryAfter(ms) if ms <= 1000), "{decision:?}");
    // What a user reads for each transient kind names the cause.
    let bad_gateway = classify_error(502, &[], "<html><h1>502 Bad Gateway</h1></html>", NOW);
    assert_eq!(bad_gateway.kind, ErrorKind::ServerError);
    assert!(bad_gateway.to_string().starts_with("server error (HTTP 502)"));
    let malformed = ApiError::malformed("expected `,` or `}` at line 1");
    assert!(malformed.advice(ProviderId::OpenAi).contains("not valid JSON"));
}

#[test]
fn reasoning_tokens_are_counted_within_the_output_tokens_they_are_billed_as() {
    let openai = r#"{"model":"o3-mini","choices":[{"message":{"content":""},"finish_reason":"length"}],
        "usage":{"prompt_tokens":50,"completion_tokens":128,"completion_tokens_details":{"reasoning_tokens":128}}}"#;
    let r = parse_chat_response(Api::OpenAiCompatible, openai).expect("parses");
    assert_eq!(
        r.usage,
        Some(Usage { prompt_tokens: 50, completion_tokens: 128, reasoning_tokens: 128 })
    );
    assert_eq!(r.choices[0].finish_reason, Some(FinishReason::Length));
    // Gemini counts thoughts apart from the candidates; both are billed as output.
    let gemini = r#"{"candidates":[{"content":{"parts":[{"text":"Rating: 3"}]},"finishReason":"STOP"}],
        "usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":4,"thoughtsTokenCount":300}}"#;
    let g = parse_chat_response(Api::Gemini, gemini).expect("parses");
    assert_eq!(
        g.usage,
        Some(Usage { prompt_tokens: 40, completion_tokens: 304, reasoning_tokens: 300 })
    );
    let price = Price { input_per_million: 1.0, output_per_million: 4.0 };
    let cost = price.cost_usd(g.usage.expect("usage"));
    assert!(
        (cost - (40.0 + 304.0 * 4.0) / 1e6).abs() < 1e-15,
        "reasoning priced as output: {cost}"
    );
    let mut total = Usage::default();
    total.add(r.usage.expect("usage"));
    total.add(g.usage.expect("usage"));
    assert_eq!(total.reasoning_tokens, 428);
}

#[test]
fn a_cost_the_provider_reports_replaces_usage_times_price() {
    let body = r#"{"model":"openai/gpt-4o-mini","choices":[{"message":{"content":"Rating: 3"},"finish_reason":"stop"}],
        "usage":{"prompt_tokens":1000,"completion_tokens":10,"cost":0.00042}}"#;
    let r = parse_chat_response(Api::OpenAiCompatible, body).expect("parses");
    assert_eq!(r.cost_usd, Some(0.00042));
    let price = Price { input_per_million: 100.0, output_per_million: 100.0 };
    let mut meter = CostMeter::default();
    meter.record_reported(r.usage, r.cost_usd, Some(price), 9.0);
    // Without a figure from the provider: usage × price, as before.
    meter.record_reported(r.usage, None, Some(price), 9.0);
    assert_eq!(meter.calls_provider_priced, 1);
    assert!((meter.total_usd() - (0.00042 + 0.101)).abs() < 1e-12, "{}", meter.total_usd());
    assert_eq!(meter.usage.prompt_tokens, 2000);
    // A provider figure counts even when the model has no price.
    let mut unpriced = CostMeter::default();
    unpriced.record_reported(r.usage, r.cost_usd, None, 0.0);
    assert!((unpriced.total_usd() - 0.00042).abs() < 1e-15);
    let plain = parse_chat_response(Api::OpenAiCompatible, r#"{"choices":[{"message":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"cost":null}}"#).expect("parses");
    assert_eq!(plain.cost_usd, None);
}

#[test]
fn an_anthropic_tool_answer_is_read_as_its_json_input() {
    let body = r#"{"model":"claude","content":[{"type":"tool_use","id":"t1","name":"record_rating","input":{"rating":4,"rationale":"clear"}}],
        "stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}"#;
    let r = parse_chat_response(Api::Anthropic, body).expect("parses");
    let v: serde_json::Value = serde_json::from_str(&r.choices[0].text).expect("json text");
    assert_eq!(v["rating"], 4);
}
