//! Real providers, as they really answer (issue 35): their refusals read by structure, then by
//! words; one item's failure is one item's; their response shapes. Every body below is the
//! provider's own, as `docs/providers.md` cites it.

use concord_core::run::{
    Api, ApiError, ErrorKind, FailureOutcome, Finish, Job, Param, ParseError, ProviderId,
    Scheduler, SchedulerConfig, StopReason, classify_error, parse_chat_response,
};

const NOW: u64 = 1_795_345_200_000;

fn kind(status: u16, body: &str) -> ErrorKind {
    classify_error(status, &[], body, NOW).kind
}

/// BREAK: Gemini 2.5 with a probability-weighted method. The native API answers 400 "Logprobs is
/// not enabled for models/gemini-2.5-flash" (googleapis/python-genai's generate_content test
/// table, `test_logprobs_zero_with_response_logprobs_true`); Gemini 3 says "… for this model".
#[test]
fn gemini_refusing_logprobs_drops_logprobs() {
    for message in [
        "Logprobs is not enabled for models/gemini-2.5-flash",
        "Logprobs is not enabled for models/gemini-2.5-flash-lite",
        "Logprobs is not enabled for this model",
    ] {
        let body = format!(
            r#"{{"error":{{"code":400,"message":"{message}","status":"INVALID_ARGUMENT"}}}}"#
        );
        assert_eq!(kind(400, &body), ErrorKind::BadParameter(Param::Logprobs), "{message}");
    }
    // The OpenAI-compatible endpoint: "Unknown name" with the field's name quoted.
    let compat = r#"[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"logprobs\": Cannot find field.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"Invalid JSON payload received. Unknown name \"logprobs\": Cannot find field."}]}]}}]"#;
    // A list around the error (the OpenAI-compatible endpoint's shape) is read as text.
    assert_eq!(kind(400, compat), ErrorKind::BadParameter(Param::Logprobs));
}

/// BREAK: Gemini 3 with N > 1: "Multiple candidates is not enabled for this model" (issue
/// threads quoting the API; also `models/gemini-2.5-flash-image-preview`).
#[test]
fn gemini_refusing_candidates_drops_n() {
    for message in [
        "Multiple candidates is not enabled for this model",
        "Multiple candidates is not enabled for models/gemini-2.5-flash-image-preview",
    ] {
        let body = format!(
            r#"{{"error":{{"code":400,"message":"{message}","status":"INVALID_ARGUMENT"}}}}"#
        );
        assert_eq!(kind(400, &body), ErrorKind::BadParameter(Param::N), "{message}");
    }
}

/// BREAK: DeepSeek with a "+json" method: 400 "This response_format type is unavailable now",
/// `param: null`, `code: invalid_request_error` (the body as litellm reports it from DeepSeek).
#[test]
fn deepseek_refusing_json_schema_drops_the_response_format() {
    let body = r#"{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#;
    assert_eq!(kind(400, body), ErrorKind::BadParameter(Param::ResponseFormat));
}

/// The error's own fields come first: OpenAI's `param`, Gemini's field violations.
#[test]
fn structure_before_words() {
    // `param` names the field although the words name another.
    let body = r#"{"error":{"message":"Unsupported value: 'temperature' is not supported with this model together with top_p.","type":"invalid_request_error","param":"top_p","code":"unsupported_value"}}"#;
    assert_eq!(kind(400, body), ErrorKind::BadParameter(Param::TopP));
    let gemini = r#"{"error":{"code":400,"message":"Invalid value at 'generation_config' (type.googleapis.com/google.ai.generativelanguage.v1beta.GenerationConfig): not supported","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"generation_config.candidate_count","description":"not supported"}]}]}}"#;
    assert_eq!(kind(400, gemini), ErrorKind::BadParameter(Param::N));
    // A refusal that names no parameter stays a bad request (the item fails, nothing dropped).
    let vague =
        r#"{"error":{"message":"This feature is not supported.","type":"invalid_request_error"}}"#;
    assert_eq!(kind(400, vague), ErrorKind::BadRequest);
}

/// BREAK: Anthropic's 400 "Your credit balance is too low…" is not one bad item: it stops the
/// run and says to add credit.
#[test]
fn anthropic_credit_balance_stops_the_run_with_add_credit() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CZuM6Bor5yyzq7jPyabr6"}"#;
    let e = classify_error(400, &[], body, NOW);
    assert_eq!(e.kind, ErrorKind::Quota);
    assert!(e.stops_run() && !e.is_retryable());
    assert!(
        e.advice(ProviderId::Anthropic).contains("Add credit"),
        "{}",
        e.advice(ProviderId::Anthropic)
    );
    // DeepSeek's 402.
    let deepseek = r#"{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}"#;
    assert_eq!(kind(402, deepseek), ErrorKind::Quota);
}

/// Gemini's overflow wording is a context overflow, and a context overflow is the item's
/// failure, not the run's.
#[test]
fn gemini_overflow_is_a_context_overflow_that_does_not_stop_the_run() {
    for message in [
        "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
        "The input token count exceeds the maximum number of tokens allowed (1048576).",
    ] {
        let body = format!(
            r#"{{"error":{{"code":400,"message":"{message}","status":"INVALID_ARGUMENT"}}}}"#
        );
        let e = classify_error(400, &[], &body, NOW);
        assert_eq!(e.kind, ErrorKind::ContextLength, "{message}");
        assert!(!e.stops_run() && !e.is_retryable());
    }
    // llama.cpp's server with a small context.
    let llama = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":1290,"n_ctx":512}}"#;
    assert_eq!(kind(400, llama), ErrorKind::ContextLength);
}

/// BREAK: a Gemini blocked prompt (HTTP 200, `promptFeedback.blockReason`, no candidates) was
/// retried ten times as a malformed answer; it is a non-retryable failure of that item.
#[test]
fn a_blocked_gemini_prompt_is_the_items_failure_said_as_such() {
    let body = r#"{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]},"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash"}"#;
    let e = parse_chat_response(Api::Gemini, body).expect_err("no answer");
    assert_eq!(e, ParseError::Blocked { reason: "SAFETY".into() });
    let error = ApiError::blocked(e.to_string());
    assert!(!error.is_retryable() && !error.stops_run());
    assert!(error.to_string().contains("blocked"), "{error}");
    assert!(error.advice(ProviderId::Gemini).contains("not retried"));
    // An empty candidates list with the feedback is the same.
    let empty = r#"{"candidates":[],"promptFeedback":{"blockReason":"OTHER"}}"#;
    assert_eq!(
        parse_chat_response(Api::Gemini, empty),
        Err(ParseError::Blocked { reason: "OTHER".into() })
    );
}

fn overflow_body() -> String {
    r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#.into()
}

/// Drives a scheduler where the prompts in `long` overflow (a prompt "x/m" rates item "x");
/// returns the finish, what was sent and the scheduler.
fn run_with_overflows(
    prompts: &[&str],
    long: &[&str],
    known: &[&str],
) -> (Finish, Vec<usize>, Scheduler<usize>) {
    let jobs: Vec<Job<usize>> = prompts
        .iter()
        .enumerate()
        .map(|(i, p)| Job {
            key: format!("k{i}"),
            payload: i,
            estimated_cost_usd: 0.0,
            prompt: Some(concord_core::run::PromptRef {
                item: p.split('/').next().unwrap_or(p).to_owned(),
                prompt: (*p).to_owned(),
            }),
        })
        .collect();
    let config = SchedulerConfig {
        max_concurrency: 1,
        known_overflow: known.iter().map(|s| (*s).to_owned()).collect(),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(jobs, config);
    let mut sent = Vec::new();
    for now in 0..10_000u64 {
        match s.next_action(now) {
            concord_core::run::Action::Send(id) => {
                sent.push(id);
                if long.contains(&prompts[id]) {
                    let e = classify_error(400, &[], &overflow_body(), NOW);
                    let _ = s.on_failure(id, now, e).expect("in flight");
                } else {
                    s.on_success(id, now, None).expect("in flight");
                }
            }
            concord_core::run::Action::Done(f) => return (f, sent, s),
            _ => {}
        }
    }
    panic!("did not finish");
}

/// BREAK: one over-long prompt among the items stopped the whole run (after 9 of 360 calls)
/// and Resume stopped on it again. Now the item fails and the run goes on; its prompt's other
/// calls (N looped) are not sent; the prompts of three different items stop the run, naming
/// them; a resumed run does not send, count or stop on the prompts that overflowed before.
#[test]
fn one_overflow_fails_its_item_three_stop_the_run_and_resume_skips_them() {
    // Item 2's prompts are too long; its score-only prompt has three calls (N = 3 looped), and
    // its second method's prompt is too long as well: still one item.
    let prompts = ["1/plain", "2/plain", "2/plain", "2/plain", "2/json", "3/plain", "4/plain"];
    let (finish, sent, s) = run_with_overflows(&prompts, &["2/plain", "2/json"], &[]);
    assert_eq!(finish, Finish::Completed);
    assert_eq!(sent, vec![0, 1, 4, 5, 6], "the prompt's other calls are not sent");
    let p = s.progress(0);
    assert_eq!((p.done, p.failed), (3, 4));
    assert_eq!(s.overflowed(), ["2/plain".to_owned(), "2/json".to_owned()]);
    assert!(
        s.log()
            .iter()
            .any(|l| l.message.contains("2/plain") && l.message.contains("the run goes on"))
    );

    // Three different items: the run stops and names them; nothing more is sent.
    let prompts = ["a/m", "b/m", "c/m", "d/m", "e/m", "f/m"];
    let (finish, sent, s) = run_with_overflows(&prompts, &["b/m", "c/m", "e/m"], &[]);
    let Finish::Stopped(StopReason::Overflow { items }) = &finish else { panic!("{finish:?}") };
    assert_eq!(items, &["b", "c", "e"]);
    assert_eq!(sent, vec![0, 1, 2, 3, 4]);
    let said = finish.describe(ProviderId::LlamaCpp);
    assert!(
        said.message.contains("the prompts of 3 different items were too long")
            && said.message.contains("b; c; e"),
        "{}",
        said.message
    );
    assert!(said.advice.expect("advice").contains("larger context"));
    assert_eq!(s.overflowed().len(), 3);

    // Resumed with what overflowed: those prompts are not sent again and the rest completes.
    let (finish, sent, s) =
        run_with_overflows(&prompts, &["b/m", "c/m", "e/m"], &["b/m", "c/m", "e/m"]);
    assert_eq!(finish, Finish::Completed);
    assert_eq!(sent, vec![0, 3, 5]);
    assert!(s.overflowed().is_empty());
    assert_eq!(s.progress(0).failed, 3);
}

/// A rejected parameter is still dropped once for the run and said in the log.
#[test]
fn a_refused_parameter_is_dropped_for_the_run_and_the_log_says_which_and_why() {
    let jobs: Vec<Job<usize>> = (0..3)
        .map(|i| Job { key: format!("k{i}"), payload: i, estimated_cost_usd: 0.0, prompt: None })
        .collect();
    let mut s =
        Scheduler::new(jobs, SchedulerConfig { max_concurrency: 1, ..SchedulerConfig::default() });
    let concord_core::run::Action::Send(id) = s.next_action(0) else { panic!() };
    let body = r#"{"error":{"code":400,"message":"Logprobs is not enabled for models/gemini-2.5-flash","status":"INVALID_ARGUMENT"}}"#;
    let outcome = s.on_failure(id, 0, classify_error(400, &[], body, NOW)).expect("in flight");
    assert_eq!(outcome, FailureOutcome::RetryWithout(Param::Logprobs));
    assert!(s.dropped_params().contains(&Param::Logprobs));
    let line = &s.log().last().expect("logged").message;
    assert!(line.contains("`logprobs`") && line.contains("Logprobs is not enabled"), "{line}");
}

/// Together answers chat calls with the legacy completions shape of log-probabilities; weighted
/// methods used to get nothing from it, silently.
#[test]
fn together_legacy_logprobs_are_read() {
    let body = r#"{"id":"x","object":"chat.completion","model":"meta-llama/Llama-3.3-70B-Instruct-Turbo","choices":[{"index":0,"message":{"role":"assistant","content":"Rating: 4"},"finish_reason":"stop",
        "logprobs":{"tokens":["Rating",":"," ","4"],"token_logprobs":[-0.01,0.0,0.0,-0.4],"top_logprobs":[{"Rating":-0.01},{":":0.0},{" ":0.0},{"4":-0.4,"3":-1.3,"5":-2.2}]}}],
        "usage":{"prompt_tokens":50,"completion_tokens":4,"total_tokens":54}}"#;
    let r = parse_chat_response(Api::OpenAiCompatible, body).expect("parses");
    let tokens = r.choices[0].top_logprobs.as_ref().expect("log-probabilities read");
    assert_eq!(tokens.len(), 4);
    assert_eq!((tokens[3].token.as_str(), tokens[3].logprob), ("4", -0.4));
    let mut alts: Vec<(&str, f64)> =
        tokens[3].top_logprobs.iter().map(|t| (t.token.as_str(), t.logprob)).collect();
    alts.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(alts, vec![("3", -1.3), ("4", -0.4), ("5", -2.2)]);
    // Without `top_logprobs`, the chosen token's alone.
    let bare = body.replace(
        r#","top_logprobs":[{"Rating":-0.01},{":":0.0},{" ":0.0},{"4":-0.4,"3":-1.3,"5":-2.2}]"#,
        "",
    );
    let r = parse_chat_response(Api::OpenAiCompatible, &bare).expect("parses");
    assert_eq!(r.choices[0].top_logprobs.as_ref().expect("read")[3].logprob, -0.4);
}

/// OpenRouter BYOK: `usage.cost` is only OpenRouter's fee; the upstream provider's charge is
/// `usage.cost_details.upstream_inference_cost` (OpenRouter's usage accounting).
#[test]
fn openrouter_byok_cost_adds_the_upstream_cost() {
    let body = |byok: bool, cost: f64, upstream: f64| {
        format!(
            r#"{{"id":"gen-1","model":"openai/gpt-4o-mini","choices":[{{"index":0,"message":{{"role":"assistant","content":"Rating: 3"}},"finish_reason":"stop"}}],
            "usage":{{"prompt_tokens":1906,"completion_tokens":229,"total_tokens":2135,"cost":{cost},"is_byok":{byok},"cost_details":{{"upstream_inference_cost":{upstream},"upstream_inference_prompt_cost":0.0003,"upstream_inference_completions_cost":0.0001}}}}}}"#
        )
    };
    let paid = parse_chat_response(Api::OpenAiCompatible, &body(false, 0.0005186, 0.0005186))
        .expect("parses");
    assert_eq!(paid.cost_usd, Some(0.0005186));
    let byok =
        parse_chat_response(Api::OpenAiCompatible, &body(true, 0.00002, 0.0004)).expect("parses");
    let cost = byok.cost_usd.expect("a cost");
    assert!((cost - 0.00042).abs() < 1e-12, "{cost}");
}

// ---- Provider profiles (part 2) and reasoning budgets (part 4) ----

use concord_core::judge::{ChatRequest, Message};
use concord_core::run::provider::{PROFILES, Profile, SchemaFlavor, Thinking, is_reasoning_model};
use concord_core::run::{CallOptions, Capabilities, Endpoint, SampleBatch, build_chat};
use serde_json::Value;

fn request(max_tokens: u32) -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("You are a judge."), Message::user("Rate: 1-5")],
        temperature: Some(0.7),
        top_p: Some(0.9),
        n: 5,
        max_tokens: Some(max_tokens),
        logprobs: Some(5),
        stop: Vec::new(),
        tag: String::new(),
        schema: None,
    }
}

fn body(provider: ProviderId, model: &str, req: &ChatRequest) -> (Value, Vec<String>) {
    let endpoint = Endpoint::preset(provider, model);
    let caps = Capabilities::for_model(provider, model);
    let built = build_chat(
        &endpoint,
        &caps,
        req,
        SampleBatch { first: 0, count: req.n },
        "k",
        CallOptions::default(),
    )
    .expect("builds");
    (serde_json::from_str(&built.http.body).expect("JSON"), built.notes)
}

#[test]
fn every_profile_row_names_its_source_and_every_provider_has_a_fallback_row() {
    for row in PROFILES {
        assert!(!row.source.trim().is_empty(), "{}", row.name);
    }
    for preset in concord_core::run::PRESETS {
        assert!(
            PROFILES.iter().any(|r| r.provider == preset.id && r.families.is_empty()),
            "{:?} has no fallback row",
            preset.id
        );
    }
    assert_eq!(
        Profile::of(ProviderId::Gemini, "models/gemini-2.5-flash-lite").name,
        "Gemini 2.5 Flash / Flash-Lite"
    );
    assert_eq!(Profile::of(ProviderId::Gemini, "gemini-3-pro-preview").name, "Gemini 3");
    assert_eq!(
        Profile::of(ProviderId::Anthropic, "claude-sonnet-4-5-20250929").name,
        "Claude 4.5 and later"
    );
    assert_eq!(
        Profile::of(ProviderId::Anthropic, "claude-3-5-sonnet-latest").name,
        "Claude 3.5–4.x"
    );
    assert_eq!(Profile::of(ProviderId::DeepSeek, "deepseek-reasoner").name, "DeepSeek reasoner");
}

/// BREAK: Gemini 2.5 with the default Max tokens (128): thinking counted against
/// `maxOutputTokens` and answers came back empty. Flash and Flash-Lite get thinking off, and
/// never get asked for log-probabilities they refuse.
#[test]
fn gemini_flash_gets_thinking_off_and_no_logprobs() {
    let (b, notes) = body(ProviderId::Gemini, "gemini-2.5-flash", &request(128));
    let config = &b["generationConfig"];
    assert_eq!(config["thinkingConfig"]["thinkingBudget"], 0, "{b}");
    assert_eq!(config["maxOutputTokens"], 128);
    assert!(config.get("responseLogprobs").is_none(), "{b}");
    assert!(notes.iter().any(|n| n.starts_with("logprobs not requested")), "{notes:?}");
    assert!(!Capabilities::for_model(ProviderId::Gemini, "gemini-2.5-flash-lite").reasoning);
}

/// The Run screen's "Let the model think": Gemini 2.5 Flash / Flash-Lite then get dynamic
/// thinking (`thinkingBudget: -1`) and are planned as reasoning models, under keys of their own
/// (an answer with thinking is not the answer without); other models are unchanged.
#[test]
fn gemini_flash_thinks_when_the_user_turns_thinking_on() {
    let endpoint = Endpoint::preset(ProviderId::Gemini, "gemini-2.5-flash");
    let off = Capabilities::for_model(ProviderId::Gemini, "gemini-2.5-flash");
    assert!(off.thinking_optional());
    let on = off.clone().with_thinking(true);
    assert_eq!(on.thinking, Thinking::GeminiOn);
    assert!(on.reasoning && on.thinking_optional());
    let req = request(4096);
    let built = build_chat(
        &endpoint,
        &on,
        &req,
        SampleBatch { first: 0, count: 1 },
        "k",
        CallOptions::default(),
    )
    .expect("builds");
    let b: Value = serde_json::from_str(&built.http.body).expect("JSON");
    assert_eq!(b["generationConfig"]["thinkingConfig"]["thinkingBudget"], -1, "{b}");
    assert_eq!(b["generationConfig"]["maxOutputTokens"], 4096);
    // Keys: thinking on is another answer; off keeps the keys it always had.
    use concord_core::run::{cache_key, cache_key_for, prompt_digest, prompt_digest_for};
    assert_eq!(prompt_digest_for(&endpoint, &off, &req), prompt_digest(&endpoint, &req));
    assert_ne!(prompt_digest_for(&endpoint, &on, &req), prompt_digest(&endpoint, &req));
    // The sample keys every other screen (meta-evaluation, CoEval, a revised judge, the
    // Judge screen's steps) stores answers under follow the same rule.
    for i in [0, 3] {
        assert_eq!(cache_key_for(&endpoint, &off, &req, i), cache_key(&endpoint, &req, i));
        assert_ne!(cache_key_for(&endpoint, &on, &req, i), cache_key(&endpoint, &req, i));
        assert_eq!(
            cache_key_for(&endpoint, &on, &req, i),
            concord_core::run::sample_key(&prompt_digest_for(&endpoint, &on, &req), i)
        );
    }
    // Models whose thinking is not optional are not changed by the setting.
    for (provider, model) in [
        (ProviderId::Gemini, "gemini-2.5-pro"),
        (ProviderId::Gemini, "gemini-2.0-flash"),
        (ProviderId::OpenAi, "gpt-4o-mini"),
    ] {
        let caps = Capabilities::for_model(provider, model);
        assert!(!caps.thinking_optional(), "{model}");
        assert_eq!(caps.clone().with_thinking(true), caps, "{model}");
    }
    // Off (the default), the table's `thinkingBudget: 0` is sent.
    assert_eq!(off.clone().with_thinking(false), off);
}

/// gemini-2.5-pro, Gemini 3, deepseek-reasoner and gpt-oss are reasoning models (the 4,096
/// default and the short-budget warning apply), wherever they are served; only OpenAI's own
/// take `max_completion_tokens` and refuse sampling parameters.
#[test]
fn reasoning_models_across_providers() {
    for (provider, model) in [
        (ProviderId::Gemini, "gemini-2.5-pro"),
        (ProviderId::Gemini, "gemini-3-pro-preview"),
        (ProviderId::Gemini, "gemini-3-flash-preview"),
        (ProviderId::DeepSeek, "deepseek-reasoner"),
        (ProviderId::Groq, "openai/gpt-oss-120b"),
        (ProviderId::Vllm, "gpt-oss-20b"),
        (ProviderId::OpenRouter, "openai/gpt-oss-120b"),
        (ProviderId::OpenAi, "o3-pro"),
    ] {
        let caps = Capabilities::for_model(provider, model);
        assert!(caps.reasoning && is_reasoning_model(model), "{model}");
        assert_eq!(caps.max_top_logprobs, None, "{model}");
        assert_ne!(caps.thinking, Thinking::None, "{model}");
    }
    let (b, _) = body(ProviderId::DeepSeek, "deepseek-reasoner", &request(4096));
    assert_eq!(b["max_tokens"], 4096, "{b}");
    assert!(b.get("max_completion_tokens").is_none());
    let (b, _) = body(ProviderId::Gemini, "gemini-2.5-pro", &request(4096));
    assert!(
        b["generationConfig"].get("thinkingConfig").is_none(),
        "pro cannot turn thinking off: {b}"
    );
    // Gemini 3 refuses candidateCount > 1: looped, one sample a call.
    let (b, _) = body(ProviderId::Gemini, "gemini-3-pro-preview", &request(4096));
    assert!(b["generationConfig"].get("candidateCount").is_none(), "{b}");
    for plain in [
        "gemini-2.5-flash",
        "gemini-2.0-flash",
        "deepseek-chat",
        "llama-3.3-70b",
        "gpt-5-chat-latest",
    ] {
        assert!(!is_reasoning_model(plain), "{plain}");
    }
}

/// BREAK (batch): Claude 4.5+ reject temperature and top_p together; the known incompatibility
/// is never sent (interactively or in a batch line), older Claudes get both.
#[test]
fn claude_4_5_never_gets_temperature_and_top_p_together() {
    let (b, notes) = body(ProviderId::Anthropic, "claude-sonnet-4-5-20250929", &request(64));
    assert_eq!(b["temperature"], 0.7);
    assert!(b.get("top_p").is_none(), "{b}");
    assert!(notes.iter().any(|n| n.contains("takes temperature or top_p, not both")), "{notes:?}");
    let (b, _) = body(ProviderId::Anthropic, "claude-3-5-sonnet-latest", &request(64));
    assert_eq!((b["temperature"].as_f64(), b["top_p"].as_f64()), (Some(0.7), Some(0.9)));
}

/// DeepSeek takes JSON mode only: a "+json" method asks for `json_object` and the prompt states
/// the schema (never the `json_schema` DeepSeek refuses).
#[test]
fn deepseek_json_gets_json_mode_with_the_schema_in_the_prompt() {
    let mut req = request(64);
    req.schema = Some(concord_core::judge::builtin::rating_schema(
        concord_core::judge::builtin::OutputMode::RateExplain,
    ));
    let caps = Capabilities::for_model(ProviderId::DeepSeek, "deepseek-chat");
    assert_eq!(caps.schema, SchemaFlavor::JsonObject);
    let (b, _) = body(ProviderId::DeepSeek, "deepseek-chat", &req);
    assert_eq!(b["response_format"], serde_json::json!({"type": "json_object"}));
    let last = b["messages"][1]["content"].as_str().expect("text");
    assert!(
        last.starts_with("Rate: 1-5") && last.contains("JSON schema") && last.contains("rationale"),
        "{last}"
    );
    // OpenAI keeps the strict schema.
    let (b, _) = body(ProviderId::OpenAi, "gpt-4o", &req);
    assert_eq!(b["response_format"]["type"], "json_schema");
}

// ---- Prices you can trust (part 6) ----

/// BREAK: prices were found by prefix, so `o3-pro` was priced as `o3` (about ten times too
/// cheap for the spend cap's reservation). A model is priced by its exact name or a listed
/// alias; anything else is unknown and asked for.
#[test]
fn no_price_fallback_across_tiers() {
    let (table, diagnostics) = concord_core::run::PriceTable::shipped().expect("valid");
    assert!(diagnostics.is_empty());
    assert!(!table.snapshot_date.is_empty(), "the list carries its date");
    let price = |p, m| table.lookup(p, m);
    assert!(price(ProviderId::OpenAi, "o3").is_some());
    for other_tier in [
        "o3-pro",
        "o3-pro-2025-06-10",
        "o4-mini-deep-research",
        "o3-deep-research",
        "gpt-4o-2024-05-13",
        "gpt-5-pro",
        "gemini-2.5-flash-image-preview",
    ] {
        let provider =
            if other_tier.starts_with("gemini") { ProviderId::Gemini } else { ProviderId::OpenAi };
        assert_eq!(
            price(provider, other_tier),
            None,
            "{other_tier} must not take a shorter name's price"
        );
    }
    // Listed dated snapshots keep their alias's price.
    assert_eq!(price(ProviderId::OpenAi, "o3-2025-04-16"), price(ProviderId::OpenAi, "o3"));
    assert_eq!(
        price(ProviderId::Anthropic, "claude-sonnet-4-20250514"),
        price(ProviderId::Anthropic, "claude-sonnet-4")
    );
    assert_eq!(price(ProviderId::OpenRouter, "openai/o3-pro"), None);
}

// ---- Check this model (part 7) ----

use concord_core::run::check::{
    ModelCheck, Needs, Probe, ProbeOutcome, Verdict, judge_probe, probe_call, probes,
};

#[test]
fn a_check_judges_each_capability_in_the_providers_words_and_a_run_plans_around_it() {
    let needs = Needs {
        logprobs: true,
        max_n: 5,
        schema: Some(serde_json::json!({"type": "object"})),
        min_max_tokens: Some(128),
    };
    let caps = Capabilities::for_model(ProviderId::Gemini, "gemini-2.0-flash");
    assert_eq!(
        probes(&needs, &caps),
        vec![Probe::Plain, Probe::Logprobs, Probe::Samples, Probe::Schema]
    );
    let flash = Capabilities::for_model(ProviderId::Gemini, "gemini-2.5-pro");
    assert!(probes(&needs, &flash).contains(&Probe::ReasoningBudget));
    // The probe asks for log-probabilities even where the table says none, to hear the
    // provider's own words; Anthropic's wire cannot carry them at all.
    let endpoint = Endpoint::preset(ProviderId::Gemini, "gemini-2.5-flash");
    let flash_caps = Capabilities::for_model(ProviderId::Gemini, "gemini-2.5-flash");
    let (req, probe_caps) =
        probe_call(Probe::Logprobs, &needs, &endpoint, &flash_caps).expect("probed");
    let built = build_chat(
        &endpoint,
        &probe_caps,
        &req,
        SampleBatch { first: 0, count: 1 },
        "k",
        CallOptions::default(),
    )
    .expect("builds");
    assert!(built.http.body.contains("responseLogprobs"), "{}", built.http.body);
    assert!(
        probe_call(
            Probe::Logprobs,
            &needs,
            &Endpoint::preset(ProviderId::Anthropic, "claude-sonnet-4-5"),
            &Capabilities::for_model(ProviderId::Anthropic, "claude-sonnet-4-5")
        )
        .is_none()
    );

    let refusal = classify_error(
        400,
        &[],
        r#"{"error":{"code":400,"message":"Logprobs is not enabled for models/gemini-2.5-flash","status":"INVALID_ARGUMENT"}}"#,
        NOW,
    );
    let logprobs = judge_probe(Probe::Logprobs, &needs, &ProbeOutcome::Failed(refusal));
    assert_eq!(logprobs.verdict, Verdict::Refused);
    assert_eq!(logprobs.words, "Logprobs is not enabled for models/gemini-2.5-flash");
    assert!(logprobs.action.contains("not weighted"));
    let one = parse_chat_response(
        Api::Gemini,
        r#"{"candidates":[{"content":{"parts":[{"text":"3"}]},"finishReason":"STOP"}]}"#,
    )
    .expect("parses");
    let samples = judge_probe(Probe::Samples, &needs, &ProbeOutcome::Answered(one.clone()));
    assert_eq!(samples.verdict, Verdict::Refused, "one answer for two asked");
    let plain = judge_probe(Probe::Plain, &needs, &ProbeOutcome::Answered(one));
    assert_eq!(plain.verdict, Verdict::Works);
    let starved = parse_chat_response(Api::Gemini, r#"{"candidates":[{"content":{"parts":[]},"finishReason":"MAX_TOKENS"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":0,"thoughtsTokenCount":128}}"#).expect("parses");
    let budget = judge_probe(Probe::ReasoningBudget, &needs, &ProbeOutcome::Answered(starved));
    assert_eq!(budget.verdict, Verdict::Refused);
    assert!(budget.words.contains("128") && budget.action.contains("Max tokens"), "{budget:?}");
    // A network failure is not a refusal: nothing is known.
    let down = judge_probe(
        Probe::Schema,
        &needs,
        &ProbeOutcome::Failed(ApiError::network("Failed to fetch")),
    );
    assert_eq!(down.verdict, Verdict::Failed);

    let check = ModelCheck {
        provider: "gemini".into(),
        model: "gemini-2.5-flash".into(),
        at: 0,
        results: vec![plain, logprobs, samples, budget],
    };
    let mut caps = Capabilities::for_model(ProviderId::Gemini, "gemini-2.0-flash");
    check.apply(&mut caps);
    assert!(
        !caps.allows(Param::Logprobs) && !caps.allows(Param::N),
        "the run never sends what was refused"
    );
    assert_eq!(caps.samples_per_call(), 1);
}

// ---- Batch runs that survive the real APIs (part 5) ----

use concord_core::run::batch::{self as batch_api, BatchApi, BatchPhase, LineRef};

/// BREAK: two lines sharing a cache key gave a repeated custom id, and the provider refuses a
/// whole batch for that: lines are de-duplicated.
#[test]
fn batch_lines_are_deduplicated_by_custom_id() {
    let endpoint = Endpoint::preset(ProviderId::OpenAi, "gpt-4o-mini");
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    let req = request(16);
    let keys = vec!["k1".to_owned()];
    let line = batch_api::batch_line(
        &endpoint,
        &caps,
        &req,
        SampleBatch { first: 0, count: 1 },
        &keys,
        "sk",
    )
    .expect("line");
    let other = batch_api::batch_line(
        &endpoint,
        &caps,
        &req,
        SampleBatch { first: 0, count: 1 },
        &["k2".to_owned()],
        "sk",
    )
    .expect("line");
    let (kept, repeats) = batch_api::dedupe(vec![line.clone(), other, line]);
    assert_eq!(repeats, 1);
    assert_eq!(kept.iter().map(|l| l.custom_id.as_str()).collect::<Vec<_>>(), ["k1", "k2"]);
}

/// OpenAI's per-model enqueued-token limit: the failed batch's `errors.data[].code` is shown,
/// and it is recognised as a full queue (its lines go again when the batches ahead end).
#[test]
fn a_full_queue_is_read_from_errors_data() {
    let body = r#"{"id":"batch_1","object":"batch","status":"failed","errors":{"object":"list","data":[{"code":"token_limit_exceeded","message":"Enqueued token limit reached for gpt-4o in organization org-x. Limit: 90,000 enqueued tokens. Please try again once some in_progress batches have been completed.","param":null,"line":null}]},"request_counts":{"total":0,"completed":0,"failed":0}}"#;
    let state = batch_api::parse_batch(BatchApi::OpenAi, 200, &[], body, 0).expect("parses");
    let BatchPhase::Failed { reason } = &state.phase else { panic!("{:?}", state.phase) };
    assert!(
        reason.starts_with("token_limit_exceeded: Enqueued token limit reached for gpt-4o"),
        "{reason}"
    );
    assert!(batch_api::queue_full(&state.phase));
    let other = batch_api::parse_batch(
        BatchApi::OpenAi,
        200,
        &[],
        &body
            .replace("token_limit_exceeded", "invalid_json_line")
            .replace("Enqueued token limit reached", "Bad line"),
        0,
    )
    .expect("parses");
    assert!(!batch_api::queue_full(&other.phase));
    // Transfers get time in proportion to their size.
    assert_eq!(batch_api::transfer_timeout_ms(0), 60_000);
    assert!(batch_api::transfer_timeout_ms(200_000_000) >= 800_000);
}

/// BREAK: a parameter rejected for a whole batch failed every line and "Re-run failed as a new
/// batch" failed the same way; the refusal is read from the failed lines, kept with the
/// batch, and a re-run is built without it.
#[test]
fn a_parameter_refused_in_batch_lines_is_remembered_with_the_batch() {
    let lines = vec![
        LineRef { custom_id: "a".into(), keys: vec!["a".into()] },
        LineRef { custom_id: "b".into(), keys: vec!["b".into()] },
    ];
    let anthropic = r#"{"custom_id":"a","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` and `top_p` cannot both be specified for this model. Please use only one."}}}}
{"custom_id":"b","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` and `top_p` cannot both be specified for this model. Please use only one."}}}}"#;
    let got = batch_api::collect(
        BatchApi::Anthropic,
        &lines,
        &[anthropic.to_owned()],
        &BatchPhase::Ended,
    );
    assert_eq!(got.failures.len(), 2);
    assert_eq!(got.rejected.len(), 1);
    assert_eq!(got.rejected[0].0, Param::TopP);
    let openai = r#"{"id":"r","custom_id":"a","response":{"status_code":400,"body":{"error":{"message":"Unsupported parameter: 'logprobs' is not supported with this model.","type":"invalid_request_error","param":"logprobs","code":"unsupported_parameter"}}},"error":null}"#;
    let got =
        batch_api::collect(BatchApi::OpenAi, &lines[..1], &[openai.to_owned()], &BatchPhase::Ended);
    assert_eq!(got.rejected.iter().map(|(p, _)| *p).collect::<Vec<_>>(), [Param::Logprobs]);
}

/// Issue 36.6: one wording of money with enough digits, so a batch's spent, interactive and
/// saved figures agree ($0.0004 + $0.0004 ≠ $0.0009 was what four decimals gave).
#[test]
fn money_has_enough_digits_to_agree() {
    use concord_core::words::{usd, usd_difference};
    assert_eq!(usd(0.0019), "$0.0019");
    assert_eq!(usd(0.01574), "$0.016");
    assert_eq!(usd(12.4), "$12.40");
    assert_eq!(usd(0.004), "$0.004", "never \"$0.00\"");
    // Three figures that must add up as shown.
    let (spent, full, saved) = usd_difference(2.2838, 4.5676);
    assert_eq!((spent.as_str(), full.as_str(), saved.as_str()), ("$2.28", "$4.57", "$2.29"));
    let (spent, full, saved) = usd_difference(0.00045, 0.0009);
    assert_eq!(
        (spent.as_str(), full.as_str(), saved.as_str()),
        ("$0.00045", "$0.00090", "$0.00045")
    );
    let (spent, full, saved) = usd_difference(1234.5, 2469.0);
    assert_eq!(
        (spent.as_str(), full.as_str(), saved.as_str()),
        ("$1,234.50", "$2,469.00", "$1,234.50")
    );
}
