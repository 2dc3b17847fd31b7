//! Provider presets, capabilities, HTTP request building, cache keys and header time formats.

use concord_core::judge::{ChatRequest, Message};
use concord_core::run::time::{parse_duration_ms, parse_http_date_ms, parse_rfc3339_ms};
use concord_core::run::{
    Api, BuildError, CallOptions, Capabilities, Endpoint, HttpRequest, Method, PRESETS, Param,
    ProviderId, SampleBatch, build_chat, build_list_models, cache_key, canonical_text,
    prompt_digest, sample_batches, sample_key,
};
use serde_json::{Value, json};

fn judge_request() -> ChatRequest {
    ChatRequest {
        messages: vec![Message::system("You are a judge."), Message::user("Rate: 1-5")],
        temperature: Some(1.0),
        top_p: Some(1.0),
        n: 20,
        max_tokens: Some(5),
        logprobs: Some(5),
        stop: Vec::new(),
        tag: "item-1/coherence".into(),
        schema: None,
    }
}

fn header<'a>(http: &'a HttpRequest, name: &str) -> Option<&'a str> {
    http.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Builds a call and checks its URL, headers (exactly) and JSON body (as a value).
#[allow(clippy::too_many_arguments)] // one argument per expected facet keeps call sites readable
fn check(
    endpoint: &Endpoint,
    caps: &Capabilities,
    req: &ChatRequest,
    samples: SampleBatch,
    url: &str,
    headers: &[(&str, &str)],
    body: Value,
    notes: &[&str],
) {
    let built = build_chat(endpoint, caps, req, samples, "sk-secret", CallOptions::default())
        .expect("builds");
    assert_eq!(built.http.method, Method::Post);
    assert_eq!(built.http.url, url);
    let got: Vec<(&str, &str)> =
        built.http.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(got, headers);
    let got_body: Value = serde_json::from_str(&built.http.body).expect("JSON body");
    assert_eq!(got_body, body);
    assert_eq!(built.notes, notes);
    assert!(!built.http.url.contains("sk-secret"), "the key never goes into the URL");
}

#[test]
fn every_provider_has_exactly_one_preset_with_an_http_base_url() {
    let ids = [
        ProviderId::OpenAi,
        ProviderId::OpenRouter,
        ProviderId::Groq,
        ProviderId::Together,
        ProviderId::Mistral,
        ProviderId::DeepSeek,
        ProviderId::Vllm,
        ProviderId::LlamaCpp,
        ProviderId::Ollama,
        ProviderId::LmStudio,
        ProviderId::Anthropic,
        ProviderId::Gemini,
        ProviderId::Custom,
    ];
    assert_eq!(PRESETS.len(), ids.len());
    for id in ids {
        assert_eq!(PRESETS.iter().filter(|p| p.id == id).count(), 1, "{id:?}");
        let p = id.preset();
        assert!(p.base_url.starts_with("http"), "{id:?}");
        assert!(!p.base_url.ends_with('/'));
        assert_eq!(ProviderId::from_slug(p.slug), Some(id));
    }
    assert_eq!(ProviderId::Ollama.preset().base_url, "http://localhost:11434/v1");
    assert_eq!(ProviderId::LmStudio.preset().base_url, "http://localhost:1234/v1");
    assert_eq!(ProviderId::Gemini.api(), Api::Gemini);
    assert!(ProviderId::Ollama.preset().cors_advice.contains("OLLAMA_ORIGINS"));
    assert!(ProviderId::LmStudio.preset().cors_advice.contains("--cors"));
}

#[test]
fn capabilities_follow_the_provider_table_and_reasoning_models() {
    let openai = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    assert_eq!((openai.max_n, openai.max_top_logprobs, openai.reasoning), (128, Some(20), false));
    assert_eq!(openai.temperature_range, (0.0, 2.0));
    let anthropic = Capabilities::for_model(ProviderId::Anthropic, "claude-sonnet-4");
    assert_eq!((anthropic.max_n, anthropic.max_top_logprobs), (1, None));
    assert_eq!(anthropic.temperature_range, (0.0, 1.0));
    for reasoning in ["o1", "o3-mini", "o4-mini-2025-04-16", "gpt-5", "gpt-5-mini", "openai/o3"] {
        assert!(Capabilities::for_model(ProviderId::OpenAi, reasoning).reasoning, "{reasoning}");
    }
    for plain in ["gpt-4o", "gpt-5-chat-latest", "omni-moderation", "llama3"] {
        assert!(!Capabilities::for_model(ProviderId::OpenAi, plain).reasoning, "{plain}");
    }
    let mut caps = Capabilities::for_model(ProviderId::LlamaCpp, "smollm2");
    assert!(caps.allows(Param::Logprobs));
    assert!(caps.drop_param(Param::Logprobs), "first drop");
    assert!(!caps.drop_param(Param::Logprobs), "second drop is refused");
    assert!(!caps.allows(Param::Logprobs));
}

#[test]
fn samples_are_batched_where_n_is_supported_and_looped_elsewhere() {
    let openai = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    assert_eq!(sample_batches(20, &openai), vec![SampleBatch { first: 0, count: 20 }]);
    let gemini = Capabilities::for_model(ProviderId::Gemini, "gemini-2.0-flash");
    let counts: Vec<(u32, u32)> =
        sample_batches(20, &gemini).iter().map(|b| (b.first, b.count)).collect();
    assert_eq!(counts, vec![(0, 8), (8, 8), (16, 4)]);
    let anthropic = Capabilities::for_model(ProviderId::Anthropic, "claude");
    let batches = sample_batches(3, &anthropic);
    assert_eq!(batches.len(), 3);
    assert!(batches.iter().enumerate().all(|(i, b)| b.first == i as u32 && b.count == 1));
    let mut vllm = Capabilities::for_model(ProviderId::Vllm, "m");
    vllm.drop_param(Param::N);
    assert_eq!(sample_batches(2, &vllm).len(), 2, "a rejected `n` means looping");
}

#[test]
fn openai_compatible_request() {
    let endpoint = Endpoint::preset(ProviderId::OpenAi, "gpt-4o-mini");
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o-mini");
    check(
        &endpoint,
        &caps,
        &judge_request(),
        SampleBatch { first: 0, count: 20 },
        "https://api.openai.com/v1/chat/completions",
        &[("content-type", "application/json"), ("authorization", "Bearer sk-secret")],
        json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You are a judge."},
                {"role": "user", "content": "Rate: 1-5"}
            ],
            "temperature": 1.0, "top_p": 1.0, "n": 20, "max_tokens": 5,
            "logprobs": true, "top_logprobs": 5, "seed": 0
        }),
        &[],
    );
}

#[test]
fn reasoning_models_get_max_completion_tokens_and_no_sampling_parameters() {
    let endpoint = Endpoint::preset(ProviderId::OpenAi, "o3-mini");
    let caps = Capabilities::for_model(ProviderId::OpenAi, "o3-mini");
    check(
        &endpoint,
        &caps,
        &judge_request(),
        SampleBatch { first: 3, count: 1 },
        "https://api.openai.com/v1/chat/completions",
        &[("content-type", "application/json"), ("authorization", "Bearer sk-secret")],
        json!({
            "model": "o3-mini",
            "messages": [
                {"role": "system", "content": "You are a judge."},
                {"role": "user", "content": "Rate: 1-5"}
            ],
            "max_completion_tokens": 5, "seed": 3
        }),
        &[
            "temperature 1 not sent: this reasoning model only takes the default",
            "top_p 1 not sent: this reasoning model only takes the default",
            "logprobs not requested: reasoning models do not return them",
        ],
    );
}

#[test]
fn local_server_without_key_loops_and_reports_dropped_parameters() {
    let endpoint = Endpoint {
        provider: ProviderId::LlamaCpp,
        base_url: "HTTP://127.0.0.1:8000/v1/".into(),
        model: "smollm2".into(),
    };
    let mut caps = Capabilities::for_model(ProviderId::LlamaCpp, "smollm2");
    caps.drop_param(Param::TopP);
    let built = build_chat(
        &endpoint,
        &caps,
        &judge_request(),
        SampleBatch { first: 7, count: 20 },
        "",
        CallOptions::default(),
    )
    .expect("builds without a key");
    assert_eq!(built.http.url, "http://127.0.0.1:8000/v1/chat/completions");
    assert_eq!(
        built.http.headers,
        vec![("content-type".to_string(), "application/json".to_string())]
    );
    assert_eq!(built.samples, SampleBatch { first: 7, count: 1 }, "no `n`: one sample per call");
    let body: Value = serde_json::from_str(&built.http.body).expect("JSON");
    assert_eq!(body.get("n"), None);
    assert_eq!(body.get("top_p"), None);
    assert_eq!(body["seed"], 7);
    assert_eq!(built.notes, vec!["top_p 1 not sent: the API rejected it earlier in this run"]);
}

#[test]
fn anthropic_request_has_browser_access_header_system_field_and_clamped_temperature() {
    let endpoint = Endpoint::preset(ProviderId::Anthropic, "claude-3-5-haiku-latest");
    let caps = Capabilities::for_model(ProviderId::Anthropic, "claude-3-5-haiku-latest");
    let mut req = judge_request();
    req.temperature = Some(1.5);
    req.max_tokens = None;
    req.top_p = None;
    check(
        &endpoint,
        &caps,
        &req,
        SampleBatch { first: 0, count: 1 },
        "https://api.anthropic.com/v1/messages",
        &[
            ("content-type", "application/json"),
            ("x-api-key", "sk-secret"),
            ("anthropic-version", "2023-06-01"),
            ("anthropic-dangerous-direct-browser-access", "true"),
        ],
        json!({
            "model": "claude-3-5-haiku-latest",
            "max_tokens": 1024,
            "system": "You are a judge.",
            "messages": [{"role": "user", "content": "Rate: 1-5"}],
            "temperature": 1.0
        }),
        &[
            "temperature 1.5 clamped to 1 (range 0–1)",
            "logprobs not requested: this provider does not support it",
            "max_tokens set to 1024 (Anthropic requires it)",
        ],
    );
}

#[test]
fn gemini_request_keeps_the_key_in_a_header() {
    let endpoint = Endpoint::preset(ProviderId::Gemini, "models/gemini-2.0-flash");
    let caps = Capabilities::for_model(ProviderId::Gemini, "gemini-2.0-flash");
    check(
        &endpoint,
        &caps,
        &judge_request(),
        SampleBatch { first: 0, count: 8 },
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:generateContent",
        &[("content-type", "application/json"), ("x-goog-api-key", "sk-secret")],
        json!({
            "systemInstruction": {"parts": [{"text": "You are a judge."}]},
            "contents": [{"role": "user", "parts": [{"text": "Rate: 1-5"}]}],
            "generationConfig": {
                "temperature": 1.0, "topP": 1.0, "candidateCount": 8, "maxOutputTokens": 5,
                "responseLogprobs": true, "logprobs": 5, "seed": 0
            }
        }),
        &[],
    );
}

#[test]
fn build_errors_name_what_is_missing() {
    let caps = Capabilities::for_model(ProviderId::OpenAi, "gpt-4o");
    let req = judge_request();
    let one = SampleBatch { first: 0, count: 1 };
    let build = |endpoint: &Endpoint, key: &str, req: &ChatRequest| {
        build_chat(endpoint, &caps, req, one, key, CallOptions::default()).err()
    };
    let openai = Endpoint::preset(ProviderId::OpenAi, "gpt-4o");
    assert_eq!(
        build(&openai, " ", &req),
        Some(BuildError::MissingKey { provider: "OpenAI".into() })
    );
    let no_model = Endpoint::preset(ProviderId::OpenAi, " ");
    assert_eq!(build(&no_model, "k", &req), Some(BuildError::NoModel));
    let bad_url = Endpoint { base_url: "api.openai.com".into(), ..openai.clone() };
    assert_eq!(
        build(&bad_url, "k", &req).map(|e| e.to_string()),
        Some("base URL `api.openai.com` must start with http:// or https://".into())
    );
    let empty = ChatRequest { messages: Vec::new(), ..req.clone() };
    assert_eq!(build(&openai, "k", &empty), Some(BuildError::NoMessages));
    let anthropic = Endpoint::preset(ProviderId::Anthropic, "claude");
    let only_system = ChatRequest { messages: vec![Message::system("x")], ..req };
    assert!(matches!(build(&anthropic, "k", &only_system), Some(BuildError::Unsupported { .. })));
}

#[test]
fn list_models_requests() {
    let ollama = Endpoint::preset(ProviderId::Ollama, "llama3");
    let http = build_list_models(&ollama, "").expect("builds");
    assert_eq!((http.method, http.url.as_str()), (Method::Get, "http://localhost:11434/v1/models"));
    assert!(http.headers.is_empty(), "a header-less GET needs no CORS preflight");
    let anthropic = Endpoint::preset(ProviderId::Anthropic, "claude");
    let http = build_list_models(&anthropic, "k").expect("builds");
    assert_eq!(http.url, "https://api.anthropic.com/v1/models");
    assert_eq!(header(&http, "anthropic-dangerous-direct-browser-access"), Some("true"));
    assert_eq!(header(&http, "content-type"), None);
    let gemini = Endpoint::preset(ProviderId::Gemini, "");
    let http = build_list_models(&gemini, "k").expect("builds");
    assert_eq!(http.url, "https://generativelanguage.googleapis.com/v1beta/models");
    assert_eq!(header(&http, "x-goog-api-key"), Some("k"));
}

#[test]
fn cache_key_is_pinned_and_ignores_the_api_key_and_url_spelling() {
    let endpoint = Endpoint::preset(ProviderId::OpenAi, "gpt-4o-mini");
    let req = judge_request();
    assert_eq!(
        canonical_text(&endpoint, &req),
        "concord-cache-v2\nprovider=openai\nbase_url=https://api.openai.com/v1\nmodel=gpt-4o-mini\n\
         params=[1.0,1.0,5,5,[]]\n\
         messages=[[\"system\",\"You are a judge.\"],[\"user\",\"Rate: 1-5\"]]"
    );
    // sha256 of the text above, then of "<digest>\nsample=3", computed independently with
    // `sha256sum`.
    let digest = "4771d7f42dd8dddaa21c33cad0aaa173bf409789b5a6011544bd96bd08ef8f2e";
    assert_eq!(prompt_digest(&endpoint, &req), digest);
    let key = cache_key(&endpoint, &req, 3);
    assert_eq!(key, "629f9fb24a859287f7ccd1ce3b662b215e4a3ce909e506dfd158ab83c476eaf9");
    let respelled = Endpoint {
        base_url: "HTTPS://API.OPENAI.COM/v1/".into(),
        model: " gpt-4o-mini ".into(),
        ..endpoint.clone()
    };
    assert_eq!(cache_key(&respelled, &req, 3), key);
    let other_tag = ChatRequest { tag: "another".into(), n: 1, ..req.clone() };
    assert_eq!(cache_key(&endpoint, &other_tag, 3), key, "tag and n do not change the answer");
    let hotter = ChatRequest { temperature: Some(0.7), ..req.clone() };
    assert_ne!(cache_key(&endpoint, &hotter, 3), key);
    assert_ne!(cache_key(&endpoint, &req, 4), key);
    let other_path = Endpoint { base_url: "https://api.openai.com/V1".into(), ..endpoint };
    assert_ne!(cache_key(&other_path, &req, 3), key, "paths are case-sensitive");
}

#[test]
fn sample_keys_of_every_index_width_are_pinned() {
    // `printf 'abc\nsample=%s' I | sha256sum` for I = 0, 12, 4294967295.
    for (index, expected) in [
        (0, "b22a305cecd1a988bd182d921712b9c4761d525f437afd60edc05ada89799564"),
        (12, "df0b7a56cdc123fad4c6bf5673d6daf3d832dc4160b771651a17bd9d6973b611"),
        (u32::MAX, "3df1f972256319decb6f1eef64cafdb7b01dcde037ddde18eb82531434dd41a7"),
    ] {
        assert_eq!(sample_key("abc", index), expected, "sample {index}");
    }
}

#[test]
fn header_time_formats() {
    // RFC 9110's example date; 784111777 s after the epoch.
    assert_eq!(parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777_000));
    assert_eq!(parse_http_date_ms("Sun, 06 Nov 1994 08:49:37 PST"), None);
    assert_eq!(parse_http_date_ms("soon"), None);
    assert_eq!(parse_rfc3339_ms("1994-11-06T08:49:37Z"), Some(784_111_777_000));
    assert_eq!(parse_rfc3339_ms("1994-11-06T09:49:37.250+01:00"), Some(784_111_777_250));
    assert_eq!(parse_rfc3339_ms("2026-13-01T00:00:00Z"), None);
    for (text, ms) in [
        ("1s", 1000),
        ("6m0s", 360_000),
        ("20ms", 20),
        ("1h2m3.5s", 3_723_500),
        ("37s", 37_000),
        ("0.5", 500),
    ] {
        assert_eq!(parse_duration_ms(text), Some(ms), "{text}");
    }
    for bad in ["", "s", "5x", "-1"] {
        assert_eq!(parse_duration_ms(bad), None, "{bad}");
    }
}

#[test]
fn structured_output_is_asked_for_in_each_api_s_own_way() {
    use concord_core::judge::builtin::{OutputMode, rating_schema};
    let schema = rating_schema(OutputMode::RateExplain);
    assert_eq!(schema["required"], json!(["rating", "rationale"]));
    assert_eq!(rating_schema(OutputMode::AnalyzeRate)["required"], json!(["analysis", "rating"]));
    let req = ChatRequest { schema: Some(schema.clone()), logprobs: None, ..judge_request() };
    let body = |provider: ProviderId| -> Value {
        let ep = Endpoint::preset(provider, "m");
        let caps = Capabilities::for_model(provider, "m");
        let built = build_chat(
            &ep,
            &caps,
            &req,
            SampleBatch { first: 0, count: 1 },
            "k",
            CallOptions::default(),
        )
        .expect("builds");
        serde_json::from_str(&built.http.body).expect("json")
    };
    let openai = body(ProviderId::OpenAi);
    assert_eq!(openai["response_format"]["type"], "json_schema");
    assert_eq!(openai["response_format"]["json_schema"]["strict"], true);
    assert_eq!(openai["response_format"]["json_schema"]["schema"], schema);
    let anthropic = body(ProviderId::Anthropic);
    assert_eq!(anthropic["tools"][0]["input_schema"], schema);
    assert_eq!(anthropic["tool_choice"], json!({"type": "tool", "name": "record_rating"}));
    let gemini = body(ProviderId::Gemini);
    assert_eq!(gemini["generationConfig"]["responseMimeType"], "application/json");
    assert_eq!(gemini["generationConfig"]["responseJsonSchema"], schema);
    // Dropped after the API rejected it: not sent, and said.
    let mut caps = Capabilities::for_model(ProviderId::Vllm, "m");
    caps.drop_param(Param::ResponseFormat);
    let ep = Endpoint::preset(ProviderId::Vllm, "m");
    let built = build_chat(
        &ep,
        &caps,
        &req,
        SampleBatch { first: 0, count: 1 },
        "",
        CallOptions::default(),
    )
    .expect("builds");
    assert!(!built.http.body.contains("response_format"));
    assert!(built.notes.iter().any(|n| n.starts_with("structured output not requested")));
    assert_eq!(Param::from_api_name("response_format"), Some(Param::ResponseFormat));
    // Asking for a schema is another request: another cache key; none keeps the old keys.
    let plain = ChatRequest { schema: None, ..req.clone() };
    assert_ne!(cache_key(&ep, &req, 0), cache_key(&ep, &plain, 0));
    assert!(!canonical_text(&ep, &plain).contains("schema="));
}
